// Job ids: the one parser of "th-N" that the engine, the history and job_json share.

#include <gtest/gtest.h>

#include "jobs/types.h"

namespace toolhost::jobs {
namespace {

TEST(JobsTypes, JobNumberReadsTheNOfThN) {
  EXPECT_EQ(job_number("th-1"), 1u);
  EXPECT_EQ(job_number("th-42"), 42u);
  EXPECT_EQ(job_number("th-18446744073709551615"), UINT64_MAX);
}

TEST(JobsTypes, JobNumberIsZeroForAnythingButThN) {
  for (const char* id : {"", "th-", "th", "7", "th-7x", "th- 7", "th-+7", "th--7", "TH-7", "xth-7",
                         "th-18446744073709551616"}) {
    EXPECT_EQ(job_number(id), 0u) << id;
  }
}

}  // namespace
}  // namespace toolhost::jobs
