#include "jobs/task.h"

#include <exception>

namespace toolhost::jobs {

Task::Task(uv_loop_t* loop, JobInfo& info, TaskFunction function, Events events)
    : loop_(loop), info_(info), function_(std::move(function)), events_(std::move(events)) {
  uv_timer_init(loop_, &deadline_);
  deadline_.data = this;
  request_.data = this;
}

bool Task::start(const std::vector<std::string>&) {
  start_ns_ = uv_hrtime();
  info_.started_at_ms = wall_clock_ms();
  info_.status = Status::Running;
  int rc = function_ ? uv_queue_work(loop_, &request_, on_work, on_work_done) : UV_EINVAL;
  if (rc != 0) {
    info_.error = function_ ? std::string("cannot queue the task: ") + uv_strerror(rc)
                            : std::string("empty task");
    // Report the failure from the loop, so that no event fires inside the caller's submit().
    uv_timer_start(
        &deadline_,
        [](uv_timer_t* timer) { static_cast<Task*>(timer->data)->finish(Status::Failed); }, 0, 0);
    return false;
  }
  working_ = true;
  if (info_.spec.timeout_ms > 0) {
    uv_timer_start(
        &deadline_,
        [](uv_timer_t* timer) { static_cast<Task*>(timer->data)->terminate(Status::TimedOut, 0); },
        info_.spec.timeout_ms, 0);
  }
  return true;
}

void Task::on_work(uv_work_t* request) {
  auto* self = static_cast<Task*>(request->data);
  try {
    self->outcome_ = self->function_();
  } catch (const std::exception& e) {
    self->outcome_ = TaskOutcome{1, "", e.what()};
  } catch (...) {
    self->outcome_ = TaskOutcome{1, "", "the task failed"};
  }
}

void Task::on_work_done(uv_work_t* request, int) {
  auto* self = static_cast<Task*>(request->data);
  self->working_ = false;
  if (!self->finished_) {
    // No process ran: no exit code; a failure's text is the job's error (diagnostic, job list).
    self->info_.duration_s = static_cast<double>(uv_hrtime() - self->start_ns_) / 1e9;
    const bool ok = self->outcome_.exit_code == 0;
    if (!ok)
      self->info_.error = self->outcome_.err.empty() ? "the task failed" : self->outcome_.err;
    for (auto [stream, text] : {std::pair{Stream::Stdout, &self->outcome_.out},
                                std::pair{Stream::Stderr, &self->outcome_.err}}) {
      if (text->empty()) continue;
      (stream == Stream::Stdout ? self->info_.out : self->info_.err).append(*text);
      if (self->events_.output) self->events_.output(stream, *text);
    }
    self->finish(ok ? Status::Succeeded : Status::Failed);
  }
  self->outcome_ = {};
  self->maybe_closed();
}

bool Task::terminate(Status reason, uint64_t) {
  if (finished_) return false;
  info_.duration_s = static_cast<double>(uv_hrtime() - start_ns_) / 1e9;
  finish(reason);
  return true;
}

void Task::hurry(uint64_t) {
  // A function on the threadpool cannot be stopped: shutdown waits for it (file tools are
  // short and bounded).
}

void Task::finish(Status status) {
  if (finished_) return;
  finished_ = true;
  uv_timer_stop(&deadline_);
  info_.status = status;
  if (events_.finished) events_.finished();
}

void Task::close() {
  if (closing_) return;
  closing_ = true;
  uv_close(reinterpret_cast<uv_handle_t*>(&deadline_), [](uv_handle_t* handle) {
    auto* self = static_cast<Task*>(handle->data);
    self->timer_closed_ = true;
    self->maybe_closed();
  });
}

void Task::maybe_closed() {
  if (!timer_closed_ || working_) return;
  // `closed` may destroy this Task, and with it events_: call a moved-out copy, and touch
  // nothing of *this afterwards (as Process does).
  auto closed = std::move(events_.closed);
  if (closed) closed();
}

}  // namespace toolhost::jobs
