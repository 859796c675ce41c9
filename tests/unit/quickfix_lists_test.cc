// Every call's list (quickfix::Lists) with a real worker Neovim: the updates the editor gets,
// the items each run sends, and a worker that forgets its buffers once idle.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

#include "quickfix/lists.h"
#include "test_loop.h"

namespace toolhost::quickfix {
namespace {

using nlohmann::json;

std::string lists_nvim() {
  const char* chosen = std::getenv("TOOLHOST_TEST_NVIM");
  if (chosen && *chosen) return chosen;
  for (std::string dir : {"/usr/local/bin", "/usr/bin", "/bin"}) {
    if (::access((dir + "/nvim").c_str(), X_OK) == 0) return dir + "/nvim";
  }
  return "nvim";
}

class QuickfixLists : public ::testing::Test {
 protected:
  void TearDown() override {
    bool closed = false;
    lists_.close([&] { closed = true; });
    EXPECT_TRUE(loop_.run_until([&] { return closed; }));
  }
  JobStart job(const std::string& id, const std::string& command) {
    JobStart start;
    start.call_id = "call-" + command;
    start.job_id = id;
    start.tool = "run_terminal_command";
    start.command = command;
    start.words = command_words(command);
    start.cwd = "/tmp";
    start.log_path = "/logs/" + id + ".log";
    return start;
  }
  // The items a job's updates carried, in order.
  std::vector<json> items(const std::string& id) {
    std::vector<json> out;
    for (const auto& update : updates_) {
      if (update["job"] != id) continue;
      for (const auto& item : update["items"]) out.push_back(item);
    }
    return out;
  }
  bool done(const std::string& id) {
    for (const auto& update : updates_) {
      if (update["job"] == id && update["done"] == true) return true;
    }
    return false;
  }

  testing::TestLoop loop_;
  std::vector<json> updates_;
  std::vector<std::string> notices_;
  Lists lists_{loop_.get(), [this](json update) { updates_.push_back(std::move(update)); },
               [this](const std::string& message) { notices_.push_back(message); }};
};

TEST_F(QuickfixLists, UpdatesNameTheCallAndARerunStartsItsListAfresh) {
  lists_.set_nvim(lists_nvim());
  EXPECT_FALSE(lists_.start(job("th-1", "ls -la")));  // no format: no list
  ASSERT_TRUE(lists_.start(job("th-2", "gcc a.c")));
  lists_.output("th-2", 1, "a.c:1:2: error: one\na.c:3:4: warning: two\n");
  lists_.finish("th-2");
  ASSERT_TRUE(loop_.run_until([&] { return done("th-2"); }, 10000));
  ASSERT_FALSE(updates_.empty());
  EXPECT_EQ(updates_[0]["first"], true);
  EXPECT_EQ(updates_[0]["title"], "toolhost: gcc a.c (#th-2)");
  EXPECT_EQ(updates_[0]["call"], "call-gcc a.c");
  EXPECT_EQ(updates_[0]["source"], "gcc");
  EXPECT_EQ(updates_[0]["diagnostics"], true);
  ASSERT_EQ(items("th-2").size(), 2u);
  EXPECT_EQ(items("th-2")[1]["type"], "w");
  // The same call again: a first update of its own (the editor replaces the call's list),
  // with the new run's items only.
  const size_t before = updates_.size();
  ASSERT_TRUE(lists_.start(job("th-3", "gcc a.c")));
  lists_.output("th-3", 1, "a.c:9:1: error: three\n");
  lists_.finish("th-3");
  ASSERT_TRUE(loop_.run_until([&] { return done("th-3"); }, 10000));
  ASSERT_GT(updates_.size(), before);
  EXPECT_EQ(updates_[before]["first"], true);
  EXPECT_EQ(updates_[before]["call"], "call-gcc a.c");
  ASSERT_EQ(items("th-3").size(), 1u);
  EXPECT_EQ(items("th-3")[0]["text"], "three");
  EXPECT_TRUE(notices_.empty());
}

TEST_F(QuickfixLists, AnIdleWorkerKeepsNoBufferOfThePastParses) {
  lists_.set_nvim(lists_nvim());
  ASSERT_TRUE(lists_.start(job("th-1", "gcc x.c")));
  lists_.output("th-1", 1, "a.c:1:1: error: a\nb.c:1:1: error: b\nc.c:1:1: error: c\n");
  lists_.finish("th-1");
  ASSERT_TRUE(loop_.run_until([&] { return done("th-1"); }, 10000));
  json buffers;
  bool answered = false;
  lists_.worker()->exec_lua("return #vim.api.nvim_list_bufs()", json::array(),
                            [&](const std::string&, json result) {
                              buffers = std::move(result);
                              answered = true;
                            });
  ASSERT_TRUE(loop_.run_until([&] { return answered; }));
  EXPECT_EQ(buffers, 1);
}

TEST_F(QuickfixLists, WithoutANeovimBinaryNoCallGetsAList) {
  EXPECT_FALSE(lists_.start(job("th-1", "make")));
  lists_.output("th-1", 1, "a.c:1:1: error: a\n");
  lists_.finish("th-1");
  loop_.poll();
  EXPECT_TRUE(updates_.empty());
}

TEST_F(QuickfixLists, AWorkerThatCannotStartIsSaidOnce) {
  lists_.set_nvim("/nonexistent/nvim");
  for (const char* id : {"th-1", "th-2"}) {
    ASSERT_TRUE(lists_.start(job(id, "make")));
    lists_.output(id, 1, "a.c:1:1: error: a\n");
    lists_.finish(id);
  }
  ASSERT_TRUE(loop_.run_until([&] { return lists_.running() == 0; }));
  ASSERT_EQ(notices_.size(), 1u);
  EXPECT_NE(notices_[0].find("cannot start /nonexistent/nvim"), std::string::npos) << notices_[0];
  EXPECT_TRUE(updates_.empty());  // no list made, none for the editor to make
}

}  // namespace
}  // namespace toolhost::quickfix
