#pragma once
// The Peer test fixtures: a Peer on real pipes, and RawEnd, the test's byte-level side of a
// connection. Shared by rpc_peer_test.cc and rpc_peer_input_test.cc.

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

using nlohmann::json;
using testing::TestLoop;

struct Fds {
  int read = -1;
  int write = -1;
};

inline Fds make_pipe() {
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

}  // namespace toolhost::rpc
