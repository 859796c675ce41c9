// llm-sidekick's peer forms run from a chat in a real Neovim: `**Insert:** `path:N`` and a
// one-fence replacement with several runs of blank lines (split where the file says).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Runs the call of the block whose first line is `marker` (the cursor goes there) with
// :ToolRun and waits for its job to finish.
json run_block(NvimHarness& nvim, int64_t buf, const std::string& marker) {
  Lines lines = nvim.lines(buf);
  size_t row = 0;
  while (row < lines.size() && lines[row] != marker) ++row;
  if (row == lines.size()) throw std::runtime_error("no line " + marker);
  nvim.lua("vim.api.nvim_set_current_buf(...)", json::array({buf}));
  nvim.lua("vim.api.nvim_win_set_cursor(0, {...})", json::array({row + 1, 0}));
  nvim.command("ToolRun");
  return nvim.wait_for("ToolhostJobFinished");
}

TEST(PeerForms, InsertAndMultiBlankReplacementRunAndRewriteTheChat) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  const fs::path root = nvim.temp_dir();
  nvim.lua(R"(
    vim.fn.writefile({ "one", "two" }, "a.lua")
    vim.fn.writefile({ "a = 1", "q" }, "guess.py")
    vim.fn.writefile({ "a = 1", "", "b = 2" }, "both.py")
  )");
  nvim.command("edit a.lua");
  const int64_t file_buf = nvim.lua("return vim.api.nvim_get_current_buf()").get<int64_t>();
  const Lines fence = {"```python", "a = 1", "", "b = 2", "", "c = 3", "```"};
  Lines chat_lines = {
      "USER: x", "ASSISTANT: y", "", "**Insert:** `a.lua:1`",  "```lua", "local x = 1",
      "```",     "> guard",      "", "**Replace:** `guess.py`"};
  chat_lines.insert(chat_lines.end(), fence.begin(), fence.end());
  chat_lines.insert(chat_lines.end(), {"", "**Replace:** `both.py`"});
  chat_lines.insert(chat_lines.end(), fence.begin(), fence.end());
  chat_lines.push_back("USER: ");
  nvim.lua("vim.fn.writefile(...)", json::array({chat_lines, "peer.chat.md"}));
  nvim.command("edit peer.chat.md");
  const int64_t chat = nvim.lua("return vim.api.nvim_get_current_buf()").get<int64_t>();

  json inserted = run_block(nvim, chat, "**Insert:** `a.lua:1`");
  ASSERT_EQ(inserted["status"], "succeeded") << text_of(nvim, chat);
  EXPECT_EQ(inserted["tool"], "insert_into_file");
  // The loaded file took the insertion in its buffer, and was saved.
  EXPECT_EQ(nvim.lines(file_buf), (Lines{"one", "local x = 1", "two"}));
  EXPECT_EQ(slurp(root / "a.lua"), "one\nlocal x = 1\ntwo\n");
  std::string text = text_of(nvim, chat);
  EXPECT_NE(text.find("\n✓ Inserted into: `a.lua:1`\n```lua\nlocal x = 1\n```\n> guard\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Inserted 1 line(s) into a.lua after line 1 (in its buffer, saved)"),
            std::string::npos)
      << text;

  // "a = 1" is in guess.py once, "a = 1\n\nb = 2" is not: the first split applies.
  json replaced = run_block(nvim, chat, "**Replace:** `guess.py`");
  ASSERT_EQ(replaced["status"], "succeeded") << text_of(nvim, chat);
  EXPECT_EQ(slurp(root / "guess.py"), "b = 2\n\nc = 3\nq\n");
  EXPECT_NE(text_of(nvim, chat).find("\n✓ Replaced in: `guess.py`\n```python\na = 1\n"),
            std::string::npos)
      << text_of(nvim, chat);

  // In both.py both splits' old texts occur once: a failure that names them, nothing written.
  json ambiguous = run_block(nvim, chat, "**Replace:** `both.py`");
  EXPECT_EQ(ambiguous["status"], "failed");
  EXPECT_EQ(slurp(root / "both.py"), "a = 1\n\nb = 2\n");
  text = text_of(nvim, chat);
  EXPECT_NE(text.find("\n✗ Failed: `both.py`\n"), std::string::npos) << text;
  EXPECT_NE(text.find("splits 2 ways whose old text occurs once in the file, ending at line 1 "
                      "(`a = 1`) and line 3 (`b = 2`)"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace toolhost::e2e
