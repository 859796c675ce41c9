// The JSON-RPC endpoint over a real socketpair: both ends are Endpoints on StreamTransports, or
// one end is the test writing raw bytes. Nothing sleeps: every wait is on the loop.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jsonrpc/endpoint.h"
#include "jsonrpc/stream_transport.h"
#include "test_loop.h"

namespace toolhost::jsonrpc {
namespace {

using testing::TestLoop;

std::pair<int, int> socket_pair() {
  int fds[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  return {fds[0], fds[1]};
}

class JsonRpcEndpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    auto [a, b] = socket_pair();
    client_ = std::make_unique<Endpoint>(loop_.get(), StreamTransport::from_fds(loop_.get(), a, a));
    server_fd_ = b;
  }
  void TearDown() override {
    client_.reset();
    server_.reset();
    loop_.drain();
  }

  // The server side as an Endpoint, handlers added by the test before start().
  Endpoint& server() {
    if (!server_) {
      server_ = std::make_unique<Endpoint>(
          loop_.get(), StreamTransport::from_fds(loop_.get(), server_fd_, server_fd_, 4096));
    }
    return *server_;
  }
  void start_both() {
    std::string error;
    ASSERT_TRUE(server().start(error)) << error;
    ASSERT_TRUE(client_->start(error)) << error;
  }
  std::optional<Reply> call(const std::string& method, Json params = Json::object(),
                            RequestOptions options = {}) {
    std::optional<Reply> reply;
    client_->request(
        method, std::move(params), [&](const Reply& r) { reply = r; }, options);
    EXPECT_TRUE(loop_.run_until([&] { return reply.has_value(); }));
    return reply;
  }

  TestLoop loop_;
  std::unique_ptr<Endpoint> client_;
  std::unique_ptr<Endpoint> server_;
  int server_fd_ = -1;
  std::vector<Responder> unanswered_;
};

TEST_F(JsonRpcEndpoint, ARequestGetsItsHandlersResult) {
  server().on_request("add", [](const Message& m, Responder r) {
    r.result(m.params["a"].get<int>() + m.params["b"].get<int>());
  });
  start_both();
  auto reply = call("add", {{"a", 2}, {"b", 3}});
  ASSERT_TRUE(reply && reply->ok());
  EXPECT_EQ(reply->result, 5);
}

TEST_F(JsonRpcEndpoint, AnUnknownMethodIsMethodNotFoundAndAFallbackCanTakeIt) {
  start_both();
  auto reply = call("nope");
  ASSERT_TRUE(reply && reply->error);
  EXPECT_EQ(reply->error->code, code::kMethodNotFound);
  EXPECT_NE(reply->error->message.find("nope"), std::string::npos);

  server().on_other_request([](const Message& m, Responder r) { r.result(m.method); });
  reply = call("anything");
  ASSERT_TRUE(reply && reply->ok());
  EXPECT_EQ(reply->result, "anything");
}

TEST_F(JsonRpcEndpoint, AHandlerMayAnswerLater) {
  std::optional<Responder> held;
  server().on_request("slow", [&](const Message&, Responder r) { held = r; });
  start_both();
  std::optional<Reply> reply;
  client_->request("slow", {}, [&](const Reply& r) { reply = r; });
  ASSERT_TRUE(loop_.run_until([&] { return held.has_value(); }));
  EXPECT_FALSE(reply);
  held->result("done");
  held->result("twice");  // answered once only
  ASSERT_TRUE(loop_.run_until([&] { return reply.has_value(); }));
  EXPECT_EQ(reply->result, "done");
  EXPECT_EQ(client_->late_replies(), 0u);
}

TEST_F(JsonRpcEndpoint, AThrowingHandlerAnswersAnInternalError) {
  server().on_request("boom", [](const Message&, Responder) { throw std::runtime_error("kaput"); });
  start_both();
  auto reply = call("boom");
  ASSERT_TRUE(reply && reply->error);
  EXPECT_EQ(reply->error->code, code::kInternalError);
  EXPECT_EQ(reply->error->message, "kaput");
}

TEST_F(JsonRpcEndpoint, AResponderDroppedUnansweredStillAnswers) {
  server().on_request("forgetful", [](const Message&, Responder) {});
  start_both();
  auto reply = call("forgetful");
  ASSERT_TRUE(reply && reply->error);
  EXPECT_EQ(reply->error->code, code::kInternalError);
}

TEST_F(JsonRpcEndpoint, NotificationsReachTheirHandlerAndUnknownOnesAreIgnored) {
  std::vector<Json> seen;
  server().on_notification("note", [&](const Message& m) { seen.push_back(m.params); });
  server().on_request("ping", [](const Message&, Responder r) { r.result(Json::object()); });
  start_both();
  client_->notify("unknown", {{"x", 1}});
  client_->notify("note", {{"n", 1}});
  auto reply = call("ping");  // ordered after the notifications on the same stream
  ASSERT_TRUE(reply && reply->ok());
  EXPECT_EQ(seen, (std::vector<Json>{{{"n", 1}}}));
}

TEST_F(JsonRpcEndpoint, ATimedOutRequestFailsAndItsLateReplyIsDropped) {
  std::optional<Responder> held;
  server().on_request("slow", [&](const Message&, Responder r) { held = r; });
  start_both();
  auto reply = call("slow", {}, RequestOptions{20, 0});
  ASSERT_TRUE(reply && reply->error);
  EXPECT_EQ(reply->error->code, code::kRequestTimeout);
  EXPECT_EQ(client_->pending(), 0u);
  ASSERT_TRUE(held);
  held->result("late");
  ASSERT_TRUE(loop_.run_until([&] { return client_->late_replies() == 1; }));
}

TEST_F(JsonRpcEndpoint, ExtendCannotPassTheMaximum) {
  server().on_request("slow", [&](const Message&, Responder r) { unanswered_.push_back(r); });
  start_both();
  std::optional<Reply> reply;
  Json id = client_->request(
      "slow", {}, [&](const Reply& r) { reply = r; }, RequestOptions{600'000, 30});
  EXPECT_TRUE(client_->extend(id));
  ASSERT_TRUE(loop_.run_until([&] { return reply.has_value(); }));
  EXPECT_EQ(reply->error->code, code::kRequestTimeout);
  EXPECT_FALSE(client_->extend(id));
}

TEST_F(JsonRpcEndpoint, AbandonEndsTheRequestAtOnce) {
  std::optional<Responder> held;
  server().on_request("slow", [&](const Message&, Responder r) { held = r; });
  start_both();
  std::optional<Reply> reply;
  Json id = client_->request("slow", {}, [&](const Reply& r) { reply = r; });
  ASSERT_TRUE(loop_.run_until([&] { return held.has_value(); }));
  EXPECT_TRUE(client_->abandon(id, Error{-1, "cancelled by the user", nullptr}));
  ASSERT_TRUE(reply && reply->error);
  EXPECT_EQ(reply->error->message, "cancelled by the user");
  EXPECT_FALSE(client_->abandon(id, Error{}));
  held->result("late");
  ASSERT_TRUE(loop_.run_until([&] { return client_->late_replies() == 1; }));
}

TEST_F(JsonRpcEndpoint, APeerThatGoesAwayFailsPendingRequestsAndReportsOnce) {
  server().on_request("slow", [](const Message&, Responder) {});
  int closes = 0;
  std::string reason;
  client_->on_closed([&](const std::string& r) {
    ++closes;
    reason = r;
  });
  start_both();
  std::optional<Reply> reply;
  client_->request("slow", {}, [&](const Reply& r) { reply = r; });
  server_.reset();
  ASSERT_TRUE(loop_.run_until([&] { return reply.has_value(); }));
  EXPECT_EQ(reply->error->code, code::kConnectionClosed);
  EXPECT_EQ(closes, 1);
  EXPECT_FALSE(client_->is_open());
  auto after = call("again");  // fails at once, never waits
  ASSERT_TRUE(after && after->error);
  EXPECT_EQ(after->error->code, code::kConnectionClosed);
}

TEST_F(JsonRpcEndpoint, AnEndpointMayBeDestroyedFromItsOwnCloseCallback) {
  start_both();
  client_->on_closed([&](const std::string&) { client_.reset(); });
  server_.reset();
  ASSERT_TRUE(loop_.run_until([&] { return client_ == nullptr; }));
}

// The test writes raw bytes to a server Endpoint and reads its raw answers.
class JsonRpcRawInput : public JsonRpcEndpoint {
 protected:
  void SetUp() override {
    auto [a, b] = socket_pair();
    raw_ = a;
    server_fd_ = b;
    server().on_request("ping", [](const Message&, Responder r) { r.result(Json::object()); });
    std::string error;
    ASSERT_TRUE(server().start(error)) << error;
    reader_ = StreamTransport::from_fds(loop_.get(), ::dup(raw_), ::dup(raw_));
    Transport::Handlers handlers;
    handlers.message = [this](std::string_view text) { answers_.push_back(Json::parse(text)); };
    ASSERT_TRUE(reader_->start(std::move(handlers), error)) << error;
  }
  void TearDown() override {
    reader_.reset();
    ::close(raw_);
    JsonRpcEndpoint::TearDown();
  }
  void write_raw(const std::string& bytes) {
    ASSERT_EQ(::write(raw_, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  bool wait_for_answers(size_t n) {
    return loop_.run_until([&] { return answers_.size() >= n; });
  }

  int raw_ = -1;
  std::unique_ptr<StreamTransport> reader_;
  std::vector<Json> answers_;
};

TEST_F(JsonRpcRawInput, AMalformedLineIsAnsweredAndTheConnectionStays) {
  write_raw("{\"jsonrpc\":\"2.0\",\"id\":1,\n");
  write_raw("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
  ASSERT_TRUE(wait_for_answers(2));
  EXPECT_EQ(answers_[0]["error"]["code"], code::kParseError);
  EXPECT_TRUE(answers_[0]["id"].is_null());
  EXPECT_EQ(answers_[1]["id"], 2);
  EXPECT_TRUE(answers_[1].contains("result"));
}

TEST_F(JsonRpcRawInput, AnOversizedLineIsAnsweredOnceAndTheConnectionStays) {
  write_raw(std::string(20000, 'x') + "\n");  // this server's cap is 4096 bytes
  write_raw("{\"jsonrpc\":\"2.0\",\"id\":\"after\",\"method\":\"ping\"}\n");
  ASSERT_TRUE(wait_for_answers(2));
  EXPECT_EQ(answers_[0]["error"]["code"], code::kParseError);
  EXPECT_NE(answers_[0]["error"]["message"].get<std::string>().find("4096"), std::string::npos);
  EXPECT_EQ(answers_[1]["id"], "after");
}

TEST_F(JsonRpcRawInput, AnInvalidRequestIsAnsweredWithItsId) {
  write_raw("{\"jsonrpc\":\"1.0\",\"id\":9,\"method\":\"ping\"}\n");
  write_raw("[{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\"}]\n");
  ASSERT_TRUE(wait_for_answers(2));
  EXPECT_EQ(answers_[0]["id"], 9);
  EXPECT_EQ(answers_[0]["error"]["code"], code::kInvalidRequest);
  EXPECT_EQ(answers_[1]["error"]["code"], code::kInvalidRequest);
}

}  // namespace
}  // namespace toolhost::jsonrpc
