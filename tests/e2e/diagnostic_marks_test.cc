// The signs and virtual text of toolhost's diagnostics are drawn by toolhost
// (lua/toolhost/diagnostic_marks.lua) in namespaces of their own, as vim.diagnostic.config() and
// the DiagnosticSign* definitions say, and a refresh sets only the marks that changed. Counted
// and compared, never timed.
#include <gtest/gtest.h>

#include "e2e/nvim_harness.h"
#include "e2e/ui_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

constexpr int kMarkedCalls = 6;

// running_calls_buffer() of kMarkedCalls calls, toolhost's sign options recorded as it sets them.
int64_t chat_with_marks(NvimHarness& nvim) {
  nvim.lua(R"lua(
    -- 0.7 does not say what a mark's sign is: what toolhost asked for, by extmark id.
    local signs_ns, set = require("toolhost.diagnostic_marks").signs.ns, vim.api.nvim_buf_set_extmark
    _G.sign_opts = {}
    vim.api.nvim_buf_set_extmark = function(b, ns, row, col, opts)
      local id = set(b, ns, row, col, opts)
      if ns == signs_ns then _G.sign_opts[id] = opts end
      return id
    end
  )lua");
  return running_calls_buffer(nvim, kMarkedCalls);
}

// The texts drawn now: [{ row, text, hl }] in row order: the chunks after the spacing joined
// (0.10+ builds the prefix and the message as two chunks, 0.7 as one), the last one's highlight.
json drawn_texts(NvimHarness& nvim, int64_t buf) {
  return nvim.lua(R"(
    local buf = ...
    local ns = require("toolhost.diagnostic_marks").texts.ns
    local out = {}
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
      local chunks = m[4].virt_text
      local text = {}
      for i = 2, #chunks do text[#text + 1] = chunks[i][1] end
      out[#out + 1] = { row = m[2], text = table.concat(text), hl = chunks[#chunks][2] }
    end
    return out
  )",
                  json::array({buf}));
}

// The signs drawn now: [{ row, text, hl }] in row order.
json drawn_signs(NvimHarness& nvim, int64_t buf) {
  return nvim.lua(R"(
    local buf = ...
    local ns = require("toolhost.diagnostic_marks").signs.ns
    local out = {}
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, {})) do
      local opts = _G.sign_opts[m[1]]
      out[#out + 1] = { row = m[2], text = opts.sign_text, hl = opts.sign_hl_group, nr = opts.number_hl_group }
    end
    return out
  )",
                  json::array({buf}));
}

// Lua: how many signs vim.diagnostic itself placed for namespace `ns` in `buf`: extmarks in its
// own sign namespace from 0.10 (where sign_getplaced() also lists every extmark's sign,
// toolhost's included), legacy signs before.
constexpr const char* kTheirSigns = R"(
  local function their_signs(buf, ns)
    if vim.fn.has("nvim-0.10") == 1 then
      local sign_ns = (vim.diagnostic.get_namespace(ns).user_data or {}).sign_ns
      return sign_ns and #vim.api.nvim_buf_get_extmarks(buf, sign_ns, 0, -1, {}) or 0
    end
    return #vim.fn.sign_getplaced(buf, { group = "*" })[1].signs
  end
)";

// Both kinds of marks, `n` of each.
void expect_drawn(NvimHarness& nvim, int64_t buf, size_t n) {
  EXPECT_EQ(drawn_texts(nvim, buf).size(), n) << drawn_texts(nvim, buf).dump();
  EXPECT_EQ(drawn_signs(nvim, buf).size(), n) << drawn_signs(nvim, buf).dump();
}

TEST(DiagnosticMarks, EachCallsDiagnosticIsASignAndATextOfToolhostsOwnOnItsRow) {
  NvimHarness nvim;
  int64_t buf = chat_with_marks(nvim);
  json shown = drawn_texts(nvim, buf);
  ASSERT_EQ(shown.size(), static_cast<size_t>(kMarkedCalls)) << shown.dump();
  for (int i = 0; i < kMarkedCalls; ++i) {
    EXPECT_EQ(shown[i]["row"], i * 4);
    EXPECT_EQ(shown[i]["text"], "■ ⟳ bash (running 0s)");
    EXPECT_EQ(shown[i]["hl"], "DiagnosticVirtualTextHint");
  }
  json placed = drawn_signs(nvim, buf);
  ASSERT_EQ(placed.size(), static_cast<size_t>(kMarkedCalls)) << placed.dump();
  for (int i = 0; i < kMarkedCalls; ++i) {
    EXPECT_EQ(placed[i]["row"], i * 4);
    EXPECT_EQ(placed[i]["text"], "H");  // vim.diagnostic's DiagnosticSignHint
    EXPECT_EQ(placed[i]["hl"], "DiagnosticSignHint");
  }
  // vim.diagnostic draws none of toolhost's, and still has them all (]d, quickfix, get()).
  json diagnostic_side = nvim.lua(std::string(kTheirSigns) + R"(
    local buf = ...
    local ns = require("toolhost.blocks").namespace
    local vt_ns = (vim.diagnostic.get_namespace(ns).user_data or {}).virt_text_ns
    return { drawn = vt_ns and #vim.api.nvim_buf_get_extmarks(buf, vt_ns, 0, -1, {}) or 0,
             diagnostics = #vim.diagnostic.get(buf, { namespace = ns }),
             placed = their_signs(buf, ns) }
  )",
                                  json::array({buf}));
  EXPECT_EQ(diagnostic_side["drawn"], 0) << diagnostic_side.dump();
  EXPECT_EQ(diagnostic_side["placed"], 0) << diagnostic_side.dump();
  EXPECT_EQ(diagnostic_side["diagnostics"], kMarkedCalls) << diagnostic_side.dump();
}

// The point of drawing them: one result re-draws one text, and the texts below it move with
// the rows the result added, without being set again.
TEST(DiagnosticMarks, AResultSetsOnlyItsOwnMarksAndTheOthersMoveWithTheirBlocks) {
  NvimHarness nvim;
  int64_t buf = chat_with_marks(nvim);
  json counted = nvim.lua(R"(
    local buf, batch = ...
    local marks = require("toolhost.diagnostic_marks")
    local sets, set = 0, vim.api.nvim_buf_set_extmark
    vim.api.nvim_buf_set_extmark = function(b, n, ...)
      if n == marks.texts.ns or n == marks.signs.ns then sets = sets + 1 end
      return set(b, n, ...)
    end
    -- What is shown while the result is written: signs and texts.
    local shown_at_write, set_lines = nil, vim.api.nvim_buf_set_lines
    vim.api.nvim_buf_set_lines = function(b, ...)
      shown_at_write = { signs = #vim.api.nvim_buf_get_extmarks(b, marks.signs.ns, 0, -1, {}),
                         texts = #vim.api.nvim_buf_get_extmarks(b, marks.texts.ns, 0, -1, {}) }
      return set_lines(b, ...)
    end
    require("toolhost.ui").apply(batch)
    vim.api.nvim_buf_set_extmark, vim.api.nvim_buf_set_lines = set, set_lines
    return { sets = sets, shown_at_write = shown_at_write }
  )",
                          json::array({buf, result_batch(buf, 2, {"✓ 2", "done"})}));
  // Its own sign and text (each set once, then moved with its block's mark by the rewrite):
  // nothing else, where vim.diagnostic set every call's.
  EXPECT_LE(counted["sets"].get<int>(), 4) << counted.dump();
  EXPECT_GE(counted["sets"].get<int>(), 2) << counted.dump();
  // Written with the diagnostics shown: hiding them first cost as much as it saved.
  EXPECT_EQ(counted["shown_at_write"]["signs"], kMarkedCalls) << counted.dump();
  EXPECT_EQ(counted["shown_at_write"]["texts"], kMarkedCalls) << counted.dump();
  json shown = drawn_texts(nvim, buf);
  ASSERT_EQ(shown.size(), static_cast<size_t>(kMarkedCalls)) << shown.dump();
  EXPECT_EQ(shown[0]["row"], 0);
  EXPECT_EQ(shown[1]["row"], 4);
  EXPECT_EQ(shown[1]["text"], "■ ✓ bash 2");
  EXPECT_EQ(shown[1]["hl"], "DiagnosticVirtualTextInfo");
  // k2's block went from 4 rows to 2: the texts below moved up by 2 with their blocks.
  for (int i = 2; i < kMarkedCalls; ++i) EXPECT_EQ(shown[i]["row"], i * 4 - 2) << shown.dump();
  json placed = drawn_signs(nvim, buf);
  ASSERT_EQ(placed.size(), static_cast<size_t>(kMarkedCalls)) << placed.dump();
  for (int i = 0; i < kMarkedCalls; ++i) EXPECT_EQ(placed[i]["row"], shown[i]["row"]);
  EXPECT_EQ(placed[1]["hl"], "DiagnosticSignInfo");
  json rows = diagnostic_rows(nvim, buf);
  for (int i = 0; i < kMarkedCalls; ++i) EXPECT_EQ(rows[i], shown[i]["row"]) << rows.dump();
}

// What vim.diagnostic.config() says is what is drawn: off, a severity, a format, a prefix.
TEST(DiagnosticMarks, VirtualTextFollowsVimDiagnosticConfig) {
  NvimHarness nvim;
  int64_t buf = chat_with_marks(nvim);
  auto apply = [&](int i) {
    nvim.lua("require('toolhost.ui').apply(...)",
             json::array({result_batch(buf, i, {"✓", "done"})}));
  };
  // 0.11+ has virtual text off by default, and toolhost turns it on for its own namespace
  // (diagnostic_marks.install) unless it was configured. Taken off here, the namespace follows
  // the global config as it does when a user configured virtual text before toolhost loaded.
  json own = nvim.lua(R"(
    local ns = require("toolhost.blocks").namespace
    local own = vim.diagnostic.config(nil, ns).virtual_text
    vim.diagnostic.get_namespace(ns).opts.virtual_text = nil
    return { own = own == nil and "unset" or own, level = vim.fn.api_info().version.api_level }
  )");
  if (own["level"].get<int>() >= 13) {
    EXPECT_EQ(own["own"], true) << own.dump();
  } else {
    EXPECT_EQ(own["own"], "unset") << own.dump();
  }
  nvim.lua("vim.diagnostic.config({ virtual_text = false })");
  apply(1);
  EXPECT_EQ(drawn_texts(nvim, buf).size(), 0u) << drawn_texts(nvim, buf).dump();

  nvim.lua(R"(vim.diagnostic.config({ virtual_text = {
    severity = vim.diagnostic.severity.INFO, prefix = "●",
    format = function(d) return d.message:upper() end } }))");
  apply(2);
  json shown = drawn_texts(nvim, buf);
  ASSERT_EQ(shown.size(), 2u) << shown.dump();  // the two ✓ (INFO), not the running hints
  EXPECT_EQ(shown[0]["text"], "● ✓ BASH 1");
  EXPECT_EQ(shown[1]["text"], "● ✓ BASH 2");

  // For toolhost's namespace alone.
  nvim.lua(R"(
    vim.diagnostic.config({ virtual_text = true })
    vim.diagnostic.config({ virtual_text = { severity = { min = vim.diagnostic.severity.WARN } } },
                          require("toolhost.blocks").namespace)
  )");
  apply(3);
  EXPECT_EQ(drawn_texts(nvim, buf).size(), 0u) << drawn_texts(nvim, buf).dump();
}

// Toolhost's texts go off for its namespace alone, on every version (on 0.11+ that is how they
// go off: the global default is off there, and toolhost's namespace has them on).
TEST(DiagnosticMarks, VirtualTextTurnsOffForToolhostsNamespace) {
  NvimHarness nvim;
  int64_t buf = chat_with_marks(nvim);
  ASSERT_EQ(drawn_texts(nvim, buf).size(), static_cast<size_t>(kMarkedCalls));
  nvim.lua(R"(vim.diagnostic.config({ virtual_text = false }, require("toolhost.blocks").namespace))");
  nvim.lua("require('toolhost.ui').apply(...)", json::array({result_batch(buf, 1, {"✓", "done"})}));
  nvim.lua("return 0");  // a hide's clean-up runs a loop turn later
  EXPECT_EQ(drawn_texts(nvim, buf).size(), 0u) << drawn_texts(nvim, buf).dump();
  EXPECT_EQ(drawn_signs(nvim, buf).size(), static_cast<size_t>(kMarkedCalls));
}

// Signs are as the user defined DiagnosticSign* and configured `signs`.
TEST(DiagnosticMarks, SignsFollowTheirDefinitionsAndVimDiagnosticConfig) {
  NvimHarness nvim;
  int64_t buf = chat_with_marks(nvim);
  auto apply = [&](int i) {
    nvim.lua("require('toolhost.ui').apply(...)",
             json::array({result_batch(buf, i, {"✓", "done"})}));
  };
  nvim.lua(
      R"(vim.fn.sign_define("DiagnosticSignInfo", { text = "ok", texthl = "MyOk", numhl = "MyNr" }))");
  apply(1);
  json drawn = drawn_signs(nvim, buf)[0];
  EXPECT_EQ(drawn["text"], "ok") << drawn.dump();
  EXPECT_EQ(drawn["hl"], "MyOk") << drawn.dump();
  EXPECT_EQ(drawn["nr"], "MyNr") << drawn.dump();

  nvim.lua("vim.diagnostic.config({ signs = { severity = vim.diagnostic.severity.INFO } })");
  apply(2);
  EXPECT_EQ(drawn_signs(nvim, buf).size(), 2u) << drawn_signs(nvim, buf).dump();
  nvim.lua("vim.diagnostic.config({ signs = false })");
  apply(3);
  nvim.lua("return 0");
  EXPECT_EQ(drawn_signs(nvim, buf).size(), 0u) << drawn_signs(nvim, buf).dump();
}

// vim.diagnostic.hide takes them away (a loop turn later: a show right after a hide, as every
// refresh does, keeps what did not change); show brings them back.
TEST(DiagnosticMarks, HideAndShowOfVimDiagnosticReachTheMarks) {
  NvimHarness nvim;
  int64_t buf = chat_with_marks(nvim);
  nvim.lua("vim.diagnostic.hide(require('toolhost.blocks').namespace, ...)", json::array({buf}));
  // An answer is a loop turn: the hide's scheduled clean-up has run by the next request.
  nvim.lua("return 0");
  expect_drawn(nvim, buf, 0);
  nvim.lua("vim.diagnostic.show(require('toolhost.blocks').namespace, ...)", json::array({buf}));
  nvim.lua("return 0");
  expect_drawn(nvim, buf, kMarkedCalls);
}

// Another namespace's diagnostics keep vim.diagnostic's own virtual text.
TEST(DiagnosticMarks, OtherNamespacesKeepVimDiagnosticsSignsAndVirtualText) {
  NvimHarness nvim;
  int64_t buf = chat_with_marks(nvim);
  json drawn = nvim.lua(std::string(kTheirSigns) + R"(
    local buf = ...
    vim.diagnostic.config({ virtual_text = true }) -- 0.11+: off unless configured
    local other = vim.api.nvim_create_namespace("someone else")
    vim.diagnostic.set(other, buf, { { lnum = 1, col = 0, severity = 1, message = "theirs" } })
    local vt_ns = vim.diagnostic.get_namespace(other).user_data.virt_text_ns
    local marks = require("toolhost.diagnostic_marks")
    return { theirs = #vim.api.nvim_buf_get_extmarks(buf, vt_ns, 0, -1, {}),
             their_signs = their_signs(buf, other),
             ours = #vim.api.nvim_buf_get_extmarks(buf, marks.texts.ns, 0, -1, {}),
             our_signs = #vim.api.nvim_buf_get_extmarks(buf, marks.signs.ns, 0, -1, {}) }
  )",
                        json::array({buf}));
  EXPECT_EQ(drawn["theirs"], 1) << drawn.dump();
  EXPECT_EQ(drawn["their_signs"], 1) << drawn.dump();
  EXPECT_EQ(drawn["ours"], kMarkedCalls) << drawn.dump();
  EXPECT_EQ(drawn["our_signs"], kMarkedCalls) << drawn.dump();
}

// A buffer toolhost forgets loses its texts with its marks and diagnostics.
TEST(DiagnosticMarks, AForgottenBufferLosesItsMarks) {
  NvimHarness nvim;
  int64_t buf = chat_with_marks(nvim);
  nvim.lua("require('toolhost.ui').forget_buffer(...)", json::array({buf}));
  nvim.lua("return 0");
  expect_drawn(nvim, buf, 0);
}

}  // namespace
}  // namespace toolhost::e2e
