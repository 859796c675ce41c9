#include "mcp/servers.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "mcp/arguments_check.h"
#include "mcp/http_connection.h"
#include "mcp/media_files.h"
#include "mcp/tool_specs.h"

namespace toolhost::mcp {
namespace {

std::string number(double value) {
  if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<long long>(value));
  }
  std::ostringstream out;
  out << value;
  return out.str();
}

// "progress 3/10: Step 3 done", one output line.
std::string progress_line(const Progress& progress) {
  std::string line = "progress " + number(progress.progress);
  if (progress.total) line += "/" + number(*progress.total);
  if (!progress.message.empty()) line += ": " + progress.message;
  return line + "\n";
}

// Unique per call: the tool's name (only file-name characters) and the time.
std::string media_prefix(const std::string& server, const std::string& tool) {
  static uint64_t calls = 0;
  std::string prefix = server + "__" + tool;
  for (char& c : prefix) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  }
  return prefix + "-" + std::to_string(jobs::wall_clock_ms()) + "-" + std::to_string(++calls);
}

jobs::TaskOutcome task_outcome(CallOutcome outcome) {
  if (outcome.status == CallOutcome::Status::kOk) return {0, std::move(outcome.text), ""};
  if (outcome.text.empty()) outcome.text = "the tool reported an error without a message";
  return {1, "", std::move(outcome.text)};
}

std::string stop_reason(core::Status reason) {
  switch (reason) {
    case core::Status::TimedOut: return "toolhost timed out the call";
    case core::Status::Interrupted: return "toolhost is shutting down";
    default: return "the user canceled the call";
  }
}

}  // namespace

Servers::Servers(uv_loop_t* loop, Options options, Events events)
    : loop_(loop), options_(std::move(options)), events_(std::move(events)) {}

Servers::~Servers() {
  *alive_ = false;
}

SupervisedServer* Servers::find(const std::string& name) const {
  for (const auto& server : servers_) {
    if (server->config().name == name) return server.get();
  }
  return nullptr;
}

void Servers::configure(std::vector<ServerConfig> configs) {
  std::sort(configs.begin(), configs.end(),
            [](const ServerConfig& a, const ServerConfig& b) { return a.name < b.name; });
  std::vector<std::unique_ptr<SupervisedServer>> kept;
  std::weak_ptr<bool> alive = alive_;
  auto changed = [this, alive] {
    if (!alive.expired() && events_.tools_changed) events_.tools_changed();
  };
  for (ServerConfig& config : configs) {
    auto same = std::find_if(servers_.begin(), servers_.end(), [&](const auto& server) {
      if (!server) return false;
      const ServerConfig& old = server->config();
      return old.name == config.name && old.hash() == config.hash() &&
             old.disabled == config.disabled && old.error == config.error &&
             old.startup_timeout_ms == config.startup_timeout_ms &&
             old.timeout_ms == config.timeout_ms;
    });
    if (same != servers_.end()) {
      (*same)->update_policy(config);
      kept.push_back(std::move(*same));
      continue;
    }
    kept.push_back(std::make_unique<SupervisedServer>(loop_, std::move(config), options_, changed));
  }
  for (auto& old : servers_) {
    if (old) stop_and_drop(std::move(old));
  }
  servers_ = std::move(kept);
  // A server whose tools were never listed starts now: until it has, a block naming one of
  // them cannot be read as a call, so nothing else would ever need it.
  for (auto& server : servers_) {
    if (!server->tools_known()) server->when_ready([](std::optional<std::string>) {});
  }
  changed();
}

void Servers::stop_and_drop(std::unique_ptr<SupervisedServer> server) {
  SupervisedServer* raw = server.get();
  leaving_.push_back(std::move(server));
  std::weak_ptr<bool> alive = alive_;
  raw->stop([this, alive, raw] {
    if (alive.expired()) return;
    auto it = std::find_if(leaving_.begin(), leaving_.end(),
                           [raw](const auto& s) { return s.get() == raw; });
    if (it != leaving_.end()) leaving_.erase(it);
  });
}

std::vector<core::ToolSpec> Servers::tool_specs() const {
  std::vector<ServerTools> all;
  for (const auto& server : servers_) {
    if (server->state() == SupervisedServer::State::kDisabled) continue;
    all.push_back({&server->config(), server->tools()});
  }
  return mcp::tool_specs(all);
}

uint64_t Servers::timeout_ms(const std::string& name) const {
  const SupervisedServer* server = find(name);
  if (!server) return 0;
  // A call may wait for a sign-in first (the browser, a person): that wait is not the call's.
  const ServerConfig& config = server->config();
  if (config.timeout_ms == 0) return 0;  // none
  return config.timeout_ms + (signs_in(config) ? config.oauth.timeout_ms : 0);
}

core::Result<jobs::StreamFunction> Servers::call(const core::RemoteTool& tool, Json arguments) {
  if (!find(tool.server)) {
    return core::error("no MCP server named \"" + tool.server + "\" is configured");
  }
  if (arguments.is_null()) arguments = Json::object();
  if (auto problem = check_arguments(tool.input_schema, arguments)) {
    return core::error(tool.server + " tool " + tool.tool + ": " + *problem);
  }
  std::weak_ptr<bool> alive = alive_;
  const std::string server_name = tool.server;
  const std::string tool_name = tool.tool;
  const std::string media_dir = options_.cache_dir.empty() ? "" : options_.cache_dir + "/mcp";
  return jobs::StreamFunction([this, alive, server_name, tool_name, arguments, media_dir](
                                  jobs::OutputSink output,
                                  jobs::TaskDone task_done) -> jobs::StopHook {
    struct CallState {
      bool stopped = false;
      Client* client = nullptr;
      uint64_t number = 0;
      uint64_t sign_in_watch = 0;
    };
    auto state = std::make_shared<CallState>();
    SupervisedServer* server = alive.expired() ? nullptr : find(server_name);
    if (!server) {
      task_done({1, "", "no MCP server named \"" + server_name + "\" is configured"});
      return nullptr;
    }
    if (server->state() != SupervisedServer::State::kReady) {
      output("starting the MCP server " + server_name + "\n");
    }
    // Until it ends, the call's output tells of its server's sign-ins (it waits on them).
    state->sign_in_watch = server->watch_sign_in([state, output](const std::string& line) {
      if (!state->stopped) output(line);
    });
    auto unwatch = [this, alive, state, server_name] {
      if (SupervisedServer* watched = alive.expired() ? nullptr : find(server_name)) {
        watched->unwatch_sign_in(state->sign_in_watch);
      }
    };
    jobs::TaskDone done = [unwatch, task_done](jobs::TaskOutcome outcome) {
      unwatch();
      task_done(std::move(outcome));
    };
    server->when_ready([this, alive, state, server_name, tool_name, arguments, media_dir, output,
                        done](std::optional<std::string> error) {
      if (state->stopped) return;
      if (error) return done({1, "", server_name + ": " + *error});
      SupervisedServer* ready = alive.expired() ? nullptr : find(server_name);
      Client* client = ready ? ready->client() : nullptr;
      if (!client) return done({1, "", server_name + ": not connected"});
      Client::CallEvents events;
      events.progress = [output](const Progress& progress) { output(progress_line(progress)); };
      events.log = [output](const std::string& level, const std::string& text) {
        output(level + ": " + text + "\n");
      };
      events.done = [state, done, media_dir, server_name, tool_name](CallOutcome outcome) {
        state->client = nullptr;
        if (state->stopped) return;  // the job has ended: nothing to show it in
        save_media(outcome, media_dir, media_prefix(server_name, tool_name));
        done(task_outcome(std::move(outcome)));
      };
      state->client = client;
      state->number = client->call_tool(tool_name, arguments, std::move(events));
    });
    return [this, alive, state, server_name, unwatch](core::Status reason) {
      state->stopped = true;
      unwatch();
      if (!state->client || alive.expired()) return;
      SupervisedServer* server = find(server_name);
      if (server && server->client() == state->client) {
        state->client->cancel(state->number, stop_reason(reason));
      }
    };
  });
}

Json Servers::status(bool with_log) const {
  // The names chat blocks use, as the tool table has them (a clash across servers is hashed).
  std::map<std::pair<std::string, std::string>, std::string> names;
  for (const core::ToolSpec& spec : tool_specs()) {
    names[{spec.remote->server, spec.remote->tool}] = spec.name;
  }
  Json list = Json::array();
  for (const auto& server : servers_) {
    const ServerConfig& config = server->config();
    Json tools = Json::array();
    for (const Tool& tool : server->tools()) {
      Json entry = to_json(tool);
      entry["tool"] = tool.name;
      auto name = names.find({config.name, tool.name});
      entry["name"] = name == names.end() ? Json() : Json(name->second);  // null: disabled
      tools.push_back(std::move(entry));
    }
    Json entry = {{"name", config.name},
                  {"transport", config.url.empty() ? "stdio" : "http"},
                  {"state", SupervisedServer::state_name(server->state())},
                  {"protocol", server->protocol()},
                  {"tools", std::move(tools)},
                  {"pid", server->pid()},
                  {"error", server->last_error()},
                  {"retry_in_ms", server->retry_in_ms()},
                  {"startup_timeout_ms", config.startup_timeout_ms},
                  {"command", config.url.empty() ? config.stdio.command : config.url},
                  {"sign_in_url", server->sign_in_url()}};
    if (with_log) entry["log"] = Json(server->log());
    list.push_back(std::move(entry));
  }
  return list;
}

core::Result<bool> Servers::start(const std::string& name) {
  if (name.empty()) {
    for (const auto& server : servers_) server->when_ready([](std::optional<std::string>) {});
    return true;
  }
  SupervisedServer* server = find(name);
  if (!server) return core::error("no MCP server named \"" + name + "\"");
  server->when_ready([](std::optional<std::string>) {});
  return true;
}

core::Result<bool> Servers::restart(const std::string& name) {
  SupervisedServer* server = find(name);
  if (!server) return core::error("no MCP server named \"" + name + "\"");
  server->restart();
  return true;
}

void Servers::login(const std::string& name,
                    std::function<void(std::optional<std::string>)> done) {
  SupervisedServer* server = find(name);
  if (!server) return done("no MCP server named \"" + name + "\"");
  server->login(std::move(done));
}

core::Result<bool> Servers::logout(const std::string& name) {
  SupervisedServer* server = find(name);
  if (!server) return core::error("no MCP server named \"" + name + "\"");
  std::string error;
  if (!server->logout(error)) return core::error(error);
  return true;
}

core::Result<bool> Servers::stop(const std::string& name) {
  SupervisedServer* server = find(name);
  if (!server) return core::error("no MCP server named \"" + name + "\"");
  server->stop(nullptr);
  return true;
}

void Servers::shutdown(std::function<void()> done, uint64_t kill_after_ms) {
  struct Shutdown {
    Servers* servers = nullptr;
    size_t left = 0;
    bool over = false;
    uv_timer_t* timer = nullptr;
    std::function<void()> done;
    std::shared_ptr<Shutdown> keep;  // while the timer may still fire
    void finish() {
      if (over) return;
      over = true;
      if (timer) {
        uv_close(reinterpret_cast<uv_handle_t*>(timer),
                 [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
        timer = nullptr;
      }
      auto self = std::move(keep);  // this lives until the end of finish()
      if (done) done();
    }
  };
  auto state = std::make_shared<Shutdown>();
  state->servers = this;
  state->left = servers_.size() + leaving_.size() + 1;
  state->done = std::move(done);
  if (kill_after_ms > 0) {
    state->keep = state;
    state->timer = new uv_timer_t;
    uv_timer_init(loop_, state->timer);
    state->timer->data = state.get();
    uv_timer_start(
        state->timer,
        [](uv_timer_t* t) {
          auto* shutdown = static_cast<Shutdown*>(t->data);
          // Destroying them SIGKILLs the process groups still running (StdioServer).
          shutdown->servers->servers_.clear();
          shutdown->servers->leaving_.clear();
          shutdown->finish();
        },
        kill_after_ms, 0);
  }
  auto one_gone = [state] {
    if (--state->left == 0) state->finish();
  };
  for (auto& server : servers_) server->stop(one_gone);
  for (auto& server : leaving_) server->stop(one_gone);
  one_gone();
}

}  // namespace toolhost::mcp
