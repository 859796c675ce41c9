#pragma once
// Releases what an Engine holds of its jobs' ends (Engine::hold_history: history lines, first
// outputs waiting for their file, the handles' closes) a moment after the loop turn that held
// them. A prepare handle (libuv runs prepare handles after idle ones, from which a job's
// feedback leaves) starts a timer: in between the loop sleeps, so that Neovim, woken by the
// feedback, runs at once, even on the core the host ran on (bench/NOTES-p2.md, P2). The timer
// is of 3 ms: libuv counts whole milliseconds, and 1 ms fired 0–1 ms later, while Neovim was
// still applying the feedback (0.5–1.1 ms after the exit); the host, woken on Neovim's core by
// the result's lines event, then did this work before Neovim could go on (0.1 ms of its 0.2).
#include <uv.h>

#include <cstdint>

namespace toolhost::jobs {

class Engine;

class HeldWorkRelease {
 public:
  static constexpr uint64_t kDelayMs = 3;

  // Puts `engine` in hold mode; both outlive this object's close().
  HeldWorkRelease(uv_loop_t* loop, Engine& engine);
  // Closes the handles (the engine's shutdown has released what it held).
  void close();

  HeldWorkRelease(const HeldWorkRelease&) = delete;
  HeldWorkRelease& operator=(const HeldWorkRelease&) = delete;

 private:
  Engine& engine_;
  uv_prepare_t prepare_{};  // unreferenced: keeps no loop alive
  uv_timer_t timer_{};      // referenced until it fired: the held work gets done
};

}  // namespace toolhost::jobs
