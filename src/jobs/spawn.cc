#include "jobs/spawn.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <string_view>

#include "sandbox/sandbox.h"

namespace toolhost::jobs {
namespace {

const char* find_entry(const std::vector<std::string>& environment, std::string_view key) {
  for (const auto& entry : environment) {
    if (entry.size() > key.size() && entry.compare(0, key.size(), key) == 0 &&
        entry[key.size()] == '=') {
      return entry.c_str() + key.size() + 1;
    }
  }
  return nullptr;
}

// Lowers the priority of the new process group (SPEC 9, P1: a flood of jobs must not slow the
// editor): `nice` above the host's own. posix_spawn has no attribute for it, so this follows the
// spawn, which returns once the child has exec'd; a process the job forks before this call is
// in the group too, and is covered. Failure (a job that already exited) changes nothing.
void lower_priority(pid_t pgid, int nice) {
  if (nice <= 0) return;
  errno = 0;
  const int own = ::getpriority(PRIO_PROCESS, 0);
  if (errno != 0) return;
  ::setpriority(PRIO_PGRP, static_cast<id_t>(pgid), std::min(own + nice, 19));
}

}  // namespace

int make_pipe(int fds[2]) {
  if (::pipe2(fds, O_CLOEXEC) != 0) return errno;
  for (int i = 0; i < 2; ++i) {
    if (fds[i] > 2) continue;
    int moved = ::fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
    int error = errno;
    ::close(fds[i]);
    fds[i] = moved;
    if (moved < 0) {
      ::close(fds[1 - i]);
      fds[1 - i] = -1;
      return error;
    }
  }
  return 0;
}

int search_path(const std::string& file, const std::vector<std::string>& environment,
                const std::string& cwd, std::string& found) {
  if (file.find('/') != std::string::npos) {
    found = file;  // posix_spawn resolves it after the chdir, as execve would
    return 0;
  }
  if (file.empty()) return ENOENT;
  const char* path = find_entry(environment, "PATH");
  std::string_view dirs = path ? path : "/bin:/usr/bin";
  int error = ENOENT;
  while (true) {
    size_t colon = dirs.find(':');
    std::string_view dir = dirs.substr(0, colon);
    std::string candidate;
    if (dir.empty() || dir.front() != '/') {
      if (!cwd.empty()) candidate = cwd + "/";
    }
    if (!dir.empty()) candidate.append(dir).append("/");
    candidate += file;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      if (::access(candidate.c_str(), X_OK) == 0) {
        found = std::move(candidate);
        return 0;
      }
      error = EACCES;
    }
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return error;
}

int spawn_process(const JobSpec& spec, const std::vector<std::string>& environment, int out_fd,
                  int err_fd, pid_t& pid, int in_fd, std::string* sandbox_step) {
  const auto& args = spec.argv;
  std::string path;
  if (int error = search_path(args[0], environment, spec.cwd, path)) return error;
  if (spec.sandbox) {
    // The same child, set up in the sandbox between its clone and its exec (sandbox.h).
    sandbox::SpawnArgs sandboxed{path, args, environment, spec.cwd, in_fd, out_fd, err_fd};
    if (int error = spec.sandbox->spawn(sandboxed, pid)) {
      if (sandbox_step) *sandbox_step = spec.sandbox->failed_step();
      return error;
    }
    lower_priority(pid, spec.nice);
    return 0;
  }
  std::vector<char*> argv;
  for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> env;
  for (const auto& entry : environment) env.push_back(const_cast<char*>(entry.c_str()));
  env.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (in_fd >= 0) {
    posix_spawn_file_actions_adddup2(&actions, in_fd, 0);
  } else {
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  }
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
  if (!spec.cwd.empty()) {
    posix_spawn_file_actions_addchdir_np(&actions, spec.cwd.c_str());
  }
  // Every other fd of the host is O_CLOEXEC (libuv's, the pipes', the logs').
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // SETSID (as libuv's UV_PROCESS_DETACHED did): a new session and process group whose id is
  // the child's pid, so kill(-pgid) reaches every descendant that does not setsid itself, a
  // terminal's ^C does not reach the job, and it has no controlling terminal to stop on
  // (SIGTTIN) or to prompt on (ssh, sudo read /dev/tty).
  // SETSIGMASK + SETSIGDEF: no blocked signal and no ignored one (the host ignores SIGPIPE)
  // is inherited, as libuv's child reset them all.
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  int error = ::posix_spawn(&pid, path.c_str(), &actions, &attr, argv.data(), env.data());
  if (error == ENOEXEC) {
    // execvp's rule for a script without #!: /bin/sh runs it.
    argv.insert(argv.begin(), const_cast<char*>("/bin/sh"));
    argv[1] = const_cast<char*>(path.c_str());
    error = ::posix_spawn(&pid, "/bin/sh", &actions, &attr, argv.data(), env.data());
  }
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) return error;
  lower_priority(pid, spec.nice);
  return 0;
}

}  // namespace toolhost::jobs
