// Attaching reads the buffer in slices (server/buffer_reads.h): a big chat buffer edited while
// the host reads it ends up mirrored exactly, and parsed.
#include <gtest/gtest.h>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// Writes a chat of `rows` rows of filler (64 bytes each) in the user's question, then a reply
// with two bash calls, and opens it (its name attaches it). Then edits it every millisecond
// from a timer (replacing, inserting and deleting filler rows anywhere in the question, the
// unread rows included) until the host has answered toolhost.mirror, which waits for the
// reading, and `after` edits more. Notification "read" {edits_before, edits} when done.
constexpr const char* kOpenAndEdit = R"(
  local rows, after = ...
  local path = vim.fn.getcwd() .. "/big.chat.md"
  local lines = { "USER: a long question" }
  for i = 1, rows do
    lines[#lines + 1] = ("filler %08d "):format(i) .. ("x"):rep(48)
  end
  vim.list_extend(lines, { "ASSISTANT: Two calls.", "", "**bash**", "```bash", "echo one", "```",
                           "", "**bash**", "```bash", "echo two", "```", "USER: " })
  vim.fn.writefile(lines, path)
  -- Without its filetype's plugin: 0.12's markdown ftplugin starts treesitter, whose parses of
  -- 4 MB edited every millisecond held Neovim past the test's 30 s waits under load. The name
  -- attaches the buffer (BufReadPost), which is what this test is about.
  local ignored = vim.o.eventignore
  vim.o.eventignore = "FileType"
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  vim.o.eventignore = ignored
  local buf = vim.api.nvim_get_current_buf()
  local seed, edits, edits_before, read = 7, 0, nil, false
  local function random(n) -- 0 .. n-1
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n
  end
  local timer = vim.loop.new_timer()
  timer:start(0, 1, vim.schedule_wrap(function()
    if read and edits >= edits_before + after then
      timer:close()
      return vim.rpcnotify(_G.test_chan, "read", { edits_before = edits_before, edits = edits })
    end
    -- Filler rows only: 1 .. (question's rows).
    local filler = vim.api.nvim_buf_line_count(buf) - 12
    for _ = 1, 3 do
      local first = 1 + random(filler)
      local last = math.min(filler + 1, first + random(3))
      local with = {}
      for k = 1, random(3) do
        with[k] = ("edit %d.%d "):format(edits, k) .. ("y"):rep(random(80))
      end
      vim.api.nvim_buf_set_lines(buf, first, last, false, with)
      filler = filler - (last - first) + #with
      edits = edits + 1
    end
  end))
  require("toolhost.host").call("toolhost.mirror", { buf = buf }, function(err)
    assert(not err, err)
    read, edits_before = true, edits
  end)
)";

// The host's mirror against the buffer: the first row that differs, or nil.
constexpr const char* kCompareMirror = R"(
  local buf = vim.api.nvim_get_current_buf()
  require("toolhost.host").call("toolhost.mirror", { buf = buf }, function(err, mirror)
    local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    local result = { error = err, rows = #lines, mirror_rows = mirror and #mirror.lines or -1,
                     parse_agrees = mirror and mirror.parse_agrees, calls = mirror and mirror.calls,
                     fresh_calls = mirror and mirror.fresh_calls }
    for i = 1, math.max(#lines, result.mirror_rows) do
      if not mirror or mirror.lines[i] ~= lines[i] then
        result.differs_at, result.buffer, result.mirror = i, lines[i], mirror and mirror.lines[i]
        break
      end
    end
    vim.rpcnotify(_G.test_chan, "compared", result)
  end)
)";

TEST(BufferRead, ABigBufferEditedWhileTheHostReadsItIsMirroredExactly) {
  NvimHarness nvim;
  nvim.listen("read");
  nvim.listen("compared");
  nvim.lua("_G.test_chan = ...", json::array({nvim.channel()}));
  nvim.lua(kOpenAndEdit, json::array({60000, 50}));  // 3.9 MB: four slices at least
  json read = nvim.wait_for("read", std::chrono::seconds(60));
  // The edits raced the reading: some came before the host had the whole buffer.
  EXPECT_GT(read["edits_before"].get<int>(), 0) << read;
  nvim.lua(kCompareMirror);
  json compared = nvim.wait_for("compared", std::chrono::seconds(60));
  EXPECT_TRUE(compared["error"].is_null()) << compared;
  EXPECT_EQ(compared["mirror_rows"], compared["rows"]);
  EXPECT_FALSE(compared.contains("differs_at")) << compared;
  // Parsed as a fresh parse of the same lines would: the edits' incremental parses added up.
  EXPECT_EQ(compared["parse_agrees"], true) << compared["calls"] << compared["fresh_calls"];
  EXPECT_EQ(compared["calls"].size(), 2u) << compared["calls"];
  // And it was parsed: the reply's two calls.
  nvim.listen("plan");
  nvim.lua(R"(
    local buf = vim.api.nvim_get_current_buf()
    require("toolhost.host").call("toolhost.run_all_plan", { buf = buf }, function(err, plan)
      -- The reply's rows and the jobs say why, should a call be missing; an error here is
      -- reported, not left to the wait's timeout.
      local ok, jobs = pcall(require("toolhost").jobs)
      vim.rpcnotify(_G.test_chan, "plan", { n = plan and #plan.calls or -1, error = err,
        reply = vim.api.nvim_buf_get_lines(buf, -14, -1, false), jobs = ok and jobs or tostring(jobs) })
    end)
  )");
  json plan = nvim.wait_for("plan", std::chrono::seconds(60));
  EXPECT_EQ(plan["n"], 2) << plan;
}

// The host answers questions about a buffer only once it has read it: right after the attach
// a toolhost.call sees the whole buffer, not the part read so far.
TEST(BufferRead, ACallRightAfterTheAttachWaitsForTheWholeBuffer) {
  NvimHarness nvim;
  nvim.listen("compared");
  nvim.lua("_G.test_chan = ...", json::array({nvim.channel()}));
  nvim.lua(R"(
    local path = vim.fn.getcwd() .. "/whole.chat.md"
    local lines = { "USER: hi" }
    for i = 1, 40000 do lines[#lines + 1] = ("row %d "):format(i) .. ("z"):rep(100) end
    lines[#lines + 1] = "USER: "
    vim.fn.writefile(lines, path)
    vim.cmd("edit " .. vim.fn.fnameescape(path))
  )");
  nvim.lua(kCompareMirror);
  json compared = nvim.wait_for("compared", std::chrono::seconds(60));
  EXPECT_EQ(compared["rows"], 40002);
  EXPECT_EQ(compared["mirror_rows"], 40002);
  EXPECT_FALSE(compared.contains("differs_at")) << compared;
}

}  // namespace
}  // namespace toolhost::e2e
