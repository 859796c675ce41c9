// The MCP client against toolhost's own MCP server over a socketpair, a fake backend running
// the calls. Nothing sleeps: every wait is on the loop.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <csignal>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jsonrpc/stream_transport.h"
#include "mcp/client.h"
#include "mcp/server.h"
#include "mcp_fake_backend.h"
#include "test_loop.h"

namespace toolhost::mcp {
namespace {

using jsonrpc::StreamTransport;
using testing::TestLoop;

using HeldBackend = fakes::HeldBackend;

class McpClient : public ::testing::Test {
 protected:
  void SetUp() override {
    old_sigpipe_ = std::signal(SIGPIPE, SIG_IGN);  // a peer gone is an EPIPE, as in toolhost
    Tool other;
    other.name = "other";
    backend_.extra = {other};
    int fds[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    server_ = std::make_unique<Server>(loop_.get(),
                                       StreamTransport::from_fds(loop_.get(), fds[0], fds[0]),
                                       backend_, Server::Info{"toolhost", "9.9.9", "Be brief"});
    Client::Options options;
    options.version = "1.0";
    options.call_timeout_ms = call_timeout_ms_;
    Client::Events events;
    events.closed = [this](const std::string& reason) { closed_ = reason; };
    client_ = std::make_unique<Client>(
        loop_.get(), StreamTransport::from_fds(loop_.get(), fds[1], fds[1]), options, events);
    std::string error;
    ASSERT_TRUE(server_->start(error)) << error;
    ASSERT_TRUE(client_->start(error)) << error;
  }
  void TearDown() override {
    client_.reset();
    server_.reset();
    loop_.drain();
    std::signal(SIGPIPE, old_sigpipe_);
  }

  std::optional<std::string> connect() {
    std::optional<std::optional<std::string>> result;
    client_->connect([&](std::optional<std::string> error) { result = error; });
    EXPECT_TRUE(loop_.run_until([&] { return result.has_value(); }));
    return result.value_or("no answer");
  }
  // Starts a call and waits until the backend runs it.
  uint64_t start(const std::string& tool, Json arguments, std::optional<CallOutcome>& outcome) {
    size_t before = backend_.started.size();
    Client::CallEvents events;
    events.progress = [this](const Progress& p) { progress_.push_back(p); };
    events.done = [&outcome](CallOutcome o) { outcome = std::move(o); };
    uint64_t id = client_->call_tool(tool, std::move(arguments), events);
    EXPECT_TRUE(loop_.run_until([&] { return backend_.started.size() > before; }));
    return id;
  }

  uint64_t call_timeout_ms_ = 60'000;
  void (*old_sigpipe_)(int) = SIG_DFL;
  TestLoop loop_;
  std::optional<CallOutcome> outcome_;  // outlives the Client, which may end a call last
  HeldBackend backend_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<Client> client_;
  std::vector<Progress> progress_;
  std::optional<std::string> closed_;
};

TEST_F(McpClient, ConnectAgreesOnTheLatestRevisionAndReadsTheServersInfo) {
  EXPECT_EQ(connect(), std::nullopt);
  EXPECT_TRUE(client_->connected());
  EXPECT_EQ(client_->server().protocol_version, "2025-11-25");
  EXPECT_EQ(client_->server().era, Era::kLegacy);
  EXPECT_EQ(client_->server().name, "toolhost");
  EXPECT_EQ(client_->server().version, "9.9.9");
  EXPECT_EQ(client_->server().instructions, "Be brief");
  EXPECT_TRUE(client_->server().capabilities.contains("tools"));
  EXPECT_TRUE(server_->initialized());
  EXPECT_EQ(server_->client_name(), "toolhost");
}

TEST_F(McpClient, ListToolsReadsNamesSchemasAndHints) {
  ASSERT_EQ(connect(), std::nullopt);
  std::optional<ToolList> list;
  client_->list_tools([&](ToolList l) { list = std::move(l); });
  ASSERT_TRUE(loop_.run_until([&] { return list.has_value(); }));
  ASSERT_FALSE(list->error) << *list->error;
  ASSERT_EQ(list->tools.size(), 2u);
  EXPECT_EQ(list->tools[0].name, "echo");
  EXPECT_EQ(list->tools[0].input_schema["required"][0], "text");
  EXPECT_EQ(list->tools[0].annotations.read_only, true);
  EXPECT_EQ(list->tools[1].name, "other");
}

TEST_F(McpClient, BeforeConnectNothingIsSent) {
  std::optional<ToolList> list;
  client_->list_tools([&](ToolList l) { list = std::move(l); });
  ASSERT_TRUE(list.has_value());
  EXPECT_EQ(list->error, "not connected to the server");
  std::optional<CallOutcome>& outcome = outcome_;
  client_->call_tool("echo", {{"text", "x"}}, {{}, {}, [&](CallOutcome o) { outcome = o; }});
  ASSERT_TRUE(outcome.has_value());
  EXPECT_EQ(outcome->status, CallOutcome::Status::kFailed);
  EXPECT_FALSE(server_->initialized());
}

TEST_F(McpClient, ACallsTextIsItsOutput) {
  ASSERT_EQ(connect(), std::nullopt);
  std::optional<CallOutcome>& outcome = outcome_;
  start("echo", {{"text", "hi"}}, outcome);
  EXPECT_EQ(backend_.started.back().arguments["text"], "hi");
  backend_.sinks[backend_.started.back().id].done(CallResult{"hi back", false});
  ASSERT_TRUE(loop_.run_until([&] { return outcome.has_value(); }));
  EXPECT_EQ(outcome->status, CallOutcome::Status::kOk);
  EXPECT_EQ(outcome->text, "hi back");
  EXPECT_EQ(client_->running_calls(), 0u);
}

TEST_F(McpClient, AnIsErrorResultIsAToolError) {
  ASSERT_EQ(connect(), std::nullopt);
  std::optional<CallOutcome>& outcome = outcome_;
  start("echo", {{"text", "hi"}}, outcome);
  backend_.sinks[backend_.started.back().id].done(CallResult{"it broke", true});
  ASSERT_TRUE(loop_.run_until([&] { return outcome.has_value(); }));
  EXPECT_EQ(outcome->status, CallOutcome::Status::kToolError);
  EXPECT_EQ(outcome->text, "it broke");
}

TEST_F(McpClient, ArgumentsTheSchemaRefusesComeBackAsAToolError) {
  ASSERT_EQ(connect(), std::nullopt);
  std::optional<CallOutcome>& outcome = outcome_;
  client_->call_tool("echo", {{"text", 3}}, {{}, {}, [&](CallOutcome o) { outcome = o; }});
  ASSERT_TRUE(loop_.run_until([&] { return outcome.has_value(); }));
  EXPECT_EQ(outcome->status, CallOutcome::Status::kToolError);
  EXPECT_EQ(outcome->text, "echo: parameter \"text\": expected string, got integer");
}

TEST_F(McpClient, AnUnknownToolFailsWithTheServersMessage) {
  ASSERT_EQ(connect(), std::nullopt);
  std::optional<CallOutcome>& outcome = outcome_;
  client_->call_tool("nope", Json::object(), {{}, {}, [&](CallOutcome o) { outcome = o; }});
  ASSERT_TRUE(loop_.run_until([&] { return outcome.has_value(); }));
  EXPECT_EQ(outcome->status, CallOutcome::Status::kFailed);
  EXPECT_EQ(outcome->text, "unknown tool: nope");
}

TEST_F(McpClient, ProgressArrivesForTheCallThatAskedForIt) {
  ASSERT_EQ(connect(), std::nullopt);
  std::optional<CallOutcome>& outcome = outcome_;
  start("echo", {{"text", "x"}}, outcome);
  backend_.sinks[backend_.started.back().id].output("step 1 of 3");
  ASSERT_TRUE(loop_.run_until([&] { return !progress_.empty(); }));
  EXPECT_EQ(progress_[0].message, "step 1 of 3");
  EXPECT_EQ(progress_[0].progress, 1);
  EXPECT_FALSE(progress_[0].total);
}

TEST_F(McpClient, CancelEndsTheCallAtOnceAndTellsTheServer) {
  ASSERT_EQ(connect(), std::nullopt);
  std::optional<CallOutcome>& outcome = outcome_;
  uint64_t id = start("echo", {{"text", "x"}}, outcome);
  EXPECT_TRUE(client_->cancel(id, "the user canceled"));
  ASSERT_TRUE(outcome.has_value());  // at once, not when the server agrees
  EXPECT_EQ(outcome->status, CallOutcome::Status::kCanceled);
  EXPECT_EQ(client_->running_calls(), 0u);
  ASSERT_TRUE(loop_.run_until([&] { return !backend_.cancelled.empty(); }));
  EXPECT_EQ(backend_.cancelled[0].second, "the user canceled");
  EXPECT_FALSE(client_->cancel(id, "again"));
}

TEST_F(McpClient, ATimedOutCallEndsAndTheServerIsTold) {
  call_timeout_ms_ = 30;
  TearDown();
  SetUp();
  ASSERT_EQ(connect(), std::nullopt);
  std::optional<CallOutcome>& outcome = outcome_;
  start("echo", {{"text", "x"}}, outcome);
  ASSERT_TRUE(loop_.run_until([&] { return outcome.has_value(); }));
  EXPECT_EQ(outcome->status, CallOutcome::Status::kTimedOut);
  EXPECT_NE(outcome->text.find("timed out"), std::string::npos);
  ASSERT_TRUE(loop_.run_until([&] { return !backend_.cancelled.empty(); }));
  EXPECT_EQ(backend_.cancelled[0].second, "toolhost timed out the call");
}

TEST_F(McpClient, AClosedConnectionFailsTheRunningCalls) {
  ASSERT_EQ(connect(), std::nullopt);
  std::optional<CallOutcome>& outcome = outcome_;
  start("echo", {{"text", "x"}}, outcome);
  server_->close("going away");  // withdraws its calls' answers
  ASSERT_TRUE(loop_.run_until([&] { return outcome.has_value(); }));
  EXPECT_EQ(outcome->status, CallOutcome::Status::kFailed);
  EXPECT_NE(outcome->text.find("connection closed"), std::string::npos) << outcome->text;
  ASSERT_TRUE(loop_.run_until([&] { return closed_.has_value(); }));
  EXPECT_FALSE(client_->connected());
}

TEST_F(McpClient, DestroyingTheClientEndsItsCalls) {
  ASSERT_EQ(connect(), std::nullopt);
  std::optional<CallOutcome>& outcome = outcome_;
  start("echo", {{"text", "x"}}, outcome);
  client_.reset();
  ASSERT_TRUE(outcome.has_value());
  EXPECT_EQ(outcome->status, CallOutcome::Status::kFailed);
}

}  // namespace
}  // namespace toolhost::mcp
