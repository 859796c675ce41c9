// The auto-run chain and approvals (SPEC 4, 5): what auto-run may start runs, the first call
// that needs approval waits with the hint, a rejection or failure stops the chain, and
// ToolhostAllDone fires once when nothing more will happen without the user.
#include <gtest/gtest.h>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// auto_run on; the idle rule far away, so that only assistant_done() completes a reply.
json auto_run() {
  return json{{"auto_run", true}, {"auto_run_idle_ms", 600000}};
}

TEST(WorkflowApproval, ReadOnlyCallRunsWhileACommandWithAMetacharacterWaits) {
  NvimHarness nvim(auto_run());
  nvim.forward_diagnostics();
  record_events(nvim, {"ToolhostJobFinished"});
  int64_t buf = open_chat(nvim, "meta.chat.md");
  reply(nvim, buf,
        {"ASSISTANT: Looking.", "", "**Read:** `notes.txt`", "", "**bash**", "```bash",
         "ls; echo x", "```"});

  json read = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(read["tool"], "read_file");
  EXPECT_EQ(read["status"], "succeeded");
  std::string hint = wait_for_diagnostic(nvim, "? run_terminal_command awaiting approval");
  EXPECT_EQ(hint.rfind("? run_terminal_command awaiting approval (<leader>tr run, <leader>tx "
                       "reject): it holds `;`",
                       0),
            0u)
      << hint;
  EXPECT_EQ(barrier(nvim, buf).size(), 1u);  // the command did not run
  EXPECT_EQ(nvim.lua("return require('toolhost').statusline()"), "?1 ✓1");
}

TEST(WorkflowApproval, RejectWithAReasonWritesTheRefusalAndStopsTheChain) {
  NvimHarness nvim(auto_run());
  nvim.forward_diagnostics();
  record_events(nvim, {"ToolhostJobFinished", "ToolhostAllDone"});
  int64_t buf = open_chat(nvim, "reject.chat.md");
  reply(nvim, buf, kReadEchoCat);
  EXPECT_EQ(wait_event(nvim, "ToolhostJobFinished")["tool"], "read_file");
  wait_for_diagnostic(nvim, "? run_terminal_command awaiting approval");

  // Outside any block, :ToolReject declines the call that waits.
  set_cursor(nvim, 1);
  nvim.command("ToolReject not now");
  json rejected = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(rejected["status"], "rejected");
  EXPECT_EQ(rejected["tool"], "run_terminal_command");
  EXPECT_EQ(rejected["duration"], 0);
  std::string id = rejected["id"];
  EXPECT_NE(text_of(nvim, buf).find("\n✗ Rejected: `echo approved`\n"
                                    "````result id=" +
                                    id +
                                    " tool=run_terminal_command status=rejected duration=0s\n"
                                    "The user declined to run this tool call.\n"
                                    "Reason: not now\n"
                                    "````\n"),
            std::string::npos)
      << text_of(nvim, buf);
  EXPECT_EQ(wait_for_diagnostic(nvim, "✗ run_terminal_command"),
            "✗ run_terminal_command: rejected");

  // The chain stops: `cat notes.txt` stays as it is, and nothing more will happen.
  EXPECT_EQ(wait_event(nvim, "ToolhostAllDone")["buf"], buf);
  EXPECT_EQ(barrier(nvim, buf).size(), 2u);
  std::string text = text_of(nvim, buf);
  EXPECT_NE(text.find("**bash**\n```bash\ncat notes.txt\n```\n"), std::string::npos) << text;
  EXPECT_EQ(fired(nvim, "ToolhostAllDone"), 1);
  EXPECT_EQ(nvim.lua("return require('toolhost').statusline()"), "✓1 ✗1");
}

// Regression: ToolhostAllDone never fired when a failure (or a rejection) stopped the chain
// before a call that auto-run could have started: that call waits for the user now.
TEST(WorkflowApproval, ChainStopsAtAFailureAndAllDoneFires) {
  NvimHarness nvim(auto_run());
  record_events(nvim, {"ToolhostJobFinished", "ToolhostAllDone"});
  int64_t buf = open_chat(nvim, "failure.chat.md");
  reply(nvim, buf, bash_reply({"cat missing.txt", "ls"}));

  json failed = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["exit_code"], 1);
  EXPECT_EQ(wait_event(nvim, "ToolhostAllDone")["buf"], buf);
  json jobs = barrier(nvim, buf);
  ASSERT_EQ(jobs.size(), 1u) << jobs.dump();
  EXPECT_EQ(jobs[0]["id"], failed["id"]);
  std::string text = text_of(nvim, buf);
  EXPECT_NE(text.find("✗ Failed: `cat missing.txt`"), std::string::npos) << text;
  EXPECT_NE(text.find("**bash**\n```bash\nls\n```\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("````result", text.find("```bash\nls\n")), std::string::npos) << text;
}

TEST(WorkflowApproval, AllDoneFiresOnceWhenTheChainEnds) {
  NvimHarness nvim(auto_run());
  record_events(nvim, {"ToolhostJobStarted", "ToolhostJobFinished", "ToolhostAllDone"});
  int64_t buf = open_chat(nvim, "once.chat.md");
  reply(nvim, buf,
        {"ASSISTANT: Two reads.", "", "**Read:** `notes.txt`", "", "**bash**", "```bash", "ls",
         "```"});

  std::vector<std::string> order;
  for (;;) {
    json event = next_event(nvim);
    order.push_back(event["name"].get<std::string>() + ":" +
                    event["data"].value("tool", std::string()));
    if (event["name"] == "ToolhostAllDone") break;
  }
  EXPECT_EQ(order, (std::vector<std::string>{
                       "ToolhostJobStarted:read_file", "ToolhostJobFinished:read_file",
                       "ToolhostJobStarted:run_terminal_command",
                       "ToolhostJobFinished:run_terminal_command", "ToolhostAllDone:"}));
  EXPECT_EQ(barrier(nvim, buf).size(), 2u);
  EXPECT_EQ(fired(nvim, "ToolhostAllDone"), 1);
}

// A custom tool's auto_accept function decides per call, in Neovim: yes runs, no waits with
// the hint that says so.
TEST(WorkflowApproval, CustomAutoAcceptFunctionDecidesPerCall) {
  NvimHarness nvim(auto_run());
  nvim.forward_diagnostics();
  record_events(nvim, {"ToolhostJobFinished"});
  nvim.lua(R"(
    require("toolhost").setup({
      binary = require("toolhost.config").options.binary,
      auto_run = true,
      auto_run_idle_ms = 600000,
      tools = {
        say = {
          cmd = { "printf", "%s", "${word}" },
          auto_accept = function(params) return params.word == "safe" end,
        },
      },
    })
  )");
  int64_t buf = open_chat(nvim, "custom.chat.md");
  reply(nvim, buf,
        {"ASSISTANT: Saying.", "", "```json", R"({"tool": "say", "parameters": {"word": "safe"}})",
         "```", "", "```json ", R"({"tool": "say", "parameters": {"word": "risky"}})", "```"});
  json said = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(said["tool"], "say");
  EXPECT_EQ(said["status"], "succeeded");
  EXPECT_EQ(wait_for_diagnostic(nvim, "? say awaiting approval"),
            "? say awaiting approval (<leader>tr run, <leader>tx reject): its auto_accept "
            "function said no");
  EXPECT_EQ(barrier(nvim, buf).size(), 1u);
}

// Regression (found reviewing #28): the chain asked a custom tool's auto_accept function and
// the buffer was wiped before the answer came; the host had freed the session (no job ran),
// and the answer's callback used it. The function here wipes the buffer itself, so the detach
// reaches the host before the answer. The host must go on serving (ASan catches the use).
TEST(WorkflowApproval, BufferWipedWhileAnAutoAcceptFunctionDecidesLosesNothing) {
  NvimHarness nvim(auto_run());
  nvim.lua(R"(
    require("toolhost").setup({
      binary = require("toolhost.config").options.binary,
      auto_run = true,
      auto_run_idle_ms = 600000,
      tools = {
        say = {
          cmd = { "printf", "%s", "${word}" },
          auto_accept = function()
            vim.api.nvim_buf_delete(_G.chat, { force = true })
            -- Runs after the answer went to the host.
            vim.schedule(function() vim.rpcnotify(_G.test_chan, "decided") end)
            return true
          end,
        },
      },
    })
  )");
  int64_t buf = open_chat(nvim, "wiped.chat.md");
  nvim.listen("decided");
  nvim.lua("_G.chat, _G.test_chan = ...", json::array({buf, nvim.channel()}));
  reply(nvim, buf,
        {"ASSISTANT: Saying.", "", "```json", R"({"tool": "say", "parameters": {"word": "hi"}})",
         "```"});
  nvim.wait_for("decided");
  json jobs = barrier(nvim);                 // the host has handled the answer, after the detach
  EXPECT_TRUE(jobs.empty()) << jobs.dump();  // no session, so nothing ran for the wiped chat
  EXPECT_EQ(nvim.lua("return vim.rpcrequest(require('toolhost.host').channel(), "
                     "'toolhost.ping').sessions"),
            0);
}

}  // namespace
}  // namespace toolhost::e2e
