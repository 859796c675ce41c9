// The unix-socket listener the host runs for `toolhost mcp serve`: real sockets in a temporary
// directory, clients are StreamTransports on the same loop. Every wait is on the loop.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "jsonrpc/message.h"
#include "jsonrpc/stream_transport.h"
#include "jsonrpc/unix_listener.h"
#include "test_loop.h"

namespace toolhost::jsonrpc {
namespace {

using testing::TestLoop;

// A short directory: socket paths must fit in sun_path.
class TempDir {
 public:
  TempDir() {
    char name[] = "/tmp/th-sock-XXXXXX";
    path_ = ::mkdtemp(name);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Lines one end of a connection received, and whether it was closed.
struct Received {
  std::vector<std::string> lines;
  bool closed = false;
  Transport::Handlers handlers() {
    return {[this](std::string_view text) { lines.emplace_back(text); }, nullptr,
            [this](const std::string&) { closed = true; }};
  }
};

bool exists(const std::string& path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0;
}

// A socket file nobody listens on, as a host killed with SIGKILL leaves behind.
void leave_stale_socket(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strcpy(address.sun_path, path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ::close(fd);
}

class UnixListenerTest : public ::testing::Test {
 protected:
  std::unique_ptr<UnixListener> listen(UnixListener::Options options = {}) {
    std::string error;
    auto listener = UnixListener::listen(
        loop_.get(), path_,
        [this](std::unique_ptr<Transport> connection) {
          accepted_.push_back(std::move(connection));
        },
        error, std::move(options));
    EXPECT_TRUE(listener) << error;
    return listener;
  }
  std::unique_ptr<StreamTransport> connect(Received& received) {
    std::string error;
    auto client = StreamTransport::connect(loop_.get(), path_, error);
    EXPECT_TRUE(client) << error;
    if (client) {
      EXPECT_TRUE(client->start(received.handlers(), error)) << error;
    }
    return client;
  }
  void TearDown() override { accepted_.clear(); }

  TestLoop loop_;
  TempDir dir_;
  std::string path_ = dir_.path() + "/host.sock";
  std::vector<std::unique_ptr<Transport>> accepted_;
};

TEST_F(UnixListenerTest, TwoClientsAtOnceEachGetATransportThatExchangesLines) {
  auto listener = listen();
  Received first, second;
  auto client_a = connect(first);
  auto client_b = connect(second);
  ASSERT_TRUE(loop_.run_until([&] { return accepted_.size() == 2; }));
  for (size_t i = 0; i < 2; ++i) {
    std::string error;
    Transport* connection = accepted_[i].get();
    ASSERT_TRUE(connection->start(
        {[connection](std::string_view text) { connection->send("echo " + std::string(text)); },
         nullptr, nullptr},
        error))
        << error;
  }
  client_a->send(R"({"from":"a"})");
  client_b->send(R"({"from":"b"})");
  ASSERT_TRUE(loop_.run_until([&] { return first.lines.size() == 1 && second.lines.size() == 1; }));
  EXPECT_EQ(first.lines[0], R"(echo {"from":"a"})");
  EXPECT_EQ(second.lines[0], R"(echo {"from":"b"})");
}

TEST_F(UnixListenerTest, TheSocketIsPrivateToItsOwner) {
  auto listener = listen();
  struct stat info {};
  ASSERT_EQ(::lstat(path_.c_str(), &info), 0);
  EXPECT_TRUE(S_ISSOCK(info.st_mode));
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

TEST_F(UnixListenerTest, AStaleSocketFileIsReplaced) {
  leave_stale_socket(path_);
  ASSERT_TRUE(exists(path_));
  auto listener = listen();
  ASSERT_TRUE(listener);
  Received received;
  auto client = connect(received);
  ASSERT_TRUE(loop_.run_until([&] { return accepted_.size() == 1; }));
}

TEST_F(UnixListenerTest, ALiveSocketRefusesASecondListener) {
  auto first = listen();
  std::string error;
  auto second = UnixListener::listen(
      loop_.get(), path_, [](std::unique_ptr<Transport>) {}, error);
  EXPECT_FALSE(second);
  EXPECT_EQ(error, "a server already listens on " + path_);
  // The first one still serves: its socket file was not taken away. (It accepted the second
  // one's probe too, a connection closed at once.)
  Received received;
  auto client = connect(received);
  ASSERT_TRUE(loop_.run_until([&] { return accepted_.size() == 2; }));
}

TEST_F(UnixListenerTest, AFileThatIsNotASocketIsNeverReplaced) {
  { std::ofstream(path_) << "mine"; }
  std::string error;
  auto listener = UnixListener::listen(
      loop_.get(), path_, [](std::unique_ptr<Transport>) {}, error);
  EXPECT_FALSE(listener);
  EXPECT_EQ(error, path_ + " exists and is not a socket: refusing to replace it");
  EXPECT_TRUE(exists(path_));
}

TEST_F(UnixListenerTest, APathLongerThanSunPathIsAnErrorNotATruncatedName) {
  std::string long_path = dir_.path() + "/" + std::string(120, 's') + ".sock";
  std::string error;
  auto listener = UnixListener::listen(
      loop_.get(), long_path, [](std::unique_ptr<Transport>) {}, error);
  EXPECT_FALSE(listener);
  EXPECT_NE(error.find("socket path too long"), std::string::npos) << error;
  EXPECT_TRUE(std::filesystem::is_empty(dir_.path()));  // no cut-off name was created
}

TEST_F(UnixListenerTest, APeerOfAnotherUidReadsOneErrorLineAndIsClosed) {
  UnixListener::Options options;
  options.expected_uid = ::getuid() + 1;
  std::vector<std::string> log;
  options.log = [&](const std::string& message) { log.push_back(message); };
  auto listener = listen(options);
  Received received;
  auto client = connect(received);
  ASSERT_TRUE(loop_.run_until([&] { return received.closed; }));
  EXPECT_TRUE(accepted_.empty());
  ASSERT_EQ(received.lines.size(), 1u);
  auto parsed = parse_message(received.lines[0]);
  ASSERT_TRUE(parsed.message && parsed.message->is_response()) << received.lines[0];
  EXPECT_TRUE(parsed.message->id.is_null());
  ASSERT_TRUE(parsed.message->error);
  EXPECT_EQ(parsed.message->error->message,
            "this toolhost socket belongs to uid " + std::to_string(::getuid() + 1) +
                " and the peer is uid " + std::to_string(::getuid()) + ": connection refused");
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("from uid " + std::to_string(::getuid())), std::string::npos) << log[0];
}

TEST_F(UnixListenerTest, CloseStopsListeningAndRemovesTheSocketFile) {
  auto listener = listen();
  listener->close();
  EXPECT_FALSE(listener->is_listening());
  EXPECT_FALSE(exists(path_));
  std::string error;
  EXPECT_FALSE(StreamTransport::connect(loop_.get(), path_, error));
}

TEST_F(UnixListenerTest, CloseLeavesASuccessorsSocketAlone) {
  auto listener = listen();
  // Another host took the path over (ours was removed behind our back).
  ASSERT_EQ(::unlink(path_.c_str()), 0);
  auto successor = listen();
  ASSERT_TRUE(successor);
  listener.reset();
  EXPECT_TRUE(exists(path_));
  Received received;
  auto client = connect(received);
  ASSERT_TRUE(loop_.run_until([&] { return accepted_.size() == 1; }));
}

TEST_F(UnixListenerTest, TheCallbackMayDestroyTheListener) {
  std::unique_ptr<UnixListener> listener;
  std::string error;
  listener = UnixListener::listen(
      loop_.get(), path_,
      [&](std::unique_ptr<Transport> connection) {
        accepted_.push_back(std::move(connection));
        listener.reset();
      },
      error);
  ASSERT_TRUE(listener) << error;
  Received first, second;
  auto client_a = connect(first);
  auto client_b = connect(second);
  ASSERT_TRUE(loop_.run_until([&] { return !listener; }));
  EXPECT_EQ(accepted_.size(), 1u);
  EXPECT_FALSE(exists(path_));
}

}  // namespace
}  // namespace toolhost::jsonrpc
