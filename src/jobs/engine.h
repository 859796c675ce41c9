#pragma once
// The job engine: ids, a FIFO queue bounded by max_concurrent, cancellation, and the record
// of every job this host ran. Knows nothing of Neovim.

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <uv.h>

#include "jobs/process.h"
#include "jobs/types.h"

namespace toolhost::jobs {

struct EngineOptions {
  int max_concurrent = 4;
  uint64_t kill_grace_ms = 2000;
  // Added to every job's environment (SPEC 6); the host's own environment is inherited.
  std::vector<std::pair<std::string, std::string>> env = {
      {"TOOLHOST", "1"}, {"TERM", "dumb"}, {"NO_COLOR", "1"}, {"PAGER", "cat"},
      {"GIT_PAGER", "cat"}};
};

struct JobEvents {
  std::function<void(const JobInfo&)> started;
  std::function<void(const JobInfo&, Stream, std::string_view)> output;
  std::function<void(const JobInfo&)> finished;
};

class Engine {
 public:
  Engine(uv_loop_t* loop, EngineOptions options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  void set_options(EngineOptions options) { options_ = std::move(options); }
  const EngineOptions& options() const { return options_; }

  // Queues a job and returns its id ("th-N"); it starts when a slot is free.
  std::string submit(JobSpec spec, JobEvents events);
  // Records a call that policy refused before it ran: it gets a job id like any other, and
  // finishes `failed` with `reason` as its error.
  const JobInfo& refuse(JobSpec spec, std::string reason);
  // Cancels a queued or running job. False when no such job is unfinished.
  bool cancel(const std::string& id);
  const JobInfo* find(const std::string& id) const;
  std::vector<const JobInfo*> list() const;
  size_t running() const { return running_; }
  size_t queued() const { return queue_.size(); }
  // SIGTERM every running group, SIGKILL what is left after `grace_ms`; `done` runs when
  // every process handle is closed.
  void shutdown(uint64_t grace_ms, std::function<void()> done);

 private:
  struct Job {
    JobInfo info;
    JobEvents events;
    std::unique_ptr<Process> process;
  };

  void start_next();
  void start(Job& job);
  void finished(Job& job);
  std::vector<std::string> environment() const;
  void maybe_done_shutting_down();

  uv_loop_t* loop_;
  EngineOptions options_;
  uint64_t next_number_ = 1;
  std::map<std::string, std::unique_ptr<Job>> jobs_;
  std::deque<Job*> queue_;
  size_t running_ = 0;
  size_t processes_ = 0;
  std::function<void()> on_shutdown_;
};

}  // namespace toolhost::jobs
