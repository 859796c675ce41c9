#include "mcp/server.h"

#include "mcp/arguments_check.h"
#include "mcp/protocol.h"

namespace toolhost::mcp {
namespace {

using jsonrpc::Error;
using jsonrpc::Message;
using jsonrpc::Responder;
namespace code = jsonrpc::code;

// The agent's name as toolhost shows it (a buffer's name, a line of it, history): control
// characters become spaces, since a newline cannot be part of a buffer's line; a name with
// nothing visible left is "agent".
std::string shown_client_name(const Json& name) {
  if (!name.is_string()) return "agent";
  std::string shown = name.get<std::string>();
  bool visible = false;
  for (char& c : shown) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) c = ' ';
    visible = visible || c != ' ';
  }
  return visible ? shown : "agent";
}

Error invalid_params(std::string message) {
  return Error{code::kInvalidParams, std::move(message), nullptr};
}

Json capabilities() {
  return {{"tools", {{"listChanged", false}}}, {"logging", Json::object()}};
}

const Tool* find_tool(const std::vector<Tool>& tools, const std::string& name) {
  for (const Tool& tool : tools) {
    if (tool.name == name) return &tool;
  }
  return nullptr;
}

}  // namespace

Server::Server(uv_loop_t* loop, std::unique_ptr<jsonrpc::Transport> transport, ToolBackend& backend,
               Info info)
    : loop_(loop),
      endpoint_(loop, std::move(transport)),
      backend_(backend),
      info_(std::move(info)),
      progress_timer_(new uv_timer_t) {
  uv_timer_init(loop_, progress_timer_);
  progress_timer_->data = this;
  endpoint_.on_request(method::kInitialize, [this](const Message& m, Responder r) {
    handle_initialize(m, std::move(r));
  });
  endpoint_.on_request(method::kPing,
                       [](const Message&, Responder r) { r.result(Json::object()); });
  // The 2026-07-28 probe: this server speaks the initialize era, and says so, so that a modern
  // client falls back to initialize.
  endpoint_.on_request(method::kDiscover, [this](const Message&, Responder r) {
    Json result = {{"resultType", "complete"},
                   {"supportedVersions", supported_versions()},
                   {"capabilities", capabilities()},
                   {"serverInfo", {{"name", info_.name}, {"version", info_.version}}}};
    if (!info_.instructions.empty()) result["instructions"] = info_.instructions;
    r.result(std::move(result));
  });
  endpoint_.on_request(method::kToolsList, after_initialize([this](const Message&, Responder r) {
                         Json tools = Json::array();
                         for (const Tool& tool : backend_.tools()) tools.push_back(to_json(tool));
                         r.result({{"tools", std::move(tools)}});
                       }));
  endpoint_.on_request(method::kToolsCall, after_initialize([this](const Message& m, Responder r) {
                         handle_call(m, std::move(r));
                       }));
  endpoint_.on_request(method::kSetLevel, after_initialize([](const Message&, Responder r) {
                         r.result(Json::object());  // toolhost sends no log messages yet
                       }));
  endpoint_.on_notification(method::kCancelled, [this](const Message& m) { handle_cancelled(m); });
  endpoint_.on_notification(method::kInitialized, [](const Message&) {});
  endpoint_.on_closed([this](const std::string& reason) { closed(reason); });
}

Server::~Server() {
  *alive_ = false;
  for (auto& [id, call] : calls_) {
    backend_.cancel(id, "toolhost stopped serving");
    call.responder.error(Error{code::kInternalError, "toolhost stopped serving", nullptr});
  }
  calls_.clear();
  uv_close(reinterpret_cast<uv_handle_t*>(progress_timer_),
           [](uv_handle_t* handle) { delete reinterpret_cast<uv_timer_t*>(handle); });
}

bool Server::start(std::string& error) {
  return endpoint_.start(error);
}

jsonrpc::Endpoint::RequestHandler Server::after_initialize(
    jsonrpc::Endpoint::RequestHandler handler) {
  return [this, handler = std::move(handler)](const Message& message, Responder responder) {
    if (!initialized_) {
      responder.error(Error{code::kInvalidRequest,
                            "the server is not initialized: send \"initialize\" first", nullptr});
      return;
    }
    handler(message, std::move(responder));
  };
}

void Server::handle_initialize(const Message& message, Responder responder) {
  if (initialized_) {
    responder.error(Error{code::kInvalidRequest, "already initialized", nullptr});
    return;
  }
  if (std::string refused = accept_initialize(message.params); !refused.empty()) {
    responder.error(invalid_params(std::move(refused)));
    return;
  }
  Json result = {{"protocolVersion", protocol_version_},
                 {"capabilities", capabilities()},
                 {"serverInfo", {{"name", info_.name}, {"version", info_.version}}}};
  if (!info_.instructions.empty()) result["instructions"] = info_.instructions;
  responder.result(std::move(result));
}

std::string Server::accept_initialize(const Json& params) {
  auto requested = params.is_object() ? params.find("protocolVersion") : Json::const_iterator();
  if (!params.is_object() || requested == params.end() || !requested->is_string()) {
    return "initialize needs a \"protocolVersion\" string";
  }
  protocol_version_ = negotiate_version(requested->get<std::string>());
  client_name_ = "agent";
  if (auto client = params.find("clientInfo"); client != params.end() && client->is_object()) {
    if (auto name = client->find("name"); name != client->end()) {
      client_name_ = shown_client_name(*name);
    }
  }
  initialized_ = true;
  return {};
}

bool Server::resume(const Json& initialize_params, std::string& error) {
  error = accept_initialize(initialize_params);
  return error.empty();
}

void Server::handle_call(const Message& message, Responder responder) {
  const Json& params = message.params;
  if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) {
    responder.error(invalid_params("tools/call needs a \"name\" string"));
    return;
  }
  std::string name = params["name"].get<std::string>();
  std::vector<Tool> tools = backend_.tools();
  const Tool* tool = find_tool(tools, name);
  if (!tool) {
    responder.error(invalid_params("unknown tool: " + name));
    return;
  }
  // Since 2025-11-25 arguments that do not fit are a tool result the model can read and fix.
  Json arguments = params.value("arguments", Json::object());
  std::optional<std::string> misfit =
      arguments.is_object() ? check_arguments(tool->input_schema, arguments)
                            : std::optional<std::string>("the arguments must be an object");
  if (misfit) {
    responder.result(to_json(CallResult{name + ": " + *misfit, true}));
    return;
  }
  uint64_t id = next_call_++;
  ActiveCall& call =
      calls_.emplace(id, ActiveCall{responder, nullptr, {}, false, 0, 0}).first->second;
  if (auto meta = params.find("_meta"); meta != params.end() && meta->is_object()) {
    Json token = meta->value("progressToken", Json());
    if (token.is_string() || token.is_number_integer()) call.progress_token = std::move(token);
  }
  call_of_request_[message.id.dump()] = id;
  std::weak_ptr<bool> alive = alive_;
  ToolBackend::Sink sink;
  sink.output = [this, alive, id](const std::string& last_lines) {
    if (auto live = alive.lock(); live && *live) output(id, last_lines);
  };
  sink.done = [this, alive, id](CallResult result) {
    if (auto live = alive.lock(); live && *live) finish(id, result);
  };
  backend_.start(ToolBackend::Call{id, name, std::move(arguments), client_name_}, std::move(sink));
}

void Server::handle_cancelled(const Message& message) {
  if (!message.params.is_object() || !message.params.contains("requestId")) return;
  // Read before anything changes: the call must not be forgotten without the backend's cancel.
  auto given = message.params.find("reason");
  std::string reason = given != message.params.end() && given->is_string()
                           ? given->get<std::string>()
                           : "the agent cancelled the call";
  auto request = call_of_request_.find(message.params["requestId"].dump());
  if (request == call_of_request_.end()) return;  // answered already, or never ours
  uint64_t id = request->second;
  call_of_request_.erase(request);
  auto call = calls_.find(id);
  if (call == calls_.end()) return;
  call->second.responder.withdraw();  // MCP: a cancelled request gets no answer
  calls_.erase(call);
  backend_.cancel(id, reason);
}

void Server::output(uint64_t id, const std::string& last_lines) {
  auto it = calls_.find(id);
  if (it == calls_.end() || it->second.progress_token.is_null()) return;
  ActiveCall& call = it->second;
  call.last_lines = last_lines;
  if (uv_now(loop_) - call.last_sent_ms >= kProgressIntervalMs || call.notifications == 0) {
    send_progress(call);
    return;
  }
  call.unsent = true;
  if (!uv_is_active(reinterpret_cast<uv_handle_t*>(progress_timer_))) {
    uv_timer_start(
        progress_timer_, [](uv_timer_t* t) { static_cast<Server*>(t->data)->flush_progress(); },
        kProgressIntervalMs, kProgressIntervalMs);
  }
}

void Server::send_progress(ActiveCall& call) {
  call.unsent = false;
  call.last_sent_ms = uv_now(loop_);
  // `progress` must rise; output has no known total, so it counts the notifications.
  endpoint_.notify(method::kProgress, {{"progressToken", call.progress_token},
                                       {"progress", ++call.notifications},
                                       {"message", call.last_lines}});
}

void Server::flush_progress() {
  bool waiting = false;
  uint64_t now = uv_now(loop_);
  for (auto& [id, call] : calls_) {
    if (!call.unsent) continue;
    if (now - call.last_sent_ms >= kProgressIntervalMs) {
      send_progress(call);
    } else {
      waiting = true;
    }
  }
  if (!waiting) uv_timer_stop(progress_timer_);
}

void Server::finish(uint64_t id, const CallResult& result) {
  auto it = calls_.find(id);
  if (it == calls_.end()) return;  // cancelled meanwhile: the agent wants no answer
  Responder responder = it->second.responder;
  call_of_request_.erase(responder.id().dump());
  calls_.erase(it);
  responder.result(to_json(result));
}

void Server::closed(const std::string& reason) {
  auto calls = std::move(calls_);
  calls_.clear();
  call_of_request_.clear();
  for (auto& [id, call] : calls) {
    call.responder.withdraw();
    backend_.cancel(id, "the agent disconnected");
  }
  if (auto callback = std::move(on_closed_)) callback(reason);
}

}  // namespace toolhost::mcp
