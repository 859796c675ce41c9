#pragma once
// One HTTP request of the HttpTransport and what its response says: the easy handle, the
// headers read back (status, content type, session, Location), and the body cut into messages
// (one JSON body, or SSE events) under the cap. Its callbacks only collect: the transport
// delivers after libcurl returns.

#include <curl/curl.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "jsonrpc/curl_api.h"
#include "jsonrpc/message.h"
#include "jsonrpc/sse_parser.h"
#include "jsonrpc/transport.h"

namespace toolhost::jsonrpc {

struct HttpExchange {
  enum class Kind { kPost, kResume, kListen, kDelete };
  enum class Mode { kUnknown, kJson, kSse, kOther };

  struct Request {
    Kind kind = Kind::kPost;
    std::string url;
    Transport::Headers headers;  // the configured ones, then established()'s
    std::string session_header;
    std::string session;        // "" for none
    std::string body;           // a POST's message
    std::string last_event_id;  // a resumption's
    uint64_t connect_timeout_ms = 10'000;
    uint64_t total_timeout_ms = 0;  // 0: none (streams live long)
    size_t cap = kMaxMessageBytes;
    std::string authorization;  // the Authorization header's value ("" for none)
  };

  HttpExchange(Request request, Json request_id);
  ~HttpExchange();
  HttpExchange(const HttpExchange&) = delete;
  HttpExchange& operator=(const HttpExchange&) = delete;

  // The easy handle, ready for curl_multi_add_handle; null (with `error`) when curl refused.
  CURL* prepare(std::string& why);
  CURL* easy() const { return easy_; }
  void read_status() {
    if (status == 0 && easy_) curl().easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &status);
  }

  // What libcurl's callbacks hand over, also callable without libcurl (the fuzzer): one header
  // line (the status line too), then body bytes; false from body() aborts the transfer.
  void header(std::string_view line);
  bool body(std::string_view bytes);

  // A JSON body, whole: its message goes out (after a transfer that completed).
  void deliver_body() { emit(buffer); }
  // Where a resumption starts: this stream's last event id, else the one it resumed from.
  std::string resume_from() const {
    return sse && !sse->last_event_id().empty() ? sse->last_event_id() : resumed_from;
  }
  std::optional<uint64_t> retry_ms() const {
    return sse && sse->retry_ms() ? sse->retry_ms() : inherited_retry_ms;
  }

  // What the request carried, to send it again after a sign-in (http_transport.h's authorizer).
  const std::string& body() const { return request_.body; }
  const std::string& authorization() const { return request_.authorization; }

  // After the transfer: why it failed in words, for a request's error reply (one line).
  std::string describe_failure(CURLcode result) const;
  // "HTTP 500 Internal Server Error", with what the body said when it said something.
  std::string describe_status() const;

  // Each message the body carries; each one dropped at the cap.
  std::function<void(std::string)> on_message;
  std::function<void(size_t cap)> on_oversized;

  Kind kind;
  Json request_id;  // the request this POST (or resumption) must answer; null for others
  bool carried_session;
  long status = 0;
  std::string status_line;
  std::string content_type;  // lower case
  std::string location;
  std::string www_authenticate;  // a 401's or 403's challenge
  int auth_attempts = 0;         // sign-ins this request has already waited for
  std::string session;  // the session header in the response
  Mode mode = Mode::kUnknown;
  std::string buffer;      // a JSON body, or the start of another one (for the error message)
  bool oversized = false;  // a JSON body passed the cap: the transfer was aborted
  bool answered = false;   // the response to request_id went by
  bool got_event = false;  // an SSE event or id arrived (a resumption made progress)
  std::unique_ptr<SseParser> sse;
  // Carried over from the stream a resumption continues.
  std::string resumed_from;
  std::optional<uint64_t> inherited_retry_ms;
  int resumes = 0;  // resumptions in a row that brought no new event
  char error[CURL_ERROR_SIZE] = {0};

 private:
  static size_t on_header(char* data, size_t size, size_t count, void* self);
  static size_t on_body(char* data, size_t size, size_t count, void* self);
  void decide_mode();
  void emit(std::string_view text);

  Request request_;
  CURL* easy_ = nullptr;
  curl_slist* header_list_ = nullptr;
};

}  // namespace toolhost::jsonrpc
