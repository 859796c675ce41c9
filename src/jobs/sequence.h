#pragma once
// A job of several commands run one after another (a custom tool's `cmds`, SPEC 7): one
// Process per step, each argv exec'd as it is (never a shell). The first step that fails (a
// non-zero exit, a signal, no spawn) ends the job with its status, exit code or signal, and
// the rest never run; every step's output goes to the job's one capture and log. One deadline
// covers the whole sequence: a timeout or cancel terminates the running step and skips the rest.
//
// Ownership: the Sequence owns its deadline timer and its steps; a step's Process is closed
// as soon as it finished (its grace timer may outlive it to SIGKILL leftovers) and destroyed
// from its own `closed`. The Sequence reports `closed` once its timer and every step are
// closed; the owner may destroy it inside `closed`.

#include <uv.h>

#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jobs/executor.h"
#include "jobs/process.h"

namespace toolhost::jobs {

class Sequence : public Executor {
 public:
  Sequence(uv_loop_t* loop, JobInfo& info, uint64_t kill_grace_ms, Events events);
  Sequence(const Sequence&) = delete;
  Sequence& operator=(const Sequence&) = delete;

  // Starts the first step; false (and `finished` from the loop) when it cannot be spawned.
  bool start(const std::vector<std::string>& environment) override;
  // Terminates the running step; no further step starts. False (no status change) when the
  // job has ended, or when the running step had already exited and its exit decides (it
  // failed, or it was the last step), as for a Process.
  bool terminate(Status reason, uint64_t grace_ms) override;
  void hurry(uint64_t grace_ms) override;
  void close() override;

 private:
  struct Step {
    // What the step's Process reads (argv, cwd) and writes (pid, exit, status); its end is
    // copied into the job's info. Its own Process keeps it, for the leftovers' pgid, until closed.
    JobInfo info;
    std::unique_ptr<Process> process;
  };

  bool start_step();
  void step_finished(Step& step);
  void finish(Status status);
  void maybe_closed();

  uv_loop_t* loop_;
  JobInfo& info_;
  uint64_t kill_grace_ms_;
  Events events_;
  std::vector<std::string> environment_;  // for the steps after the first
  uv_timer_t deadline_{};
  std::list<std::unique_ptr<Step>> steps_;  // the running one, and finished ones still closing
  Step* current_ = nullptr;                 // the running step
  size_t next_ = 0;                         // index into spec.steps of the next to start
  std::optional<Status> stopping_;          // timeout, cancel or shutdown: start no more steps
  uint64_t start_ns_ = 0;
  bool finished_ = false;
  bool closing_ = false;
  bool timer_closed_ = false;
};

}  // namespace toolhost::jobs
