// JobLog on its own: the cap, the trailer line, incremental reads.

#include "jobs/job_log.h"
#include "test_jobs.h"

namespace toolhost::jobs::testing {
namespace {

TEST(JobsLog, KeepsWhatFitsUnderTheCapAndEndsWithTheDroppedCount) {
  TempDir dir;
  JobLog log;
  ASSERT_EQ(log.open(dir / "th-1.log", 5), "");
  log.write("abc");
  log.write("defg");
  log.write("h");
  EXPECT_EQ(log.bytes(), 5u);
  log.close();
  EXPECT_FALSE(log.is_open());
  const std::string expected = "abcde\n[toolhost: 3 bytes dropped: the log is capped at 5 bytes]\n";
  EXPECT_EQ(read_file(dir / "th-1.log"), expected);
  EXPECT_EQ(log.bytes(), expected.size());
}

TEST(JobsLog, UnderTheCapHasNoTrailer) {
  TempDir dir;
  {
    JobLog log;
    ASSERT_EQ(log.open(dir / "th-2.log", 100), "");
    log.write("one\ntwo\n");
  }  // the destructor closes
  EXPECT_EQ(read_file(dir / "th-2.log"), "one\ntwo\n");
}

TEST(JobsLog, ReadsFromAnOffsetClampedToTheSize) {
  TempDir dir;
  JobLog log;
  ASSERT_EQ(log.open(dir / "th-3.log", 100), "");
  log.write("0123456789");
  JobLog::Slice slice = JobLog::read(dir / "th-3.log", 4, 3);
  EXPECT_EQ(slice.data, "456");
  EXPECT_EQ(slice.next, 7u);
  EXPECT_EQ(slice.size, 10u);
  slice = JobLog::read(dir / "th-3.log", 50, 3);
  EXPECT_EQ(slice.data, "");
  EXPECT_EQ(slice.next, 10u);
  EXPECT_TRUE(slice.error.empty());
}

TEST(JobsLog, MissingFileIsAnErrorAndCannotBeOpenedInAMissingDir) {
  TempDir dir;
  JobLog::Slice slice = JobLog::read(dir / "th-4.log", 3, 10);
  EXPECT_NE(slice.error.find("cannot read " + (dir / "th-4.log")), std::string::npos)
      << slice.error;
  EXPECT_EQ(slice.next, 3u);
  JobLog log;
  EXPECT_NE(log.open(dir / "no/such/dir.log", 10), "");
  EXPECT_FALSE(log.is_open());
}

}  // namespace
}  // namespace toolhost::jobs::testing
