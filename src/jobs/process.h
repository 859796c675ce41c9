#pragma once
// One child process in its own session and process group, with its stdout/stderr pipes and
// timers. A Process owns its libuv handles; it tells its owner `closed` from the last close
// callback, and only then may it be destroyed (the owner may destroy it inside `closed`).
//
// How the child is started (posix_spawn, the PATH search) is in spawn.h; how its exit is seen
// (a pidfd the Process polls, or the loop's SIGCHLD watcher) in reaping.h.

#include <uv.h>

#include <functional>
#include <string>
#include <vector>

#include "jobs/executor.h"
#include "jobs/reaping.h"
#include "jobs/sandboxed_run.h"
#include "jobs/types.h"

namespace toolhost::jobs {

// `finished` comes when the exit was seen and the pipes drained (or given up on); `closed` when
// every handle is closed.
class Process : public Executor {
 public:
  Process(uv_loop_t* loop, JobInfo& info, uint64_t kill_grace_ms, Events events);
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process() override;

  // Spawns. On failure sets info.error, returns false, and reports `finished` from the
  // next loop iteration (never from inside start()).
  bool start(const std::vector<std::string>& environment) override;
  // Cancel / timeout: SIGTERM to the group now, SIGKILL after `grace_ms` if the group is still
  // there; the job ends with status `reason`. Returns false (and changes no status) when the
  // direct child has already exited: its exit decides the status, leftovers are killed.
  bool terminate(Status reason, uint64_t grace_ms) override;
  // Shutdown: whatever is still in the group (running or left over after the job finished)
  // gets SIGTERM now and SIGKILL no later than `grace_ms` from now; a running job ends
  // `interrupted`.
  void hurry(uint64_t grace_ms) override;
  // After `finished`: closes the handles (a pending SIGKILL for leftovers is still delivered).
  void close() override;

 private:
  // Watches the spawned child's exit (its pidfd, or `reaper`); false when it cannot.
  bool watch_exit(SigchldReaper* reaper);
  static void on_pidfd(uv_poll_t* handle, int status, int events);
  // The direct child exited with wait status `status` (-1: reaped by someone else); with a
  // pidfd it stays a zombie until close() (reap_leader).
  void exited(int status);
  static void on_alloc(uv_handle_t* handle, size_t suggested, uv_buf_t* buf);
  static void on_read(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf);
  static void on_handle_closed(uv_handle_t* handle);
  static void on_grace(uv_timer_t* timer);

  // The lifecycle. Every change goes through move_to(); the only ones are
  //   Created -> Running      posix_spawn succeeded
  //   Created -> StartFailed  no spawn; `finished` comes from the next loop iteration
  //   Running -> Exited       the direct child exited (a zombie until close() with a pidfd);
  //                           its pipes may still be open
  //   StartFailed | Exited -> Finished   `finished` reported
  //   any -> Closing          close() (after Finished, as its contract says)
  enum class State { Created, StartFailed, Running, Exited, Finished, Closing };
  void move_to(State next);

  void start_timeout();
  // Both pipes are done: each stops being read at its stream's EOF (or at finish()), and is
  // closed by close(), which the engine may call a moment later (Engine::release_held: the
  // fd's close is not on the path from the exit to the job's feedback).
  bool pipes_done() const;
  void maybe_finish();
  void finish();
  // Signals the group only while it is the one we started: once kill(-pgid, 0) has failed the
  // group is gone for good and its number may belong to someone else.
  bool group_alive();
  void signal_group(int signal);
  void kill_after(uint64_t grace_ms);
  // After close() with a SIGKILL still due: the grace timer checks every kGoneCheckMs whether
  // the group is gone, and closes then instead of when the grace ends (the Process counts as
  // open until it does, and the engine's shutdown waits for it).
  static void on_grace_closing(uv_timer_t* timer);
  static constexpr uint64_t kGoneCheckMs = 10;
  void stop_pipe(uv_pipe_t& pipe);
  // Reaps the exited leader behind pidfd_ (its exit status was read with WNOWAIT) and closes
  // the pidfd.
  void reap_leader();
  void enlarge_pipe(uv_stream_t& stream);

  uv_loop_t* loop_;
  JobInfo& info_;
  SandboxedRun sandboxed_;  // used when info_.spec.sandbox is set
  uint64_t kill_grace_ms_;
  Events events_;
  uv_poll_t exit_watch_{};  // the child's pidfd, readable once it exited (Reaping::Pidfd)
  int pidfd_ = -1;
  bool exit_watch_open_ = false;
  bool in_reaper_ = false;  // registered with the loop's SIGCHLD watcher (Reaping::Sigchld)
  uv_pipe_t out_{};
  uv_pipe_t err_{};
  uv_timer_t deadline_{};    // the timeout while running; the linger wait after exit
  uv_timer_t grace_{};       // SIGKILL after SIGTERM
  uint64_t kill_at_ms_ = 0;  // closing: when the SIGKILL is due (uv_now)
  int handles_open_ = 0;
  State state_ = State::Created;
  // Outlives the job (leftovers are killed after it finished), so not part of State: once
  // kill(-pgid, 0) failed with ESRCH the group is gone for good.
  bool group_gone_ = false;
  bool out_done_ = false;
  bool err_done_ = false;
  bool out_enlarged_ = false;
  bool err_enlarged_ = false;
  Status stop_reason_ = Status::Running;  // TimedOut / Canceled once terminate() ran
  uint64_t start_ns_ = 0;
};

}  // namespace toolhost::jobs
