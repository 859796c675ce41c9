// The diagnostics refresh after a host's list is coalesced (lua/toolhost/refresh.lua, SPEC 9 P2):
// vim.diagnostic.set re-sets every diagnostic of the buffer, so one refresh per list made each
// result cost as much as the chat has calls. Refreshes are counted here, never timed.
#include <gtest/gtest.h>

#include "e2e/nvim_harness.h"
#include "e2e/ui_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

constexpr int kRefreshCalls = 20;

// running_calls_buffer() of kRefreshCalls calls; counts vim.diagnostic.set calls from then on
// in _G.diagnostic_sets. Returns the buffer.
int64_t running_calls(NvimHarness& nvim) {
  int64_t buf = running_calls_buffer(nvim, kRefreshCalls);
  nvim.lua(R"lua(
    require("toolhost.host").ensure()
    _G.diagnostic_sets = 0
    local set = vim.diagnostic.set
    vim.diagnostic.set = function(...)
      _G.diagnostic_sets = _G.diagnostic_sets + 1
      return set(...)
    end
  )lua");
  return buf;
}

// How many diagnostics read `✓ bash …`.
int succeeded(NvimHarness& nvim, int64_t buf) {
  return nvim
      .lua(R"(
    local count = 0
    for _, d in ipairs(vim.diagnostic.get(...)) do
      if d.message:find("^✓ bash") then count = count + 1 end
    end
    return count
  )",
           json::array({buf}))
      .get<int>();
}

// Refreshes may wait up to `max_wait_ms` (spacing: any refresh is recent), and the host's list
// "k2 started" (a hint) comes: its refresh waits. Returns what apply_all answered, the
// refreshes so far and slices.busy().
json start_k2_with_waiting_refresh(NvimHarness& nvim, int64_t buf, int max_wait_ms) {
  json started = {{"key", "k2"}, {"row", 4}, {"severity", 4}, {"message", "⟳ bash (running 1s)"}};
  json batch = {{"buffers", json::array({{{"buf", buf}, {"diags", json::array({started})}}})}};
  return nvim.lua(R"(
    local batches, max_wait_ms = ...
    local refresh = require("toolhost.refresh")
    refresh.spacing, refresh.max_wait_ms = 1e9, max_wait_ms
    require("toolhost.slices").budget_ms = 1000 -- a list is applied before apply_all returns
    local host = require('toolhost.host')
    local answer = require('toolhost.ui').apply_all(batches, host.instance())
    return { answer = answer, sets = _G.diagnostic_sets, busy = require("toolhost.slices").busy() }
  )",
                  json::array({json::array({batch}), max_wait_ms}));
}

// The messages of the buffer's diagnostics, as a set.
json messages(NvimHarness& nvim, int64_t buf) {
  return nvim.lua(R"(
    local messages = {}
    for _, d in ipairs(vim.diagnostic.get(...)) do messages[d.message] = true end
    return messages
  )",
                  json::array({buf}));
}

TEST(UiRefresh, ResultsArrivingTogetherShareOneDiagnosticsRefresh) {
  NvimHarness nvim;
  int64_t buf = running_calls(nvim);
  json batches = json::array();
  for (int i = 1; i <= kRefreshCalls; ++i) batches.push_back(result_batch(buf, i));
  // Every list comes from the host before Neovim's loop turns once: each is queued behind the
  // first, and each one's refresh joins the refresh the first one queued.
  nvim.lua(R"(
    local host = require('toolhost.host')
    require("toolhost.slices").budget_ms = 0
    for _, batch in ipairs(...) do
      require('toolhost.ui').apply_all({ batch }, host.instance())
    end
  )",
           json::array({batches}));
  wait_until_applied(nvim);
  EXPECT_EQ(nvim.lua("return _G.diagnostic_sets").get<int>(), 1);
  EXPECT_EQ(succeeded(nvim, buf), kRefreshCalls);
  // Each diagnostic is on its block's row now that the blocks are one line each.
  json rows = diagnostic_rows(nvim, buf);
  for (int i = 0; i < kRefreshCalls; ++i) EXPECT_EQ(rows[i], i);
}

// A list that writes nothing (a job started, the running jobs' elapsed time) soon after a
// refresh leaves its refresh waiting; the next result, whose list hides the diagnostics to write,
// refreshes at once and takes the waiting one along: one re-set for both.
TEST(UiRefresh, AStateChangeSoonAfterARefreshWaitsForTheNextResult) {
  NvimHarness nvim;
  int64_t buf = running_calls(nvim);
  // Any refresh is "recent" for a minute: the test never waits that long.
  json answer = start_k2_with_waiting_refresh(nvim, buf, 60000);
  EXPECT_TRUE(answer["answer"].contains("edits")) << answer.dump();
  EXPECT_EQ(answer["sets"], 0) << "the refresh waits";
  EXPECT_TRUE(answer["busy"].get<bool>());

  answer = nvim.lua(R"(
    local host = require('toolhost.host')
    return require('toolhost.ui').apply_all(..., host.instance())
  )",
                    json::array({json::array({result_batch(buf, 1)})}));
  ASSERT_TRUE(answer.contains("edits")) << answer.dump();
  EXPECT_EQ(answer["edits"][0]["status"], "applied");
  wait_until_applied(nvim);
  EXPECT_EQ(nvim.lua("return _G.diagnostic_sets").get<int>(), 1);
  EXPECT_EQ(succeeded(nvim, buf), 1);
  EXPECT_TRUE(messages(nvim, buf).contains("⟳ bash (running 1s)")) << messages(nvim, buf).dump();
}

// With no list after it, a waiting refresh runs by itself once its wait is over.
TEST(UiRefresh, AWaitingRefreshRunsByItselfWhenNoListFollows) {
  NvimHarness nvim;
  int64_t buf = running_calls(nvim);
  nvim.listen("refreshed");
  nvim.after_each_batch(R"(function(chan, batch)
    -- Not the host's own start list (all jobs, no buffer).
    if batch and batch.buffers and batch.buffers[1] then
      vim.rpcnotify(chan, "refreshed", _G.diagnostic_sets)
    end
  end)");
  json answer = start_k2_with_waiting_refresh(nvim, buf, 20);
  EXPECT_EQ(answer["sets"], 0) << "the refresh waits";
  EXPECT_TRUE(answer["busy"].get<bool>());
  EXPECT_EQ(nvim.wait_for("refreshed"), 1);
  EXPECT_TRUE(messages(nvim, buf).contains("⟳ bash (running 1s)")) << messages(nvim, buf).dump();
  EXPECT_FALSE(nvim.lua("return require('toolhost.slices').busy()").get<bool>());
}

// Lua marks a call interrupted itself (its host died) and refreshes at once: the refresh that
// waited is done by that one, not run again later.
TEST(UiRefresh, InterruptedCallsRefreshTakesTheWaitingOneAlong) {
  NvimHarness nvim;
  int64_t buf = running_calls(nvim);
  start_k2_with_waiting_refresh(nvim, buf, 60000);
  json after = nvim.lua(R"(
    local buf = ...
    require("toolhost.ui").interrupt({ id = "th-2", buf = buf, call_id = "k2", tool = "bash" })
    return { sets = _G.diagnostic_sets, busy = require("toolhost.slices").busy() }
  )",
                        json::array({buf}));
  EXPECT_EQ(after["sets"], 1) << after.dump();
  EXPECT_FALSE(after["busy"].get<bool>()) << "the waiting refresh is still queued";
  EXPECT_TRUE(messages(nvim, buf).contains("✗ bash: interrupted")) << messages(nvim, buf).dump();
}

// A buffer forgotten (wiped, detached, or re-attached by :ToolRestart) drops its waiting
// refresh: nothing stays queued, and no old refresh touches the state a new attach creates.
TEST(UiRefresh, ForgottenBufferDropsItsWaitingRefresh) {
  NvimHarness nvim;
  int64_t buf = running_calls(nvim);
  start_k2_with_waiting_refresh(nvim, buf, 60000);
  json busy = nvim.lua(R"(
    require("toolhost.ui").forget_buffer(...)
    return require("toolhost.slices").busy()
  )",
                       json::array({buf}));
  EXPECT_FALSE(busy.get<bool>());
  EXPECT_EQ(nvim.lua("return _G.diagnostic_sets").get<int>(), 0);
}

// A call's diagnostic is a point, whose underline would be an empty range: an extmark nobody
// sees, that every refresh sets and every change re-reads. Only the parse errors, which span
// rows, get one; a user's own underline setting is kept.
TEST(UiRefresh, OnlyParseErrorsGetAnUnderlineUnlessTheUserConfiguredIt) {
  NvimHarness nvim;
  int64_t buf = running_calls(nvim);
  json underlines = nvim.lua(R"(
    local buf = ...
    local ns = require("toolhost.ui").namespace
    local function count()
      require("toolhost.ui").apply({ buffers = { { buf = buf,
        errors = { { row = 1, end_row = 3, message = "✗ unclosed fence" } } } } })
      -- Where 0.7's vim.diagnostic keeps its underlines: a private detail, checked below.
      local underline_ns = (vim.diagnostic.get_namespace(ns).user_data or {}).underline_ns
      if not underline_ns then
        return nil
      end
      -- The calls' rows underlined, and whether the error's are (0.7 and 0.10 set a mark per
      -- row of it, 0.11+ one, clipped to its text).
      local calls, error_rows = {}, false
      for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, underline_ns, 0, -1, {})) do
        if m[2] == 1 or m[2] == 2 then error_rows = true else calls[m[2]] = true end
      end
      return { calls = vim.tbl_count(calls), error = error_rows }
    end
    local by_default = count()
    if by_default == nil then
      return { no_underline_ns = true }
    end
    vim.diagnostic.config({ underline = { severity = vim.diagnostic.severity.HINT } })
    local every_hint = count()
    vim.diagnostic.config({ underline = false })
    return { by_default = by_default, every_hint = every_hint, none = count() }
  )",
                             json::array({buf}));
  ASSERT_FALSE(underlines.contains("no_underline_ns"))
      << "this Neovim's vim.diagnostic keeps no user_data.underline_ns: count the underline "
         "extmarks another way";
  // The error's rows (1 and 2), and none of the kRefreshCalls points' rows.
  EXPECT_EQ(underlines["by_default"], json({{"calls", 0}, {"error", true}})) << underlines.dump();
  EXPECT_EQ(underlines["every_hint"]["calls"], kRefreshCalls) << underlines.dump();
  EXPECT_EQ(underlines["none"], json({{"calls", 0}, {"error", false}})) << underlines.dump();
}

}  // namespace
}  // namespace toolhost::e2e
