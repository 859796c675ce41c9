// :ToolJobs with long and multi-line commands: one row, and one screen line, per job.
#include <gtest/gtest.h>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// Regression: the jobs window wrapped a long command over many screen lines.
TEST(WorkflowRerun, JobsWindowRowsStayOneLineWithLongAndMultilineCommands) {
  NvimHarness nvim(json{{"confirm_run_all", false}});
  record_events(nvim, {"ToolhostJobFinished", "ToolhostAllDone", "ToolhostViewUpdated"});
  int64_t buf = open_chat(nvim, "long.chat.md");
  const std::string long_command = "echo " + std::string(3000, 'x');
  reply(nvim, buf, bash_reply({long_command, "echo one\necho two"}));
  nvim.command("ToolRunAll");
  wait_event(nvim, "ToolhostAllDone");

  nvim.command("ToolJobs");
  Lines rows;
  for (;;) {
    json update = wait_event(nvim, "ToolhostViewUpdated");
    rows = nvim.lines(update["buf"].get<int64_t>());
    if (rows.size() >= 3) break;
  }
  ASSERT_EQ(rows.size(), 4u) << json(rows).dump();  // title, column names, one row per job
  EXPECT_EQ(rows[2].rfind("th-2 ", 0), 0u) << rows[2];
  const std::string multiline_end = "echo one …";
  EXPECT_EQ(rows[2].substr(rows[2].size() - multiline_end.size()), multiline_end);
  EXPECT_EQ(rows[3].rfind("th-1 ", 0), 0u) << rows[3].substr(0, 80);
  EXPECT_EQ(rows[3].substr(rows[3].size() - long_command.size()), long_command);
  // On screen too: the window does not wrap a long row into several lines.
  EXPECT_EQ(nvim.lua("return vim.wo.wrap"), false);
}

}  // namespace
}  // namespace toolhost::e2e
