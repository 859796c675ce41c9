#include "sandbox/sandbox.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>

#include "sandbox/child.h"
#include "sandbox/held_namespace.h"
#include "sandbox/hidden_paths.h"
#include "sandbox/landlock_rules.h"
#include "sandbox/protected_paths.h"
#include "sandbox/protected_walk.h"
#include "sandbox/seccomp_filter.h"
#include "sandbox/spawner_thread.h"

namespace toolhost::sandbox {
namespace {

std::string current_dir() {
  char path[PATH_MAX];
  return ::getcwd(path, sizeof path) ? std::string(path) : std::string("/");
}

std::string id_map(unsigned id) {
  return std::to_string(id) + " " + std::to_string(id) + " 1";
}

// The char* arrays execve takes, pointing into `strings` (which must outlive them).
std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (const auto& text : strings) pointers.push_back(const_cast<char*>(text.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

class KernelSandbox final : public Sandbox {
 public:
  KernelSandbox(Settings settings, std::vector<std::string> covered, int ruleset_fd,
                std::vector<sock_filter> program)
      : settings_(std::move(settings)),
        covered_(std::move(covered)),
        ruleset_fd_(ruleset_fd),
        program_(std::move(program)),
        uid_map_(id_map(::getuid())),
        gid_map_(id_map(::getgid())),
        walk_(settings_.root, settings_.protected_names, settings_.walk_limit) {}

  ~KernelSandbox() override { ::close(ruleset_fd_); }

  int spawn(const SpawnArgs& args, pid_t& pid) const override {
    // Everything the child reads is made here: it may not allocate.
    std::vector<char*> argv = c_strings(args.argv);
    std::vector<char*> envp = c_strings(args.environment);
    // execvp's rule for a script without #!: /bin/sh runs it (as jobs/spawn.cc).
    std::vector<char*> sh_argv = {const_cast<char*>("/bin/sh"),
                                  const_cast<char*>(args.path.c_str())};
    if (argv.size() > 1)
      sh_argv.insert(sh_argv.end(), argv.begin() + 1, argv.end());
    else
      sh_argv.push_back(nullptr);
    ReadOnlyBinds binds(settings_.root, candidates());
    // Looked up at each spawn, as the binds: one created or replaced since is covered too.
    HiddenMounts hidden(covered_);
    failed_step_.clear();
    if (hidden.error() != 0) {
      failed_step_ = "look up a hidden path (" + hidden.failed_path() + ")";
      return hidden.error();
    }
    sock_fprog filter{static_cast<unsigned short>(program_.size()),
                      const_cast<sock_filter*>(program_.data())};

    ChildPlan plan;
    plan.path = args.path.c_str();
    plan.argv = argv.data();
    plan.envp = envp.data();
    plan.sh_argv = sh_argv.data();
    // Joining a mount namespace moves the child to its root: it needs its cwd named.
    const std::string cwd = args.cwd.empty() ? current_dir() : args.cwd;
    plan.cwd = cwd.c_str();
    plan.in_fd = args.in_fd;
    plan.out_fd = args.out_fd;
    plan.err_fd = args.err_fd;
    // The namespace exists only to hold the binds and covers: without them, a spawn joins
    // none (Landlock forbids mounting either way).
    if (binds.size() > 0 || hidden.size() > 0) {
      if (int error = held_.hold(binds, hidden, uid_map_.c_str(), gid_map_.c_str(), failed_step_)) {
        return error;
      }
      plan.user_ns_fd = held_.user_fd();
      plan.mount_ns_fd = held_.mount_fd();
    }
    plan.ruleset_fd = ruleset_fd_;
    // From the spawner thread the child inherits the filter; else it installs it itself.
    plan.seccomp = spawner_ ? nullptr : &filter;
    int error = spawner_ ? spawner_->spawn(plan, pid) : start_child(plan, pid);
    // The program's own exec error (ENOENT, EACCES) speaks for itself.
    if (error != 0 && plan.failed_step && std::strcmp(plan.failed_step, "execve") != 0) {
      failed_step_ = plan.failed_step;
    }
    return error;
  }

  std::string failed_step() const override { return failed_step_; }

  // Without the thread (the kernel refused its filter), each child installs the filter.
  void start_spawner() {
    sock_fprog filter{static_cast<unsigned short>(program_.size()),
                      const_cast<sock_filter*>(program_.data())};
    std::string error;
    spawner_ = SpawnerThread::start(filter, error);
  }

  std::string describe() const override {
    std::string text = "write: root, tmp";
    for (const auto& path : settings_.writable) text += ", " + path;
    text += settings_.network ? "; network: on" : "; network: off";
    return text;
  }

  const std::string& root() const override { return settings_.root; }

  std::vector<std::string> existing_protected() const override {
    return existing_names(settings_.root, candidates());
  }

  std::vector<std::string> walk_protected() const override {
    std::vector<std::string> found = walk_.walk();
    std::vector<std::string> nested;
    for (const auto& path : found) {
      if (path.find('/') != std::string::npos) nested.push_back(path);
    }
    nested_ = std::move(nested);
    return found;
  }

 private:
  // The root's own names (looked up at each use: a few stat calls) and the nested ones the
  // last walk found.
  std::vector<std::string> candidates() const {
    std::vector<std::string> all = settings_.protected_names;
    all.insert(all.end(), nested_.begin(), nested_.end());
    return all;
  }

  Settings settings_;
  std::vector<std::string> covered_;  // the hidden paths beneath a writable place
  int ruleset_fd_;
  std::vector<sock_filter> program_;
  std::string uid_map_;
  std::string gid_map_;
  // The namespace with the binds, which every spawn joins: made again by a spawn whose binds
  // differ (the sandbox is shared by root as const; one loop thread uses it).
  mutable HeldNamespace held_;
  std::unique_ptr<SpawnerThread> spawner_;
  // The walk, which remembers the directories it read.
  mutable ProtectedWalk walk_;
  // What the last walk found below the root: a cache, refreshed by walk_protected() on a
  // sandbox the host shares by root as const (one loop thread uses it, as everything here).
  mutable std::vector<std::string> nested_;
  // Why the last spawn failed in the set-up (failed_step()); the same one loop thread.
  mutable std::string failed_step_;
};

}  // namespace

std::unique_ptr<Sandbox> Sandbox::create(const Settings& settings, std::string& error) {
  const Availability& availability = probe();
  if (!availability.available) {
    error = availability.reason;
    return nullptr;
  }
  struct stat st {};
  if (settings.root.empty() || ::stat(settings.root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    error = "the root is not a directory: " + settings.root;
    return nullptr;
  }
  Settings resolved = settings;
  resolved.root = real_path(settings.root);

  FilesystemPolicy policy;
  policy.writable = {resolved.root, "/tmp", "/dev/shm"};
  if (!settings.tmpdir.empty()) policy.writable.push_back(settings.tmpdir);
  policy.writable.insert(policy.writable.end(), settings.writable.begin(), settings.writable.end());
  std::vector<std::string> hidden = hidden_paths(settings);
  policy.hidden = hidden;
  policy.network = settings.network;
  int ruleset_fd = build_ruleset(policy, availability.landlock_abi, error);
  if (ruleset_fd < 0) return nullptr;

  std::vector<sock_filter> program;
  if (!build_seccomp_program(settings.network, program, error)) {
    ::close(ruleset_fd);
    return nullptr;
  }
  // Only those beneath a writable place need a cover: Landlock hides the others, and says so
  // (EACCES), where a cover would answer as an empty directory.
  std::vector<std::string> covered = beneath_writable(hidden, policy.writable);
  auto box = std::make_unique<KernelSandbox>(std::move(resolved), std::move(covered), ruleset_fd,
                                             std::move(program));
  box->walk_protected();  // the names below the root, bound from the first spawn on
  box->start_spawner();
  return box;
}

}  // namespace toolhost::sandbox
