// Peer on real pipes: malformed input, end of input, and frames split across writes.

#include "rpc_peer_fixture.h"

namespace toolhost::rpc {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_F(RpcPeerRaw, MalformedFrameIsLoggedAndClosesTheConnectionCleanly) {
  char dir_pattern[] = "/tmp/toolhost-peer-test-XXXXXX";
  ASSERT_NE(::mkdtemp(dir_pattern), nullptr);
  const std::string log_path = std::string(dir_pattern) + "/host.log";
  ASSERT_TRUE(log::init(log_path, log::Level::Debug));

  std::vector<std::string> pending_errors;
  server_->request("waiting", json::array(),
                   [&](const Response& r) { pending_errors.push_back(r.error); });
  std::vector<json> seen;
  server_->on_notification("ev", [&](const Message& m) { seen.push_back(to_json(m.params)); });
  // A good notification and garbage in the same write: the first is still handled.
  raw_->write(encode_notification("ev", json::array({1})) + "\xc1");
  ASSERT_TRUE(run_until([&] { return server_->is_closed() && raw_->eof(); }));

  EXPECT_EQ(seen, std::vector<json>{json::array({1})});
  ASSERT_EQ(close_reasons_.size(), 1u);
  EXPECT_EQ(close_reasons_[0].rfind("malformed msgpack", 0), 0u) << close_reasons_[0];
  EXPECT_EQ(pending_errors, std::vector<std::string>{"connection closed"});
  EXPECT_EQ(server_->pending_requests(), 0u);
  EXPECT_NE(read_file(log_path).find("ERROR"), std::string::npos);
  EXPECT_NE(read_file(log_path).find("rpc: malformed msgpack"), std::string::npos)
      << read_file(log_path);
  ::unlink(log_path.c_str());
  ::rmdir(dir_pattern);
}

TEST_F(RpcPeerRaw, WellFormedMsgpackThatIsNotRpcClosesTheConnection) {
  raw_->write("\x93\x03\x01\x90");  // [3, 1, []]
  ASSERT_TRUE(run_until([&] { return server_->is_closed(); }));
  ASSERT_EQ(close_reasons_.size(), 1u);
  EXPECT_EQ(close_reasons_[0], "malformed message: unknown type or size");
}

TEST_F(RpcPeerRaw, EndOfInputClosesOnceAndFailsPendingRequests) {
  std::vector<std::string> errors;
  server_->request("a", json::array(), [&](const Response& r) { errors.push_back(r.error); });
  server_->request("b", json::array(), [&](const Response& r) { errors.push_back(r.error); });
  ASSERT_TRUE(run_until([&] { return raw_->received().size() == 2; }));
  raw_->close_write();
  ASSERT_TRUE(run_until([&] { return server_->is_closed(); }));
  EXPECT_EQ(close_reasons_, std::vector<std::string>{"end of input"});
  EXPECT_EQ(errors, (std::vector<std::string>{"connection closed", "connection closed"}));
  EXPECT_FALSE(server_->is_open());
  // After the end: requests fail at once, notifications are dropped, close is a no-op.
  std::string late;
  server_->request("late", json::array(), [&](const Response& r) { late = r.error; });
  EXPECT_EQ(late, "connection closed");
  server_->notify("late", json::array());
  server_->close("again");
  EXPECT_EQ(close_reasons_.size(), 1u);
}

TEST_F(RpcPeerRaw, PartialFrameAtEndOfInputJustCloses) {
  const std::string request = encode_request(9, "ping", json::array());
  raw_->write(request.substr(0, request.size() - 1));
  raw_->close_write();
  ASSERT_TRUE(run_until([&] { return server_->is_closed(); }));
  EXPECT_EQ(close_reasons_, std::vector<std::string>{"end of input"});
  EXPECT_EQ(raw_->responses_to(9), 0u);
}

TEST_F(RpcPeerRaw, FramesSplitAcrossWritesAreReassembled) {
  const std::string request = encode_request(8, "ping", json::array());
  for (char byte : request) {
    raw_->write(std::string(1, byte));
    loop_.poll();  // the server reads each byte on its own
  }
  ASSERT_TRUE(run_until([&] { return raw_->responses_to(8) == 1; }));
  EXPECT_EQ(to_json(raw_->response(8)->result), "pong");
}

TEST_F(RpcPeerRaw, RespondAfterThePeerIsGoneDoesNothing) {
  Peer::Respond kept;
  server_->on_request("later",
                      [&](const Message&, Peer::Respond respond) { kept = std::move(respond); });
  raw_->write(encode_request(1, "later", json::array()));
  ASSERT_TRUE(run_until([&] { return static_cast<bool>(kept); }));
  server_->close();
  ASSERT_TRUE(run_until([&] { return server_->is_closed(); }));
  server_.reset();
  kept(nullptr, "too late");  // must not touch the destroyed Peer
  EXPECT_EQ(raw_->responses_to(1), 0u);
}

TEST_F(RpcPeerRaw, FedBytesAreDecodedAndDispatchedAsAReadIs) {
  // Peer::feed is the read callback's path: split frames, then garbage that closes.
  const std::string request = encode_request(5, "ping", json::array());
  server_->feed(request.substr(0, 3));
  server_->feed(request.substr(3) + encode_request(6, "ping", json::array()));
  ASSERT_TRUE(run_until([&] { return raw_->responses_to(6) == 1; }));
  EXPECT_EQ(raw_->responses_to(5), 1u);
  server_->feed("\xc1");
  EXPECT_FALSE(server_->is_open());
  ASSERT_EQ(close_reasons_.size(), 1u);
  EXPECT_EQ(close_reasons_[0].rfind("malformed msgpack", 0), 0u) << close_reasons_[0];
  server_->feed(encode_request(7, "ping", json::array()));  // closed: ignored
  ASSERT_TRUE(run_until([&] { return server_->is_closed(); }));
  EXPECT_EQ(raw_->responses_to(7), 0u);
}

}  // namespace
}  // namespace toolhost::rpc
