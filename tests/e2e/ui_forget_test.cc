// A call whose block the user changed while its job ran, and which the host then forgets (the
// new parse no longer has it), in either order with its result: the result is not written,
// and its WARN "result not written: the block changed while it ran" and the result kept beside
// the block stay (buffer chaos found both orders on a loaded machine: the WARN and the kept
// result gone, or "the block was deleted" when the forget came first in the same batch).
#include <gtest/gtest.h>

#include "e2e/nvim_harness.h"
#include "e2e/ui_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// Call 1's command edited by the user (its block no longer reads what the host expects).
void edit_call_one(NvimHarness& nvim, int64_t buf) {
  nvim.lua("vim.api.nvim_buf_set_lines(..., 2, 3, true, { 'echo 1 # edited' })",
           json::array({buf}));
}

json forget_batch(int64_t buf) {
  return {{"buffers", json::array({{{"buf", buf}, {"forget", json::array({"k1"})}}})}};
}

// The result the host sends for call 1, with what to keep beside the block.
json result_with_fallback(int64_t buf) {
  json batch = result_batch(buf, 1);
  batch["buffers"][0]["edits"][0]["fallback"] = json::array({"Exit code: 0", "out-1"});
  return batch;
}

std::string call_one_message(NvimHarness& nvim, int64_t buf) {
  return nvim
      .lua(R"(
        for _, d in ipairs(vim.diagnostic.get(...)) do
          if d.lnum == 0 then return d.message end
        end
        return ""
      )",
           json::array({buf}))
      .get<std::string>();
}

// The virtual lines kept beside call 1's block.
json kept_lines(NvimHarness& nvim, int64_t buf) {
  return nvim.lua(R"(
    local buf = ...
    local ns = require("toolhost.ui").namespace
    local kept = {}
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, 3, { details = true })) do
      for _, line in ipairs(m[4].virt_lines or {}) do kept[#kept + 1] = line[1][1] end
    end
    return kept
  )",
                  json::array({buf}));
}

TEST(UiForget, ResultThenForgetKeepsTheWarnAndTheKeptResult) {
  NvimHarness nvim;
  int64_t buf = running_calls_buffer(nvim, 2);
  edit_call_one(nvim, buf);
  nvim.lua("require('toolhost.ui').apply(...)", json::array({result_with_fallback(buf)}));
  nvim.lua("require('toolhost.ui').apply(...)", json::array({forget_batch(buf)}));
  wait_until_applied(nvim);
  EXPECT_EQ(call_one_message(nvim, buf),
            "✓ bash 1 — result not written: the block changed while it ran (see :ToolOutput th-1)");
  EXPECT_EQ(kept_lines(nvim, buf), json::array({"Exit code: 0", "out-1"}));
  EXPECT_EQ(nvim.lines(buf)[2], "echo 1 # edited");
}

TEST(UiForget, ForgetAndResultInOneBatchIsTheSameConflict) {
  NvimHarness nvim;
  int64_t buf = running_calls_buffer(nvim, 2);
  edit_call_one(nvim, buf);
  json batch = result_with_fallback(buf);
  batch["buffers"][0]["forget"] = json::array({"k1"});
  nvim.lua("require('toolhost.ui').apply(...)", json::array({batch}));
  wait_until_applied(nvim);
  EXPECT_EQ(call_one_message(nvim, buf),
            "✓ bash 1 — result not written: the block changed while it ran (see :ToolOutput th-1)");
  EXPECT_EQ(kept_lines(nvim, buf), json::array({"Exit code: 0", "out-1"}));
}

TEST(UiForget, AForgottenCallWithNoResultOwedLosesItsMarkAndDiagnostic) {
  NvimHarness nvim;
  int64_t buf = running_calls_buffer(nvim, 2);
  nvim.lua("require('toolhost.ui').apply(...)", json::array({forget_batch(buf)}));
  wait_until_applied(nvim);
  EXPECT_EQ(call_one_message(nvim, buf), "");
  EXPECT_EQ(nvim.lua("return #vim.diagnostic.get(...)", json::array({buf})), 1);
}

}  // namespace
}  // namespace toolhost::e2e
