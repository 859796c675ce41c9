#include "jobs/process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <memory>
#include <unordered_map>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

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

int pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}

// pidfd_open (5.3) and waitid(P_PIDFD) (5.4): our own pid's pidfd is no child of ours, so a
// kernel that knows P_PIDFD answers ECHILD, one that does not EINVAL.
Reaping probe_reaping() {
  int fd = pidfd_open(::getpid());
  if (fd < 0) return Reaping::Sigchld;
  siginfo_t info{};
  int rc =
      ::waitid(static_cast<idtype_t>(P_PIDFD), static_cast<id_t>(fd), &info, WEXITED | WNOHANG);
  const bool ok = rc < 0 && errno == ECHILD;
  ::close(fd);
  return ok ? Reaping::Pidfd : Reaping::Sigchld;
}

Reaping& reaping_mode() {
  static Reaping mode = probe_reaping();
  return mode;
}

// A CLOEXEC pipe whose ends are not 0, 1 or 2 (a dup2 onto itself would keep FD_CLOEXEC).
int make_pipe(int fds[2]) {
  if (::pipe2(fds, O_CLOEXEC) != 0) return errno;
  for (int i = 0; i < 2; ++i) {
    if (fds[i] > 2) continue;
    int moved = ::fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
    int error = errno;
    ::close(fds[i]);
    fds[i] = moved;
    if (moved < 0) {
      ::close(fds[1 - i]);
      fds[1 - i] = -1;
      return error;
    }
  }
  return 0;
}

const char* find_entry(const std::vector<std::string>& environment, std::string_view key) {
  for (const auto& entry : environment) {
    if (entry.size() > key.size() && entry.compare(0, key.size(), key) == 0 &&
        entry[key.size()] == '=') {
      return entry.c_str() + key.size() + 1;
    }
  }
  return nullptr;
}

// execvp's search, over the job's PATH (not the host's): the first executable regular file;
// ENOENT when none, EACCES when only non-executable ones were found. Relative entries (and an
// empty one, "the current directory") are relative to the job's cwd.
int search_path(const std::string& file, const std::vector<std::string>& environment,
                const std::string& cwd, std::string& found) {
  if (file.find('/') != std::string::npos) {
    found = file;  // posix_spawn resolves it after the chdir, as execve would
    return 0;
  }
  if (file.empty()) return ENOENT;
  const char* path = find_entry(environment, "PATH");
  std::string_view dirs = path ? path : "/bin:/usr/bin";
  int error = ENOENT;
  while (true) {
    size_t colon = dirs.find(':');
    std::string_view dir = dirs.substr(0, colon);
    std::string candidate;
    if (dir.empty() || dir.front() != '/') {
      if (!cwd.empty()) candidate = cwd + "/";
    }
    if (!dir.empty()) candidate.append(dir).append("/");
    candidate += file;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      if (::access(candidate.c_str(), X_OK) == 0) {
        found = std::move(candidate);
        return 0;
      }
      error = EACCES;
    }
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return error;
}

// Lowers the priority of the new process group (SPEC 9, P1: a flood of jobs must not slow the
// editor): `nice` above the host's own. posix_spawn has no attribute for it, so this follows the
// spawn, which returns once the child has exec'd; a process the job forks before this call is
// in the group too, and is covered. Failure (a job that already exited) changes nothing.
void lower_priority(pid_t pgid, int nice) {
  if (nice <= 0) return;
  errno = 0;
  const int own = ::getpriority(PRIO_PROCESS, 0);
  if (errno != 0) return;
  ::setpriority(PRIO_PGRP, static_cast<id_t>(pgid), std::min(own + nice, 19));
}

}  // namespace

Reaping reaping() {
  return reaping_mode();
}

void set_reaping_for_testing(Reaping reaping) {
  reaping_mode() = reaping;
}

// The fallback without pidfds: one SIGCHLD watcher per loop, with the pids of that loop's
// running children; each SIGCHLD reaps those that exited, by pid (never waitpid(-1): other
// code in the process may wait for its own children). It exists while it has children, so a
// loop with none has no handle of it open.
class SigchldReaper {
 public:
  static SigchldReaper& of(uv_loop_t* loop) {
    SigchldReaper*& reaper = reapers()[loop];
    if (!reaper) reaper = new SigchldReaper(loop);
    return *reaper;
  }
  static SigchldReaper* find(uv_loop_t* loop) {
    auto it = reapers().find(loop);
    return it == reapers().end() ? nullptr : it->second;
  }

  void add(pid_t pid, Process* process) { children_[pid] = process; }
  void remove(pid_t pid) {
    children_.erase(pid);
    release_if_idle();
  }
  // Closes the watcher once it has no children (it is created before a spawn, so that no
  // SIGCHLD can come before it listens, and a failed spawn leaves it empty).
  void release_if_idle() {
    if (!children_.empty() || closing_) return;
    closing_ = true;
    reapers().erase(loop_);
    uv_close(as_handle(&signal_),
             [](uv_handle_t* handle) { delete static_cast<SigchldReaper*>(handle->data); });
  }

 private:
  explicit SigchldReaper(uv_loop_t* loop) : loop_(loop) {
    uv_signal_init(loop, &signal_);
    signal_.data = this;
    uv_signal_start(&signal_, on_signal, SIGCHLD);
  }
  static std::unordered_map<uv_loop_t*, SigchldReaper*>& reapers() {
    static std::unordered_map<uv_loop_t*, SigchldReaper*> map;
    return map;
  }

  static void on_signal(uv_signal_t* handle, int) {
    auto* self = static_cast<SigchldReaper*>(handle->data);
    std::vector<std::pair<Process*, int>> reaped;
    for (auto it = self->children_.begin(); it != self->children_.end();) {
      int status = 0;
      pid_t rc = ::waitpid(it->first, &status, WNOHANG);
      if (rc == 0 || (rc < 0 && errno == EINTR)) {
        ++it;
        continue;
      }
      reaped.emplace_back(it->second, rc == it->first ? status : -1);
      it = self->children_.erase(it);
    }
    // The callbacks may add children (a sequence's next step) to this watcher or, once it
    // closed, to a new one; this one is deleted from its close callback, not before.
    for (auto& [process, status] : reaped) {
      process->in_reaper_ = false;
      process->exited(status);
    }
    self->release_if_idle();
  }

  uv_loop_t* loop_;
  uv_signal_t signal_{};
  std::unordered_map<pid_t, Process*> children_;
  bool closing_ = false;
};
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
  if (pidfd_ >= 0) ::close(pidfd_);
  if (in_reaper_) {
    if (SigchldReaper* reaper = SigchldReaper::find(loop_)) reaper->remove(info_.pid);
  }
}

int Process::spawn(const std::vector<std::string>& environment, int out_fd, int err_fd) {
  const auto& args = info_.spec.argv;
  std::string path;
  if (int error = search_path(args[0], environment, info_.spec.cwd, path)) return error;
  std::vector<char*> argv;
  for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> env;
  for (const auto& entry : environment) env.push_back(const_cast<char*>(entry.c_str()));
  env.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
  if (!info_.spec.cwd.empty()) {
    posix_spawn_file_actions_addchdir_np(&actions, info_.spec.cwd.c_str());
  }
  // Every other fd of the host is O_CLOEXEC (libuv's, the pipes', the logs').
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // SETSID (as libuv's UV_PROCESS_DETACHED did): a new session and process group whose id is
  // the child's pid, so kill(-pgid) reaches every descendant that does not setsid itself, a
  // terminal's ^C does not reach the job, and it has no controlling terminal to stop on
  // (SIGTTIN) or to prompt on (ssh, sudo read /dev/tty).
  // SETSIGMASK + SETSIGDEF: no blocked signal and no ignored one (the host ignores SIGPIPE)
  // is inherited, as libuv's child reset them all.
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  int error = ::posix_spawn(&pid, path.c_str(), &actions, &attr, argv.data(), env.data());
  if (error == ENOEXEC) {
    // execvp's rule for a script without #!: /bin/sh runs it.
    argv.insert(argv.begin(), const_cast<char*>("/bin/sh"));
    argv[1] = const_cast<char*>(path.c_str());
    error = ::posix_spawn(&pid, "/bin/sh", &actions, &attr, argv.data(), env.data());
  }
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) return error;
  info_.pid = pid;
  lower_priority(pid, info_.spec.nice);
  return 0;
}

bool Process::start(const std::vector<std::string>& environment) {
  start_ns_ = uv_hrtime();
  info_.started_at_ms = wall_clock_ms();
  int error = 0;
  int out[2] = {-1, -1};
  int err[2] = {-1, -1};
  const Reaping mode = reaping_mode();
  SigchldReaper* reaper = nullptr;
  if (info_.spec.argv.empty()) {
    info_.error = "empty command";
  } else if ((error = make_pipe(out)) != 0 || (error = make_pipe(err)) != 0) {
    info_.error = std::string("cannot start `") + info_.spec.argv[0] +
                  "`: cannot create a pipe: " + std::strerror(error);
  } else {
    // Listens before the child exists: its SIGCHLD cannot come too early.
    if (mode == Reaping::Sigchld) reaper = &SigchldReaper::of(loop_);
    error = spawn(environment, out[1], err[1]);
    if (error != 0) {
      info_.error =
          std::string("cannot start `") + info_.spec.argv[0] + "`: " + uv_strerror(-error);
    }
  }
  // The child has its copies (or none was made).
  for (int fd : {out[1], err[1]}) {
    if (fd >= 0) ::close(fd);
  }
  if (info_.pid > 0) {
    if (mode == Reaping::Pidfd) {
      pidfd_ = pidfd_open(info_.pid);
      if (pidfd_ >= 0 && uv_poll_init(loop_, &exit_watch_, pidfd_) == 0) {
        exit_watch_.data = this;
        exit_watch_open_ = true;
        ++handles_open_;
        uv_poll_start(&exit_watch_, UV_READABLE, on_pidfd);
      } else {
        // Cannot happen short of running out of fds: a blocking reap keeps the job engine's
        // contract (the child will exit; it is SIGKILLed first).
        ::kill(-info_.pid, SIGKILL);
        int status;
        while (::waitpid(info_.pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (pidfd_ >= 0) ::close(pidfd_);
        pidfd_ = -1;
        info_.pid = 0;
        info_.error = std::string("cannot start `") + info_.spec.argv[0] +
                      "`: cannot watch the process: " + std::strerror(errno);
      }
    } else {
      reaper->add(info_.pid, this);
      in_reaper_ = true;
    }
  }
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
  siginfo_t info{};
  int rc = ::waitid(static_cast<idtype_t>(P_PIDFD), static_cast<id_t>(self->pidfd_), &info,
                    WEXITED | WNOHANG);
  if (rc == 0 && info.si_pid == 0) return;  // not yet (a spurious wake-up)
  if (rc < 0 && errno == EINTR) return;     // readable still: the loop comes back
  int status = -1;
  if (rc == 0) {
    status = info.si_code == CLD_EXITED ? W_EXITCODE(info.si_status, 0) : info.si_status;
  }
  // One exit per child: the watch goes now (the fd after libuv dropped it from epoll).
  uv_close(as_handle(handle), on_handle_closed);
  ::close(self->pidfd_);
  self->pidfd_ = -1;
  self->exited(status);
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
