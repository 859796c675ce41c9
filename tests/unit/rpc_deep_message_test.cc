// A message nested deeper than handlers may convert (found from Lua: vim.rpcnotify(chan, m,
// a 70-deep table) closed the host's channel, and the host exited): it is refused on its own,
// a request with an error response, and the connection goes on.

#include "rpc_peer_fixture.h"

namespace toolhost::rpc {
namespace {

// `frame` (an encoding that ends with an empty params array or result) with that last value
// replaced by `depth` nested one-element arrays around nil.
std::string nested(std::string frame, int depth) {
  frame.pop_back();  // 0x90, or 0xc0 for a nil result
  return frame + std::string(static_cast<size_t>(depth), '\x91') + '\xc0';
}

TEST_F(RpcPeerRaw, RequestNestedTooDeepGetsAnErrorAndTheConnectionGoesOn) {
  int called = 0;
  server_->on_request("m", [&](const Message&, Peer::Respond respond) {
    ++called;
    respond(nullptr, "ok");
  });
  raw_->write(nested(encode_request(7, "m", json::array()), 200));
  call_then_ping(8, "ping");
  ASSERT_EQ(raw_->responses_to(7), 1u);
  std::string error = error_text(raw_->response(7)->error);
  EXPECT_NE(error.find("nested deeper than"), std::string::npos) << error;
  EXPECT_EQ(called, 0);
  EXPECT_TRUE(server_->is_open());
  EXPECT_TRUE(close_reasons_.empty());
  // As deep as Neovim's Lua can send (it refuses tables nested ~4000 deep itself).
  raw_->write(nested(encode_request(9, "m", json::array()), 3900));
  call_then_ping(10, "ping");
  EXPECT_EQ(raw_->responses_to(9), 1u);
  EXPECT_TRUE(server_->is_open());
}

TEST_F(RpcPeerRaw, NotificationNestedTooDeepReachesItsHandlerCutShort) {
  std::vector<json> seen;
  server_->on_notification("n", [&](const Message& m) { seen.push_back(to_json(m.params)); });
  raw_->write(nested(encode_notification("n", json::array()), 70));
  raw_->write(encode_notification("n", json::array({1})));
  call_then_ping(1, "ping");
  ASSERT_EQ(seen.size(), 2u);
  json cut = seen[0];
  int depth = 0;
  while (cut.is_array()) cut = cut[0], ++depth;
  EXPECT_EQ(depth, static_cast<int>(kMaxNesting));  // and then null
  EXPECT_TRUE(cut.is_null());
  EXPECT_EQ(seen[1], json::array({1}));
  EXPECT_TRUE(server_->is_open());
}

TEST_F(RpcPeerRaw, ResponseNestedTooDeepIsAnErrorForItsCallback) {
  std::string error = "unanswered";
  server_->request("q", json::array(), [&](const Response& r) { error = r.error; });
  ASSERT_TRUE(run_until([&] { return raw_->received().size() == 1; }));
  raw_->write(nested(encode_response(raw_->received()[0].id, nullptr, nullptr), 100));
  ASSERT_TRUE(run_until([&] { return error != "unanswered"; }));
  EXPECT_NE(error.find("nested deeper than"), std::string::npos) << error;
  EXPECT_TRUE(server_->is_open());
}

TEST(RpcDepth, ShallowIsNotDeeperDeepIs) {
  msgpack::zone zone;
  msgpack::object flat(std::vector<int>{1, 2, 3}, zone);
  EXPECT_FALSE(nested_deeper_than(flat, 1));
  EXPECT_TRUE(nested_deeper_than(flat, 0));
  msgpack::object two(std::vector<std::vector<int>>{{1}, {}}, zone);
  EXPECT_FALSE(nested_deeper_than(two, 2));
  EXPECT_TRUE(nested_deeper_than(two, 1));
  EXPECT_FALSE(nested_deeper_than(msgpack::object(5), 0));
}

}  // namespace
}  // namespace toolhost::rpc
