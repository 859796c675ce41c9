// :ToolRunAll (SPEC 4): the pending calls of the last reply in order, one after another or
// all at once, after one confirmation that lists the calls that need approval.
#include <gtest/gtest.h>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// Replaces vim.fn.confirm: each question becomes notification "confirm" { msg, choices } and
// is answered `answer` (1 = Run all, 2 = Cancel).
void stub_confirm(NvimHarness& nvim, int answer) {
  nvim.listen("confirm");
  nvim.lua(R"(
    local chan, answer = ...
    vim.fn.confirm = function(msg, choices)
      vim.rpcnotify(chan, "confirm", { msg = msg, choices = choices })
      return answer
    end
  )",
           json::array({nvim.channel(), answer}));
}

TEST(WorkflowRunAll, SequentialRunsThePendingCallsOneAfterAnotherInOrder) {
  NvimHarness nvim(json{{"confirm_run_all", false}});
  nvim.forward_notify();
  record_events(nvim, {"ToolhostJobStarted", "ToolhostJobFinished", "ToolhostAllDone"});
  int64_t buf = open_chat(nvim, "all.chat.md");
  reply(nvim, buf, bash_reply({"echo one", "echo two", "echo three"}));
  nvim.command("ToolRunAll");

  json note = nvim.wait_for("notify");
  EXPECT_EQ(note["msg"], "Running 3 tool call(s)…");
  EXPECT_EQ(note["level"], 2);  // INFO
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    json started = next_event(nvim);
    ASSERT_EQ(started["name"], "ToolhostJobStarted") << started.dump();
    json finished = next_event(nvim);
    ASSERT_EQ(finished["name"], "ToolhostJobFinished") << finished.dump();
    EXPECT_EQ(finished["data"]["id"], started["data"]["id"]);
    EXPECT_EQ(finished["data"]["status"], "succeeded");
    ids.push_back(finished["data"]["id"]);
  }
  EXPECT_EQ(next_event(nvim)["name"], "ToolhostAllDone");

  // Each block has its result under it, in call order.
  std::string text = normalized_text(nvim, buf);
  size_t at = 0;
  for (int i = 0; i < 3; ++i) {
    const char* word = i == 0 ? "one" : i == 1 ? "two" : "three";
    std::string expected = std::string("✓ Executed: `echo ") + word + "`\n" +
                           "````result id=" + ids[i] +
                           " tool=run_terminal_command status=succeeded exit=0 duration=D\n" +
                           "Exit code: 0\nStdout:\n" + word + "\n````\n";
    size_t found = text.find(expected, at);
    ASSERT_NE(found, std::string::npos) << "result " << i << " not in order:\n" << text;
    at = found + expected.size();
  }
}

TEST(WorkflowRunAll, ParallelStartsEveryCallBeforeTheFirstEnds) {
  NvimHarness nvim(json{{"confirm_run_all", false}, {"run_all", "parallel"}});
  record_events(nvim, {"ToolhostJobStarted", "ToolhostJobFinished"});
  int64_t buf = open_chat(nvim, "parallel.chat.md");
  reply(nvim, buf, bash_reply({"sleep 0.5; echo a", "echo b"}));
  nvim.command("ToolRunAll");

  json first = next_event(nvim);
  json second = next_event(nvim);
  EXPECT_EQ(first["name"], "ToolhostJobStarted");
  EXPECT_EQ(second["name"], "ToolhostJobStarted");
  json done_first = next_event(nvim);
  json done_second = next_event(nvim);
  ASSERT_EQ(done_first["name"], "ToolhostJobFinished");
  ASSERT_EQ(done_second["name"], "ToolhostJobFinished");
  EXPECT_EQ(done_first["data"]["id"], second["data"]["id"]);  // `echo b` did not wait
  EXPECT_EQ(done_second["data"]["id"], first["data"]["id"]);
  std::string text = text_of(nvim, buf);
  size_t a = text.find("✓ Executed: `sleep 0.5; echo a`");
  size_t b = text.find("✓ Executed: `echo b`");
  ASSERT_NE(a, std::string::npos) << text;
  ASSERT_NE(b, std::string::npos) << text;
  EXPECT_LT(a, b) << text;
}

// Regression: :ToolRunAll right after the buffer was opened asked the host for its plan before
// the host had read the buffer, and said there was no pending call.
TEST(WorkflowRunAll, RunAllRightAfterTheBufferOpensSeesTheWholeReply) {
  NvimHarness nvim(json{{"confirm_run_all", false}});
  nvim.forward_notify();
  nvim.lua(
      "vim.fn.writefile({ 'USER: hi', 'ASSISTANT: ok', '**bash**', '```bash', 'echo hi', "
      "'```' }, 'fresh.chat.md')");
  nvim.command("edit fresh.chat.md | ToolRunAll");
  EXPECT_EQ(nvim.wait_for("notify")["msg"], "Running 1 tool call(s)…");
}

TEST(WorkflowRunAll, ConfirmListsTheCallsThatNeedApprovalThenRunsThemAll) {
  NvimHarness nvim;  // confirm_run_all = true by default
  nvim.forward_notify();
  stub_confirm(nvim, 1);
  record_events(nvim, {"ToolhostJobFinished"});
  int64_t buf = open_chat(nvim, "confirm.chat.md");
  reply(nvim, buf, kReadEchoCat);
  // The line as the plan reads it: the read may have written its result above by the time the
  // question arrives (a flake under load saw line 9 here for the plan's 6).
  int echo_line = row_of(nvim, buf, "**bash**");
  nvim.command("ToolRunAll");

  json asked = nvim.wait_for("confirm");
  EXPECT_EQ(asked["msg"], "Run 3 tool call(s)? These need your approval:\n  line " +
                              std::to_string(echo_line) +
                              ": run_terminal_command (`echo` is not on the allow list)");
  EXPECT_EQ(asked["choices"], "&Run all\n&Cancel");
  EXPECT_EQ(nvim.wait_for("notify")["msg"], "Running 3 tool call(s)…");
  std::vector<std::string> tools;
  for (int i = 0; i < 3; ++i) {
    json finished = wait_event(nvim, "ToolhostJobFinished");
    EXPECT_EQ(finished["status"], "succeeded");
    tools.push_back(finished["tool"]);
  }
  EXPECT_EQ(tools, (std::vector<std::string>{"read_file", "run_terminal_command",
                                             "run_terminal_command"}));
}

TEST(WorkflowRunAll, ConfirmCanceledRunsNothing) {
  NvimHarness nvim;
  stub_confirm(nvim, 2);
  int64_t buf = open_chat(nvim, "cancel.chat.md");
  reply(nvim, buf, kReadEchoCat);
  nvim.command("ToolRunAll");
  nvim.wait_for("confirm");
  EXPECT_EQ(barrier(nvim).size(), 0u);
  EXPECT_EQ(text_of(nvim, buf).find("````result"), std::string::npos);
}

}  // namespace
}  // namespace toolhost::e2e
