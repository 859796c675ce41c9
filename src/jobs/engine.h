#pragma once
// The job engine: ids, a FIFO queue bounded by max_concurrent, cancellation, output logs, the
// history of every job (this host's and, through the shared history file, earlier ones).
// Knows nothing of Neovim.

#include <uv.h>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/config.h"
#include "jobs/executor.h"
#include "jobs/history.h"
#include "jobs/job_log.h"
#include "jobs/types.h"

namespace toolhost::jobs {

struct EngineOptions {
  int max_concurrent = core::defaults::kMaxConcurrent;
  uint64_t kill_grace_ms = core::defaults::kKillGraceMs;
  int job_nice = 0;  // a plain EngineOptions runs jobs as the host; setup()'s default is 10
  // Added to every job's environment (SPEC 6); the host's own environment is inherited.
  std::vector<std::pair<std::string, std::string>> env = {{"TOOLHOST", "1"},
                                                          {"TERM", "dumb"},
                                                          {"NO_COLOR", "1"},
                                                          {"PAGER", "cat"},
                                                          {"GIT_PAGER", "cat"}};
  // {state_dir}/history.jsonl and history.lock; empty = no history, ids start at th-1.
  std::string state_dir;
  // {cache_dir}/jobs/{id}.log; empty = no log files (output() then has nothing to read).
  std::string cache_dir;
  uint64_t log_max_bytes = core::defaults::kLogMaxBytes;
  // Finished jobs kept, in memory and in the history file (with their logs).
  size_t history_max = core::defaults::kHistoryMax;
};

// The options of setup() the engine follows (max_concurrent, kill_grace_ms,
// output.log_max_bytes, history_max), over `options`.
EngineOptions with_config(EngineOptions options, const core::Config& config);

// Events of one job, in this order: started (not for a job canceled while queued or one that
// could not start), output…, finished (exactly once). `started` fires inside submit() when a
// slot is free; `finished` does not fire inside submit() (except after shutdown(), when a new
// job ends `canceled` at once), and fires inside cancel() for a queued job or one whose process
// already exited. After `finished` returns, the job's in-memory output (Capture) is released:
// read `out`/`err` text inside the callback.
struct JobEvents {
  std::function<void(const JobInfo&)> started;
  std::function<void(const JobInfo&, Stream, std::string_view)> output;
  std::function<void(const JobInfo&)> finished;
};

struct JobQuery {
  std::set<Status> statuses;  // empty = every status
  size_t limit = 0;           // 0 = no limit
};

struct JobList {
  std::vector<const JobInfo*> jobs;  // newest first; valid until the engine next changes
  size_t total = 0;                  // jobs matching the query, before `limit`
  size_t running = 0;                // this engine's, whatever the query
  size_t queued = 0;
};

struct OutputChunk {
  std::string data;       // raw bytes of the log (stdout and stderr in arrival order)
  uint64_t next = 0;      // offset to ask for next time
  bool finished = false;  // the job has ended
  bool eof = false;       // finished, and `next` is the end of the log
  std::string error;      // unknown job, no log file
};

class Engine {
 public:
  // Reads the history (marking dead hosts' unfinished jobs `interrupted`) when
  // options.state_dir is set.
  Engine(uv_loop_t* loop, EngineOptions options);
  // Call shutdown() and let the loop run until it reports done before destroying the engine.
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // state_dir and cache_dir are fixed at construction; the rest applies to jobs started later.
  void set_options(EngineOptions options);
  const EngineOptions& options() const { return options_; }

  // Queues a job and returns its id ("th-N"); it starts when a slot is free.
  std::string submit(JobSpec spec, JobEvents events);
  // Records a call that never ran: policy refused it (`failed`), or the user rejected it
  // (`rejected`). It gets a job id and history lines like any other, with `reason` as its
  // error.
  const JobInfo& refuse(JobSpec spec, std::string reason, Status status = Status::Failed);
  // The job `id` (this engine's) is now the call `call_id`'s: newest_for_call() and history
  // (a line of the new id, read over the job's others) say so. Null for an unknown job.
  const JobInfo* rename_call(const std::string& id, const std::string& call_id);
  // Cancels a queued or running job: true when it will end `canceled`. A job whose process
  // already exited keeps the status its exit gave (false).
  bool cancel(const std::string& id);
  // The host `pid` that history said runs some jobs is being stopped (Lua restarted it): its
  // queued and running jobs read as `interrupted` with `reason` from now on, as that host
  // records them when it ends them (this engine read history before it did). Returns how many.
  size_t interrupt_host(int pid, const std::string& reason);
  // Catches up with other hosts' jobs read from history as queued or running: the lines their
  // hosts wrote since (a job that ended reads as it ended), and `interrupted` for those whose
  // host has died meanwhile (recorded in history, as the start-up read does). Costs nothing
  // when there are none; else a stat and a read of what was appended. Call it before
  // answering about jobs (the jobs.* methods do).
  void refresh_peers();
  // Any job this engine knows: its own, and those read from history.
  const JobInfo* get(const std::string& id) const;
  const JobInfo* find(const std::string& id) const { return get(id); }
  JobList jobs(const JobQuery& query = {}) const;
  std::vector<const JobInfo*> list() const;  // oldest first
  // The newest job this engine knows of the call `call_id` in the buffer named `buffer_name`
  // (whether it already ran: asked for every call of a reply, so it must not scan the jobs).
  const JobInfo* newest_for_call(const std::string& buffer_name, const std::string& call_id) const;
  // Up to `max_bytes` of the job's log from `since`. A queued job's chunk is empty (next =
  // since, not finished), without an error; so is a job's that ended without ever running
  // (canceled while queued, refused), then finished and at eof.
  OutputChunk output(const std::string& id, uint64_t since, size_t max_bytes = 4 << 20) const;
  size_t running() const { return running_; }
  size_t queued() const { return queue_.size(); }
  // With `hold`, what a job's end leaves to do that nobody waits on is held until
  // release_held(), which HeldWorkRelease calls a moment after the job's feedback left (P2: the
  // feedback's path from the exit to Neovim carries none of it): its history line (a JSON
  // dump and a locked append), and the close of its process handles (each pipe's close frees
  // its buffers in the kernel). Trimming and shutdown release them first. So is a job's first
  // output, until its log file is created there: a job that ends first having written at most
  // kInlineLogMax bytes gets no file at all (an ext4 inode cost more than the whole MCP call,
  // P8); its log is its record's inline_log, in its history line.
  void hold_history(bool hold) { hold_history_ = hold; }
  bool holds_work() const {
    return !held_history_.empty() || !held_logs_.empty() || !held_closes_.empty();
  }
  void release_held();
  static constexpr size_t kInlineLogMax = 512;
  // Queued and running jobs finish `interrupted`; every group (running jobs, and leftovers of
  // finished ones) gets SIGTERM, then SIGKILL after `grace_ms`; history is flushed; `done` runs
  // when every process handle is closed. No job starts afterwards.
  void shutdown(uint64_t grace_ms, std::function<void()> done);

 private:
  struct Job {
    JobInfo info;
    JobEvents events;
    std::unique_ptr<Executor> process;  // a Process, Sequence or Task, while it runs
    JobLog log;                         // open while the job runs, from its first output on
    // The log file is created when the first output comes: most jobs of a chat write little
    // or nothing, and creating a file costs more than starting the job (an inode).
    bool log_pending = false;
    std::string held_log;  // output waiting for the file (hold_history), in held_logs_
  };

  // `starts_now`: its queued line goes with its started line, after the job has started (the
  // request of an MCP call leaves before any history write, P8).
  Job& create(JobSpec spec, bool starts_now = false);
  void start_next();
  void start(Job& job);
  void finished(Job& job);
  void on_output(Job& job, std::string_view data);
  void open_log(Job& job);
  void create_log_file(Job& job);
  void close_log(Job& job);
  void record_end(const JobInfo& info);
  void trim();
  // Trims the history file to history_max jobs, deleting the logs of the jobs it drops.
  void trim_history(bool wait);
  static std::string call_key(const std::string& buffer_name, const std::string& call_id);
  void index_call(const JobInfo& info);
  void delete_log(const std::string& path) const;
  std::vector<std::string> environment() const;
  void maybe_done_shutting_down();

  uv_loop_t* loop_;
  EngineOptions options_;
  History history_;
  uint64_t next_number_ = 1;                                  // without history
  std::map<uint64_t, std::unique_ptr<Job>> jobs_;             // by number
  std::unordered_map<std::string, uint64_t> newest_by_call_;  // call_key -> job number
  std::deque<Job*> queue_;
  // Unfinished jobs read from history, of other hosts -> their host ({"pid", "start"}).
  std::map<uint64_t, nlohmann::json> others_;
  size_t running_ = 0;
  size_t processes_ = 0;
  size_t ended_since_trim_ = 0;
  bool hold_history_ = false;
  std::vector<nlohmann::json> held_history_;  // end lines not written yet (hold_history)
  std::vector<uint64_t> held_logs_;           // jobs whose first output waits for its file
  std::vector<uint64_t> held_closes_;         // ended jobs whose executor's close waits
  bool shutting_down_ = false;
  std::function<void()> on_shutdown_;
};

}  // namespace toolhost::jobs
