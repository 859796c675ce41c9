// :ToolAttach / :ToolDetach end to end: what happens to a buffer's running calls.
#include <gtest/gtest.h>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// Lets the job of wait_block.chat.md end: it waits for a file `go` in the project root.
void signal_go(NvimHarness& nvim) {
  nvim.lua("io.open(vim.fn.getcwd() .. '/go', 'w'):close()");
}

TEST(Attach, DetachThenAttachWhileAJobRunsStillWritesItsResult) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobStarted");
  nvim.forward_user_event("ToolhostJobFinished");
  int64_t buf = nvim.open_fixture("wait_block.chat.md", "reattach.chat.md");
  nvim.lua("vim.api.nvim_win_set_cursor(0, {6, 0})");
  nvim.command("ToolRun");
  nvim.wait_for("ToolhostJobStarted");
  nvim.command("ToolDetach");
  nvim.command("ToolAttach");
  signal_go(nvim);
  json finished = nvim.wait_for("ToolhostJobFinished");
  EXPECT_EQ(finished["status"], "succeeded");
  auto lines = nvim.lines(buf);
  ASSERT_GE(lines.size(), 6u);
  EXPECT_EQ(lines[3], "✓ Executed: `while [ ! -e go ]; do sleep 0.02; done; echo went`");
  EXPECT_EQ(lines[4].rfind("````result id=" + finished["id"].get<std::string>(), 0), 0u)
      << lines[4];
}

TEST(Attach, DetachedBufferKeepsItsTextWhenTheJobEnds) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobStarted");
  nvim.forward_user_event("ToolhostJobFinished");
  int64_t buf = nvim.open_fixture("wait_block.chat.md", "detached.chat.md");
  auto before = nvim.lines(buf);
  nvim.lua("vim.api.nvim_win_set_cursor(0, {6, 0})");
  nvim.command("ToolRun");
  nvim.wait_for("ToolhostJobStarted");
  nvim.command("ToolDetach");
  signal_go(nvim);
  json finished = nvim.wait_for("ToolhostJobFinished");
  EXPECT_EQ(finished["status"], "succeeded");
  EXPECT_EQ(nvim.lines(buf), before);
}

TEST(Attach, RunOnAnUnclosedBlockSaysItIsNotClosedYet) {
  NvimHarness nvim;
  nvim.open_fixture("unclosed_block.chat.md", "unclosed.chat.md");
  nvim.forward_notify();
  nvim.lua("vim.api.nvim_win_set_cursor(0, {6, 0})");
  nvim.command("ToolRun");
  json note = nvim.wait_for("notify");
  EXPECT_EQ(note["msg"], "This tool call's block is not closed yet (its closing fence is missing)");
  EXPECT_EQ(note["level"], 3);  // vim.log.levels.WARN
}

// Chat buffers attach by filetype (chat_filetypes) or by name (chat_patterns); others not.
TEST(Attach, ByFiletypeOrByChatNameOnly) {
  NvimHarness nvim;
  auto attached = [&](const std::string& name, const std::string& filetype) {
    nvim.command("edit " + name);
    if (!filetype.empty()) nvim.command("setfiletype " + filetype);
    return nvim.lua("return require('toolhost.host').is_attached(vim.api.nvim_get_current_buf())")
        .get<bool>();
  };
  EXPECT_TRUE(attached("talk.chat.md", ""));
  // The buffer-local keys of SPEC 8, in chat buffers only.
  for (const char* key : {"<leader>tr", "<leader>ta", "<leader>tc", "<leader>tx", "<leader>to"}) {
    EXPECT_EQ(nvim.lua("return vim.fn.maparg(..., 'n', false, true).buffer", json::array({key})), 1)
        << key;
  }
  EXPECT_TRUE(attached("sidekick.txt", "llm-sidekick"));
  EXPECT_TRUE(attached("cc.txt", "codecompanion"));
  EXPECT_FALSE(attached("notes.md", "markdown"));
  EXPECT_FALSE(attached("main.c", ""));
}

// While a job runs, its last output lines show under the block (ToolhostJobOutput says when),
// cut at the screen's width (output.stream_width: 'columns' by default), and they go when it
// ends.
TEST(Attach, StreamedLinesAppearWhileTheJobRunsAndGoWhenItEnds) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobOutput");
  nvim.forward_user_event("ToolhostJobFinished");
  int64_t buf = nvim.open_fixture("bash_block.chat.md", "stream.chat.md");
  // It prints two lines, then waits for the test to let it end.
  nvim.lua(R"(vim.api.nvim_buf_set_lines(0, 5, 6, false,
    { "printf 'first\\n%0300d\\n' 0; while [ ! -e go ]; do sleep 0.02; done; echo second" }))");
  auto virt_lines = [&] {
    return nvim.lua(R"(
      local out = {}
      for _, m in ipairs(vim.api.nvim_buf_get_extmarks(..., require("toolhost.ui").namespace, 0, -1, { details = true })) do
        for _, line in ipairs(m[4].virt_lines or {}) do out[#out + 1] = line[1][1] end
      end
      return out
    )",
                    json::array({buf}));
  };
  nvim.lua("vim.api.nvim_win_set_cursor(0, {6, 0})");
  nvim.command("ToolRun");
  json output;
  do {
    output = nvim.wait_for("ToolhostJobOutput");
  } while (output["lines"].size() < 2);
  const int columns = nvim.lua("return vim.o.columns").get<int>();
  const json shown = json::array({"first", std::string(columns, '0') + "…"});
  EXPECT_EQ(output["lines"], shown);
  EXPECT_EQ(virt_lines(), shown);
  signal_go(nvim);
  json done = nvim.wait_for("ToolhostJobFinished");
  EXPECT_EQ(done["status"], "succeeded");
  EXPECT_EQ(virt_lines(), json::array());
}

}  // namespace
}  // namespace toolhost::e2e
