#include "jsonrpc/unix_listener.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>

#include "jsonrpc/message.h"
#include "jsonrpc/stream_transport.h"

namespace toolhost::jsonrpc {
namespace {

std::string system_error(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

bool make_address(const std::string& path, sockaddr_un& address, std::string& error) {
  address = sockaddr_un{};
  // A longer path would be cut by bind() and name some other file: refuse it whole.
  if (path.size() >= sizeof address.sun_path) {
    error = "socket path too long (" + std::to_string(path.size()) + " bytes, at most " +
            std::to_string(sizeof address.sun_path - 1) + "): " + path;
    return false;
  }
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  return true;
}

int new_socket() {
#ifdef SOCK_CLOEXEC
  return ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
#else
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd >= 0) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  return fd;
#endif
}

// Clears the way for bind(): nothing there, or a socket nobody answers on (a host that died
// without cleaning up), which is removed. A live server, or a file that is not a socket, is
// never touched.
bool clear_stale(const std::string& path, const sockaddr_un& address, std::string& error) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return true;
    error = system_error("cannot inspect " + path);
    return false;
  }
  if (!S_ISSOCK(info.st_mode)) {
    error = path + " exists and is not a socket: refusing to replace it";
    return false;
  }
  int probe = new_socket();
  if (probe < 0) {
    error = system_error("socket");
    return false;
  }
  int rc = ::connect(probe, reinterpret_cast<const sockaddr*>(&address), sizeof address);
  int connect_errno = errno;
  ::close(probe);
  if (rc == 0) {
    error = "a server already listens on " + path;
    return false;
  }
  if (connect_errno != ECONNREFUSED) {
    error = "cannot tell whether " + path + " is in use: " + std::strerror(connect_errno);
    return false;
  }
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    error = system_error("cannot remove the stale socket " + path);
    return false;
  }
  return true;
}

}  // namespace

// The poll handle outlives the listener when it is destroyed: libuv's close callback frees it.
struct UnixListener::Poll {
  uv_poll_t handle{};
  UnixListener* owner = nullptr;
};

bool peer_uid(int fd, uid_t& uid, std::string& error) {
#ifdef SO_PEERCRED
  struct ucred credentials {};
  socklen_t size = sizeof credentials;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) {
    error = system_error("SO_PEERCRED");
    return false;
  }
  uid = credentials.uid;
#else
  gid_t gid;
  if (::getpeereid(fd, &uid, &gid) != 0) {
    error = system_error("getpeereid");
    return false;
  }
#endif
  return true;
}

std::string UnixListener::refusal_line(uid_t owner, uid_t peer) {
  std::string message = "this toolhost socket belongs to uid " + std::to_string(owner) +
                        " and the peer is uid " + std::to_string(peer) + ": connection refused";
  return encode(make_error(nullptr, Error{code::kInvalidRequest, message, nullptr})) + "\n";
}

std::unique_ptr<UnixListener> UnixListener::listen(uv_loop_t* loop, const std::string& path,
                                                   OnConnection on_connection, std::string& error,
                                                   Options options) {
  sockaddr_un address;
  if (!make_address(path, address, error) || !clear_stale(path, address, error)) return nullptr;
  std::unique_ptr<UnixListener> listener(
      new UnixListener(loop, path, std::move(on_connection), std::move(options)));
  int fd = new_socket();
  if (fd < 0) {
    error = system_error("socket");
    return nullptr;
  }
  // Non-blocking: accept_all() takes connections until the kernel has no more.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    error = system_error("cannot bind " + path);
    ::close(fd);
    return nullptr;
  }
  listener->fd_ = fd;  // from here the destructor closes it and unlinks the path
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0) {
    listener->device_ = info.st_dev;
    listener->inode_ = info.st_ino;
  }
  // The directory is 0700 already; the socket's own mode is a second fence on systems that
  // check it, and costs nothing.
  ::chmod(path.c_str(), 0600);
  if (::listen(fd, SOMAXCONN) != 0) {
    error = system_error("cannot listen on " + path);
    return nullptr;
  }
  auto* poll = new Poll;
  poll->owner = listener.get();
  poll->handle.data = poll;
  if (int rc = uv_poll_init(loop, &poll->handle, fd)) {
    delete poll;
    error = "cannot watch " + path + ": " + uv_strerror(rc);
    return nullptr;
  }
  listener->poll_ = poll;
  int rc = uv_poll_start(&poll->handle, UV_READABLE, [](uv_poll_t* handle, int status, int) {
    auto* self = static_cast<Poll*>(handle->data);
    if (self->owner == nullptr) return;
    if (status < 0) {
      if (self->owner->options_.log) {
        self->owner->options_.log("accept on " + self->owner->path_ + ": " + uv_strerror(status));
      }
      return;
    }
    self->owner->accept_all();
  });
  if (rc != 0) {
    error = "cannot watch " + path + ": " + uv_strerror(rc);
    return nullptr;
  }
  return listener;
}

UnixListener::~UnixListener() {
  close();
}

void UnixListener::close() {
  if (poll_ != nullptr) {
    poll_->owner = nullptr;
    uv_close(reinterpret_cast<uv_handle_t*>(&poll_->handle),
             [](uv_handle_t* handle) { delete static_cast<Poll*>(handle->data); });
    poll_ = nullptr;
  }
  if (fd_ < 0) return;
  ::close(fd_);
  fd_ = -1;
  // Only our own socket: after a crash and restart another host may own the path now.
  struct stat info {};
  if (::lstat(path_.c_str(), &info) == 0 && info.st_dev == device_ && info.st_ino == inode_) {
    ::unlink(path_.c_str());
  }
}

void UnixListener::accept_all() {
  std::weak_ptr<bool> alive = alive_;
  while (!alive.expired() && fd_ >= 0) {
#ifdef __linux__
    int fd = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
#else
    int fd = ::accept(fd_, nullptr, nullptr);
    if (fd >= 0) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
#endif
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      // EAGAIN: all taken. EMFILE and the like: the next readiness tries again.
      if (errno != EAGAIN && errno != EWOULDBLOCK && options_.log) {
        options_.log(system_error("accept on " + path_));
      }
      return;
    }
    accepted(fd);  // may destroy this listener: `alive` tells
  }
}

void UnixListener::accepted(int fd) {
  uid_t uid = 0;
  std::string error;
  if (!peer_uid(fd, uid, error)) {
    if (options_.log) options_.log("refused a connection on " + path_ + ": " + error);
    ::close(fd);
    return;
  }
  if (uid != options_.expected_uid) {
    // A fresh socket's send buffer is empty, so this short line is taken whole, at once.
    std::string line = refusal_line(options_.expected_uid, uid);
#ifdef MSG_NOSIGNAL
    int flags = MSG_NOSIGNAL | MSG_DONTWAIT;
#else
    int flags = MSG_DONTWAIT;
#endif
    if (::send(fd, line.data(), line.size(), flags) < 0 && options_.log) {
      options_.log(system_error("cannot tell the refused peer on " + path_));
    }
    ::close(fd);
    if (options_.log) {
      options_.log("refused a connection on " + path_ + " from uid " + std::to_string(uid));
    }
    return;
  }
  auto transport = StreamTransport::from_fds(loop_, fd, fd, options_.max_message);
  if (!transport->is_open()) {
    if (options_.log) options_.log("cannot open an accepted connection on " + path_);
    return;
  }
  auto on_connection = on_connection_;  // a copy: the callback may destroy this listener
  if (on_connection) on_connection(std::move(transport));
}

}  // namespace toolhost::jsonrpc
