// Elicitation (`elicitation/create`, SEP-1034 defaults): the headless answer, and mcp::Client
// answering a server's request through its Elicit hook. The server is a bare jsonrpc::Endpoint
// on a socketpair, so the test sees exactly what the client sends. Nothing sleeps.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jsonrpc/endpoint.h"
#include "jsonrpc/stream_transport.h"
#include "mcp/client.h"
#include "mcp/elicitation.h"
#include "test_loop.h"

namespace toolhost::mcp {
namespace {

using jsonrpc::Endpoint;
using jsonrpc::Reply;
using jsonrpc::StreamTransport;
using testing::TestLoop;

// The conformance suite's elicitation-sep1034-client-defaults schema.
Json defaults_schema() {
  return Json::parse(R"({"type": "object", "properties": {
    "name": {"type": "string", "default": "John Doe"},
    "age": {"type": "integer", "default": 30},
    "score": {"type": "number", "default": 95.5},
    "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
    "verified": {"type": "boolean", "default": true},
    "note": {"type": "string"}}, "required": []})");
}

Json elicit_params(Json schema) {
  return {{"message", "Who are you?"}, {"requestedSchema", std::move(schema)}};
}

TEST(Elicitation, HeadlessAnswerAcceptsWithEveryDefaultAndLeavesTheRestOut) {
  std::string error;
  auto request = parse_elicitation(elicit_params(defaults_schema()), error);
  ASSERT_TRUE(request) << error;
  EXPECT_EQ(request->message, "Who are you?");
  ElicitationAnswer answer = answer_with_defaults(*request);
  EXPECT_EQ(answer.action, ElicitationAnswer::Action::kAccept);
  EXPECT_EQ(elicitation_result(answer),
            Json::parse(R"({"action": "accept", "content": {"name": "John Doe", "age": 30,
              "score": 95.5, "status": "active", "verified": true}})"));
}

TEST(Elicitation, HeadlessAnswerDeclinesWhenARequiredFieldHasNoDefault) {
  Json schema = defaults_schema();
  schema["required"] = {"name", "note"};
  std::string error;
  auto request = parse_elicitation(elicit_params(schema), error);
  ASSERT_TRUE(request) << error;
  EXPECT_EQ(elicitation_result(answer_with_defaults(*request)), Json({{"action", "decline"}}));
}

// A schema whose properties are out of name order, as a server writes it.
const char* kUnsortedRequest =
    R"({"jsonrpc":"2.0","id":"raw-1","method":"elicitation/create","params":{"message":"Which?",)"
    R"("requestedSchema":{"type":"object","properties":{"zeta":{"type":"string"},)"
    R"("alpha":{"type":"integer"},"mid":{"type":"boolean"}}}}})";

TEST(Elicitation, FieldsFollowTheOrderTheRequestsTextListsThemNotNameOrder) {
  jsonrpc::Parsed parsed = jsonrpc::parse_message(kUnsortedRequest);
  ASSERT_TRUE(parsed.message);
  std::string error;
  auto request = parse_elicitation(parsed.message->params, error, parsed.message->text);
  ASSERT_TRUE(request) << error;
  EXPECT_EQ(request->field_order, std::vector<std::string>({"zeta", "alpha", "mid"}));
  EXPECT_EQ(field_names(*request), std::vector<std::string>({"zeta", "alpha", "mid"}));
  // Without the text (a request built in code), and for names the order does not list.
  request->field_order = {"mid", "gone"};
  EXPECT_EQ(field_names(*request), std::vector<std::string>({"mid", "alpha", "zeta"}));
}

TEST(Elicitation, ParseRefusesUrlModeAndMissingMessageOrSchema) {
  std::string error;
  Json url = elicit_params(defaults_schema());
  url["mode"] = "url";
  EXPECT_FALSE(parse_elicitation(url, error));
  EXPECT_NE(error.find("form elicitation only"), std::string::npos) << error;
  EXPECT_FALSE(parse_elicitation({{"requestedSchema", Json::object()}}, error));
  EXPECT_NE(error.find("message"), std::string::npos) << error;
  EXPECT_FALSE(parse_elicitation({{"message", "x"}, {"requestedSchema", 3}}, error));
  EXPECT_NE(error.find("requestedSchema"), std::string::npos) << error;
}

class McpClientElicitation : public ::testing::Test {
 protected:
  void SetUp() override { old_sigpipe_ = std::signal(SIGPIPE, SIG_IGN); }
  void TearDown() override {
    client_.reset();
    server_.reset();
    loop_.drain();
    std::signal(SIGPIPE, old_sigpipe_);
  }

  // A client (with `elicit` as its hook, when set) connected to a bare server that records
  // the initialize params.
  void connect(Elicit elicit) {
    int fds[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    server_fd_ = fds[0];
    server_ = std::make_unique<Endpoint>(loop_.get(),
                                         StreamTransport::from_fds(loop_.get(), fds[0], fds[0]));
    server_->on_request("initialize", [this](const jsonrpc::Message& m, jsonrpc::Responder r) {
      initialize_params_ = m.params;
      r.result({{"protocolVersion", "2025-11-25"},
                {"capabilities", {{"tools", Json::object()}}},
                {"serverInfo", {{"name", "asker"}, {"version", "1"}}}});
    });
    Client::Options options;
    options.version = "1.0";
    Client::Events events;
    events.elicit = std::move(elicit);
    client_ = std::make_unique<Client>(
        loop_.get(), StreamTransport::from_fds(loop_.get(), fds[1], fds[1]), options, events);
    std::string error;
    ASSERT_TRUE(server_->start(error)) << error;
    ASSERT_TRUE(client_->start(error)) << error;
    std::optional<std::optional<std::string>> connected;
    client_->connect([&](std::optional<std::string> why) { connected = why; });
    ASSERT_TRUE(loop_.run_until([&] { return connected.has_value(); }));
    ASSERT_EQ(*connected, std::nullopt);
  }
  // The server asks; the client's reply.
  Reply ask(Json params) {
    std::optional<Reply> reply;
    server_->request(kElicitationCreate, std::move(params), [&](const Reply& r) { reply = r; });
    EXPECT_TRUE(loop_.run_until([&] { return reply.has_value(); }));
    return reply.value_or(Reply{});
  }

  void (*old_sigpipe_)(int) = SIG_DFL;
  TestLoop loop_;
  std::unique_ptr<Endpoint> server_;
  int server_fd_ = -1;  // server_'s end: a test writes its own text there, keys unsorted
  std::unique_ptr<Client> client_;
  Json initialize_params_;
};

TEST_F(McpClientElicitation, WithAHookItDeclaresTheCapabilityAndSendsTheHooksAnswer) {
  std::optional<ElicitationRequest> asked;
  connect([&](const ElicitationRequest& request, std::function<void(ElicitationAnswer)> answer) {
    asked = request;
    answer(answer_with_defaults(request));
  });
  EXPECT_TRUE(initialize_params_["capabilities"].contains("elicitation")) << initialize_params_;
  Reply reply = ask(elicit_params(defaults_schema()));
  ASSERT_TRUE(reply.ok()) << reply.error->message;
  ASSERT_TRUE(asked.has_value());
  EXPECT_EQ(asked->message, "Who are you?");
  EXPECT_EQ(reply.result["action"], "accept");
  EXPECT_EQ(reply.result["content"]["age"], 30);
  EXPECT_EQ(reply.result["content"]["verified"], true);
}

TEST_F(McpClientElicitation, TheHookGetsTheFieldsInTheOrderTheServerWroteThem) {
  std::optional<ElicitationRequest> asked;
  connect([&](const ElicitationRequest& request, std::function<void(ElicitationAnswer)>) {
    asked = request;
  });
  const std::string line = std::string(kUnsortedRequest) + "\n";
  ASSERT_EQ(::write(server_fd_, line.data(), line.size()), static_cast<ssize_t>(line.size()));
  ASSERT_TRUE(loop_.run_until([&] { return asked.has_value(); }));
  EXPECT_EQ(field_names(*asked), std::vector<std::string>({"zeta", "alpha", "mid"}));
}

TEST_F(McpClientElicitation, TheHookMayAnswerLaterAsAUserPromptWould) {
  std::function<void(ElicitationAnswer)> pending;
  connect([&](const ElicitationRequest&, std::function<void(ElicitationAnswer)> answer) {
    pending = std::move(answer);
  });
  std::optional<Reply> reply;
  server_->request(kElicitationCreate, elicit_params(defaults_schema()),
                   [&](const Reply& r) { reply = r; });
  ASSERT_TRUE(loop_.run_until([&] { return static_cast<bool>(pending); }));
  EXPECT_FALSE(reply.has_value());
  ElicitationAnswer declined;
  declined.action = ElicitationAnswer::Action::kDecline;
  pending(declined);
  ASSERT_TRUE(loop_.run_until([&] { return reply.has_value(); }));
  ASSERT_TRUE(reply->ok());
  EXPECT_EQ(reply->result, Json({{"action", "decline"}}));
}

TEST_F(McpClientElicitation, ABadRequestIsRefusedWithoutReachingTheHook) {
  bool hook_called = false;
  connect([&](const ElicitationRequest&, std::function<void(ElicitationAnswer)>) {
    hook_called = true;
  });
  Reply reply = ask({{"mode", "url"}, {"message", "open this"}, {"url", "https://x"}});
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.error->code, jsonrpc::code::kInvalidParams);
  EXPECT_FALSE(hook_called);
}

TEST_F(McpClientElicitation, AQuestionIsDroppedOnceTheCallThatAskedEndsOrTheServerGoes) {
  std::vector<ElicitationRequest> asked;
  connect([&](const ElicitationRequest& request, std::function<void(ElicitationAnswer)>) {
    asked.push_back(request);
  });
  std::optional<jsonrpc::Responder> running;  // the server holds the call while it asks
  server_->on_request("tools/call",
                      [&](const jsonrpc::Message&, jsonrpc::Responder r) { running = r; });
  std::optional<CallOutcome> outcome;
  uint64_t call = client_->call_tool("ask", Json::object(),
                                     {nullptr, nullptr, [&](CallOutcome o) { outcome = o; }});
  ASSERT_TRUE(loop_.run_until([&] { return running.has_value(); }));
  server_->request(kElicitationCreate, elicit_params(defaults_schema()), [](const Reply&) {});
  ASSERT_TRUE(loop_.run_until([&] { return asked.size() == 1; }));
  EXPECT_TRUE(asked[0].wanted());
  int dropped = 0;
  asked[0].on_dropped([&] { ++dropped; });
  ASSERT_TRUE(client_->cancel(call, "the user canceled the call"));
  ASSERT_TRUE(loop_.run_until([&] { return outcome.has_value(); }));
  EXPECT_FALSE(asked[0].wanted()) << "its call was canceled";
  EXPECT_EQ(dropped, 1) << "the asker is told at once";

  server_->request(kElicitationCreate, elicit_params(defaults_schema()), [](const Reply&) {});
  ASSERT_TRUE(loop_.run_until([&] { return asked.size() == 2; }));
  EXPECT_TRUE(asked[1].wanted()) << "asked with no call running: wanted while connected";
  asked[1].on_dropped([&] { ++dropped; });
  client_.reset();
  EXPECT_FALSE(asked[1].wanted()) << "the client is gone";
  EXPECT_EQ(dropped, 2);
}

TEST_F(McpClientElicitation, WithoutAHookItDeclaresNothingAndTheMethodIsNotFound) {
  connect(nullptr);
  EXPECT_EQ(initialize_params_["capabilities"], Json::object());
  Reply reply = ask(elicit_params(defaults_schema()));
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.error->code, jsonrpc::code::kMethodNotFound);
}

}  // namespace
}  // namespace toolhost::mcp
