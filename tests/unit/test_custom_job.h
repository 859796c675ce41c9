#pragma once
// Helpers for the custom tool tests: a tool as setup() declares it, and an engine fixture whose
// project root is a temporary directory, running the job that job_for() makes of a call.

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/config.h"
#include "test_jobs.h"
#include "tools/runner.h"

namespace toolhost::tools::testing {

namespace fs = std::filesystem;
using jobs::JobInfo;
using nlohmann::json;

// A tool as setup() declares it, read by the config (so placeholders are declared params).
inline core::CustomTool tool(json spec) {
  auto config = core::config_from_json(json{{"tools", {{"t", std::move(spec)}}}});
  EXPECT_TRUE(config) << config.error();
  return config ? config->tools.at(0) : core::CustomTool{};
}

class CustomJobTest : public jobs::testing::EngineTest {
 protected:
  CustomJobTest() { fs::create_directories(fs::path(root_.path()) / "sub"); }

  // The job of a call of custom tool `t` (declared by `spec`) with `params`, through job_for.
  core::Result<jobs::JobSpec> job(json spec, json params) {
    auto config =
        core::config_from_json(json{{"shell", "sh"}, {"tools", {{"t", std::move(spec)}}}});
    EXPECT_TRUE(config) << config.error();
    config_ = config ? *config : core::Config{};
    core::ToolCall call;
    call.id = "0123456789ab";
    call.tool = "t";
    call.params = std::move(params);
    return job_for(call, RunContext{config_, root_.path()});
  }

  JobInfo run_tool(json spec, json params) {
    auto spec_or = job(std::move(spec), std::move(params));
    EXPECT_TRUE(spec_or) << spec_or.error();
    if (!spec_or) return JobInfo{};
    return run(std::move(*spec_or));
  }

  bool exists(const std::string& name) const { return fs::exists(fs::path(root_.path()) / name); }

  core::Config config_;
  jobs::testing::TempDir root_;
};

}  // namespace toolhost::tools::testing
