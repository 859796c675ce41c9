// The MCP server side over a real socketpair, driven by a jsonrpc::Endpoint as the agent and a
// fake backend as the runner. Nothing sleeps: every wait is on the loop.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jsonrpc/endpoint.h"
#include "jsonrpc/stream_transport.h"
#include "mcp/server.h"
#include "mcp_fake_backend.h"
#include "test_loop.h"

namespace toolhost::mcp {
namespace {

using jsonrpc::Endpoint;
using jsonrpc::Reply;
using jsonrpc::StreamTransport;
using testing::TestLoop;

using HeldBackend = fakes::HeldBackend;

class McpServer : public ::testing::Test {
 protected:
  void SetUp() override {
    int fds[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    server_ = std::make_unique<Server>(loop_.get(),
                                       StreamTransport::from_fds(loop_.get(), fds[0], fds[0]),
                                       backend_, Server::Info{"toolhost", "9.9.9", ""});
    agent_ = std::make_unique<Endpoint>(loop_.get(),
                                        StreamTransport::from_fds(loop_.get(), fds[1], fds[1]));
    agent_->on_notification("notifications/progress",
                            [this](const jsonrpc::Message& m) { progress_.push_back(m.params); });
    std::string error;
    ASSERT_TRUE(server_->start(error)) << error;
    ASSERT_TRUE(agent_->start(error)) << error;
  }
  void TearDown() override {
    agent_.reset();
    server_.reset();
    loop_.drain();
  }

  Reply call(const std::string& method, Json params = Json::object()) {
    std::optional<Reply> reply;
    agent_->request(method, std::move(params), [&](const Reply& r) { reply = r; });
    EXPECT_TRUE(loop_.run_until([&] { return reply.has_value(); })) << method;
    return reply.value_or(Reply{});
  }
  Reply initialize(const std::string& version = "2025-11-25") {
    return call("initialize", {{"protocolVersion", version},
                               {"capabilities", Json::object()},
                               {"clientInfo", {{"name", "claude-code"}, {"version", "2.0"}}}});
  }
  // Sends a tools/call and waits until the backend started it.
  Json start_call(Json params, std::optional<Reply>& reply) {
    size_t before = backend_.started.size();
    Json id = agent_->request("tools/call", std::move(params), [&](const Reply& r) { reply = r; });
    EXPECT_TRUE(loop_.run_until([&] { return backend_.started.size() > before; }));
    return id;
  }

  TestLoop loop_;
  HeldBackend backend_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<Endpoint> agent_;
  std::vector<Json> progress_;
};

TEST_F(McpServer, InitializeAgreesOnTheOfferedVersionOrItsLatest) {
  Reply reply = initialize("2025-06-18");
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply.result["protocolVersion"], "2025-06-18");
  EXPECT_EQ(reply.result["serverInfo"]["name"], "toolhost");
  EXPECT_TRUE(reply.result["capabilities"].contains("tools"));
  EXPECT_EQ(server_->client_name(), "claude-code");
  EXPECT_EQ(call("initialize", {{"protocolVersion", "2025-06-18"}}).error->message,
            "already initialized");
}

// Found by mcp_server_fuzz (crash-client-name-not-string): nlohmann's value() threw on a
// non-string name, and the handshake failed with an internal error.
TEST_F(McpServer, AClientNameThatIsNotAStringIsIgnored) {
  Reply reply = call("initialize", {{"protocolVersion", "2025-06-18"},
                                    {"clientInfo", {{"name", 1.5}, {"version", "2.0"}}}});
  ASSERT_TRUE(reply.ok()) << reply.error->message;
  EXPECT_EQ(server_->client_name(), "agent");
}

TEST_F(McpServer, AnUnknownVersionGetsTheLatest) {
  EXPECT_EQ(initialize("1999-01-01").result["protocolVersion"], "2025-11-25");
}

TEST_F(McpServer, BeforeInitializeOnlyPingAndDiscoverAreServed) {
  Reply list = call("tools/list");
  ASSERT_TRUE(list.error);
  EXPECT_NE(list.error->message.find("not initialized"), std::string::npos);
  EXPECT_TRUE(call("ping").ok());
  Reply discover = call("server/discover");
  ASSERT_TRUE(discover.ok());
  EXPECT_EQ(discover.result["supportedVersions"][0], "2025-11-25");
  EXPECT_EQ(discover.result["resultType"], "complete");
}

TEST_F(McpServer, ToolsListHasSchemasAndAnnotations) {
  initialize();
  Reply reply = call("tools/list");
  ASSERT_TRUE(reply.ok());
  const Json& tool = reply.result["tools"][0];
  EXPECT_EQ(tool["name"], "echo");
  EXPECT_EQ(tool["inputSchema"]["required"][0], "text");
  EXPECT_EQ(tool["annotations"]["readOnlyHint"], true);
}

TEST_F(McpServer, AnUnknownToolIsAProtocolError) {
  initialize();
  Reply reply = call("tools/call", {{"name", "nope"}, {"arguments", Json::object()}});
  ASSERT_TRUE(reply.error);
  EXPECT_EQ(reply.error->code, jsonrpc::code::kInvalidParams);
  EXPECT_EQ(reply.error->message, "unknown tool: nope");
}

TEST_F(McpServer, ArgumentsThatDoNotFitAreAnIsErrorResultAndNothingRuns) {
  initialize();
  Reply reply = call("tools/call", {{"name", "echo"}, {"arguments", {{"text", 3}}}});
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply.result["isError"], true);
  EXPECT_EQ(reply.result["content"][0]["text"],
            "echo: parameter \"text\": expected string, got integer");
  EXPECT_TRUE(backend_.started.empty());
}

TEST_F(McpServer, ACallRunsOnTheBackendAndItsResultIsText) {
  initialize();
  std::optional<Reply> reply;
  start_call({{"name", "echo"}, {"arguments", {{"text", "hi"}}}}, reply);
  const auto& started = backend_.started.back();
  EXPECT_EQ(started.tool, "echo");
  EXPECT_EQ(started.arguments["text"], "hi");
  EXPECT_EQ(started.client, "claude-code");
  EXPECT_EQ(server_->running_calls(), 1u);
  backend_.sinks[started.id].done(CallResult{"hi", false});
  ASSERT_TRUE(loop_.run_until([&] { return reply.has_value(); }));
  EXPECT_EQ(reply->result["content"][0]["text"], "hi");
  EXPECT_EQ(reply->result["isError"], false);
  EXPECT_EQ(server_->running_calls(), 0u);
}

TEST_F(McpServer, ProgressIsThrottledAndCarriesTheLastLines) {
  initialize();
  std::optional<Reply> reply;
  start_call({{"name", "echo"}, {"arguments", {{"text", "x"}}}, {"_meta", {{"progressToken", 7}}}},
             reply);
  auto& sink = backend_.sinks[backend_.started.back().id];
  for (int i = 1; i <= 100; ++i) sink.output("line " + std::to_string(i));
  // The first at once, the other 99 in one more after the interval: never one per line.
  ASSERT_TRUE(loop_.run_until([&] { return progress_.size() == 2; }));
  EXPECT_EQ(progress_[0]["progressToken"], 7);
  EXPECT_EQ(progress_[0]["message"], "line 1");
  EXPECT_EQ(progress_[1]["message"], "line 100");
  EXPECT_LT(progress_[0]["progress"].get<int>(), progress_[1]["progress"].get<int>());
  sink.done(CallResult{"ok", false});
  ASSERT_TRUE(loop_.run_until([&] { return reply.has_value(); }));
  EXPECT_EQ(progress_.size(), 2u);
}

TEST_F(McpServer, NoProgressWithoutAToken) {
  initialize();
  std::optional<Reply> reply;
  start_call({{"name", "echo"}, {"arguments", {{"text", "x"}}}}, reply);
  auto& sink = backend_.sinks[backend_.started.back().id];
  sink.output("line");
  sink.done(CallResult{"ok", false});
  ASSERT_TRUE(loop_.run_until([&] { return reply.has_value(); }));
  EXPECT_TRUE(progress_.empty());
}

TEST_F(McpServer, TheAgentsCancelStopsTheCallAndGetsNoAnswer) {
  initialize();
  std::optional<Reply> reply;
  Json id = start_call({{"name", "echo"}, {"arguments", {{"text", "x"}}}}, reply);
  uint64_t call_id = backend_.started.back().id;
  agent_->notify("notifications/cancelled", {{"requestId", id}, {"reason", "user pressed Esc"}});
  ASSERT_TRUE(loop_.run_until([&] { return !backend_.cancelled.empty(); }));
  EXPECT_EQ(backend_.cancelled[0], std::make_pair(call_id, std::string("user pressed Esc")));
  agent_->abandon(id, jsonrpc::Error{-1, "cancelled", nullptr});
  backend_.sinks[call_id].done(CallResult{"too late", false});  // ignored
  EXPECT_TRUE(call("ping").ok());  // after anything the server sent for the call
  EXPECT_EQ(agent_->late_replies(), 0u);
  EXPECT_EQ(server_->running_calls(), 0u);
}

// Seen while writing mcp_server_fuzz's oracle (cancel-reason-not-string): value() threw after
// the call was forgotten, so the backend was never told to stop it: it ran on, nobody waiting.
TEST_F(McpServer, ACancelWithAReasonThatIsNotAStringStillStopsTheCall) {
  initialize();
  std::optional<Reply> reply;
  Json id = start_call({{"name", "echo"}, {"arguments", {{"text", "x"}}}}, reply);
  agent_->notify("notifications/cancelled", {{"requestId", id}, {"reason", 5}});
  agent_->abandon(id, jsonrpc::Error{-1, "cancelled", nullptr});  // `reply` dies with this test
  ASSERT_TRUE(loop_.run_until([&] { return !backend_.cancelled.empty(); }));
  EXPECT_EQ(backend_.cancelled[0].second, "the agent cancelled the call");
  EXPECT_EQ(server_->running_calls(), 0u);
}

TEST_F(McpServer, ADisconnectCancelsRunningCalls) {
  initialize();
  std::optional<Reply> reply;
  start_call({{"name", "echo"}, {"arguments", {{"text", "x"}}}}, reply);
  bool closed = false;
  server_->on_closed([&](const std::string&) { closed = true; });
  agent_.reset();
  ASSERT_TRUE(loop_.run_until([&] { return closed; }));
  ASSERT_EQ(backend_.cancelled.size(), 1u);
  EXPECT_EQ(backend_.cancelled[0].second, "the agent disconnected");
  EXPECT_EQ(server_->running_calls(), 0u);
}

}  // namespace
}  // namespace toolhost::mcp
