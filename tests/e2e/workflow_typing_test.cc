// The auto-run chain survives a user who works beside it (issue #28, 2): it stops at a call
// that needs approval; the user runs a later call of the same reply by hand, types lines above
// the reply and approves the waiting call, in any order. Once the approved call and the
// hand-run one have ended, the chain goes on to the next auto-acceptable call.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;

// An auto-acceptable call that runs until the test lets it end: `head` of a fifo that the test
// holds open (O_RDWR never blocks) and writes a line into; the line waits in the fifo for
// `head` if it opens the fifo only later.
const char* kGated = "head -n 1 gate";

class Gate {
 public:
  explicit Gate(const std::string& dir) : path_(dir + "/gate") {
    if (::mkfifo(path_.c_str(), 0600) != 0) throw std::runtime_error("mkfifo " + path_);
    fd_ = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
    if (fd_ < 0) throw std::runtime_error("open " + path_);
  }
  ~Gate() { ::close(fd_); }
  void release() {
    if (released_) return;
    released_ = ::write(fd_, "ok\n", 3) == 3;
    if (!released_) throw std::runtime_error("cannot write into " + path_);
  }
  bool holding() const { return !released_; }

 private:
  std::string path_;
  int fd_ = -1;
  bool released_ = false;
};

// What the user does, one letter each, in order: s = runs the gated call by hand (:ToolRun in
// its block), t = types three lines above the reply (the idle rule sees them), a = approves the
// waiting `echo approved`, e = the gated call ends.
struct Steps {
  const char* name;
  const char* steps;
};

void PrintTo(const Steps& steps, std::ostream* out) {
  *out << steps.steps;
}

class WorkflowTyping : public testing::TestWithParam<Steps> {};

TEST_P(WorkflowTyping, ChainGoesOnAfterTheApprovedAndTheHandRunCalls) {
  NvimHarness nvim(json{{"auto_run", true}, {"auto_run_idle_ms", 50}});
  nvim.forward_diagnostics();
  forward_host_notify(nvim);
  record_events(nvim, {"ToolhostJobFinished", "ToolhostAllDone"});
  int64_t buf = open_chat(nvim, "typing.chat.md");
  Gate gate(nvim.temp_dir());
  // The chain stops at `echo approved`; after it come the gated call and `cat notes.txt`, both
  // auto-acceptable.
  reply(nvim, buf, bash_reply({"echo approved", kGated, "cat notes.txt"}));
  wait_for_diagnostic(nvim, "? run_terminal_command awaiting approval");
  ASSERT_EQ(barrier(nvim, buf).size(), 0u);

  auto gated_ends = [&] {
    gate.release();
    json gated = wait_event(nvim, "ToolhostJobFinished");
    EXPECT_EQ(gated["status"], "succeeded");
    EXPECT_EQ(
        nvim.lua("return require('toolhost').job(...).params.command", json::array({gated["id"]})),
        kGated);
  };
  for (const char* step = GetParam().steps; *step; ++step) {
    switch (*step) {
      case 's':
        set_cursor(nvim, row_of(nvim, buf, kGated));
        nvim.command("ToolRun");
        break;
      case 't':
        set_cursor(nvim, 1);
        nvim.lua(R"(vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(
                      "oone<CR>two<CR>three<Esc>", true, false, true), "xt", false))");
        EXPECT_EQ(wait_host_notify(nvim, "toolhost.idle")["first_row"], 1);
        break;
      case 'a': {
        set_cursor(nvim, row_of(nvim, buf, "echo approved"));
        nvim.command("ToolRun");
        json approved = wait_event(nvim, "ToolhostJobFinished");
        EXPECT_EQ(approved["status"], "succeeded");
        EXPECT_EQ(nvim.lua("return require('toolhost').job(...).params.command",
                           json::array({approved["id"]})),
                  "echo approved");
        break;
      }
      case 'e': gated_ends(); break;
    }
    barrier(nvim, buf);
  }
  if (gate.holding()) gated_ends();

  // The chain started `cat notes.txt` when the last of the calls before it ended.
  json jobs = barrier(nvim, buf);
  ASSERT_EQ(jobs.size(), 3u) << jobs.dump();
  EXPECT_EQ(jobs[0]["params"]["command"], "cat notes.txt");
  json cat = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(cat["id"], jobs[0]["id"]);
  EXPECT_EQ(cat["status"], "succeeded");
  EXPECT_EQ(wait_event(nvim, "ToolhostAllDone")["buf"], buf);
  std::string text = text_of(nvim, buf);
  if (std::strchr(GetParam().steps, 't')) {
    EXPECT_NE(text.find("USER: what is in the notes?\none\ntwo\nthree\nASSISTANT:"),
              std::string::npos)
        << text;
  }
  EXPECT_NE(text.find("✓ Executed: `cat notes.txt`"), std::string::npos) << text;
}

INSTANTIATE_TEST_SUITE_P(
    Permutations, WorkflowTyping,
    testing::Values(
        // The issue's sequence, and the approval before the typing: the hand-run call still
        // runs when the approved one ends.
        Steps{"RunByHandTypeApprove", "sta"}, Steps{"RunByHandApproveType", "sat"},
        // It ended before the typing, or before the approval.
        Steps{"RunByHandEndsTypeApprove", "seta"}, Steps{"RunByHandEndsApprove", "sea"},
        // Each step alone.
        Steps{"RunByHandApprove", "sa"}, Steps{"TypeApprove", "ta"}, Steps{"Approve", "a"},
        Steps{"TypeRunByHandApprove", "tsa"}),
    [](const testing::TestParamInfo<Steps>& info) { return std::string(info.param.name); });

// The chain waited for a call the user ran by hand: that call failing stops the chain as a
// failure of its own would (SPEC 4), and ToolhostAllDone says nothing more will happen.
TEST(WorkflowTypingFailure, HandRunCallTheChainWaitedForFailsAndStopsIt) {
  NvimHarness nvim(json{{"auto_run", true}, {"auto_run_idle_ms", 600000}});
  nvim.forward_diagnostics();
  record_events(nvim, {"ToolhostJobFinished", "ToolhostAllDone"});
  int64_t buf = open_chat(nvim, "typing-failure.chat.md");
  Gate gate(nvim.temp_dir());
  const std::string failing = std::string(kGated) + " missing.txt";  // exits 1 once released
  reply(nvim, buf, bash_reply({"echo approved", failing, "cat notes.txt"}));
  wait_for_diagnostic(nvim, "? run_terminal_command awaiting approval");
  set_cursor(nvim, row_of(nvim, buf, failing));
  nvim.command("ToolRun");
  set_cursor(nvim, row_of(nvim, buf, "echo approved"));
  nvim.command("ToolRun");
  EXPECT_EQ(wait_event(nvim, "ToolhostJobFinished")["status"], "succeeded");
  EXPECT_EQ(barrier(nvim, buf).size(), 2u);  // the chain waits for the hand-run call

  gate.release();
  json failed = wait_event(nvim, "ToolhostJobFinished");
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["exit_code"], 1);
  EXPECT_EQ(wait_event(nvim, "ToolhostAllDone")["buf"], buf);
  EXPECT_EQ(barrier(nvim, buf).size(), 2u);
  std::string text = text_of(nvim, buf);
  EXPECT_NE(text.find("**bash**\n```bash\ncat notes.txt\n```\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace toolhost::e2e
