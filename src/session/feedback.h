#pragma once
// Collects everything the editor should show during one loop iteration and sends it as one
// batch: one nvim_exec_lua call that lua/toolhost/ui.lua applies (SPEC 5).

#include <uv.h>

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "jobs/types.h"

namespace toolhost::session {

enum class Severity { Error = 1, Warn = 2, Info = 3, Hint = 4 };  // vim.diagnostic.severity

// A job as Lua's mirror keeps it: the record of jobs.get, plus `buf` when a chat buffer of
// this Neovim ran it (0 for jobs known from history).
nlohmann::json job_entry(const jobs::JobInfo& job, int64_t buf);

// The records of all_jobs(), in the order they are paged: the live jobs (queued, running)
// first, so the first page carries them, then the others newest first. `oldest_first`: as
// jobs::Engine::list() returns them.
std::vector<nlohmann::json> mirror_records(const std::vector<const jobs::JobInfo*>& oldest_first);

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
  // A call's quickfix list grew or ended (quickfix::Lists' updates; lua/toolhost/quickfix.lua).
  void quickfix(nlohmann::json update);
  // A job's new state for Lua's job mirror (toolhost.jobs(), statusline); see job_entry().
  void job(nlohmann::json job);
  // Every job the host knows, replacing the mirror (sent when Lua sets the host up). It leaves
  // in pages of at most kAllJobsPage records, one page per batch, a batch per loop turn, so that
  // Neovim never decodes a big history at once (it held the first query after ready up to
  // 16 ms with 500 records). A new call restarts the paging.
  void all_jobs(std::vector<nlohmann::json> records);
  static constexpr size_t kAllJobsPage = 64;
  // With a gate, a page leaves only in a batch flushed while `ready()` holds (the host: no
  // list of batches in Neovim's hands), and the owner calls resume_pages() when that may have
  // changed: the pages then never pile up into one list, nor in front of a query's answer.
  void gate_pages(std::function<bool()> ready) { pages_ready_ = std::move(ready); }
  void resume_pages();
  // True once after the last page of a mirror left (the owner frees what paging it cost).
  bool take_mirror_sent() { return std::exchange(mirror_sent_, false); }
  void event(const std::string& name, nlohmann::json data);
  void notify(const std::string& message, const std::string& level);

  // Sends what is collected now (normally done once per loop iteration).
  void flush();
  // What `add` collects does not make the batch leave by itself: it goes with the next batch
  // anything else makes leave, or `ms` from now at the latest. A job's started feedback waits
  // so: a call that ends by then (an MCP call, a file tool) sends Neovim one list, and Neovim
  // works on nothing while the server does (P8). Past kDeferredMax of them before a batch
  // leaves (calls queued at once), they leave at the loop turn's end: Neovim applies them
  // while the jobs run, not in front of their results.
  void deferred(uint64_t ms, const std::function<void()>& add);
  static constexpr size_t kDeferredMax = 8;

 private:
  nlohmann::json& entry(int64_t buf);  // the buffer's part of the batch
  nlohmann::json& buffer(int64_t buf, const char* list);
  nlohmann::json& top(const char* list);
  void schedule();
  void add_all_jobs_page(nlohmann::json& batch);

  uv_idle_t idle_{};
  uv_timer_t late_{};       // the deadline of what deferred() collected
  bool deferring_ = false;  // inside deferred(): collecting does not schedule a flush
  size_t deferred_ = 0;     // deferred() calls since the last batch left
  Send send_;
  nlohmann::json batch_;
  std::map<int64_t, nlohmann::json> buffers_;
  std::vector<nlohmann::json> all_jobs_;  // the records all_jobs() still has to page
  size_t all_jobs_sent_ = 0;
  bool paging_ = false;
  bool mirror_sent_ = false;
  std::function<bool()> pages_ready_;
};

}  // namespace toolhost::session
