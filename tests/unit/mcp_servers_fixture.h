#pragma once
// The fixture of the MCP supervisor's tests (stdio and HTTP servers): a loop, a job engine,
// the Servers under test with short grace periods and backoff, and the waits they share.

#include <gtest/gtest.h>

#include <csignal>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "jobs/engine.h"
#include "mcp/servers.h"
#include "test_jobs.h"

namespace toolhost::mcp {

class ServersTest : public ::testing::Test {
 protected:
  using TempDir = jobs::testing::TempDir;

  void SetUp() override {
    old_sigpipe_ = std::signal(SIGPIPE, SIG_IGN);
    uv_loop_init(&loop_);
    engine_ = std::make_unique<jobs::Engine>(&loop_, jobs::EngineOptions{});
  }
  void TearDown() override {
    if (servers_) {
      bool gone = false;
      servers_->shutdown([&] { gone = true; });
      EXPECT_TRUE(run([&] { return gone; })) << "the servers never stopped";
      servers_.reset();
    }
    bool done = false;
    engine_->shutdown(200, [&] { done = true; });
    EXPECT_TRUE(run([&] { return done; }));
    engine_.reset();
    uv_run(&loop_, UV_RUN_DEFAULT);
    EXPECT_EQ(uv_loop_close(&loop_), 0) << "a libuv handle was left open";
    std::signal(SIGPIPE, old_sigpipe_);
  }

  bool run(const std::function<bool()>& done, uint64_t timeout_ms = 10000) {
    return testing::run_until(&loop_, done, timeout_ms);
  }

  Servers& make(std::vector<ServerConfig> configs, Servers::Options options = {}) {
    options.state_dir = state_.path();
    options.cache_dir = cache_.path();
    if (options.timing.stdin_grace_ms == StdioTiming{}.stdin_grace_ms) {
      options.timing.stdin_grace_ms = 100;
    }
    options.timing.term_grace_ms = 100;
    if (options.backoff_initial_ms == Servers::Options{}.backoff_initial_ms) {
      options.backoff_initial_ms = 50;
    }
    servers_ =
        std::make_unique<Servers>(&loop_, options, Servers::Events{[this] { ++tools_changed_; }});
    servers_->configure(std::move(configs));
    return *servers_;
  }

  std::optional<core::RemoteTool> tool(const std::string& name) {
    for (const core::ToolSpec& spec : servers_->tool_specs()) {
      if (spec.name == name) return spec.remote;
    }
    return std::nullopt;
  }

  // Waits for the server to list its tools, then returns `name`'s remote part.
  core::RemoteTool listed(const std::string& name) {
    EXPECT_TRUE(servers_->start(""));
    EXPECT_TRUE(run([&] { return tool(name).has_value(); })) << name << " never listed";
    return tool(name).value_or(core::RemoteTool{});
  }

  // Runs a call as a job to its end.
  jobs::JobInfo call(const core::RemoteTool& remote, nlohmann::json arguments,
                     std::string* id = nullptr) {
    auto function = servers_->call(remote, std::move(arguments));
    EXPECT_TRUE(function) << (function ? "" : function.error());
    jobs::JobSpec spec;
    spec.tool = remote.server + "__" + remote.tool;
    spec.stream = function ? *function : nullptr;
    spec.timeout_ms = 10'000;
    std::optional<jobs::JobInfo> seen;
    jobs::JobEvents events;
    events.finished = [&](const jobs::JobInfo& info) { seen = info; };
    std::string job = engine_->submit(std::move(spec), std::move(events));
    if (id) *id = job;
    EXPECT_TRUE(run([&] { return seen.has_value(); })) << "the call never ended";
    return seen.value_or(jobs::JobInfo{});
  }

  nlohmann::json status(size_t index = 0) { return servers_->status(true).at(index); }
  bool logged(const std::string& text) {
    const nlohmann::json entry = status();
    for (const auto& line : entry["log"]) {
      if (line.get<std::string>().find(text) != std::string::npos) return true;
    }
    return false;
  }

  uv_loop_t loop_;
  TempDir state_;
  TempDir cache_;
  std::unique_ptr<jobs::Engine> engine_;
  std::unique_ptr<Servers> servers_;
  int tools_changed_ = 0;
  void (*old_sigpipe_)(int) = nullptr;
};

}  // namespace toolhost::mcp
