// The MCP client against a scripted server that misbehaves on purpose: raw lines on a
// socketpair, each answer written by the test. Nothing sleeps: every wait is on the loop.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <algorithm>
#include <csignal>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jsonrpc/message.h"
#include "jsonrpc/stream_transport.h"
#include "mcp/client.h"
#include "test_loop.h"

namespace toolhost::mcp {
namespace {

using jsonrpc::Message;
using jsonrpc::StreamTransport;
using testing::TestLoop;

// Answers initialize as a 2025-11-25 server unless scripted otherwise; everything else is up to
// the test. Every message received is kept.
class ScriptedServer {
 public:
  using Script = std::function<void(const Message&)>;

  ScriptedServer(uv_loop_t* loop, int fd) : transport_(StreamTransport::from_fds(loop, fd, fd)) {
    on("initialize", [this](const Message& m) {
      reply(m.id, {{"protocolVersion", "2025-11-25"},
                   {"capabilities", {{"tools", {{"listChanged", true}}}}},
                   {"serverInfo", {{"name", "scripted"}, {"version", "0"}}}});
    });
    jsonrpc::Transport::Handlers handlers;
    handlers.message = [this](std::string_view text) {
      jsonrpc::Parsed parsed = jsonrpc::parse_message(text);
      if (!parsed.message) return;
      received.push_back(*parsed.message);
      if (auto it = scripts_.find(parsed.message->method); it != scripts_.end()) {
        auto script = it->second;
        script(*parsed.message);
      }
    };
    handlers.closed = [this](const std::string&) { closed = true; };
    std::string error;
    EXPECT_TRUE(transport_->start(std::move(handlers), error)) << error;
  }

  void on(const std::string& method, Script script) { scripts_[method] = std::move(script); }
  void reply(const Json& id, Json result) {
    raw(jsonrpc::encode(jsonrpc::make_result(id, std::move(result))));
  }
  void fail(const Json& id, int code, const std::string& message) {
    raw(jsonrpc::encode(jsonrpc::make_error(id, jsonrpc::Error{code, message, nullptr})));
  }
  void notify(const std::string& method, Json params) {
    raw(jsonrpc::encode(jsonrpc::make_notification(method, std::move(params))));
  }
  void raw(std::string line) { transport_->send(line + "\n"); }
  const Message* find(const std::string& method) const {
    for (const Message& m : received) {
      if (m.method == method) return &m;
    }
    return nullptr;
  }

  std::vector<Message> received;
  bool closed = false;  // the client's end is gone

 private:
  std::unique_ptr<StreamTransport> transport_;
  std::map<std::string, Script> scripts_;
};

class McpClientFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    old_sigpipe_ = std::signal(SIGPIPE, SIG_IGN);  // a peer gone is an EPIPE, as in toolhost
    int fds[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    server_ = std::make_unique<ScriptedServer>(loop_.get(), fds[0]);
    options_.startup_timeout_ms = 50;
    options_.max_pages = 5;
    Client::Events events;
    events.tools_changed = [this] { ++tools_changed_; };
    events.log = [this](const std::string& level, const std::string& text) {
      server_log_.push_back(level + " " + text);
    };
    client_ = std::make_unique<Client>(
        loop_.get(), StreamTransport::from_fds(loop_.get(), fds[1], fds[1]), options_, events);
    std::string error;
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
  ToolList list() {
    std::optional<ToolList> list;
    client_->list_tools([&](ToolList l) { list = std::move(l); });
    EXPECT_TRUE(loop_.run_until([&] { return list.has_value(); }));
    return list.value_or(ToolList{});
  }
  // Starts a call and waits until the server received it.
  uint64_t start_call(std::vector<CallOutcome>& outcomes) {
    Client::CallEvents events;
    events.log = [this](const std::string& level, const std::string& text) {
      call_log_.push_back(level + " " + text);
    };
    events.done = [&outcomes](CallOutcome o) { outcomes.push_back(std::move(o)); };
    uint64_t id = client_->call_tool("slow", Json::object(), events);
    EXPECT_TRUE(loop_.run_until([&] { return server_->find("tools/call") != nullptr; }));
    return id;
  }
  const Message& call_request() { return *server_->find("tools/call"); }

  void (*old_sigpipe_)(int) = SIG_DFL;
  TestLoop loop_;
  std::vector<CallOutcome> outcomes_;  // outlives the Client, which may end a call last
  Client::Options options_;
  std::unique_ptr<ScriptedServer> server_;
  std::unique_ptr<Client> client_;
  int tools_changed_ = 0;
  std::vector<std::string> server_log_;
  std::vector<std::string> call_log_;
};

TEST_F(McpClientFaults, AServerThatNeverAnswersInitializeFailsAfterTheStartupTimeout) {
  server_->on("initialize", [](const Message&) {});
  EXPECT_EQ(connect(), "the server did not answer initialize within 50 ms");
  EXPECT_FALSE(client_->connected());
}

TEST_F(McpClientFaults, AnOlderRevisionIsAcceptedAndAnUnknownOneRefused) {
  server_->on("initialize", [this](const Message& m) {
    server_->reply(m.id, {{"protocolVersion", "2024-11-05"}, {"capabilities", Json::object()}});
  });
  EXPECT_EQ(connect(), std::nullopt);
  EXPECT_EQ(client_->server().protocol_version, "2024-11-05");
  ASSERT_TRUE(loop_.run_until([&] { return server_->find("notifications/initialized"); }));
  TearDown();
  SetUp();
  server_->on("initialize", [this](const Message& m) {
    server_->reply(m.id, {{"protocolVersion", "2023-01-01"}, {"capabilities", Json::object()}});
  });
  EXPECT_EQ(connect(),
            "the server answered initialize with protocol version \"2023-01-01\"; toolhost "
            "speaks 2025-11-25 back to 2024-11-05 and 2026-07-28");
}

TEST_F(McpClientFaults, AModernServerIsFoundThroughDiscoverAndEveryRequestNamesTheVersion) {
  server_->on("initialize", [this](const Message& m) {
    server_->fail(m.id, -32601, "method not found: initialize");
  });
  server_->on("server/discover", [this](const Message& m) {
    server_->reply(m.id, {{"supportedVersions", {"2026-07-28"}},
                          {"capabilities", {{"tools", Json::object()}}},
                          {"serverInfo", {{"name", "modern"}, {"version", "2"}}}});
  });
  server_->on("tools/list", [this](const Message& m) {
    server_->reply(m.id, {{"tools", {{{"name", "t"}, {"inputSchema", {{"type", "object"}}}}}}});
  });
  EXPECT_EQ(connect(), std::nullopt);
  EXPECT_EQ(client_->server().era, Era::kModern);
  EXPECT_EQ(client_->server().protocol_version, "2026-07-28");
  EXPECT_EQ(client_->server().name, "modern");
  EXPECT_FALSE(list().error);
  const Json& meta = server_->find("tools/list")->params["_meta"];
  EXPECT_EQ(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
  EXPECT_EQ(meta["io.modelcontextprotocol/clientInfo"]["name"], "toolhost");
  EXPECT_EQ(server_->find("notifications/initialized"), nullptr);
  uint64_t id = start_call(outcomes_);
  const Json& call_meta = call_request().params["_meta"];
  EXPECT_EQ(call_meta["progressToken"], id);
  EXPECT_EQ(call_meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
}

TEST_F(McpClientFaults, DiscoverFirstFindsAModernServerWithoutInitialize) {
  options_.discover_first = true;
  TearDown();
  SetUp();
  server_->on("server/discover", [this](const Message& m) {
    server_->reply(m.id, {{"supportedVersions", {"2026-07-28", "2025-11-25"}}});
  });
  EXPECT_EQ(connect(), std::nullopt);
  EXPECT_EQ(client_->server().era, Era::kModern);
  EXPECT_EQ(client_->server().supported_versions,
            (std::vector<std::string>{"2026-07-28", "2025-11-25"}));
  EXPECT_EQ(server_->find("initialize"), nullptr);
}

// Found by mcp_client_fuzz (crash-destroyed-during-discover): the probe's end went on to
// initialize on a Client being destroyed.
TEST_F(McpClientFaults, DestroyingTheClientDuringTheDiscoverProbeSendsNoInitialize) {
  options_.discover_first = true;
  TearDown();
  SetUp();
  server_->on("server/discover", [](const Message&) {});
  std::vector<std::optional<std::string>> results;
  client_->connect([&](std::optional<std::string> error) { results.push_back(error); });
  ASSERT_TRUE(loop_.run_until([&] { return server_->find("server/discover") != nullptr; }));
  client_.reset();
  ASSERT_TRUE(loop_.run_until([&] { return server_->closed; }));
  EXPECT_EQ(server_->find("initialize"), nullptr);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0], "the client closed");
}

TEST_F(McpClientFaults, DiscoverFirstFallsBackToInitializeForALegacyServer) {
  options_.discover_first = true;
  TearDown();
  SetUp();
  server_->on("server/discover",
              [this](const Message& m) { server_->fail(m.id, -32601, "method not found"); });
  EXPECT_EQ(connect(), std::nullopt);
  EXPECT_EQ(client_->server().era, Era::kLegacy);
  EXPECT_EQ(client_->server().protocol_version, "2025-11-25");
  TearDown();
  SetUp();
  server_->on("server/discover",
              [this](const Message& m) { server_->fail(m.id, -32601, "method not found"); });
  server_->on("initialize", [this](const Message& m) { server_->fail(m.id, -32603, "broken"); });
  EXPECT_EQ(connect(), "initialize failed: broken; server/discover failed: method not found");
}

TEST_F(McpClientFaults, WhenInitializeAndDiscoverBothFailTheErrorNamesBoth) {
  server_->on("initialize", [this](const Message& m) { server_->fail(m.id, -32603, "broken"); });
  server_->on("server/discover",
              [this](const Message& m) { server_->fail(m.id, -32601, "method not found"); });
  EXPECT_EQ(connect(), "initialize failed: broken; server/discover failed: method not found");
}

TEST_F(McpClientFaults, ListToolsFollowsTheCursorToTheLastPage) {
  server_->on("tools/list", [this](const Message& m) {
    std::string cursor = m.params.value("cursor", "");
    int page = cursor.empty() ? 1 : std::stoi(cursor);
    Json result = {{"tools", {{{"name", "tool" + std::to_string(page)}}}}};
    if (page < 3) result["nextCursor"] = std::to_string(page + 1);
    server_->reply(m.id, result);
  });
  ASSERT_EQ(connect(), std::nullopt);
  ToolList tools = list();
  ASSERT_FALSE(tools.error) << *tools.error;
  ASSERT_EQ(tools.tools.size(), 3u);
  EXPECT_EQ(tools.tools[2].name, "tool3");
}

TEST_F(McpClientFaults, AServerThatPaginatesForeverIsStoppedAtTheCap) {
  size_t pages = 0;
  server_->on("tools/list", [&](const Message& m) {
    ++pages;
    server_->reply(m.id, {{"tools", Json::array()}, {"nextCursor", "again"}});
  });
  ASSERT_EQ(connect(), std::nullopt);
  ToolList tools = list();
  EXPECT_EQ(tools.error, "tools/list: the server paginates forever (more than 5 pages)");
  EXPECT_EQ(pages, 5u);
}

TEST_F(McpClientFaults, AMalformedToolListIsRefusedWhole) {
  server_->on("tools/list", [this](const Message& m) {
    server_->reply(m.id, {{"tools", {{{"name", "good"}}, {{"description", "no name"}}}}});
  });
  ASSERT_EQ(connect(), std::nullopt);
  ToolList tools = list();
  EXPECT_EQ(tools.error, "tools/list: tool 2: a tool needs a \"name\" string");
  EXPECT_TRUE(tools.tools.empty());
  server_->on("tools/list", [this](const Message& m) {
    server_->reply(m.id, {{"tools", "none"}});
  });
  EXPECT_EQ(list().error, "tools/list: the answer has no \"tools\" list");
}

TEST_F(McpClientFaults, GarbageLinesAndAnOversizedLineAreSkippedAndTheCallGoesOn) {
  ASSERT_EQ(connect(), std::nullopt);
  std::vector<CallOutcome>& outcomes = outcomes_;
  start_call(outcomes);
  server_->raw("not json at all");
  server_->raw("{\"jsonrpc\":\"2.0\",");
  server_->raw(std::string(100 * 1024 * 1024, 'x'));  // over the 64 MiB cap
  server_->reply(call_request().id, {{"content", {{{"type", "text"}, {"text", "still here"}}}}});
  ASSERT_TRUE(loop_.run_until([&] { return !outcomes.empty(); }, 30'000));
  EXPECT_EQ(outcomes[0].text, "still here");
  EXPECT_TRUE(client_->is_open());
}

TEST_F(McpClientFaults, AReplyWithAnUnknownIdIsDropped) {
  ASSERT_EQ(connect(), std::nullopt);
  std::vector<CallOutcome>& outcomes = outcomes_;
  start_call(outcomes);
  server_->reply(999, {{"content", Json::array()}});
  server_->reply(call_request().id, {{"content", {{{"type", "text"}, {"text", "mine"}}}}});
  ASSERT_TRUE(loop_.run_until([&] { return !outcomes.empty(); }));
  EXPECT_EQ(outcomes[0].text, "mine");
  EXPECT_EQ(client_->late_replies(), 1u);
}

TEST_F(McpClientFaults, AReplyAfterCancelIsDroppedAndTheCallEndsOnce) {
  ASSERT_EQ(connect(), std::nullopt);
  std::vector<CallOutcome>& outcomes = outcomes_;
  uint64_t id = start_call(outcomes);
  ASSERT_TRUE(client_->cancel(id, "stop"));
  ASSERT_TRUE(loop_.run_until([&] { return server_->find("notifications/cancelled"); }));
  const Message& cancelled = *server_->find("notifications/cancelled");
  EXPECT_EQ(cancelled.params["requestId"], call_request().id);
  EXPECT_EQ(cancelled.params["reason"], "stop");
  server_->reply(call_request().id, {{"content", {{{"type", "text"}, {"text", "late"}}}}});
  ASSERT_TRUE(loop_.run_until([&] { return client_->late_replies() == 1; }));
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].status, CallOutcome::Status::kCanceled);
}

// Found by mcp_client_fuzz (error-answers): a server's error that reuses the endpoint's
// timeout or closed code is the server's answer, not a timeout or a closed connection of ours.
TEST_F(McpClientFaults, AServerErrorWithTheTimeoutCodeFailsTheCallWithoutCancellingIt) {
  ASSERT_EQ(connect(), std::nullopt);
  std::vector<CallOutcome>& outcomes = outcomes_;
  start_call(outcomes);
  server_->fail(call_request().id, jsonrpc::code::kRequestTimeout, "the tool timed out");
  ASSERT_TRUE(loop_.run_until([&] { return !outcomes.empty(); }));
  EXPECT_EQ(outcomes[0].status, CallOutcome::Status::kFailed);
  EXPECT_EQ(outcomes[0].text, "the tool timed out");
  // A cancel would have been written before the next call's request.
  client_->call_tool("slow", Json::object(), {});
  auto calls = [&] {
    return std::count_if(server_->received.begin(), server_->received.end(),
                         [](const Message& m) { return m.method == "tools/call"; });
  };
  ASSERT_TRUE(loop_.run_until([&] { return calls() == 2; }));
  EXPECT_EQ(server_->find("notifications/cancelled"), nullptr);
}

TEST_F(McpClientFaults, AnInitializeErrorWithTheClosedCodeStillProbesDiscover) {
  server_->on("initialize", [this](const Message& m) {
    server_->fail(m.id, jsonrpc::code::kConnectionClosed, "busy");
  });
  server_->on("server/discover", [this](const Message& m) { server_->fail(m.id, -32601, "no"); });
  EXPECT_EQ(connect(), "initialize failed: busy; server/discover failed: no");
}

TEST_F(McpClientFaults, ACallAsksForProgressWithItsOwnToken) {
  ASSERT_EQ(connect(), std::nullopt);
  std::vector<CallOutcome>& outcomes = outcomes_;
  uint64_t id = start_call(outcomes);
  EXPECT_EQ(call_request().params["_meta"]["progressToken"], id);
  EXPECT_EQ(call_request().params["name"], "slow");
}

TEST_F(McpClientFaults, ListChangedReachesTheCallback) {
  ASSERT_EQ(connect(), std::nullopt);
  server_->notify("notifications/tools/list_changed", Json::object());
  ASSERT_TRUE(loop_.run_until([&] { return tools_changed_ == 1; }));
}

TEST_F(McpClientFaults, LogMessagesGoToTheirCallOrElseToTheServersLog) {
  ASSERT_EQ(connect(), std::nullopt);
  std::vector<CallOutcome>& outcomes = outcomes_;
  uint64_t id = start_call(outcomes);
  server_->notify("notifications/message", {{"level", "info"}, {"data", "loading"}});
  server_->notify("notifications/message", {{"level", "warning"},
                                            {"logger", "db"},
                                            {"data", {{"rows", 3}}},
                                            {"_meta", {{"progressToken", id}}}});
  ASSERT_TRUE(loop_.run_until([&] { return !server_log_.empty() && !call_log_.empty(); }));
  EXPECT_EQ(server_log_, std::vector<std::string>{"info loading"});
  EXPECT_EQ(call_log_, std::vector<std::string>{"warning db: {\"rows\":3}"});
}

}  // namespace
}  // namespace toolhost::mcp
