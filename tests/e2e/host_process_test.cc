// The toolhost binary as Neovim sees it: a msgpack-RPC server on stdio that answers,
// rejects bad input cleanly and exits when its channel closes or it is told to stop.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <uv.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "e2e/nvim_harness.h"
#include "rpc/convert.h"
#include "rpc/peer.h"
#include "unit/test_loop.h"

namespace toolhost::e2e {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class HostProcess {
 public:
  HostProcess() {
    uv_loop_init(&loop_);
    char pattern[] = "/tmp/toolhost-host-XXXXXX";
    dir_ = ::mkdtemp(pattern);
    int to_host[2], from_host[2];
    EXPECT_EQ(::pipe2(to_host, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(from_host, O_CLOEXEC), 0);
    std::string log = dir_ + "/host.log";
    std::string state = dir_ + "/state", cache = dir_ + "/cache";
    const char* args[] = {toolhost_binary().c_str(), "--stdio",     "--state-dir", state.c_str(),
                          "--cache-dir",   cache.c_str(), "--log-file",  log.c_str(),
                          "--log-level",   "debug",       nullptr};
    uv_stdio_container_t stdio[3];
    stdio[0].flags = UV_INHERIT_FD;
    stdio[0].data.fd = to_host[0];
    stdio[1].flags = UV_INHERIT_FD;
    stdio[1].data.fd = from_host[1];
    stdio[2].flags = UV_INHERIT_FD;
    stdio[2].data.fd = 2;
    uv_process_options_t options{};
    options.file = toolhost_binary().c_str();
    options.args = const_cast<char**>(args);
    options.stdio_count = 3;
    options.stdio = stdio;
    options.exit_cb = [](uv_process_t* p, int64_t status, int signal) {
      auto* self = static_cast<HostProcess*>(p->data);
      self->exited_ = true;
      self->exit_status_ = status;
      self->term_signal_ = signal;
    };
    process_.data = this;
    EXPECT_EQ(uv_spawn(&loop_, &process_, &options), 0);
    ::close(to_host[0]);
    ::close(from_host[1]);
    write_fd_ = to_host[1];
    peer_ = std::make_unique<rpc::Peer>(&loop_);
    peer_->open(from_host[0], ::dup(write_fd_));
    // The host asks who Neovim is; answer like Neovim 0.7 would.
    peer_->on_request("nvim_get_api_info", [](const rpc::Message&, rpc::Peer::Respond respond) {
      respond(
          nullptr,
          json::array(
              {1, {{"version", {{"api_level", 9}, {"major", 0}, {"minor", 7}, {"patch", 2}}}}}));
    });
  }

  ~HostProcess() {
    if (!exited_) uv_process_kill(&process_, SIGKILL);
    run_until([this] { return exited_; });
    peer_->close();
    if (write_fd_ >= 0) ::close(write_fd_);
    uv_close(reinterpret_cast<uv_handle_t*>(&process_), nullptr);
    uv_run(&loop_, UV_RUN_DEFAULT);
    uv_loop_close(&loop_);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Runs the loop until `done`; false when 10 s pass first (a hang, not a timing target).
  bool run_until(const std::function<bool()>& done) {
    return testing::run_until(&loop_, done, 10000);
  }

  // Plays the Neovim side of a chat buffer: answers nvim_buf_attach, nvim_buf_line_count and
  // nvim_buf_get_lines with the buffer's lines and records every feedback batch the host sends.
  void serve_buffer(std::vector<std::string> lines) {
    peer_->on_request("nvim_buf_attach", [](const rpc::Message&, rpc::Peer::Respond respond) {
      respond(nullptr, true);
    });
    peer_->on_request("nvim_buf_line_count",
                      [lines](const rpc::Message&, rpc::Peer::Respond respond) {
                        respond(nullptr, lines.size());
                      });
    peer_->on_request(
        "nvim_buf_get_lines", [lines](const rpc::Message& message, rpc::Peer::Respond respond) {
          json params = rpc::to_json(message.params);
          size_t first = std::min(lines.size(), params[1].get<size_t>());
          size_t end = std::min(lines.size(), params[2].get<size_t>());
          respond(nullptr, std::vector<std::string>(
                               lines.begin() + static_cast<long>(first),
                               lines.begin() + static_cast<long>(std::max(first, end))));
        });
    // ui.apply_all(batches): the batches that came while the previous list was applied.
    peer_->on_request("nvim_exec_lua",
                      [this](const rpc::Message& message, rpc::Peer::Respond respond) {
                        json params = rpc::to_json(message.params);
                        for (const json& batch : params[1][0]) batches_.push_back(batch);
                        respond(nullptr, json::object());
                      });
  }

  // The first job summary with `status` in any batch so far.
  json job_with_status(const std::string& status) const {
    for (const auto& batch : batches_) {
      for (const auto& job : batch.value("jobs", json::array())) {
        if (job["status"] == status) return job;
      }
    }
    return nullptr;
  }

  rpc::Response request(const std::string& method, const json& params, json* result) {
    bool answered = false;
    rpc::Response out;
    peer_->request(method, params, [&](const rpc::Response& response) {
      answered = true;
      out.error = response.error;
      if (result && response.ok()) *result = rpc::to_json(response.result);
    });
    EXPECT_TRUE(run_until([&] { return answered; })) << method;
    return out;
  }

  void close_stdin() {
    peer_->close();
    ::close(write_fd_);
    write_fd_ = -1;
  }

  std::string log() const {
    std::ifstream in(dir_ + "/host.log");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  uv_loop_t loop_{};
  uv_process_t process_{};
  std::unique_ptr<rpc::Peer> peer_;
  std::string dir_;
  int write_fd_ = -1;
  std::vector<json> batches_;
  bool exited_ = false;
  int64_t exit_status_ = -1;
  int term_signal_ = 0;
};

TEST(HostProcess, AnswersPing) {
  HostProcess host;
  json result;
  EXPECT_TRUE(host.request("toolhost.ping", json::array(), &result).ok());
  EXPECT_EQ(result["version"], "0.1.0");
  EXPECT_EQ(result["pid"], host.process_.pid);
}

TEST(HostProcess, UnknownMethodIsAnErrorResponse) {
  HostProcess host;
  rpc::Response response = host.request("no.such.method", json::array(), nullptr);
  EXPECT_EQ(response.error, "unknown method: no.such.method");
  json result;
  EXPECT_TRUE(host.request("toolhost.ping", json::array(), &result).ok());  // still serving
}

TEST(HostProcess, MalformedInputClosesCleanly) {
  HostProcess host;
  json result;
  ASSERT_TRUE(host.request("toolhost.ping", json::array(), &result).ok());
  const char garbage[] = "\xc1\xc1 not msgpack";  // 0xc1 is never used by msgpack
  ASSERT_EQ(::write(host.write_fd_, garbage, sizeof garbage - 1),
            static_cast<ssize_t>(sizeof garbage - 1));
  ASSERT_TRUE(host.run_until([&] { return host.exited_; }));
  EXPECT_EQ(host.exit_status_, 0);
  EXPECT_EQ(host.term_signal_, 0);
  EXPECT_NE(host.log().find("malformed"), std::string::npos) << host.log();
}

TEST(HostProcess, ExitsWhenNeovimClosesTheChannel) {
  HostProcess host;
  json result;
  ASSERT_TRUE(host.request("toolhost.ping", json::array(), &result).ok());
  host.close_stdin();
  ASSERT_TRUE(host.run_until([&] { return host.exited_; }));
  EXPECT_EQ(host.exit_status_, 0);
  EXPECT_NE(host.log().find("shutting down: end of input"), std::string::npos) << host.log();
}

TEST(HostProcess, SigtermExitsCleanly) {
  HostProcess host;
  json result;
  ASSERT_TRUE(host.request("toolhost.ping", json::array(), &result).ok());
  uv_process_kill(&host.process_, SIGTERM);
  ASSERT_TRUE(host.run_until([&] { return host.exited_; }));
  EXPECT_EQ(host.exit_status_, 0);
  EXPECT_EQ(host.term_signal_, 0);
}

// Waits until process `pid` (not our child) exits: a pidfd becomes readable then.
bool wait_for_exit(int pid, int timeout_ms) {
  int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return errno == ESRCH;  // already gone
  pollfd p{fd, POLLIN, 0};
  int ready = ::poll(&p, 1, timeout_ms);
  ::close(fd);
  return ready == 1;
}

// Neovim kills its jobs' process trees when it exits; the host must not rely on that (a
// crashed Neovim, :ToolhostRestart). Here nothing but the host can end the job.
TEST(HostProcess, ClosedChannelEndsRunningJobs) {
  HostProcess host;
  host.serve_buffer({"USER: hi", "ASSISTANT: ok", "**bash**", "```bash", "sleep 30", "```"});
  host.peer_->notify("toolhost.attach", json::array({{{"buf", 1}, {"root", host.dir_}}}));
  host.peer_->notify("toolhost.run", json::array({{{"buf", 1}, {"row", 4}}}));
  ASSERT_TRUE(host.run_until([&] { return !host.job_with_status("running").is_null(); }));
  int pgid = host.job_with_status("running")["pgid"].get<int>();
  ASSERT_GT(pgid, 0);
  ASSERT_EQ(::kill(-pgid, 0), 0);

  host.close_stdin();
  ASSERT_TRUE(host.run_until([&] { return host.exited_; }));
  EXPECT_EQ(host.exit_status_, 0);
  EXPECT_TRUE(wait_for_exit(pgid, 5000)) << "job " << pgid << " outlived the host";
}

// Forwards, as notification "stream", the streamed lines of a running job once they hold `text`.
void forward_stream_text(NvimHarness& nvim, const std::string& text) {
  nvim.listen("stream");
  nvim.lua(R"(
    local chan, text = ...
    local ui = require("toolhost.ui")
    local apply_all = ui.apply_all  -- what the host calls, with the batches that came together
    ui.apply_all = function(batches, ...)
      for _, batch in ipairs(batches) do
        for _, entry in ipairs(batch.buffers or {}) do
          for _, s in ipairs(entry.stream or {}) do
            if vim.tbl_contains(s.lines, text) then
              vim.rpcnotify(chan, "stream", s.lines)
            end
          end
        end
      end
      return apply_all(batches, ...)
    end
  )",
           json::array({nvim.channel(), text}));
}

// :ToolhostRestart never waits for the old host. Its job ignores SIGTERM, so the old host
// needs its shutdown grace (SIGKILL after ~300 ms) before it can exit; restart() returns
// before that, a new host answers at once, and the chat buffer is served by the new host.
TEST(HostRestart, ReturnsAtOnceWhileTheOldHostWindsDown) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobStarted");
  nvim.forward_user_event("ToolhostJobFinished");
  forward_stream_text(nvim, "started");
  int64_t buf = nvim.open_fixture("trap_block.chat.md", "restart.chat.md");
  nvim.lua("vim.api.nvim_win_set_cursor(0, {6, 0})");
  nvim.command("ToolRun");
  std::string id = nvim.wait_for("ToolhostJobStarted")["id"];
  nvim.wait_for("stream");  // the trap is set: SIGTERM alone no longer ends the job
  int pgid = nvim.lua("return require('toolhost').job(...).pgid", {id}).get<int>();
  ASSERT_GT(pgid, 0);

  json after = nvim.lua(R"(
    local buf = ...
    local host = require("toolhost.host")
    local old_chan = host.channel()
    local old_pid = vim.fn.jobpid(old_chan)
    require("toolhost").restart()
    local old_alive = vim.loop.kill(old_pid, 0) == 0
    local new_chan = host.channel()
    local pong = new_chan and vim.rpcrequest(new_chan, "toolhost.ping") or {}
    return { old_pid = old_pid, old_alive = old_alive, old_chan = old_chan,
             new_chan = new_chan or vim.NIL, new_pid = pong.pid or vim.NIL,
             attached = host.is_attached(buf) }
  )",
                        json::array({buf}));
  int old_pid = after["old_pid"].get<int>();
  EXPECT_TRUE(after["old_alive"].get<bool>()) << "restart() waited for the old host to exit";
  ASSERT_TRUE(after["new_chan"].is_number()) << after.dump();
  EXPECT_NE(after["new_chan"], after["old_chan"]);
  EXPECT_NE(after["new_pid"], after["old_pid"]);
  EXPECT_TRUE(after["attached"].get<bool>());

  // The restart ended the running call, once, for the user.
  json interrupted = nvim.wait_for("ToolhostJobFinished");
  EXPECT_EQ(interrupted["id"], id);
  EXPECT_EQ(interrupted["status"], "interrupted");

  // The new host has the buffer again: the second block runs there (below the result the
  // interruption wrote).
  nvim.lua(R"(
    for row, line in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
      if line == "echo after restart" then vim.api.nvim_win_set_cursor(0, { row, 0 }) end
    end
  )");
  nvim.command("ToolRun");
  json finished = nvim.wait_for("ToolhostJobFinished");
  EXPECT_EQ(finished["status"], "succeeded") << finished.dump();
  EXPECT_EQ(finished["buf"], buf);

  // The old host ends its job and exits on its own, leaving nothing behind.
  EXPECT_TRUE(wait_for_exit(old_pid, 5000)) << "old host " << old_pid << " did not exit";
  EXPECT_TRUE(wait_for_exit(pgid, 5000)) << "job " << pgid << " outlived the old host";
  EXPECT_EQ(nvim.lua("return require('toolhost.host').channel()"), after["new_chan"]);
}

}  // namespace
}  // namespace toolhost::e2e
