#pragma once
// What a result says of the kernel sandbox a job ran in (issue #38): a failure that looks like a
// denial says so, for the user and for the model that reads the same result, so that it asks
// instead of working around; and a protected name the job created is named with where it went.

#include <string>
#include <vector>

#include "jobs/types.h"

namespace toolhost::results {

// A sandboxed job that failed with SIGSYS, or with an exit code and output that speak of a
// denial ("permission denied", "operation not permitted", "read-only file system", ...).
bool likely_denied(const jobs::JobInfo& job);

// The result's lines about the sandbox: nothing for an unsandboxed job.
std::vector<std::string> sandbox_lines(const jobs::JobInfo& job);

}  // namespace toolhost::results
