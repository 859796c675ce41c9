#include "server/agent_hub.h"

#include <unistd.h>

#include "agents/tool_list.h"
#include "base/log.h"
#include "mcp/host_registry.h"
#include "mcp/server.h"
#include "server/agent_backend.h"

namespace toolhost::server {

struct AgentHub::Connection {
  explicit Connection(AgentHub& hub) : backend(hub) {}
  AgentBackend backend;
  std::unique_ptr<mcp::Server> server;
};

namespace {

constexpr const char* kInstructions =
    "toolhost runs these tools in the user's Neovim: calls that policy does not auto-run wait "
    "until the user approves them there, and a declined call's result says why.";

// Lua's side: lua/toolhost/agents.lua.
constexpr const char* kAppend = "return require('toolhost.agents').append(...)";

}  // namespace

AgentHub::AgentHub(Env env) : env_(std::move(env)), sweeper_(new uv_timer_t) {
  uv_timer_init(env_.loop, sweeper_);
  sweeper_->data = this;
}

AgentHub::~AgentHub() {
  close();
  uv_close(reinterpret_cast<uv_handle_t*>(sweeper_),
           [](uv_handle_t* handle) { delete reinterpret_cast<uv_timer_t*>(handle); });
}

const std::vector<mcp::Tool>& AgentHub::tools() {
  if (!tools_) tools_ = agents::mcp_tools(config());
  return *tools_;
}

core::Result<std::string> AgentHub::serve(const std::string& root) {
  std::string error;
  if (!listener_) {
    auto dir = mcp::socket_dir(env_.state_dir, error);
    if (!dir) return core::error(error);
    auto path = mcp::socket_path(*dir, ::getpid(), error);
    if (!path) return core::error(error);
    jsonrpc::UnixListener::Options options;
    options.log = [](const std::string& message) { log::warn("agents: " + message); };
    listener_ = jsonrpc::UnixListener::listen(
        env_.loop, *path,
        [this](std::unique_ptr<jsonrpc::Transport> transport) { accept(std::move(transport)); },
        error, options);
    if (!listener_) return core::error(error);
    registry_dir_ = *dir;
  }
  // Listening before publishing: a reader that finds the file can connect at once.
  mcp::HostEntry entry{root, listener_->path(), static_cast<int>(::getpid()), env_.version};
  if (!mcp::publish(registry_dir_, entry, error)) return core::error(error);
  root_ = root;
  log::info("agents: serving " + root + " at " + listener_->path());
  return listener_->path();
}

void AgentHub::accept(std::unique_ptr<jsonrpc::Transport> transport) {
  auto connection = std::make_unique<Connection>(*this);
  connection->server =
      std::make_unique<mcp::Server>(env_.loop, std::move(transport), connection->backend,
                                    mcp::Server::Info{"toolhost", env_.version, kInstructions});
  Connection* raw = connection.get();
  connection->server->on_closed([this, raw](const std::string& reason) {
    log::info("agents: " + raw->server->client_name() + " disconnected: " + reason);
    closed(raw);
  });
  std::string error;
  if (!connection->server->start(error)) {
    log::warn("agents: a connection failed to start: " + error);
    return;
  }
  connections_.push_back(std::move(connection));
}

void AgentHub::closed(Connection* connection) {
  // Not destroyed here: this runs inside the connection's own callback.
  for (auto it = connections_.begin(); it != connections_.end(); ++it) {
    if (it->get() != connection) continue;
    closing_.push_back(std::move(*it));
    connections_.erase(it);
    break;
  }
  uv_timer_start(
      sweeper_, [](uv_timer_t* timer) { static_cast<AgentHub*>(timer->data)->sweep(); }, 0, 0);
}

void AgentHub::sweep() {
  closing_.clear();
}

void AgentHub::close() {
  if (listener_) {
    std::string error;
    mcp::unpublish(registry_dir_, ::getpid(), error);
    listener_->close();
    listener_.reset();
  }
  auto connections = std::move(connections_);
  connections_.clear();
  for (auto& connection : connections) connection->server->close("toolhost stopped serving");
  connections.clear();
  closing_.clear();
}

void AgentHub::forget(int64_t buf) {
  session::Session* session = env_.session(buf);
  std::vector<std::pair<AgentBackend*, uint64_t>> waiting;
  for (auto it = bound_.lower_bound({buf, std::string()});
       it != bound_.end() && it->first.first == buf;) {
    if (session && session->running(it->first.second)) {
      ++it;
      continue;
    }
    waiting.push_back(it->second);
    it = bound_.erase(it);
  }
  for (auto& [backend, id] : waiting) {
    backend->abandon(id, "The agent's buffer in Neovim was closed before the call was approved.");
  }
}

void AgentHub::append(const std::string& client, const agents::CallMessage& message,
                      bool needs_approval, Appended done) {
  nlohmann::json args = {{"client", client},
                         {"intro", agents::agent_buffer_intro(client, config().roles)},
                         {"lines", message.lines},
                         {"needs_approval", needs_approval},
                         {"summary", message.summary}};
  env_.api->exec_lua(
      kAppend, nlohmann::json::array({std::move(args)}),
      [buffers = buffers_, client, done = std::move(done)](const std::string& error,
                                                           nlohmann::json result) {
        if (!error.empty()) return done(error, 0, 0);
        if (result.is_object() && result.contains("error") && result["error"].is_string()) {
          return done(result["error"].get<std::string>(), 0, 0);
        }
        if (!result.is_object() || !result.contains("buf") || !result["buf"].is_number_integer() ||
            !result.contains("row") || !result["row"].is_number_integer()) {
          return done("Lua answered " + result.dump(), 0, 0);
        }
        (*buffers)[client] = result["buf"].get<int64_t>();
        done("", result["buf"].get<int64_t>(), result["row"].get<int>());
      });
}

session::Session* AgentHub::agent_session(const std::string& client) const {
  auto it = buffers_->find(client);
  if (it == buffers_->end()) return nullptr;
  session::Session* session = env_.session(it->second);
  return session && !session->detached() ? session : nullptr;
}

void AgentHub::bind(int64_t buf, const std::string& call_id, AgentBackend* backend, uint64_t id) {
  bound_[{buf, call_id}] = {backend, id};
}

void AgentHub::unbind(int64_t buf, const std::string& call_id) {
  bound_.erase({buf, call_id});
}

void AgentHub::call_output(int64_t buf, const std::string& call_id,
                           const std::vector<std::string>& lines) {
  auto it = bound_.find({buf, call_id});
  if (it != bound_.end()) it->second.first->output(it->second.second, lines);
}

void AgentHub::call_ended(int64_t buf, const std::string& call_id, const jobs::JobInfo& job,
                          const std::vector<std::string>& body) {
  auto it = bound_.find({buf, call_id});
  if (it == bound_.end()) return;
  auto [backend, id] = it->second;
  bound_.erase(it);
  backend->ended(id, job, body);
}

void AgentHub::call_renamed(int64_t buf, const std::string& from, const std::string& to) {
  auto it = bound_.find({buf, from});
  if (it == bound_.end()) return;
  auto [backend, id] = it->second;
  bound_.erase(it);
  bound_[{buf, to}] = {backend, id};
  backend->renamed(id, to);
}

}  // namespace toolhost::server
