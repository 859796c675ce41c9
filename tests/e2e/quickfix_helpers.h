#pragma once
// What the quickfix end-to-end tests share (quickfix_test.cc, quickfix_load_test.cc): the build
// project and its chat, running its block, and reading back its list and diagnostics.

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "e2e/chat_helpers.h"
#include "e2e/nvim_harness.h"

namespace toolhost::e2e {

// The build project (a.c, sub/b.c and their Makefiles) and its chat, in Neovim's cwd; Neovim
// tells the test each time a toolhost list is complete ("qf_done", with the list's job).
inline int64_t open_build_chat(NvimHarness& nvim, const std::string& chat = "build.chat.md") {
  std::filesystem::copy(std::filesystem::path(TOOLHOST_FIXTURES) / "quickfix/project", nvim.temp_dir(),
           std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing);
  nvim.listen("qf_done");
  // What is shown: every display of diagnostics goes through the handlers.
  nvim.lua(R"lua(
    _G.qf_shown = {}
    vim.diagnostic.handlers.qf_test = {
      show = function(ns, buf, diagnostics)
        if vim.api.nvim_get_namespaces()[ "toolhost" ] ~= ns then
          local n = 0
          for _, d in ipairs(diagnostics) do
            if d.source ~= "toolhost" then n = n + 1 end
          end
          _G.qf_shown[buf] = n
        end
      end,
      hide = function() end,
    }
  )lua");
  nvim.lua(R"lua(
    local chan, told = ..., {}
    vim.api.nvim_create_autocmd("QuickFixCmdPost", {
      pattern = "toolhost",
      callback = function()
        local lists = require("toolhost").quickfix_lists()
        local last = lists[#lists]
        if last and last.done and not told[last.job] then
          told[last.job] = true
          vim.rpcnotify(chan, "qf_done", { job = last.job, call = last.call })
        end
      end,
    })
  )lua",
           nlohmann::json::array({nvim.channel()}));
  return nvim.open_fixture("quickfix/" + chat, "build.chat.md");
}

// Runs the block at row 5 (1-based) and waits for its list; returns {job, call}.
inline nlohmann::json run_build(NvimHarness& nvim, bool force = false) {
  nvim.lua("vim.api.nvim_win_set_cursor(0, {6, 0})");
  nvim.command(force ? "ToolRun!" : "ToolRun");
  return nvim.wait_for("qf_done");
}

// The list of `job` in the stack, with its items' file names relative to Neovim's cwd.
inline nlohmann::json list_of(NvimHarness& nvim, const std::string& job) {
  return nvim.lua(R"lua(
    local job = ...
    for nr = 1, vim.fn.getqflist({ nr = "$" }).nr do
      local l = vim.fn.getqflist({ nr = nr, all = 1 })
      if l.title:find("(#" .. job .. ")", 1, true) then
        for _, item in ipairs(l.items) do
          item.file = item.bufnr > 0 and vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ":.") or ""
        end
        return l
      end
    end
    return vim.NIL
  )lua",
                  nlohmann::json::array({job}));
}

inline nlohmann::json qf_diagnostics(NvimHarness& nvim, const std::string& file) {
  return nvim.lua(R"lua(
    local file = ...
    local out, buf = {}, vim.fn.bufnr(file)
    if buf < 0 then return out end
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.source ~= "toolhost" then
        out[#out + 1] = { lnum = d.lnum, col = d.col, severity = d.severity, source = d.source,
                          message = d.message }
      end
    end
    table.sort(out, function(a, b) return a.lnum * 1000 + a.col < b.lnum * 1000 + b.col or
      (a.lnum == b.lnum and a.col == b.col and a.severity < b.severity) end)
    return out
  )lua",
                  nlohmann::json::array({file}));
}

inline int toolhost_lists(NvimHarness& nvim) {
  return nvim
      .lua(R"lua(
    local n = 0
    for nr = 1, vim.fn.getqflist({ nr = "$" }).nr do
      if vim.fn.getqflist({ nr = nr, title = 1 }).title:find("^toolhost: ") then n = n + 1 end
    end
    return n
  )lua")
      .get<int>();
}

}  // namespace toolhost::e2e
