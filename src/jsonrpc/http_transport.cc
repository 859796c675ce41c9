#include "jsonrpc/http_transport.h"

#include <algorithm>
#include <cctype>

#include "jsonrpc/http_transport_core.h"

namespace toolhost::jsonrpc {
namespace {

// The DELETE that ends a session must not keep a closing host waiting.
constexpr uint64_t kDeleteTimeoutMs = 2'000;

bool same_name(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

void HttpTransport::Core::fail_request(const Json& id, const std::string& why) {
  if (id.is_null()) {
    if (options.on_error) options.on_error(why);
    return;
  }
  inbox.push_back({false, encode(make_error(id, Error{code::kInternalError, why, nullptr}))});
  // Delivered from the loop, as the rest: a send() that failed at once gets no libcurl wake-up.
  if (!released) uv_timer_start(&timer, on_timer, 0, 0);
}

void HttpTransport::Core::start_exchange(HttpExchange::Kind kind, std::string body, Json request_id,
                                         std::string last_event_id, int resumes,
                                         std::optional<uint64_t> retry_ms, int auth_attempts) {
  HttpExchange::Request request;
  request.kind = kind;
  request.url = options.url;
  request.headers = options.headers;
  for (const auto& header : extra) {
    auto& list = request.headers;
    list.erase(std::remove_if(list.begin(), list.end(),
                              [&](const auto& h) { return same_name(h.first, header.first); }),
               list.end());
    list.push_back(header);
  }
  request.session_header = options.session_header;
  request.session = session;
  request.body = std::move(body);
  request.last_event_id = last_event_id;
  request.connect_timeout_ms = options.connect_timeout_ms;
  request.total_timeout_ms = kind == Kind::kDelete ? kDeleteTimeoutMs : 0;
  request.cap = options.max_message;
  if (options.authorizer && kind != Kind::kDelete) {
    request.authorization = options.authorizer->authorization();
  }
  auto owned = std::make_unique<HttpExchange>(std::move(request), std::move(request_id));
  HttpExchange* exchange = owned.get();
  exchange->resumed_from = std::move(last_event_id);
  exchange->inherited_retry_ms = retry_ms;
  exchange->resumes = resumes;
  exchange->auth_attempts = auth_attempts;
  exchange->on_message = [this, exchange](std::string text) {
    // The answer to initialize names the session: what follows it must carry it.
    if (!exchange->session.empty()) session = exchange->session;
    inbox.push_back({false, std::move(text)});
  };
  exchange->on_oversized = [this](size_t cap) {
    inbox.push_back({true, "a message over " + std::to_string(cap) + " bytes was dropped"});
  };
  std::string why;
  CURL* easy = exchange->prepare(why);
  if (easy && curl().multi_add_handle(multi, easy) != CURLM_OK) why = "libcurl refused a transfer";
  if (!why.empty()) return fail_request(exchange->request_id, why);
  exchanges[exchange] = std::move(owned);
}

void HttpTransport::Core::stream_ended(const HttpExchange& ended, CURLcode result) {
  int resumes = ended.got_event ? 0 : ended.resumes + 1;
  if (!ended.resume_from().empty() && resumes <= options.max_resumes) {
    return schedule_resume(Kind::kResume, ended, resumes);
  }
  std::string why = "the server's event stream ended before the answer";
  if (result != CURLE_OK) why += " (" + ended.describe_failure(result) + ")";
  if (ended.resume_from().empty()) {
    why += "; it named no event id to resume from";
  } else {
    why += "; " + std::to_string(options.max_resumes) + " resumptions brought nothing";
  }
  fail_request(ended.request_id, why);
}

void HttpTransport::Core::listen_ended(const HttpExchange& ended, CURLcode result) {
  if (ended.status == 405) return;  // the server offers no such stream: nothing to listen to
  int resumes = ended.got_event ? 0 : ended.resumes + 1;
  if (ended.mode == HttpExchange::Mode::kSse && resumes <= options.max_resumes) {
    return schedule_resume(Kind::kListen, ended, resumes);
  }
  std::string why = ended.mode == HttpExchange::Mode::kSse ? "it keeps closing without an event"
                                                           : ended.describe_failure(result);
  if (options.on_error) options.on_error("stopped listening for the server's messages: " + why);
}

void HttpTransport::Core::finished(HttpExchange& ended, CURLcode result) {
  if (ended.kind == Kind::kDelete) return;
  if (!ended.session.empty()) session = ended.session;
  if (ended.status == 404 && ended.carried_session) {
    session.clear();  // over: no DELETE for it
    return begin_close("the server ended the session (HTTP 404 to " + options.session_header +
                       "); a new connection starts a new one");
  }
  if (refused_for_sign_in(ended)) return hold_for_sign_in(ended);
  if (ended.oversized) inbox.push_back({true, ended.describe_failure(result)});
  bool ok = result == CURLE_OK && ended.status >= 200 && ended.status < 300;
  if (ok && ended.mode == HttpExchange::Mode::kJson) ended.deliver_body();
  if (ended.kind == Kind::kListen) return listen_ended(ended, result);
  if (ended.request_id.is_null()) {
    if (!ok)
      fail_request(nullptr, "the server refused a message: " + ended.describe_failure(result));
    return;
  }
  if (ended.answered) return;
  if (ended.mode == HttpExchange::Mode::kSse) return stream_ended(ended, result);
  if (!ok || ended.mode == HttpExchange::Mode::kOther) {
    std::string why = ended.describe_failure(result);
    if (ok) why = "the server answered " + ended.content_type + ", not JSON or an event stream";
    return fail_request(ended.request_id, why);
  }
  fail_request(ended.request_id,
               "HTTP " + std::to_string(ended.status) + " without an answer to the request");
}

void HttpTransport::Core::flush() {
  if (flushing) return;
  flushing = true;
  while (!inbox.empty() && open) {
    HttpDelivery delivery = std::move(inbox.front());
    inbox.pop_front();
    // A copy is called: the handler may close the transport, which clears these.
    auto handler = delivery.dropped ? handlers.dropped : handlers.message;
    if (handler) handler(delivery.text);
  }
  flushing = false;
}

void HttpTransport::Core::begin_close(const std::string& reason) {
  if (closing) return;
  closing = true;
  bool was_open = open;
  open = false;
  inbox.clear();
  for (auto& [exchange, owned] : exchanges) curl().multi_remove_handle(multi, owned->easy());
  exchanges.clear();
  for (Wait* wait : waits) close_wait(wait);
  waits.clear();
  if (!session.empty() && !options.session_header.empty() && multi) {
    start_exchange(Kind::kDelete, "", nullptr, "", 0, std::nullopt);
  }
  drop_handlers_reporting_closed(handlers, was_open, reason);
}

std::unique_ptr<HttpTransport> HttpTransport::create(uv_loop_t* loop, Options options,
                                                     std::string& error) {
  std::string scheme = options.url.substr(0, options.url.find("://"));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (options.url.find("://") == std::string::npos || (scheme != "http" && scheme != "https")) {
    error = "not an http:// or https:// URL: " + options.url;
    return nullptr;
  }
  if (!load_curl(error)) return nullptr;
  CURLM* multi = curl().multi_init();
  if (!multi) {
    error = "libcurl cannot start";
    return nullptr;
  }
  auto* core = new Core(loop, std::move(options));
  core->multi = multi;
  curl().multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, Core::on_socket);
  curl().multi_setopt(multi, CURLMOPT_SOCKETDATA, core);
  curl().multi_setopt(multi, CURLMOPT_TIMERFUNCTION, Core::on_timer_set);
  curl().multi_setopt(multi, CURLMOPT_TIMERDATA, core);
  uv_timer_init(loop, &core->timer);
  core->timer.data = core;
  core->open_handles = 1;
  core->open = true;
  return std::unique_ptr<HttpTransport>(new HttpTransport(core));
}

HttpTransport::~HttpTransport() {
  core_->handlers = Handlers{};  // nothing may call back into a destroyed owner
  core_->begin_close("closed");
  core_->orphaned = true;
  core_->release_when_idle();  // else after the DELETE, at most 2 s on
  core_->maybe_free();
}

bool HttpTransport::start(Handlers handlers, std::string& error) {
  if (!core_->open) {
    error = "the connection is closed";
    return false;
  }
  core_->handlers = std::move(handlers);
  return true;
}

void HttpTransport::send(std::string text) {
  if (!core_->open) return;
  // A request's POST must be answered; a notification's or a response's only accepted.
  Json id;
  auto json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_object() && json.contains("method") && json.contains("id")) id = json["id"];
  if (core_->challenging) {  // waits for the sign-in, as the refused ones do
    core_->held.push_back({Core::Kind::kPost, std::move(text), std::move(id), 0});
    return;
  }
  core_->start_exchange(Core::Kind::kPost, std::move(text), std::move(id), "", 0, std::nullopt);
}

void HttpTransport::close(const std::string& reason) {
  core_->begin_close(reason);
}

bool HttpTransport::is_open() const {
  return core_->open;
}

void HttpTransport::established(const Headers& headers) {
  for (const auto& header : headers) {
    auto& extra = core_->extra;
    extra.erase(std::remove_if(extra.begin(), extra.end(),
                               [&](const auto& h) { return same_name(h.first, header.first); }),
                extra.end());
    extra.push_back(header);
  }
  if (!core_->open || !core_->options.listen || core_->listening) return;
  core_->listening = true;
  core_->start_exchange(Core::Kind::kListen, "", nullptr, "", 0, std::nullopt);
}

const std::string& HttpTransport::session() const {
  return core_->session;
}

size_t HttpTransport::active() const {
  return core_->exchanges.size() + core_->waits.size();
}

}  // namespace toolhost::jsonrpc
