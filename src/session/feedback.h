#pragma once
// Collects everything the editor should show during one loop iteration and sends it as one
// batch: one nvim_exec_lua call that lua/toolhost/ui.lua applies (SPEC 5).

#include <uv.h>

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "jobs/types.h"

namespace toolhost::session {

enum class Severity { Error = 1, Warn = 2, Info = 3, Hint = 4 };  // vim.diagnostic.severity

// A job as Lua's mirror keeps it: the record of jobs.get, plus `buf` when a chat buffer of
// this Neovim ran it (0 for jobs known from history).
nlohmann::json job_entry(const jobs::JobInfo& job, int64_t buf);

class Feedback {
 public:
  using Send = std::function<void(nlohmann::json batch)>;

  Feedback(uv_loop_t* loop, Send send);
  // Closes the idle handle; the owner runs the loop once more before destroying this.
  void close();
  Feedback(const Feedback&) = delete;
  Feedback& operator=(const Feedback&) = delete;

  // The extmark of a block; Lua creates it once and lets it follow edits. `tick`: the
  // buffer's changedtick the rows were read at (0: unknown); Lua moves them by the changes
  // made since (a result it wrote above the block while this batch waited for the last one).
  void mark(int64_t buf, const std::string& key, int row, int end_row, int64_t tick = 0);
  // Forgets a block's extmark, diagnostic and streamed lines.
  void forget(int64_t buf, const std::string& key);
  void diagnostic(int64_t buf, const std::string& key, int row, Severity severity,
                  const std::string& message);
  // The buffer's parse errors, replacing the previous set.
  void parse_errors(int64_t buf, nlohmann::json errors);
  void stream(int64_t buf, const std::string& key, std::vector<std::string> lines);
  // A finished block's rewrite. If the block (found by its extmark) still reads `expect`,
  // it is replaced by `lines` (llm-sidekick: the executed header), or, with `insert`
  // (fenced dialects: the fence stays), `lines` are inserted after the block, after
  // `after_rows` rows (the result blocks of lower parts the host read there) and after the
  // results Lua inserted since for the calls `after_keys`. Otherwise `fallback` shows under
  // the block and a warning says why (the conflict rule).
  struct Rewrite {
    std::string key;
    std::string job_id;
    std::vector<std::string> expect;
    std::vector<std::string> lines;
    std::vector<std::string> fallback;
    bool insert = false;
    int after_rows = 0;
    std::vector<std::string> after_keys;
  };
  void rewrite(int64_t buf, Rewrite rewrite);
  // The calls of the buffer that wait for the user's approval, replacing the previous set
  // (statusline() counts them; the run and reject keys act on the first).
  void awaiting(int64_t buf, std::vector<std::string> keys);
  // Asks the user something Lua must show (vim.ui.select), e.g. whether to run a finished call
  // again: { kind, key, row, tool, status }.
  void prompt(int64_t buf, nlohmann::json prompt);
  // A submitted call ended: { id, job, status, output } for the plugin's on_done.
  void submitted(nlohmann::json done);
  // A job's new state for Lua's job mirror (toolhost.jobs(), statusline); see job_entry().
  void job(nlohmann::json job);
  // Every job the host knows, replacing the mirror (sent when Lua sets the host up).
  void all_jobs(nlohmann::json jobs);
  void event(const std::string& name, nlohmann::json data);
  void notify(const std::string& message, const std::string& level);

  // Sends what is collected now (normally done once per loop iteration).
  void flush();

 private:
  nlohmann::json& entry(int64_t buf);  // the buffer's part of the batch
  nlohmann::json& buffer(int64_t buf, const char* list);
  nlohmann::json& top(const char* list);
  void schedule();

  uv_idle_t idle_{};
  Send send_;
  nlohmann::json batch_;
  std::map<int64_t, nlohmann::json> buffers_;
};

}  // namespace toolhost::session
