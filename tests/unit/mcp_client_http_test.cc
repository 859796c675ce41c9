// mcp::Client over Streamable HTTP (mcp::connect_http) against the fake server's small MCP
// endpoint: the session and the agreed version go with the requests after the handshake, and a
// call's progress arrives on its SSE stream before the result. Skipped without Node.js.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "http_fake_server.h"
#include "mcp/client.h"
#include "mcp/http_connection.h"
#include "test_loop.h"

namespace toolhost::mcp {
namespace {

TEST(McpClientHttp, TheSessionAndTheAgreedVersionGoWithLaterRequestsAndProgressStreams) {
  auto* server = testing::HttpFakeServer::get();
  if (!server) GTEST_SKIP() << "the HTTP tests need Node.js";
  testing::TestLoop loop;
  ServerConfig config;
  config.name = "fake";
  config.url = server->url("/mcp");
  std::string error;
  auto transport = connect_http(loop.get(), config, nullptr, error);
  ASSERT_TRUE(transport) << error;
  auto client = std::make_unique<Client>(loop.get(), std::move(transport), Client::Options{},
                                         Client::Events{});
  ASSERT_TRUE(client->start(error)) << error;
  std::optional<std::optional<std::string>> connected;
  client->connect([&](std::optional<std::string> why) { connected = why; });
  ASSERT_TRUE(loop.run_until([&] { return connected.has_value(); }));
  ASSERT_FALSE(*connected) << **connected;

  std::optional<ToolList> list;
  client->list_tools([&](ToolList l) { list = std::move(l); });
  ASSERT_TRUE(loop.run_until([&] { return list.has_value(); }));
  ASSERT_FALSE(list->error) << *list->error;
  ASSERT_EQ(list->tools.size(), 1u);
  EXPECT_EQ(list->tools[0].description, "2025-11-25 s1");

  std::vector<Progress> progress;
  std::optional<CallOutcome> outcome;
  Client::CallEvents events;
  events.progress = [&](const Progress& p) { progress.push_back(p); };
  events.done = [&](CallOutcome o) { outcome = std::move(o); };
  client->call_tool("headers", Json::object(), events);
  ASSERT_TRUE(loop.run_until([&] { return outcome.has_value(); }));
  EXPECT_EQ(outcome->text, "done");
  ASSERT_EQ(progress.size(), 1u);
  EXPECT_EQ(progress[0].message, "half");

  client->close("done");
  client.reset();
  bool guarded = false;  // run_until checks once before its guard timer starts: the DELETE ends
  EXPECT_TRUE(loop.run_until([&] {
    bool idle = loop.get()->active_handles <= (guarded ? 1u : 0u);
    guarded = true;
    return idle;
  }));
}

}  // namespace
}  // namespace toolhost::mcp
