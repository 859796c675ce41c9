#pragma once
// A libuv loop for unit tests: run it until a condition holds, never sleep.
// A guard timer bounds every wait, so a broken test fails instead of hanging.

#include <gtest/gtest.h>
#include <uv.h>

#include <functional>

namespace toolhost::testing {

// Runs `loop` until `done()` holds; false if `timeout_ms` passed first. Every wake-up is a real
// event (I/O, a process exit, a timer): nothing sleeps. The condition is also checked before
// each turn waits for I/O (a prepare handle): one met in a timer's callback earlier in the turn
// stops the loop there instead of waiting for the next event (the guard, if none comes).
inline bool run_until(uv_loop_t* loop, const std::function<bool()>& done,
                      uint64_t timeout_ms = 10000) {
  if (done()) return true;
  bool expired = false;
  uv_timer_t guard;
  uv_timer_init(loop, &guard);
  guard.data = &expired;
  uv_timer_start(
      &guard, [](uv_timer_t* t) { *static_cast<bool*>(t->data) = true; }, timeout_ms, 0);
  uv_prepare_t before_wait;
  uv_prepare_init(loop, &before_wait);
  before_wait.data = const_cast<std::function<bool()>*>(&done);
  uv_prepare_start(&before_wait, [](uv_prepare_t* p) {
    if ((*static_cast<const std::function<bool()>*>(p->data))()) uv_stop(p->loop);
  });
  while (!done() && !expired) uv_run(loop, UV_RUN_ONCE);
  uv_close(reinterpret_cast<uv_handle_t*>(&guard), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&before_wait), nullptr);
  uv_run(loop, UV_RUN_NOWAIT);  // the close callbacks, before the handles go out of scope
  return done();
}

class TestLoop {
 public:
  TestLoop() { uv_loop_init(&loop_); }
  ~TestLoop() {
    drain();
    EXPECT_EQ(uv_loop_close(&loop_), 0) << "a libuv handle was left open";
  }
  TestLoop(const TestLoop&) = delete;
  TestLoop& operator=(const TestLoop&) = delete;

  uv_loop_t* get() { return &loop_; }

  // Runs loop iterations until `done()` is true; false if `timeout_ms` passed first.
  bool run_until(const std::function<bool()>& done, uint64_t timeout_ms = 5000) {
    return ::toolhost::testing::run_until(&loop_, done, timeout_ms);
  }

  // One loop iteration that handles what is ready now, without waiting.
  void poll() { uv_run(&loop_, UV_RUN_NOWAIT); }

  // Lets closing handles finish.
  void drain() {
    for (int i = 0; i < 100 && uv_loop_alive(&loop_); ++i) uv_run(&loop_, UV_RUN_NOWAIT);
  }

 private:
  uv_loop_t loop_;
};

}  // namespace toolhost::testing
