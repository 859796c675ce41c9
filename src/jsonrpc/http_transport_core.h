#pragma once
// The HttpTransport's state: libcurl's multi handle on the libuv loop, the transfers, the
// resumptions waiting their `retry`, and the messages collected in libcurl's callbacks for
// delivery after libcurl returns. Private to http_transport*.cc: the policy (what a response
// means) is in http_transport.cc, the libcurl and libuv plumbing in http_transport_loop.cc.

#include <curl/curl.h>
#include <uv.h>

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "jsonrpc/http_exchange.h"
#include "jsonrpc/http_transport.h"

namespace toolhost::jsonrpc {

struct HttpDelivery {
  bool dropped = false;  // else a message
  std::string text;
};

struct HttpTransport::Core {
  using Kind = HttpExchange::Kind;
  struct Poll {
    uv_poll_t handle;
    Core* core;
    curl_socket_t socket;
  };
  // A dropped stream waiting its `retry` before the GET that resumes it.
  struct Wait {
    uv_timer_t handle;
    Core* core;
    Kind kind;
    Json request_id;
    std::string last_event_id;
    std::optional<uint64_t> retry_ms;
    int resumes;
  };

  // A request refused for want of sign-in, or sent while one runs: sent again after it.
  struct Held {
    Kind kind;
    std::string body;
    Json request_id;
    int auth_attempts;
  };

  Core(uv_loop_t* l, Options o) : loop(l), options(std::move(o)) {}

  uv_loop_t* loop;
  Options options;
  CURLM* multi = nullptr;
  uv_timer_t timer{};
  int open_handles = 0;
  int depth = 0;  // inside a callback of ours: the block stays
  bool open = false;
  bool closing = false;
  bool orphaned = false;  // the transport is gone
  bool released = false;  // curl cleaned up, handles closing
  bool listening = false;
  bool flushing = false;
  Handlers handlers;
  Headers extra;  // established()'s
  std::string session;
  std::map<HttpExchange*, std::unique_ptr<HttpExchange>> exchanges;
  std::set<Poll*> polls;
  std::set<Wait*> waits;
  std::deque<HttpDelivery> inbox;
  std::vector<Held> held;
  bool challenging = false;  // the authorizer is signing in
  // Lives as long as this block: an authorizer's answer after it is freed finds it expired.
  std::shared_ptr<int> life = std::make_shared<int>(0);

  // What a response means (http_transport.cc).
  void fail_request(const Json& id, const std::string& why);
  void start_exchange(Kind kind, std::string body, Json request_id, std::string last_event_id,
                      int resumes, std::optional<uint64_t> retry_ms, int auth_attempts = 0);
  // Sign-in (http_transport_auth.cc): a refusal the authorizer may answer; its answer.
  bool refused_for_sign_in(const HttpExchange& ended) const;
  void hold_for_sign_in(const HttpExchange& ended);
  void signed_in(const std::optional<std::string>& error);
  // A stream ended (cleanly or not) without the answer to its request.
  void stream_ended(const HttpExchange& ended, CURLcode result);
  void listen_ended(const HttpExchange& ended, CURLcode result);
  void finished(HttpExchange& ended, CURLcode result);
  void begin_close(const std::string& reason);
  // libcurl on libuv (http_transport_loop.cc).
  void schedule_resume(Kind kind, const HttpExchange& ended, int resumes);
  static void on_wait(uv_timer_t* handle);
  static void close_wait(Wait* wait);
  void collect_finished();
  // Delivers what libcurl's callbacks collected. Handlers may send, close, or destroy the
  // transport; a send() from inside one queues for this same loop.
  void flush();
  void action(curl_socket_t socket, int flags);
  static int on_socket(CURL*, curl_socket_t socket, int what, void* core_ptr, void* poll_ptr);
  void close_poll(Poll* poll);
  static int on_timer_set(CURLM*, long timeout_ms, void* core_ptr);
  static void on_timer(uv_timer_t* handle);
  void release_when_idle();
  void maybe_free();
};

}  // namespace toolhost::jsonrpc
