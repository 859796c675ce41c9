#include "session/timed_call.h"

#include <memory>

namespace toolhost::session {
namespace {

// Owned by its timer handle until the handle is closed; the editor's reply holds a shared
// pointer, so whichever comes second finds `reply` gone.
struct Pending {
  uv_timer_t timer{};
  tools::Editor::Reply reply;

  void answer(core::Result<nlohmann::json> result) {
    if (!reply) return;
    tools::Editor::Reply once = std::move(reply);
    reply = nullptr;
    uv_timer_stop(&timer);
    uv_close(reinterpret_cast<uv_handle_t*>(&timer), [](uv_handle_t* handle) {
      delete static_cast<std::shared_ptr<Pending>*>(handle->data);
    });
    once(std::move(result));
  }
};

}  // namespace

void timed_call(uv_loop_t* loop, tools::Editor& editor, const std::string& op, nlohmann::json args,
                uint64_t timeout_ms, tools::Editor::Reply reply) {
  auto pending = std::make_shared<Pending>();
  pending->reply = std::move(reply);
  uv_timer_init(loop, &pending->timer);
  pending->timer.data = new std::shared_ptr<Pending>(pending);
  uv_timer_start(
      &pending->timer,
      [](uv_timer_t* timer) {
        auto self = *static_cast<std::shared_ptr<Pending>*>(timer->data);
        self->answer(core::error("no answer in time"));
      },
      timeout_ms, 0);
  editor.call(op, std::move(args), [pending](core::Result<nlohmann::json> result) {
    pending->answer(std::move(result));
  });
}

}  // namespace toolhost::session
