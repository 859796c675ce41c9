// :checkhealth toolhost and the launcher's error paths, on a real Neovim.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "e2e/nvim_harness.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

std::string joined(const json& lines) {
  std::string text;
  for (const auto& line : lines) text += line.get<std::string>() + "\n";
  return text;
}

std::string checkhealth(NvimHarness& nvim) { return nvim.checkhealth("toolhost"); }

// Points the plugin at `binary` (setup() again, as a user would).
void use_binary(NvimHarness& nvim, const std::string& binary) {
  EXPECT_EQ(nvim.lua("return require('toolhost').setup({ binary = ... })", json::array({binary})),
            true);
}

TEST(Health, ReportsBinaryHostAndFeatures) {
  NvimHarness nvim;
  std::string report = checkhealth(nvim);
  EXPECT_NE(report.find("OK: binary: " + toolhost_binary() + " (toolhost "), std::string::npos) << report;
  EXPECT_NE(report.find("OK: host answers (pid "), std::string::npos) << report;
  EXPECT_NE(report.find("API level"), std::string::npos) << report;
  EXPECT_NE(report.find("state dir writable"), std::string::npos) << report;
  EXPECT_EQ(report.find("ERROR"), std::string::npos) << report;
  EXPECT_EQ(report.find("older than the plugin's sources"), std::string::npos) << report;
  EXPECT_EQ(report.find("binary is version"), std::string::npos) << report;
}

// The report turns `:help tag` into a link up to the next blank, so a tag followed by `)`
// printed `(:help |toolhost-mcp)|` with stray bars (issue #37): the tag ends the line.
TEST(Health, NoMcpServerLinksItsHelpTag) {
  NvimHarness nvim;
  json lines = nvim.lua(R"(
    vim.cmd("checkhealth toolhost")
    return vim.api.nvim_buf_get_lines(0, 0, -1, false)
  )");
  std::string line;
  for (const auto& each : lines) {
    if (each.get<std::string>().find("no MCP servers") != std::string::npos) line = each;
  }
  const std::string text = "no MCP servers configured; how to add one: :help |toolhost-mcp|";
  const int level = nvim.lua("return vim.fn.api_info().version.api_level").get<int>();
  // 0.7's health.vim writes `  - INFO: `; the Lua framework of 0.9 on writes `- `.
  EXPECT_EQ(line, (level < 11 ? "  - INFO: " : "- ") + text) << joined(lines);
}

TEST(Health, BinaryOlderThanTheSourcesAsksForMake) {
  NvimHarness nvim;
  // A copy of the binary last changed at the epoch: older than every file under src/.
  std::string old_binary = nvim.temp_dir() + "/toolhost";
  std::filesystem::copy_file(toolhost_binary(), old_binary);
  const timespec epoch[2] = {{0, 0}, {0, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, old_binary.c_str(), epoch, 0), 0);
  use_binary(nvim, old_binary);

  std::string report = checkhealth(nvim);
  EXPECT_NE(report.find("WARNING: binary is older than the plugin's sources ("), std::string::npos)
      << report;
  EXPECT_NE(report.find("run `make` in " TOOLHOST_SOURCE_DIR "\n"), std::string::npos) << report;
  EXPECT_NE(report.find("the `binary` option points at " + old_binary), std::string::npos)
      << report;
  EXPECT_NE(report.find("OK: host answers"), std::string::npos) << report;
}

// SPEC 11: `vim.uv or vim.loop` (vim.loop is deprecated since 0.10). With a vim.uv, as on
// 0.10+, the check must not touch vim.loop (it did, to find the newest source file).
TEST(Health, UsesVimUvWhereThereIsOne) {
  NvimHarness nvim;
  json used = nvim.lua(R"(
    local loop, uv = vim.loop, vim.uv
    local loop_used, uv_used = {}, {}
    local function recording(used)
      return setmetatable({}, { __index = function(_, key)
        local source = debug.getinfo(2, "S").source
        if source:find("/lua/toolhost/", 1, true) then
          used[key] = true
        end
        return loop[key]
      end })
    end
    vim.uv, vim.loop = recording(uv_used), recording(loop_used)
    package.loaded["toolhost.health"] = nil
    local ok, err = pcall(vim.cmd, "checkhealth toolhost")
    vim.uv, vim.loop = uv, loop
    package.loaded["toolhost.health"] = nil
    return { ok = ok, err = tostring(err), loop = vim.tbl_keys(loop_used), uv = vim.tbl_keys(uv_used) }
  )");
  EXPECT_EQ(used["ok"], true) << used["err"];
  EXPECT_EQ(used["loop"], json::array()) << used.dump();
  EXPECT_NE(std::find(used["uv"].begin(), used["uv"].end(), "fs_stat"), used["uv"].end())
      << used.dump();
}

TEST(Health, BinaryOfAnotherVersionAsksForMake) {
  NvimHarness nvim;
  // The real host behind a --version that an older build would print.
  std::string other = nvim.temp_dir() + "/toolhost-0.0.1";
  std::ofstream(other) << "#!/bin/sh\n"
                          "[ \"$1\" = --version ] && { echo 'toolhost 0.0.1'; exit 0; }\n"
                          "exec '" << toolhost_binary() << "' \"$@\"\n";
  ASSERT_EQ(::chmod(other.c_str(), 0755), 0);
  use_binary(nvim, other);

  std::string lua_version = nvim.lua("return require('toolhost.version')").get<std::string>();
  std::string report = checkhealth(nvim);
  EXPECT_NE(report.find("WARNING: binary is version 0.0.1, the plugin's Lua side " + lua_version),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("run `make` in " TOOLHOST_SOURCE_DIR "\n"), std::string::npos) << report;
  EXPECT_EQ(report.find("older than the plugin's sources"), std::string::npos) << report;
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
  json bad =
      nvim.lua("return { select(2, require('toolhost.config').validate({ timeout_ms = 'x' })) }");
  EXPECT_NE(bad[0].get<std::string>().find("timeout_ms"), std::string::npos) << bad;
  json unknown =
      nvim.lua("return { select(2, require('toolhost.config').validate({ no_such = 1 })) }");
  EXPECT_EQ(unknown[0], "unknown option `no_such`");
}

TEST(Health, NothingStartsUntilNeeded) {
  NvimHarness nvim;
  // With serve.at_startup off (the harness's default; agents_startup_test.cc tests it on),
  // setup() and the plugin file start no process: the host starts with the first chat buffer.
  EXPECT_EQ(nvim.lua("return require('toolhost.host').running()"), false);
  nvim.open_fixture("bash_block.chat.md", "lazy.chat.md");
  EXPECT_EQ(nvim.lua("return require('toolhost.host').running()"), true);
}

}  // namespace
}  // namespace toolhost::e2e
