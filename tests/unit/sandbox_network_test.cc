// The sandbox's network: off by default (TCP, UDP and connecting to a unix socket all refused,
// a socketpair still works); with `network = true` TCP goes out but no unix socket can be made
// (Neovim's $NVIM and the agents' sockets stay out of reach). The listeners are the test's own.

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "sandbox_test_util.h"

namespace toolhost::sandbox::testing {
namespace {

class SandboxNetwork : public SandboxFixture {
 protected:
  void SetUp() override {
    SandboxFixture::SetUp();
    if (IsSkipped()) return;
    python_ = program_path("python3");
    if (python_.empty()) GTEST_SKIP() << "python3 is not installed";
  }

  // A non-blocking socket of `type` on 127.0.0.1, listening (TCP); its port in `port`.
  static int local_socket(int type, int& port) {
    int fd = ::socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    if (type == SOCK_STREAM) {
      EXPECT_EQ(::listen(fd, 8), 0);
    }
    socklen_t length = sizeof address;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    port = ntohs(address.sin_port);
    return fd;
  }

  // A unix socket of `type` bound to `path` (listening when a stream).
  static int unix_socket(int type, const std::string& path) {
    int fd = ::socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    if (type == SOCK_STREAM) {
      EXPECT_EQ(::listen(fd, 8), 0);
    }
    return fd;
  }

  // Whether anything arrived: a connection to accept or a datagram to read.
  static bool received(int fd, int type) {
    if (type == SOCK_STREAM) {
      int connection = ::accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (connection >= 0) ::close(connection);
      return connection >= 0;
    }
    char byte;
    return ::recv(fd, &byte, 1, MSG_DONTWAIT) >= 0;
  }

  Outcome python_in(const Sandbox& sandbox, const std::string& code) const {
    return run_in(sandbox, {python_, "-c", code});
  }
  Outcome python_plain(const std::string& code) const { return run_plain({python_, "-c", code}); }

  std::string python_;
};

std::string tcp_connect(int port) {
  return "import socket; s = socket.create_connection(('127.0.0.1', " + std::to_string(port) +
         "), timeout=5); s.close()";
}

std::string udp_send(int port) {
  return "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
         "s.sendto(b'x', ('127.0.0.1', " +
         std::to_string(port) + "))";
}

std::string unix_connect(const std::string& path) {
  return "import socket; s = socket.socket(socket.AF_UNIX); s.connect('" + path + "')";
}

TEST_F(SandboxNetwork, TcpConnectToALocalListenerIsDenied) {
  int port = 0;
  int listener = local_socket(SOCK_STREAM, port);
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  Outcome denied = python_in(*sandbox, tcp_connect(port));
  EXPECT_NE(denied.exit_code, 0);
  EXPECT_NE(denied.output.find("Operation not permitted"), std::string::npos) << denied.output;
  EXPECT_FALSE(received(listener, SOCK_STREAM));
  EXPECT_TRUE(python_plain(tcp_connect(port)).ok());
  EXPECT_TRUE(received(listener, SOCK_STREAM));
  ::close(listener);
}

TEST_F(SandboxNetwork, UdpToALocalSocketIsDenied) {
  int port = 0;
  int receiver = local_socket(SOCK_DGRAM, port);
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  Outcome denied = python_in(*sandbox, udp_send(port));
  EXPECT_NE(denied.exit_code, 0);
  EXPECT_FALSE(received(receiver, SOCK_DGRAM));
  EXPECT_TRUE(python_plain(udp_send(port)).ok());
  EXPECT_TRUE(received(receiver, SOCK_DGRAM));
  ::close(receiver);
}

TEST_F(SandboxNetwork, ConnectToAUnixSocketIsDeniedAndASocketpairWorks) {
  std::string path = dir_ + "/listener.sock";
  int listener = unix_socket(SOCK_STREAM, path);
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  Outcome denied = python_in(*sandbox, unix_connect(path));
  EXPECT_NE(denied.exit_code, 0);
  EXPECT_NE(denied.output.find("Operation not permitted"), std::string::npos) << denied.output;
  EXPECT_FALSE(received(listener, SOCK_STREAM));
  EXPECT_TRUE(python_plain(unix_connect(path)).ok());
  EXPECT_TRUE(received(listener, SOCK_STREAM));
  ::close(listener);

  Outcome pair = python_in(*sandbox,
                           "import socket; a, b = socket.socketpair(); a.send(b'ping'); "
                           "assert b.recv(4) == b'ping'; b.sendall(b'pong'); print(a.recv(4))");
  EXPECT_TRUE(pair.ok()) << pair.output;
  EXPECT_NE(pair.output.find("pong"), std::string::npos);
}

TEST_F(SandboxNetwork, ADatagramToAUnixSocketsAddressIsDenied) {
  std::string path = dir_ + "/datagram.sock";
  int receiver = unix_socket(SOCK_DGRAM, path);
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  std::string code =
      "import socket; s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); "
      "s.sendto(b'x', '" +
      path + "')";
  Outcome denied = python_in(*sandbox, code);
  EXPECT_NE(denied.exit_code, 0);
  EXPECT_FALSE(received(receiver, SOCK_DGRAM));
  EXPECT_TRUE(python_plain(code).ok());
  EXPECT_TRUE(received(receiver, SOCK_DGRAM));
  ::close(receiver);
}

TEST_F(SandboxNetwork, WithNetworkOnTcpWorksAndNoUnixSocketCanBeMade) {
  int port = 0;
  int listener = local_socket(SOCK_STREAM, port);
  std::string path = dir_ + "/listener.sock";
  int unix_listener = unix_socket(SOCK_STREAM, path);
  Settings online = settings();
  online.network = true;
  auto sandbox = make(online);
  ASSERT_TRUE(sandbox);
  EXPECT_EQ(sandbox->describe(), "write: root, tmp; network: on");
  Outcome tcp = python_in(*sandbox, tcp_connect(port));
  EXPECT_TRUE(tcp.ok()) << tcp.output;
  EXPECT_TRUE(received(listener, SOCK_STREAM));
  Outcome unix_denied = python_in(*sandbox, unix_connect(path));
  EXPECT_NE(unix_denied.exit_code, 0);
  EXPECT_FALSE(received(unix_listener, SOCK_STREAM));
  EXPECT_TRUE(python_in(*sandbox, "import socket; socket.socketpair()").ok());
  ::close(listener);
  ::close(unix_listener);
}

}  // namespace
}  // namespace toolhost::sandbox::testing
