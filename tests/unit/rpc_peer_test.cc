// Peer over real pipes on a real libuv loop: id correlation, out-of-order responses,
// notifications, errors, malformed input, EOF, and exactly one response per request.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/log.h"
#include "rpc/convert.h"
#include "rpc/encoder.h"
#include "rpc/peer.h"
#include "test_loop.h"

namespace toolhost::rpc {
namespace {

using nlohmann::json;
using testing::TestLoop;

struct Fds {
  int read = -1;
  int write = -1;
};

Fds make_pipe() {
  int fds[2];
  EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  return {fds[0], fds[1]};
}

// The test's side of a connection to a Peer, byte for byte: writes raw frames and collects
// every message the Peer sends back.
class RawEnd {
 public:
  RawEnd(uv_loop_t* loop, int read_fd, int write_fd) : write_fd_(write_fd) {
    uv_pipe_init(loop, &in_, 0);
    in_.data = this;
    uv_pipe_open(&in_, read_fd);
    uv_read_start(
        reinterpret_cast<uv_stream_t*>(&in_),
        [](uv_handle_t* h, size_t, uv_buf_t* buf) {
          auto* self = static_cast<RawEnd*>(h->data);
          *buf = uv_buf_init(self->decoder_.reserve(65536), 65536);
        },
        [](uv_stream_t* s, ssize_t n, const uv_buf_t*) {
          auto* self = static_cast<RawEnd*>(s->data);
          if (n < 0) {
            self->eof_ = true;
            uv_read_stop(s);
            return;
          }
          auto error = self->decoder_.consumed(static_cast<size_t>(n), self->received_);
          EXPECT_EQ(error, std::nullopt);
        });
  }
  // Closes the read pipe; the RawEnd may be destroyed once closed() is true.
  void close() {
    close_write();
    if (!uv_is_closing(reinterpret_cast<uv_handle_t*>(&in_))) {
      uv_close(reinterpret_cast<uv_handle_t*>(&in_),
               [](uv_handle_t* h) { static_cast<RawEnd*>(h->data)->closed_ = true; });
    }
  }
  bool closed() const { return closed_; }
  void write(const std::string& bytes) {
    ASSERT_EQ(::write(write_fd_, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  void close_write() {
    if (write_fd_ >= 0) ::close(write_fd_);
    write_fd_ = -1;
  }
  bool eof() const { return eof_; }
  const std::vector<Message>& received() const { return received_; }
  size_t responses_to(uint32_t id) const {
    size_t n = 0;
    for (const Message& m : received_) n += m.type == MessageType::Response && m.id == id;
    return n;
  }
  const Message* response(uint32_t id) const {
    for (const Message& m : received_) {
      if (m.type == MessageType::Response && m.id == id) return &m;
    }
    return nullptr;
  }

 private:
  uv_pipe_t in_{};
  int write_fd_;
  Decoder decoder_;
  std::vector<Message> received_;
  bool eof_ = false;
  bool closed_ = false;
};

class RpcPeer : public ::testing::Test {
 protected:
  // A Peer (the "server") whose input and output the test holds as raw fds.
  void open_server_raw() {
    Fds to_server = make_pipe();
    Fds from_server = make_pipe();
    server_ = std::make_unique<Peer>(loop_.get());
    server_->on_close([this](const std::string& reason) { close_reasons_.push_back(reason); });
    ASSERT_EQ(server_->open(to_server.read, from_server.write), 0);
    raw_ = std::make_unique<RawEnd>(loop_.get(), from_server.read, to_server.write);
  }
  // Two Peers talking to each other.
  void open_pair() {
    Fds a = make_pipe();
    Fds b = make_pipe();
    server_ = std::make_unique<Peer>(loop_.get());
    client_ = std::make_unique<Peer>(loop_.get());
    server_->on_close([this](const std::string& reason) { close_reasons_.push_back(reason); });
    ASSERT_EQ(server_->open(a.read, b.write), 0);
    ASSERT_EQ(client_->open(b.read, a.write), 0);
  }
  static void SetUpTestSuite() {
    // As in main(): a peer that went away is EPIPE on write, not a signal.
    std::signal(SIGPIPE, SIG_IGN);
  }
  void TearDown() override {
    if (raw_) {
      raw_->close();
      EXPECT_TRUE(loop_.run_until([&] { return raw_->closed(); }));
      raw_.reset();
    }
    for (Peer* peer : {server_.get(), client_.get()}) {
      if (peer) peer->close("test over");
    }
    EXPECT_TRUE(loop_.run_until(
        [&] { return (!server_ || server_->is_closed()) && (!client_ || client_->is_closed()); }));
    server_.reset();
    client_.reset();
  }
  bool run_until(const std::function<bool()>& done) { return loop_.run_until(done); }

  TestLoop loop_;  // destroyed last: checks that every handle was closed
  std::unique_ptr<Peer> server_;
  std::unique_ptr<Peer> client_;
  std::unique_ptr<RawEnd> raw_;
  std::vector<std::string> close_reasons_;
};

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

// --- exactly one response per request ---------------------------------------------------

class RpcPeerRaw : public RpcPeer {
 protected:
  void SetUp() override {
    open_server_raw();
    server_->on_request("ping",
                        [](const Message&, Peer::Respond respond) { respond(nullptr, "pong"); });
  }
  // Sends request `id`, then a ping: pipes keep order, so once the ping's response is in,
  // every response to `id` the server wrote is in too.
  void call_then_ping(uint32_t id, const std::string& method) {
    raw_->write(encode_request(id, method, json::array()));
    raw_->write(encode_request(1000 + id, "ping", json::array()));
    ASSERT_TRUE(run_until([&] { return raw_->responses_to(1000 + id) == 1; }));
  }
};

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

// --- malformed input and end of input ----------------------------------------------------

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
