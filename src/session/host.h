#pragma once
// The host's server side: RPC methods from lua/toolhost, buffer events from Neovim, one
// Session per attached buffer, the job engine and the feedback batcher.

#include <functional>
#include <map>
#include <memory>
#include <string>

#include <uv.h>

#include "jobs/engine.h"
#include "nvim/api.h"
#include "parse/types.h"
#include "rpc/peer.h"
#include "session/config.h"
#include "session/feedback.h"
#include "session/session.h"

namespace toolhost::session {

struct HostOptions {
  std::string version;
  std::string state_dir;
  std::string cache_dir;
};

class Host {
 public:
  Host(uv_loop_t* loop, rpc::Peer& peer, HostOptions options);
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  // Registers the handlers and asks Neovim who it is.
  void start();
  // Ends every job (SIGTERM, SIGKILL after `grace_ms`); `done` runs when they are gone and
  // the host's handles are closed.
  void shutdown(uint64_t grace_ms, std::function<void()> done);

 private:
  // Answers a `toolhost.call` {token, method, args} with nvim_exec_lua(resolve).
  void call(const nlohmann::json& args);
  Session* session(int64_t buf);
  void attach(const nlohmann::json& args);
  void detach(int64_t buf);
  void send_batch(nlohmann::json batch);
  void update_ticker();

  uv_loop_t* loop_;
  rpc::Peer& peer_;
  HostOptions options_;
  nvim::Api api_;
  nvim::ApiInfo info_;
  Config config_;
  parse::ToolTable tools_;
  jobs::Engine engine_;
  Feedback feedback_;
  uv_timer_t ticker_{};
  std::map<int64_t, std::unique_ptr<Session>> sessions_;
};

}  // namespace toolhost::session
