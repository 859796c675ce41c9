// The supervisor with a Streamable HTTP server (`url`), against the fake server's small MCP
// endpoint (tests/fixtures/http_fake_server.mjs): started on first need like a stdio server, a
// call streams its progress, an unreachable server fails with the reason and waits its backoff,
// and stop() ends the session with a DELETE. Skipped without Node.js.
#include <gtest/gtest.h>

#include <csignal>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "http_fake_server.h"
#include "jsonrpc/http_transport.h"
#include "jsonrpc/message.h"
#include "mcp_servers_fixture.h"

namespace toolhost::mcp {
namespace {

using jobs::testing::TempDir;

ServerConfig http_server(const std::string& url) {
  ServerConfig config;
  config.name = "web";
  config.url = url;
  config.startup_timeout_ms = 3000;
  config.timeout_ms = 10'000;
  return config;
}

class McpServersHttp : public ServersTest {
 protected:
  // How many DELETEs the fake server has had (its /deletes endpoint, asked with a transport of
  // its own).
  int deletes(const testing::HttpFakeServer& server) {
    jsonrpc::HttpTransport::Options options;
    options.url = server.url("/deletes");
    std::string error;
    auto transport = jsonrpc::HttpTransport::create(&loop_, options, error);
    EXPECT_TRUE(transport) << error;
    if (!transport) return -1;
    std::optional<nlohmann::json> reply;
    jsonrpc::Transport::Handlers handlers;
    handlers.message = [&](std::string_view text) { reply = nlohmann::json::parse(text); };
    EXPECT_TRUE(transport->start(std::move(handlers), error)) << error;
    transport->send(jsonrpc::encode(jsonrpc::make_request(1, "count", nlohmann::json::object())));
    EXPECT_TRUE(run([&] { return reply.has_value(); }));
    transport.reset();
    return reply ? reply->value("/result/deletes"_json_pointer, -1) : -1;
  }
};

TEST_F(McpServersHttp, AnHttpServerListsItsToolsAndACallStreamsProgressThenTheResult) {
  auto* server = testing::HttpFakeServer::get();
  if (!server) GTEST_SKIP() << "the HTTP tests need Node.js";
  make({http_server(server->url("/mcp"))});
  ASSERT_TRUE(run([&] { return tool("web__headers").has_value(); })) << status().dump();
  EXPECT_EQ(status()["state"], "running");
  EXPECT_EQ(status()["transport"], "http");

  auto function = servers_->call(*tool("web__headers"), nlohmann::json::object());
  ASSERT_TRUE(function) << function.error();
  jobs::JobSpec spec;
  spec.tool = "web__headers";
  spec.stream = *function;
  spec.timeout_ms = 10'000;
  std::optional<jobs::JobInfo> finished;
  jobs::JobEvents events;
  events.finished = [&](const jobs::JobInfo& info) { finished = info; };
  engine_->submit(std::move(spec), std::move(events));
  ASSERT_TRUE(run([&] { return finished.has_value(); }));
  EXPECT_EQ(finished->status, core::Status::Succeeded) << finished->error;
  EXPECT_EQ(finished->out.text(), "done");
  EXPECT_EQ(finished->err.text(), "progress 1/2: half\n");
}

TEST_F(McpServersHttp, AnUnreachableServerFailsWithTheReasonAndWaitsItsBackoff) {
  make({http_server("http://127.0.0.1:1/mcp")});
  ASSERT_TRUE(run([&] { return status()["state"] == "failed"; })) << status().dump();
  const std::string error = status()["error"].get<std::string>();
  EXPECT_NE(error.find("cannot reach http://127.0.0.1:1/mcp"), std::string::npos) << error;
  EXPECT_GT(status()["retry_in_ms"].get<uint64_t>(), 0u);
}

TEST_F(McpServersHttp, StopEndsTheSessionWithADelete) {
  auto* server = testing::HttpFakeServer::get();
  if (!server) GTEST_SKIP() << "the HTTP tests need Node.js";
  const int before = deletes(*server);
  make({http_server(server->url("/mcp"))});
  ASSERT_TRUE(run([&] { return status()["state"] == "running"; })) << status().dump();
  ASSERT_TRUE(servers_->stop("web"));
  EXPECT_TRUE(run([&] { return deletes(*server) == before + 1; }));
  EXPECT_EQ(status()["state"], "stopped");
}

}  // namespace
}  // namespace toolhost::mcp
