// Fuzzes msgpack-RPC input: the Decoder and the Peer's dispatch, on real pipes, through
// Peer::feed (the read callback's own path). Byte 0: how many requests the Peer sends first
// (low 3 bits; their ids are 1..n); byte 1: how the rest is split into reads (0: one read).
// The rest is what the other side sends. Checked, besides not crashing:
//   - the Peer dispatches what a Decoder given the whole input at once decodes, in any split;
//   - every request it dispatched gets exactly one response (at most one when the input
//     closed the connection), and what the Peer writes is well-formed msgpack-RPC;
//   - every request the Peer sent gets its callback exactly once: the first response with its
//     id (a failure when that response's error is not nil), else "connection closed".
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <uv.h>

#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "base/log.h"
#include "rpc/convert.h"
#include "rpc/decoder.h"
#include "rpc/peer.h"

namespace {

using namespace toolhost;
using nlohmann::json;
using rpc::Message;
using rpc::MessageType;
using rpc::Peer;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

uv_loop_t* loop() {
  static uv_loop_t* instance = [] {
    std::signal(SIGPIPE, SIG_IGN);
    // RPC_FUZZ_LOG=/dev/stderr shows what the Peer logs (when a crash needs explaining).
    const char* log_path = std::getenv("RPC_FUZZ_LOG");
    log::init(log_path ? log_path : "/dev/null", log_path ? log::Level::Debug : log::Level::Off);
    auto* l = new uv_loop_t;
    uv_loop_init(l);
    return l;
  }();
  return instance;
}

// The Peer's output, read back as it comes. `overflowed` when one read took as much as the
// pipe holds: a write may then have waited in libuv's queue, so counts are only bounds.
struct Output {
  int fd = -1;
  size_t capacity = 0;
  std::string bytes;
  bool overflowed = false;
  void drain() {
    char chunk[65536];
    size_t got = 0;
    for (;;) {
      ssize_t n = ::read(fd, chunk, sizeof chunk);
      if (n <= 0) break;
      bytes.append(chunk, static_cast<size_t>(n));
      got += static_cast<size_t>(n);
    }
    if (got * 2 >= capacity) overflowed = true;
  }
};

struct Sent {
  int calls = 0;
  std::string error;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const int own_requests = data[0] & 7;
  uint32_t split = data[1];
  const std::string_view input(reinterpret_cast<const char*>(data) + 2, size - 2);

  // What a Decoder makes of the whole input in one piece.
  std::vector<Message> expected;
  rpc::Decoder reference;
  const bool input_fails = reference.feed(input, expected).has_value();

  int to_peer[2];
  int from_peer[2];
  check(::pipe2(to_peer, O_CLOEXEC) == 0);
  check(::pipe2(from_peer, O_CLOEXEC) == 0);
  ::fcntl(from_peer[1], F_SETPIPE_SZ, 1 << 20);
  Output out;
  out.fd = from_peer[0];
  out.capacity = static_cast<size_t>(::fcntl(from_peer[0], F_GETPIPE_SZ));
  ::fcntl(out.fd, F_SETFL, O_NONBLOCK);

  std::vector<Peer::Respond> later;
  bool closed_by_peer = false;
  {
    Peer peer(loop());
    peer.on_close([&](const std::string&) { closed_by_peer = true; });
    check(peer.open(to_peer[0], from_peer[1]) == 0);
    auto echo = [&](const Message& m, Peer::Respond respond) {
      out.drain();
      respond(nullptr, rpc::to_json(m.params));
    };
    peer.on_request("toolhost.ping", echo);
    peer.on_request("echo", echo);
    peer.on_request("fail", [&](const Message& m, Peer::Respond respond) {
      out.drain();
      respond(json::array({0, rpc::error_text(m.params)}), nullptr);
    });
    peer.on_request("twice", [&](const Message&, Peer::Respond respond) {
      out.drain();
      respond(nullptr, 1);
      respond(nullptr, 2);
    });
    peer.on_request("throw",
                    [](const Message&, Peer::Respond) { throw std::runtime_error("thrown"); });
    peer.on_request("throw_int", [](const Message&, Peer::Respond) { throw 42; });
    peer.on_request("reply_throw", [&](const Message&, Peer::Respond respond) {
      out.drain();
      respond(nullptr, true);
      throw std::runtime_error("after the reply");
    });
    peer.on_request("later", [&](const Message&, Peer::Respond respond) {
      later.push_back(std::move(respond));
    });
    peer.on_notification("ev", [](const Message& m) {
      for (uint32_t i = 0; i < m.params.via.array.size; ++i) {
        (void)rpc::to_handle(m.params.via.array.ptr[i]);
      }
      (void)rpc::to_json(m.params).dump(-1, ' ', false, json::error_handler_t::replace);
    });
    peer.on_notification("throw", [](const Message&) { throw std::runtime_error("x"); });

    std::vector<Sent> sent(static_cast<size_t>(own_requests) + 1);
    for (int i = 1; i <= own_requests; ++i) {
      peer.request("q", json::array({i}), [&sent, i](const rpc::Response& r) {
        sent[static_cast<size_t>(i)].calls++;
        sent[static_cast<size_t>(i)].error = r.error;
      });
    }
    out.drain();

    // Fed in reads of 1..64 bytes chosen by `split`, or all at once.
    size_t at = 0;
    while (at < input.size() && peer.is_open()) {
      size_t n = input.size() - at;
      if (split != 0) {
        split = split * 1103515245u + 12345u;
        n = std::min<size_t>(n, 1 + (split >> 16) % 64);
      }
      peer.feed(input.substr(at, n));
      at += n;
      out.drain();
    }
    const bool open_after_input = peer.is_open();
    check(open_after_input == !input_fails);
    check(closed_by_peer == input_fails);
    for (auto& respond : later) {
      respond(nullptr, "later");
      out.drain();
    }
    later.clear();
    peer.close("fuzz over");
    while (!peer.is_closed()) uv_run(loop(), UV_RUN_NOWAIT);
    out.drain();
    check(peer.pending_requests() == 0);

    // Own requests: the first response to each id, or the close.
    std::map<uint32_t, const Message*> first_response;
    for (const Message& m : expected) {
      if (m.type == MessageType::Response) first_response.emplace(m.id, &m);
    }
    for (int i = 1; i <= own_requests; ++i) {
      const Sent& s = sent[static_cast<size_t>(i)];
      check(s.calls == 1);
      auto it = first_response.find(static_cast<uint32_t>(i));
      if (it == first_response.end()) {
        check(s.error == "connection closed");
      } else {
        check(s.error.empty() == (it->second->error.type == msgpack::type::NIL));
      }
    }
  }
  ::close(to_peer[1]);

  // What the Peer wrote: its own requests, then one response per request it dispatched.
  std::vector<Message> written;
  rpc::Decoder reader;
  check(!reader.feed(out.bytes, written).has_value());
  ::close(from_peer[0]);
  std::map<uint32_t, int> requests;
  std::map<uint32_t, int> responses;
  int own = 0;
  for (const Message& m : expected) {
    if (m.type == MessageType::Request) requests[m.id]++;
  }
  for (const Message& m : written) {
    if (m.type == MessageType::Request) {
      check(m.id == static_cast<uint32_t>(++own));
    } else {
      check(m.type == MessageType::Response);
      responses[m.id]++;
    }
  }
  if (!out.overflowed) check(own == own_requests);
  for (const auto& [id, count] : responses) check(count <= requests[id]);
  if (!input_fails && !out.overflowed) check(responses == requests);
  return 0;
}
