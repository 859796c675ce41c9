#pragma once
// A job that is a function (SPEC 6): `spec.task` runs on libuv's threadpool so the loop never
// waits on the disk (the file tools, SPEC 7); `spec.async` is started on the loop and reports
// back later (a Lua tool that Neovim runs); `spec.stream` too, streaming output lines as it
// goes, and it can be stopped (a call of an MCP server's tool). The function gets no loop and
// no job: only its own inputs, captured. A timeout or cancel ends the job at once; a stream
// function is told through its stop hook, the others cannot be interrupted: they run to their
// end in the background and what they return then is dropped.

#include <uv.h>

#include <functional>
#include <memory>
#include <string>

#include "jobs/executor.h"

namespace toolhost::jobs {

class Task : public Executor {
 public:
  Task(uv_loop_t* loop, JobInfo& info, Events events);
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;

  bool start(const std::vector<std::string>& environment) override;
  bool terminate(Status reason, uint64_t grace_ms) override;
  void hurry(uint64_t grace_ms) override;
  void close() override;

 private:
  static void on_work(uv_work_t* request);
  static void on_work_done(uv_work_t* request, int status);
  // The function's result, on the loop thread.
  void complete(TaskOutcome outcome);
  // Starts spec.stream or spec.async; false when it threw.
  void start_function(const JobSpec& spec);
  // A stream function's output line(s), on the loop.
  void stream_output(std::string_view text);
  void flush_pending_output();
  void finish(Status status);
  void maybe_closed();

  uv_loop_t* loop_;
  JobInfo& info_;
  Events events_;
  uv_work_t request_{};
  uv_timer_t deadline_{};
  uv_timer_t flush_{};  // shows the output from inside start() on the loop's next turn
  TaskOutcome outcome_;  // written by the worker thread, read after on_work_done
  StopHook stop_;        // a stream function's, until the job ends
  // A stream function's output from inside start() (no event may fire inside submit()), shown
  // on the loop's next turn (flush_), or with its next output or its end if they come first.
  std::string pending_output_;
  // What an async function's `done` holds: this Task until it closes, then null, so a late
  // `done` finds nothing to call.
  std::shared_ptr<Task*> self_;
  uint64_t start_ns_ = 0;
  bool working_ = false;   // the function is queued or running on the threadpool
  bool finished_ = false;  // `finished` reported
  bool closing_ = false;
  bool starting_ = false;  // inside start(): an async `done` now is deferred to the loop
  bool deferred_ = false;
  int timers_open_ = 2;  // deadline_ and flush_, until close() has closed both
};

// Runs `work` on libuv's threadpool and calls `done` with its outcome on the loop: disk work
// inside an async function (an edit whose file turned out not to be loaded in Neovim).
void run_on_threadpool(uv_loop_t* loop, TaskFunction work, TaskDone done);

}  // namespace toolhost::jobs
