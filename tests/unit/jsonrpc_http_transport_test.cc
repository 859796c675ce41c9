// The HTTP transport against a local misbehaving server (tests/fixtures/http_fake_server.mjs,
// Node's `http` module on a free port): JSON and SSE answers, the session header, a dropped
// stream resumed with Last-Event-ID after `retry`, and each fault ending as an error reply or a
// closed connection with a message. Skipped without Node.js.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "http_fake_server.h"
#include "jsonrpc/http_transport.h"
#include "jsonrpc/message.h"
#include "test_loop.h"

namespace toolhost::jsonrpc {
namespace {

struct Conversation {
  explicit Conversation(const std::string& path, HttpTransport::Options options = {}) {
    options.url = testing::HttpFakeServer::get()->url(path);
    options.session_header = "Mcp-Session-Id";
    options.on_error = [this](const std::string& what) { errors.push_back(what); };
    std::string error;
    transport = HttpTransport::create(loop.get(), std::move(options), error);
    EXPECT_TRUE(transport) << error;
    Transport::Handlers handlers;
    handlers.message = [this](std::string_view text) { messages.push_back(Json::parse(text)); };
    handlers.dropped = [this](const std::string& reason) { dropped.push_back(reason); };
    handlers.closed = [this](const std::string& reason) { closed = reason; };
    EXPECT_TRUE(transport->start(std::move(handlers), error)) << error;
  }
  ~Conversation() {
    transport.reset();
    EXPECT_TRUE(settled(loop));
  }
  // Every handle closed or closing (the DELETE done), but for run_until's own guard timer.
  static bool settled(testing::TestLoop& loop) {
    bool guarded = false;  // run_until checks once before its guard timer starts
    return loop.run_until(
        [&] {
          bool idle = loop.get()->active_handles <= (guarded ? 1u : 0u);
          guarded = true;
          return idle;
        },
        5000);
  }

  // Sends a request and waits for the message that answers it.
  Json request(const std::string& method, int id = 1) {
    transport->send(encode(make_request(id, method, Json::object())));
    Json reply;
    bool answered = loop.run_until([&] {
      for (const Json& m : messages) {
        if (m.contains("id") && m["id"] == id && !m.contains("method")) reply = m;
      }
      return !reply.is_null();
    });
    EXPECT_TRUE(answered) << "no answer to " << method;
    return reply;
  }
  static std::string error_of(const Json& reply) {
    return reply.contains("error") ? reply["error"].value("message", "") : "(no error)";
  }

  testing::TestLoop loop;
  std::unique_ptr<HttpTransport> transport;
  std::vector<Json> messages;
  std::vector<std::string> dropped;
  std::vector<std::string> errors;
  std::optional<std::string> closed;
};

class HttpTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::HttpFakeServer::get()) GTEST_SKIP() << "the HTTP transport tests need Node.js";
  }
};

TEST_F(HttpTransportTest, AJsonReplyAnswersAndTheSessionAndHeadersGoWithLaterRequests) {
  HttpTransport::Options options;
  options.headers = {{"Authorization", "Bearer t0ken"}};
  Conversation c("/json", options);
  Json first = c.request("initialize", 1);
  EXPECT_EQ(first["result"]["method"], "initialize");
  EXPECT_EQ(first["result"]["headers"].value("mcp-session-id", ""), "");
  EXPECT_EQ(c.transport->session(), "s1");
  c.transport->established({{"MCP-Protocol-Version", "2025-11-25"}});
  Json second = c.request("tools/list", 2);
  const Json& headers = second["result"]["headers"];
  EXPECT_EQ(headers.value("mcp-session-id", ""), "s1");
  EXPECT_EQ(headers.value("mcp-protocol-version", ""), "2025-11-25");
  EXPECT_EQ(headers.value("authorization", ""), "Bearer t0ken");
  EXPECT_NE(headers.value("accept", "").find("text/event-stream"), std::string::npos);
  // /json answers the GET stream with 405: no stream, and nothing to complain about.
  EXPECT_TRUE(c.loop.run_until([&] { return c.transport->active() == 0; }));
  EXPECT_TRUE(c.errors.empty()) << c.errors.front();
}

TEST_F(HttpTransportTest, AnSseStreamCarriesANotificationThenTheAnswer) {
  Conversation c("/sse");
  Json reply = c.request("tools/call");
  EXPECT_EQ(reply["result"]["method"], "tools/call");
  ASSERT_EQ(c.messages.size(), 2u);
  EXPECT_EQ(c.messages[0]["method"], "notifications/progress");
}

TEST_F(HttpTransportTest, ADroppedStreamResumesByGetWithLastEventIdAfterTheRetry) {
  Conversation c("/drop");
  Json reply = c.request("tools/call", 7);
  ASSERT_TRUE(reply.contains("result")) << reply.dump();
  EXPECT_EQ(c.messages[0]["method"], "notifications/before-drop");
  EXPECT_EQ(reply["result"]["lastEventId"], "n1");
  EXPECT_GE(reply["result"]["waitedMs"].get<int>(), 300);
  // The server keeps the resumed stream open; the transport closes it once it has the answer.
  EXPECT_TRUE(c.loop.run_until([&] { return c.transport->active() == 0; }));
}

TEST_F(HttpTransportTest, AStreamTheServerEndsBeforeTheAnswerIsResumedTheSameWay) {
  Conversation c("/drop-end");
  Json reply = c.request("tools/call", 8);
  ASSERT_TRUE(reply.contains("result")) << reply.dump();
  EXPECT_EQ(reply["result"]["lastEventId"], "n1");
  EXPECT_GE(reply["result"]["waitedMs"].get<int>(), 300);
}

TEST_F(HttpTransportTest, AStreamCutWithoutAnEventIdFailsTheRequest) {
  Conversation c("/drop-bare");
  Json reply = c.request("tools/call");
  std::string error = Conversation::error_of(reply);
  EXPECT_NE(error.find("event stream ended before the answer"), std::string::npos) << error;
  EXPECT_NE(error.find("no event id"), std::string::npos) << error;
}

TEST_F(HttpTransportTest, Http500FailsTheRequestWithWhatTheServerSaid) {
  Conversation c("/500");
  std::string error = Conversation::error_of(c.request("tools/call"));
  EXPECT_NE(error.find("HTTP 500"), std::string::npos) << error;
  EXPECT_NE(error.find("the database is down"), std::string::npos) << error;
  EXPECT_TRUE(c.transport->is_open());
}

TEST_F(HttpTransportTest, ARedirectIsRefusedNamingWhereItLeads) {
  Conversation c("/redirect");
  std::string error = Conversation::error_of(c.request("tools/list"));
  EXPECT_NE(error.find("HTTP 307"), std::string::npos) << error;
  EXPECT_NE(error.find("redirects to /json"), std::string::npos) << error;
}

TEST_F(HttpTransportTest, A404ToTheSessionClosesTheConnectionSayingSo) {
  Conversation c("/expire");
  c.request("initialize", 1);
  ASSERT_EQ(c.transport->session(), "old");
  c.transport->send(encode(make_request(2, "tools/list", Json::object())));
  ASSERT_TRUE(c.loop.run_until([&] { return c.closed.has_value(); }));
  EXPECT_NE(c.closed->find("ended the session (HTTP 404"), std::string::npos) << *c.closed;
  EXPECT_FALSE(c.transport->is_open());
}

TEST_F(HttpTransportTest, A100MegabyteBodyFailsTheRequestAtTheCap) {
  Conversation c("/huge");
  std::string error = Conversation::error_of(c.request("tools/call"));
  EXPECT_NE(error.find("over 67108864 bytes"), std::string::npos) << error;
  EXPECT_EQ(c.dropped.size(), 1u);
  EXPECT_TRUE(c.transport->is_open());
}

TEST_F(HttpTransportTest, AnOversizedSseEventIsDroppedAndTheAnswerStillComes) {
  HttpTransport::Options options;
  options.max_message = 1 << 20;
  Conversation c("/huge-sse", options);
  Json reply = c.request("tools/call");
  EXPECT_EQ(reply["result"]["method"], "tools/call");
  EXPECT_EQ(c.dropped.size(), 1u);
}

TEST_F(HttpTransportTest, CloseEndsTheSessionWithADelete) {
  Json before;
  {
    Conversation probe("/deletes");
    before = probe.request("count")["result"]["deletes"];
  }
  {
    Conversation c("/json");
    c.request("initialize");
    c.transport->close("done");
    ASSERT_TRUE(c.loop.run_until([&] { return c.transport->active() == 0; }));
    EXPECT_EQ(c.closed, "done");
  }
  Conversation probe("/deletes");
  EXPECT_EQ(probe.request("count")["result"]["deletes"], before.get<int>() + 1);
}

TEST_F(HttpTransportTest, TheListeningStreamDeliversTheServersOwnMessages) {
  Conversation c("/listen");
  c.transport->established({});
  ASSERT_TRUE(c.loop.run_until([&] { return !c.messages.empty(); }));
  EXPECT_EQ(c.messages[0]["method"], "notifications/hello");
}

TEST_F(HttpTransportTest, AnUnreachableServerFailsTheRequest) {
  HttpTransport::Options options;
  options.url = "http://127.0.0.1:1/mcp";
  testing::TestLoop loop;
  std::string error;
  auto transport = HttpTransport::create(loop.get(), options, error);
  ASSERT_TRUE(transport);
  std::vector<Json> messages;
  Transport::Handlers handlers;
  handlers.message = [&](std::string_view text) { messages.push_back(Json::parse(text)); };
  ASSERT_TRUE(transport->start(std::move(handlers), error));
  transport->send(encode(make_request(1, "initialize", Json::object())));
  ASSERT_TRUE(loop.run_until([&] { return !messages.empty(); }));
  std::string why = Conversation::error_of(messages[0]);
  EXPECT_NE(why.find("cannot reach http://127.0.0.1:1/mcp"), std::string::npos) << why;
  transport.reset();
  EXPECT_TRUE(Conversation::settled(loop));
}

TEST_F(HttpTransportTest, OnlyHttpUrlsAreAccepted) {
  testing::TestLoop loop;
  HttpTransport::Options options;
  options.url = "file:///etc/passwd";
  std::string error;
  EXPECT_FALSE(HttpTransport::create(loop.get(), options, error));
  EXPECT_NE(error.find("not an http:// or https:// URL"), std::string::npos) << error;
}

TEST_F(HttpTransportTest, ATransportDestroyedByItsOwnHandlerLeavesNothingBehind) {
  Conversation c("/sse");
  Transport::Handlers handlers;
  bool called = false;
  handlers.message = [&](std::string_view) {
    called = true;
    c.transport.reset();  // mid-delivery, with the answer still queued
  };
  std::string error;
  ASSERT_TRUE(c.transport->start(std::move(handlers), error));
  c.transport->send(encode(make_request(1, "tools/call", Json::object())));
  ASSERT_TRUE(c.loop.run_until([&] { return called; }));
  EXPECT_FALSE(c.transport);
}

}  // namespace
}  // namespace toolhost::jsonrpc
