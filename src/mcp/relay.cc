#include "mcp/relay.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <vector>

#include "mcp/message_peek.h"
#include "mcp/protocol.h"

namespace toolhost::mcp {
namespace {

constexpr size_t kReadSize = 64 * 1024;
// Reading from a side stops while kHighWater bytes wait to be written to the other, and goes
// on once they are down to this: a reader that does not keep up holds the writer back instead
// of growing our memory.
constexpr size_t kLowWater = 1024 * 1024;

uv_stream_t* stream(uv_pipe_t* pipe) {
  return reinterpret_cast<uv_stream_t*>(pipe);
}
uv_handle_t* handle(uv_pipe_t* pipe) {
  return reinterpret_cast<uv_handle_t*>(pipe);
}

int connect_unix(const std::string& path, std::string& error) {
  sockaddr_un address{};
  if (path.size() >= sizeof address.sun_path) {
    error = "socket path too long: " + path;
    return -1;
  }
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    error = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    error = "cannot connect to " + path + ": " + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  return fd;
}

// The answer to a call the host owed when it went away.
std::string failed_call_answer(const Json& id, const std::string& reason) {
  Json text = {{"type", "text"},
               {"text", "The Neovim host went away before this call finished (" + reason +
                            "); it may have run in part. toolhost runs the calls here from now "
                            "on (those that need an approval wait for a Neovim to serve the "
                            "project): call it again if it is still needed."}};
  Json answer = {{"jsonrpc", "2.0"},
                 {"id", id},
                 {"result", {{"content", Json::array({text})}, {"isError", true}}}};
  return answer.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

struct Relay::State {
  // One way through the relay: lines read from `source` are written to `sink`.
  struct Direction {
    Direction(State* state, const char* from, size_t cap)
        : owner(state),
          from(from),
          splitter([this](std::string_view line) { owner->forward(*this, line); },
                   [this](size_t limit) { owner->dropped(*this, limit); }, cap) {}
    State* owner;
    const char* from;  // "agent" or "host", for messages
    uv_pipe_t* source = nullptr;
    uv_pipe_t* sink = nullptr;
    jsonrpc::LineSplitter splitter;
    size_t queued = 0;
    size_t writes_in_flight = 0;
    bool paused = false;
  };
  struct Write {
    uv_write_t req;
    std::string bytes;
    Direction* direction;
  };
  // A request of the agent the host has not answered yet.
  struct Owed {
    uint64_t order;
    std::string method;
    Json id;
    std::string line;  // to ask the next server again; empty for a call (never run twice)
  };

  State(uv_loop_t* loop, Options options, Done done)
      : loop(loop),
        options(std::move(options)),
        done(std::move(done)),
        up(this, "agent", this->options.max_line),
        down(this, "host", this->options.max_line) {
    up.source = &agent_in;
    up.sink = &host;
    down.source = &host;
    down.sink = &agent_out;
  }

  uv_loop_t* loop;
  Options options;
  Done done;
  uv_pipe_t agent_in{};
  uv_pipe_t agent_out{};
  uv_pipe_t host{};
  Direction up;    // the agent's requests to the host
  Direction down;  // the host's answers to the agent
  uv_shutdown_t shutdown{};
  int open_handles = 0;
  bool finishing = false;
  bool closed_all = false;
  bool orphaned = false;  // the Relay is gone: free this block after the last close
  std::string reason;
  // Kept only with options.host_gone: what the host owes the agent, by the id's JSON text.
  std::map<std::string, Owed> owed;
  uint64_t next_order = 0;
  Json initialize;
  bool agent_input_ended = false;
  bool handing_over = false;
  char buffer[kReadSize];

  // Owns `fd` from here: closes it when it cannot be opened, as StreamTransport does.
  int open(uv_pipe_t* pipe, Direction* direction, int fd) {
    if (int rc = uv_pipe_init(loop, pipe, 0)) {
      ::close(fd);
      return rc;
    }
    pipe->data = direction;
    ++open_handles;
    int rc = uv_pipe_open(pipe, fd);
    if (rc != 0) ::close(fd);
    return rc;
  }

  void forward(Direction& direction, std::string_view line) {
    if (finishing) return;
    if (options.host_gone) keep_track(direction, line);
    write_line(direction, line);
  }

  // What the host owes: the agent's requests until the host's answer with the same id passes.
  void keep_track(Direction& direction, std::string_view line) {
    PeekedMessage message = peek_message(line);
    if (&direction == &down) {
      if (message.is_answer && message.id) owed.erase(message.id->dump());
      return;
    }
    if (message.method == method::kCancelled) {
      // The host answers a cancelled call no more: the agent no longer waits for it.
      Json parsed = Json::parse(line, nullptr, false);
      if (parsed.is_object() && parsed["params"].is_object()) {
        owed.erase(parsed["params"].value("requestId", Json()).dump());
      }
      return;
    }
    if (!message.is_request()) return;
    const bool call = message.method == method::kToolsCall;
    owed[message.id->dump()] =
        Owed{next_order++, message.method, *message.id, call ? std::string() : std::string(line)};
    if (message.method == method::kInitialize) {
      Json parsed = Json::parse(line, nullptr, false);
      if (parsed.is_object()) initialize = parsed.value("params", Json::object());
    }
  }

  void write_line(Direction& direction, std::string_view line) {
    auto* write = new Write{{}, std::string(line), &direction};  // owned by on_write
    write->bytes.push_back('\n');
    write->req.data = this;
    uv_buf_t buf = uv_buf_init(write->bytes.data(), static_cast<unsigned>(write->bytes.size()));
    if (int rc = uv_write(&write->req, stream(direction.sink), &buf, 1, on_write)) {
      delete write;
      if (&direction == &up) {
        host_went(std::string("cannot write to the host: ") + uv_strerror(rc));
      } else {
        agent_failed(std::string("cannot write to the agent: ") + uv_strerror(rc));
      }
      return;
    }
    direction.queued += write->bytes.size();
    ++direction.writes_in_flight;
    if (direction.queued > Relay::kHighWater && !direction.paused) {
      direction.paused = true;
      uv_read_stop(stream(direction.source));
    }
  }

  void dropped(Direction& direction, size_t limit) {
    if (options.log) {
      options.log(std::string("dropped a line over ") + std::to_string(limit) + " bytes from the " +
                  direction.from);
    }
  }

  bool start_reading(Direction& direction) {
    return uv_read_start(stream(direction.source), on_alloc, on_read) == 0;
  }

  // The agent's input ended: the host reads end of input after the lines already queued,
  // answers what it has, and closes, which ends the relay.
  void agent_ended() {
    agent_input_ended = true;
    if (uv_is_active(handle(&agent_in))) uv_read_stop(stream(&agent_in));
    shutdown.data = this;
    int rc = uv_shutdown(&shutdown, stream(&host), [](uv_shutdown_t* req, int status) {
      auto* self = static_cast<State*>(req->data);
      if (status < 0 && status != UV_ECANCELED) {
        self->finish(std::string("cannot end the host's input: ") + uv_strerror(status), false);
      }
    });
    if (rc != 0) finish(std::string("cannot end the host's input: ") + uv_strerror(rc), false);
  }

  // The owed calls (`calls`: their lines are not kept) or the other owed requests, in the order
  // the agent sent them.
  std::vector<const Owed*> owed_in_order(bool calls) const {
    std::vector<const Owed*> found;
    for (const auto& [key, request] : owed) {
      if (request.line.empty() == calls) found.push_back(&request);
    }
    std::sort(found.begin(), found.end(),
              [](const Owed* a, const Owed* b) { return a->order < b->order; });
    return found;
  }

  // The host went: the relay ends, or with options.host_gone and the agent still there, the
  // calls the host owed are answered as failed after its last lines, and the agent is handed
  // over once those are written.
  void host_went(const std::string& why) {
    if (finishing) return;
    if (!options.host_gone || agent_input_ended) return finish(why, true);
    handing_over = true;
    for (const Owed* call : owed_in_order(true)) write_line(down, failed_call_answer(call->id, why));
    finish(why, true);
  }

  // Nobody to hand over to: the relay ends.
  void agent_failed(const std::string& why) {
    handing_over = false;
    finish(why, false);
  }

  Handover handover() {
    Handover next;
    next.reason = reason;
    next.calls_failed = static_cast<size_t>(std::count_if(
        owed.begin(), owed.end(), [](const auto& entry) { return entry.second.line.empty(); }));
    for (const Owed* request : owed_in_order(false)) {
      next.unread += request->line + "\n";
      // The host never answered the handshake: the next server answers it.
      if (request->method == method::kInitialize) initialize = Json();
    }
    next.unread += up.splitter.take_partial();
    next.initialize = std::move(initialize);
    return next;
  }

  // `flush`: what is queued for the agent still goes out (the host's last answers).
  void finish(const std::string& why, bool flush) {
    if (finishing) return;
    finishing = true;
    reason = why;
    for (uv_pipe_t* pipe : {&agent_in, &host}) {
      if (handle(pipe)->loop != nullptr && uv_is_active(handle(pipe))) uv_read_stop(stream(pipe));
    }
    if (!flush || down.writes_in_flight == 0) close_all();  // else on_write does it
  }

  void close_all() {
    for (uv_pipe_t* pipe : {&agent_in, &agent_out, &host}) {
      if (handle(pipe)->loop != nullptr && !uv_is_closing(handle(pipe))) {
        uv_close(handle(pipe), on_closed);
      }
    }
  }

  static State* owner_of(uv_handle_t* h) { return static_cast<Direction*>(h->data)->owner; }

  static void on_closed(uv_handle_t* h) {
    State* self = owner_of(h);
    if (--self->open_handles > 0) return;
    if (self->orphaned) {
      delete self;
      return;
    }
    self->closed_all = true;
    if (self->handing_over) {
      auto host_gone = std::move(self->options.host_gone);
      self->done = nullptr;
      host_gone(self->handover());  // may destroy the Relay, and with it this block
      return;
    }
    auto done = std::move(self->done);
    if (done) done(self->reason);  // may destroy the Relay, and with it this block
  }

  static void on_alloc(uv_handle_t* h, size_t, uv_buf_t* buf) {
    State* self = owner_of(h);
    *buf = uv_buf_init(self->buffer, sizeof self->buffer);
  }

  static void on_read(uv_stream_t* s, ssize_t nread, const uv_buf_t* buf) {
    auto* direction = static_cast<Direction*>(s->data);
    State* self = direction->owner;
    if (nread > 0) {
      direction->splitter.feed(std::string_view(buf->base, static_cast<size_t>(nread)));
      return;
    }
    if (nread == 0) return;
    bool from_agent = direction == &self->up;
    if (from_agent) {
      // A read error on stdin ends the agent's input like EOF does: the host still answers.
      if (nread != UV_EOF && self->options.log) {
        self->options.log(std::string("reading from the agent failed: ") +
                          uv_strerror(static_cast<int>(nread)));
      }
      self->agent_ended();
    } else if (nread == UV_EOF) {
      self->host_went("the host closed the connection");
    } else {
      self->host_went(std::string("reading from the host failed: ") +
                      uv_strerror(static_cast<int>(nread)));
    }
  }

  static void on_write(uv_write_t* req, int status) {
    std::unique_ptr<Write> write(reinterpret_cast<Write*>(req));
    auto* self = static_cast<State*>(req->data);
    Direction& direction = *write->direction;
    direction.queued -= write->bytes.size();
    --direction.writes_in_flight;
    if (status < 0 && status != UV_ECANCELED) {
      if (&direction == &self->up) {
        self->host_went(std::string("writing to the host failed: ") + uv_strerror(status));
      } else {
        self->agent_failed(std::string("writing to the agent failed: ") + uv_strerror(status));
      }
    }
    if (self->finishing) {
      if (self->down.writes_in_flight == 0) self->close_all();
      return;
    }
    if (direction.paused && direction.queued <= kLowWater) {
      direction.paused = false;
      if (!self->start_reading(direction)) self->finish("cannot read any more", false);
    }
  }
};

std::unique_ptr<Relay> Relay::start(uv_loop_t* loop, int in_fd, int out_fd,
                                    const std::string& socket_path, Done done, std::string& error,
                                    Options options) {
  int socket_fd = connect_unix(socket_path, error);
  if (socket_fd < 0) return nullptr;
  // libuv watches a descriptor with one handle: the same fd both ways gets a second number.
  if (out_fd == in_fd) out_fd = ::dup(in_fd);
  auto* state = new State(loop, std::move(options), std::move(done));
  std::unique_ptr<Relay> relay(new Relay(state));  // from here ~Relay cleans up
  bool opened = state->open(&state->host, &state->down, socket_fd) == 0;
  opened = opened && state->open(&state->agent_in, &state->up, in_fd) == 0;
  opened = opened && state->open(&state->agent_out, &state->down, out_fd) == 0;
  if (!opened || !state->start_reading(state->up) || !state->start_reading(state->down)) {
    error = "cannot relay between the standard streams and " + socket_path;
    return nullptr;
  }
  return relay;
}

Relay::~Relay() {
  state_->done = nullptr;  // nothing calls back into a destroyed owner
  state_->orphaned = true;
  if (state_->open_handles == 0) {
    delete state_;
    return;
  }
  state_->finishing = true;
  state_->close_all();
}

bool Relay::finished() const {
  return state_->closed_all;
}

bool Relay::waiting_for_agent() const {
  return state_->down.paused;
}

}  // namespace toolhost::mcp
