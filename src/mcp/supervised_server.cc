#include "mcp/supervised_server.h"

#include <algorithm>

#include "mcp/http_connection.h"
#include "mcp/tool_cache.h"

namespace toolhost::mcp {
namespace {

// Runs `action` from the loop, outside whatever callback asked for it (a Client's own callback
// must not destroy that Client).
void defer(uv_loop_t* loop, std::function<void()> action) {
  auto* timer = new uv_timer_t;
  uv_timer_init(loop, timer);
  timer->data = new std::function<void()>(std::move(action));
  uv_timer_start(
      timer,
      [](uv_timer_t* t) {
        auto* run = static_cast<std::function<void()>*>(t->data);
        (*run)();
        delete run;
        uv_close(reinterpret_cast<uv_handle_t*>(t),
                 [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
      },
      0, 0);
}

bool same_tools(const std::vector<Tool>& a, const std::vector<Tool>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const Tool& x, const Tool& y) { return to_json(x) == to_json(y); });
}

// How long the Client lets a call run: past the job's own timeout, which ends it first (and
// sends notifications/cancelled); 0 in the spec switches the job's off.
uint64_t client_call_timeout(uint64_t timeout_ms) {
  constexpr uint64_t kMargin = 5000;
  constexpr uint64_t kDay = 24ull * 3600 * 1000;
  return timeout_ms == 0 ? kDay : timeout_ms + kMargin;
}

}  // namespace

// A process and its client on their way out: kept until the process is gone.
struct SupervisedServer::Retired {
  std::unique_ptr<Client> client;
  std::unique_ptr<StdioServer> server;
};

SupervisedServer::SupervisedServer(uv_loop_t* loop, ServerConfig config,
                                   const SupervisionOptions& options,
                                   std::function<void()> tools_changed)
    : loop_(loop),
      config_(std::move(config)),
      options_(options),
      tools_changed_(std::move(tools_changed)) {
  retry_ = new uv_timer_t;
  uv_timer_init(loop_, retry_);
  retry_->data = this;
  if (config_.disabled) state_ = State::kDisabled;
  if (!config_.error.empty()) {
    state_ = State::kDisabled;
    last_error_ = config_.error;
  }
  if (auto cached = read_tool_cache(options_.state_dir, config_.hash())) {
    tools_ = std::move(cached->tools);
    protocol_ = std::move(cached->protocol);
    tools_known_ = true;
  }
}

SupervisedServer::~SupervisedServer() {
  *alive_ = false;
  if (authorizer_) authorizer_->cancel();  // a sign-in waiting for its browser ends
  uv_close(reinterpret_cast<uv_handle_t*>(retry_),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
  waiting_.clear();
  client_.reset();  // before its transport's process
  server_.reset();
  for (auto& retired : retired_) retired->client.reset();
  retired_.clear();
}

const char* SupervisedServer::state_name(State state) {
  switch (state) {
    case State::kStopped: return "stopped";
    case State::kStarting: return "starting";
    case State::kReady: return "running";
    case State::kFailed: return "failed";
    case State::kDisabled: return "disabled";
  }
  return "stopped";
}

pid_t SupervisedServer::pid() const {
  return server_ && server_->running() ? server_->pid() : 0;
}

uint64_t SupervisedServer::backoff_ms() const {
  if (failures_ == 0) return 0;
  uint64_t delay = options_.backoff_initial_ms;
  for (unsigned i = 1; i < failures_ && delay < options_.backoff_max_ms; ++i) delay *= 2;
  return std::min(delay, options_.backoff_max_ms);
}

uint64_t SupervisedServer::retry_in_ms() const {
  if (state_ != State::kFailed) return 0;
  const uint64_t elapsed = uv_now(loop_) - failed_at_ms_;
  const uint64_t backoff = backoff_ms();
  return backoff > elapsed ? backoff - elapsed : 0;
}

void SupervisedServer::when_ready(Ready ready) {
  if (state_ == State::kDisabled) {
    return ready(last_error_.empty() ? config_.name + " is disabled" : last_error_);
  }
  if (state_ == State::kReady) return ready(std::nullopt);
  waiting_.push_back(std::move(ready));
  if (state_ == State::kStarting) return;
  const uint64_t wait = retry_in_ms();
  if (wait == 0) return start_now();
  if (uv_is_active(reinterpret_cast<uv_handle_t*>(retry_))) return;
  add_log("starting again in " + std::to_string(wait) + " ms (it failed " +
          std::to_string(failures_) + " time(s) in a row)");
  uv_timer_start(
      retry_,
      [](uv_timer_t* t) {
        auto* self = static_cast<SupervisedServer*>(t->data);
        if (!self->waiting_.empty() && self->state_ == State::kFailed) self->start_now();
      },
      wait, 0);
}

std::unique_ptr<jsonrpc::Transport> SupervisedServer::open_transport(std::string& error) {
  std::weak_ptr<bool> alive = alive_;
  if (!config_.url.empty()) {
    // No process: the connection is the server; closing the Client's transport sends the
    // DELETE that ends the session, and a 404 to it closes the connection (a failed call).
    return connect_http(
        loop_, config_,
        [this, alive](const std::string& what) {
          if (!alive.expired()) add_log("http: " + what);
        },
        error, signs_in(config_) ? authorizer() : nullptr);
  }
  StdioServer::Events events;
  events.stderr_line = [this, alive](const std::string& line) {
    if (!alive.expired()) add_log("stderr: " + line);
  };
  events.exited = [this, alive](const std::string& how) {
    if (!alive.expired()) add_log("the server " + how);
  };
  server_ = std::make_unique<StdioServer>(loop_, config_.stdio, events, options_.timing);
  return server_->start(error);
}

void SupervisedServer::start_now() {
  uv_timer_stop(retry_);
  const uint64_t generation = ++generation_;
  state_ = State::kStarting;
  std::weak_ptr<bool> alive = alive_;
  auto current = [this, alive, generation] {
    return !alive.expired() && generation == generation_;
  };
  std::string error;
  auto transport = open_transport(error);
  if (!transport) return fail(error);
  Client::Options options;
  options.version = options_.version;
  options.startup_timeout_ms = config_.startup_timeout_ms;
  // A sign-in may come first (the browser, a person): its wait is not the server's.
  if (signs_in(config_)) options.startup_timeout_ms += config_.oauth.timeout_ms;
  bool waits_for_sign_in = signs_in(config_) && config_.timeout_ms > 0;
  options.call_timeout_ms = client_call_timeout(
      config_.timeout_ms + (waits_for_sign_in ? config_.oauth.timeout_ms : 0));
  options.discover_first = config_.discover_first;
  Client::Events client_events;
  client_events.tools_changed = [this, current] {
    if (!current() || !client_) return;
    add_log("the server's tools changed: listing them again");
    client_->list_tools([this, current](ToolList list) {
      if (current()) listed(std::move(list), false);
    });
  };
  client_events.log = [this, alive](const std::string& level, const std::string& text) {
    if (!alive.expired()) add_log(level + ": " + text);
  };
  client_events.closed = [this, current](const std::string& reason) {
    if (current() && (state_ == State::kStarting || state_ == State::kReady)) fail(reason);
  };
  if (options_.elicit) {
    client_events.elicit = [elicit = options_.elicit, name = config_.name](
                               const ElicitationRequest& request,
                               std::function<void(ElicitationAnswer)> answer) {
      elicit(name, request, std::move(answer));
    };
  }
  client_ = std::make_unique<Client>(loop_, std::move(transport), options, client_events);
  if (!client_->start(error)) return fail(error);
  add_log("started: " + (config_.url.empty() ? config_.stdio.command : config_.url));
  client_->connect([this, current](std::optional<std::string> why) {
    if (!current()) return;
    if (why) return fail(*why);
    protocol_ = client_->server().protocol_version;
    client_->list_tools([this, current](ToolList list) {
      if (current()) listed(std::move(list), true);
    });
  });
}

void SupervisedServer::listed(ToolList list, bool first) {
  if (list.error) {
    if (first) return fail(*list.error);
    return add_log(*list.error + " (the tools listed before stay)");
  }
  const bool changed = !same_tools(tools_, list.tools) || !tools_known_;
  tools_ = std::move(list.tools);
  tools_known_ = true;
  if (first || changed) {
    std::string error =
        write_tool_cache(options_.state_dir, config_.hash(), config_.name, {protocol_, tools_});
    if (!error.empty()) add_log(error);
  }
  if (first) {
    state_ = State::kReady;
    failures_ = 0;
    last_error_.clear();
    add_log("ready: MCP " + protocol_ + ", " + std::to_string(tools_.size()) + " tool(s)");
  }
  if (changed && tools_changed_) tools_changed_();
  if (first) flush(std::nullopt);
}

void SupervisedServer::fail(const std::string& reason) {
  state_ = State::kFailed;
  last_error_ = reason;
  ++failures_;
  failed_at_ms_ = uv_now(loop_);
  add_log("failed: " + reason);
  retire(reason);
  flush(reason);
}

void SupervisedServer::retire(const std::string& reason) {
  ++generation_;
  if (!server_ && !client_) return;
  auto retired = std::make_unique<Retired>();
  retired->client = std::move(client_);
  retired->server = std::move(server_);
  Retired* raw = retired.get();
  retired_.push_back(std::move(retired));
  std::weak_ptr<bool> alive = alive_;
  auto forget = [this, alive, raw] {
    if (alive.expired()) return;
    auto it = std::find_if(retired_.begin(), retired_.end(),
                           [raw](const auto& r) { return r.get() == raw; });
    if (it != retired_.end()) {
      (*it)->client.reset();
      retired_.erase(it);
    }
    if (!retired_.empty()) return;
    auto waiting = std::move(when_all_retired_);
    when_all_retired_.clear();
    // Each may destroy this object: nothing of it is touched after.
    for (auto& done : waiting) done();
  };
  defer(loop_, [this, alive, raw, reason, forget] {
    if (alive.expired()) return;
    if (raw->client) raw->client->close(reason);  // its running calls fail with `reason`
    if (!raw->server) return defer(loop_, forget);
    raw->server->stop([this, alive, forget] {
      if (!alive.expired()) defer(loop_, forget);
    });
  });
}

void SupervisedServer::restart() {
  stop(nullptr);
  failures_ = 0;
  when_ready([](std::optional<std::string>) {});
}

void SupervisedServer::stop(std::function<void()> done) {
  uv_timer_stop(retry_);
  if (state_ != State::kDisabled) state_ = State::kStopped;
  failures_ = 0;
  if (server_) add_log("stopping");
  retire("the server was stopped");
  flush(std::string("the server was stopped"));
  if (!done) return;
  if (retired_.empty()) return done();
  when_all_retired_.push_back(std::move(done));
}

void SupervisedServer::flush(const std::optional<std::string>& error) {
  auto waiting = std::move(waiting_);
  waiting_.clear();
  for (auto& ready : waiting) ready(error);
}

void SupervisedServer::add_log(std::string line) {
  log_.push_back(std::move(line));
  while (log_.size() > kLogLines) log_.pop_front();
}

}  // namespace toolhost::mcp

namespace toolhost::mcp {

std::shared_ptr<OAuthAuthorizer> SupervisedServer::authorizer() {
  if (authorizer_) return authorizer_;
  OAuthAuthorizer::Options auth;
  auth.server = config_.name;
  auth.server_url = config_.url;
  auth.config = config_.oauth;
  auth.state_dir = options_.state_dir;
  std::weak_ptr<bool> alive = alive_;
  auth.on_sign_in = [this, alive](const std::string& url, const std::string& host) {
    if (alive.expired()) return;
    add_log("waiting for sign-in at " + host);
    sign_in_host_ = host;
    tell_sign_in_watches(waiting_line());
    if (options_.sign_in) options_.sign_in(config_.name, url, host);
  };
  auth.on_signed_in = [this, alive](const std::string& error) {
    if (alive.expired()) return;
    add_log(error.empty() ? "signed in" : error);
    sign_in_host_.clear();
    if (error.empty()) tell_sign_in_watches("signed in to " + config_.name + "\n");
  };
  authorizer_ = OAuthAuthorizer::create(loop_, std::move(auth));
  return authorizer_;
}

uint64_t SupervisedServer::watch_sign_in(SignInWatch watch) {
  static uint64_t watches = 0;  // ids unique across servers: a stale one erases nothing
  if (!sign_in_url().empty()) watch(waiting_line());
  sign_in_watches_.emplace(++watches, std::move(watch));
  return watches;
}

std::string SupervisedServer::waiting_line() const {
  return "waiting for sign-in to " + config_.name + " at " + sign_in_host_ +
         " (in your browser; the URL is in :ToolMcp)\n";
}

void SupervisedServer::tell_sign_in_watches(const std::string& line) {
  // A copy: a watch's output may end its call, which unwatches.
  std::vector<SignInWatch> watches;
  for (const auto& [id, watch] : sign_in_watches_) watches.push_back(watch);
  for (const auto& watch : watches) watch(line);
}

void SupervisedServer::login(std::function<void(std::optional<std::string> error)> done) {
  if (!signs_in(config_)) {
    return done(config_.name + (config_.url.empty() ? " is started with a command"
                                                    : " sends its own Authorization header") +
                ": it has no sign-in");
  }
  std::weak_ptr<bool> alive = alive_;
  authorizer()->sign_in([this, alive, done](std::optional<std::string> error) {
    if (!alive.expired() && !error && state_ == State::kFailed) restart();
    done(std::move(error));
  });
}

bool SupervisedServer::logout(std::string& error) {
  remove_oauth_record(options_.state_dir, config_.name, error);
  if (!error.empty()) return false;
  if (authorizer_) authorizer_->cancel();
  authorizer_.reset();  // its token in memory goes too
  if (state_ == State::kReady || state_ == State::kStarting) restart();
  add_log("signed out");
  return true;
}

}  // namespace toolhost::mcp
