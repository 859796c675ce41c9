// What happens to a result when its chat buffer changes under a running job (issue #19, SPEC 5):
// wiped, reloaded, renamed, set 'nomodifiable', in a textlock, in insert mode. Each job waits
// for a file the test creates, so the change always happens while it runs.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// A command that runs until release() and then prints `out`.
std::string gated(const std::string& out) {
  return "while [ ! -e go ]; do sleep 0.02; done; echo " + out;
}

void release(NvimHarness& nvim) {
  std::ofstream(nvim.temp_dir() + "/go") << "go\n";
}

// vim.notify's warnings and errors are kept in _G.notified (none is expected in these tests).
void keep_notifications(NvimHarness& nvim) {
  nvim.lua(R"(
    _G.notified = {}
    vim.notify = function(m, level)
      if (level or vim.log.levels.INFO) >= vim.log.levels.WARN then table.insert(_G.notified, m) end
    end
  )");
}

// A chat file whose reply holds `commands`, saved, with the first one running.
int64_t run_first(NvimHarness& nvim, const std::string& name,
                  const std::vector<std::string>& commands, std::string* job) {
  record_events(nvim, {"ToolhostJobStarted", "ToolhostJobFinished"});
  int64_t buf = open_chat(nvim, name);
  reply(nvim, buf, bash_reply(commands), false);
  nvim.command("write");
  set_cursor(nvim, row_of(nvim, buf, "```bash") + 1);
  nvim.command("ToolRun");
  *job = wait_event(nvim, "ToolhostJobStarted")["id"];
  return buf;
}

std::string landed(const std::string& job, const std::string& command, const std::string& out) {
  return "✓ Executed: `" + command + "`\n````result id=" + job +
         " tool=run_terminal_command status=succeeded exit=0 duration=D\nExit code: 0\n"
         "Stdout:\n" +
         out + "\n````\n";
}

TEST(BufferLifecycle, WipedWhileJobsRunNoCrashJobsFinishIntoHistoryNoErrors) {
  NvimHarness nvim(json{{"confirm_run_all", false}, {"run_all", "parallel"}});
  keep_notifications(nvim);
  record_events(nvim, {"ToolhostJobStarted", "ToolhostJobFinished"});
  int64_t buf = open_chat(nvim, "wiped.chat.md");
  reply(nvim, buf, bash_reply({gated("one"), gated("two")}), false);
  nvim.command("ToolRunAll");
  std::set<std::string> ids = {wait_event(nvim, "ToolhostJobStarted")["id"],
                               wait_event(nvim, "ToolhostJobStarted")["id"]};
  nvim.command("bwipeout!");
  EXPECT_FALSE(nvim.lua("return vim.api.nvim_buf_is_valid(...)", json::array({buf})));
  release(nvim);
  for (int i = 0; i < 2; ++i) {
    json done = wait_event(nvim, "ToolhostJobFinished");
    EXPECT_TRUE(ids.count(done["id"])) << done.dump();
    EXPECT_EQ(done["status"], "succeeded");
  }
  // History has both; the host still answers; nobody was told of an error.
  json jobs = barrier(nvim);
  ASSERT_EQ(jobs.size(), 2u) << jobs.dump();
  for (const auto& job : jobs) {
    EXPECT_TRUE(ids.count(job["id"])) << job.dump();
    EXPECT_EQ(job["status"], "succeeded") << job.dump();
  }
  EXPECT_EQ(nvim.lua("return _G.notified"), json::array());
  EXPECT_EQ(nvim.lua("return vim.v.errmsg"), "");
  EXPECT_TRUE(nvim.lua("return vim.rpcrequest(require('toolhost.host').channel(), "
                       "'toolhost.ping').pid ~= nil")
                  .get<bool>());
}

// The host's sessions (toolhost.ping).
int sessions(NvimHarness& nvim) {
  return nvim
      .lua(
          "return vim.rpcrequest(require('toolhost.host').channel(), 'toolhost.ping')"
          ".sessions")
      .get<int>();
}

// Regression (issue #28): a buffer detached while its job ran kept its session in the host's
// map for good; it leaves once the job has ended (into history).
TEST(BufferLifecycle, DetachedWhileItsJobRunsTheSessionLeavesWhenTheJobEnds) {
  NvimHarness nvim;
  keep_notifications(nvim);
  std::string job;
  run_first(nvim, "detached.chat.md", {gated("one")}, &job);
  EXPECT_EQ(sessions(nvim), 1);
  nvim.command("ToolDetach");
  EXPECT_EQ(sessions(nvim), 1);  // it finishes the job
  release(nvim);
  json done = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(done["id"], job);
  EXPECT_EQ(done["status"], "succeeded");
  EXPECT_EQ(sessions(nvim), 0);
  nvim.command("ToolAttach");
  EXPECT_EQ(sessions(nvim), 1);
  EXPECT_EQ(nvim.lua("return _G.notified"), json::array());
}

TEST(BufferLifecycle, ReloadedWithEditBangTheResultStillLands) {
  NvimHarness nvim;
  keep_notifications(nvim);
  std::string job;
  int64_t buf = run_first(nvim, "reloaded.chat.md", {gated("reloaded")}, &job);
  nvim.command("edit!");
  barrier(nvim, buf);  // attached again and read
  release(nvim);
  EXPECT_EQ(wait_event(nvim, "ToolhostJobFinished")["status"], "succeeded");
  barrier(nvim, buf);
  std::string text = normalized_text(nvim, buf);
  EXPECT_NE(text.find(landed(job, gated("reloaded"), "reloaded")), std::string::npos) << text;
  EXPECT_EQ(nvim.lua("return _G.notified"), json::array());
}

TEST(BufferLifecycle, RenamedWhileTheJobRunsTheResultStillLands) {
  NvimHarness nvim;
  keep_notifications(nvim);
  std::string job;
  int64_t buf = run_first(nvim, "before.chat.md", {gated("renamed")}, &job);
  nvim.command("file after.chat.md");
  release(nvim);
  EXPECT_EQ(wait_event(nvim, "ToolhostJobFinished")["status"], "succeeded");
  barrier(nvim, buf);
  std::string text = normalized_text(nvim, buf);
  EXPECT_NE(text.find(landed(job, gated("renamed"), "renamed")), std::string::npos) << text;
  EXPECT_EQ(nvim.lua("return _G.notified"), json::array());
}

TEST(BufferLifecycle, NomodifiableMakesTheWriteWaitUntilModifiableIsSetAgain) {
  NvimHarness nvim;
  nvim.forward_diagnostics();
  std::string job;
  int64_t buf = run_first(nvim, "locked.chat.md", {gated("locked")}, &job);
  nvim.command("setlocal nomodifiable");
  std::string before = text_of(nvim, buf);
  release(nvim);
  EXPECT_EQ(wait_event(nvim, "ToolhostJobFinished")["status"], "succeeded");
  barrier(nvim, buf);
  EXPECT_EQ(text_of(nvim, buf), before);  // waiting, not dropped, not forced in
  // The diagnostic does not wait.
  bool shown = false;
  for (const auto& d : diagnostics(nvim, buf)) {
    shown = shown || d["message"].get<std::string>().rfind("✓ run_terminal_command", 0) == 0;
  }
  EXPECT_TRUE(shown) << diagnostics(nvim, buf).dump();
  nvim.command("setlocal modifiable");
  std::string text = normalized_text(nvim, buf);
  EXPECT_NE(text.find(landed(job, gated("locked"), "locked")), std::string::npos) << text;
}

TEST(BufferLifecycle, InsertModeMakesTheWriteWaitUntilEsc) {
  NvimHarness nvim;
  std::string job;
  int64_t buf = run_first(nvim, "typing.chat.md", {gated("typed")}, &job);
  nvim.forward_insert_mode();
  std::string before = text_of(nvim, buf);
  nvim.request("nvim_input", json::array({"i"}));
  EXPECT_EQ(nvim.wait_for("mode"), "InsertEnter");
  release(nvim);
  EXPECT_EQ(wait_event(nvim, "ToolhostJobFinished")["status"], "succeeded");
  EXPECT_EQ(text_of(nvim, buf), before);
  nvim.request("nvim_input", json::array({"<Esc>"}));
  EXPECT_EQ(nvim.wait_for("mode"), "InsertLeave");
  std::string text = normalized_text(nvim, buf);
  EXPECT_NE(text.find(landed(job, gated("typed"), "typed")), std::string::npos) << text;
}

// An <expr> mapping holds the textlock (E523 for any buffer change) while its function runs;
// this one waits inside it until toolhost has tried to write the result, so the write meets
// the lock. It must wait and land once the mapping is over.
TEST(BufferLifecycle, AWriteInATextlockWaitsAndLandsAfterwards) {
  NvimHarness nvim;
  std::string job;
  int64_t buf = run_first(nvim, "textlock.chat.md", {gated("unlocked")}, &job);
  nvim.listen("write");
  nvim.lua(R"(
    local chan, go = ...
    local rewrite = require("toolhost.rewrite")  -- where results are written
    local write = rewrite.write
    rewrite.write = function(...)
      local ok, err = write(...)
      _G.attempted = true
      vim.rpcnotify(chan, "write", { ok = ok, err = err and tostring(err) or vim.NIL })
      return ok, err
    end
    vim.keymap.set("n", "Q", function()
      vim.fn.writefile({ "go" }, go)
      vim.wait(20000, function() return _G.attempted end, 5)
      return ""
    end, { expr = true })
  )",
           json::array({nvim.channel(), nvim.temp_dir() + "/go"}));
  nvim.request("nvim_input", json::array({"Q"}));
  json first = nvim.wait_for("write");
  EXPECT_FALSE(first["ok"].get<bool>()) << first.dump();
  // 0.7 says E523, 0.10+ E565 (rewrite.lua knows both).
  std::string refused = first["err"].get<std::string>();
  EXPECT_TRUE(refused.find("E523") != std::string::npos ||
              refused.find("E565") != std::string::npos)
      << first.dump();
  json second = nvim.wait_for("write");
  EXPECT_TRUE(second["ok"].get<bool>()) << second.dump();
  std::string text = normalized_text(nvim, buf);
  EXPECT_NE(text.find(landed(job, gated("unlocked"), "unlocked")), std::string::npos) << text;
  bool warned = false;
  for (const auto& d : diagnostics(nvim, buf)) warned = warned || d["severity"] == 2;
  EXPECT_FALSE(warned) << diagnostics(nvim, buf).dump();
}

}  // namespace
}  // namespace toolhost::e2e
