#pragma once
// Small POSIX file helpers shared by the layers above (job logs, job history).

#include <string>
#include <string_view>

namespace toolhost::base {

// Creates `dir` and its missing parents with mode 0700; existing ones are left as they are.
// Errors are not reported: the caller's next open() of a file inside says what went wrong.
void make_dirs(const std::string& dir);

// Writes all of `data` to `fd`, retrying short writes and EINTR; false on any other error
// (errno tells which). Part of `data` may have been written even then.
bool write_all(int fd, std::string_view data);

}  // namespace toolhost::base
