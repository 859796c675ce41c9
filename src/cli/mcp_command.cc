#include "cli/mcp_command.h"

#include <uv.h>

#include <csignal>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>

#include "cli/mcp_files.h"
#include "cli/mcp_login.h"
#include "mcp/client.h"
#include "mcp/config_files.h"
#include "mcp/http_connection.h"
#include "mcp/server_config.h"
#include "mcp/stdio_server.h"
#include "mcp/tool_names.h"

namespace toolhost::cli {
namespace {

// One libuv loop for the command, closed (with every handle) when it ends.
class Loop {
 public:
  Loop() { uv_loop_init(&loop_); }
  ~Loop() {
    uv_run(&loop_, UV_RUN_DEFAULT);  // the servers' handles close
    uv_loop_close(&loop_);
  }
  uv_loop_t* get() { return &loop_; }
  // Runs until `done()`; false when nothing is left that could make it true.
  bool run_until(const std::function<bool()>& done) {
    while (!done()) {
      if (uv_run(&loop_, UV_RUN_ONCE) == 0 && !done()) return false;
    }
    return true;
  }

 private:
  uv_loop_t loop_;
};

// Why `config` cannot be started, or nothing.
std::optional<std::string> unusable(const mcp::ServerConfig& config) {
  if (!config.error.empty()) {
    bool setup = config.source.empty() || config.source == mcp::kSetupSource;
    return (setup ? "mcp.servers." + config.name : config.name + " (" + config.source + ")") +
           ": " + config.error;
  }
  if (config.disabled) return config.name + " is disabled";
  return std::nullopt;
}

// A configured server, started and connected, stopped when this goes.
class Connection {
 public:
  Connection(Loop& loop, const mcp::ServerConfig& config, const std::string& version,
             const std::string& state_dir, std::ostream& err)
      : loop_(loop), config_(config), err_(err) {
    mcp::Client::Options options;
    options.version = version;
    options.startup_timeout_ms = config.startup_timeout_ms;
    options.call_timeout_ms = config.timeout_ms;
    if (!config.url.empty() && !mcp::uses_static_authorization(config)) {
      // A sign-in may come first (the browser, a person): its wait is not the server's.
      options.startup_timeout_ms += config.oauth.timeout_ms;
      options.call_timeout_ms += config.oauth.timeout_ms;
    }
    options.discover_first = config.discover_first;
    mcp::Client::Events events;
    events.log = [this](const std::string& level, const std::string& text) {
      err_ << config_.name << ": " << level << ": " << text << "\n";
    };
    // No one to ask on the command line: the schema's defaults, said on stderr.
    events.elicit = [this](const mcp::ElicitationRequest& request,
                           std::function<void(mcp::ElicitationAnswer)> answer) {
      mcp::ElicitationAnswer answered = mcp::answer_with_defaults(request);
      bool accepted = answered.action == mcp::ElicitationAnswer::Action::kAccept;
      err_ << config_.name << ": asks \"" << request.message << "\": "
           << (accepted ? "accepted the defaults " + answered.content.dump()
                        : std::string("declined (a required field has no default)"))
           << "\n";
      answer(std::move(answered));
    };
    std::string error;
    std::unique_ptr<jsonrpc::Transport> transport;
    if (!config.url.empty()) {
      auto log = [this](const std::string& what) { err_ << config_.name << ": " << what << "\n"; };
      transport = mcp::connect_http(loop.get(), config, log, error,
                                    make_authorizer(loop.get(), config, state_dir, err));
    } else {
      server_ = std::make_unique<mcp::StdioServer>(loop.get(), config.stdio);
      transport = server_->start(error);
    }
    if (!transport) {
      error_ = config.name + ": " + error;
      return;
    }
    client_ = std::make_unique<mcp::Client>(loop.get(), std::move(transport), options, events);
    if (!client_->start(error)) {
      error_ = config.name + ": " + error;
      return;
    }
    std::optional<std::optional<std::string>> connected;
    client_->connect([&](std::optional<std::string> why) { connected = std::move(why); });
    loop.run_until([&] { return connected.has_value(); });
    if (!connected || *connected) {
      error_ = config.name + ": " + (connected ? **connected : std::string("no answer"));
    }
  }
  ~Connection() {
    if (client_) client_->close("done");
    if (!server_) return;  // HTTP: the loop's end waits for the DELETE that ends the session
    bool gone = false;
    server_->stop([&] { gone = true; });
    loop_.run_until([&] { return gone; });
  }

  const std::optional<std::string>& error() const { return error_; }
  mcp::Client& client() { return *client_; }

 private:
  Loop& loop_;
  const mcp::ServerConfig& config_;
  std::ostream& err_;
  std::unique_ptr<mcp::StdioServer> server_;
  std::unique_ptr<mcp::Client> client_;
  std::optional<std::string> error_;
};

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

void print_tools(const mcp::ServerConfig& config, const mcp::Client& client,
                 const std::vector<mcp::Tool>& tools, std::ostream& out) {
  const mcp::ServerInfo& info = client.server();
  out << config.name << ": " << (info.name.empty() ? "?" : info.name)
      << (info.version.empty() ? "" : " " + info.version) << ", MCP " << info.protocol_version
      << ", " << tools.size() << (tools.size() == 1 ? " tool" : " tools") << "\n";
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& tool : tools) pairs.emplace_back(config.name, tool.name);
  std::vector<std::string> names = mcp::qualified_tool_names(pairs);
  for (size_t i = 0; i < tools.size(); ++i) {
    out << "  " << names[i];
    std::string description = first_line(tools[i].description);
    if (!description.empty()) out << "  " << description;
    out << "\n";
  }
}

const mcp::ServerConfig* find_server(const McpServers& loaded, const std::string& name,
                                     std::ostream& err) {
  const mcp::ServersConfig& config = loaded.config;
  if (auto held = loaded.held.find(name); held != loaded.held.end()) {
    err << "toolhost: " << held->second << "\n";
    return nullptr;
  }
  for (const auto& server : config.servers) {
    if (server.name == name) return &server;
  }
  std::string known;
  for (const auto& server : config.servers) known += (known.empty() ? "" : ", ") + server.name;
  err << "toolhost: no MCP server named \"" << name << "\" (configured: " << known << ")\n";
  return nullptr;
}

}  // namespace

int run_mcp_list(const McpCommand& command, std::ostream& out, std::ostream& err) {
  std::signal(SIGPIPE, SIG_IGN);  // a server gone is a closed pipe, not a death
  auto config = load_mcp_servers(command, err);
  if (!config) {
    err << "toolhost: " << config.error() << "\n";
    return kMcpUsage;
  }
  std::vector<const mcp::ServerConfig*> servers;
  if (!command.server.empty()) {
    const mcp::ServerConfig* server = find_server(*config, command.server, err);
    if (!server) return kMcpUsage;
    servers.push_back(server);
  } else {
    for (const auto& server : config->config.servers) servers.push_back(&server);
  }
  int status = 0;
  Loop loop;
  for (const mcp::ServerConfig* server : servers) {
    if (auto why = unusable(*server)) {
      // A disabled server is listed as such; only one asked for by name is a failure.
      err << "toolhost: " << *why << "\n";
      if (!server->disabled || !command.server.empty()) status = kMcpUsage;
      continue;
    }
    Connection connection(loop, *server, command.version, command.state_dir, err);
    if (connection.error()) {
      err << "toolhost: " << *connection.error() << "\n";
      status = kMcpUsage;
      continue;
    }
    std::optional<mcp::ToolList> list;
    connection.client().list_tools([&](mcp::ToolList l) { list = std::move(l); });
    loop.run_until([&] { return list.has_value(); });
    if (!list || list->error) {
      err << "toolhost: " << server->name << ": " << (list ? *list->error : "no answer") << "\n";
      status = kMcpUsage;
      continue;
    }
    print_tools(*server, connection.client(), list->tools, out);
  }
  return status;
}

int run_mcp_call(const McpCommand& command, std::ostream& out, std::ostream& err) {
  std::signal(SIGPIPE, SIG_IGN);
  nlohmann::json arguments = nlohmann::json::object();
  if (!command.arguments.empty()) {
    arguments = nlohmann::json::parse(command.arguments, nullptr, /*allow_exceptions=*/false);
    if (arguments.is_discarded() || !arguments.is_object()) {
      err << "toolhost: the arguments must be a JSON object, as {\"message\":\"hi\"}\n";
      return kMcpUsage;
    }
  }
  auto config = load_mcp_servers(command, err);
  if (!config) {
    err << "toolhost: " << config.error() << "\n";
    return kMcpUsage;
  }
  const mcp::ServerConfig* server = find_server(*config, command.server, err);
  if (!server) return kMcpUsage;
  if (auto why = unusable(*server)) {
    err << "toolhost: " << *why << "\n";
    return kMcpUsage;
  }
  Loop loop;
  Connection connection(loop, *server, command.version, command.state_dir, err);
  if (connection.error()) {
    err << "toolhost: " << *connection.error() << "\n";
    return kMcpUsage;
  }
  mcp::Client::CallEvents events;
  events.progress = [&](const mcp::Progress& p) {
    err << "progress " << p.progress;
    if (p.total) err << "/" << *p.total;
    if (!p.message.empty()) err << ": " << p.message;
    err << "\n";
  };
  events.log = [&](const std::string& level, const std::string& text) {
    err << level << ": " << text << "\n";
  };
  std::optional<mcp::CallOutcome> outcome;
  events.done = [&](mcp::CallOutcome o) { outcome = std::move(o); };
  uint64_t call = connection.client().call_tool(command.tool, std::move(arguments), events);
  // ^C or a TERM cancels the call and stops the server: it runs in a process group of its own,
  // which the terminal's signal does not reach.
  int interrupted = 0;
  uv_signal_t signals[2];
  int signums[2] = {SIGINT, SIGTERM};
  for (int i = 0; i < 2; ++i) {
    uv_signal_init(loop.get(), &signals[i]);
    signals[i].data = &interrupted;
    uv_signal_start(
        &signals[i], [](uv_signal_t* h, int sig) { *static_cast<int*>(h->data) = sig; },
        signums[i]);
  }
  loop.run_until([&] { return outcome.has_value() || interrupted != 0; });
  for (auto& handle : signals) uv_close(reinterpret_cast<uv_handle_t*>(&handle), nullptr);
  uv_run(loop.get(), UV_RUN_NOWAIT);  // the closes complete while `signals` exists
  if (interrupted != 0 && !outcome) {
    connection.client().cancel(call, "interrupted");
    err << "toolhost: " << server->name << ": " << command.tool << ": interrupted\n";
    return 128 + interrupted;
  }
  if (!outcome) {
    err << "toolhost: " << server->name << ": no answer\n";
    return kMcpUsage;
  }
  using Status = mcp::CallOutcome::Status;
  if (outcome->status == Status::kOk || outcome->status == Status::kToolError) {
    out << outcome->text;
    if (!outcome->text.empty() && outcome->text.back() != '\n') out << "\n";
    out.flush();
    return outcome->status == Status::kOk ? 0 : kMcpToolFailed;
  }
  err << "toolhost: " << server->name << ": " << command.tool << ": " << outcome->text << "\n";
  // An error the server answered is the tool's failure; a lost or silent server is not.
  bool answered = outcome->status == Status::kFailed && connection.client().is_open();
  return answered ? kMcpToolFailed : kMcpUsage;
}

}  // namespace toolhost::cli
