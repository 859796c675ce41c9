// Dialects other than the sidekick `**bash**` block, and malformed blocks, in a real Neovim.
#include <gtest/gtest.h>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

TEST(Dialects, CodeCompanionXmlCallsRunOneByOneWithResultsInCallOrder) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  int64_t buf = nvim.open_fixture("xml_block.chat.md", "xml.chat.md");
  nvim.lua("vim.api.nvim_win_set_cursor(0, {11, 0})");  // the first <action>
  nvim.command("ToolRun");
  json first = nvim.wait_for("ToolhostJobFinished");
  ASSERT_EQ(first["status"], "succeeded");
  nvim.lua("vim.api.nvim_win_set_cursor(0, {14, 0})");  // the second <action>
  nvim.command("ToolRun");
  json second = nvim.wait_for("ToolhostJobFinished");
  ASSERT_EQ(second["status"], "succeeded");

  auto lines = nvim.lines(buf);
  // The XML block stays as written; each result block follows it, in call order.
  ASSERT_GE(lines.size(), 19u);
  EXPECT_EQ(lines[17], "```");
  std::vector<std::string> results;
  for (const auto& line : lines) {
    if (line.rfind("````result ", 0) == 0) results.push_back(line);
  }
  ASSERT_EQ(results.size(), 2u) << json(lines).dump(1);
  EXPECT_EQ(results[0].rfind("````result id=" + first["id"].get<std::string>() +
                                 " tool=run_terminal_command status=succeeded exit=0 duration=",
                             0),
            0u)
      << results[0];
  EXPECT_EQ(results[0].substr(results[0].size() - 7), " part=1") << results[0];
  EXPECT_EQ(results[1].rfind("````result id=" + second["id"].get<std::string>() +
                                 " tool=run_terminal_command status=succeeded exit=0 duration=",
                             0),
            0u)
      << results[1];
  EXPECT_EQ(results[1].substr(results[1].size() - 7), " part=2") << results[1];
  std::string text = json(lines).dump();
  EXPECT_NE(text.find("first & one"), std::string::npos);
  EXPECT_NE(text.find("\"second\""), std::string::npos);
}

TEST(Dialects, MalformedBlockGetsAnErrorAtItsLineAndIsNotRun) {
  NvimHarness nvim;
  nvim.forward_diagnostics();
  int64_t buf = nvim.open_fixture("broken_blocks.chat.md", "broken.chat.md");
  json diags;
  for (;;) {  // the attach's first parse sends the error
    diags = nvim.wait_for("diagnostics");
    if (!diags.empty()) break;
  }
  ASSERT_EQ(diags.size(), 1u) << diags.dump();
  EXPECT_EQ(diags[0]["lnum"], 4);  // the JSON line inside the fence
  EXPECT_EQ(diags[0]["severity"], 1);
  EXPECT_EQ(diags[0]["message"], "✗ unknown tool `no_such_tool`");

  // Fixing the block clears the error (the host re-parses the edit and resends).
  nvim.lua(R"(vim.api.nvim_buf_set_lines(0, 4, 5, false, {'{"tool": "list_directory", "parameters": {"path": "."}}'}))");
  for (;;) {
    diags = nvim.wait_for("diagnostics");
    if (diags.empty()) break;
  }
  EXPECT_EQ(nvim.lines(buf)[7], "**bash**");
}

// llm-sidekick lets a reply start on its role line; running that block must not rewrite the
// role line (the message would lose its header).
TEST(Dialects, BlockOnTheRoleLineRunsAndKeepsTheRoleLine) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  int64_t buf = nvim.open_fixture("role_line.chat.md", "role.chat.md");
  nvim.lua("vim.api.nvim_win_set_cursor(0, {4, 0})");  // the command
  nvim.command("ToolRun");
  json done = nvim.wait_for("ToolhostJobFinished");
  ASSERT_EQ(done["status"], "succeeded");
  auto lines = nvim.lines(buf);
  ASSERT_GE(lines.size(), 8u) << json(lines).dump(1);
  EXPECT_EQ(lines[1], "ASSISTANT: **sh**");
  EXPECT_EQ(lines[4], "```");
  EXPECT_EQ(lines[5].rfind("````result id=" + done["id"].get<std::string>() +
                               " tool=run_terminal_command status=succeeded",
                           0),
            0u)
      << json(lines).dump(1);
  EXPECT_NE(json(lines).dump().find("hello from the role line"), std::string::npos);
  EXPECT_EQ(lines.back(), "USER: ");
}

// The filetype says how the buffer is split: in a `codecompanion` buffer an `ASSISTANT:` line
// is text, whatever comes first.
TEST(Dialects, CodeCompanionFiletypeSplitsOnHeadingsOnly) {
  NvimHarness nvim;
  nvim.forward_diagnostics();
  nvim.lua(R"(
    local buf = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_set_current_buf(buf)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, {
      "ASSISTANT: pasted from elsewhere",
      "```json",
      '{"tool": "pasted_tool", "parameters": {}}',
      "```",
      "## CodeCompanion",
      "```json",
      '{"tool": "real_tool", "parameters": {}}',
      "```",
    })
    vim.bo[buf].filetype = "codecompanion"
  )");
  json diags;
  for (;;) {  // the attach's first parse sends the error
    diags = nvim.wait_for("diagnostics");
    if (!diags.empty()) break;
  }
  ASSERT_EQ(diags.size(), 1u) << diags.dump();
  EXPECT_EQ(diags[0]["message"], "✗ unknown tool `real_tool`");
}

// A file tool runs off the host's loop and its result is the file's text, numbered.
TEST(Dialects, ReadFileShowsTheNumberedFile) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  nvim.lua(R"(vim.fn.writefile({ "buy milk", "fix the parser" }, "notes.txt"))");
  int64_t buf = nvim.open_fixture("read_block.chat.md", "read.chat.md");
  nvim.lua("vim.api.nvim_win_set_cursor(0, {4, 0})");
  nvim.command("ToolRun");
  json done = nvim.wait_for("ToolhostJobFinished");
  ASSERT_EQ(done["status"], "succeeded") << done.dump();
  EXPECT_EQ(done["tool"], "read_file");
  auto lines = nvim.lines(buf);
  ASSERT_GE(lines.size(), 10u) << json(lines).dump(1);
  EXPECT_EQ(lines[3], "✓ Read: `notes.txt`");
  EXPECT_EQ(lines[4], "> See what is planned");
  EXPECT_EQ(lines[5].rfind("````result id=" + done["id"].get<std::string>() +
                               " tool=read_file status=succeeded duration=",
                           0),
            0u)
      << json(lines).dump(1);
  EXPECT_EQ(lines[6], "     1\tbuy milk");
  EXPECT_EQ(lines[7], "     2\tfix the parser");
  EXPECT_EQ(lines[8], "````");
  EXPECT_EQ(lines[9], "USER: ");
}

}  // namespace
}  // namespace toolhost::e2e
