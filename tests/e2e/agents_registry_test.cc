// How agents find a Neovim (SPEC 13.5): once its host runs, it listens on a socket in a private
// registry directory and names its project root in `{pid}.json` beside it; it names the new
// root when Neovim's directory changes, and leaves the registry when Neovim quits.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <memory>

#include "e2e/agents_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

json read_entry(const std::string& path) {
  return json::parse(slurp(path));
}

TEST(AgentsRegistry, HostPublishesItsRootAndSocketInAPrivateDirectory) {
  NvimHarness nvim;
  const int pid = start_host(nvim);
  const std::string dir = registry_dir(nvim);
  EXPECT_EQ(mode_of(dir), 0700);

  const std::string file = entry_path(dir, pid);
  EXPECT_EQ(mode_of(file), 0600);
  json entry = read_entry(file);
  const std::string socket = dir + "/" + std::to_string(pid) + ".sock";
  EXPECT_EQ(entry["root"], cwd_of(nvim));
  EXPECT_EQ(entry["socket"], socket);
  EXPECT_EQ(entry["pid"], pid);
  EXPECT_TRUE(entry["version"].is_string() && !entry["version"].get<std::string>().empty())
      << entry.dump();

  bool is_socket = false;
  EXPECT_EQ(mode_of(socket, &is_socket), 0600);
  EXPECT_TRUE(is_socket);
}

TEST(AgentsRegistry, AgentInTheProjectRelaysToThisNeovim) {
  NvimHarness nvim;
  const int pid = start_host(nvim);
  AgentProcess agent(nvim);
  json result = agent.initialize("probe");
  EXPECT_EQ(result["serverInfo"]["name"], "toolhost");
  // The host's own MCP server answers: its instructions speak of Neovim.
  EXPECT_NE(result.value("instructions", "").find("Neovim"), std::string::npos) << result.dump();
  EXPECT_NE(agent.log().find("relaying to the Neovim host (pid " + std::to_string(pid) + ")"),
            std::string::npos)
      << agent.log();
}

TEST(AgentsRegistry, DirChangedPublishesTheNewRoot) {
  NvimHarness nvim;
  const int pid = start_host(nvim);
  const std::string before = cwd_of(nvim);
  fs::create_directory(fs::path(nvim.temp_dir()) / "elsewhere");
  nvim.command("cd elsewhere");
  barrier(nvim);  // the host has handled what DirChanged sent it

  json entry = read_entry(entry_path(registry_dir(nvim), pid));
  EXPECT_EQ(entry["root"], before + "/elsewhere");
  EXPECT_EQ(entry["pid"], pid);
  // Still the one socket: the host listens once and only renames its root.
  EXPECT_EQ(entry["socket"], registry_dir(nvim) + "/" + std::to_string(pid) + ".sock");
}

TEST(AgentsRegistry, QuitLeavesTheRegistry) {
  NvimHarness keeper;  // holds the XDG dirs, so they outlive the Neovim that quits
  auto quitting = std::make_unique<NvimHarness>(json::object(), &keeper);
  const int pid = start_host(*quitting);
  const std::string dir = registry_dir(*quitting);
  const std::string file = entry_path(dir, pid);
  const std::string socket = dir + "/" + std::to_string(pid) + ".sock";
  ASSERT_EQ(mode_of(file), 0600);
  ASSERT_EQ(mode_of(socket), 0600);

  quitting.reset();  // :qa!, and Neovim has exited (it waits for its jobs to end)
  EXPECT_EQ(mode_of(file), -1) << file;
  EXPECT_EQ(mode_of(socket), -1) << socket;
}

// A host killed without leaving the registry: its agent's `toolhost mcp serve` goes on without
// it; an agent that finds only the dead entry removes it (and its socket) and serves headless;
// the next host (Lua starts one when it needs it) publishes itself and the next agent reaches it.
TEST(AgentsRegistry, AgentsOfAKilledHostGoOnAndTheNextHostIsFound) {
  NvimHarness nvim;
  nvim.forward_notify();
  const int dead = start_host(nvim);
  auto orphan = connect_agent(nvim, "claude-code");
  ASSERT_EQ(::kill(dead, SIGKILL), 0);
  wait_notify_with(nvim, "toolhost exited");  // Lua saw it die: the next call starts a new one
  orphan->round_trip();  // answered by the agent's server itself now
  EXPECT_FALSE(orphan->exited());

  const std::string dir = registry_dir(nvim);
  ASSERT_EQ(mode_of(entry_path(dir, dead)), 0600);  // left behind
  {
    AgentProcess lost(nvim);  // finds only the dead host: removes it and serves headless
    lost.initialize("claude-code");
    EXPECT_NE(lost.log().find("no Neovim serves"), std::string::npos) << lost.log();
  }
  EXPECT_EQ(mode_of(entry_path(dir, dead)), -1);
  EXPECT_EQ(mode_of(dir + "/" + std::to_string(dead) + ".sock"), -1);

  const int alive = start_host(nvim);
  ASSERT_NE(alive, dead);
  auto agent = connect_agent(nvim, "claude-code");
  EXPECT_NE(agent->log().find("relaying to the Neovim host (pid " + std::to_string(alive) + ")"),
            std::string::npos)
      << agent->log();
}

TEST(AgentsRegistry, ServeDisabledPublishesNothing) {
  NvimHarness nvim(json{{"serve", {{"enabled", false}}}});
  const int pid = start_host(nvim);
  EXPECT_EQ(mode_of(entry_path(registry_dir(nvim), pid)), -1);
}

}  // namespace
}  // namespace toolhost::e2e
