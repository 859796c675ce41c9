#pragma once
// An outside agent for the agents_*.cc tests: the real `toolhost mcp serve` as a child process
// on the harness's loop, started as an agent starts it (in the project directory, with
// Neovim's environment) and spoken to in JSON lines over its stdin and stdout. Every wait runs
// the harness's loop, so Neovim's notifications are read meanwhile; nothing sleeps.

#include <uv.h>

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {

class AgentProcess {
 public:
  using json = nlohmann::json;
  static constexpr std::chrono::milliseconds kDeadline = std::chrono::seconds(20);

  // Starts `toolhost mcp serve {args}` in `cwd` (Neovim's starting directory when empty).
  explicit AgentProcess(NvimHarness& nvim, std::string cwd = "",
                        std::vector<std::string> args = {});
  ~AgentProcess();
  AgentProcess(const AgentProcess&) = delete;
  AgentProcess& operator=(const AgentProcess&) = delete;

  // The handshake as client `name` (its clientInfo.name); returns the initialize result.
  json initialize(const std::string& name);
  int64_t send_request(const std::string& method, const json& params);
  void send_notification(const std::string& method, const json& params);
  // tools/call; with a token, the request's _meta.progressToken. Returns the request id.
  int64_t call(const std::string& tool, const json& arguments, const json& progress_token = {});
  // The whole response to request `id` (its result or error).
  json wait_response(int64_t id, std::chrono::milliseconds deadline = kDeadline);
  bool answered(int64_t id) const { return responses_.count(id) != 0; }
  // A tools/call's result as {text, isError}; throws on a JSON-RPC error.
  json wait_result(int64_t id, std::chrono::milliseconds deadline = kDeadline);
  // The next notification `method` the server sent (its params), in arrival order.
  json wait_notification(const std::string& method, std::chrono::milliseconds deadline = kDeadline);
  // Notifications `method` received and not yet taken by wait_notification.
  std::vector<json> received(const std::string& method) const;
  // A ping answered: everything the server wrote before its answer has been read.
  void round_trip();

  // The agent goes away: its end of stdin closes.
  void close_input();
  // Its exit status once it exited (the deadline turns a hang into a failure).
  int64_t wait_exit(std::chrono::milliseconds deadline = kDeadline);
  bool exited() const { return exited_; }
  // What it wrote on stderr so far (which host it picked, why it ended).
  const std::string& log() const { return log_; }

 private:
  struct Write {
    uv_write_t request;
    std::string data;
  };

  // The harness's run_until, with this process's log in the timeout's message.
  void wait(const std::function<bool()>& done, std::chrono::milliseconds deadline,
            const std::string& what);
  void write_line(const json& message);
  void received_bytes(const char* data, size_t size);
  void close_handle(uv_handle_t* handle);

  NvimHarness& nvim_;
  uv_process_t process_{};
  uv_pipe_t in_{}, out_{}, err_{};
  int open_handles_ = 0;
  bool input_open_ = true;
  bool exited_ = false;
  int64_t exit_status_ = -1;
  int64_t next_id_ = 1;
  std::string partial_;
  std::string log_;
  std::map<int64_t, json> responses_;
  std::deque<json> notifications_;  // whole messages, in arrival order
};

}  // namespace toolhost::e2e
