#include "mcp/client.h"

#include <algorithm>

#include "mcp/http_connection.h"
#include "mcp/protocol.h"

namespace toolhost::mcp {
namespace {

using jsonrpc::Error;
using jsonrpc::Message;
using jsonrpc::Reply;
namespace code = jsonrpc::code;

constexpr const char* kMetaVersion = "io.modelcontextprotocol/protocolVersion";
constexpr const char* kMetaClientInfo = "io.modelcontextprotocol/clientInfo";
constexpr const char* kMetaCapabilities = "io.modelcontextprotocol/clientCapabilities";

std::string describe(const Error& error) {
  return error.message.empty() ? "error " + std::to_string(error.code) : error.message;
}

std::string string_field(const Json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool speaks(const std::string& version) {
  const auto& versions = supported_versions();
  return std::find(versions.begin(), versions.end(), version) != versions.end();
}

std::string versions_spoken() {
  return std::string(latest_version()) + " back to " + supported_versions().back() + " and " +
         std::string(modern_version());
}

CallOutcome ended(CallOutcome::Status status, std::string text) {
  CallOutcome outcome;
  outcome.status = status;
  outcome.text = std::move(text);
  return outcome;
}

}  // namespace

Client::Client(uv_loop_t* loop, std::unique_ptr<jsonrpc::Transport> transport, Options options,
               Events events)
    : transport_(transport.get()),
      endpoint_(loop, std::move(transport)),
      options_(std::move(options)),
      events_(std::move(events)) {
  endpoint_.on_request(method::kPing,
                       [](const Message&, jsonrpc::Responder r) { r.result(Json::object()); });
  if (events_.elicit) {
    endpoint_.on_request(kElicitationCreate, [this](const Message& m, jsonrpc::Responder r) {
      elicit(m, std::move(r));
    });
  }
  endpoint_.on_notification(method::kProgress, [this](const Message& m) { progress(m); });
  endpoint_.on_notification(method::kLogMessage, [this](const Message& m) { log(m); });
  endpoint_.on_notification(method::kToolsListChanged, [this](const Message&) {
    if (auto changed = events_.tools_changed) changed();
  });
  endpoint_.on_closed([this](const std::string& reason) {
    connected_ = false;
    std::weak_ptr<bool> alive = alive_;
    if (auto closed = events_.closed) closed(reason);
    if (!alive.expired()) drop_unwanted();
  });
}

Client::~Client() {
  *alive_ = false;
  auto questions = std::move(questions_);
  questions_.clear();
  for (auto& [id, question] : questions) {
    for (auto& dropped : question.dropped) dropped();
  }
  auto calls = std::move(calls_);
  calls_.clear();
  for (auto& [id, call] : calls) {
    if (call.events.done)
      call.events.done(ended(CallOutcome::Status::kFailed, "the client closed"));
  }
}

bool Client::start(std::string& error) {
  return endpoint_.start(error);
}

Json Client::request(const std::string& method, Json params, jsonrpc::Endpoint::ReplyCallback done,
                     uint64_t timeout_ms) {
  jsonrpc::RequestOptions options;
  options.timeout_ms = timeout_ms;
  return endpoint_.request(method, with_meta(std::move(params)), std::move(done), options);
}

Json Client::with_meta(Json params) const {
  if (server_.era != Era::kModern) return params;
  if (!params.is_object()) params = Json::object();
  Json& meta = params["_meta"];
  if (!meta.is_object()) meta = Json::object();
  meta[kMetaVersion] = server_.protocol_version;
  meta[kMetaClientInfo] = {{"name", options_.name}, {"version", options_.version}};
  meta[kMetaCapabilities] = capabilities();
  return params;
}

Json Client::capabilities() const {
  Json capabilities = Json::object();
  if (events_.elicit) capabilities["elicitation"] = {{"form", Json::object()}};
  return capabilities;
}

void Client::elicit(const Message& message, jsonrpc::Responder responder) {
  std::string error;
  auto request = parse_elicitation(message.params, error, message.text);
  if (!request) return responder.error(Error{code::kInvalidParams, error, nullptr});
  // The server asks for one of the calls running now (the protocol names none): the answer is
  // still wanted while one of them runs, or, with none running, while the connection is open.
  std::vector<uint64_t> asking;
  for (const auto& [id, call] : calls_) asking.push_back(id);
  std::weak_ptr<bool> alive = alive_;
  request->still_wanted = [this, alive, responder, asking] {
    if (alive.expired() || responder.answered() || !endpoint_.is_open()) return false;
    return asking.empty() || std::any_of(asking.begin(), asking.end(),
                                         [this](uint64_t id) { return calls_.count(id) > 0; });
  };
  const uint64_t question = next_question_++;
  questions_[question].wanted = request->still_wanted;
  request->on_dropped = [this, alive, question](std::function<void()> dropped) {
    if (alive.expired()) return;
    if (auto it = questions_.find(question); it != questions_.end()) {
      it->second.dropped.push_back(std::move(dropped));
    }
  };
  events_.elicit(*request, [this, alive, question, responder](ElicitationAnswer answer) mutable {
    if (!alive.expired()) questions_.erase(question);
    if (!responder.answered()) responder.result(elicitation_result(answer));
  });
}

void Client::drop_unwanted() {
  std::vector<std::function<void()>> dropped;
  for (auto it = questions_.begin(); it != questions_.end();) {
    if (it->second.wanted()) {
      ++it;
      continue;
    }
    for (auto& hook : it->second.dropped) dropped.push_back(std::move(hook));
    it = questions_.erase(it);
  }
  for (auto& hook : dropped) hook();
}

void Client::connect(Done done) {
  if (!options_.discover_first) return initialize(done, true, "");
  std::weak_ptr<bool> alive = alive_;
  discover([this, alive, done](std::optional<std::string> not_modern) {
    if (!not_modern) return done(std::nullopt);
    if (alive.expired()) return done(*not_modern);  // "the client closed": nothing to fall back on
    initialize(done, false, *not_modern);
  });
}

void Client::initialize(const Done& done, bool then_discover, const std::string& probe_error) {
  Json params = {{"protocolVersion", latest_version()},
                 {"capabilities", capabilities()},
                 {"clientInfo", {{"name", options_.name}, {"version", options_.version}}}};
  std::weak_ptr<bool> alive = alive_;
  request(
      method::kInitialize, std::move(params),
      [this, alive, done, then_discover, probe_error](const Reply& reply) {
        if (alive.expired()) return done("the client closed");
        initialized(reply, done, then_discover, probe_error);
      },
      options_.startup_timeout_ms);
}

void Client::initialized(const Reply& reply, const Done& done, bool then_discover,
                         const std::string& probe_error) {
  if (reply.error) {
    const Error& error = *reply.error;
    if (!reply.from_peer && error.code == code::kRequestTimeout) {
      return done("the server did not answer initialize within " +
                  std::to_string(options_.startup_timeout_ms) + " ms");
    }
    if (!reply.from_peer && error.code == code::kConnectionClosed) return done(describe(error));
    std::string failed = "initialize failed: " + describe(error);
    if (!then_discover) return done(failed + (probe_error.empty() ? "" : "; " + probe_error));
    // A modern server knows no initialize.
    return discover([done, failed](std::optional<std::string> not_modern) {
      if (!not_modern) return done(std::nullopt);
      done(failed + (not_modern->empty() ? "" : "; " + *not_modern));
    });
  }
  std::string version = string_field(reply.result, "protocolVersion");
  if (!speaks(version)) {
    return done("the server answered initialize with protocol version \"" + version +
                "\"; toolhost speaks " + versions_spoken());
  }
  server_.protocol_version = version;
  server_.era = Era::kLegacy;
  const Json info = reply.result.value("serverInfo", Json::object());
  server_.name = string_field(info, "name");
  server_.version = string_field(info, "version");
  server_.instructions = string_field(reply.result, "instructions");
  server_.capabilities = reply.result.value("capabilities", Json::object());
  // Streamable HTTP: every later request names the version (stdio ignores this).
  transport_->established({{kProtocolVersionHeader, version}});
  endpoint_.notify(method::kInitialized, Json::object());
  connected_ = true;
  done(std::nullopt);
}

void Client::discover(Done next) {
  std::weak_ptr<bool> alive = alive_;
  auto answered = [this, alive, next](const Reply& reply) {
    if (alive.expired()) return next("the client closed");
    const Json& versions =
        reply.result.is_object() ? reply.result.value("supportedVersions", Json()) : Json();
    bool modern = false;
    if (reply.ok() && versions.is_array()) {
      server_.supported_versions.clear();
      for (const Json& version : versions) {
        if (!version.is_string()) continue;
        server_.supported_versions.push_back(version.get<std::string>());
        modern = modern || version == modern_version();
      }
    }
    if (!modern) {
      return next(reply.ok() ? "" : "server/discover failed: " + describe(*reply.error));
    }
    server_.era = Era::kModern;
    server_.protocol_version = std::string(modern_version());
    const Json info = reply.result.value("serverInfo", Json::object());
    server_.name = string_field(info, "name");
    server_.version = string_field(info, "version");
    server_.instructions = string_field(reply.result, "instructions");
    server_.capabilities = reply.result.value("capabilities", Json::object());
    transport_->established({{kProtocolVersionHeader, server_.protocol_version}});
    connected_ = true;
    next(std::nullopt);
  };
  // The probe itself names the modern version, as every modern request does.
  Json params = {{"_meta",
                  {{kMetaVersion, modern_version()},
                   {kMetaClientInfo, {{"name", options_.name}, {"version", options_.version}}},
                   {kMetaCapabilities, Json::object()}}}};
  endpoint_.request(method::kDiscover, std::move(params), std::move(answered),
                    jsonrpc::RequestOptions{options_.startup_timeout_ms, 0});
}

void Client::list_tools(std::function<void(ToolList)> done) {
  if (!connected_) {
    ToolList list;
    list.error = "not connected to the server";
    return done(std::move(list));
  }
  fetch_page("", 0, std::make_shared<ToolList>(), std::move(done));
}

void Client::fetch_page(const std::string& cursor, size_t pages, std::shared_ptr<ToolList> list,
                        std::function<void(ToolList)> done) {
  Json params = Json::object();
  if (!cursor.empty()) params["cursor"] = cursor;
  std::weak_ptr<bool> alive = alive_;
  auto answered = [this, alive, pages, list, done](const Reply& reply) {
    auto fail = [&](std::string error) {
      list->tools.clear();
      list->error = "tools/list: " + std::move(error);
      done(std::move(*list));
    };
    if (alive.expired()) return fail("the client closed");
    if (reply.error) return fail(describe(*reply.error));
    auto tools = reply.result.is_object() ? reply.result.find("tools") : Json::const_iterator();
    if (!reply.result.is_object() || tools == reply.result.end() || !tools->is_array()) {
      return fail("the answer has no \"tools\" list");
    }
    for (const Json& entry : *tools) {
      std::string error;
      std::optional<Tool> tool = tool_from_json(entry, error);
      if (!tool) return fail("tool " + std::to_string(list->tools.size() + 1) + ": " + error);
      for (const Tool& seen : list->tools) {
        if (seen.name == tool->name) return fail("the tool \"" + seen.name + "\" is listed twice");
      }
      list->tools.push_back(std::move(*tool));
    }
    std::string next = string_field(reply.result, "nextCursor");
    if (next.empty()) return done(std::move(*list));
    if (pages + 1 >= options_.max_pages) {
      return fail("the server paginates forever (more than " + std::to_string(options_.max_pages) +
                  " pages)");
    }
    fetch_page(next, pages + 1, list, done);
  };
  request(method::kToolsList, std::move(params), std::move(answered), options_.request_timeout_ms);
}

uint64_t Client::call_tool(const std::string& name, Json arguments, CallEvents events) {
  uint64_t id = next_call_++;
  if (!connected_) {
    if (events.done)
      events.done(ended(CallOutcome::Status::kFailed, "not connected to the server"));
    return id;
  }
  calls_[id] = Call{nullptr, std::move(events), false};
  Json params = {{"name", name},
                 {"arguments", arguments.is_null() ? Json::object() : std::move(arguments)},
                 {"_meta", {{"progressToken", id}}}};
  std::weak_ptr<bool> alive = alive_;
  Json request_id = request(
      method::kToolsCall, std::move(params),
      [this, alive, id](const Reply& reply) {
        if (!alive.expired()) call_ended(id, reply);
      },
      options_.call_timeout_ms);
  if (auto it = calls_.find(id); it != calls_.end()) it->second.request_id = request_id;
  return id;
}

bool Client::cancel(uint64_t id, const std::string& reason) {
  auto it = calls_.find(id);
  if (it == calls_.end()) return false;
  it->second.canceled = true;
  Json request_id = it->second.request_id;
  endpoint_.notify(method::kCancelled, {{"requestId", request_id}, {"reason", reason}});
  endpoint_.abandon(request_id, Error{code::kInternalError, reason, nullptr});
  return true;
}

void Client::call_ended(uint64_t id, const Reply& reply) {
  auto it = calls_.find(id);
  if (it == calls_.end()) return;
  Call call = std::move(it->second);
  calls_.erase(it);
  drop_unwanted();
  CallOutcome outcome;
  if (call.canceled) {
    outcome = ended(CallOutcome::Status::kCanceled, "canceled: " + describe(*reply.error));
  } else if (!reply.error) {
    outcome = outcome_from_result(reply.result);
  } else if (!reply.from_peer && reply.error->code == code::kRequestTimeout) {
    // The server is told, as for a cancel; a reply that still comes is dropped.
    endpoint_.notify(method::kCancelled,
                     {{"requestId", call.request_id}, {"reason", "toolhost timed out the call"}});
    outcome = ended(CallOutcome::Status::kTimedOut, describe(*reply.error));
  } else {
    outcome = ended(CallOutcome::Status::kFailed, describe(*reply.error));
  }
  if (call.events.done) call.events.done(std::move(outcome));
}

void Client::progress(const Message& message) {
  const Json& params = message.params;
  if (!params.is_object()) return;
  const Json token = params.value("progressToken", Json());
  if (!token.is_number_unsigned()) return;
  auto it = calls_.find(token.get<uint64_t>());
  if (it == calls_.end() || !it->second.events.progress) return;
  Progress progress;
  if (auto value = params.find("progress"); value != params.end() && value->is_number()) {
    progress.progress = value->get<double>();
  }
  if (auto total = params.find("total"); total != params.end() && total->is_number()) {
    progress.total = total->get<double>();
  }
  progress.message = string_field(params, "message");
  auto report = it->second.events.progress;  // may cancel the call
  report(progress);
}

void Client::log(const Message& message) {
  const Json& params = message.params;
  if (!params.is_object()) return;
  std::string level = string_field(params, "level");
  const Json data = params.value("data", Json());
  std::string text = data.is_string() ? data.get<std::string>()
                                      : data.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::string logger = string_field(params, "logger");
  if (!logger.empty()) text = logger + ": " + text;
  // stdio carries no request id with a log message; a server that names the call's progress
  // token in `_meta` gets its messages into that call's output.
  const Json meta = params.value("_meta", Json::object());
  const Json token = meta.is_object() ? meta.value("progressToken", Json()) : Json();
  if (token.is_number_unsigned()) {
    if (auto it = calls_.find(token.get<uint64_t>()); it != calls_.end() && it->second.events.log) {
      auto report = it->second.events.log;
      return report(level, text);
    }
  }
  if (auto report = events_.log) report(level, text);
}

}  // namespace toolhost::mcp
