#pragma once
// The sandbox tests' fixture: a project root, a home with a fake secret and a $TMPDIR, all
// under /var/tmp (not /tmp: /tmp is writable in the sandbox, so "outside" must be elsewhere),
// and runs of real programs in the sandbox and without it (the control: each denial must be
// the sandbox's).

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/protected_names.h"
#include "sandbox/sandbox.h"

namespace toolhost::sandbox::testing {

struct Outcome {
  int spawn_error = 0;
  int exit_code = -1;  // -1: killed by a signal
  std::string output;  // stdout and stderr together
  bool ok() const { return spawn_error == 0 && exit_code == 0; }
};

inline std::string program_path(const std::string& name) {
  for (const char* dir : {"/usr/bin", "/bin", "/usr/local/bin"}) {
    std::string path = std::string(dir) + "/" + name;
    if (::access(path.c_str(), X_OK) == 0) return path;
  }
  return {};
}

// Reads the child's output to its end, then reaps it.
inline Outcome finish(pid_t pid, int read_fd) {
  Outcome run;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(read_fd, buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) run.output.append(buffer, static_cast<size_t>(n));
  }
  ::close(read_fd);
  int status = 0;
  ::waitpid(pid, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

class SandboxFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    const Availability& availability = probe();
    if (!availability.available) GTEST_SKIP() << "no sandbox here: " << availability.reason;
    std::string base = ::access("/var/tmp", W_OK) == 0 ? "/var/tmp" : ".";
    std::string pattern = base + "/toolhost-sandbox-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    root_ = dir_ + "/root";
    home_ = dir_ + "/home";
    tmpdir_ = dir_ + "/tmpdir";
    outside_ = dir_ + "/outside";
    for (const auto& path : {root_, home_, home_ + "/.ssh", tmpdir_, outside_}) {
      std::filesystem::create_directories(path);
    }
    write(home_ + "/.ssh/id_ed25519", "PRIVATE KEY\n");
    write(home_ + "/notes.txt", "not a secret\n");
  }

  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  Settings settings() const {
    Settings settings;
    settings.root = root_;
    settings.tmpdir = tmpdir_;
    settings.home = home_;
    settings.secrets = default_secrets();
    settings.protected_names = core::protected_names();
    return settings;
  }

  std::unique_ptr<Sandbox> make(const Settings& settings) {
    std::string error;
    auto sandbox = Sandbox::create(settings, error);
    EXPECT_TRUE(sandbox) << error;
    return sandbox;
  }

  std::vector<std::string> environment() const {
    return {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home_, "LANG=C", "TMPDIR=" + tmpdir_};
  }

  Outcome run_in(const Sandbox& sandbox, std::vector<std::string> argv) const {
    SpawnArgs args;
    args.path = argv[0];
    args.argv = std::move(argv);
    args.environment = environment();
    args.cwd = root_;
    int fds[2];
    EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
    args.out_fd = args.err_fd = fds[1];
    pid_t pid = -1;
    int error = sandbox.spawn(args, pid);
    return spawned(error, pid, fds);
  }

  // The control: the same program without the sandbox.
  Outcome run_plain(const std::vector<std::string>& argv) const {
    int fds[2];
    EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
    posix_spawn_file_actions_addchdir_np(&actions, root_.c_str());
    std::vector<std::string> env = environment();
    std::vector<char*> argv_c, env_c;
    for (const auto& arg : argv) argv_c.push_back(const_cast<char*>(arg.c_str()));
    argv_c.push_back(nullptr);
    for (const auto& entry : env) env_c.push_back(const_cast<char*>(entry.c_str()));
    env_c.push_back(nullptr);
    pid_t pid = -1;
    int error =
        ::posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, argv_c.data(), env_c.data());
    posix_spawn_file_actions_destroy(&actions);
    return spawned(error, pid, fds);
  }

  // After either spawn: the write end goes (the child has its copy), then the child's outcome,
  // or the spawn's error.
  Outcome spawned(int error, pid_t pid, const int fds[2]) const {
    ::close(fds[1]);
    if (error != 0) {
      ::close(fds[0]);
      Outcome failed;
      failed.spawn_error = error;
      return failed;
    }
    return finish(pid, fds[0]);
  }

  Outcome sh_in(const Sandbox& sandbox, const std::string& script) const {
    return run_in(sandbox, {"/bin/sh", "-c", script});
  }
  Outcome sh_plain(const std::string& script) const { return run_plain({"/bin/sh", "-c", script}); }

  static void write(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
  }
  static bool exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
  }
  static std::string read(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  std::string dir_, root_, home_, tmpdir_, outside_;
};

}  // namespace toolhost::sandbox::testing
