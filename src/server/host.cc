#include "server/host.h"

#include <algorithm>

#include "base/log.h"
#include "base/memory.h"
#include "mcp/oauth_store.h"
#include "rpc/convert.h"
#include "server/args.h"
#include "server/job_methods.h"
#include "server/tool_methods.h"

namespace toolhost::server {
namespace {

// The first argument of a request or notification from Lua: one table.
nlohmann::json first_arg(const rpc::Message& message) {
  nlohmann::json params = rpc::to_json(message.params);
  return params.is_array() && !params.empty() ? params[0] : nlohmann::json::object();
}

// The options with toolhost's own secrets hidden from every sandboxed command: the MCP
// sign-in records (their directory is made first, so that the sandbox covers it).
core::Config with_records_hidden(core::Config config, const std::string& state_dir) {
  std::string error;
  if (!mcp::hide_oauth_records(config, state_dir, error)) log::warn(error);
  return config;
}

jobs::EngineOptions engine_options(const HostOptions& host) {
  jobs::EngineOptions options;
  options.state_dir = host.state_dir;
  options.cache_dir = host.cache_dir;
  return options;
}

// ui.apply_all applies a list of batches (several when Neovim was busy with the previous list)
// in slices, and says what became of each rewrite: in its answer, or in a `toolhost.applied`
// notification when it answered {pending = true}; the host only logs it for now. The batches
// name their host: Lua drops those that a host sent just before it died.
std::string apply_batches_code(const std::string& instance) {
  return "return require('toolhost.ui').apply_all(..., " + nlohmann::json(instance).dump() + ")";
}
// The answer to a `toolhost.call`: (token, error or nil, result or nil).
constexpr const char* kResolveCall = "require('toolhost.host').resolve(...)";

}  // namespace

Host::Host(uv_loop_t* loop, rpc::Peer& peer, HostOptions options)
    : loop_(loop),
      peer_(peer),
      options_(std::move(options)),
      api_(peer),
      config_(with_records_hidden(*core::config_from_json(nlohmann::json::object()),
                                  options_.state_dir)),
      tools_(core::builtin_tool_table()),
      engine_(loop, engine_options(options_)),
      held_work_(loop, engine_),
      feedback_(loop, [this](nlohmann::json batch) { send_batch(std::move(batch)); }),
      lua_tools_(api_),
      reads_(
          api_,
          [this](int64_t buf, std::vector<std::string> lines) { loaded(buf, std::move(lines)); },
          [this](int64_t buf, const std::string& error) { attach_failed(buf, error); }),
      agents_(AgentHub::Env{
          loop, &api_, &config_,
          options_.registry_state_dir.empty() ? options_.state_dir : options_.registry_state_dir,
          options_.version, [this](int64_t buf) { return session(buf); },
          [this] { update_ticker(); }}),
      elicitations_([this](const nlohmann::json& question, std::function<void()> failed) {
        send_question(question, std::move(failed));
      }),
      mcp_(
          loop, options_.state_dir, options_.cache_dir, options_.version, tools_,
          [this] { rebuild_tools(); },
          [this](const std::string& server, const mcp::ElicitationRequest& request,
                 std::function<void(mcp::ElicitationAnswer)> answer) {
            elicitations_.ask(server, request, std::move(answer));
          },
          [this](const std::string& server, const std::string& url, const std::string& host) {
            send_sign_in(server, url, host);
          }),
      quickfix_(
          loop, [this](nlohmann::json update) { feedback_.quickfix(std::move(update)); },
          [this](const std::string& message) { feedback_.notify(message, "warn"); }) {
  uv_timer_init(loop_, &ticker_);
  ticker_.data = this;
}

void Host::start() {
  api_.get_api_info([this](const std::string& error, nvim::ApiInfo info) {
    if (!error.empty()) return log::error("nvim_get_api_info failed: " + error);
    info_ = info;
    log::info("connected to Neovim " + info.version + " (api level " +
              std::to_string(info.api_level) + ", channel " + std::to_string(info.channel) + ")");
  });
  api_.on_lines([this](nvim::LinesEvent& event) {
    if (reads_.on_lines(event)) return;  // into the buffer being read
    if (session::Session* s = session(event.buf)) s->on_lines(event);
  });
  api_.on_detach([this](int64_t buf) {
    // The echo of our own nvim_buf_detach (it arrives before its response) must not detach
    // a session that :ToolAttach has re-attached since.
    if (!own_detaches_.count(buf)) forget(buf);
  });

  auto bind = [this](Reply (Host::*method)(const nlohmann::json&)) {
    return [this, method](const nlohmann::json& args) { return (this->*method)(args); };
  };
  methods_.add("toolhost.ping", bind(&Host::ping));
  methods_.add("toolhost.setup", bind(&Host::setup));
  methods_.add("toolhost.sandbox", bind(&Host::sandbox_status));
  methods_.add("toolhost.attach", bind(&Host::attach));
  methods_.add("toolhost.detach", bind(&Host::detach));
  methods_.add("toolhost.run", bind(&Host::run));
  methods_.add("toolhost.cancel", bind(&Host::cancel));
  methods_.add("toolhost.reject", bind(&Host::reject));
  methods_.add("toolhost.run_all", bind(&Host::run_all));
  methods_.add("toolhost.run_all_plan", bind(&Host::run_all_plan));
  methods_.add("toolhost.assistant_done", bind(&Host::assistant_done));
  methods_.add("toolhost.idle", bind(&Host::idle));
  methods_.add("jobs.rerun", bind(&Host::rerun));
  methods_.add("toolhost.submit", bind(&Host::submit));
  methods_.add("toolhost.mirror", bind(&Host::mirror));
  methods_.add("toolhost.serve_agents", bind(&Host::serve_agents));
  methods_.add("jobs.list",
               [this](const nlohmann::json& args) { return jobs_list(engine_, args); });
  methods_.add("jobs.get", [this](const nlohmann::json& args) { return jobs_get(engine_, args); });
  methods_.add("jobs.output",
               [this](const nlohmann::json& args) { return jobs_output(engine_, args); });
  methods_.add("jobs.cancel",
               [this](const nlohmann::json& args) { return jobs_cancel(engine_, args); });
  methods_.add("jobs.interrupt_host", bind(&Host::interrupt_host));
  methods_.add("toolhost.tools",
               [this](const nlohmann::json& args) { return tools_list(tools_, args); });
  add_mcp_methods();
  for (const std::string& method : methods_.names()) serve(method);
  peer_.on_notification("toolhost.call",
                        [this](const rpc::Message& message) { bridge(first_arg(message)); });
  peer_.on_notification("toolhost.done", [this](const rpc::Message& message) {
    lua_tools_.resolve(first_arg(message));
  });
  peer_.on_notification("toolhost.applied", [this](const rpc::Message& message) {
    api_.batches_applied(first_arg(message));
  });
}

void Host::serve(const std::string& method) {
  peer_.on_request(method, [this, method](const rpc::Message& message, rpc::Peer::Respond respond) {
    Reply reply = methods_.call(method, first_arg(message));
    if (reply) return respond(nullptr, *reply);
    respond(reply.error(), nullptr);
  });
  // A notification has no one to answer: the user reads the error.
  peer_.on_notification(method, [this, method](const rpc::Message& message) {
    Reply reply = methods_.call(method, first_arg(message));
    if (reply) return;
    log::warn(method + ": " + reply.error());
    feedback_.notify("toolhost: " + method + ": " + reply.error(), "error");
  });
}

void Host::bridge(const nlohmann::json& raw) {
  // A question about an attached buffer (toolhost.run_all_plan) is answered once the host has
  // read that buffer, after the commands on it sent before (with_session): right after the
  // attach its mirror may still be empty.
  const nlohmann::json call_args =
      raw.is_object() ? raw.value("args", nlohmann::json()) : nlohmann::json();
  if (call_args.is_object() && call_args.contains("buf") && call_args["buf"].is_number_integer()) {
    session::Session* s = session(call_args["buf"].get<int64_t>());
    if (s && !s->detached()) return s->when_read_or_detached([this, raw] { answer(raw); });
  }
  answer(raw);
}

void Host::answer(const nlohmann::json& raw) {
  Args args(raw);
  nlohmann::json token = args.raw().value("token", nlohmann::json());
  std::string method = args.string("method");
  Reply reply = args.ok()
                    ? methods_.call(method, args.raw().value("args", nlohmann::json::object()))
                    : Reply(core::error(args.error()));
  nlohmann::json error = reply ? nlohmann::json() : nlohmann::json(reply.error());
  nlohmann::json result = reply ? *reply : nlohmann::json();
  api_.exec_lua(kResolveCall, nlohmann::json::array({token, error, result}),
                [method](const std::string& failure, const nlohmann::json&) {
                  if (!failure.empty()) log::error("answering " + method + " failed: " + failure);
                });
}

Host::Reply Host::ping(const nlohmann::json&) {
  return nlohmann::json{{"version", options_.version},
                        {"pid", static_cast<int64_t>(uv_os_getpid())},
                        {"api_level", info_.api_level},
                        {"sessions", sessions_.size()}};
}

Host::Reply Host::setup(const nlohmann::json& args) {
  auto config = core::config_from_json(args);
  if (!config) return core::error("invalid options: " + config.error());
  config_ = with_records_hidden(std::move(*config), options_.state_dir);
  agents_.config_changed();
  // Sessions parse with the custom tools and the MCP servers' tools too (Lua sets the host up
  // before it attaches a buffer; a server's tools come from its cache until it lists them).
  configure_mcp(args.is_object() ? args.value("mcp", nlohmann::json()) : nlohmann::json());
  rebuild_tools();
  engine_.set_options(jobs::with_config(engine_.options(), config_));
  // The worker that parses build output is the user's own Neovim binary (v:progpath).
  if (args.is_object() && args.value("progpath", nlohmann::json()).is_string()) {
    quickfix_.set_nvim(args["progpath"].get<std::string>());
  }
  quickfix_.set_config(config_.quickfix);
  uv_timer_set_repeat(&ticker_, std::max<uint64_t>(10, config_.output.stream_interval_ms));
  // Lua's job mirror (toolhost.jobs(), statusline) starts from what the host knows, history
  // included, so it lists the same jobs as jobs.list also right after a restart.
  // A page at a time, each once Neovim has applied the lists before it (send_batch()).
  feedback_.gate_pages([this] { return api_.batches_idle(); });
  feedback_.all_jobs(session::mirror_records(engine_.list()));
  announce_sandbox();
  return ok();
}

Host::Reply Host::interrupt_host(const nlohmann::json& raw) {
  Args args(raw);
  int64_t pid = args.integer_or("pid", 0);
  if (!args.ok()) return core::error(args.error());
  if (pid <= 0) return core::error("`pid` must be a process id");
  size_t count = engine_.interrupt_host(static_cast<int>(pid), "the host was restarted");
  return nlohmann::json{{"interrupted", count}};
}

void Host::update_ticker() {
  bool any = false;
  for (const auto& [buf, s] : sessions_) any = any || s->has_active();
  bool running = uv_is_active(reinterpret_cast<uv_handle_t*>(&ticker_));
  if (any && !running) {
    uint64_t interval = std::max<uint64_t>(10, config_.output.stream_interval_ms);
    uv_timer_start(
        &ticker_,
        [](uv_timer_t* timer) {
          auto* self = static_cast<Host*>(timer->data);
          for (auto& [buf, s] : self->sessions_) s->tick();
          self->update_ticker();
        },
        interval, interval);
  } else if (!any && running) {
    uv_timer_stop(&ticker_);
  }
}

void Host::send_batch(nlohmann::json batch) {
  // A session detached while a job ran leaves once its jobs have ended (outside its code here).
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    it = it->second->detached() && !it->second->has_active() ? sessions_.erase(it) : ++it;
  }
  // A stopping host writes nothing more into the buffers: whoever stopped it (Neovim quitting,
  // :ToolhostRestart, a signal) leaves the calls it was running to Lua, which marks them
  // `interrupted` (as the jobs end here), so no call gets a second result.
  if (stopping_) return;
  api_.exec_lua_batched(
      apply_batches_code(options_.instance), std::move(batch),
      [this](const std::string& error, const nlohmann::json& result) {
        // The job mirror a start sends is the host's last burst before it idles: reading the
        // history and paging it leave megabytes free in the heap (10 MB idle with 500 jobs).
        if (feedback_.take_mirror_sent()) base::release_free_memory();
        feedback_.resume_pages();
        if (!error.empty()) {
          return log::error("applying feedback failed: " + error);
        }
        // A step that failed lost only itself (ui.lua).
        const nlohmann::json none = nlohmann::json::array();
        const nlohmann::json errors = result.is_object() ? result.value("errors", none) : none;
        if (errors.is_array() && !errors.empty()) {
          log::error("applying feedback failed: " +
                     errors.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
        }
        log::debug("feedback applied: " + result.dump());
      });
}

void Host::shutdown(uint64_t grace_ms, std::function<void()> done) {
  stopping_ = true;
  uv_timer_stop(&ticker_);
  agents_.close();  // the agents' calls are canceled with the jobs below
  // Both at once: the engine's end of a running MCP call tells its server (cancelled) while
  // the servers are still there; they close when told to stop, and what is left of them after
  // the grace is killed (the process exits soon after: no server may outlive it).
  auto left = std::make_shared<int>(3);
  auto one_done = [this, left, done = std::move(done)] {
    if (--*left > 0) return;
    feedback_.close();
    api_.flush_batches();
    uv_close(reinterpret_cast<uv_handle_t*>(&ticker_), nullptr);
    held_work_.close();
    done();
  };
  engine_.shutdown(grace_ms, one_done);
  mcp_.servers().shutdown(one_done, grace_ms);
  quickfix_.close(one_done);
}

}  // namespace toolhost::server
