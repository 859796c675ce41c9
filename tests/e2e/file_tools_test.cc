// The file tools through :ToolRun in a real Neovim: each one on disk, edits of a loaded file
// through its buffer (one undo step, saved only if it was unmodified), edit_buffer, and a
// custom Lua tool that reports back later.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Writes `lines` as a chat file in Neovim's cwd (the project root) and edits it.
int64_t open_chat(NvimHarness& nvim, const std::string& name, const Lines& lines) {
  nvim.lua("vim.fn.writefile(...)", json::array({lines, name}));
  nvim.command("edit " + name);
  return nvim.lua("return vim.api.nvim_get_current_buf()").get<int64_t>();
}

// Runs the first pending call of the block whose first line is `marker` (the cursor goes
// there) and waits for its job to finish.
json run_block(NvimHarness& nvim, int64_t buf, const std::string& marker) {
  Lines lines = nvim.lines(buf);
  size_t row = 0;
  while (row < lines.size() && lines[row] != marker) ++row;
  if (row == lines.size())
    throw std::runtime_error("no line " + marker + " in " + json(lines).dump(1));
  nvim.lua("vim.api.nvim_set_current_buf(...)", json::array({buf}));
  nvim.lua("vim.api.nvim_win_set_cursor(0, {...})", json::array({row + 1, 0}));
  nvim.command("ToolRun");
  return nvim.wait_for("ToolhostJobFinished");
}

std::string result_text(NvimHarness& nvim, int64_t buf) {
  std::string text;
  for (const auto& line : nvim.lines(buf)) text += line + "\n";
  return text;
}

TEST(FileTools, EachFileToolRunsOnDiskFromTheChat) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  const fs::path root = nvim.temp_dir();
  nvim.lua(
      R"(vim.fn.writefile({ "stale" }, "old.txt") vim.fn.writefile({ "alpha", "beta" }, "b.txt"))");
  int64_t buf = open_chat(
      nvim, "files.chat.md",
      {"USER: tidy up",
       "ASSISTANT: Here.",
       "",
       "**Write:** `new/a.txt`",
       "```text",
       "one",
       "two",
       "```",
       "",
       "**Replace:** `b.txt`",
       "**Search:**",
       "```",
       "beta",
       "```",
       "**Replace:**",
       "```",
       "gamma",
       "```",
       "",
       "```json",
       R"([{"tool": "copy_file", "parameters": {"path": "new/a.txt", "new_path": "copy.txt"}},)",
       R"( {"tool": "move_file", "parameters": {"path": "copy.txt", "new_path": "moved.txt"}},)",
       R"( {"tool": "delete_file", "parameters": {"path": "old.txt"}},)",
       R"( {"tool": "list_directory", "parameters": {"path": "."}},)",
       R"( {"tool": "search_files", "parameters": {"pattern": "^tw", "glob": "*.txt"}}])",
       "```",
       "USER: "});

  json wrote = run_block(nvim, buf, "**Write:** `new/a.txt`");
  ASSERT_EQ(wrote["status"], "succeeded") << wrote.dump() << result_text(nvim, buf);
  EXPECT_EQ(slurp(root / "new/a.txt"), "one\ntwo\n");  // a text file ends with a newline
  EXPECT_NE(result_text(nvim, buf).find("✓ Wrote: `new/a.txt`\n"), std::string::npos);
  EXPECT_NE(result_text(nvim, buf).find("\nWrote 2 lines to new/a.txt\n"), std::string::npos);

  json replaced = run_block(nvim, buf, "**Replace:** `b.txt`");
  ASSERT_EQ(replaced["status"], "succeeded") << replaced.dump() << result_text(nvim, buf);
  EXPECT_EQ(slurp(root / "b.txt"), "alpha\ngamma\n");

  for (const char* tool :
       {"copy_file", "move_file", "delete_file", "list_directory", "search_files"}) {
    json done = run_block(nvim, buf, "```json");
    ASSERT_EQ(done["status"], "succeeded") << tool << " " << result_text(nvim, buf);
    EXPECT_EQ(done["tool"], tool);
  }
  EXPECT_FALSE(fs::exists(root / "copy.txt"));
  EXPECT_EQ(slurp(root / "moved.txt"), "one\ntwo\n");
  EXPECT_FALSE(fs::exists(root / "old.txt"));
  std::string text = result_text(nvim, buf);
  EXPECT_NE(text.find("\nMoved copy.txt to moved.txt\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nDeleted old.txt\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nmoved.txt\nnew/\n"), std::string::npos) << text;  // the listing
  EXPECT_NE(text.find("moved.txt:2:two\n"), std::string::npos) << text;    // the search
}

TEST(FileTools, RefusedPathIsAFailedResultNamingTheRule) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  int64_t buf = open_chat(nvim, "escape.chat.md",
                          {"USER: x", "ASSISTANT: y", "", "**Write:** `../escaped.txt`", "```",
                           "pwned", "```", "USER: "});
  json done = run_block(nvim, buf, "**Write:** `../escaped.txt`");
  EXPECT_EQ(done["status"], "failed");
  EXPECT_FALSE(fs::exists(fs::path(nvim.temp_dir()).parent_path() / "escaped.txt"));
  EXPECT_NE(result_text(nvim, buf).find("Refused: `../escaped.txt` is outside the project root"),
            std::string::npos)
      << result_text(nvim, buf);
}

const Lines kReplaceBeta = {"USER: x",      "ASSISTANT: y", "",      "**Replace:** `b.txt`",
                            "**Search:**",  "```",          "beta",  "```",
                            "**Replace:**", "```",          "gamma", "```",
                            "USER: "};

// An unmodified loaded buffer takes the edit as one undo step and is written.
TEST(FileTools, EditOfALoadedFileGoesToItsBufferAndIsSaved) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  nvim.lua(R"(vim.fn.writefile({ "alpha", "beta", "delta" }, "b.txt"))");
  nvim.command("edit b.txt");
  int64_t file_buf = nvim.lua("return vim.api.nvim_get_current_buf()").get<int64_t>();
  int64_t chat = open_chat(nvim, "edit.chat.md", kReplaceBeta);
  json done = run_block(nvim, chat, "**Replace:** `b.txt`");
  ASSERT_EQ(done["status"], "succeeded") << result_text(nvim, chat);
  EXPECT_EQ(nvim.lines(file_buf), (Lines{"alpha", "gamma", "delta"}));
  EXPECT_EQ(result_text(nvim, chat).find("Stdout:"), std::string::npos);  // no process ran
  EXPECT_EQ(slurp(fs::path(nvim.temp_dir()) / "b.txt"), "alpha\ngamma\ndelta\n");
  EXPECT_FALSE(nvim.lua("return vim.bo[...].modified", json::array({file_buf})).get<bool>());
  EXPECT_NE(result_text(nvim, chat).find("Replaced 1 block(s) in b.txt (in its buffer, saved)"),
            std::string::npos);
  nvim.lua("vim.api.nvim_buf_call(..., function() vim.cmd('silent undo') end)",
           json::array({file_buf}));
  EXPECT_EQ(nvim.lines(file_buf), (Lines{"alpha", "beta", "delta"}));  // one undo step
}

// A buffer with unsaved changes takes the edit too, and stays unsaved: the disk is untouched.
TEST(FileTools, EditOfAModifiedBufferIsNotSaved) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  nvim.lua(R"(vim.fn.writefile({ "alpha", "beta" }, "b.txt"))");
  nvim.command("edit b.txt");
  int64_t file_buf = nvim.lua("return vim.api.nvim_get_current_buf()").get<int64_t>();
  nvim.lua("vim.api.nvim_buf_set_lines(..., 0, 1, false, { 'ALPHA' })", json::array({file_buf}));
  int64_t chat = open_chat(nvim, "edit.chat.md", kReplaceBeta);
  json done = run_block(nvim, chat, "**Replace:** `b.txt`");
  ASSERT_EQ(done["status"], "succeeded") << result_text(nvim, chat);
  EXPECT_EQ(nvim.lines(file_buf), (Lines{"ALPHA", "gamma"}));
  EXPECT_TRUE(nvim.lua("return vim.bo[...].modified", json::array({file_buf})).get<bool>());
  EXPECT_EQ(slurp(fs::path(nvim.temp_dir()) / "b.txt"), "alpha\nbeta\n");
  EXPECT_NE(result_text(nvim, chat).find("(in its buffer, not saved: it had unsaved changes)"),
            std::string::npos)
      << result_text(nvim, chat);
}

TEST(FileTools, EditBufferChangesALoadedBufferInsideTheRootOnly) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  nvim.lua(R"(vim.fn.writefile({ "one", "two", "three" }, "c.txt"))");
  nvim.command("edit c.txt");
  int64_t target = nvim.lua("return vim.api.nvim_get_current_buf()").get<int64_t>();
  const std::string outside = fs::path(nvim.temp_dir()).parent_path() /
                              ("toolhost-outside-" + std::to_string(::getpid()) + ".txt");
  nvim.command("edit " + outside);
  int64_t stranger = nvim.lua("return vim.api.nvim_get_current_buf()").get<int64_t>();
  auto call = [](int64_t buffer) {
    return R"({"tool": "edit_buffer", "parameters": {"buffer": )" + std::to_string(buffer) +
           R"(, "action": "update", "start_line": 2, "end_line": 3, "code": "TWO\nTHREE"}})";
  };
  int64_t chat = open_chat(nvim, "editor.chat.md",
                           {"USER: x", "ASSISTANT: y", "", "```json", call(target), "```", "",
                            "```json ", call(stranger), "```", "USER: "});
  json done = run_block(nvim, chat, "```json");
  ASSERT_EQ(done["status"], "succeeded") << result_text(nvim, chat);
  EXPECT_EQ(nvim.lines(target), (Lines{"one", "TWO", "THREE"}));
  EXPECT_NE(result_text(nvim, chat).find("Replaced lines 2-3 of c.txt"), std::string::npos);
  nvim.lua("vim.api.nvim_buf_call(..., function() vim.cmd('silent undo') end)",
           json::array({target}));
  EXPECT_EQ(nvim.lines(target), (Lines{"one", "two", "three"}));

  json refused = run_block(nvim, chat, "```json ");
  EXPECT_EQ(refused["status"], "failed");
  EXPECT_EQ(nvim.lines(stranger), Lines{""});
  EXPECT_NE(result_text(nvim, chat)
                .find(" is not a loaded buffer whose file is inside the "
                      "project root"),
            std::string::npos)
      << result_text(nvim, chat);
}

// A custom `fn` tool runs in Neovim and answers later; one that never answers times out; a
// `cmd` tool runs its argv with the parameter as one element.
TEST(FileTools, CustomLuaToolReportsBackAndTimesOut) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  nvim.lua(R"(
    require("toolhost").setup({
      binary = require("toolhost.config").options.binary,
      tools = {
        shout = {
          params = { text = { required = true } },
          fn = function(params, done)
            vim.defer_fn(function() done({ ok = true, output = params.text:upper() }) end, 20)
          end,
        },
        mute = { fn = function() end, timeout_ms = 300 },
        echo_arg = { cmd = { "printf", "[%s]", "${text}" } },
      },
    })
  )");
  int64_t chat =
      open_chat(nvim, "lua.chat.md",
                {"USER: x", "ASSISTANT: y", "", "```json",
                 R"({"tool": "shout", "parameters": {"text": "hello"}})", "```", "", "```json ",
                 R"({"tool": "mute", "parameters": {}})", "```", "", "```json  ",
                 R"json({"tool": "echo_arg", "parameters": {"text": "a; touch pwned $(id)"}})json",
                 "```", "USER: "});
  json shout = run_block(nvim, chat, "```json");
  ASSERT_EQ(shout["status"], "succeeded") << result_text(nvim, chat);
  EXPECT_NE(result_text(nvim, chat).find("\nHELLO\n"), std::string::npos)
      << result_text(nvim, chat);
  EXPECT_EQ(result_text(nvim, chat).find("Stdout:"), std::string::npos);  // no process ran
  json mute = run_block(nvim, chat, "```json ");
  EXPECT_EQ(mute["status"], "timed_out") << result_text(nvim, chat);
  // A `cmd` tool from setup(): the parameter is one argv element, never shell text.
  json echoed = run_block(nvim, chat, "```json  ");
  ASSERT_EQ(echoed["status"], "succeeded") << result_text(nvim, chat);
  EXPECT_NE(result_text(nvim, chat).find("\n[a; touch pwned $(id)]\n"), std::string::npos)
      << result_text(nvim, chat);
  EXPECT_FALSE(fs::exists(fs::path(nvim.temp_dir()) / "pwned"));
}

}  // namespace
}  // namespace toolhost::e2e
