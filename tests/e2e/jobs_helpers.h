#pragma once
// What the :ToolJobs / :ToolOutput tests and the jobs.* query tests share.

#include <algorithm>
#include <string>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {

using nlohmann::json;

// Runs the block under row `row` (1-based) and returns the finished job's event.
inline json run_block(NvimHarness& nvim, int row) {
  nvim.lua("vim.api.nvim_win_set_cursor(0, {...})", json::array({row, 0}));
  nvim.command("ToolRun");
  return nvim.wait_for("ToolhostJobFinished");
}

// Asks the host `method` through Lua's asynchronous bridge; returns {err, result}.
inline json host_call(NvimHarness& nvim, const std::string& method, const json& args) {
  nvim.listen("answer");
  nvim.lua(R"(
    local chan, method, args = ...
    require("toolhost.host").call(method, args, function(err, result)
      vim.rpcnotify(chan, "answer", { err = err or vim.NIL, result = result or vim.NIL })
    end)
  )",
           json::array({nvim.channel(), method, args}));
  return nvim.wait_for("answer");
}

// Forwards, as notification "all_jobs", the ids of every `all_jobs` list ui.apply_all() applied.
inline void forward_all_jobs(NvimHarness& nvim) {
  nvim.listen("all_jobs");
  nvim.after_each_batch(R"(function(chan, batch)
    if batch and batch.all_jobs then
      vim.rpcnotify(chan, "all_jobs", vim.tbl_map(function(job) return job.id end, batch.all_jobs))
    end
  end)");
}

// Waits until an applied `all_jobs` list holds job `id`.
inline void wait_all_jobs_with(NvimHarness& nvim, const std::string& id) {
  for (;;) {
    json ids = nvim.wait_for("all_jobs");
    if (std::find(ids.begin(), ids.end(), json(id)) != ids.end()) return;
  }
}

}  // namespace toolhost::e2e
