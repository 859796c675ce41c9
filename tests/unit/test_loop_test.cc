// The tests' own wait (test_loop.h's run_until): a condition met inside a timer's callback ends
// the wait in that loop turn. It used to be checked only after the turn's wait for I/O, which
// then lasted until the guard (McpOAuthFlow.ASignInThatTimesOut… took 30 s instead of 0.4 in
// most runs: its answer came from libcurl's 0 ms timer).
#include "test_loop.h"

namespace toolhost::testing {
namespace {

TEST(TestLoopWait, AConditionMetInATimersCallbackEndsTheWaitInThatTurn) {
  TestLoop loop;
  constexpr uint64_t kGuardMs = 30'000;
  // Started first, with the guard's timeout: it fires only if the wait ran into its guard.
  bool sentinel_fired = false;
  uv_timer_t sentinel;
  uv_timer_init(loop.get(), &sentinel);
  sentinel.data = &sentinel_fired;
  uv_timer_start(
      &sentinel, [](uv_timer_t* t) { *static_cast<bool*>(t->data) = true; }, kGuardMs, 0);
  bool met = false;
  uv_timer_t now;
  uv_timer_init(loop.get(), &now);
  now.data = &met;
  uv_timer_start(
      &now, [](uv_timer_t* t) { *static_cast<bool*>(t->data) = true; }, 0, 0);
  EXPECT_TRUE(loop.run_until([&] { return met; }, kGuardMs));
  EXPECT_FALSE(sentinel_fired) << "the wait lasted until its guard";
  uv_close(reinterpret_cast<uv_handle_t*>(&sentinel), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&now), nullptr);
  loop.drain();
}

}  // namespace
}  // namespace toolhost::testing
