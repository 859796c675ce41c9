// The line relay of `toolhost mcp serve` between the agent's stdio (pipes here) and a host's
// unix socket (a UnixListener in the test that answers as the test says). Raw bytes on the
// agent's side, so the test sees exactly what the relay wrote. Every wait is on the loop.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jsonrpc/unix_listener.h"
#include "mcp/relay.h"
#include "test_loop.h"

namespace toolhost::mcp {
namespace {

using testing::TestLoop;

// Everything written to one descriptor, read on the loop, and whether it ended. The handle is
// freed by its close callback, which runs after the reader is gone.
class RawReader {
 public:
  RawReader(uv_loop_t* loop, int fd) : pipe_(new uv_pipe_t{}) {
    uv_pipe_init(loop, pipe_, 0);
    pipe_->data = this;
    uv_pipe_open(pipe_, fd);
    uv_read_start(
        reinterpret_cast<uv_stream_t*>(pipe_),
        [](uv_handle_t* h, size_t, uv_buf_t* buf) {
          auto* self = static_cast<RawReader*>(h->data);
          *buf = uv_buf_init(self->chunk_, sizeof self->chunk_);
        },
        [](uv_stream_t* s, ssize_t n, const uv_buf_t* buf) {
          auto* self = static_cast<RawReader*>(s->data);
          if (n > 0) self->bytes.append(buf->base, static_cast<size_t>(n));
          if (n < 0) {
            self->ended = true;
            uv_read_stop(s);
          }
        });
  }
  ~RawReader() {
    uv_close(reinterpret_cast<uv_handle_t*>(pipe_),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_pipe_t*>(h); });
  }

  std::string bytes;
  bool ended = false;

 private:
  uv_pipe_t* pipe_;
  char chunk_[4096];
};

// The host's side of one relayed connection.
struct HostConnection {
  std::unique_ptr<jsonrpc::Transport> transport;
  std::vector<std::string> lines;
  bool closed = false;
};

class RelayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    old_sigpipe_ = std::signal(SIGPIPE, SIG_IGN);  // as `toolhost mcp serve` runs
    char name[] = "/tmp/th-relay-XXXXXX";
    dir_ = ::mkdtemp(name);
    socket_ = dir_ + "/host.sock";
    std::string error;
    listener_ = jsonrpc::UnixListener::listen(
        loop_.get(), socket_,
        [this](std::unique_ptr<jsonrpc::Transport> transport) {
          auto connection = std::make_unique<HostConnection>();
          HostConnection* raw = connection.get();
          raw->transport = std::move(transport);
          std::string start_error;
          EXPECT_TRUE(
              raw->transport->start({[this, raw](std::string_view text) {
                                       raw->lines.emplace_back(text);
                                       if (echo_) raw->transport->send("echo " + std::string(text));
                                     },
                                     nullptr, [raw](const std::string&) { raw->closed = true; }},
                                    start_error))
              << start_error;
          hosts_.push_back(std::move(connection));
        },
        error);
    ASSERT_TRUE(listener_) << error;
    ASSERT_EQ(::pipe2(to_relay_, O_CLOEXEC), 0);
    ASSERT_EQ(::pipe2(from_relay_, O_CLOEXEC), 0);
  }
  void TearDown() override {
    relay_.reset();
    agent_output_.reset();
    hosts_.clear();
    listener_.reset();
    if (to_relay_[1] >= 0) ::close(to_relay_[1]);
    loop_.drain();
    std::filesystem::remove_all(dir_);
    std::signal(SIGPIPE, old_sigpipe_);
  }

  // Starts the relay on the pipes; the agent's output is read from here on.
  void start(Relay::Options options = {}) {
    std::string error;
    relay_ = Relay::start(
        loop_.get(), to_relay_[0], from_relay_[1], socket_,
        [this](const std::string& reason) { done_ = reason; }, error, std::move(options));
    ASSERT_TRUE(relay_) << error;
    agent_output_ = std::make_unique<RawReader>(loop_.get(), from_relay_[0]);
    ASSERT_TRUE(loop_.run_until([&] { return hosts_.size() == 1; }));
  }
  void agent_writes(const std::string& bytes) {
    ASSERT_EQ(::write(to_relay_[1], bytes.data(), bytes.size()),
              static_cast<ssize_t>(bytes.size()));
  }
  void agent_closes_input() {
    ::close(to_relay_[1]);
    to_relay_[1] = -1;
  }
  HostConnection& host() { return *hosts_.at(0); }

  TestLoop loop_;
  std::string dir_;
  std::string socket_;
  std::unique_ptr<jsonrpc::UnixListener> listener_;
  std::vector<std::unique_ptr<HostConnection>> hosts_;
  bool echo_ = true;
  int to_relay_[2] = {-1, -1};
  int from_relay_[2] = {-1, -1};
  std::unique_ptr<Relay> relay_;
  std::unique_ptr<RawReader> agent_output_;
  std::optional<std::string> done_;
  void (*old_sigpipe_)(int) = SIG_DFL;
};

TEST_F(RelayTest, LinesPassBothWaysByteForByteAcrossChunkBoundaries) {
  start();
  std::string first =
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"t":"é\u00e9 \"q\""}})";
  std::string second = R"({"jsonrpc":"2.0","id":2,"method":"ping"})";
  std::string both = first + "\n" + second + "\n";
  agent_writes(both.substr(0, 20));
  loop_.poll();  // the relay reads the first chunk alone: half a line, nothing to pass on yet
  EXPECT_TRUE(host().lines.empty());
  agent_writes(both.substr(20));
  ASSERT_TRUE(loop_.run_until([&] { return host().lines.size() == 2; }));
  EXPECT_EQ(host().lines[0], first);
  EXPECT_EQ(host().lines[1], second);
  std::string expected = "echo " + first + "\necho " + second + "\n";
  ASSERT_TRUE(loop_.run_until([&] { return agent_output_->bytes.size() >= expected.size(); }));
  EXPECT_EQ(agent_output_->bytes, expected);
  EXPECT_FALSE(done_);
}

TEST_F(RelayTest, TheHostMaySpeakFirst) {
  start();
  host().transport->send(R"({"jsonrpc":"2.0","method":"notifications/message"})");
  ASSERT_TRUE(loop_.run_until([&] { return !agent_output_->bytes.empty(); }));
  EXPECT_EQ(agent_output_->bytes, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n");
}

TEST_F(RelayTest, AfterTheAgentClosesItsInputTheHostStillAnswersThenTheRelayEnds) {
  start();
  agent_writes("{\"id\":1}\n");
  agent_closes_input();
  // The host reads the line, then end of input (the relay shut the socket's write side), and
  // its transport closes after flushing the answer.
  ASSERT_TRUE(loop_.run_until([&] { return done_.has_value(); }));
  EXPECT_EQ(*done_, "the host closed the connection");
  EXPECT_TRUE(host().closed);
  ASSERT_TRUE(loop_.run_until([&] { return agent_output_->ended; }));
  EXPECT_EQ(agent_output_->bytes, "echo {\"id\":1}\n");
  EXPECT_TRUE(relay_->finished());
}

TEST_F(RelayTest, WhenTheHostClosesItsLastLinesReachTheAgentAndTheRelayEnds) {
  start();
  host().transport->send("{\"last\":1}");
  host().transport->send("{\"last\":2}");
  host().transport->close("host shutting down");
  ASSERT_TRUE(loop_.run_until([&] { return done_.has_value(); }));
  EXPECT_EQ(*done_, "the host closed the connection");
  ASSERT_TRUE(loop_.run_until([&] { return agent_output_->ended; }));
  EXPECT_EQ(agent_output_->bytes, "{\"last\":1}\n{\"last\":2}\n");
}

TEST_F(RelayTest, AHostClosingRightAfterALongAnswerLosesNoneOfIt) {
  start();
  // Far more than a pipe holds: most of it is still queued in the relay when the host is gone.
  std::string answer = "{\"result\":\"" + std::string(3 * 1024 * 1024, 'r') + "\"}";
  host().transport->send(answer);
  host().transport->close("done");
  ASSERT_TRUE(loop_.run_until([&] { return agent_output_->ended; }));
  EXPECT_EQ(agent_output_->bytes.size(), answer.size() + 1);
  EXPECT_TRUE(agent_output_->bytes == answer + "\n");
  EXPECT_EQ(done_, "the host closed the connection");
}

TEST_F(RelayTest, ASlowAgentHoldsTheHostBackAndThenGetsEverything) {
  std::string error;
  relay_ = Relay::start(
      loop_.get(), to_relay_[0], from_relay_[1], socket_,
      [this](const std::string& reason) { done_ = reason; }, error);
  ASSERT_TRUE(relay_) << error;
  ASSERT_TRUE(loop_.run_until([&] { return hosts_.size() == 1; }));
  std::string line(256 * 1024, 'h');
  size_t lines = 2 * Relay::kHighWater / line.size();
  for (size_t i = 0; i < lines; ++i) host().transport->send(line);
  // Nobody reads the agent's side yet: the relay stops reading the host instead of queueing
  // all of it.
  ASSERT_TRUE(loop_.run_until([&] { return relay_->waiting_for_agent(); }));
  agent_output_ = std::make_unique<RawReader>(loop_.get(), from_relay_[0]);
  size_t total = lines * (line.size() + 1);
  ASSERT_TRUE(loop_.run_until([&] { return agent_output_->bytes.size() >= total; }));
  EXPECT_EQ(agent_output_->bytes.size(), total);
  EXPECT_EQ(agent_output_->bytes.find_first_not_of("h\n"), std::string::npos);
  EXPECT_FALSE(relay_->waiting_for_agent());
}

TEST_F(RelayTest, ALineOverTheCapIsDroppedAndLoggedAndTheNextOnePasses) {
  std::vector<std::string> log;
  Relay::Options options;
  options.max_line = 32;
  options.log = [&](const std::string& message) { log.push_back(message); };
  echo_ = false;
  start(options);
  agent_writes(std::string(100, 'x') + "\n{\"id\":3}\n");
  ASSERT_TRUE(loop_.run_until([&] { return host().lines.size() == 1; }));
  EXPECT_EQ(host().lines[0], "{\"id\":3}");
  EXPECT_EQ(log, std::vector<std::string>{"dropped a line over 32 bytes from the agent"});
}

TEST_F(RelayTest, AFailedConnectLeavesTheDescriptorsToTheCaller) {
  std::string error;
  auto relay = Relay::start(
      loop_.get(), to_relay_[0], from_relay_[1], dir_ + "/nobody.sock", [](const std::string&) {},
      error);
  EXPECT_FALSE(relay);
  EXPECT_EQ(error, "cannot connect to " + dir_ + "/nobody.sock: No such file or directory");
  EXPECT_NE(::fcntl(to_relay_[0], F_GETFD), -1);
  EXPECT_NE(::fcntl(from_relay_[1], F_GETFD), -1);
  ::close(to_relay_[0]);
  ::close(from_relay_[0]);
  ::close(from_relay_[1]);
}

TEST_F(RelayTest, DestroyingTheRelayClosesTheConnectionWithoutCallingDone) {
  start();
  relay_.reset();
  ASSERT_TRUE(loop_.run_until([&] { return host().closed; }));
  ASSERT_TRUE(loop_.run_until([&] { return agent_output_->ended; }));
  EXPECT_FALSE(done_);
}

// `toolhost mcp serve` goes on when its Neovim quits (SPEC 13.5): the relay tells it what the
// host owed the agent.
class RelayHandover : public RelayTest {
 protected:
  void start_handing_over() {
    Relay::Options options;
    options.host_gone = [this](Relay::Handover next) { handover_ = std::move(next); };
    echo_ = false;
    start(std::move(options));
  }
  std::optional<Relay::Handover> handover_;
};

TEST_F(RelayHandover, TheHostsLastAnswersThenItsOwedCallsAsFailedThenTheSessionIsHandedOver) {
  start_handing_over();
  const std::string initialize =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"codex"}}})";
  agent_writes(initialize + "\n");
  ASSERT_TRUE(loop_.run_until([&] { return host().lines.size() == 1; }));
  host().transport->send(R"({"id":1,"jsonrpc":"2.0","result":{"protocolVersion":"2025-06-18"}})");
  const std::string list = R"({"jsonrpc":"2.0","id":"l","method":"tools/list"})";
  agent_writes(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"rm"}})"
               "\n" R"({"jsonrpc":"2.0","id":3,"method":"ping"})"
               "\n" R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ls"}})"
               "\n" R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}})"
               "\n" + list + "\n" R"({"jsonrpc":"2.0","id":5,"me)");
  ASSERT_TRUE(loop_.run_until([&] { return host().lines.size() == 6; }));
  host().transport->send(R"({"id":3,"jsonrpc":"2.0","result":{}})");
  host().transport->close("Neovim quit");

  ASSERT_TRUE(loop_.run_until([&] { return handover_.has_value(); }));
  EXPECT_FALSE(done_);
  EXPECT_EQ(handover_->reason, "the host closed the connection");
  EXPECT_EQ(handover_->initialize["clientInfo"]["name"], "codex");
  EXPECT_EQ(handover_->unread, list + "\n" R"({"jsonrpc":"2.0","id":5,"me)");
  EXPECT_EQ(handover_->calls_failed, 1u);  // 2; 4 was cancelled, 3 answered

  ASSERT_TRUE(loop_.run_until([&] { return agent_output_->ended; }));
  const std::string& out = agent_output_->bytes;
  const size_t failed = out.find("\n", out.find(R"("id":3)")) + 1;
  ASSERT_LT(failed, out.size()) << out;
  EXPECT_EQ(out.substr(0, failed),
            R"({"id":1,"jsonrpc":"2.0","result":{"protocolVersion":"2025-06-18"}})"
            "\n" R"({"id":3,"jsonrpc":"2.0","result":{}})"
            "\n");
  Json answer = Json::parse(out.substr(failed));
  EXPECT_EQ(answer["id"], 2);
  EXPECT_EQ(answer["result"]["isError"], true);
  EXPECT_NE(answer["result"]["content"][0]["text"].get<std::string>().find("may have run in part"),
            std::string::npos);
}

TEST_F(RelayHandover, AHandshakeTheHostNeverAnsweredIsLeftToTheNextServer) {
  start_handing_over();
  const std::string initialize =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})";
  agent_writes(initialize + "\n");
  ASSERT_TRUE(loop_.run_until([&] { return host().lines.size() == 1; }));
  host().transport->close("gone");
  ASSERT_TRUE(loop_.run_until([&] { return handover_.has_value(); }));
  EXPECT_TRUE(handover_->initialize.is_null());
  EXPECT_EQ(handover_->unread, initialize + "\n");
  EXPECT_EQ(handover_->calls_failed, 0u);
}

TEST_F(RelayHandover, AfterTheAgentsInputEndedTheRelayJustEnds) {
  start_handing_over();
  agent_writes(R"({"jsonrpc":"2.0","id":2,"method":"tools/call"})" "\n");
  agent_closes_input();
  ASSERT_TRUE(loop_.run_until([&] { return host().closed; }));
  ASSERT_TRUE(loop_.run_until([&] { return done_.has_value(); }));
  EXPECT_FALSE(handover_);
}

TEST_F(RelayTest, OneDescriptorForBothDirectionsWorks) {
  int agent[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, agent), 0);
  std::string error;
  relay_ = Relay::start(
      loop_.get(), agent[1], agent[1], socket_,
      [this](const std::string& reason) { done_ = reason; }, error);
  ASSERT_TRUE(relay_) << error;
  agent_output_ = std::make_unique<RawReader>(loop_.get(), agent[0]);
  ASSERT_EQ(::write(agent[0], "{\"id\":9}\n", 9), 9);
  ASSERT_TRUE(loop_.run_until([&] { return agent_output_->bytes == "echo {\"id\":9}\n"; }))
      << agent_output_->bytes;
  ::close(to_relay_[0]);
  ::close(from_relay_[0]);
  ::close(from_relay_[1]);
}

}  // namespace
}  // namespace toolhost::mcp
