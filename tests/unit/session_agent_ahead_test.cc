// An agent's call started before its block is in the buffer (Session::agent_call_ahead, P9):
// the id it is started under is the one the parse gives the block once the host's message is
// appended, so the running job, or its result, lands on that block.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agents/call_message.h"
#include "core/tool_table.h"
#include "session/session.h"
#include "test_jobs.h"
#include "test_loop.h"

namespace toolhost::session {
namespace {

using nlohmann::json;
using Lines = std::vector<std::string>;

constexpr int64_t kAgentBuf = 3;
constexpr const char* kAgentBufName = "toolhost://agent/claude-code";

struct Ended {
  std::string call_id;
  std::vector<std::string> body;
};

class Recorder : public CallObserver {
 public:
  void call_output(int64_t, const std::string&, const std::vector<std::string>&) override {}
  void call_ended(int64_t, const std::string& call_id, const jobs::JobInfo&,
                  const std::vector<std::string>& body) override {
    ended.push_back({call_id, body});
  }
  void call_renamed(int64_t, const std::string& from, const std::string& to) override {
    renamed[from] = to;
  }
  std::vector<Ended> ended;
  std::map<std::string, std::string> renamed;
};

class AgentAheadTest : public ::testing::Test {
 protected:
  AgentAheadTest()
      : feedback_(loop_.get(), [this](json batch) { batches_.push_back(std::move(batch)); }),
        config_(*core::config_from_json(json{{"kill_grace_ms", 100}})),
        tools_(core::builtin_tool_table()),
        engine_(loop_.get(), {}),
        session_(std::make_unique<Session>(
            Context{feedback_, engine_, config_, tools_, nullptr, loop_.get(), &observer_},
            kAgentBuf, dir_.path(), kAgentBufName)) {
    std::ofstream(dir_ / "notes.txt") << "buy milk\n";
    session_->load(
        {"USER: claude-code is connected through `toolhost mcp serve`; its calls "
         "follow."});
    session_->set_agent_buffer(true);
  }

  ~AgentAheadTest() override {
    bool done = false;
    engine_.shutdown(100, [&] { done = true; });
    loop_.run_until([&] { return done; });
    feedback_.close();
    loop_.drain();
  }

  agents::CallMessage message(const std::string& tool, const json& arguments) {
    return agents::call_message("claude-code", tool, arguments, config_.roles);
  }

  // What the host's append does: the message at the end of the buffer, as Neovim reports it.
  // Returns the row of its block.
  int append(const agents::CallMessage& message) {
    const int row = static_cast<int>(session_->mirror().size());
    nvim::LinesEvent event;
    event.buf = kAgentBuf;
    event.first = row;
    event.last = row;
    event.lines = message.lines;
    session_->on_lines(event);
    return row + message.block_offset;
  }

  // The result blocks written so far, by call id: the first line of each.
  std::map<std::string, std::string> results() const {
    std::map<std::string, std::string> out;
    for (const auto& batch : batches_) {
      for (const auto& entry : batch.value("buffers", json::array())) {
        for (const auto& edit : entry.value("edits", json::array())) {
          for (const auto& line : edit["lines"]) {
            if (line.get<std::string>().rfind("````result", 0) == 0) out[edit["key"]] = line;
          }
        }
      }
    }
    return out;
  }

  testing::TestLoop loop_;
  jobs::testing::TempDir dir_;
  std::vector<json> batches_;
  Recorder observer_;
  Feedback feedback_;
  core::Config config_;
  core::ToolTable tools_;
  jobs::Engine engine_;
  std::unique_ptr<Session> session_;
};

TEST_F(AgentAheadTest, PredictedIdIsTheIdTheParseGivesTheAppendedBlock) {
  const std::vector<std::pair<std::string, json>> calls = {
      {"read_file", {{"path", "notes.txt"}}},
      {"read_file", {{"path", "notes.txt"}}},  // identical: the next k
      {"run_terminal_command", {{"command", "ls"}}},
      {"run_terminal_command", {{"command", "cat notes.txt"}}},
      {"run_terminal_command", {{"command", "ls"}, {"cwd", "."}}},  // a JSON fence
      {"list_directory", {{"path", "."}}},
      {"read_file", {{"path", "notes.txt"}}},
  };
  for (const auto& [tool, arguments] : calls) {
    agents::CallMessage m = message(tool, arguments);
    std::optional<parse::ToolCall> ahead = session_->agent_call_ahead(m.lines);
    ASSERT_TRUE(ahead) << tool << " " << arguments;
    const parse::ToolCall* parsed = session_->call_starting_at(append(m));
    ASSERT_NE(parsed, nullptr);
    EXPECT_EQ(parsed->id, ahead->id) << tool << " " << arguments;
    EXPECT_EQ(parsed->params, ahead->params);
  }
}

TEST_F(AgentAheadTest, CallThatPolicyHoldsIsNotStartedAhead) {
  EXPECT_FALSE(session_->agent_call_ahead(
      message("run_terminal_command", {{"command", "rm notes.txt"}}).lines));
  EXPECT_FALSE(session_->agent_call_ahead(
      message("create_or_replace_file", {{"path", "x"}, {"content", "y"}}).lines));
}

TEST_F(AgentAheadTest, IdenticalCallsStartedAheadEachLandOnTheirOwnBlock) {
  agents::CallMessage m = message("read_file", {{"path", "notes.txt"}});
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    std::optional<parse::ToolCall> ahead = session_->agent_call_ahead(m.lines);
    ASSERT_TRUE(ahead);
    ASSERT_TRUE(session_->start_agent_call_ahead(*ahead));
    ids.push_back(ahead->id);
  }
  EXPECT_NE(ids[0], ids[1]);
  EXPECT_NE(ids[1], ids[2]);
  // The agent hears of each end before any block is in the buffer.
  ASSERT_TRUE(loop_.run_until([&] { return observer_.ended.size() == 3; }));
  EXPECT_TRUE(results().empty());
  for (const auto& ended : observer_.ended) {
    EXPECT_EQ(ended.body, (std::vector<std::string>{"     1\tbuy milk"}));
  }

  for (int i = 0; i < 3; ++i) {
    int row = append(m);
    EXPECT_EQ(session_->call_starting_at(row)->id, ids[i]);
    session_->agent_block_written(ids[i], row);
  }
  ASSERT_TRUE(loop_.run_until([&] { return results().size() == 3; }));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(
        results()[ids[i]].rfind(
            "````result id=th-" + std::to_string(i + 1) + " tool=read_file status=succeeded", 0),
        0u)
        << results()[ids[i]];
  }
}

// Lua wrote something the parse does not read as the call started ahead (here: another
// call): the job still answered its agent, and nothing of it is written into the buffer.
TEST_F(AgentAheadTest, BlockThatDoesNotReadBackAsTheCallGetsNothingOfTheJob) {
  agents::CallMessage m = message("read_file", {{"path", "notes.txt"}});
  std::optional<parse::ToolCall> ahead = session_->agent_call_ahead(m.lines);
  ASSERT_TRUE(ahead);
  ASSERT_TRUE(session_->start_agent_call_ahead(*ahead));
  ASSERT_TRUE(loop_.run_until([&] { return observer_.ended.size() == 1; }));
  int row = append(message("read_file", {{"path", "other.txt"}}));
  session_->agent_block_written(ahead->id, row);
  feedback_.flush();  // what the append and the parse made is sent: no result among it
  EXPECT_TRUE(results().empty());
  // The lost call's id is free again: the next identical call is predicted as parsed.
  std::optional<parse::ToolCall> next = session_->agent_call_ahead(m.lines);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->id, ahead->id);
  EXPECT_EQ(session_->call_starting_at(append(m))->id, next->id);
}

// The user typed a block identical to a call started ahead before its block was written: that
// block now has the predicted id, and the job goes to the block at the row Lua wrote, its
// observer told of the block's id.
TEST_F(AgentAheadTest, JobGoesToTheBlockWrittenForItWhenAnIdenticalBlockTookItsId) {
  agents::CallMessage m = message("read_file", {{"path", "notes.txt"}});
  std::optional<parse::ToolCall> ahead = session_->agent_call_ahead(m.lines);
  ASSERT_TRUE(ahead);
  ASSERT_TRUE(session_->start_agent_call_ahead(*ahead));
  ASSERT_TRUE(loop_.run_until([&] { return observer_.ended.size() == 1; }));
  EXPECT_EQ(session_->call_starting_at(append(m))->id, ahead->id);  // the user's
  int row = append(m);
  const std::string written = session_->call_starting_at(row)->id;
  ASSERT_NE(written, ahead->id);
  session_->agent_block_written(ahead->id, row);
  ASSERT_TRUE(loop_.run_until([&] { return !results().empty(); }));
  EXPECT_EQ(results().count(written), 1u);
  EXPECT_EQ(results().size(), 1u);
  EXPECT_EQ(observer_.renamed, (std::map<std::string, std::string>{{ahead->id, written}}));
  // The job history too: the user's block, which has the id the job started under, never ran.
  const jobs::JobInfo* job = engine_.newest_for_call(kAgentBufName, written);
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(engine_.newest_for_call(kAgentBufName, ahead->id), nullptr);
  json last_record;
  for (const auto& batch : batches_) {
    for (const auto& record : batch.value("jobs", json::array())) {
      if (record["id"] == job->id) last_record = record;
    }
  }
  EXPECT_EQ(last_record["call_id"], written) << last_record;  // Lua's job mirror
}

}  // namespace
}  // namespace toolhost::session
