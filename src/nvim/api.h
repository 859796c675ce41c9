#pragma once
// Typed asynchronous wrappers for the Neovim API calls the host uses, over an rpc::Peer.
// Every call returns at once; its callback gets an error text (empty on success).

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rpc/peer.h"

namespace toolhost::nvim {

// What nvim_get_api_info says of this Neovim. The features that depend on api_level (SPEC 11)
// are used by Lua only and decided there, once (lua/toolhost/features.lua).
struct ApiInfo {
  int64_t channel = 0;
  int64_t api_level = 0;
  std::string version;  // "0.7.2"
};

ApiInfo parse_api_info(const msgpack::object& result);

// nvim_buf_lines_event: rows [first, last) were replaced by `lines` (the host attaches without
// send_buffer, so last == -1, the initial event that carries the whole buffer, never comes).
struct LinesEvent {
  int64_t buf = 0;
  int64_t changedtick = 0;
  int64_t first = 0;
  int64_t last = 0;
  std::vector<std::string> lines;
  bool more = false;
};

class Api {
 public:
  template <class T>
  using Done = std::function<void(const std::string& error, T value)>;

  explicit Api(rpc::Peer& peer);

  void get_api_info(Done<ApiInfo> done);
  // Without send_buffer: the host reads the buffer itself (BufferLoader).
  void buf_attach(int64_t buf, Done<bool> done);
  void buf_line_count(int64_t buf, Done<int64_t> done);
  void buf_detach(int64_t buf, Done<bool> done);
  void buf_get_lines(int64_t buf, int64_t start, int64_t end, Done<std::vector<std::string>> done);
  // Runs `code` with `...` = args; the callback gets what it returns.
  void exec_lua(const std::string& code, const nlohmann::json& args, Done<nlohmann::json> done);
  // Runs `code` with `...` = a list of batches. While Neovim applies one list, the batches sent
  // meanwhile wait and leave together when it answers: a busy Neovim gets fewer, larger lists
  // (and applies each as one), and the host never queues work up in front of it. Every other
  // call sends the waiting batches first, so that nothing overtakes them. `done` gets each
  // list's answer.
  // Lua may answer `{pending = true}`: it applies the list in slices, between which Neovim
  // serves other clients; the list stays in flight until batches_applied() gets its result
  // (Lua's `toolhost.applied` notification).
  void exec_lua_batched(const std::string& code, nlohmann::json batch, Done<nlohmann::json> done);
  // The result of the oldest list answered `{pending = true}`.
  void batches_applied(const nlohmann::json& result);
  // No list of batches is in flight or waiting.
  bool batches_idle() const { return batches_->in_flight == 0 && batches_->waiting.empty(); }
  // Sends the waiting batches now (before the channel closes).
  void flush_batches() { send_waiting_batches(); }

  void on_lines(std::function<void(LinesEvent&)> handler);
  void on_detach(std::function<void(int64_t buf)> handler);

  rpc::Peer& peer() { return peer_; }

 private:
  struct Batches {
    std::string code;
    Done<nlohmann::json> done;
    nlohmann::json waiting = nlohmann::json::array();
    int in_flight = 0;
    int pending = 0;  // of in_flight, answered {pending = true}: their results come later
  };

  void call(const std::string& method, const nlohmann::json& params, Done<nlohmann::json> done);
  void send(const std::string& method, const nlohmann::json& params, Done<nlohmann::json> done);
  void send_waiting_batches();
  rpc::Peer& peer_;
  // Shared with the answers' callbacks, which may come after this Api is gone (the Peer fails
  // its pending requests when it closes).
  std::shared_ptr<Batches> batches_ = std::make_shared<Batches>();
};

}  // namespace toolhost::nvim
