#include "jobs/held_work.h"

#include "jobs/engine.h"

namespace toolhost::jobs {

HeldWorkRelease::HeldWorkRelease(uv_loop_t* loop, Engine& engine) : engine_(engine) {
  engine_.hold_history(true);
  uv_timer_init(loop, &timer_);
  timer_.data = this;
  uv_prepare_init(loop, &prepare_);
  prepare_.data = this;
  uv_prepare_start(&prepare_, [](uv_prepare_t* prepare) {
    auto* self = static_cast<HeldWorkRelease*>(prepare->data);
    if (!self->engine_.holds_work() ||
        uv_is_active(reinterpret_cast<uv_handle_t*>(&self->timer_))) {
      return;
    }
    uv_timer_start(
        &self->timer_,
        [](uv_timer_t* timer) {
          static_cast<HeldWorkRelease*>(timer->data)->engine_.release_held();
        },
        kDelayMs, 0);
  });
  uv_unref(reinterpret_cast<uv_handle_t*>(&prepare_));
}

void HeldWorkRelease::close() {
  uv_close(reinterpret_cast<uv_handle_t*>(&prepare_), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&timer_), nullptr);
}

}  // namespace toolhost::jobs
