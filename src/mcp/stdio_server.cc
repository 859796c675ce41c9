#include "mcp/stdio_server.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "jobs/reaping.h"
#include "jobs/spawn.h"
#include "jsonrpc/stream_transport.h"

extern char** environ;

namespace toolhost::mcp {
namespace {

uv_handle_t* as_handle(void* handle) {
  return static_cast<uv_handle_t*>(handle);
}

std::vector<std::string> environment_with(
    const std::vector<std::pair<std::string, std::string>>& additions) {
  std::vector<std::string> env;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string_view text(*entry);
    bool replaced = false;
    for (const auto& [key, value] : additions) {
      replaced = replaced || (text.size() > key.size() && text.compare(0, key.size(), key) == 0 &&
                              text[key.size()] == '=');
    }
    if (!replaced) env.emplace_back(text);
  }
  for (const auto& [key, value] : additions) env.push_back(key + "=" + value);
  return env;
}

std::string describe_exit(int status) {
  if (status < 0) return "exited";
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    int signal = WTERMSIG(status);
    const char* name = ::strsignal(signal);
    return "was killed by signal " + std::to_string(signal) +
           (name ? std::string(" (") + name + ")" : "");
  }
  return "ended with wait status " + std::to_string(status);
}

}  // namespace

// Everything the process's handles touch. Kept alive by `self` until the last handle closed,
// so libuv never calls into a freed block whatever is destroyed first.
struct StdioServer::State {
  uv_loop_t* loop = nullptr;
  Events events;
  Timing timing;
  std::shared_ptr<State> self;  // set while handles are open
  pid_t pid = 0;
  bool exited = false;
  int wait_status = -1;
  std::string how;         // set once the end was reported
  std::string end_reason;  // how, with the last stderr lines: the connection's end
  std::deque<std::string> tail;
  std::string partial;
  uv_pipe_t err{};
  bool err_open = false;
  uv_poll_t exit_watch{};
  int pidfd = -1;
  bool exit_watch_open = false;
  bool in_reaper = false;
  uv_timer_t timer{};  // the stop steps, then the linger after the exit
  bool timer_open = false;
  int open_handles = 0;
  bool stopping = false;
  bool released = false;  // the StdioServer is gone
  PipeTransport* transport = nullptr;
  std::function<void(const std::string&)> held_closed;  // the transport's, until the end
  std::vector<std::function<void()>> when_gone;

  bool ended() const { return !how.empty(); }
  void open_handle(void* handle) {
    as_handle(handle)->data = this;
    ++open_handles;
  }
  void close_handle(void* handle) {
    if (uv_is_closing(as_handle(handle))) return;
    uv_close(as_handle(handle), [](uv_handle_t* h) {
      auto* state = static_cast<State*>(h->data);
      if (--state->open_handles == 0) state->self.reset();  // may free the state
    });
  }
  void signal_group(int signal) {
    if (pid > 0 && ::kill(-pid, 0) == 0) ::kill(-pid, signal);
  }

  void read_stderr(std::string_view bytes);
  void stderr_line(std::string line);
  void reaped(int status);
  void maybe_report();
  void report();
  void stdout_closed(const std::string& reason, std::function<void(const std::string&)> closed);
  void begin_stop();
  void on_timer();
  void close_all();
};

// The Client's transport: the process's stdin and stdout. Its end of the conversation is
// reported once the process's end is known, with how it ended.
class StdioServer::PipeTransport : public jsonrpc::Transport {
 public:
  PipeTransport(std::shared_ptr<State> state, std::unique_ptr<jsonrpc::StreamTransport> pipes)
      : state_(std::move(state)), pipes_(std::move(pipes)) {
    state_->transport = this;
  }
  ~PipeTransport() override {
    if (state_->transport == this) state_->transport = nullptr;
    state_->held_closed = nullptr;  // it calls into our owner
  }

  bool start(Handlers handlers, std::string& error) override {
    auto closed = std::move(handlers.closed);
    std::weak_ptr<State> weak = state_;
    handlers.closed = [this, weak, closed](const std::string& reason) {
      auto state = weak.lock();
      if (!state || closing_) {
        if (closed) closed(reason);
        return;
      }
      state->stdout_closed(reason, closed);
    };
    return pipes_->start(std::move(handlers), error);
  }
  void send(std::string text) override { pipes_->send(std::move(text)); }
  void close(const std::string& reason) override {
    closing_ = true;  // ours: reported at once
    pipes_->close(reason);
  }
  bool is_open() const override { return pipes_->is_open(); }

 private:
  std::shared_ptr<State> state_;
  std::unique_ptr<jsonrpc::StreamTransport> pipes_;
  bool closing_ = false;
};

void StdioServer::State::read_stderr(std::string_view bytes) {
  while (!bytes.empty()) {
    size_t newline = bytes.find('\n');
    std::string_view piece = bytes.substr(0, newline);
    if (partial.size() < kMaxLineBytes) {
      partial.append(piece.substr(0, kMaxLineBytes - partial.size()));
    }
    if (newline == std::string_view::npos) return;
    stderr_line(std::move(partial));
    partial.clear();
    bytes.remove_prefix(newline + 1);
  }
}

void StdioServer::State::stderr_line(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  tail.push_back(line);
  if (tail.size() > kTailLines) tail.pop_front();
  if (auto log = events.stderr_line) log(line);
}

void StdioServer::State::reaped(int status) {
  exited = true;
  wait_status = status;
  if (timer_open) uv_timer_stop(&timer);
  // Descendants left in the group are the server's: they go with it.
  signal_group(SIGKILL);
  if (err_open && timer_open) {
    uv_timer_start(
        &timer, [](uv_timer_t* t) { static_cast<State*>(t->data)->report(); }, timing.linger_ms, 0);
  }
  maybe_report();
}

void StdioServer::State::maybe_report() {
  if (exited && !err_open) report();
}

void StdioServer::State::report() {
  if (ended()) return;
  if (!partial.empty()) stderr_line(std::exchange(partial, {}));
  how = describe_exit(wait_status);
  end_reason = "the server " + how;
  if (!tail.empty()) {
    end_reason += "; its last stderr lines:";
    for (const auto& line : tail) end_reason += "\n" + line;
  }
  auto keep = self;  // the callbacks below may release the StdioServer
  if (auto closed = std::exchange(held_closed, nullptr)) closed(end_reason);
  if (auto exited_event = events.exited) exited_event(how);
  for (auto& done : std::exchange(when_gone, {})) done();
  close_all();
}

void StdioServer::State::stdout_closed(const std::string& /*eof*/,
                                       std::function<void(const std::string&)> closed) {
  if (ended()) {
    if (closed) closed(end_reason);
    return;
  }
  held_closed = std::move(closed);
  begin_stop();  // a server that closed stdout but lives on is stopped
}

void StdioServer::State::begin_stop() {
  if (stopping || ended()) return;
  stopping = true;
  if (transport) transport->close("the server is stopping");
  if (!exited && timer_open) {
    uv_timer_start(
        &timer, [](uv_timer_t* t) { static_cast<State*>(t->data)->on_timer(); },
        timing.stdin_grace_ms, 0);
  }
}

void StdioServer::State::on_timer() {
  if (exited) return;
  if (uv_timer_get_repeat(&timer) == 0) {
    signal_group(SIGTERM);
    uv_timer_start(
        &timer, [](uv_timer_t* t) { static_cast<State*>(t->data)->on_timer(); },
        timing.term_grace_ms,
        timing.term_grace_ms);  // the repeat marks the second step
    return;
  }
  uv_timer_stop(&timer);
  signal_group(SIGKILL);
}

void StdioServer::State::close_all() {
  if (err_open) {
    err_open = false;
    close_handle(&err);
  }
  if (timer_open) {
    timer_open = false;
    close_handle(&timer);
  }
  if (exit_watch_open) {
    exit_watch_open = false;
    close_handle(&exit_watch);
  }
  if (pidfd >= 0) ::close(std::exchange(pidfd, -1));
  if (in_reaper) {
    if (auto* reaper = jobs::SigchldReaper::find(loop)) reaper->remove(pid);
    in_reaper = false;
  }
}

StdioServer::StdioServer(uv_loop_t* loop, StdioSpec spec, Events events, Timing timing)
    : spec_(std::move(spec)), state_(std::make_shared<State>()) {
  state_->loop = loop;
  state_->events = std::move(events);
  state_->timing = timing;
}

StdioServer::~StdioServer() {
  State& state = *state_;
  state.events = Events{};
  state.when_gone.clear();
  state.released = true;
  if (state.pid > 0 && !state.exited) {
    state.signal_group(SIGKILL);  // the exit watch stays open to reap it, then all close
  } else if (state.exited) {
    state.report();  // lingering for stderr: the transport learns the end now
  }
}

std::unique_ptr<jsonrpc::Transport> StdioServer::start(std::string& error) {
  State& state = *state_;
  if (state.pid > 0 || state.ended()) {
    error = "the server was started already";
    return nullptr;
  }
  jobs::JobSpec spec;
  spec.argv.push_back(spec_.command);
  spec.argv.insert(spec.argv.end(), spec_.args.begin(), spec_.args.end());
  spec.cwd = spec_.cwd;
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  auto close_all_fds = [&] {
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) {
      if (fd >= 0) ::close(fd);
    }
  };
  int code = 0;
  if (spec_.command.empty()) {
    error = "the server has no command";
    return nullptr;
  }
  if ((code = jobs::make_pipe(in)) != 0 || (code = jobs::make_pipe(out)) != 0 ||
      (code = jobs::make_pipe(err)) != 0) {
    close_all_fds();
    error = "cannot start `" + spec_.command + "`: cannot create a pipe: " + std::strerror(code);
    return nullptr;
  }
  jobs::SigchldReaper* reaper = nullptr;
  if (jobs::reaping() == jobs::Reaping::Sigchld) reaper = &jobs::SigchldReaper::of(state.loop);
  pid_t pid = 0;
  code = jobs::spawn_process(spec, environment_with(spec_.env), out[1], err[1], pid, in[0]);
  for (int* fd : {&in[0], &out[1], &err[1]}) ::close(std::exchange(*fd, -1));
  if (code == 0 && !reaper) {
    state.pidfd = jobs::pidfd_open(pid);
    if (state.pidfd < 0) code = errno;
  }
  if (code != 0) {
    if (pid > 0) {  // no way to see its exit: it must not outlive us unseen
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    close_all_fds();
    if (reaper) reaper->release_if_idle();
    error = "cannot start `" + spec_.command + "`: " + std::strerror(code);
    return nullptr;
  }
  state.pid = pid;
  state.self = state_;
  uv_timer_init(state.loop, &state.timer);
  state.open_handle(&state.timer);
  state.timer_open = true;
  uv_pipe_init(state.loop, &state.err, 0);
  state.open_handle(&state.err);
  state.err_open = true;
  uv_pipe_open(&state.err, std::exchange(err[0], -1));
  uv_read_start(
      reinterpret_cast<uv_stream_t*>(&state.err),
      [](uv_handle_t*, size_t, uv_buf_t* buf) {
        static char buffer[64 * 1024];
        *buf = uv_buf_init(buffer, sizeof buffer);
      },
      [](uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
        auto* s = static_cast<State*>(stream->data);
        if (nread > 0) s->read_stderr(std::string_view(buf->base, static_cast<size_t>(nread)));
        if (nread >= 0) return;
        s->err_open = false;
        s->close_handle(stream);
        if (!s->partial.empty()) s->stderr_line(std::exchange(s->partial, {}));
        s->maybe_report();
      });
  if (reaper) {
    std::weak_ptr<State> weak = state_;
    reaper->add(pid, [weak](int status) {
      if (auto s = weak.lock()) {
        s->in_reaper = false;
        s->reaped(status);
      }
    });
    state.in_reaper = true;
  } else {
    uv_poll_init(state.loop, &state.exit_watch, state.pidfd);
    state.open_handle(&state.exit_watch);
    state.exit_watch_open = true;
    uv_poll_start(&state.exit_watch, UV_READABLE, [](uv_poll_t* handle, int, int) {
      auto* s = static_cast<State*>(handle->data);
      std::optional<int> status = jobs::reap_pidfd(s->pidfd);
      if (!status) return;
      s->exit_watch_open = false;
      s->close_handle(handle);
      ::close(std::exchange(s->pidfd, -1));
      s->reaped(*status);
    });
  }
  return std::make_unique<PipeTransport>(
      state_, jsonrpc::StreamTransport::from_fds(state.loop, out[0], in[1]));
}

void StdioServer::stop(std::function<void()> done) {
  State& state = *state_;
  if (state.pid == 0 || state.ended()) {
    if (done) done();
    return;
  }
  if (done) state.when_gone.push_back(std::move(done));
  state.begin_stop();
}

bool StdioServer::running() const {
  return state_->pid > 0 && !state_->exited;
}

pid_t StdioServer::pid() const {
  return state_->pid;
}

std::deque<std::string> StdioServer::stderr_tail() const {
  return state_->tail;
}

std::string StdioServer::how_it_ended() const {
  return state_->how;
}

}  // namespace toolhost::mcp
