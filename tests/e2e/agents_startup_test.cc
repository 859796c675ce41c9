// A Neovim is found by agents from its start (serve.at_startup), and an agent started before
// any Neovim reaches the one that comes later, and the next one after that Neovim quit
// (SPEC 13.5): the setup of an agent in a terminal beside a Neovim on ordinary files.
#include <signal.h>
#include <uv.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include <gtest/gtest.h>

#include "e2e/agents_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const json kAtStartup = {{"serve", {{"at_startup", true}}}};

// Waits (in Neovim, without starting anything) until its host runs; false after 10 s.
bool host_comes_up(NvimHarness& nvim) {
  return nvim.lua("return vim.wait(10000, function() return require('toolhost.host').running() end, 5)")
      .get<bool>();
}

// Waits until the registry of `nvim`'s environment holds a host entry.
bool registry_has_a_host(NvimHarness& nvim) {
  return nvim
      .lua(R"(local pattern = ...
        return vim.wait(10000, function() return #vim.fn.glob(pattern, false, true) > 0 end, 10))",
           json::array({registry_dir(nvim) + "/*.json"}))
      .get<bool>();
}

std::string make_project(const NvimHarness& nvim) {
  fs::path project = fs::path(nvim.temp_dir()) / "project";
  fs::create_directories(project);
  std::ofstream(project / "notes.txt") << "buy milk\n";
  std::ofstream(project / "x") << "keep me\n";
  return project.string();
}

TEST(AgentsStartup, AnAgentFindsANeovimOnOrdinaryFilesWithoutAChatBufferOrACommand) {
  NvimHarness nvim(kAtStartup);
  nvim.lua("vim.fn.writefile({ 'buy milk' }, 'notes.txt')");
  nvim.command("edit notes.txt");
  ASSERT_TRUE(host_comes_up(nvim));
  EXPECT_EQ(nvim.lua("return require('toolhost.host').is_attached(vim.api.nvim_get_current_buf())"),
            false);  // the file stays an ordinary file
  start_host(nvim);  // the host has handled serve_agents: it is in the registry

  auto agent = connect_agent(nvim, "claude-code");
  json result = agent->wait_result(agent->call("read_file", {{"path", "notes.txt"}}));
  EXPECT_EQ(result["isError"], false) << result.dump();
  EXPECT_NE(agent->log().find("relaying to the Neovim host"), std::string::npos) << agent->log();
}

TEST(AgentsStartup, NoHostStartsWhenServingIsOffOrNotAtStartup) {
  for (const json& serve : {json{{"enabled", false}, {"at_startup", true}},
                            json{{"enabled", true}, {"at_startup", false}}}) {
    NvimHarness nvim(json{{"serve", serve}});
    // Well past the start's delay (50 ms).
    EXPECT_EQ(nvim.lua("vim.wait(300) return require('toolhost.host').running()"), false)
        << serve.dump();
  }
}

// A Neovim as a user starts it: `nvim notes.txt` in the project, the plugin loaded from an
// init.lua before VimEnter (the harness loads it after), no UI but its own; killed at the end.
class PlainNvim {
 public:
  PlainNvim(NvimHarness& env, const std::string& project) : env_(env) {
    const std::string init = project + "/init.lua";
    std::ofstream(init) << "vim.opt.rtp:prepend('" TOOLHOST_SOURCE_DIR "')\n"
                        << "require('toolhost').setup({ binary = '" << toolhost_binary()
                        << "', log_level = 'debug' })\n";
    std::vector<std::string> args = {"nvim", "--headless", "-u", init, "-i", "NONE", "notes.txt"};
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_strings = env.environment();
    std::vector<char*> envp;
    for (auto& variable : env_strings) envp.push_back(variable.data());
    envp.push_back(nullptr);
    uv_stdio_container_t stdio[3];
    stdio[0].flags = UV_IGNORE;
    stdio[1].flags = UV_IGNORE;
    stdio[2].flags = UV_IGNORE;  // "Caught deadly signal 'SIGTERM'" as it is killed
    uv_process_options_t options{};
    options.file = argv[0];
    options.args = argv.data();
    options.env = envp.data();
    options.cwd = project.c_str();
    options.stdio_count = 3;
    options.stdio = stdio;
    options.exit_cb = [](uv_process_t* process, int64_t, int) {
      *static_cast<bool*>(process->data) = true;
    };
    process_.data = &exited_;
    if (int rc = uv_spawn(env.loop(), &process_, &options))
      throw std::runtime_error(std::string("cannot start nvim: ") + uv_strerror(rc));
  }
  ~PlainNvim() {
    if (!exited_) uv_process_kill(&process_, SIGTERM);
    env_.run_until([this] { return exited_; }, std::chrono::seconds(10), "nvim to exit");
    uv_close(reinterpret_cast<uv_handle_t*>(&process_), nullptr);
  }

 private:
  NvimHarness& env_;
  uv_process_t process_{};
  bool exited_ = false;
};

TEST(AgentsStartup, ANeovimStartedInTheProjectIsFoundFromItsStart) {
  NvimHarness env(json{{"serve", {{"enabled", false}}}});  // the test's loop and environment
  const std::string project = make_project(env);
  PlainNvim editor(env, project);
  ASSERT_TRUE(registry_has_a_host(env));

  AgentProcess agent(env, project);
  agent.initialize("claude-code");
  json result = agent.wait_result(agent.call("read_file", {{"path", "notes.txt"}}));
  EXPECT_EQ(result["isError"], false) << result.dump();
  EXPECT_NE(agent.log().find("relaying to the Neovim host"), std::string::npos) << agent.log();
}

TEST(AgentsStartup, AnAgentStartedBeforeNeovimReachesItAndTheNextOneAfterItQuit) {
  NvimHarness env(json{{"serve", {{"enabled", false}}}});  // the agent's loop and environment
  const std::string project = make_project(env);
  AgentProcess agent(env, project);
  agent.initialize("claude-code");
  json before = agent.wait_result(agent.call("run_terminal_command", {{"command", "rm x"}}));
  EXPECT_EQ(before["isError"], true);  // nobody to approve it yet
  EXPECT_NE(before["text"].get<std::string>().find("approval needs Neovim"), std::string::npos);

  for (int round = 0; round < 2; ++round) {
    NvimHarness editor(kAtStartup, &env);  // the same registry
    editor.forward_notify();
    editor.command("cd " + project);
    ASSERT_TRUE(host_comes_up(editor));
    start_host(editor);
    const std::string command = round == 0 ? "rm x" : "rm notes.txt";
    int64_t id = agent.call("run_terminal_command", {{"command", command}});
    wait_notify_with(editor, command);
    wait_awaiting(editor);
    editor.command("ToolRun");
    json result = agent.wait_result(id);
    EXPECT_EQ(result["isError"], false) << result.dump();
    EXPECT_EQ(agent_buffer(editor, "claude-code") != 0, true);
  }
  EXPECT_FALSE(fs::exists(fs::path(project) / "x"));
  EXPECT_FALSE(fs::exists(fs::path(project) / "notes.txt"));

  // With that Neovim gone too, the calls run here again.
  std::ofstream(fs::path(project) / "notes.txt") << "buy bread\n";
  json read = agent.wait_result(agent.call("read_file", {{"path", "notes.txt"}}));
  EXPECT_EQ(read["isError"], false) << read.dump();
  EXPECT_NE(agent.log().find("the Neovim host went away"), std::string::npos) << agent.log();
}

// The common case the other way round: the agent started after Neovim and relays to it, then
// that Neovim's host dies with a call awaiting approval and the Neovim quits. The session goes
// on: the call is answered as failed (it may have run), reads run here, and the next Neovim
// gets the next approval.
TEST(AgentsStartup, AnAgentRelayedToANeovimGoesOnAfterItQuitsAndReachesTheNextOne) {
  NvimHarness env(json{{"serve", {{"enabled", false}}}});  // the agent's loop and environment
  const std::string project = make_project(env);
  auto editor = std::make_unique<NvimHarness>(kAtStartup, &env);  // the same registry
  editor->command("cd " + project);
  ASSERT_TRUE(host_comes_up(*editor));
  const int host = start_host(*editor);
  AgentProcess agent(env, project);
  agent.initialize("claude-code");
  ASSERT_NE(agent.log().find("relaying to the Neovim host"), std::string::npos) << agent.log();

  editor->forward_notify();
  const int64_t pending = agent.call("run_terminal_command", {{"command", "rm x"}});
  wait_notify_with(*editor, "rm x");
  wait_awaiting(*editor);
  ASSERT_EQ(::kill(host, SIGKILL), 0);
  json owed = agent.wait_result(pending);
  EXPECT_EQ(owed["isError"], true);
  EXPECT_NE(owed["text"].get<std::string>().find("may have run in part"), std::string::npos)
      << owed.dump();
  EXPECT_TRUE(fs::exists(fs::path(project) / "x"));
  editor.reset();

  json read = agent.wait_result(agent.call("read_file", {{"path", "notes.txt"}}));
  EXPECT_EQ(read["isError"], false) << read.dump();
  EXPECT_NE(agent.log().find("the Neovim host went away"), std::string::npos) << agent.log();

  NvimHarness next(kAtStartup, &env);
  next.forward_notify();
  next.command("cd " + project);
  ASSERT_TRUE(host_comes_up(next));
  start_host(next);
  const int64_t id = agent.call("run_terminal_command", {{"command", "rm x"}});
  wait_notify_with(next, "rm x");
  wait_awaiting(next);
  next.command("ToolRun");
  json result = agent.wait_result(id);
  EXPECT_EQ(result["isError"], false) << result.dump();
  EXPECT_FALSE(fs::exists(fs::path(project) / "x"));
}

}  // namespace
}  // namespace toolhost::e2e
