#include "jobs/process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <memory>
#include <optional>

#include "jobs/host_id.h"
#include "jobs/spawn.h"

namespace toolhost::jobs {
namespace {

// After the direct child exits, a grandchild may still hold the pipes open (`cmd &`).
// The job ends this long after the exit even so (SPEC 6).
constexpr uint64_t kLingerAfterExitMs = 500;
// A bigger pipe means fewer wake-ups per byte when a child floods its output.
constexpr int kPipeBytes = 1024 * 1024;
// A pipe's default capacity: a read that fills it means the child writes faster than we read.
constexpr size_t kDefaultPipeBytes = 64 * 1024;

// One read buffer for every Process on the thread: libuv reads into it and hands the bytes to
// on_read before it asks for a buffer again, and on_read copies them out (capture, log, tail).
// A flood is read up to a quarter of an enlarged pipe per call, and a Process is ~1 KB, not
// 64 KB more for a buffer of its own (1,000 jobs at once left the heap that much bigger).
char* read_buffer(size_t& size) {
  static thread_local std::unique_ptr<char[]> buffer;
  constexpr size_t kBytes = 256 * 1024;
  if (!buffer) buffer = std::make_unique<char[]>(kBytes);
  size = kBytes;
  return buffer.get();
}

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
}

Process::~Process() {
  reap_leader();
  if (in_reaper_) {
    if (SigchldReaper* reaper = SigchldReaper::find(loop_)) reaper->remove(info_.pid);
  }
}

bool Process::start(const std::vector<std::string>& environment) {
  start_ns_ = uv_hrtime();
  info_.started_at_ms = wall_clock_ms();
  int error = 0;
  int out[2] = {-1, -1};
  int err[2] = {-1, -1};
  SigchldReaper* reaper = nullptr;
  if (info_.spec.argv.empty()) {
    info_.error = "empty command";
  } else if ((error = make_pipe(out)) != 0 || (error = make_pipe(err)) != 0) {
    info_.error = std::string("cannot start `") + info_.spec.argv[0] +
                  "`: cannot create a pipe: " + std::strerror(error);
  } else {
    // Listens before the child exists: its SIGCHLD cannot come too early.
    if (reaping() == Reaping::Sigchld) reaper = &SigchldReaper::of(loop_);
    pid_t pid = 0;
    // A sandboxed job gets an environment of its own (sandboxed_run.h); the others the host's.
    std::string why;
    const std::vector<std::string>* env =
        info_.spec.sandbox ? sandboxed_.begin(info_, environment, why) : &environment;
    if (!env) info_.error = "cannot start `" + info_.spec.argv[0] + "` in the sandbox: " + why;
    info_.leader_start_min = boot_ticks();
    std::string step;
    if (env) error = spawn_process(info_.spec, *env, out[1], err[1], pid, -1, &step);
    info_.leader_start_max = boot_ticks();
    if (error != 0 && !step.empty()) {
      // The sandbox could not be set up as it must be: nothing ran, inside or outside it.
      info_.error = "cannot start `" + info_.spec.argv[0] + "` in the sandbox: " + step + ": " +
                    uv_strerror(-error);
    } else if (error != 0) {
      info_.error =
          std::string("cannot start `") + info_.spec.argv[0] + "`: " + uv_strerror(-error);
    } else if (env) {
      info_.pid = pid;
    }
  }
  // The child has its copies (or none was made).
  for (int fd : {out[1], err[1]}) {
    if (fd >= 0) ::close(fd);
  }
  if (info_.pid > 0 && !watch_exit(reaper)) info_.pid = 0;
  if (info_.pid > 0) {
    if (uv_pipe_open(&out_, out[0]) != 0) ::close(out[0]);
    if (uv_pipe_open(&err_, err[0]) != 0) ::close(err[0]);
  } else {
    for (int fd : {out[0], err[0]}) {
      if (fd >= 0) ::close(fd);
    }
    if (reaper) reaper->release_if_idle();
  }
  if (info_.pid <= 0) {
    info_.pid = 0;
    move_to(State::StartFailed);
    // Report the failure from the loop, so that no event fires inside the caller's submit().
    uv_timer_start(
        &deadline_, [](uv_timer_t* timer) { static_cast<Process*>(timer->data)->finish(); }, 0, 0);
    return false;
  }
  move_to(State::Running);
  info_.pgid = info_.pid;
  info_.status = Status::Running;
  for (uv_pipe_t* pipe : {&out_, &err_}) {
    uv_read_start(reinterpret_cast<uv_stream_t*>(pipe), on_alloc, on_read);
  }
  start_timeout();
  return true;
}

bool Process::watch_exit(SigchldReaper* reaper) {
  if (reaper) {
    reaper->add(info_.pid, [this](int status) {
      in_reaper_ = false;
      exited(status);
    });
    in_reaper_ = true;
    return true;
  }
  pidfd_ = pidfd_open(info_.pid);
  if (pidfd_ >= 0 && uv_poll_init(loop_, &exit_watch_, pidfd_) == 0) {
    exit_watch_.data = this;
    exit_watch_open_ = true;
    ++handles_open_;
    uv_poll_start(&exit_watch_, UV_READABLE, on_pidfd);
    return true;
  }
  // Cannot happen short of running out of fds: a blocking reap keeps the job engine's
  // contract (the child will exit; it is SIGKILLed first).
  const int error = errno;
  ::kill(-info_.pid, SIGKILL);
  int status;
  while (::waitpid(info_.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (pidfd_ >= 0) ::close(pidfd_);
  pidfd_ = -1;
  info_.error = std::string("cannot start `") + info_.spec.argv[0] +
                "`: cannot watch the process: " + std::strerror(error);
  return false;
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
  if (state_ == State::Closing && uv_is_active(as_handle(&grace_))) {
    kill_at_ms_ = std::min(kill_at_ms_, uv_now(loop_) + grace_ms);  // on_grace_closing's
    return;
  }
  if (uv_is_active(as_handle(&grace_)) && uv_timer_get_due_in(&grace_) <= grace_ms) return;
  uv_timer_start(&grace_, on_grace, grace_ms, 0);
}

void Process::on_grace(uv_timer_t* timer) {
  auto* self = static_cast<Process*>(timer->data);
  self->signal_group(SIGKILL);
  // After close() the grace timer outlives the other handles only to deliver this SIGKILL.
  if (self->state_ == State::Closing) uv_close(as_handle(timer), on_handle_closed);
}

void Process::on_grace_closing(uv_timer_t* timer) {
  auto* self = static_cast<Process*>(timer->data);
  if (self->group_alive()) {
    if (uv_now(self->loop_) < self->kill_at_ms_) return;
    ::kill(-self->info_.pgid, SIGKILL);
  }
  uv_timer_stop(timer);
  uv_close(as_handle(timer), on_handle_closed);
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
    // The host stops while the job runs: SPEC 4's `interrupted`, as Lua shows it.
    terminate(Status::Interrupted, grace_ms);
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

void Process::on_pidfd(uv_poll_t* handle, int, int) {
  auto* self = static_cast<Process*>(handle->data);
  std::optional<int> status = exit_status_pidfd(self->pidfd_);
  if (!status) return;  // still running, or interrupted: the fd stays readable
  // One exit per child: the watch goes now; the zombie is reaped by close() (reap_leader).
  uv_close(as_handle(handle), on_handle_closed);
  self->exited(*status);
}

void Process::reap_leader() {
  if (pidfd_ < 0) return;
  if (state_ != State::Running) reap_pidfd(pidfd_);  // a zombie by now, or reaped by someone
  ::close(pidfd_);
  pidfd_ = -1;
}

void Process::exited(int status) {
  move_to(State::Exited);
  info_.duration_s = static_cast<double>(uv_hrtime() - start_ns_) / 1e9;
  if (status < 0) {
    // Someone else reaped it: no status to report, and not a success.
    info_.exit_code = -1;
  } else if (WIFSIGNALED(status)) {
    info_.term_signal = WTERMSIG(status);
  } else {
    info_.exit_code = WEXITSTATUS(status);
  }
  uv_timer_stop(&deadline_);
  uv_timer_start(
      &deadline_, [](uv_timer_t* timer) { static_cast<Process*>(timer->data)->finish(); },
      kLingerAfterExitMs, 0);
  maybe_finish();
}

void Process::on_alloc(uv_handle_t*, size_t, uv_buf_t* buf) {
  size_t size = 0;
  char* base = read_buffer(size);
  *buf = uv_buf_init(base, static_cast<unsigned>(size));
}

void Process::on_read(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
  auto* self = static_cast<Process*>(stream->data);
  Stream which =
      stream == reinterpret_cast<uv_stream_t*>(&self->out_) ? Stream::Stdout : Stream::Stderr;
  if (nread > 0) {
    if (static_cast<size_t>(nread) >= kDefaultPipeBytes) self->enlarge_pipe(*stream);
    std::string_view data(buf->base, static_cast<size_t>(nread));
    (which == Stream::Stdout ? self->info_.out : self->info_.err).append(data);
    if (self->events_.output) self->events_.output(which, data);
    return;
  }
  if (nread < 0) {  // EOF or error: this stream is done
    self->stop_pipe(which == Stream::Stdout ? self->out_ : self->err_);
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

void Process::stop_pipe(uv_pipe_t& pipe) {
  bool& done = &pipe == &out_ ? out_done_ : err_done_;
  if (done) return;
  done = true;
  uv_read_stop(reinterpret_cast<uv_stream_t*>(&pipe));
}

bool Process::pipes_done() const {
  return out_done_ && err_done_;
}

void Process::maybe_finish() {
  if (state_ == State::Exited && pipes_done()) finish();
}

void Process::finish() {
  if (state_ != State::StartFailed && state_ != State::Exited) return;
  const bool spawned = state_ == State::Exited;
  move_to(State::Finished);
  uv_timer_stop(&deadline_);
  stop_pipe(out_);
  stop_pipe(err_);
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
  sandboxed_.end(info_);  // nothing unless begin() ran
  if (events_.finished) events_.finished();
}

void Process::close() {
  if (state_ == State::Closing) return;
  // The leader's zombie held its process group: only once it is reaped does kill(-pgid, 0) tell
  // whether grandchildren of a finished job are left (still holding the pipes, or detached from
  // them); they go too. A job that never spawned has no group (pgid 0).
  reap_leader();
  if (state_ == State::Finished && group_alive()) {
    ::kill(-info_.pgid, SIGTERM);
    kill_after(kill_grace_ms_);
  }
  move_to(State::Closing);
  for (uv_handle_t* handle : {as_handle(&out_), as_handle(&err_), as_handle(&deadline_)}) {
    if (!uv_is_closing(handle)) uv_close(handle, on_handle_closed);
  }
  // The grace timer may still have a SIGKILL to deliver to leftovers: it closes itself once the
  // group is gone or after firing, or now when idle.
  if (uv_is_closing(as_handle(&grace_))) return;
  if (!uv_is_active(as_handle(&grace_))) {
    uv_close(as_handle(&grace_), on_handle_closed);
    return;
  }
  kill_at_ms_ = uv_now(loop_) + uv_timer_get_due_in(&grace_);
  uv_timer_start(&grace_, on_grace_closing, 0, kGoneCheckMs);
  // (The exit watch closed itself when the child exited, before `finished`.)
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
