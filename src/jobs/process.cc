#include "jobs/process.h"

#include <fcntl.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <csignal>

namespace toolhost::jobs {
namespace {

// After the direct child exits, a grandchild may still hold the pipes open (`cmd &`).
// The job ends this long after the exit even so (SPEC 6).
constexpr uint64_t kLingerAfterExitMs = 500;
// A bigger pipe means fewer wake-ups per byte when a child floods its output.
constexpr int kPipeBytes = 1024 * 1024;

template <class Handle>
uv_handle_t* as_handle(Handle* h) {
  return reinterpret_cast<uv_handle_t*>(h);
}

}  // namespace

Process::Process(uv_loop_t* loop, JobInfo& info, uint64_t kill_grace_ms, Events events)
    : loop_(loop), info_(info), kill_grace_ms_(kill_grace_ms), events_(std::move(events)) {
  for (uv_pipe_t* pipe : {&out_, &err_}) {
    uv_pipe_init(loop_, pipe, 0);
    pipe->data = this;
    ++handles_open_;
  }
  for (uv_timer_t* timer : {&deadline_, &grace_}) {
    uv_timer_init(loop_, timer);
    timer->data = this;
    ++handles_open_;
  }
  process_.data = this;
}

bool Process::start(const std::vector<std::string>& environment) {
  std::vector<char*> argv;
  for (const auto& arg : info_.spec.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> env;
  for (const auto& entry : environment) env.push_back(const_cast<char*>(entry.c_str()));
  env.push_back(nullptr);

  uv_stdio_container_t stdio[3];
  stdio[0].flags = UV_IGNORE;  // libuv connects an ignored stdin to /dev/null
  stdio[1].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
  stdio[1].data.stream = reinterpret_cast<uv_stream_t*>(&out_);
  stdio[2].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
  stdio[2].data.stream = reinterpret_cast<uv_stream_t*>(&err_);

  uv_process_options_t options{};
  options.file = argv[0] ? argv[0] : "";
  options.args = argv.data();
  options.env = env.data();
  options.cwd = info_.spec.cwd.empty() ? nullptr : info_.spec.cwd.c_str();
  // DETACHED = setsid() in the child: a new session and process group whose id is the child's
  // pid, so kill(-pgid) reaches every descendant that does not setsid itself, and a
  // terminal's ^C does not reach the job.
  options.flags = UV_PROCESS_DETACHED;
  options.stdio_count = 3;
  options.stdio = stdio;
  options.exit_cb = on_exit;

  start_ns_ = uv_hrtime();
  info_.started_at_ms = wall_clock_ms();
  int rc = UV_EINVAL;
  if (info_.spec.argv.empty()) {
    info_.error = "empty command";
  } else {
    rc = uv_spawn(loop_, &process_, &options);
    // uv_spawn initialises the handle even when it fails; it must be closed either way.
    ++handles_open_;
    if (rc != 0) {
      info_.error = std::string("cannot start `") + info_.spec.argv[0] + "`: " + uv_strerror(rc);
    }
  }
  if (rc != 0) {
    move_to(State::StartFailed);
    // Report the failure from the loop, so that no event fires inside the caller's submit().
    uv_timer_start(
        &deadline_, [](uv_timer_t* timer) { static_cast<Process*>(timer->data)->finish(); }, 0, 0);
    return false;
  }
  move_to(State::Running);
  info_.pid = process_.pid;
  info_.pgid = process_.pid;
  info_.status = Status::Running;
  for (uv_pipe_t* pipe : {&out_, &err_}) {
    uv_read_start(reinterpret_cast<uv_stream_t*>(pipe), on_alloc, on_read);
  }
  start_timeout();
  return true;
}

void Process::start_timeout() {
  if (info_.spec.timeout_ms == 0) return;
  uv_timer_start(
      &deadline_,
      [](uv_timer_t* timer) {
        auto* self = static_cast<Process*>(timer->data);
        self->terminate(Status::TimedOut, self->kill_grace_ms_);
      },
      info_.spec.timeout_ms, 0);
}

bool Process::group_alive() {
  if (group_gone_ || info_.pgid <= 0) return false;
  if (::kill(-info_.pgid, 0) == 0) return true;
  if (errno == ESRCH) group_gone_ = true;
  return false;
}

void Process::signal_group(int signal) {
  if (group_alive()) ::kill(-info_.pgid, signal);
}

void Process::kill_after(uint64_t grace_ms) {
  if (uv_is_closing(as_handle(&grace_))) return;
  if (uv_is_active(as_handle(&grace_)) && uv_timer_get_due_in(&grace_) <= grace_ms) return;
  uv_timer_start(&grace_, on_grace, grace_ms, 0);
}

void Process::on_grace(uv_timer_t* timer) {
  auto* self = static_cast<Process*>(timer->data);
  self->signal_group(SIGKILL);
  // After close() the grace timer outlives the other handles only to deliver this SIGKILL.
  if (self->state_ == State::Closing) uv_close(as_handle(timer), on_handle_closed);
}

bool Process::terminate(Status reason, uint64_t grace_ms) {
  if (state_ == State::Exited) {
    // The direct child is gone (a late cancel, or a leftover holds the pipes): its exit
    // decides the status; whatever is left in the group goes.
    finish();
    return false;
  }
  if (state_ != State::Running) return false;  // nothing started, or already finished
  if (stop_reason_ == Status::Running) stop_reason_ = reason;
  signal_group(SIGTERM);
  kill_after(grace_ms);
  return true;
}

void Process::hurry(uint64_t grace_ms) {
  if (state_ == State::Created || state_ == State::StartFailed) return;
  // Leftovers found later (when the job ends) get this grace too, not the longer one.
  kill_grace_ms_ = std::min(kill_grace_ms_, grace_ms);
  if (state_ == State::Running) {
    terminate(Status::Canceled, grace_ms);
    kill_after(grace_ms);  // a timeout's or cancel's longer grace may be running
    return;
  }
  // Exited, Finished or Closing. One that never spawned has no group (pgid 0) and no SIGKILL
  // pending, so nothing below applies to it.
  if (group_alive()) {
    ::kill(-info_.pgid, SIGTERM);
    kill_after(grace_ms);
  } else if (uv_is_active(as_handle(&grace_))) {
    kill_after(0);  // nothing left to kill: let the timer fire and close now
  }
}

void Process::on_exit(uv_process_t* handle, int64_t exit_status, int term_signal) {
  auto* self = static_cast<Process*>(handle->data);
  self->move_to(State::Exited);
  self->info_.duration_s = static_cast<double>(uv_hrtime() - self->start_ns_) / 1e9;
  if (term_signal != 0) {
    self->info_.term_signal = term_signal;
  } else {
    self->info_.exit_code = static_cast<int>(exit_status);
  }
  uv_timer_stop(&self->deadline_);
  uv_timer_start(
      &self->deadline_, [](uv_timer_t* timer) { static_cast<Process*>(timer->data)->finish(); },
      kLingerAfterExitMs, 0);
  self->maybe_finish();
}

void Process::on_alloc(uv_handle_t* handle, size_t, uv_buf_t* buf) {
  auto* self = static_cast<Process*>(handle->data);
  *buf = uv_buf_init(self->read_buffer_, sizeof self->read_buffer_);
}

void Process::on_read(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
  auto* self = static_cast<Process*>(stream->data);
  Stream which =
      stream == reinterpret_cast<uv_stream_t*>(&self->out_) ? Stream::Stdout : Stream::Stderr;
  if (nread > 0) {
    if (static_cast<size_t>(nread) == sizeof self->read_buffer_) self->enlarge_pipe(*stream);
    std::string_view data(buf->base, static_cast<size_t>(nread));
    (which == Stream::Stdout ? self->info_.out : self->info_.err).append(data);
    if (self->events_.output) self->events_.output(which, data);
    return;
  }
  if (nread < 0) {  // EOF or error: this stream is done
    self->close_pipe(which == Stream::Stdout ? self->out_ : self->err_);
    self->maybe_finish();
  }
}

void Process::enlarge_pipe(uv_stream_t& stream) {
  // Only for a stream that fills our whole buffer (a flood): pipe buffers count against a
  // per-user limit (pipe-user-pages-soft), past which every new pipe of the user gets one page.
  bool& done = &stream == reinterpret_cast<uv_stream_t*>(&out_) ? out_enlarged_ : err_enlarged_;
  if (done) return;
  done = true;
  uv_os_fd_t fd;
  if (uv_fileno(reinterpret_cast<uv_handle_t*>(&stream), &fd) == 0) {
    ::fcntl(fd, F_SETPIPE_SZ, kPipeBytes);
  }
}

void Process::close_pipe(uv_pipe_t& pipe) {
  if (uv_is_closing(as_handle(&pipe))) return;
  uv_read_stop(reinterpret_cast<uv_stream_t*>(&pipe));
  uv_close(as_handle(&pipe), on_handle_closed);
}

bool Process::pipes_closed() {
  return uv_is_closing(as_handle(&out_)) && uv_is_closing(as_handle(&err_));
}

void Process::maybe_finish() {
  if (state_ == State::Exited && pipes_closed()) finish();
}

void Process::finish() {
  if (state_ != State::StartFailed && state_ != State::Exited) return;
  const bool spawned = state_ == State::Exited;
  move_to(State::Finished);
  uv_timer_stop(&deadline_);
  close_pipe(out_);
  close_pipe(err_);
  // Leftover grandchildren (still holding the pipes, or detached from them) go too.
  if (spawned && group_alive()) {
    ::kill(-info_.pgid, SIGTERM);
    kill_after(kill_grace_ms_);
  }
  if (!spawned) {
    info_.status = Status::Failed;
  } else if (stop_reason_ != Status::Running) {
    info_.status = stop_reason_;
  } else if (info_.exit_code &&
             std::find(info_.spec.ok_exit_codes.begin(), info_.spec.ok_exit_codes.end(),
                       *info_.exit_code) != info_.spec.ok_exit_codes.end()) {
    info_.status = Status::Succeeded;
  } else {
    info_.status = Status::Failed;
  }
  if (events_.finished) events_.finished();
}

void Process::close() {
  if (state_ == State::Closing) return;
  move_to(State::Closing);
  for (uv_handle_t* handle : {as_handle(&out_), as_handle(&err_), as_handle(&deadline_)}) {
    if (!uv_is_closing(handle)) uv_close(handle, on_handle_closed);
  }
  // The grace timer may still have a SIGKILL to deliver to leftovers: it closes itself after
  // firing (on_grace), or now when idle.
  if (!uv_is_active(as_handle(&grace_)) && !uv_is_closing(as_handle(&grace_))) {
    uv_close(as_handle(&grace_), on_handle_closed);
  }
  if (process_.loop && !uv_is_closing(as_handle(&process_))) {
    uv_close(as_handle(&process_), on_handle_closed);
  }
}

void Process::move_to(State next) {
  bool allowed = false;
  switch (next) {
    case State::Created: break;
    case State::StartFailed:
    case State::Running: allowed = state_ == State::Created; break;
    case State::Exited: allowed = state_ == State::Running; break;
    case State::Finished: allowed = state_ == State::StartFailed || state_ == State::Exited; break;
    case State::Closing: allowed = state_ != State::Closing; break;
  }
  assert(allowed && "Process: a transition not listed with State");
  (void)allowed;
  state_ = next;
}

void Process::on_handle_closed(uv_handle_t* handle) {
  auto* self = static_cast<Process*>(handle->data);
  if (--self->handles_open_ != 0) return;
  // `closed` may destroy this Process, and with it events_: call a moved-out copy, and touch
  // nothing of *self afterwards. (Calling events_.closed in place ran the callback out of
  // freed memory once the owner reset its unique_ptr.)
  auto closed = std::move(self->events_.closed);
  if (closed) closed();
}

}  // namespace toolhost::jobs
