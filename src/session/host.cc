#include "session/host.h"

#include "base/log.h"
#include "rpc/convert.h"
#include "session/job_queries.h"
#include "tools/tool_table.h"

namespace toolhost::session {
namespace {

// The first argument of a notification from Lua: one table.
nlohmann::json first_arg(const rpc::Message& message) {
  nlohmann::json params = rpc::to_json(message.params);
  return params.is_array() && !params.empty() ? params[0] : nlohmann::json::object();
}

jobs::EngineOptions engine_options(const HostOptions& host) {
  jobs::EngineOptions options;
  options.state_dir = host.state_dir;
  options.cache_dir = host.cache_dir;
  return options;
}

// ui.apply returns what became of each rewrite; the host only logs it for now.
constexpr const char* kApplyBatch = "return require('toolhost.ui').apply(...)";
// The answer to a `toolhost.call`: (token, error or nil, result or nil).
constexpr const char* kResolveCall = "require('toolhost.host').resolve(...)";

}  // namespace

Host::Host(uv_loop_t* loop, rpc::Peer& peer, HostOptions options)
    : loop_(loop),
      peer_(peer),
      options_(std::move(options)),
      api_(peer),
      config_(config_from_json(nlohmann::json::object())),
      tools_(tools::builtin_tool_table()),
      engine_(loop, engine_options(options_)),
      feedback_(loop, [this](nlohmann::json batch) { send_batch(std::move(batch)); }) {
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
    if (Session* s = session(event.buf)) s->on_lines(event);
  });
  api_.on_detach([this](int64_t buf) { detach(buf); });

  peer_.on_request("toolhost.ping", [this](const rpc::Message&, rpc::Peer::Respond respond) {
    respond(nullptr, {{"version", options_.version},
                      {"pid", static_cast<int64_t>(uv_os_getpid())},
                      {"api_level", info_.api_level}});
  });
  for (const std::string& method : job_query_methods()) {
    peer_.on_request(method, [this, method](const rpc::Message& message, rpc::Peer::Respond respond) {
      try {
        respond(nullptr, answer_job_query(engine_, method, first_arg(message)));
      } catch (const QueryError& e) {
        respond(e.what(), nullptr);
      }
    });
  }
  peer_.on_notification("toolhost.call",
                        [this](const rpc::Message& message) { call(first_arg(message)); });
  peer_.on_notification("toolhost.setup", [this](const rpc::Message& message) {
    try {
      config_ = config_from_json(first_arg(message));
    } catch (const std::exception& e) {
      feedback_.notify(std::string("toolhost: invalid options: ") + e.what(), "error");
      return;
    }
    jobs::EngineOptions engine = engine_.options();
    engine.max_concurrent = config_.max_concurrent;
    engine.kill_grace_ms = config_.kill_grace_ms;
    engine.log_max_bytes = config_.log_max_bytes;
    engine.history_max = config_.history_max;
    engine_.set_options(engine);
    uv_timer_set_repeat(&ticker_, std::max<uint64_t>(10, config_.stream_interval_ms));
  });
  peer_.on_notification("toolhost.attach",
                        [this](const rpc::Message& message) { attach(first_arg(message)); });
  peer_.on_notification("toolhost.detach", [this](const rpc::Message& message) {
    int64_t buf = first_arg(message).value("buf", int64_t{0});
    api_.buf_detach(buf, nullptr);
    detach(buf);
  });
  peer_.on_notification("toolhost.run", [this](const rpc::Message& message) {
    nlohmann::json args = first_arg(message);
    Session* s = session(args.value("buf", int64_t{0}));
    if (!s) return feedback_.notify("toolhost: this buffer is not attached", "error");
    int row = args.value("row", 0);
    bool force = args.value("force", false);
    s->when_ready([this, s, row, force] {
      s->run_at(row, force);
      update_ticker();
    });
  });
  peer_.on_notification("toolhost.cancel", [this](const rpc::Message& message) {
    nlohmann::json args = first_arg(message);
    if (args.contains("id")) {
      if (!engine_.cancel(args["id"].get<std::string>())) {
        feedback_.notify("toolhost: no running job " + args["id"].get<std::string>(), "warn");
      }
      return;
    }
    Session* s = session(args.value("buf", int64_t{0}));
    int row = args.value("row", 0);
    if (!s || !s->cancel_at(row)) feedback_.notify("No running tool call under the cursor", "warn");
  });
}

void Host::call(const nlohmann::json& args) {
  nlohmann::json token = args.value("token", nlohmann::json());
  std::string method = args.value("method", std::string());
  nlohmann::json error, result;
  try {
    result = answer_job_query(engine_, method, args.value("args", nlohmann::json::object()));
  } catch (const QueryError& e) {
    error = e.what();
  }
  api_.exec_lua(kResolveCall, nlohmann::json::array({token, error, result}),
                [method](const std::string& failure, const nlohmann::json&) {
                  if (!failure.empty()) log::error("answering " + method + " failed: " + failure);
                });
}

Session* Host::session(int64_t buf) {
  auto it = sessions_.find(buf);
  return it == sessions_.end() ? nullptr : it->second.get();
}

void Host::attach(const nlohmann::json& args) {
  int64_t buf = args.value("buf", int64_t{0});
  if (buf <= 0 || sessions_.count(buf)) return;
  Context context{api_, feedback_, engine_, config_, tools_};
  sessions_.emplace(buf, std::make_unique<Session>(context, buf, args.value("root", std::string(".")),
                                                   args.value("name", std::string())));
  api_.buf_attach(buf, [this, buf](const std::string& error, bool attached) {
    if (error.empty() && attached) return;
    log::warn("nvim_buf_attach(" + std::to_string(buf) + ") failed: " + error);
    sessions_.erase(buf);
  });
}

void Host::detach(int64_t buf) {
  auto it = sessions_.find(buf);
  if (it == sessions_.end()) return;
  // Running jobs keep going and still reach the job list; their session stays until then.
  it->second->detach();
  if (!it->second->has_active()) sessions_.erase(it);
}

void Host::update_ticker() {
  bool any = false;
  for (const auto& [buf, s] : sessions_) any = any || s->has_active();
  bool running = uv_is_active(reinterpret_cast<uv_handle_t*>(&ticker_));
  if (any && !running) {
    uint64_t interval = std::max<uint64_t>(10, config_.stream_interval_ms);
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
  api_.exec_lua(kApplyBatch, nlohmann::json::array({std::move(batch)}),
                [](const std::string& error, const nlohmann::json& result) {
                  if (!error.empty()) return log::error("applying feedback failed: " + error);
                  log::debug("feedback applied: " + result.dump());
                });
}

void Host::shutdown(uint64_t grace_ms, std::function<void()> done) {
  uv_timer_stop(&ticker_);
  engine_.shutdown(grace_ms, [this, done = std::move(done)] {
    feedback_.close();
    uv_close(reinterpret_cast<uv_handle_t*>(&ticker_), nullptr);
    done();
  });
}

}  // namespace toolhost::session
