#pragma once
// Waiting on Lua's feedback queue (lua/toolhost/slices.lua) from an e2e test.

#include <chrono>
#include <stdexcept>
#include <string>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {

// Asks until no list is queued, applied or waiting for its diagnostics refresh; each answer
// lets Neovim's loop run a slice. Throws after `deadline` (a refresh that never ends).
inline void wait_until_applied(NvimHarness& nvim,
                               std::chrono::milliseconds deadline = std::chrono::seconds(20)) {
  auto until = std::chrono::steady_clock::now() + deadline;
  while (nvim.lua("return require('toolhost.slices').busy()").get<bool>()) {
    if (std::chrono::steady_clock::now() > until) {
      throw std::runtime_error("toolhost.slices still busy after " +
                               std::to_string(deadline.count()) + " ms");
    }
  }
}

// A buffer of `calls` bash blocks `k1…` (4 rows each), each marked and with a running
// diagnostic, applied as toolhost applies a host's batch. Returns the buffer.
inline int64_t running_calls_buffer(NvimHarness& nvim, int calls) {
  return nvim
      .lua(R"lua(
    local n = ...
    local buf = vim.api.nvim_get_current_buf()
    local lines, marks, diags = {}, {}, {}
    for i = 1, n do
      vim.list_extend(lines, { "**bash**", "```", "echo " .. i, "```" })
      marks[i] = { key = "k" .. i, row = (i - 1) * 4, end_row = (i - 1) * 4 + 3 }
      diags[i] = { key = "k" .. i, row = (i - 1) * 4, severity = 4, message = "⟳ bash (running 0s)" }
    end
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    require("toolhost.ui").apply({ buffers = { { buf = buf, marks = marks, diags = diags } } })
    return buf
  )lua",
           nlohmann::json::array({calls}))
      .get<int64_t>();
}

// The host's batch for call i of running_calls_buffer(): its block rewritten to `lines` (one
// line by default: `✓ i`), its diagnostic `✓ bash i` (INFO).
inline nlohmann::json result_batch(int64_t buf, int i, nlohmann::json lines = nullptr) {
  const std::string n = std::to_string(i), key = "k" + n;
  nlohmann::json edit = {{"key", key},
                         {"expect", {"**bash**", "```", "echo " + n, "```"}},
                         {"lines", lines.is_null() ? nlohmann::json{"✓ " + n} : std::move(lines)},
                         {"fallback", nlohmann::json::array()},
                         {"job", "th-" + n}};
  nlohmann::json diag = {{"key", key}, {"row", 0}, {"severity", 3}, {"message", "✓ bash " + n}};
  return {{"buffers", nlohmann::json::array({{{"buf", buf},
                                              {"edits", nlohmann::json::array({edit})},
                                              {"diags", nlohmann::json::array({diag})}}})}};
}

// The rows of the buffer's diagnostics, in order.
inline nlohmann::json diagnostic_rows(NvimHarness& nvim, int64_t buf) {
  return nvim.lua(R"(
    local rows = {}
    for _, d in ipairs(vim.diagnostic.get(...)) do rows[#rows + 1] = d.lnum end
    table.sort(rows)
    return rows
  )",
                  nlohmann::json::array({buf}));
}

}  // namespace toolhost::e2e
