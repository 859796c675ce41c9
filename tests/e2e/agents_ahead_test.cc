// An agent's auto-acceptable call starts before its block is written into the agent's buffer
// (SPEC 13.6 P9): once the agent's buffer is watched, the host runs the call at once and
// answers the agent when the job ends, whatever Neovim is doing; the block shows up in the
// buffer when Neovim writes it, and the job then streams there or gets its result block under
// it, as any agent call does.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "e2e/agents_helpers.h"

namespace toolhost::e2e {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kReadBlock = R"({"parameters":{"path":"notes.txt"},"tool":"read_file"})";

// A project with notes.txt whose host serves agents, and an agent whose first call made its
// buffer (a call starts ahead only in a buffer the host already reads).
struct Project {
  NvimHarness nvim;
  std::unique_ptr<AgentProcess> agent;
  int64_t buf = 0;

  Project() {
    nvim.forward_user_event("ToolhostJobFinished");
    nvim.lua("vim.fn.writefile({ 'buy milk' }, 'notes.txt')");
    start_host(nvim);
    agent = connect_agent(nvim, "claude-code");
    agent->wait_result(agent->call("read_file", {{"path", "notes.txt"}}));
    buf = agent_buffer(nvim, "claude-code");
    wait_written({"th-1"});
  }

  // ToolhostJobFinished of each of `jobs`: it fires in the slice that wrote the job's result
  // block.
  void wait_written(std::set<std::string> jobs) {
    while (!jobs.empty()) jobs.erase(nvim.wait_for("ToolhostJobFinished")["id"]);
  }
};

Lines read_message(int job) {
  return {"ASSISTANT:",
          "claude-code calls read_file:",
          "",
          "```json",
          kReadBlock,
          "```",
          "````result id=th-" + std::to_string(job) + " tool=read_file status=succeeded duration=D",
          "     1\tbuy milk",
          "````",
          ""};
}

std::string make_fifo(NvimHarness& nvim, const std::string& name) {
  std::string path = (fs::path(nvim.temp_dir()) / name).string();
  if (::mkfifo(path.c_str(), 0600) != 0) throw std::runtime_error("mkfifo " + path);
  return path;
}

// Neovim blocks reading a FIFO until release() writes it: it answers nothing meanwhile. Once
// released it runs `_G.after_blocked()` if set, before the requests that came meanwhile.
struct BlockedNeovim {
  std::string fifo;

  explicit BlockedNeovim(Project& p) : fifo(make_fifo(p.nvim, "unblock")) {
    p.nvim.listen("blocked");
    p.nvim.lua(R"(
      local chan, fifo = ...
      vim.schedule(function()
        vim.rpcnotify(chan, "blocked")
        local f = io.open(fifo, "r")
        f:read("*a")
        f:close()
        if _G.after_blocked then _G.after_blocked() end
      end)
    )",
               json::array({p.nvim.channel(), fifo}));
    p.nvim.wait_for("blocked");
  }
  void release() { std::ofstream(fifo) << "go\n"; }
  // Should the test fail while Neovim is blocked, its end of input still lets Neovim go.
  ~BlockedNeovim() {
    int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) ::close(fd);
  }
};

TEST(AgentsAhead, AutoAcceptableCallIsAnsweredWhileNeovimIsBlocked) {
  Project p;
  BlockedNeovim blocked(p);
  json result = p.agent->wait_result(p.agent->call("read_file", {{"path", "notes.txt"}}));
  EXPECT_EQ(result["isError"], false);
  EXPECT_EQ(result["text"], "     1\tbuy milk");

  blocked.release();
  p.wait_written({"th-2"});
  // The block was written once Neovim could, and the job's result under it.
  Lines expected = {kClaudeCodeIntro};
  for (int job : {1, 2}) {
    Lines message = read_message(job);
    expected.insert(expected.end(), message.begin(), message.end());
  }
  EXPECT_EQ(normalized(p.nvim.lines(p.buf)), expected);
}

// The host reads each block's rows before Neovim has written the result of the one above it,
// and its mark may be placed after that write: the mark moves by it (placed at the rows as
// read, the third block's covered the second result's end in 1 run in 5 idle, 1 in 2 under
// load, and its result was refused as "the block changed while it ran").
TEST(AgentsAhead, IdenticalCallsSentAtOnceEachGetTheirOwnBlockResultAndJob) {
  Project p;
  int64_t second = p.agent->call("read_file", {{"path", "notes.txt"}});
  int64_t third = p.agent->call("read_file", {{"path", "notes.txt"}});
  EXPECT_EQ(p.agent->wait_result(second)["text"], "     1\tbuy milk");
  EXPECT_EQ(p.agent->wait_result(third)["text"], "     1\tbuy milk");
  p.wait_written({"th-2", "th-3"});
  // A call started ahead may end before the parse bound it to its block: its result block is
  // written when the block is, after its ToolhostJobFinished.
  EXPECT_EQ(p.nvim.lua(R"(
    local buf = ...
    return vim.wait(10000, function()
      for _, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
        if line:find("^````result id=th%-3 ") then return true end
      end
      return false
    end, 5))",
                       json::array({p.buf})),
            true)
      << p.nvim.lua("return vim.inspect(vim.diagnostic.get(...))", json::array({p.buf}))
             .get<std::string>();

  Lines expected = {kClaudeCodeIntro};
  for (int job : {1, 2, 3}) {
    Lines message = read_message(job);
    expected.insert(expected.end(), message.begin(), message.end());
  }
  EXPECT_EQ(normalized(p.nvim.lines(p.buf)), expected);
  // Each is a job of the buffer, as :ToolJobs lists them, and none ran twice.
  json listed = p.nvim.lua(R"(
    local out = {}
    for _, job in ipairs(require("toolhost").jobs()) do
      out[#out + 1] = { id = job.id, buf = job.buf, status = job.status }
    end
    table.sort(out, function(a, b) return a.id < b.id end)
    return out
  )");
  ASSERT_EQ(listed.size(), 3u) << listed.dump();
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(
        listed[i],
        (json{{"id", "th-" + std::to_string(i + 1)}, {"buf", p.buf}, {"status", "succeeded"}}));
  }
}

// `cat` of a FIFO the test feeds: its output streams to the agent as progress and into its
// block once the block is there, and its result block is written when it ends.
TEST(AgentsAhead, CommandStartedAheadStreamsToTheAgentAndIntoItsBlock) {
  Project p;
  p.nvim.forward_user_event("ToolhostJobOutput");
  const std::string fifo = make_fifo(p.nvim, "feed");
  // Read and write: opening does not wait for `cat`, and closing it is cat's end of input.
  int feed = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(feed, 0);
  ASSERT_EQ(::write(feed, "line1\n", 6), 6);
  int64_t id = p.agent->call("run_terminal_command", {{"command", "cat feed"}}, "tok-1");

  json progress = p.agent->wait_notification("notifications/progress");
  EXPECT_EQ(progress["progressToken"], "tok-1");
  EXPECT_NE(progress["message"].get<std::string>().find("line1"), std::string::npos)
      << progress.dump();
  json output = p.nvim.wait_for("ToolhostJobOutput");
  EXPECT_EQ(output["lines"], json::array({"line1"}));
  json shown = p.nvim.lua(R"(
    local out = {}
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(..., require("toolhost.ui").namespace, 0, -1, { details = true })) do
      for _, line in ipairs(m[4].virt_lines or {}) do out[#out + 1] = line[1][1] end
    end
    return out
  )",
                          json::array({p.buf}));
  EXPECT_EQ(shown, json::array({"line1"}));
  EXPECT_FALSE(p.agent->answered(id));

  ASSERT_EQ(::write(feed, "line2\n", 6), 6);
  ::close(feed);
  json result = p.agent->wait_result(id);
  EXPECT_EQ(result["text"], "Exit code: 0\nStdout:\nline1\nline2") << result.dump();
  p.wait_written({"th-2"});
  std::string text = text_of(p.nvim, p.buf);
  EXPECT_NE(text.find("✓ Executed: `cat feed`\n````result id=th-2 tool=run_terminal_command "
                      "status=succeeded exit=0"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nline1\nline2\n````\n"), std::string::npos) << text;
}

// The message of an identical call, without a result block.
Lines unanswered_message() {
  Lines message = read_message(0);
  message.erase(message.begin() + 6, message.end() - 1);
  return message;
}

// While an agent's call started ahead waits to be written, the user types an identical block
// above where it goes: the id the call was started under is now that block's, but the job (in
// jobs() and history too) and its result are the agent's block's; the user's block waits as any
// other.
TEST(AgentsAhead, IdenticalBlockTypedAboveBeforeTheAgentsIsWrittenDoesNotGetItsJob) {
  Project p;
  p.nvim.lua(R"(
    local buf, lines = ...
    _G.after_blocked = function() vim.api.nvim_buf_set_lines(buf, -1, -1, false, lines) end
  )",
             json::array({p.buf, unanswered_message()}));
  BlockedNeovim blocked(p);
  EXPECT_EQ(p.agent->wait_result(p.agent->call("read_file", {{"path", "notes.txt"}}))["text"],
            "     1\tbuy milk");
  blocked.release();
  p.wait_written({"th-2"});

  Lines expected = {kClaudeCodeIntro};
  for (const Lines& message : {read_message(1), unanswered_message(), read_message(2)}) {
    expected.insert(expected.end(), message.begin(), message.end());
  }
  EXPECT_EQ(normalized(p.nvim.lines(p.buf)), expected);

  // Its job is the agent's block's in jobs() and in the history file too: the user's block,
  // which has the id it was started under, never ran.
  barrier(p.nvim, p.buf);
  json ids = p.nvim.lua(R"(
    local buf = ...
    local ui, blocks, jobs, history = require("toolhost.ui"), {}, {}, {}
    for row, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
      if line == "```json" then blocks[#blocks + 1] = ui.call_at(buf, row - 1) end
    end
    for _, job in ipairs(require("toolhost").jobs({ all = true })) do jobs[job.id] = job.call_id end
    local path = require("toolhost.host").dirs().state .. "/history.jsonl"
    for _, text in ipairs(vim.fn.readfile(path)) do
      local line = vim.fn.json_decode(text)
      if line.call_id then history[line.id] = line.call_id end
    end
    return { blocks = blocks, jobs = jobs, history = history }
  )",
                        json::array({p.buf}));
  ASSERT_EQ(ids["blocks"].size(), 3u) << ids;
  EXPECT_NE(ids["blocks"][1], ids["blocks"][2]) << ids;
  EXPECT_EQ(ids["jobs"]["th-2"], ids["blocks"][2]) << ids;
  EXPECT_EQ(ids["history"]["th-2"], ids["blocks"][2]) << ids;
}

// Neovim failed to write one agent's message (the call ran and answered all the same): the next
// identical call's block, whose id counts one identical block fewer than predicted, still gets
// its job's result.
TEST(AgentsAhead, CallWrittenAfterAFailedWriteStillGetsItsResult) {
  Project p;
  // The first write after Neovim is released fails: the second call's message.
  p.nvim.lua(R"(
    _G.after_blocked = function()
      local rewrite = require("toolhost.rewrite")
      local write = rewrite.write
      rewrite.write = function()
        rewrite.write = write
        return false, "E21: Cannot make changes, 'modifiable' is off"
      end
    end
  )");
  BlockedNeovim blocked(p);
  int64_t second = p.agent->call("read_file", {{"path", "notes.txt"}});
  int64_t third = p.agent->call("read_file", {{"path", "notes.txt"}});
  EXPECT_EQ(p.agent->wait_result(second)["isError"], false);
  EXPECT_EQ(p.agent->wait_result(third)["isError"], false);
  blocked.release();
  p.wait_written({"th-3"});

  Lines expected = {kClaudeCodeIntro};
  for (int job : {1, 3}) {
    Lines message = read_message(job);
    expected.insert(expected.end(), message.begin(), message.end());
  }
  EXPECT_EQ(normalized(p.nvim.lines(p.buf)), expected);
}

}  // namespace
}  // namespace toolhost::e2e
