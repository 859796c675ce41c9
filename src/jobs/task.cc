#include "jobs/task.h"

#include <exception>

namespace toolhost::jobs {

Task::Task(uv_loop_t* loop, JobInfo& info, Events events)
    : loop_(loop), info_(info), events_(std::move(events)) {
  uv_timer_init(loop_, &deadline_);
  deadline_.data = this;
  uv_timer_init(loop_, &flush_);
  flush_.data = this;
  request_.data = this;
}

bool Task::start(const std::vector<std::string>&) {
  start_ns_ = uv_hrtime();
  info_.started_at_ms = wall_clock_ms();
  info_.status = Status::Running;
  const JobSpec& spec = info_.spec;
  const bool on_loop = spec.async || spec.stream;
  int rc = UV_EINVAL;
  if (on_loop) {
    self_ = std::make_shared<Task*>(this);
    rc = 0;
  } else if (spec.task) {
    rc = uv_queue_work(loop_, &request_, on_work, on_work_done);
  }
  if (rc != 0) {
    info_.error = rc == UV_EINVAL ? std::string("empty task")
                                  : std::string("cannot queue the task: ") + uv_strerror(rc);
    // Report the failure from the loop, so that no event fires inside the caller's submit().
    uv_timer_start(
        &deadline_,
        [](uv_timer_t* timer) { static_cast<Task*>(timer->data)->finish(Status::Failed); }, 0, 0);
    return false;
  }
  working_ = !on_loop;
  if (spec.timeout_ms > 0) {
    uv_timer_start(
        &deadline_,
        [](uv_timer_t* timer) { static_cast<Task*>(timer->data)->terminate(Status::TimedOut, 0); },
        spec.timeout_ms, 0);
  }
  if (on_loop) {
    starting_ = true;
    start_function(spec);
    starting_ = false;
    if (!pending_output_.empty()) {
      uv_timer_start(
          &flush_, [](uv_timer_t* timer) { static_cast<Task*>(timer->data)->flush_pending_output(); },
          0, 0);
    }
    if (deferred_) {
      uv_timer_start(
          &deadline_,
          [](uv_timer_t* timer) {
            auto* self = static_cast<Task*>(timer->data);
            self->complete(std::move(self->outcome_));
          },
          0, 0);
    }
  }
  return true;
}

void Task::start_function(const JobSpec& spec) {
  std::weak_ptr<Task*> weak = self_;
  TaskDone done = [weak](TaskOutcome outcome) {
    auto self = weak.lock();
    if (!self || !*self) return;
    if (!(*self)->starting_) return (*self)->complete(std::move(outcome));
    (*self)->outcome_ = std::move(outcome);  // no event may fire inside submit()
    (*self)->deferred_ = true;
  };
  try {
    if (!spec.stream) return spec.async(std::move(done));
    OutputSink output = [weak](std::string_view text) {
      auto self = weak.lock();
      if (self && *self) (*self)->stream_output(text);
    };
    stop_ = spec.stream(std::move(output), std::move(done));
  } catch (const std::exception& e) {
    outcome_ = TaskOutcome{1, "", e.what()};
    deferred_ = true;
  }
}

void Task::stream_output(std::string_view text) {
  if (finished_ || text.empty()) return;
  pending_output_.append(text);
  if (!starting_) flush_pending_output();
}

void Task::flush_pending_output() {
  if (pending_output_.empty()) return;
  std::string text = std::move(pending_output_);
  pending_output_.clear();
  info_.err.append(text);
  if (events_.output) events_.output(Stream::Stderr, text);
}

void Task::on_work(uv_work_t* request) {
  auto* self = static_cast<Task*>(request->data);
  try {
    self->outcome_ = self->info_.spec.task();
  } catch (const std::exception& e) {
    self->outcome_ = TaskOutcome{1, "", e.what()};
  } catch (...) {
    self->outcome_ = TaskOutcome{1, "", "the task failed"};
  }
}

void Task::on_work_done(uv_work_t* request, int) {
  auto* self = static_cast<Task*>(request->data);
  self->working_ = false;
  self->complete(std::move(self->outcome_));
  self->outcome_ = {};
  self->maybe_closed();
}

void Task::complete(TaskOutcome outcome) {
  if (finished_) return;  // timed out or canceled meanwhile: the late result is dropped
  flush_pending_output();
  stop_ = nullptr;
  // No process ran: no exit code; a failure's text is the job's error (diagnostic, job list).
  info_.duration_s = static_cast<double>(uv_hrtime() - start_ns_) / 1e9;
  const bool ok = outcome.exit_code == 0;
  if (!ok) info_.error = outcome.err.empty() ? "the task failed" : outcome.err;
  for (auto [stream, text] :
       {std::pair{Stream::Stdout, &outcome.out}, std::pair{Stream::Stderr, &outcome.err}}) {
    if (text->empty()) continue;
    (stream == Stream::Stdout ? info_.out : info_.err).append(*text);
    if (events_.output) events_.output(stream, *text);
  }
  finish(ok ? Status::Succeeded : Status::Failed);
}

bool Task::terminate(Status reason, uint64_t) {
  if (finished_) return false;
  info_.duration_s = static_cast<double>(uv_hrtime() - start_ns_) / 1e9;
  flush_pending_output();
  finish(reason);
  // After the end: whatever the hook does (a late `done`, output) is dropped.
  if (auto stop = std::move(stop_)) {
    stop_ = nullptr;
    try {
      stop(reason);
    } catch (const std::exception&) {
      // The job has ended either way; a stop that failed loses nothing of it.
    }
  }
  return true;
}

void Task::hurry(uint64_t) {
  // The job ends `interrupted` now, as a process's does (Lua shows the call so); the function
  // on the threadpool cannot be stopped: shutdown waits for it (file tools are short and
  // bounded) and drops what it returns; a stream function's stop hook runs.
  terminate(Status::Interrupted, 0);
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
  if (self_) *self_ = nullptr;
  for (uv_timer_t* timer : {&deadline_, &flush_}) {
    uv_close(reinterpret_cast<uv_handle_t*>(timer), [](uv_handle_t* handle) {
      auto* self = static_cast<Task*>(handle->data);
      --self->timers_open_;
      self->maybe_closed();
    });
  }
}

void Task::maybe_closed() {
  if (timers_open_ > 0 || working_) return;
  // `closed` may destroy this Task, and with it events_: call a moved-out copy, and touch
  // nothing of *this afterwards (as Process does).
  auto closed = std::move(events_.closed);
  if (closed) closed();
}

void run_on_threadpool(uv_loop_t* loop, TaskFunction work, TaskDone done) {
  struct Request {
    uv_work_t work{};
    TaskFunction function;
    TaskDone done;
    TaskOutcome outcome;
  };
  auto request = std::make_unique<Request>();
  request->function = std::move(work);
  request->done = std::move(done);
  request->work.data = request.get();
  auto run = [](uv_work_t* w) {
    auto* r = static_cast<Request*>(w->data);
    try {
      r->outcome = r->function();
    } catch (const std::exception& e) {
      r->outcome = TaskOutcome{1, "", e.what()};
    }
  };
  auto after = [](uv_work_t* w, int) {
    std::unique_ptr<Request> r(static_cast<Request*>(w->data));
    r->done(std::move(r->outcome));
  };
  Request* raw = request.get();
  if (int rc = uv_queue_work(loop, &raw->work, run, after); rc != 0) {
    raw->done(TaskOutcome{1, "", std::string("cannot queue the work: ") + uv_strerror(rc)});
    return;
  }
  request.release();  // owned by the threadpool until `after`
}

}  // namespace toolhost::jobs
