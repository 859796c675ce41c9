// The agent loop in a real Neovim (SPEC 4): a reply arrives as a chat plugin writes it, the
// auto-run chain runs what may run by itself and stops at the first call that needs approval,
// and the user approves, rejects or runs everything.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "e2e/chat_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

TEST(Workflow, ChainRunsReadOnlyCallsStopsForApprovalAndGoesOnAfterIt) {
  NvimHarness nvim(json{{"auto_run", true}});
  nvim.forward_user_event("ToolhostJobFinished");
  nvim.forward_user_event("ToolhostAllDone");
  nvim.forward_diagnostics();
  int64_t buf = open_chat(nvim, "loop.chat.md");
  reply(nvim, buf, kReadEchoCat);

  json read = nvim.wait_for("ToolhostJobFinished");
  EXPECT_EQ(read["tool"], "read_file");
  EXPECT_EQ(read["status"], "succeeded");
  std::string hint = wait_for_diagnostic(nvim, "? run_terminal_command awaiting approval");
  EXPECT_EQ(hint,
            "? run_terminal_command awaiting approval (<leader>tr run, <leader>tx reject): "
            "`echo` is not on the allow list");
  EXPECT_EQ(nvim.lua("return require('toolhost').statusline()"), "?1 ✓1");
  EXPECT_EQ(text_of(nvim, buf).find("approved\n````"), std::string::npos);  // not run

  // Outside any block, the run key approves the first call that waits.
  nvim.lua("vim.api.nvim_win_set_cursor(0, {1, 0})");
  nvim.command("ToolRun");
  json approved = nvim.wait_for("ToolhostJobFinished");
  EXPECT_EQ(approved["status"], "succeeded");
  json cat = nvim.wait_for("ToolhostJobFinished");  // the chain goes on by itself
  EXPECT_EQ(cat["status"], "succeeded");
  json all_done = nvim.wait_for("ToolhostAllDone");
  EXPECT_EQ(all_done["buf"], buf);
  std::string text = text_of(nvim, buf);
  EXPECT_NE(text.find("✓ Executed: `echo approved`"), std::string::npos) << text;
  EXPECT_NE(text.find("✓ Executed: `cat notes.txt`"), std::string::npos) << text;
  EXPECT_EQ(nvim.lua("return require('toolhost').statusline()"), "✓3");
}

// A block that grows after it first parsed (its `> purpose` line streamed in after the closing
// fence) still gets its result: the mark covers the block as it is when the call starts.
TEST(Workflow, BlockThatGrewWhileStreamingIsRewrittenWhenItRuns) {
  NvimHarness nvim;
  nvim.forward_user_event("ToolhostJobFinished");
  nvim.listen("marked");
  nvim.after_each_batch(R"(function(chan, batch)
    for _, entry in ipairs(batch and batch.buffers or {}) do
      if entry.marks and #entry.marks > 0 then vim.rpcnotify(chan, "marked", entry.marks) end
    end
  end)");
  int64_t buf = open_chat(nvim, "grow.chat.md");
  reply(nvim, buf, {"ASSISTANT: Here.", "", "**bash**", "```bash", "echo grown", "```"}, false);
  nvim.wait_for("marked");  // the block has its extmark before it grows
  reply(nvim, buf, {"> streamed in later", "USER: "}, false);
  nvim.lua("vim.api.nvim_win_set_cursor(0, {4, 0})");
  nvim.command("ToolRun");
  json done = nvim.wait_for("ToolhostJobFinished");
  ASSERT_EQ(done["status"], "succeeded");
  std::string text = text_of(nvim, buf);
  EXPECT_NE(text.find("✓ Executed: `echo grown`\n> streamed in later\n````result id="),
            std::string::npos)
      << text;
}

// Runs `nvim`'s loop until the file at `path` holds `text`, woken by its directory's changes.
void wait_file_holds(NvimHarness& nvim, const std::string& path, const std::string& text) {
  struct Watch {
    uv_fs_event_t handle{};
    uv_loop_t* loop;
    explicit Watch(uv_loop_t* l) : loop(l) { uv_fs_event_init(loop, &handle); }
    ~Watch() {
      uv_close(reinterpret_cast<uv_handle_t*>(&handle), nullptr);
      uv_run(loop, UV_RUN_NOWAIT);
    }
  } watch(nvim.loop());
  const std::string dir = fs::path(path).parent_path().string();
  if (uv_fs_event_start(
          &watch.handle, [](uv_fs_event_t*, const char*, int, int) {}, dir.c_str(), 0) != 0) {
    throw std::runtime_error("cannot watch " + dir);
  }
  try {
    nvim.run_until([&] { return slurp(path).find(text) != std::string::npos; },
                   std::chrono::seconds(10), path + " to hold " + text);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string(e.what()) + "; it holds:\n" + slurp(path));
  }
}

// A block the chat plugin writes while the result of a block above it is on its way to Neovim:
// the host reads the new block's rows before that result is written above it, and its mark is
// placed after. The mark still lands on the block, which gets its own result when it runs.
TEST(Workflow, BlockWrittenWhileAResultAboveItIsOnItsWayGetsItsResult) {
  NvimHarness nvim(json{{"auto_run", false}});
  nvim.forward_user_event("ToolhostJobStarted");
  nvim.forward_user_event("ToolhostJobFinished");
  int64_t buf = open_chat(nvim, "race.chat.md");
  const std::string gate = (fs::path(nvim.temp_dir()) / "gate").string();
  const std::string unblock = (fs::path(nvim.temp_dir()) / "unblock").string();
  ASSERT_EQ(::mkfifo(gate.c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo(unblock.c_str(), 0600), 0);
  // Open until the test ends: the line written waits in the fifo for `head` to open it.
  struct Fd {
    int fd;
    ~Fd() { ::close(fd); }
  } gate_fd{::open(gate.c_str(), O_RDWR | O_CLOEXEC)};  // never blocks
  ASSERT_GE(gate_fd.fd, 0);
  reply(nvim, buf, bash_reply({"head -n 1 gate"}), false);
  set_cursor(nvim, row_of(nvim, buf, "head -n 1 gate"));
  nvim.command("ToolRun");
  EXPECT_EQ(nvim.wait_for("ToolhostJobStarted")["id"], "th-1");
  const std::string history =
      nvim.lua("return require('toolhost.host').dirs().state .. '/history.jsonl'");

  // Neovim waits on `unblock`, then the chat plugin writes the next block; only then does
  // Neovim read the host's result of th-1, which the host sent meanwhile.
  nvim.listen("blocked");
  nvim.lua(R"(
    local chan, buf, fifo = ...
    vim.schedule(function()
      vim.rpcnotify(chan, "blocked")
      local f = io.open(fifo, "r")
      f:read("*a")
      f:close()
      vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "", "**bash**", "```bash", "cat notes.txt", "```" })
    end)
  )",
           json::array({nvim.channel(), buf, unblock}));
  nvim.wait_for("blocked");
  // Should the test fail while Neovim waits, its end of input still lets Neovim go.
  struct Release {
    std::string fifo;
    ~Release() {
      int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (fd >= 0) ::close(fd);
    }
  } release{unblock};
  ASSERT_EQ(::write(gate_fd.fd, "ok\n", 3), 3);
  // The host writes a job's history line after it sent the job's result (server/host.cc).
  wait_file_holds(nvim, history, R"("status":"succeeded")");
  int fd = ::open(unblock.c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ::close(fd);  // Neovim reads the end of the fifo and goes on
  EXPECT_EQ(nvim.wait_for("ToolhostJobFinished")["id"], "th-1");

  barrier(nvim, buf);
  set_cursor(nvim, row_of(nvim, buf, "cat notes.txt"));
  nvim.command("ToolRun");
  json cat = nvim.wait_for("ToolhostJobFinished");
  EXPECT_EQ(cat["id"], "th-2");
  EXPECT_EQ(cat["status"], "succeeded");
  std::string text = text_of(nvim, buf);
  EXPECT_NE(text.find("✓ Executed: `head -n 1 gate`\n````result id=th-1 "), std::string::npos)
      << text;
  EXPECT_NE(text.find("✓ Executed: `cat notes.txt`\n````result id=th-2 "), std::string::npos)
      << text << diagnostics(nvim, buf).dump();
}

}  // namespace
}  // namespace toolhost::e2e
