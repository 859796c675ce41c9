#pragma once
// A job that is a function, run on libuv's threadpool so the loop never waits on the disk (the
// file tools, SPEC 7). The function gets no loop and no job: only its own inputs, captured.
// A timeout or cancel ends the job at once; the function cannot be interrupted, so it runs to
// its end in the background and what it returns then is dropped.

#include <uv.h>

#include <functional>
#include <string>

#include "jobs/executor.h"

namespace toolhost::jobs {

class Task : public Executor {
 public:
  Task(uv_loop_t* loop, JobInfo& info, TaskFunction function, Events events);
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;

  bool start(const std::vector<std::string>& environment) override;
  bool terminate(Status reason, uint64_t grace_ms) override;
  void hurry(uint64_t grace_ms) override;
  void close() override;

 private:
  static void on_work(uv_work_t* request);
  static void on_work_done(uv_work_t* request, int status);
  void finish(Status status);
  void maybe_closed();

  uv_loop_t* loop_;
  JobInfo& info_;
  TaskFunction function_;
  Events events_;
  uv_work_t request_{};
  uv_timer_t deadline_{};
  TaskOutcome outcome_;  // written by the worker thread, read after on_work_done
  uint64_t start_ns_ = 0;
  bool working_ = false;   // the function is queued or running on the threadpool
  bool finished_ = false;  // `finished` reported
  bool closing_ = false;
  bool timer_closed_ = false;
};

}  // namespace toolhost::jobs
