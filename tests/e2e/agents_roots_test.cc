// Which Neovim an agent reaches (SPEC 13.5): the one whose root is the agent's directory or its
// nearest parent, among every Neovim of the user; and it is found whatever the registry
// directory is (the state-dir fallback when there is no runtime directory).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "e2e/agents_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// The pid `toolhost mcp serve` said it relays to; 0 when it said none.
int relayed_to(const AgentProcess& agent) {
  const std::string marker = "relaying to the Neovim host (pid ";
  size_t at = agent.log().find(marker);
  return at == std::string::npos ? 0 : std::stoi(agent.log().substr(at + marker.size()));
}

TEST(AgentsRoots, AgentInASubdirectoryGoesToTheDeeperRoot) {
  NvimHarness outer;
  const std::string project = cwd_of(outer);
  const int outer_pid = start_host(outer);
  fs::create_directories(fs::path(project) / "sub" / "deeper");
  NvimHarness inner(json::object(), &outer);  // the same registry
  inner.command("cd " + project + "/sub");
  const int inner_pid = start_host(inner);

  // inner's loop runs while the agents wait; outer's is not needed (its host answers alone).
  auto deep = connect_agent(inner, "deep", project + "/sub/deeper");
  EXPECT_EQ(relayed_to(*deep), inner_pid) << deep->log();
  auto sub = connect_agent(inner, "sub", project + "/sub");
  EXPECT_EQ(relayed_to(*sub), inner_pid) << sub->log();
  json result = sub->wait_result(sub->call("run_terminal_command", {{"command", "pwd"}}));
  EXPECT_EQ(result["text"], "Exit code: 0\nStdout:\n" + project + "/sub") << result.dump();
  EXPECT_NE(agent_buffer(inner, "sub"), 0);

  auto top = connect_agent(inner, "top", project);
  EXPECT_EQ(relayed_to(*top), outer_pid) << top->log();
  top->wait_result(top->call("run_terminal_command", {{"command", "ls"}}));
  EXPECT_EQ(agent_buffer(inner, "top"), 0);
  EXPECT_NE(agent_buffer(outer, "top"), 0);
}

// Regression: with no runtime directory, the host fell back to `{its state dir}/sockets`, its
// state dir being Neovim 0.7's stdpath("data"), while `toolhost mcp serve` looked in
// $XDG_STATE_HOME/nvim/toolhost/sockets: the agent never found the Neovim.
TEST(AgentsRoots, AgentFindsTheNeovimWithoutARuntimeDirectory) {
  const std::string user_runtime = "/run/user/" + std::to_string(::geteuid());
  if (fs::is_directory(user_runtime)) {
    GTEST_SKIP() << user_runtime << " exists: the state-dir fallback is not used";
  }
  NvimHarness nvim(json::object(), nullptr, /*runtime_dir=*/false);
  const int pid = start_host(nvim);
  auto agent = connect_agent(nvim, "claude-code");
  EXPECT_EQ(relayed_to(*agent), pid) << agent->log();
}

}  // namespace
}  // namespace toolhost::e2e
