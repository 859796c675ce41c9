// The supervisor of configured MCP servers, against a fake server of our own
// (tests/fixtures/mcp/fake_server.sh): lazy start, the tool cache, calls as jobs (progress,
// result, cancel), a server that hangs, crashes or prints garbage, backoff, list_changed.
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mcp_servers_fixture.h"

namespace toolhost::mcp {
namespace {

using jobs::testing::TempDir;

const std::string kFake = std::string(TOOLHOST_FIXTURES) + "/mcp/fake_server.sh";

ServerConfig fake(const std::string& mode, const std::string& name = "fake") {
  ServerConfig config;
  config.name = name;
  config.stdio.command = "sh";
  config.stdio.args = {kFake, mode};
  config.startup_timeout_ms = 3000;
  config.timeout_ms = 10'000;
  return config;
}

class McpServers : public ServersTest {};

TEST_F(McpServers, AServerWithoutCachedToolsStartsAtOnceAndListsThemAsTableEntries) {
  make({fake("ok")});
  EXPECT_EQ(status()["state"], "starting");
  EXPECT_TRUE(servers_->tool_specs().empty());
  core::RemoteTool echo = listed("fake__echo");
  EXPECT_EQ(echo.server, "fake");
  EXPECT_EQ(echo.tool, "echo");
  EXPECT_EQ(echo.input_schema["required"], nlohmann::json::array({"message"}));
  EXPECT_FALSE(echo.auto_approve);
  EXPECT_FALSE(echo.destructive) << "echo says readOnlyHint";
  EXPECT_TRUE(tool("fake__crash")->destructive) << "no hint: it may destroy";
  EXPECT_FALSE(echo.fingerprint.empty());
  EXPECT_EQ(status()["state"], "running");
  EXPECT_GT(status()["pid"].get<int>(), 0);
  EXPECT_EQ(status()["protocol"], "2025-11-25");
  const nlohmann::json listed_echo = status()["tools"][0];
  EXPECT_EQ(listed_echo["name"], "fake__echo");
  EXPECT_EQ(listed_echo["tool"], "echo");
  EXPECT_EQ(listed_echo["inputSchema"]["required"], nlohmann::json::array({"message"}));
  EXPECT_GE(tools_changed_, 1);
}

TEST_F(McpServers, TheNextHostHasTheToolsFromTheCacheAndStartsTheServerOnlyWhenNeeded) {
  make({fake("ok")});
  listed("fake__echo");
  bool gone = false;
  servers_->shutdown([&] { gone = true; });
  ASSERT_TRUE(run([&] { return gone; }));
  make({fake("ok")});
  EXPECT_TRUE(tool("fake__echo").has_value()) << "read from the state dir at configure";
  EXPECT_EQ(status()["state"], "stopped");
  EXPECT_EQ(status()["pid"], 0);
  jobs::JobInfo job = call(*tool("fake__echo"), {{"message", "lazy"}});
  EXPECT_EQ(job.out.text(), "Echo: lazy");
  EXPECT_EQ(status()["state"], "running");
}

TEST_F(McpServers, ACallStreamsProgressAndEndsWithTheResultText) {
  make({fake("ok")});
  jobs::JobInfo job = call(listed("fake__echo"), {{"message", "hi"}});
  EXPECT_EQ(job.status, core::Status::Succeeded) << job.error;
  EXPECT_EQ(job.out.text(), "Echo: hi");
  EXPECT_EQ(job.err.text(), "progress 1/2: half way\n");
}

TEST_F(McpServers, AnImageIsSavedInTheCacheDirAndShownByItsPath) {
  make({fake("ok")});
  jobs::JobInfo job = call(listed("fake__image"), nlohmann::json::object());
  EXPECT_EQ(job.status, core::Status::Succeeded) << job.error;
  const std::string text = job.out.text();
  const std::string note = "[image image/png, 5 bytes: ";
  const size_t at = text.find(note);
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_EQ(text.rfind("Here:\n", 0), 0u) << text;
  const std::string path = text.substr(at + note.size(), text.find(']', at) - at - note.size());
  EXPECT_EQ(path.rfind(cache_.path() + "/mcp/fake__image-", 0), 0u) << path;
  std::ifstream file(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes, "hello");
}

TEST_F(McpServers, TheFirstCallStartsTheServer) {
  make({fake("ok")});
  core::RemoteTool echo;
  echo.server = "fake";
  echo.tool = "echo";
  jobs::JobInfo job = call(echo, {{"message", "first"}});
  EXPECT_EQ(job.status, core::Status::Succeeded) << job.error;
  EXPECT_EQ(job.out.text(), "Echo: first");
}

TEST_F(McpServers, ArgumentsThatDoNotFitAreRefusedNamingTheParameterAndNothingStarts) {
  make({fake("ok")});
  core::RemoteTool echo;
  echo.server = "fake";
  echo.tool = "echo";
  echo.input_schema = {{"type", "object"},
                       {"properties", {{"message", {{"type", "string"}}}}},
                       {"required", {"message"}}};
  auto refused = servers_->call(echo, {{"message", 5}});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("message"), std::string::npos) << refused.error();
  EXPECT_FALSE(servers_->call(echo, nlohmann::json::object()));
}

TEST_F(McpServers, AServerThatNeverAnswersInitializeFailsAfterItsStartupTimeout) {
  ServerConfig hang = fake("hang");
  hang.startup_timeout_ms = 200;
  make({hang});
  core::RemoteTool echo;
  echo.server = "fake";
  echo.tool = "echo";
  jobs::JobInfo job = call(echo, {{"message", "x"}});
  EXPECT_EQ(job.status, core::Status::Failed);
  EXPECT_NE(job.error.find("fake: "), std::string::npos) << job.error;
  EXPECT_EQ(status()["state"], "failed");
  EXPECT_NE(status()["error"].get<std::string>(), "");
}

TEST_F(McpServers, ACrashMidCallFailsItWithTheExitStatusAndTheLastStderrLines) {
  make({fake("ok")});
  jobs::JobInfo job = call(listed("fake__crash"), nlohmann::json::object());
  EXPECT_EQ(job.status, core::Status::Failed);
  EXPECT_NE(job.error.find("status 7"), std::string::npos) << job.error;
  EXPECT_NE(job.error.find("fake: about to crash"), std::string::npos) << job.error;
  EXPECT_EQ(status()["state"], "failed");
  // The next call starts it again (after the backoff).
  jobs::JobInfo again = call(*tool("fake__echo"), {{"message", "back"}});
  EXPECT_EQ(again.status, core::Status::Succeeded) << again.error;
  EXPECT_EQ(again.out.text(), "Echo: back");
}

TEST_F(McpServers, AServerThatKeepsFailingToStartWaitsTwiceAsLongEachTime) {
  Servers::Options options;
  options.backoff_initial_ms = 200;
  make({fake("exit")}, options);  // starts at once (no cached tools)
  core::RemoteTool echo;
  echo.server = "fake";
  echo.tool = "echo";
  // The call waits for that start, which fails: the next start waits 200 ms.
  jobs::JobInfo first = call(echo, {{"message", "x"}});
  EXPECT_EQ(first.status, core::Status::Failed);
  EXPECT_NE(first.error.find("cannot open the database"), std::string::npos) << first.error;
  const uint64_t after_one = status()["retry_in_ms"].get<uint64_t>();
  EXPECT_GT(after_one, 0u);
  EXPECT_LE(after_one, 200u);
  call(echo, {{"message", "x"}});  // starts after 200 ms and fails again: 400 ms
  const uint64_t after_two = status()["retry_in_ms"].get<uint64_t>();
  EXPECT_GT(after_two, 200u) << "doubled";
  EXPECT_LE(after_two, 400u);
}

TEST_F(McpServers, CancelEndsTheJobAtOnceAndTellsTheServer) {
  make({fake("ok")});
  auto function = servers_->call(listed("fake__slow"), nlohmann::json::object());
  ASSERT_TRUE(function);
  jobs::JobSpec spec;
  spec.stream = *function;
  std::optional<jobs::JobInfo> seen;
  jobs::JobEvents events;
  events.finished = [&](const jobs::JobInfo& info) { seen = info; };
  std::string id = engine_->submit(std::move(spec), std::move(events));
  ASSERT_TRUE(run([&] { return servers_->status(false)[0]["state"] == "running"; }));
  EXPECT_TRUE(engine_->cancel(id));
  ASSERT_TRUE(seen.has_value()) << "ended inside cancel()";
  EXPECT_EQ(seen->status, core::Status::Canceled);
  EXPECT_TRUE(run([&] { return logged("fake: cancelled"); })) << "notifications/cancelled";
}

TEST_F(McpServers, ATimeoutEndsTheJobAndTellsTheServer) {
  make({fake("ok")});
  auto function = servers_->call(listed("fake__slow"), nlohmann::json::object());
  ASSERT_TRUE(function);
  jobs::JobSpec spec;
  spec.stream = *function;
  spec.timeout_ms = 100;
  std::optional<jobs::JobInfo> seen;
  jobs::JobEvents events;
  events.finished = [&](const jobs::JobInfo& info) { seen = info; };
  engine_->submit(std::move(spec), std::move(events));
  ASSERT_TRUE(run([&] { return seen.has_value(); }));
  EXPECT_EQ(seen->status, core::Status::TimedOut);
  EXPECT_TRUE(run([&] { return logged("fake: cancelled"); })) << "notifications/cancelled";
  EXPECT_EQ(status()["state"], "running") << "the server stays";
}

TEST_F(McpServers, ListChangedRefreshesTheToolTable) {
  make({fake("ok")});
  core::RemoteTool change = listed("fake__change");
  const int before = tools_changed_;
  EXPECT_FALSE(tool("fake__extra").has_value());
  EXPECT_EQ(call(change, nlohmann::json::object()).status, core::Status::Succeeded);
  EXPECT_TRUE(run([&] { return tool("fake__extra").has_value(); }));
  EXPECT_GT(tools_changed_, before);
}

TEST_F(McpServers, GarbageOnStdoutIsSkipped) {
  make({fake("garbage")});
  jobs::JobInfo job = call(listed("fake__echo"), {{"message", "still"}});
  EXPECT_EQ(job.out.text(), "Echo: still");
}

TEST_F(McpServers, DisabledToolsAreLeftOutAndPolicyKeysApplyWithoutARestart) {
  ServerConfig config = fake("ok");
  config.disabled_tools = {"crash"};
  make({config});
  listed("fake__echo");
  EXPECT_FALSE(tool("fake__crash").has_value());
  EXPECT_TRUE(status()["tools"][1]["name"].is_null()) << "crash is disabled";
  const int pid = status()["pid"].get<int>();
  config.auto_approve = {"echo"};
  servers_->configure({config});
  EXPECT_TRUE(tool("fake__echo")->auto_approve);
  EXPECT_TRUE(tool("fake__echo")->approved_by_name);
  EXPECT_EQ(status()["pid"].get<int>(), pid) << "the same process";
}

// Dead: gone, or a zombie nobody has reaped yet.
bool dead(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, name, state;
  if (!(stat >> pid_field >> name >> state)) return true;
  return state == "Z";
}

TEST_F(McpServers, ShutdownKillsAServerThatIsStillThereAfterTheGrace) {
  Servers::Options options;
  options.timing.stdin_grace_ms = 60'000;  // a server that ignores its closed stdin
  make({fake("hang")}, options);
  ASSERT_TRUE(run([&] { return status()["pid"].get<int>() > 0; }));
  const int pid = status()["pid"].get<int>();
  bool gone = false;
  servers_->shutdown([&] { gone = true; }, 100);
  EXPECT_TRUE(run([&] { return gone; }, 5000)) << "shutdown waited for the server";
  EXPECT_TRUE(run([&] { return dead(pid); }, 5000)) << "the server outlived the shutdown";
  servers_.reset();
}

TEST_F(McpServers, RestartAndStopEndTheProcessAndTheNextNeedStartsItAgain) {
  make({fake("ok")});
  listed("fake__echo");
  const int first = status()["pid"].get<int>();
  ASSERT_TRUE(servers_->restart("fake"));
  ASSERT_TRUE(run([&] { return status()["state"] == "running"; }));
  EXPECT_NE(status()["pid"].get<int>(), first) << "a new process";
  EXPECT_TRUE(run([&] { return dead(first); })) << "the old one stopped";
  ASSERT_TRUE(servers_->stop("fake"));
  EXPECT_EQ(status()["state"], "stopped");
  EXPECT_EQ(status()["pid"], 0);
  EXPECT_FALSE(servers_->stop("nope"));
  jobs::JobInfo job = call(*tool("fake__echo"), {{"message", "again"}});
  EXPECT_EQ(job.out.text(), "Echo: again");
}

}  // namespace
}  // namespace toolhost::mcp
