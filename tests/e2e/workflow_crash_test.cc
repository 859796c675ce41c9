// The host dies while a call runs (SPEC 4, `interrupted`): Lua marks the call interrupted in
// its buffer, and the next :ToolRun starts a new host that works.
#include <gtest/gtest.h>

#include <csignal>
#include <set>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

TEST(WorkflowCrash, KilledHostMarksTheRunningCallInterruptedAndTheNextRunWorks) {
  NvimHarness nvim;
  nvim.forward_diagnostics();
  record_events(nvim, {"ToolhostJobStarted", "ToolhostJobFinished"});
  int64_t buf = open_chat(nvim, "crash.chat.md");
  reply(nvim, buf, bash_reply({"sleep 5", "echo after"}));
  set_cursor(nvim, row_of(nvim, buf, "sleep 5"));
  nvim.command("ToolRun");
  json started = wait_event(nvim, "ToolhostJobStarted");
  std::string id = started["id"];

  int64_t pid = nvim.lua("return vim.fn.jobpid(require('toolhost.host').channel())");
  ASSERT_GT(pid, 0);
  ASSERT_EQ(::kill(static_cast<pid_t>(pid), SIGKILL), 0);

  json interrupted = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(interrupted["id"], id);
  EXPECT_EQ(interrupted["status"], "interrupted");
  EXPECT_EQ(interrupted["tool"], "run_terminal_command");
  EXPECT_EQ(interrupted["buf"], buf);
  EXPECT_EQ(nvim.lua("return require('toolhost').job(...).status", json::array({id})),
            "interrupted");
  std::string text = text_of(nvim, buf);
  EXPECT_NE(text.find("```bash\nsleep 5\n```\n"
                      "````result id=" +
                      id +
                      " tool=run_terminal_command status=interrupted\n"
                      "The tool host stopped while this call ran; its output so far: "
                      ":ToolOutput " +
                      id +
                      "\n"
                      "````\n"),
            std::string::npos)
      << text;
  bool marked = false;
  for (const auto& d : diagnostics(nvim, buf)) {
    marked = marked || (d["message"] == "✗ run_terminal_command: interrupted" &&
                        d["severity"] == 1 && d["lnum"] == row_of(nvim, buf, "**bash**") - 1);
  }
  EXPECT_TRUE(marked) << diagnostics(nvim, buf).dump();

  // The next :ToolRun starts a new host, which serves the buffer again.
  set_cursor(nvim, row_of(nvim, buf, "echo after"));
  nvim.command("ToolRun");
  json after = wait_event(nvim, "ToolhostJobStarted");
  EXPECT_NE(after["id"], id);
  json finished = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(finished["id"], after["id"]);
  EXPECT_EQ(finished["status"], "succeeded");
  EXPECT_NE(nvim.lua("return vim.fn.jobpid(require('toolhost.host').channel())"), pid);
  text = text_of(nvim, buf);
  EXPECT_NE(text.find("✓ Executed: `echo after`"), std::string::npos) << text;
  // The interrupted call did not run again.
  EXPECT_EQ(barrier(nvim, buf).size(), 2u);
}

// The name the host gives its batches (ui.apply_all's second argument), kept in
// _G.last_instance, and the batches Lua dropped as a dead host's, counted in _G.dropped.
void record_batch_senders(NvimHarness& nvim) {
  nvim.lua(R"(
    local ui = require("toolhost.ui")
    local apply_all = ui.apply_all
    _G.dropped = 0
    ui.apply_all = function(batches, instance, ...)
      _G.last_instance = instance
      local result = apply_all(batches, instance, ...)
      if result.dropped then
        _G.dropped = _G.dropped + #batches
      end
      return result
    end
  )");
}

int64_t host_pid(NvimHarness& nvim) {
  return nvim.lua("return vim.fn.jobpid(require('toolhost.host').channel())").get<int64_t>();
}

// Issue #28, 3: a batch that a host sent just before it died, arriving after its exit marked its
// calls interrupted, brought them back (`running`, or a result). Such a batch is dropped now, and
// a call that only it reported running ends interrupted too.
TEST(WorkflowCrash, BatchOfADeadHostArrivingLateChangesNothing) {
  NvimHarness nvim;
  nvim.forward_diagnostics();
  record_events(nvim, {"ToolhostJobStarted", "ToolhostJobFinished"});
  record_batch_senders(nvim);
  int64_t buf = open_chat(nvim, "late.chat.md");
  reply(nvim, buf, bash_reply({"sleep 30", "sleep 31"}));
  set_cursor(nvim, row_of(nvim, buf, "sleep 30"));
  nvim.command("ToolRun");
  json started = wait_event(nvim, "ToolhostJobStarted");
  std::string id = started["id"];
  json other_call = nvim.lua("return require('toolhost.ui').call_at(...)",
                             json::array({buf, row_of(nvim, buf, "sleep 31") - 1}));
  ASSERT_TRUE(other_call.is_string()) << other_call.dump();
  json dead = nvim.lua("return _G.last_instance");
  ASSERT_TRUE(dead.is_string()) << dead.dump();
  ASSERT_EQ(::kill(static_cast<pid_t>(host_pid(nvim)), SIGKILL), 0);
  EXPECT_EQ(wait_event(nvim, "ToolhostJobFinished")["status"], "interrupted");

  // What the dead host would have sent next: its call succeeded (job, stream, diagnostic,
  // event), and the other call started, which Lua never heard of.
  json job = {{"id", id},
              {"status", "succeeded"},
              {"buf", buf},
              {"call_id", started["call_id"]},
              {"tool", "run_terminal_command"}};
  json other = {{"id", "th-99"},
                {"status", "running"},
                {"buf", buf},
                {"call_id", other_call},
                {"tool", "run_terminal_command"}};
  json entry = {
      {"buf", buf},
      {"stream", json::array({{{"key", started["call_id"]}, {"lines", {"late"}}}})},
      {"diags",
       json::array(
           {{{"key", started["call_id"]}, {"row", 0}, {"severity", 3}, {"message", "✓ late"}}})}};
  json late =
      json::array({{{"jobs", json::array({job, other})},
                    {"buffers", json::array({entry})},
                    {"events", json::array({{{"name", "ToolhostJobFinished"}, {"data", job}}})}}});
  json answer = nvim.lua("return require('toolhost.ui').apply_all(...)", json::array({late, dead}));
  EXPECT_EQ(answer, (json{{"dropped", true}}));
  EXPECT_EQ(nvim.lua("return require('toolhost').job(...).status", json::array({id})),
            "interrupted");
  EXPECT_EQ(nvim.lua("return require('toolhost').job('th-99').status"), "interrupted");
  // th-99's interruption is announced; the late `succeeded` is not.
  json announced = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(announced["id"], "th-99");
  EXPECT_EQ(announced["status"], "interrupted");
  EXPECT_EQ(fired(nvim, "ToolhostJobFinished"), 2);
  std::string text = text_of(nvim, buf);
  for (const std::string& job_id : {id, std::string("th-99")}) {
    EXPECT_NE(
        text.find("````result id=" + job_id + " tool=run_terminal_command status=interrupted"),
        std::string::npos)
        << text;
  }
  EXPECT_EQ(text.find("status=succeeded"), std::string::npos) << text;
  for (const auto& d : diagnostics(nvim, buf)) EXPECT_NE(d["message"], "✓ late");
  EXPECT_EQ(nvim.lua(R"(
    local buf = ...
    local ns, count = require("toolhost.ui").namespace, 0
    for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
      if mark[4].virt_lines then count = count + 1 end
    end
    return count
  )",
                     json::array({buf})),
            0);
}

// The same under load: output floods in from three calls (a batch every 10 ms) while a `sleep`
// runs, and the host is SIGKILLed at whatever point its batches are; three times, a new host
// each time. Every call ends interrupted with one result block, and stays so.
TEST(WorkflowCrash, HostKilledWhileOutputFloodsLeavesEveryCallInterrupted) {
  NvimHarness nvim(json{{"output", {{"stream_interval_ms", 10}}}});
  record_events(nvim, {"ToolhostJobStarted", "ToolhostJobFinished", "ToolhostJobOutput"});
  record_batch_senders(nvim);
  int64_t buf = open_chat(nvim, "flood.chat.md");
  std::vector<std::string> ids;
  for (int round = 0; round < 3; ++round) {
    const std::string sleep = "sleep 30 # " + std::to_string(round);
    std::vector<std::string> commands = {sleep};
    for (int i = 0; i < 3; ++i) {
      commands.push_back("while :; do seq 500; sleep 0.01; done # " +
                         std::to_string(round * 3 + i));
    }
    Lines lines = bash_reply(commands);
    if (round > 0) lines.insert(lines.begin(), "USER: again");
    reply(nvim, buf, lines, false);
    for (const auto& command : commands) {
      set_cursor(nvim, row_of(nvim, buf, command));
      nvim.command("ToolRun");
    }
    std::set<std::string> round_ids;
    while (round_ids.size() < commands.size()) {
      round_ids.insert(wait_event(nvim, "ToolhostJobStarted")["id"].get<std::string>());
    }
    wait_event(nvim, "ToolhostJobOutput");  // the floods stream
    ASSERT_EQ(::kill(static_cast<pid_t>(host_pid(nvim)), SIGKILL), 0);
    std::set<std::string> interrupted;
    while (interrupted.size() < commands.size()) {
      json finished = wait_event(nvim, "ToolhostJobFinished");
      EXPECT_EQ(finished["status"], "interrupted") << finished.dump();
      interrupted.insert(finished["id"].get<std::string>());
    }
    EXPECT_EQ(interrupted, round_ids);
    ids.insert(ids.end(), round_ids.begin(), round_ids.end());
  }
  // A new host, after every batch the dead ones sent has arrived.
  barrier(nvim, buf);
  std::cerr << "[crash] batches of dead hosts dropped: " << nvim.lua("return _G.dropped") << "\n";
  std::string text = text_of(nvim, buf);
  for (const auto& id : ids) {
    EXPECT_EQ(nvim.lua("return require('toolhost').job(...).status", json::array({id})),
              "interrupted")
        << id;
    const std::string result = "````result id=" + id + " ";
    size_t at = text.find(result);
    ASSERT_NE(at, std::string::npos) << id << "\n" << text;
    EXPECT_EQ(text.find(result, at + 1), std::string::npos) << id << "\n" << text;
    EXPECT_EQ(text.compare(at + result.size(), 39, "tool=run_terminal_command status=interr"), 0)
        << text.substr(at, 80);
  }
}

}  // namespace
}  // namespace toolhost::e2e
