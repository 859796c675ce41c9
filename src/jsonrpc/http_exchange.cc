#include "jsonrpc/http_exchange.h"

#include <algorithm>
#include <cctype>

namespace toolhost::jsonrpc {
namespace {

// Enough of an error page to say what went wrong; the rest is not read.
constexpr size_t kErrorBodyBytes = 4096;

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

// One printable line of at most `limit` bytes.
std::string one_line(std::string_view text, size_t limit = 200) {
  std::string out;
  for (char c : trim(text)) {
    if (out.size() >= limit) return out + "...";
    unsigned char u = static_cast<unsigned char>(c);
    out.push_back(u < 0x20 || u == 0x7f ? ' ' : c);
  }
  return out;
}

bool is_response_to(std::string_view text, const Json& id) {
  auto json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || json.contains("method")) return false;
  auto it = json.find("id");
  return it != json.end() && *it == id;
}

}  // namespace

HttpExchange::HttpExchange(Request request, Json request_id)
    : kind(request.kind),
      request_id(std::move(request_id)),
      carried_session(!request.session.empty()),
      request_(std::move(request)) {}

HttpExchange::~HttpExchange() {
  if (easy_) curl().easy_cleanup(easy_);
  if (header_list_) curl().slist_free_all(header_list_);
}

CURL* HttpExchange::prepare(std::string& why) {
  easy_ = curl().easy_init();
  if (!easy_) {
    why = "libcurl cannot start a transfer";
    return nullptr;
  }
  auto add = [this](const std::string& line) {
    header_list_ = curl().slist_append(header_list_, line.c_str());
  };
  for (const auto& [name, value] : request_.headers) add(name + ": " + value);
  if (!request_.session.empty()) add(request_.session_header + ": " + request_.session);
  if (!request_.last_event_id.empty()) add("Last-Event-ID: " + request_.last_event_id);
  if (!request_.authorization.empty()) add("Authorization: " + request_.authorization);
  CURL* e = easy_;
  curl().easy_setopt(e, CURLOPT_URL, request_.url.c_str());
  curl().easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl().easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
  curl().easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
#else
  curl().easy_setopt(e, CURLOPT_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
  curl().easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request_.connect_timeout_ms));
  if (request_.total_timeout_ms > 0) {
    curl().easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(request_.total_timeout_ms));
  }
  curl().easy_setopt(e, CURLOPT_ERRORBUFFER, error);
  curl().easy_setopt(e, CURLOPT_PRIVATE, this);
  curl().easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
  curl().easy_setopt(e, CURLOPT_HEADERDATA, this);
  curl().easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
  curl().easy_setopt(e, CURLOPT_WRITEDATA, this);
  switch (kind) {
    case Kind::kPost:
      add("Content-Type: application/json");
      add("Accept: application/json, text/event-stream");
      add("Expect:");  // no 100-continue round trip for a large message
      curl().easy_setopt(e, CURLOPT_POST, 1L);
      curl().easy_setopt(e, CURLOPT_POSTFIELDS, request_.body.data());
      curl().easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                         static_cast<curl_off_t>(request_.body.size()));
      break;
    case Kind::kResume:
    case Kind::kListen:
      add("Accept: text/event-stream");
      curl().easy_setopt(e, CURLOPT_HTTPGET, 1L);
      break;
    case Kind::kDelete: curl().easy_setopt(e, CURLOPT_CUSTOMREQUEST, "DELETE"); break;
  }
  curl().easy_setopt(e, CURLOPT_HTTPHEADER, header_list_);
  return e;
}

size_t HttpExchange::on_header(char* data, size_t size, size_t count, void* self) {
  static_cast<HttpExchange*>(self)->header(std::string_view(data, size * count));
  return size * count;
}

size_t HttpExchange::on_body(char* data, size_t size, size_t count, void* self) {
  bool go_on = static_cast<HttpExchange*>(self)->body(std::string_view(data, size * count));
  return go_on ? size * count : 0;
}

void HttpExchange::header(std::string_view line) {
  line = trim(line);
  if (line.rfind("HTTP/", 0) == 0) {  // a new response (after a 1xx): forget the last one's
    status_line = one_line(line);
    size_t space = line.find(' ');
    std::string_view code = space == std::string_view::npos ? "" : line.substr(space + 1, 3);
    status = code.size() == 3 && std::all_of(code.begin(), code.end(),
                                             [](char c) { return c >= '0' && c <= '9'; })
                 ? std::stol(std::string(code))
                 : 0;
    content_type.clear();
    location.clear();
    www_authenticate.clear();
    return;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return;
  std::string name = lower(trim(line.substr(0, colon)));
  std::string_view value = trim(line.substr(colon + 1));
  if (name == "content-type") {
    content_type = lower(value);
  } else if (name == "location") {
    location = one_line(value);
  } else if (name == "www-authenticate") {
    www_authenticate = one_line(value, 4000);
  } else if (!request_.session_header.empty() && name == lower(request_.session_header)) {
    // Visible ASCII only, as MCP requires: anything else could smuggle a header line.
    bool visible = !value.empty() && std::all_of(value.begin(), value.end(),
                                                 [](char c) { return c >= 0x21 && c <= 0x7e; });
    if (visible) session = std::string(value);
  }
}

void HttpExchange::decide_mode() {
  if (status < 200 || status >= 300) {
    mode = Mode::kOther;
  } else if (content_type.rfind("text/event-stream", 0) == 0) {
    mode = Mode::kSse;
    sse = std::make_unique<SseParser>(
        [this](const SseEvent& event) {
          got_event = true;
          if (!event.type.empty() && event.type != "message") return;
          emit(event.data);
        },
        [this](size_t cap) {
          if (on_oversized) on_oversized(cap);
        },
        request_.cap);
  } else if (content_type.find("json") != std::string::npos) {
    mode = Mode::kJson;
  } else {
    mode = Mode::kOther;
  }
}

bool HttpExchange::body(std::string_view bytes) {
  if (mode == Mode::kUnknown) decide_mode();
  switch (mode) {
    case Mode::kSse: {
      std::string before = sse->last_event_id();
      sse->feed(bytes);
      if (sse->last_event_id() != before) got_event = true;
      return true;
    }
    case Mode::kJson:
      if (buffer.size() + bytes.size() > request_.cap) {
        oversized = true;
        buffer.clear();
        buffer.shrink_to_fit();
        return false;  // the rest is never read
      }
      buffer.append(bytes.data(), bytes.size());
      return true;
    default:
      buffer.append(bytes.data(), std::min(bytes.size(), kErrorBodyBytes - buffer.size()));
      return buffer.size() < kErrorBodyBytes;
  }
}

void HttpExchange::emit(std::string_view text) {
  text = trim(text);
  if (text.empty()) return;  // MCP's priming event: an id and no message
  if (!request_id.is_null() && !answered && is_response_to(text, request_id)) answered = true;
  if (on_message) on_message(std::string(text));
}

std::string HttpExchange::describe_status() const {
  std::string text = status_line.empty() ? "HTTP " + std::to_string(status) : status_line;
  if (size_t space = text.find(' '); text.rfind("HTTP/", 0) == 0 && space != std::string::npos) {
    text = "HTTP " + text.substr(space + 1);  // "HTTP/1.1 500 Oops" -> "HTTP 500 Oops"
  }
  if (status >= 300 && status < 400) {
    return text + ": the server redirects" + (location.empty() ? "" : " to " + location) +
           "; toolhost does not follow redirects (set the server's url to the new address)";
  }
  // The body may be a JSON-RPC error without an id (MCP allows it): its message says most.
  auto json = Json::parse(buffer, nullptr, /*allow_exceptions=*/false);
  if (json.is_object() && json.contains("error") && json["error"].is_object()) {
    const Json& message = json["error"].value("message", Json());
    if (message.is_string()) return text + ": " + one_line(message.get<std::string>());
  }
  std::string body = one_line(buffer);
  return body.empty() ? text : text + ": " + body;
}

std::string HttpExchange::describe_failure(CURLcode result) const {
  if (oversized) {
    return "the server's answer is over " + std::to_string(request_.cap) + " bytes; dropped";
  }
  if (status != 0 && (status < 200 || status >= 300)) return describe_status();
  std::string why = error[0] != '\0' ? one_line(error) : curl().easy_strerror(result);
  if (status == 0) return "cannot reach " + request_.url + ": " + why;
  return "the transfer failed: " + why;
}

}  // namespace toolhost::jsonrpc
