#include "jobs/sequence.h"

#include <algorithm>

namespace toolhost::jobs {

Sequence::Sequence(uv_loop_t* loop, JobInfo& info, uint64_t kill_grace_ms, Events events)
    : loop_(loop), info_(info), kill_grace_ms_(kill_grace_ms), events_(std::move(events)) {
  uv_timer_init(loop_, &deadline_);
  deadline_.data = this;
}

bool Sequence::start(const std::vector<std::string>& environment) {
  start_ns_ = uv_hrtime();
  info_.started_at_ms = wall_clock_ms();
  environment_ = environment;
  if (info_.spec.steps.empty()) {
    info_.error = "empty command";
    // Report the failure from the loop, so that no event fires inside the caller's submit().
    uv_timer_start(
        &deadline_,
        [](uv_timer_t* timer) { static_cast<Sequence*>(timer->data)->finish(Status::Failed); }, 0,
        0);
    return false;
  }
  // A first step that cannot be spawned reports its `finished` from the loop: step_finished
  // then ends the job `failed`.
  if (!start_step()) return false;
  info_.status = Status::Running;
  if (info_.spec.timeout_ms > 0) {
    uv_timer_start(
        &deadline_,
        [](uv_timer_t* timer) {
          auto* self = static_cast<Sequence*>(timer->data);
          self->terminate(Status::TimedOut, self->kill_grace_ms_);
        },
        info_.spec.timeout_ms, 0);
  }
  return true;
}

bool Sequence::start_step() {
  auto step = std::make_unique<Step>();
  Step* raw = step.get();
  JobSpec& spec = raw->info.spec;
  spec.argv = info_.spec.steps[next_++];
  spec.cwd = info_.spec.cwd;
  spec.nice = info_.spec.nice;
  spec.timeout_ms = 0;  // the sequence's one deadline covers every step
  spec.ok_exit_codes = info_.spec.ok_exit_codes;
  raw->info.id = info_.id;
  raw->info.number = info_.number;
  Events events;
  events.output = [this](Stream stream, std::string_view data) {
    (stream == Stream::Stdout ? info_.out : info_.err).append(data);
    if (events_.output) events_.output(stream, data);
  };
  events.finished = [this, raw] { step_finished(*raw); };
  events.closed = [this, raw] {
    // Destroys the step's Process inside its own `closed`, which it allows; maybe_closed() may
    // destroy this Sequence, so it comes last.
    steps_.remove_if([raw](const std::unique_ptr<Step>& s) { return s.get() == raw; });
    maybe_closed();
  };
  raw->process = std::make_unique<Process>(loop_, raw->info, kill_grace_ms_, std::move(events));
  steps_.push_back(std::move(step));
  current_ = raw;
  if (!raw->process->start(environment_)) {
    info_.error = raw->info.error;
    return false;
  }
  // The running step's group: what a job list shows and what a cancel signals.
  info_.pid = raw->info.pid;
  info_.pgid = raw->info.pgid;
  info_.leader_start_min = raw->info.leader_start_min;
  info_.leader_start_max = raw->info.leader_start_max;
  return true;
}

void Sequence::step_finished(Step& step) {
  current_ = nullptr;
  // The job's exit is the last step's: a signal clears an earlier step's exit code.
  info_.exit_code = step.info.exit_code;
  info_.term_signal = step.info.term_signal;
  if (!step.info.error.empty()) info_.error = step.info.error;
  // The job's capture already holds this output.
  step.info.out.release();
  step.info.err.release();
  step.process->close();
  const Status status = step.info.status;
  const bool more = next_ < info_.spec.steps.size();
  if (status == Status::Succeeded && more && !stopping_) {
    start_step();  // a step that cannot be spawned comes back here from the loop, `failed`
    return;
  }
  // A step that succeeded while a timeout or cancel was pending: the rest are skipped, and
  // the job ends with the reason.
  finish(status == Status::Succeeded && more ? *stopping_ : status);
}

bool Sequence::terminate(Status reason, uint64_t grace_ms) {
  if (finished_ || !current_) return false;
  if (!stopping_) stopping_ = reason;
  if (current_->process->terminate(reason, grace_ms)) return true;
  // The step's child had already exited: Process::terminate finished it, and step_finished
  // ran inside this call (unless it never spawned; its failure then comes from the loop).
  return finished_ && info_.status == reason;
}

void Sequence::hurry(uint64_t grace_ms) {
  kill_grace_ms_ = std::min(kill_grace_ms_, grace_ms);
  if (!finished_ && !stopping_) stopping_ = Status::Interrupted;
  // The running step, and finished ones whose leftovers still await their SIGKILL. No step's
  // hurry() fires an event from inside, so the list does not change meanwhile.
  for (auto& step : steps_) step->process->hurry(grace_ms);
}

void Sequence::finish(Status status) {
  if (finished_) return;
  finished_ = true;
  uv_timer_stop(&deadline_);
  info_.duration_s = static_cast<double>(uv_hrtime() - start_ns_) / 1e9;
  info_.status = status;
  if (events_.finished) events_.finished();
}

void Sequence::close() {
  if (closing_) return;
  closing_ = true;
  // Every step was closed when it finished; only the deadline is left.
  uv_close(reinterpret_cast<uv_handle_t*>(&deadline_), [](uv_handle_t* handle) {
    auto* self = static_cast<Sequence*>(handle->data);
    self->timer_closed_ = true;
    self->maybe_closed();
  });
}

void Sequence::maybe_closed() {
  if (!closing_ || !timer_closed_ || !steps_.empty()) return;
  // `closed` may destroy this Sequence, and with it events_: call a moved-out copy, and touch
  // nothing of *this afterwards (as Process and Task do).
  auto closed = std::move(events_.closed);
  if (closed) closed();
}

}  // namespace toolhost::jobs
