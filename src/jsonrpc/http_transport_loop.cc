// libcurl's multi interface on the libuv loop, as curl's docs/examples/multi-uv.c: libcurl
// names the sockets to watch (uv_poll) and when to call it again (uv_timer); each wake-up is
// one curl_multi_socket_action, then the finished transfers and the collected messages are
// handled outside libcurl's callbacks.
#include "jsonrpc/http_transport_core.h"

namespace toolhost::jsonrpc {

void HttpTransport::Core::schedule_resume(HttpExchange::Kind kind, const HttpExchange& ended,
                                          int resumes) {
  auto* wait =
      new Wait{{}, this, kind, ended.request_id, ended.resume_from(), ended.retry_ms(), resumes};
  uv_timer_init(loop, &wait->handle);
  wait->handle.data = wait;
  ++open_handles;
  waits.insert(wait);
  uv_timer_start(&wait->handle, on_wait, wait->retry_ms.value_or(options.default_retry_ms), 0);
}

void HttpTransport::Core::on_wait(uv_timer_t* handle) {
  auto* wait = static_cast<Wait*>(handle->data);
  Core* core = wait->core;
  ++core->depth;
  core->waits.erase(wait);
  if (core->open) {
    core->start_exchange(wait->kind, "", wait->request_id, wait->last_event_id, wait->resumes,
                         wait->retry_ms);
  }
  close_wait(wait);
  core->flush();
  --core->depth;
  core->maybe_free();
}

void HttpTransport::Core::close_wait(Wait* wait) {
  uv_close(reinterpret_cast<uv_handle_t*>(&wait->handle), [](uv_handle_t* handle) {
    auto* done = static_cast<Wait*>(handle->data);
    Core* core = done->core;
    delete done;
    --core->open_handles;
    core->maybe_free();
  });
}

void HttpTransport::Core::collect_finished() {
  CURLMsg* message;
  int left = 0;
  while (multi && (message = curl().multi_info_read(multi, &left)) != nullptr) {
    if (message->msg != CURLMSG_DONE) continue;
    CURL* easy = message->easy_handle;
    CURLcode result = message->data.result;
    HttpExchange* exchange = nullptr;
    curl().easy_getinfo(easy, CURLINFO_PRIVATE, &exchange);
    curl().multi_remove_handle(multi, easy);
    if (exchange) exchange->read_status();  // a response without a body never set it
    auto it = exchanges.find(exchange);
    if (it == exchanges.end()) continue;
    std::unique_ptr<HttpExchange> owned = std::move(it->second);  // begin_close may clear all
    exchanges.erase(it);
    finished(*owned, result);
  }
  // A resumption that brought the answer has done its work; the server may keep it open.
  for (auto it = exchanges.begin(); it != exchanges.end();) {
    if (it->first->kind == Kind::kResume && it->first->answered) {
      curl().multi_remove_handle(multi, it->second->easy());
      it = exchanges.erase(it);
    } else {
      ++it;
    }
  }
  if (orphaned) release_when_idle();
}

void HttpTransport::Core::action(curl_socket_t socket, int flags) {
  ++depth;
  int running = 0;
  if (multi) curl().multi_socket_action(multi, socket, flags, &running);
  collect_finished();
  flush();
  --depth;
  maybe_free();
}

int HttpTransport::Core::on_socket(CURL*, curl_socket_t socket, int what, void* core_ptr,
                                   void* poll_ptr) {
  auto* core = static_cast<Core*>(core_ptr);
  auto* poll = static_cast<Poll*>(poll_ptr);
  if (what == CURL_POLL_REMOVE) {
    if (poll) {
      core->close_poll(poll);
      curl().multi_assign(core->multi, socket, nullptr);
    }
    return 0;
  }
  if (!poll) {
    poll = new Poll{{}, core, socket};
    if (uv_poll_init_socket(core->loop, &poll->handle, socket) != 0) {
      delete poll;
      return -1;
    }
    poll->handle.data = poll;
    ++core->open_handles;
    core->polls.insert(poll);
    curl().multi_assign(core->multi, socket, poll);
  }
  int events = 0;
  if (what & CURL_POLL_IN) events |= UV_READABLE;
  if (what & CURL_POLL_OUT) events |= UV_WRITABLE;
  uv_poll_start(&poll->handle, events, [](uv_poll_t* handle, int status, int ready) {
    auto* p = static_cast<Poll*>(handle->data);
    int flags = 0;
    if (status < 0) flags = CURL_CSELECT_ERR;
    if (ready & UV_READABLE) flags |= CURL_CSELECT_IN;
    if (ready & UV_WRITABLE) flags |= CURL_CSELECT_OUT;
    p->core->action(p->socket, flags);
  });
  return 0;
}

void HttpTransport::Core::close_poll(Poll* poll) {
  polls.erase(poll);
  uv_poll_stop(&poll->handle);
  uv_close(reinterpret_cast<uv_handle_t*>(&poll->handle), [](uv_handle_t* handle) {
    auto* done = static_cast<Poll*>(handle->data);
    Core* core = done->core;
    delete done;
    --core->open_handles;
    core->maybe_free();
  });
}

int HttpTransport::Core::on_timer_set(CURLM*, long timeout_ms, void* core_ptr) {
  auto* core = static_cast<Core*>(core_ptr);
  if (timeout_ms < 0) {
    uv_timer_stop(&core->timer);
  } else {  // 0 too runs from the loop: libcurl must not be called back into from here
    uv_timer_start(&core->timer, on_timer, static_cast<uint64_t>(timeout_ms), 0);
  }
  return 0;
}

void HttpTransport::Core::on_timer(uv_timer_t* handle) {
  static_cast<Core*>(handle->data)->action(CURL_SOCKET_TIMEOUT, 0);
}

void HttpTransport::Core::release_when_idle() {
  if (released || !exchanges.empty()) return;
  released = true;
  if (multi) curl().multi_cleanup(multi);
  multi = nullptr;
  for (Poll* poll : std::set<Poll*>(polls)) close_poll(poll);
  uv_timer_stop(&timer);
  uv_close(reinterpret_cast<uv_handle_t*>(&timer), [](uv_handle_t* handle) {
    Core* core = static_cast<Core*>(handle->data);
    --core->open_handles;
    core->maybe_free();
  });
}

void HttpTransport::Core::maybe_free() {
  if (orphaned && released && open_handles == 0 && depth == 0) delete this;
}

}  // namespace toolhost::jsonrpc
