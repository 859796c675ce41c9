// A server that takes over an agent's session from a Neovim host that went away (SPEC 13.5):
// no second handshake, and what the relay had read of the agent is read first.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "jsonrpc/stream_transport.h"
#include "mcp/server.h"
#include "mcp_fake_backend.h"
#include "test_loop.h"

namespace toolhost::mcp {
namespace {

using jsonrpc::StreamTransport;

class McpServerResume : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds_), 0); }
  void TearDown() override {
    agent_.reset();
    server_.reset();
    loop_.drain();
  }

  // The server on one end, with `unread` taken before it; the agent's lines read on the other.
  void make_server(std::string unread) {
    auto transport = StreamTransport::from_fds(loop_.get(), fds_[0], fds_[0]);
    transport->set_unread(std::move(unread));
    server_ = std::make_unique<Server>(loop_.get(), std::move(transport), backend_,
                                       Server::Info{"toolhost", "9.9.9", ""});
    agent_ = StreamTransport::from_fds(loop_.get(), fds_[1], fds_[1]);
    std::string error;
    ASSERT_TRUE(agent_->start({[this](std::string_view line) { answers_.push_back(Json::parse(line)); },
                               nullptr, nullptr},
                              error))
        << error;
  }

  testing::TestLoop loop_;
  fakes::HeldBackend backend_;
  int fds_[2] = {-1, -1};
  std::unique_ptr<Server> server_;
  std::unique_ptr<StreamTransport> agent_;
  std::vector<Json> answers_;
};

TEST_F(McpServerResume, GoesOnWithoutAHandshakeAndReadsWhatWasTakenFirst) {
  make_server(R"({"jsonrpc":"2.0","id":"p","method":"ping"})"
              "\n" R"({"jsonrpc":"2.0","id":7,"meth)");
  std::string error;
  ASSERT_TRUE(server_->resume(
      {{"protocolVersion", "2025-06-18"}, {"clientInfo", {{"name", "codex"}}}}, error))
      << error;
  EXPECT_EQ(server_->client_name(), "codex");
  EXPECT_EQ(server_->protocol_version(), "2025-06-18");
  ASSERT_TRUE(server_->start(error)) << error;
  const std::string rest = "od\":\"tools/list\"}\n";
  ASSERT_EQ(::write(fds_[1], rest.data(), rest.size()), static_cast<ssize_t>(rest.size()));
  ASSERT_TRUE(loop_.run_until([&] { return answers_.size() == 2; }));
  EXPECT_EQ(answers_[0]["id"], "p");
  EXPECT_EQ(answers_[0]["result"], Json::object());
  EXPECT_EQ(answers_[1]["id"], 7);
  EXPECT_EQ(answers_[1]["result"]["tools"][0]["name"], "echo") << answers_[1].dump();
}

TEST_F(McpServerResume, ParamsTheHandshakeWouldRefuseAreRefused) {
  make_server("");
  std::string error;
  EXPECT_FALSE(server_->resume(Json::object(), error));
  EXPECT_EQ(error, "initialize needs a \"protocolVersion\" string");
  EXPECT_FALSE(server_->initialized());
}

}  // namespace
}  // namespace toolhost::mcp
