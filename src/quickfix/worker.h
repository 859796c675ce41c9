#pragma once
// A headless Neovim that parses with its own errorformat engine, off the editor's thread
// (issue #39): `nvim --embed --headless -u NONE -i NONE -n`, the user's own binary, spoken to
// over msgpack-RPC with the host's rpc::Peer. Started on the first request; the buffers every
// parsed file name creates are its cost, never the editor's. A worker that cannot start or
// dies fails its requests with one message; the next request starts a new one.
//
//   Worker worker(loop, "/usr/bin/nvim", prelude);   // prelude: Lua run first in every worker
//   worker.exec_lua("return 1 + ...", {41}, [](const std::string& error, nlohmann::json r) {});
//   worker.close([] { /* handles closed: destroy it */ });

#include <sys/types.h>
#include <uv.h>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rpc/peer.h"

namespace toolhost::quickfix {

class Worker {
 public:
  using Done = std::function<void(const std::string& error, nlohmann::json result)>;

  Worker(uv_loop_t* loop, std::string nvim, std::string prelude);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Runs `code` in the worker with `...` = args (nvim_exec_lua); `done` gets what it returns,
  // or an error text (the worker could not start, died, or the code failed).
  void exec_lua(const std::string& code, const nlohmann::json& args, Done done);
  // Ends the worker (its stdin closes; SIGKILL if it is still there after a moment); `done` once
  // every handle is closed. No request afterwards.
  void close(std::function<void()> done);

  bool running() const { return child_alive_; }
  pid_t pid() const { return pid_; }
  // From spawn to the first answer (the prelude's), in ms; 0 until then.
  double startup_ms() const { return startup_ms_; }
  // How many times it was started.
  int starts() const { return starts_; }

 private:
  // Spawns the process and connects the Peer; an error text when it cannot.
  std::string start();
  // The connection ended: its Peer is retired, the process is ended.
  void stopped(const std::string& reason);
  static void on_exit(uv_process_t* process, int64_t status, int signal);
  // While closing: polled until every handle (process, pipes) is closed.
  static void on_close_tick(uv_timer_t* timer);

  uv_loop_t* loop_;
  std::string nvim_;
  std::string prelude_;
  uv_process_t process_{};
  bool process_open_ = false;  // the handle is open (closed in on_exit)
  // Spawned and not yet exited: only then is there a pid to signal (a failed spawn's is 0,
  // and kill(0) would signal the host's own process group).
  bool child_alive_ = false;
  pid_t pid_ = 0;
  std::unique_ptr<rpc::Peer> peer_;
  uv_timer_t kill_timer_{};
  bool closing_ = false;
  std::function<void()> on_closed_;
  uint64_t spawned_ns_ = 0;
  double startup_ms_ = 0;
  int starts_ = 0;
  std::string last_error_;  // why the last one failed or stopped
  // Old Peers whose pipes are still closing: destroyed once closed.
  std::vector<std::unique_ptr<rpc::Peer>> retired_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace toolhost::quickfix
