// MCP servers as child processes: small sh scripts play the server (the client's request ids
// are 1 for initialize, then 2, 3, ...). Every wait is on the loop: a process's exit, a line.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <csignal>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jobs/reaping.h"
#include "mcp/client.h"
#include "mcp/stdio_server.h"
#include "test_loop.h"

namespace toolhost::mcp {
namespace {

using testing::TestLoop;

// Answers initialize (id 1) and reads notifications/initialized, then runs `rest`.
std::string after_handshake(const std::string& rest) {
  return "read -r line; printf '%s\\n' "
         "'{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\","
         "\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"sh\",\"version\":\"1\"}}}'; "
         "read -r line; " +
         rest;
}

class McpStdioServer : public ::testing::Test {
 protected:
  void SetUp() override {
    old_sigpipe_ = std::signal(SIGPIPE, SIG_IGN);  // a server gone is an EPIPE, as in toolhost
  }
  void TearDown() override {
    client_.reset();
    if (server_) {
      bool gone = false;
      server_->stop([&] { gone = true; });
      EXPECT_TRUE(loop_.run_until([&] { return gone; }));
      server_.reset();
    }
    loop_.drain();
    std::signal(SIGPIPE, old_sigpipe_);
  }

  // Starts `sh -c script` and a Client on its pipes; false when it could not start.
  bool start(const std::string& script, StdioSpec spec = {}) {
    spec.command = "sh";
    spec.args = {"-c", script};
    StdioServer::Events events;
    events.stderr_line = [this](const std::string& line) { stderr_.push_back(line); };
    events.exited = [this](const std::string& how) { exited_ = how; };
    StdioServer::Timing timing;
    timing.stdin_grace_ms = 50;
    timing.term_grace_ms = 50;
    server_ = std::make_unique<StdioServer>(loop_.get(), spec, events, timing);
    auto transport = server_->start(start_error_);
    if (!transport) return false;
    Client::Options options;
    options.startup_timeout_ms = startup_timeout_ms_;
    client_ =
        std::make_unique<Client>(loop_.get(), std::move(transport), options, Client::Events{});
    std::string error;
    EXPECT_TRUE(client_->start(error)) << error;
    return true;
  }
  std::optional<std::string> connect() {
    std::optional<std::optional<std::string>> result;
    client_->connect([&](std::optional<std::string> error) { result = error; });
    EXPECT_TRUE(loop_.run_until([&] { return result.has_value(); }));
    return result.value_or("no answer");
  }
  void wait_for_stderr(const std::string& line) {
    EXPECT_TRUE(loop_.run_until([&] {
      return std::find(stderr_.begin(), stderr_.end(), line) != stderr_.end();
    })) << line;
  }

  void (*old_sigpipe_)(int) = SIG_DFL;
  TestLoop loop_;
  std::optional<CallOutcome> outcome_;  // outlives the Client, which may end a call last
  uint64_t startup_timeout_ms_ = 5000;
  std::unique_ptr<StdioServer> server_;
  std::unique_ptr<Client> client_;
  std::string start_error_;
  std::vector<std::string> stderr_;
  std::optional<std::string> exited_;
};

TEST_F(McpStdioServer, AClientTalksToTheProcessOverItsStdio) {
  ASSERT_TRUE(start(after_handshake("cat >/dev/null"))) << start_error_;
  EXPECT_TRUE(server_->running());
  EXPECT_GT(server_->pid(), 0);
  EXPECT_EQ(connect(), std::nullopt);
  EXPECT_EQ(client_->server().name, "sh");
}

TEST_F(McpStdioServer, AServerThatNeverAnswersInitializeFailsAtTheStartupTimeout) {
  startup_timeout_ms_ = 100;
  ASSERT_TRUE(start("cat >/dev/null"));
  EXPECT_EQ(connect(), "the server did not answer initialize within 100 ms");
  bool gone = false;
  server_->stop([&] { gone = true; });
  ASSERT_TRUE(loop_.run_until([&] { return gone; }));
  EXPECT_EQ(server_->how_it_ended(), "exited with status 0");  // closing stdin was enough
}

TEST_F(McpStdioServer, ACrashFailsTheRunningCallWithTheStatusAndTheLastStderrLines) {
  ASSERT_TRUE(start(after_handshake("read -r call; echo 'fatal: out of cheese' >&2; exit 3")));
  ASSERT_EQ(connect(), std::nullopt);
  std::optional<CallOutcome>& outcome = outcome_;
  client_->call_tool("x", Json::object(), {{}, {}, [&](CallOutcome o) { outcome = o; }});
  ASSERT_TRUE(loop_.run_until([&] { return outcome.has_value(); }));
  EXPECT_EQ(outcome->status, CallOutcome::Status::kFailed);
  EXPECT_EQ(outcome->text,
            "connection closed: the server exited with status 3; its last stderr lines:\n"
            "fatal: out of cheese");
  EXPECT_EQ(exited_, "exited with status 3");
  EXPECT_FALSE(server_->running());
}

TEST_F(McpStdioServer, WithoutPidfdsTheSigchldFallbackSeesTheCrashToo) {
  jobs::Reaping before = jobs::reaping();
  jobs::set_reaping_for_testing(jobs::Reaping::Sigchld);
  ASSERT_TRUE(start(after_handshake("read -r call; echo 'gone' >&2; exit 4")));
  jobs::set_reaping_for_testing(before);
  ASSERT_EQ(connect(), std::nullopt);
  std::optional<CallOutcome>& outcome = outcome_;
  client_->call_tool("x", Json::object(), {{}, {}, [&](CallOutcome o) { outcome = o; }});
  ASSERT_TRUE(loop_.run_until([&] { return outcome.has_value(); }));
  EXPECT_EQ(outcome->text,
            "connection closed: the server exited with status 4; its last stderr lines:\ngone");
}

TEST_F(McpStdioServer, DestroyingTheServerKillsItsRunningProcess) {
  ASSERT_TRUE(start("echo ready >&2; exec sleep 1000"));
  wait_for_stderr("ready");
  pid_t pid = server_->pid();
  client_.reset();
  server_.reset();
  // Killed, then reaped by the handles it left behind: the pid is gone, not a zombie.
  EXPECT_TRUE(loop_.run_until([&] { return ::kill(pid, 0) != 0; }));
}

TEST_F(McpStdioServer, EveryStderrLineIsLoggedAndTheLastOnesKept) {
  ASSERT_TRUE(start("i=1; while [ $i -le 25 ]; do echo \"line $i\" >&2; i=$((i+1)); done"));
  ASSERT_TRUE(loop_.run_until([&] { return exited_.has_value(); }));
  ASSERT_EQ(stderr_.size(), 25u);
  auto tail = server_->stderr_tail();
  ASSERT_EQ(tail.size(), StdioServer::kTailLines);
  EXPECT_EQ(tail.front(), "line 6");
  EXPECT_EQ(tail.back(), "line 25");
}

TEST_F(McpStdioServer, TheServerGetsItsEnvironmentAdditionsAndDirectory) {
  StdioSpec spec;
  spec.env = {{"TOOLHOST_MCP_TEST", "from the spec"}};
  spec.cwd = "/";
  ASSERT_TRUE(start("echo \"$TOOLHOST_MCP_TEST in $(pwd)\" >&2", spec));
  wait_for_stderr("from the spec in /");
}

TEST_F(McpStdioServer, ACommandThatCannotStartSaysWhy) {
  server_ =
      std::make_unique<StdioServer>(loop_.get(), StdioSpec{"/nonexistent/server", {}, {}, ""});
  std::string error;
  EXPECT_EQ(server_->start(error), nullptr);
  EXPECT_EQ(error, "cannot start `/nonexistent/server`: No such file or directory");
  EXPECT_FALSE(server_->running());
}

TEST_F(McpStdioServer, StopSendsTermToAServerThatIgnoresItsClosedStdin) {
  ASSERT_TRUE(start("echo ready >&2; exec sleep 1000"));
  wait_for_stderr("ready");
  bool gone = false;
  server_->stop([&] { gone = true; });
  ASSERT_TRUE(loop_.run_until([&] { return gone; }));
  EXPECT_EQ(server_->how_it_ended(), "was killed by signal 15 (Terminated)");
}

TEST_F(McpStdioServer, StopKillsAServerThatIgnoresTerm) {
  ASSERT_TRUE(start("trap '' TERM; echo ready >&2; while :; do read -r x || sleep 1; done"));
  wait_for_stderr("ready");
  bool gone = false;
  server_->stop([&] { gone = true; });
  ASSERT_TRUE(loop_.run_until([&] { return gone; }));
  EXPECT_EQ(server_->how_it_ended(), "was killed by signal 9 (Killed)");
}

TEST_F(McpStdioServer, StopEndsTheConnectionsCallsAtOnce) {
  ASSERT_TRUE(start(after_handshake("cat >/dev/null")));
  ASSERT_EQ(connect(), std::nullopt);
  std::optional<CallOutcome>& outcome = outcome_;
  client_->call_tool("x", Json::object(), {{}, {}, [&](CallOutcome o) { outcome = o; }});
  server_->stop(nullptr);
  ASSERT_TRUE(outcome.has_value());
  EXPECT_EQ(outcome->text, "connection closed: the server is stopping");
}

}  // namespace
}  // namespace toolhost::mcp
