// The job mirror's replacement (all_jobs, sent at every setup) leaves in pages of at most
// Feedback::kAllJobsPage records, one page per batch, so that Neovim never decodes a whole
// history at once.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "session/feedback.h"
#include "test_loop.h"

namespace toolhost::session {
namespace {

using nlohmann::json;

std::vector<json> records(const std::string& prefix, int count) {
  std::vector<json> all;
  for (int i = 0; i < count; ++i) all.push_back({{"id", prefix + std::to_string(i)}});
  return all;
}

class FeedbackPagingTest : public ::testing::Test {
 protected:
  FeedbackPagingTest()
      : feedback_(std::make_unique<Feedback>(loop_.get(),
                                             [this](json batch) { sent_.push_back(batch); })) {}
  ~FeedbackPagingTest() override {
    feedback_->close();
    loop_.drain();
  }
  bool last_page_sent() const {
    return !sent_.empty() && sent_.back().contains("all_jobs_page") &&
           sent_.back()["all_jobs_page"]["last"] == true;
  }

  testing::TestLoop loop_;
  std::vector<json> sent_;
  std::unique_ptr<Feedback> feedback_;
};

TEST_F(FeedbackPagingTest, EveryRecordLeavesOnceInPagesOfAtMostThePageSize) {
  feedback_->all_jobs(records("th-", 300));
  ASSERT_TRUE(loop_.run_until([&] { return last_page_sent(); }));
  std::vector<std::string> ids;
  for (size_t i = 0; i < sent_.size(); ++i) {
    const json& batch = sent_[i];
    ASSERT_TRUE(batch.contains("all_jobs")) << "batch " << i;
    EXPECT_LE(batch["all_jobs"].size(), Feedback::kAllJobsPage);
    EXPECT_EQ(batch["all_jobs_page"]["first"], i == 0);
    EXPECT_EQ(batch["all_jobs_page"]["last"], i + 1 == sent_.size());
    for (const json& job : batch["all_jobs"]) ids.push_back(job["id"]);
  }
  EXPECT_EQ(sent_.size(), 5u);  // 300 / 64, rounded up
  std::vector<std::string> expected;
  for (const json& job : records("th-", 300)) expected.push_back(job["id"]);
  EXPECT_EQ(ids, expected);
  // Paging done, the loop can rest again.
  EXPECT_EQ(uv_run(loop_.get(), UV_RUN_NOWAIT), 0) << "a handle is still active";
}

// The host frees the heap the start-up left (the history read, the pages) once the mirror is out.
TEST_F(FeedbackPagingTest, TheMirrorSaysOnceThatItsLastPageLeft) {
  feedback_->all_jobs(records("th-", 300));
  bool said_early = false;
  ASSERT_TRUE(loop_.run_until([&] {
    if (last_page_sent()) return true;
    said_early = said_early || feedback_->take_mirror_sent();
    return false;
  }));
  EXPECT_FALSE(said_early) << "said before the last page left";
  EXPECT_TRUE(feedback_->take_mirror_sent());
  EXPECT_FALSE(feedback_->take_mirror_sent()) << "said twice";
}

TEST_F(FeedbackPagingTest, OtherFeedbackRidesWithThePages) {
  feedback_->all_jobs(records("th-", 100));
  feedback_->notify("hello", "info");
  ASSERT_TRUE(loop_.run_until([&] { return last_page_sent(); }));
  ASSERT_EQ(sent_.size(), 2u);
  EXPECT_EQ(sent_[0]["notify"][0]["message"], "hello");
  EXPECT_EQ(sent_[0]["all_jobs"].size(), 64u);
  EXPECT_EQ(sent_[1]["all_jobs"].size(), 36u);
}

TEST_F(FeedbackPagingTest, NoJobsStillReplacesTheMirrorWithAnEmptyPage) {
  feedback_->all_jobs({});
  ASSERT_TRUE(loop_.run_until([&] { return last_page_sent(); }));
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(sent_[0]["all_jobs"], json::array());
  EXPECT_EQ(sent_[0]["all_jobs_page"]["first"], true);
}

TEST_F(FeedbackPagingTest, ANewSetupRestartsThePaging) {
  feedback_->all_jobs(records("old-", 640));
  ASSERT_TRUE(loop_.run_until([&] { return sent_.size() >= 2; }));
  ASSERT_LT(sent_.size(), 10u) << "the old paging ended before the restart";
  feedback_->all_jobs(records("new-", 100));
  size_t restart = sent_.size();
  ASSERT_TRUE(loop_.run_until([&] { return last_page_sent(); }));
  ASSERT_EQ(sent_.size(), restart + 2);
  EXPECT_EQ(sent_[restart]["all_jobs_page"]["first"], true);
  std::set<std::string> ids;
  for (size_t i = restart; i < sent_.size(); ++i) {
    for (const json& job : sent_[i]["all_jobs"]) {
      EXPECT_EQ(job["id"].get<std::string>().rfind("new-", 0), 0u) << job["id"];
      ids.insert(job["id"]);
    }
  }
  EXPECT_EQ(ids.size(), 100u);
}

// Gated (the host: while Neovim holds a list of batches), a page waits for resume_pages()
// and the gate, so the pages never pile up into one list; other feedback does not wait.
TEST_F(FeedbackPagingTest, AGatedPageWaitsUntilResumedWithTheGateOpen) {
  bool open = false;
  feedback_->gate_pages([&] { return open; });
  feedback_->all_jobs(records("th-", 100));
  feedback_->notify("hello", "info");
  ASSERT_TRUE(loop_.run_until([&] { return sent_.size() == 1; }));
  EXPECT_FALSE(sent_[0].contains("all_jobs"));
  EXPECT_EQ(uv_run(loop_.get(), UV_RUN_NOWAIT), 0) << "a closed gate must not spin the loop";
  open = true;
  feedback_->resume_pages();
  ASSERT_TRUE(loop_.run_until([&] { return sent_.size() == 2; }));
  EXPECT_EQ(sent_[1]["all_jobs"].size(), 64u);
  EXPECT_EQ(sent_[1]["all_jobs_page"]["first"], true);
  EXPECT_EQ(uv_run(loop_.get(), UV_RUN_NOWAIT), 0) << "the next page waits for resume_pages()";
  EXPECT_EQ(sent_.size(), 2u);
  feedback_->resume_pages();
  ASSERT_TRUE(loop_.run_until([&] { return last_page_sent(); }));
  EXPECT_EQ(sent_.size(), 3u);
  EXPECT_EQ(sent_[2]["all_jobs"].size(), 36u);
}

TEST(MirrorRecordsTest, LiveJobsComeFirstThenTheOthersNewestFirst) {
  std::vector<jobs::JobInfo> jobs(200);
  std::vector<const jobs::JobInfo*> oldest_first;
  for (size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].id = "th-" + std::to_string(i + 1);
    jobs[i].status = core::Status::Succeeded;
    oldest_first.push_back(&jobs[i]);
  }
  jobs[3].status = core::Status::Running;  // old live jobs would fall in a late page by age
  jobs[10].status = core::Status::Queued;
  std::vector<json> all = mirror_records(oldest_first);
  ASSERT_EQ(all.size(), 200u);
  EXPECT_EQ(all[0]["id"], "th-4");
  EXPECT_EQ(all[1]["id"], "th-11");
  EXPECT_EQ(all[2]["id"], "th-200");
  EXPECT_EQ(all[3]["id"], "th-199");
  EXPECT_EQ(all.back()["id"], "th-1");
}

}  // namespace
}  // namespace toolhost::session
