// How a Neovim applies the host's quickfix updates (issue #39), driven through the steps the
// slices run: QuickFixCmdPost once the list and the diagnostics are in; the items of the
// latest calls only kept, so that a long session's builds do not pile up in the editor (an
// older call's list that left the stack is not made again, and says why).
#include <gtest/gtest.h>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// Runs an update's steps as ui.lua's slices would (steps may add steps).
constexpr const char* kRunUpdate = R"lua(
  _G.qf_run_update = function(update)
    local steps = {}
    require("toolhost.quickfix").steps(steps, update)
    local i = 1
    while i <= #steps do
      steps[i]()
      i = i + 1
    end
  end
)lua";

TEST(QuickfixSteps, TheUpdatesQuickFixCmdPostComesOnceItsDiagnosticsAreSet) {
  NvimHarness nvim;
  nvim.lua(kRunUpdate);
  json seen = nvim.lua(R"lua(
    local seen = {}
    vim.api.nvim_create_autocmd("QuickFixCmdPost", {
      pattern = "toolhost",
      callback = function()
        local ns = vim.api.nvim_get_namespaces()["toolhost.quickfix.call-1"]
        seen[#seen + 1] = ns and #vim.diagnostic.get(nil, { namespace = ns }) or 0
      end,
    })
    local items = {}
    for k = 1, 150 do
      items[k] = { filename = ("f%d.c"):format(k % 7), lnum = k, col = 1, type = "e", text = "e" .. k }
    end
    _G.qf_run_update({ call = "call-1", job = "th-1", title = "toolhost: gcc (#th-1)", first = true,
                       done = true, diagnostics = true, source = "gcc", items = items })
    return seen
  )lua");
  EXPECT_EQ(seen, json::array({150}));
}

// A new file costs a buffer (about 90 µs, P11): a step takes at most 6 of them, and at most 32
// items, so that no step holds Neovim past a slice's budget for long.
TEST(QuickfixSteps, AStepTakesAFewNewFilesOrAChunkOfItems) {
  NvimHarness nvim;
  json counts = nvim.lua(R"lua(
    local qf = require("toolhost.quickfix")
    local function chunk_steps(call, items, first)
      local steps = {}
      qf.steps(steps, { call = call, job = "th-" .. call, title = "t", first = first, done = false,
                        diagnostics = false, items = items })
      return #steps - (first and 2 or 1)  -- without the begin and end steps
    end
    local spread, same = {}, {}
    for k = 1, 64 do
      spread[k] = { filename = ("f%d.c"):format(k), lnum = k, text = "e" }
      same[k] = { filename = "a.c", lnum = k, text = "e" }
    end
    return { chunk_steps("a", spread, true), chunk_steps("b", same, true),
             chunk_steps("a", spread, false) }
  )lua");
  // 64 new files: 11 steps of 6 (the last of 4); one file: 2 steps of 32; the same 64 files
  // in the job's next update are no longer new: 2 steps.
  EXPECT_EQ(counts, json::array({11, 2, 2}));
}

TEST(QuickfixSteps, OnlyTheLatestCallsItemsAreKeptToMakeTheirListsAgain) {
  NvimHarness nvim;
  nvim.lua(kRunUpdate);
  json result = nvim.lua(R"lua(
    local qf = require("toolhost.quickfix")
    qf.keep = 2
    local function run(k)
      _G.qf_run_update({ call = "call-" .. k, job = "th-" .. k, title = "toolhost: x (#th-" .. k .. ")",
                         first = true, done = true, diagnostics = false,
                         items = { { filename = "a.c", lnum = k, text = "e" .. k } } })
    end
    for k = 1, 4 do
      run(k)
    end
    local kept = {}
    for _, st in ipairs(qf.list()) do
      kept[#kept + 1] = st.items and #st.items or 0
    end
    -- Ten newer lists push every one of them off the 10-deep stack.
    for i = 1, 10 do
      vim.fn.setqflist({}, " ", { nr = "$", title = "l" .. i })
    end
    local old = qf.open("th-1")
    vim.cmd("cclose")
    local latest = qf.open("th-4")
    return { kept = kept, old = old, latest = latest,
             title = vim.fn.getqflist({ nr = 0, title = 1 }).title,
             items = #vim.fn.getqflist(),
             said = vim.api.nvim_exec("messages", true) }
  )lua");
  EXPECT_EQ(result["kept"], json::array({0, 0, 1, 1}));
  EXPECT_EQ(result["old"], false);
  EXPECT_NE(result["said"].get<std::string>().find("the quickfix list of th-1 left the stack"),
            std::string::npos)
      << result["said"];
  EXPECT_EQ(result["latest"], true);
  EXPECT_EQ(result["title"], "toolhost: x (#th-4)");
  EXPECT_EQ(result["items"], 1);
}

}  // namespace
}  // namespace toolhost::e2e
