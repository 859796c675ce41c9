// The auto-run chain and approvals (SPEC 4, 5): what auto-run may start runs, the first call
// that needs approval waits with the hint, a rejection or failure stops the chain, and
// ToolhostAllDone fires once when nothing more will happen without the user.
#include <gtest/gtest.h>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// auto_run on; the idle rule far away, so that only assistant_done() completes a reply.
json auto_run() { return json{{"auto_run", true}, {"auto_run_idle_ms", 600000}}; }

// Regression: ToolhostAllDone never fired when a failure (or a rejection) stopped the chain
// before a call that auto-run could have started: that call waits for the user now.
TEST(WorkflowApproval, ChainStopsAtAFailureAndAllDoneFires) {
  NvimHarness nvim(auto_run());
  record_events(nvim, {"ToolhostJobFinished", "ToolhostAllDone"});
  int64_t buf = open_chat(nvim, "failure.chat.md");
  reply(nvim, buf, bash_reply({"cat missing.txt", "ls"}));

  json failed = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["exit_code"], 1);
  EXPECT_EQ(wait_event(nvim, "ToolhostAllDone")["buf"], buf);
  json jobs = barrier(nvim, buf);
  ASSERT_EQ(jobs.size(), 1u) << jobs.dump();
  EXPECT_EQ(jobs[0]["id"], failed["id"]);
  std::string text = text_of(nvim, buf);
  EXPECT_NE(text.find("✗ Failed: `cat missing.txt`"), std::string::npos) << text;
  EXPECT_NE(text.find("**bash**\n```bash\nls\n```\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("````result", text.find("```bash\nls\n")), std::string::npos) << text;
}

}  // namespace
}  // namespace toolhost::e2e
