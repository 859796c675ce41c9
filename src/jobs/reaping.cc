#include "jobs/reaping.h"

#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <utility>
#include <vector>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

namespace toolhost::jobs {
namespace {

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

}  // namespace

Reaping reaping() {
  return reaping_mode();
}

void set_reaping_for_testing(Reaping reaping) {
  reaping_mode() = reaping;
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

namespace {

std::optional<int> wait_pidfd(int pidfd, int flags) {
  siginfo_t info{};
  int rc = ::waitid(static_cast<idtype_t>(P_PIDFD), static_cast<id_t>(pidfd), &info,
                    WEXITED | WNOHANG | flags);
  if (rc == 0 && info.si_pid == 0) return std::nullopt;  // not yet
  if (rc < 0 && errno == EINTR) return std::nullopt;
  if (rc != 0) return -1;
  // waitid reports the exit code or the signal; waitpid's status packs either.
  return info.si_code == CLD_EXITED ? W_EXITCODE(info.si_status, 0) : info.si_status;
}

}  // namespace

std::optional<int> reap_pidfd(int pidfd) {
  return wait_pidfd(pidfd, 0);
}

std::optional<int> exit_status_pidfd(int pidfd) {
  return wait_pidfd(pidfd, WNOWAIT);
}

SigchldReaper::SigchldReaper(uv_loop_t* loop) : loop_(loop) {
  uv_signal_init(loop, &signal_);
  signal_.data = this;
  uv_signal_start(&signal_, on_signal, SIGCHLD);
}

std::unordered_map<uv_loop_t*, SigchldReaper*>& SigchldReaper::reapers() {
  static std::unordered_map<uv_loop_t*, SigchldReaper*> map;
  return map;
}

SigchldReaper& SigchldReaper::of(uv_loop_t* loop) {
  SigchldReaper*& reaper = reapers()[loop];
  if (!reaper) reaper = new SigchldReaper(loop);
  return *reaper;
}

SigchldReaper* SigchldReaper::find(uv_loop_t* loop) {
  auto it = reapers().find(loop);
  return it == reapers().end() ? nullptr : it->second;
}

void SigchldReaper::remove(pid_t pid) {
  children_.erase(pid);
  release_if_idle();
}

void SigchldReaper::release_if_idle() {
  if (!children_.empty() || closing_) return;
  closing_ = true;
  reapers().erase(loop_);
  uv_close(reinterpret_cast<uv_handle_t*>(&signal_),
           [](uv_handle_t* handle) { delete static_cast<SigchldReaper*>(handle->data); });
}

void SigchldReaper::on_signal(uv_signal_t* handle, int) {
  auto* self = static_cast<SigchldReaper*>(handle->data);
  std::vector<std::pair<Reaped, int>> reaped;
  for (auto it = self->children_.begin(); it != self->children_.end();) {
    int status = 0;
    pid_t rc = ::waitpid(it->first, &status, WNOHANG);
    if (rc == 0 || (rc < 0 && errno == EINTR)) {
      ++it;
      continue;
    }
    reaped.emplace_back(std::move(it->second), rc == it->first ? status : -1);
    it = self->children_.erase(it);
  }
  // The callbacks may add children (a sequence's next step) to this watcher or, once it
  // closed, to a new one; this one is deleted from its close callback, not before.
  for (auto& [callback, status] : reaped) callback(status);
  self->release_if_idle();
}

}  // namespace toolhost::jobs
