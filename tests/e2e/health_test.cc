// :checkhealth toolhost and the launcher's error paths, on a real Neovim.
#include <gtest/gtest.h>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

std::string joined(const json& lines) {
  std::string text;
  for (const auto& line : lines) text += line.get<std::string>() + "\n";
  return text;
}

TEST(Health, ReportsBinaryHostAndFeatures) {
  NvimHarness nvim;
  nvim.command("checkhealth toolhost");
  std::string report = joined(nvim.lua("return vim.api.nvim_buf_get_lines(0, 0, -1, false)"));
  EXPECT_NE(report.find("OK: binary: " TOOLHOST_BINARY " (toolhost "), std::string::npos) << report;
  EXPECT_NE(report.find("OK: host answers (pid "), std::string::npos) << report;
  EXPECT_NE(report.find("API level"), std::string::npos) << report;
  EXPECT_NE(report.find("state dir writable"), std::string::npos) << report;
  EXPECT_EQ(report.find("ERROR"), std::string::npos) << report;
}

TEST(Health, FeaturesFollowTheApiLevel) {
  NvimHarness nvim;
  json f = nvim.lua(R"(
    local f = require("toolhost.features")
    return { f.api_level, vim.fn.api_info().version.api_level, f.has_extmark_invalidate,
             f.has_autocmd_data, f.has_stdpath_state }
  )");
  int level = f[1].get<int>();
  EXPECT_EQ(f[0], level);
  EXPECT_EQ(f[2], level >= 12) << "extmark invalidate is 0.10+";
  EXPECT_EQ(f[3], level >= 10) << "autocmd data is 0.8+";
  EXPECT_EQ(f[4], level >= 10) << "stdpath('state') is 0.8+";
  std::string report;
  nvim.command("checkhealth toolhost");
  report = joined(nvim.lua("return vim.api.nvim_buf_get_lines(0, 0, -1, false)"));
  EXPECT_NE(report.find("API level " + std::to_string(level)), std::string::npos) << report;
  EXPECT_NE(report.find(std::string("extmark invalidate (0.10+): ") + (level >= 12 ? "yes" : "no")),
            std::string::npos)
      << report;
}

TEST(Health, MissingBinaryIsAClearError) {
  NvimHarness nvim(json{{"binary", "/nonexistent/toolhost"}});
  nvim.lua(R"(
    local chan = ...
    vim.notify = function(msg, level) vim.rpcnotify(chan, "event", { msg = msg, level = level }) end
  )",
           json::array({nvim.channel()}));
  nvim.open_fixture("bash_block.chat.md", "missing.chat.md");
  json note = nvim.wait_for("event");
  EXPECT_EQ(note["msg"], "toolhost binary not found; run `make` in " TOOLHOST_SOURCE_DIR);
  EXPECT_EQ(note["level"], 4);
}

TEST(Health, SetupRejectsUnknownAndInvalidOptions) {
  NvimHarness nvim;
  EXPECT_EQ(nvim.lua("return require('toolhost.config').validate({ no_such = 1 }) == nil"), true);
  json bad = nvim.lua("return { select(2, require('toolhost.config').validate({ timeout_ms = 'x' })) }");
  EXPECT_NE(bad[0].get<std::string>().find("timeout_ms"), std::string::npos) << bad;
  json unknown = nvim.lua("return { select(2, require('toolhost.config').validate({ no_such = 1 })) }");
  EXPECT_EQ(unknown[0], "unknown option `no_such`");
}

TEST(Health, NothingStartsUntilNeeded) {
  NvimHarness nvim;
  // setup() and the plugin file start no process: the host starts with the first chat buffer.
  EXPECT_EQ(nvim.lua("return require('toolhost.host').running()"), false);
  nvim.open_fixture("bash_block.chat.md", "lazy.chat.md");
  EXPECT_EQ(nvim.lua("return require('toolhost.host').running()"), true);
}

}  // namespace
}  // namespace toolhost::e2e
