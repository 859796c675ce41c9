// Peer over real pipes on a real libuv loop: id correlation, out-of-order responses,
// notifications, errors, malformed input, EOF, and exactly one response per request.

#include "rpc_peer_fixture.h"

namespace toolhost::rpc {
namespace {

TEST_F(RpcPeer, ResponsesReachTheCallbackOfTheirOwnRequest) {
  open_pair();
  server_->on_request("add", [](const Message& m, Peer::Respond respond) {
    json p = to_json(m.params);
    respond(nullptr, p[0].get<int>() + p[1].get<int>());
  });
  std::vector<std::pair<int, int>> got;  // (request index, result)
  for (int i = 0; i < 5; ++i) {
    client_->request("add", json::array({i, 100}), [&got, i](const Response& r) {
      ASSERT_TRUE(r.ok()) << r.error;
      got.emplace_back(i, to_json(r.result).get<int>());
    });
  }
  EXPECT_EQ(client_->pending_requests(), 5u);
  ASSERT_TRUE(run_until([&] { return got.size() == 5; }));
  for (auto [i, result] : got) EXPECT_EQ(result, i + 100);
  EXPECT_EQ(client_->pending_requests(), 0u);
}

TEST_F(RpcPeer, OutOfOrderResponsesAreCorrelatedById) {
  open_pair();
  std::vector<std::pair<std::string, Peer::Respond>> held;
  server_->on_request("slow", [&](const Message& m, Peer::Respond respond) {
    held.emplace_back(to_json(m.params)[0].get<std::string>(), std::move(respond));
  });
  std::vector<std::string> order;
  for (std::string name : {"a", "b", "c"}) {
    client_->request("slow", json::array({name}), [&order, name](const Response& r) {
      EXPECT_EQ(to_json(r.result), "answer to " + name);
      order.push_back(name);
    });
  }
  ASSERT_TRUE(run_until([&] { return held.size() == 3; }));
  // Answer c, then a, then b.
  for (size_t index : {2u, 0u, 1u}) held[index].second(nullptr, "answer to " + held[index].first);
  ASSERT_TRUE(run_until([&] { return order.size() == 3; }));
  EXPECT_EQ(order, (std::vector<std::string>{"c", "a", "b"}));
}

TEST_F(RpcPeer, NotificationsReachTheirHandlerAndUnknownOnesAreIgnored) {
  open_pair();
  std::vector<json> seen;
  server_->on_notification("ev", [&](const Message& m) { seen.push_back(to_json(m.params)); });
  server_->on_request("ping",
                      [](const Message&, Peer::Respond respond) { respond(nullptr, "pong"); });
  client_->notify("nobody_listens", json::array({1}));
  client_->notify("ev", json::array({1, "two"}));
  client_->notify("ev", nullptr);
  bool ponged = false;
  client_->request("ping", json::array(), [&](const Response& r) { ponged = r.ok(); });
  ASSERT_TRUE(run_until([&] { return ponged; }));
  EXPECT_EQ(seen, (std::vector<json>{json::array({1, "two"}), json::array()}));
  EXPECT_TRUE(server_->is_open());
}

TEST_F(RpcPeer, UnknownMethodGetsAnErrorResponseAndTheConnectionStaysOpen) {
  open_pair();
  std::optional<Response> got;
  std::string error;
  client_->request("no_such_method", json::array(), [&](const Response& r) {
    got = r;
    error = r.error;
  });
  ASSERT_TRUE(run_until([&] { return got.has_value(); }));
  EXPECT_FALSE(got->ok());
  EXPECT_EQ(error, "unknown method: no_such_method");
  EXPECT_TRUE(server_->is_open());
  EXPECT_TRUE(client_->is_open());
}

TEST_F(RpcPeer, ErrorResponsesCarryTheMessage) {
  open_pair();
  server_->on_request("fail", [](const Message&, Peer::Respond respond) {
    respond(json::array({1, "Vim:E492: Not an editor command"}), nullptr);
  });
  std::string error = "unset";
  client_->request("fail", json::array(), [&](const Response& r) { error = r.error; });
  ASSERT_TRUE(run_until([&] { return error != "unset"; }));
  EXPECT_EQ(error, "Vim:E492: Not an editor command");
}

TEST_F(RpcPeer, TenMegabyteRequestAndResponse) {
  open_pair();
  server_->on_request("echo", [](const Message& m, Peer::Respond respond) {
    const msgpack::object& text = m.params.via.array.ptr[0];
    respond(nullptr, std::string(text.via.str.ptr, text.via.str.size) + "!");
  });
  std::string payload(10 * 1024 * 1024, 'p');
  std::optional<std::string> echoed;
  client_->request("echo", json::array({payload}), [&](const Response& r) {
    echoed = std::string(r.result.via.str.ptr, r.result.via.str.size);
  });
  ASSERT_TRUE(run_until([&] { return echoed.has_value(); }));
  EXPECT_EQ(echoed->size(), payload.size() + 1);
  EXPECT_EQ(*echoed, payload + "!");
}

TEST_F(RpcPeerRaw, HandlerThatThrowsGetsOneErrorResponse) {
  server_->on_request("boom",
                      [](const Message&, Peer::Respond) { throw std::runtime_error("kaput"); });
  call_then_ping(1, "boom");
  ASSERT_EQ(raw_->responses_to(1), 1u);
  EXPECT_EQ(error_text(raw_->response(1)->error), "kaput");
  EXPECT_TRUE(server_->is_open());
}

TEST_F(RpcPeerRaw, HandlerThatRespondsThenThrowsIsNotAnsweredTwice) {
  server_->on_request("boom", [](const Message&, Peer::Respond respond) {
    respond(nullptr, "fine");
    throw std::runtime_error("after the fact");
  });
  call_then_ping(2, "boom");
  ASSERT_EQ(raw_->responses_to(2), 1u);
  EXPECT_EQ(raw_->response(2)->error.type, msgpack::type::NIL);
  EXPECT_EQ(to_json(raw_->response(2)->result), "fine");
}

TEST_F(RpcPeerRaw, HandlerThatRespondsTwiceSendsOnlyTheFirst) {
  server_->on_request("twice", [](const Message&, Peer::Respond respond) {
    respond(nullptr, 1);
    respond(nullptr, 2);
  });
  call_then_ping(3, "twice");
  ASSERT_EQ(raw_->responses_to(3), 1u);
  EXPECT_EQ(to_json(raw_->response(3)->result), 1);
}

TEST_F(RpcPeerRaw, HandlerThatThrowsANonStandardExceptionGetsOneErrorResponse) {
  server_->on_request("boom", [](const Message&, Peer::Respond) { throw 42; });
  call_then_ping(4, "boom");
  ASSERT_EQ(raw_->responses_to(4), 1u);
  EXPECT_NE(raw_->response(4)->error.type, msgpack::type::NIL);
  EXPECT_TRUE(server_->is_open());
}

TEST_F(RpcPeerRaw, NotificationHandlerThatThrowsDoesNotCloseOrAnswer) {
  server_->on_notification("boom", [](const Message&) { throw std::runtime_error("x"); });
  raw_->write(encode_notification("boom", json::array()));
  call_then_ping(5, "ping");
  EXPECT_EQ(raw_->received().size(), 2u);  // the two pongs, nothing for the notification
  EXPECT_TRUE(server_->is_open());
}

TEST_F(RpcPeerRaw, ResponseToAnUnknownIdIsIgnored) {
  raw_->write(encode_response(77, nullptr, "stray"));
  call_then_ping(6, "ping");
  EXPECT_TRUE(server_->is_open());
  EXPECT_TRUE(close_reasons_.empty());
}

TEST_F(RpcPeerRaw, ErrorThatIsNoValidJsonTextStillReachesTheCallback) {
  // Found by rpc_fuzz: printing this error threw, and the callback was never called.
  std::vector<std::string> errors;
  server_->request("a", json::array(), [&](const Response& r) { errors.push_back(r.error); });
  ASSERT_TRUE(run_until([&] { return raw_->received().size() == 1; }));
  const uint32_t id = raw_->received()[0].id;
  ASSERT_LT(id, 128u);
  // [1, id, [{["\x92"]: 1}], nil]: a map key that is an array holding invalid UTF-8.
  raw_->write(std::string("\x94\x01") + static_cast<char>(id) + "\x91\x81\x91\xa1\x92\x01\xc0");
  ASSERT_TRUE(run_until([&] { return errors.size() == 1; }));
  EXPECT_EQ(errors[0], R"([{"[\")"
                       "\xef\xbf\xbd"
                       R"(\"]":1}])");  // U+FFFD for the byte
  EXPECT_EQ(server_->pending_requests(), 0u);
}

TEST_F(RpcPeerRaw, ErrorWithAnEmptyMessageIsStillAFailure) {
  // Found by rpc_fuzz: [0, ""] (or "") as the error made a failed call read as a success.
  std::vector<Response> responses;
  for (int i = 0; i < 2; ++i) {
    server_->request("a", json::array(), [&](const Response& r) { responses.push_back(r); });
  }
  ASSERT_TRUE(run_until([&] { return raw_->received().size() == 2; }));
  raw_->write(encode_response(raw_->received()[0].id, json::array({0, ""}), nullptr));
  raw_->write(encode_response(raw_->received()[1].id, "", nullptr));
  ASSERT_TRUE(run_until([&] { return responses.size() == 2; }));
  EXPECT_FALSE(responses[0].ok());
  EXPECT_EQ(responses[0].error, R"([0,""])");
  EXPECT_FALSE(responses[1].ok());
  EXPECT_EQ(responses[1].error, R"("")");
}

TEST_F(RpcPeerRaw, ServerRequestsGetTheRawEndsResponses) {
  std::vector<json> results;
  server_->request("nvim_get_api_info", json::array(),
                   [&](const Response& r) { results.push_back(to_json(r.result)); });
  server_->request("nvim_get_api_info", json::array(),
                   [&](const Response& r) { results.push_back(to_json(r.result)); });
  ASSERT_TRUE(run_until([&] { return raw_->received().size() == 2; }));
  const Message& first = raw_->received()[0];
  const Message& second = raw_->received()[1];
  EXPECT_EQ(first.type, MessageType::Request);
  EXPECT_EQ(first.method, "nvim_get_api_info");
  EXPECT_NE(first.id, second.id);
  raw_->write(encode_response(second.id, nullptr, "second"));
  raw_->write(encode_response(first.id, nullptr, "first"));
  ASSERT_TRUE(run_until([&] { return results.size() == 2; }));
  EXPECT_EQ(results, (std::vector<json>{"second", "first"}));
}

TEST_F(RpcPeer, CloseFailsPendingRequestsAndCallsOnCloseOnce) {
  open_pair();
  std::string error;
  client_->request("never_answered_in_time", json::array(),
                   [&](const Response& r) { error = r.error; });
  int closes = 0;
  std::string reason;
  client_->on_close([&](const std::string& r) {
    ++closes;
    reason = r;
  });
  client_->close("bye");
  client_->close("bye again");
  EXPECT_EQ(error, "connection closed");
  EXPECT_EQ(closes, 1);
  EXPECT_EQ(reason, "bye");
  // The other side sees end of input.
  ASSERT_TRUE(run_until([&] { return server_->is_closed() && client_->is_closed(); }));
  EXPECT_EQ(close_reasons_, std::vector<std::string>{"end of input"});
}

}  // namespace
}  // namespace toolhost::rpc
