// A list of feedback batches is applied in slices (lua/toolhost/slices.lua, SPEC 9 P1): Neovim
// answers other clients between them, lists stay in order, and the host sends its next list
// only once Lua notifies that the previous one is applied. The slice budget is set to 0 here:
// every step is its own slice, whatever the machine's speed.
#include <gtest/gtest.h>

#include "e2e/chat_helpers.h"
#include "e2e/ui_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

constexpr int kCalls = 300;

// A buffer of kCalls bash blocks, each with its extmark; returns the buffer.
int64_t blocks_buffer(NvimHarness& nvim) {
  return nvim
      .lua(R"(
    local n = ...
    local buf = vim.api.nvim_get_current_buf()
    local lines, marks = {}, {}
    for i = 1, n do
      vim.list_extend(lines, { "**bash**", "```", "echo " .. i, "```" })
      marks[i] = { key = "k" .. i, row = (i - 1) * 4, end_row = (i - 1) * 4 + 3 }
    end
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    require("toolhost.ui").apply({ buffers = { { buf = buf, marks = marks } } })
    require("toolhost.slices").budget_ms = 0
    return buf
  )",
           json::array({kCalls}))
      .get<int64_t>();
}

// The rewrite of call i: its block becomes `✓ i` (`from`: what the block reads before).
json edit(int i, const std::vector<std::string>& from, const std::string& to) {
  return {{"key", "k" + std::to_string(i)},
          {"expect", from},
          {"lines", json::array({to})},
          {"fallback", json::array()},
          {"job", "th-" + std::to_string(i)}};
}

std::vector<std::string> block(int i) {
  return {"**bash**", "```", "echo " + std::to_string(i), "```"};
}

// Applies `batch` as the host does (in slices); returns the answer.
json apply_batch_from_host(NvimHarness& nvim, const json& batch) {
  return nvim.lua(R"(
    local host = require('toolhost.host')
    host.ensure()
    return require('toolhost.ui').apply_all(..., host.instance())
  )",
                  json::array({json::array({batch})}));
}

// Applies one batch with an edit of every call as the host does; returns the answer.
json apply_from_host(NvimHarness& nvim, int64_t buf, const json& edits) {
  return apply_batch_from_host(nvim,
                               {{"buffers", json::array({{{"buf", buf}, {"edits", edits}}})}});
}

// How many blocks read `✓ …` now, and whether a list is still being applied.
json progress(NvimHarness& nvim, int64_t buf) {
  return nvim.lua(R"(
    local written = 0
    for _, line in ipairs(vim.api.nvim_buf_get_lines(..., 0, -1, false)) do
      if line:sub(1, 3) == "✓" then written = written + 1 end
    end
    return { written = written, busy = require("toolhost.slices").busy() }
  )",
                  json::array({buf}));
}

TEST(UiSlices, BigListIsAppliedInSlicesWithOtherRequestsAnsweredBetween) {
  NvimHarness nvim;
  int64_t buf = blocks_buffer(nvim);
  nvim.after_each_batch(R"(function(chan, batch)
    if batch then vim.rpcnotify(chan, "applied", true) end
  end)");
  nvim.listen("applied");
  json edits = json::array();
  for (int i = 1; i <= kCalls; ++i) edits.push_back(edit(i, block(i), "✓ " + std::to_string(i)));

  json answer = apply_from_host(nvim, buf, edits);
  EXPECT_EQ(answer, json({{"pending", true}}));
  // Requests sent while it is applied are answered between its slices, with part of it done.
  // A test process descheduled for the whole list (the sanitizer suite under load) sees none
  // of it in progress: then the answers in between cannot be observed, only the slice count
  // below; whenever a request was answered while the list was applied, part of it was done.
  int partial = 0, while_busy = 0;
  for (json p = progress(nvim, buf); p["busy"].get<bool>(); p = progress(nvim, buf)) {
    ++while_busy;
    int written = p["written"].get<int>();
    if (written > 0 && written < kCalls) ++partial;
  }
  nvim.wait_for("applied");
  if (while_busy > 1) {
    EXPECT_GT(partial, 0);
  }
  std::vector<std::string> lines = nvim.lines(buf);
  ASSERT_EQ(lines.size(), static_cast<size_t>(kCalls));
  for (int i = 1; i <= kCalls; ++i) EXPECT_EQ(lines[i - 1], "✓ " + std::to_string(i));
  json stats = nvim.lua("return require('toolhost.slices').stats()");
  EXPECT_GE(stats["slices"].get<int>(), kCalls);
}

TEST(UiSlices, ListArrivingWhileAnotherIsAppliedIsAppliedAfterIt) {
  NvimHarness nvim;
  int64_t buf = blocks_buffer(nvim);
  json first = json::array(), second = json::array();
  for (int i = 1; i <= kCalls; ++i) {
    first.push_back(edit(i, block(i), "✓ " + std::to_string(i)));
    // Each rewrite of the second list expects what the first wrote: a conflict otherwise.
    second.push_back(edit(i, {"✓ " + std::to_string(i)}, "✓ again " + std::to_string(i)));
  }
  EXPECT_EQ(apply_from_host(nvim, buf, first), json({{"pending", true}}));
  EXPECT_EQ(apply_from_host(nvim, buf, second), json({{"pending", true}}));
  while (progress(nvim, buf)["busy"].get<bool>()) {
  }
  std::vector<std::string> lines = nvim.lines(buf);
  ASSERT_EQ(lines.size(), static_cast<size_t>(kCalls));
  for (int i = 1; i <= kCalls; ++i) EXPECT_EQ(lines[i - 1], "✓ again " + std::to_string(i));
  EXPECT_EQ(nvim.lua("return #vim.diagnostic.get(...)", json::array({buf})), 0);
}

// ToolhostJobFinished says the result is written: it fires in the slice that wrote it, not a
// loop turn later (a redraw, another client's request in between), even when the write spent
// the slice's budget (0 here: every step would end its slice).
TEST(UiSlices, JobFinishedFiresInTheSliceThatWroteTheResult) {
  NvimHarness nvim;
  int64_t buf = blocks_buffer(nvim);
  nvim.lua(R"(
    local buf = ...
    local slices = require("toolhost.slices")
    _G.slice_of = {}
    vim.api.nvim_buf_attach(buf, false, { on_lines = function()
      _G.slice_of.write = slices.stats().slices
    end })
    vim.api.nvim_create_autocmd("User", { pattern = "ToolhostJobFinished", callback = function()
      _G.slice_of.event = slices.stats().slices
    end })
  )",
           json::array({buf}));
  json job = {{"id", "th-1"}, {"status", "succeeded"}, {"buf", buf}, {"call_id", "k1"}};
  json batch = {
      {"buffers",
       json::array({{{"buf", buf},
                     {"edits", json::array({edit(1, block(1), "✓ 1")})},
                     {"stream", json::array({{{"key", "k1"}, {"lines", json::array()}}})}}})},
      {"jobs", json::array({job})},
      {"events", json::array({{{"name", "ToolhostJobFinished"}, {"data", job}}})}};
  EXPECT_EQ(apply_batch_from_host(nvim, batch), json({{"pending", true}}));
  while (progress(nvim, buf)["busy"].get<bool>()) {
  }
  EXPECT_EQ(nvim.lines(buf)[0], "✓ 1");
  json slice_of = nvim.lua("return _G.slice_of");
  ASSERT_TRUE(slice_of.contains("write") && slice_of.contains("event")) << slice_of.dump();
  EXPECT_EQ(slice_of["event"], slice_of["write"]);
}

// The host hears that its list is applied (and may send the next) before the diagnostics
// refresh that ends it, which re-sets every call's diagnostic of the buffer (~1.2 ms for 100
// calls, the longest step of P2's lists); the refresh follows in the next slice.
TEST(UiSlices, HostListIsAnsweredBeforeItsDiagnosticsRefresh) {
  NvimHarness nvim;
  int64_t buf = blocks_buffer(nvim);
  nvim.lua("require('toolhost.slices').budget_ms = 1000");  // one slice would hold it all
  json diag = {{"key", "k1"}, {"row", 0}, {"severity", 3}, {"message", "✓ one"}};
  json batch = {{"buffers", json::array({{{"buf", buf},
                                          {"edits", json::array({edit(1, block(1), "✓ 1")})},
                                          {"diags", json::array({diag})}}})}};
  json answered = nvim.lua(R"(
    local host = require('toolhost.host')
    host.ensure()
    local batches, buf = ...
    local answer = require('toolhost.ui').apply_all(batches, host.instance())
    return { answer = answer, busy = require('toolhost.slices').busy(),
             diagnostics = #vim.diagnostic.get(buf) }
  )",
                           json::array({json::array({batch}), buf}));
  ASSERT_TRUE(answered["answer"].contains("edits")) << answered.dump();
  EXPECT_EQ(answered["answer"]["edits"][0]["status"], "applied");
  EXPECT_TRUE(answered["busy"].get<bool>()) << "the refresh is still to come";
  EXPECT_EQ(answered["diagnostics"], 0);
  while (progress(nvim, buf)["busy"].get<bool>()) {
  }
  json diags = nvim.lua("return vim.diagnostic.get(...)", json::array({buf}));
  ASSERT_EQ(diags.size(), 1u) << diags.dump();
  EXPECT_EQ(diags[0]["message"], "✓ one");
}

// The first feedback of a big chat marks every call at once (one extmark each): 3,000 marks
// are set a few dozen per step, so that Neovim answers other requests between them (here each
// step is its own slice), and every mark ends up on its block.
TEST(UiSlices, ManyMarksOfOneBatchAreSetOverSeveralSlices) {
  constexpr int kMarks = 3000;
  NvimHarness nvim;
  json setup = nvim.lua(R"(
    local n = ...
    local buf = vim.api.nvim_get_current_buf()
    local lines, marks = {}, {}
    for i = 1, n do
      vim.list_extend(lines, { "**bash**", "```", "echo " .. i, "```" })
      marks[i] = { key = "k" .. i, row = (i - 1) * 4, end_row = (i - 1) * 4 + 3 }
    end
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    require("toolhost.slices").budget_ms = 0
    require("toolhost.slices").stats(true)
    return { buf = buf, marks = marks, per_step = require("toolhost.apply_buffer").marks_per_step }
  )",
                        json::array({kMarks}));
  int64_t buf = setup["buf"].get<int64_t>();
  json batch = {{"buffers", json::array({{{"buf", buf}, {"marks", setup["marks"]}}})}};
  json answer = nvim.lua(R"(
    local host = require('toolhost.host')
    host.ensure()
    return require('toolhost.ui').apply_all(..., host.instance())
  )",
                         json::array({json::array({batch})}));
  EXPECT_EQ(answer, json({{"pending", true}}));
  wait_until_applied(nvim);
  // Each slice ends with a yield to Neovim's loop (budget 0: one step per slice).
  EXPECT_GE(nvim.lua("return require('toolhost.slices').stats().slices").get<int>(),
            kMarks / setup.value("per_step", 1));
  // Every call's mark covers its block.
  json misplaced = nvim.lua(R"(
    local buf, n = ...
    local marks, ns, wrong = require("toolhost.ui").marks(buf), require("toolhost.ui").namespace, {}
    for i = 1, n do
      local id = marks["k" .. i]
      local pos = id and vim.api.nvim_buf_get_extmark_by_id(buf, ns, id, { details = true })
      if not pos or pos[1] ~= (i - 1) * 4 or pos[3].end_row ~= (i - 1) * 4 + 3 then
        wrong[#wrong + 1] = i
      end
    end
    return wrong
  )",
                            json::array({buf, kMarks}));
  EXPECT_EQ(misplaced, json::array());
}

// With every list in slices, the host sends its next list only when Lua's `toolhost.applied`
// says the previous one is done: without it, no result after the first list would arrive.
TEST(UiSlices, HostSendsItsNextListOnceThePreviousIsApplied) {
  NvimHarness nvim(json{{"confirm_run_all", false}, {"run_all", "sequential"}});
  nvim.lua("require('toolhost.slices').budget_ms = 0");
  record_events(nvim, {"ToolhostJobFinished"});
  int64_t buf = open_chat(nvim, "slices.chat.md");
  reply(nvim, buf, bash_reply({"echo one", "echo two", "echo three"}));
  nvim.command("ToolRunAll");
  for (int i = 0; i < 3; ++i) {
    json finished = next_event(nvim);
    EXPECT_EQ(finished["data"]["status"], "succeeded") << finished.dump();
  }
  std::string text = text_of(nvim, buf);
  for (const char* word : {"one", "two", "three"}) {
    EXPECT_NE(text.find(std::string("Stdout:\n") + word + "\n````"), std::string::npos) << text;
  }
  EXPECT_GT(nvim.lua("return require('toolhost.slices').stats().slices").get<int>(), 3);
}

}  // namespace
}  // namespace toolhost::e2e
