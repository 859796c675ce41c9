#pragma once
// How the exit of a job's child is seen. Normally through a pidfd polled by the loop: one
// readable fd per child, reaped by its pid, instead of libuv's SIGCHLD handler that calls
// waitpid() once per live process handle on every SIGCHLD. Where the kernel has no pidfd
// (before Linux 5.4) one SIGCHLD watcher per loop reaps the children of that loop by pid.
// The Process that owns a child's handles (its pidfd watch among them) is in process.h.

#include <sys/types.h>
#include <uv.h>

#include <functional>
#include <optional>
#include <unordered_map>

namespace toolhost::jobs {

// How a child's exit is seen: a pidfd (Linux >= 5.4) or the SIGCHLD fallback.
enum class Reaping { Pidfd, Sigchld };
Reaping reaping();
// Tests run the fallback on a kernel that has pidfds; takes effect for later spawns.
void set_reaping_for_testing(Reaping reaping);

// A pidfd for process `pid`; -1 with errno set when there is none.
int pidfd_open(pid_t pid);
// Reaps the child behind `pidfd` if it has exited: its wait status, or -1 when someone else
// reaped it. Nothing while it runs (a spurious wake-up) or when a signal interrupted the wait:
// the pidfd stays readable and the loop comes back.
std::optional<int> reap_pidfd(int pidfd);
// The same status, leaving the child a zombie to be reaped later (WNOWAIT): the reap frees the
// task, its /proc entries included, which cost 0.05–0.15 ms that the exit's feedback need not
// wait for (bench/NOTES-p2.md).
std::optional<int> exit_status_pidfd(int pidfd);

// The fallback without pidfds: one SIGCHLD watcher per loop, with the pids of that loop's
// running children; each SIGCHLD reaps those that exited, by pid (never waitpid(-1): other
// code in the process may wait for its own children). It exists while it has children, so a
// loop with none has no handle of it open; it owns its uv_signal_t and is deleted by that
// handle's close callback.
class SigchldReaper {
 public:
  // Called once, from the loop, with the wait status (-1: reaped by someone else).
  using Reaped = std::function<void(int status)>;

  // The loop's watcher, created (and listening) if it has none.
  static SigchldReaper& of(uv_loop_t* loop);
  static SigchldReaper* find(uv_loop_t* loop);

  void add(pid_t pid, Reaped reaped) { children_[pid] = std::move(reaped); }
  void remove(pid_t pid);
  // Closes the watcher once it has no children (it is created before a spawn, so that no
  // SIGCHLD can come before it listens, and a failed spawn leaves it empty).
  void release_if_idle();

 private:
  explicit SigchldReaper(uv_loop_t* loop);
  static std::unordered_map<uv_loop_t*, SigchldReaper*>& reapers();
  static void on_signal(uv_signal_t* handle, int signal);

  uv_loop_t* loop_;
  uv_signal_t signal_{};
  std::unordered_map<pid_t, Reaped> children_;
  bool closing_ = false;
};

}  // namespace toolhost::jobs
