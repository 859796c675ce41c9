#pragma once
// Drives a real `nvim --embed --headless --clean` over msgpack-RPC (our own rpc::Peer as the
// client) with the plugin loaded from this checkout. Every wait runs the event loop until
// the awaited message arrives; the deadline only turns a hang into a test failure.

#include <uv.h>

#include <chrono>
#include <deque>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rpc/peer.h"

namespace toolhost::e2e {

// The toolhost binary the tests start: this build's (TOOLHOST_BINARY), or the one the
// environment's TOOLHOST_TEST_HOST names. The sanitizer build runs these tests, compiled once
// in the normal build, against its own instrumented host that way (tests/CMakeLists.txt).
const std::string& toolhost_binary();

class NvimHarness {
 public:
  // Starts Neovim with XDG dirs under a fresh temporary directory, loads the plugin and
  // calls setup() with `setup_opts` merged over the test defaults (auto_run = false). With
  // `share_dirs`, its XDG dirs are those of that (longer-lived) instance: two Neovims sharing
  // toolhost's state dir. XDG_RUNTIME_DIR (where hosts publish their sockets for agents) is a
  // fresh 0700 directory too, unless `runtime_dir` is false: then it is unset.
  explicit NvimHarness(const nlohmann::json& setup_opts = nlohmann::json::object(),
                       const NvimHarness* share_dirs = nullptr, bool runtime_dir = true);
  ~NvimHarness();

  // Synchronous from the test's point of view; throws on an error response or when no answer
  // came within `deadline` (an answer that comes later is dropped).
  nlohmann::json request(const std::string& method, const nlohmann::json& params,
                         std::chrono::milliseconds deadline = std::chrono::seconds(20));
  nlohmann::json lua(const std::string& code, const nlohmann::json& args = nlohmann::json::array(),
                     std::chrono::milliseconds deadline = std::chrono::seconds(20));
  void command(const std::string& cmd);

  // Waits for a notification `method` sent by Neovim (e.g. from an autocmd that calls
  // vim.rpcnotify(channel, …)); returns its params. Throws on timeout.
  nlohmann::json wait_for(const std::string& method,
                          std::chrono::milliseconds deadline = std::chrono::seconds(20));
  // Keeps notifications `method` from Neovim for wait_for().
  void listen(const std::string& method);
  // Forwards `User {pattern}` autocmds to this client as notification `pattern`.
  void forward_user_event(const std::string& pattern);
  // Notifies "mode" with "InsertEnter" / "InsertLeave" as they happen: nvim_input() is typeahead,
  // so a test waits for the mode it typed its way into.
  void forward_insert_mode();
  // Forwards DiagnosticChanged as notification "diagnostics" with the buffer's diagnostics.
  void forward_diagnostics();
  // Calls the Lua function `check(chan, batch)` (source text) for every batch of each list
  // ui.apply_all() applies, once the whole list is applied (all its slices), and once now with
  // no batch, so a test can forward to itself the state it waits for.
  void after_each_batch(const std::string& check);
  // Replaces vim.notify: each message becomes notification "notify" {msg, level}.
  void forward_notify();

  // Copies a fixture into the temporary directory and opens it; returns the buffer number.
  int64_t open_fixture(const std::string& fixture, const std::string& as_name);
  std::vector<std::string> lines(int64_t buf = 0);
  // `:checkhealth name`'s report, one line each, in 0.7's form on every version.
  std::string checkhealth(const std::string& name);
  std::string temp_dir() const { return temp_dir_; }
  int64_t channel() const { return channel_; }
  // Neovim's environment ("NAME=value"): a process the test starts beside it (an agent's
  // `toolhost mcp serve`) sees the same XDG dirs.
  const std::vector<std::string>& environment() const { return env_; }

  // The loop the harness waits on: a test's own handles on it progress during every wait.
  uv_loop_t* loop() { return &loop_; }

  // The Neovim the tests drive: $TOOLHOST_TEST_NVIM (ctest sets it once per version that
  // tests/CMakeLists.txt registers; scripts/fetch-nvim brings them), else `nvim` from PATH.
  static std::string binary();

  // Whether the test running has failed (the tests' binary sets it: the bench's has no
  // GoogleTest); a failed test's harness prints the end of the host's log as it ends.
  static bool (*test_failed)();
  // Runs the loop until `done`; throws naming `what` after `deadline`.
  void run_until(const std::function<bool()>& done, std::chrono::milliseconds deadline,
                 const std::string& what);

 private:
  void print_host_log() const;

  uv_loop_t loop_{};
  uv_process_t process_{};
  bool exited_ = false;
  std::unique_ptr<rpc::Peer> peer_;
  std::string temp_dir_;
  std::string xdg_root_;  // temp_dir_, or the one of the instance it shares dirs with
  std::vector<std::string> env_;
  int64_t channel_ = 0;
  std::deque<std::pair<std::string, nlohmann::json>> notifications_;
};

}  // namespace toolhost::e2e
