#include "jsonrpc/stream_transport.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <utility>

namespace toolhost::jsonrpc {
namespace {

constexpr size_t kReadSize = 64 * 1024;

struct WriteRequest {
  uv_write_t req;
  std::string bytes;
};

uv_stream_t* stream(uv_pipe_t* pipe) {
  return reinterpret_cast<uv_stream_t*>(pipe);
}

}  // namespace

// Outlives the StreamTransport when it is destroyed with handles still open: libuv calls back
// into this block, never into a freed transport.
struct StreamTransport::Handles {
  explicit Handles(size_t cap)
      : splitter([this](std::string_view line) { deliver(line); },
                 [this](size_t limit) { dropped(limit); }, cap) {}

  uv_pipe_t in{};
  uv_pipe_t out{};
  bool one_handle = false;  // a socket: `in` reads and writes
  int open_handles = 0;
  bool open = false;
  bool closing = false;
  bool orphaned = false;  // the transport is gone: free this block after the last close
  size_t queued = 0;
  size_t writes_in_flight = 0;
  std::string close_reason;
  std::string unread;
  LineSplitter splitter;
  Handlers handlers;
  char buffer[kReadSize];

  uv_pipe_t* writer() { return one_handle ? &in : &out; }

  // Copies of the handlers are called: one may close the connection, which clears these.
  void deliver(std::string_view line) {
    if (!open || !handlers.message) return;
    auto message = handlers.message;
    message(line);
  }
  void dropped(size_t limit) {
    if (!open || !handlers.dropped) return;
    auto report = handlers.dropped;
    report("a message over " + std::to_string(limit) + " bytes was dropped");
  }

  void begin_close(const std::string& reason) {
    if (closing) return;
    closing = true;
    bool was_open = open;
    open = false;
    close_reason = reason;
    if (open_handles > 0 && uv_is_active(reinterpret_cast<uv_handle_t*>(&in))) {
      uv_read_stop(stream(&in));
    }
    if (writes_in_flight == 0) close_handles();  // else on_write closes after the last one
    // Last: the handler may destroy the transport, which only marks this block orphaned.
    drop_handlers_reporting_closed(handlers, was_open, reason);
  }

  void close_handles() {
    for (uv_pipe_t* pipe : {&in, &out}) {
      if (pipe == &out && one_handle) continue;
      auto* handle = reinterpret_cast<uv_handle_t*>(pipe);
      if (handle->loop != nullptr && !uv_is_closing(handle)) uv_close(handle, on_closed);
    }
  }

  static void on_closed(uv_handle_t* handle) {
    auto* self = static_cast<Handles*>(handle->data);
    if (--self->open_handles == 0 && self->orphaned) delete self;
  }

  static void on_alloc(uv_handle_t* handle, size_t, uv_buf_t* buf) {
    auto* self = static_cast<Handles*>(handle->data);
    *buf = uv_buf_init(self->buffer, sizeof self->buffer);
  }

  static void on_read(uv_stream_t* s, ssize_t nread, const uv_buf_t* buf) {
    auto* self = static_cast<Handles*>(s->data);
    if (nread > 0) {
      self->splitter.feed(std::string_view(buf->base, static_cast<size_t>(nread)));
    } else if (nread == UV_EOF) {
      self->begin_close("end of input");
    } else if (nread < 0) {
      self->begin_close(std::string("read failed: ") + uv_strerror(static_cast<int>(nread)));
    }
  }

  static void on_write(uv_write_t* req, int status) {
    std::unique_ptr<WriteRequest> write(reinterpret_cast<WriteRequest*>(req));
    auto* self = static_cast<Handles*>(req->data);
    self->queued -= write->bytes.size();
    --self->writes_in_flight;
    if (status < 0 && status != UV_ECANCELED) {
      self->begin_close(std::string("write failed: ") + uv_strerror(status));
    }
    if (self->closing && self->writes_in_flight == 0) self->close_handles();
  }

  // Owns `fd` from here: closes it when it cannot be opened.
  int init(uv_loop_t* loop, uv_pipe_t* pipe, int fd) {
    if (int rc = uv_pipe_init(loop, pipe, 0)) {
      ::close(fd);
      return rc;
    }
    pipe->data = this;
    ++open_handles;
    int rc = uv_pipe_open(pipe, fd);
    if (rc != 0) ::close(fd);
    return rc;
  }
};

std::unique_ptr<StreamTransport> StreamTransport::from_fds(uv_loop_t* loop, int in_fd, int out_fd,
                                                           size_t max_message) {
  auto* handles = new Handles(max_message);  // owned by the transport, then by its callbacks
  std::unique_ptr<StreamTransport> transport(new StreamTransport(handles));
  handles->one_handle = in_fd == out_fd;
  bool failed = handles->init(loop, &handles->in, in_fd) != 0;
  if (!handles->one_handle) failed = (handles->init(loop, &handles->out, out_fd) != 0) || failed;
  handles->open = !failed;
  if (failed) handles->begin_close("cannot open the descriptors");
  return transport;
}

std::unique_ptr<StreamTransport> StreamTransport::connect(uv_loop_t* loop, const std::string& path,
                                                          std::string& error) {
  sockaddr_un address{};
  if (path.size() >= sizeof address.sun_path) {
    error = "socket path too long: " + path;
    return nullptr;
  }
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    error = std::string("socket: ") + std::strerror(errno);
    return nullptr;
  }
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    error = "cannot connect to " + path + ": " + std::strerror(errno);
    ::close(fd);
    return nullptr;
  }
  auto transport = from_fds(loop, fd, fd);
  if (!transport->is_open()) error = "cannot open the socket " + path;
  return transport->is_open() ? std::move(transport) : nullptr;
}

StreamTransport::~StreamTransport() {
  handles_->handlers = Handlers{};  // nothing may call back into a destroyed owner
  handles_->begin_close("closed");
  handles_->close_handles();  // a reader that never drains must not keep the handles alive
  handles_->orphaned = true;
  if (handles_->open_handles == 0) delete handles_;
}

bool StreamTransport::start(Handlers handlers, std::string& error) {
  if (!handles_->open) {
    error = "the connection is closed";
    return false;
  }
  handles_->handlers = std::move(handlers);
  if (int rc = uv_read_start(stream(&handles_->in), Handles::on_alloc, Handles::on_read)) {
    error = std::string("cannot read: ") + uv_strerror(rc);
    handles_->begin_close(error);
    return false;
  }
  if (!handles_->unread.empty()) handles_->splitter.feed(std::exchange(handles_->unread, {}));
  return true;
}

void StreamTransport::set_unread(std::string bytes) {
  handles_->unread = std::move(bytes);
}

void StreamTransport::send(std::string text) {
  if (!handles_->open) return;
  text.push_back('\n');
  auto* write = new WriteRequest{{}, std::move(text)};  // owned by on_write
  write->req.data = handles_;
  uv_buf_t buf = uv_buf_init(write->bytes.data(), static_cast<unsigned>(write->bytes.size()));
  size_t size = write->bytes.size();
  if (int rc = uv_write(&write->req, stream(handles_->writer()), &buf, 1, Handles::on_write)) {
    delete write;
    handles_->begin_close(std::string("write failed: ") + uv_strerror(rc));
    return;
  }
  handles_->queued += size;
  ++handles_->writes_in_flight;
}

void StreamTransport::close(const std::string& reason) {
  handles_->begin_close(reason);
}

bool StreamTransport::is_open() const {
  return handles_->open;
}

size_t StreamTransport::queued_bytes() const {
  return handles_->queued;
}

}  // namespace toolhost::jsonrpc
