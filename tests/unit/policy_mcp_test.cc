// An MCP server's tools before the policy and the runner (SPEC 13.3): approval by default,
// auto_approve, a changed tool approved by name waits again, and the call becomes a stream job
// whose arguments the server's schema checked first.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

#include "core/config.h"
#include "test_jobs.h"
#include "tools/approved_fingerprints.h"
#include "tools/policy.h"
#include "tools/runner.h"

namespace toolhost::tools {
namespace {

class FakeRemote : public RemoteTools {
 public:
  FakeRemote() {
    core::ToolSpec echo;
    echo.name = "everything__echo";
    core::RemoteTool remote;
    remote.server = "everything";
    remote.tool = "echo";
    remote.fingerprint = "v1";
    echo.remote = remote;
    table.tools.push_back(echo);
  }
  core::RemoteTool& echo() { return *table.tools[0].remote; }

  const core::ToolSpec* find(const std::string& name) const override {
    const core::ToolSpec* spec = table.find(name);
    return spec && spec->remote ? spec : nullptr;
  }
  core::Result<jobs::StreamFunction> call(const core::RemoteTool&,
                                          const nlohmann::json& arguments) override {
    if (!arguments.contains("message")) return core::error("parameter \"message\" is required");
    called = arguments;
    return jobs::StreamFunction([](jobs::OutputSink, jobs::TaskDone) { return nullptr; });
  }
  uint64_t timeout_ms(const core::RemoteTool&) const override { return 1234; }
  std::optional<std::string> approved_fingerprint(const core::RemoteTool& tool) const override {
    return fingerprints.get(tool.server, tool.tool);
  }
  void record_fingerprint(const core::RemoteTool& tool) override {
    fingerprints.set(tool.server, tool.tool, tool.fingerprint);
  }

  core::ToolTable table;
  ApprovedFingerprints fingerprints{""};
  nlohmann::json called;
};

core::ToolCall echo_call(nlohmann::json params = {{"message", "hi"}}) {
  core::ToolCall call;
  call.tool = "everything__echo";
  call.id = "c1";
  call.params = std::move(params);
  return call;
}

const core::Config& config() {
  static const core::Config config = *core::config_from_json(nlohmann::json::object());
  return config;
}

TEST(PolicyMcp, AToolNeedsApprovalAndTheReasonNamesItsServer) {
  FakeRemote remote;
  Approval approval = auto_accept(echo_call(), config(), "/", &remote);
  EXPECT_EQ(approval.verdict, Approval::Verdict::No);
  EXPECT_NE(approval.reason.find("MCP server everything"), std::string::npos) << approval.reason;
  EXPECT_EQ(approval.reason.find("destructive"), std::string::npos);
  remote.echo().destructive = true;
  approval = auto_accept(echo_call(), config(), "/", &remote);
  EXPECT_NE(approval.reason.find("destructive"), std::string::npos) << approval.reason;
}

TEST(PolicyMcp, WithoutTheServersAnMcpToolIsUnknown) {
  EXPECT_EQ(auto_accept(echo_call(), config(), "/", nullptr).verdict, Approval::Verdict::No);
  EXPECT_FALSE(job_for(echo_call(), RunContext{config(), "/"}));
}

TEST(PolicyMcp, AutoApproveRunsItAtOnce) {
  FakeRemote remote;
  remote.echo().auto_approve = true;
  EXPECT_TRUE(auto_accept(echo_call(), config(), "/", &remote).auto_run());
}

TEST(PolicyMcp, AToolApprovedByNameWhoseFingerprintChangedWaitsUntilApprovedAgain) {
  FakeRemote remote;
  remote.echo().auto_approve = true;
  remote.echo().approved_by_name = true;
  RunContext context{config(), "/"};
  context.remote = &remote;
  // First seen: it runs, and the run records its fingerprint.
  ASSERT_TRUE(auto_accept(echo_call(), config(), "/", &remote).auto_run());
  ASSERT_TRUE(job_for(echo_call(), context));
  EXPECT_EQ(remote.fingerprints.get("everything", "echo"), "v1");
  remote.echo().fingerprint = "v2";  // the server changed its description or schema
  Approval held = auto_accept(echo_call(), config(), "/", &remote);
  EXPECT_EQ(held.verdict, Approval::Verdict::No);
  EXPECT_NE(held.reason.find("changed"), std::string::npos) << held.reason;
  // The user's :ToolRun runs it, and that approves the new fingerprint.
  ASSERT_TRUE(job_for(echo_call(), context));
  EXPECT_TRUE(auto_accept(echo_call(), config(), "/", &remote).auto_run());
}

TEST(PolicyMcp, AWholeServerApprovedIsNotHeldByAChange) {
  FakeRemote remote;
  remote.echo().auto_approve = true;  // auto_approve = true: not by name
  remote.fingerprints.set("everything", "echo", "old");
  EXPECT_TRUE(auto_accept(echo_call(), config(), "/", &remote).auto_run());
}

TEST(RunnerMcp, ACallBecomesAStreamJobWithTheServersTimeoutAndItsOwnArguments) {
  FakeRemote remote;
  RunContext context{config(), "/root"};
  context.remote = &remote;
  auto spec = job_for(echo_call({{"message", "hi"}, {"timeout_ms", 5}}), context);
  ASSERT_TRUE(spec) << spec.error();
  EXPECT_TRUE(spec->stream);
  EXPECT_TRUE(spec->argv.empty());
  EXPECT_EQ(spec->timeout_ms, 1234u) << "a timeout_ms argument is the tool's own";
  EXPECT_EQ(remote.called["timeout_ms"], 5);
  EXPECT_EQ(spec->tool, "everything__echo");
  EXPECT_EQ(spec->call_id, "c1");
}

TEST(RunnerMcp, ArgumentsTheSchemaRefusesAreAFailureNamingTheParameter) {
  FakeRemote remote;
  RunContext context{config(), "/root"};
  context.remote = &remote;
  auto spec = job_for(echo_call(nlohmann::json::object()), context);
  ASSERT_FALSE(spec);
  EXPECT_NE(spec.error().find("\"message\""), std::string::npos) << spec.error();
  EXPECT_TRUE(remote.called.is_null()) << "nothing sent";
}

TEST(ApprovedFingerprints, AreKeptInTheStateDirForTheNextHost) {
  jobs::testing::TempDir state;
  {
    ApprovedFingerprints seen(state.path());
    EXPECT_FALSE(seen.get("s", "t"));
    EXPECT_EQ(seen.set("s", "t", "abc"), "");
  }
  ApprovedFingerprints again(state.path());
  EXPECT_EQ(again.get("s", "t"), "abc");
  EXPECT_FALSE(again.get("s", "other"));
}

}  // namespace
}  // namespace toolhost::tools
