#pragma once
// Starting a job's child process: posix_spawn (glibc: clone(CLONE_VM | CLONE_VFORK), no copy of
// the host's page tables as libuv 1.44's fork() makes) after execvp's PATH search over the
// job's own environment, in a session and process group of its own. The Process that owns
// the child's handles is in process.h; how its exit is seen is in reaping.h.

#include <sys/types.h>

#include <string>
#include <vector>

#include "jobs/types.h"

namespace toolhost::jobs {

// A CLOEXEC pipe whose ends are not 0, 1 or 2 (a dup2 onto itself would keep FD_CLOEXEC).
// Returns 0 or an errno value.
int make_pipe(int fds[2]);

// execvp's search, over the job's PATH (not the host's): the first executable regular file;
// ENOENT when none, EACCES when only non-executable ones were found. Relative entries (and an
// empty one, "the current directory") are relative to the job's cwd.
int search_path(const std::string& file, const std::vector<std::string>& environment,
                const std::string& cwd, std::string& found);

// Spawns `spec.argv` in `spec.cwd` with `environment`, stdin `in_fd` (/dev/null when -1: a
// job reads nothing; an MCP server reads its requests), stdout and stderr on `out_fd` and
// `err_fd`, as the leader of a new session and process group, at `spec.nice` below the host.
// Returns 0 and sets `pid`, or an errno value; with `sandbox_step`, the step of the sandbox's
// set-up that failed (Sandbox::failed_step()), empty when the spawn failed otherwise.
int spawn_process(const JobSpec& spec, const std::vector<std::string>& environment, int out_fd,
                  int err_fd, pid_t& pid, int in_fd = -1, std::string* sandbox_step = nullptr);

}  // namespace toolhost::jobs
