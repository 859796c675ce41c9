#pragma once
// The kernel sandbox of a job that runs unasked (SPEC 7, issue #38): Landlock (writes in the
// project root, its temp dirs and the configured roots only; reads everywhere but the user's
// secret stores and the caller's hidden paths), a user + mount namespace whose read-only binds
// keep the protected names inside the root (.git, editor and agent config) unwritable and whose
// covers keep the hidden paths unreadable inside a writable place too, and a seccomp filter (no
// network but socketpairs, no ptrace, no io_uring). Built once in the host, applied in the child
// between its clone and its exec, at about the cost of a spawn. Knows nothing of jobs, tools or
// Neovim.

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

namespace toolhost::sandbox {

// What the kernel offers, probed once per host.
struct Availability {
  bool available = false;  // Landlock ABI >= 3, user namespaces and seccomp all usable
  int landlock_abi = 0;    // 0: none (ENOSYS, EOPNOTSUPP)
  bool user_namespaces = false;
  bool seccomp = false;
  std::string reason;  // why not available, for the notice and :checkhealth
};
// Cached: the first call runs the probe (three short-lived children: a few milliseconds).
// Test flag: TOOLHOST_SANDBOX_UNAVAILABLE=<reason> in the environment makes the probe report
// the sandbox unavailable with that reason (the tests of the unsandboxed path use it).
const Availability& probe();
// The probe itself, run again (for the tests of the flag above).
Availability probe_uncached();

struct Settings {
  std::string root;                          // the project root: writable
  std::vector<std::string> writable;         // extra writable roots (config: build caches)
  std::string tmpdir;                        // $TMPDIR: writable like /tmp and /dev/shm
  std::vector<std::string> protected_names;  // relative to root; bound read-only if they exist
  std::string home;                          // $HOME
  std::vector<std::string> secrets;          // relative to home: unreadable (.ssh, .gnupg, ...)
  bool network = false;                      // an allow-list entry's `network = true`
  size_t walk_limit = 10000;                 // directories walk_protected() reads at most
  // Absolute: unreadable too, the caller's own secrets (toolhost's MCP sign-in records). Those
  // (and the secret stores) beneath a writable place are covered in the namespace at each spawn
  // where they exist then (an empty directory, or /dev/null).
  std::vector<std::string> hidden;
};

// The home's secret stores, by default. The names inside the root that stay read-only are the
// caller's: core::protected_names(), one list with the file tools'.
const std::vector<std::string>& default_secrets();

// What the child gets: as jobs::spawn_process, with the environment already cleaned.
struct SpawnArgs {
  std::string path;  // the program, resolved (execvp's search done by the caller)
  std::vector<std::string> argv;
  std::vector<std::string> environment;
  std::string cwd;
  int in_fd = -1;   // -1: /dev/null
  int out_fd = -1;  // -1: the host's (the tests' children only)
  int err_fd = -1;
};

class Sandbox {
 public:
  // Builds the Landlock ruleset, the mount list and the BPF program for `settings`; nullptr
  // and `error` when the kernel refuses any part.
  static std::unique_ptr<Sandbox> create(const Settings& settings, std::string& error);
  virtual ~Sandbox() = default;

  // Spawns as the leader of a new session and process group, sandboxed. Returns 0 and sets
  // `pid`, or an errno value (the exec's, or the sandbox's set-up in the child). A hidden path
  // that cannot be covered fails the spawn: nothing runs with it readable.
  virtual int spawn(const SpawnArgs& args, pid_t& pid) const = 0;

  // What the last spawn that failed in the sandbox's set-up failed at ("cover a hidden path
  // (/home/u/.netrc)"); empty when it was the program's exec, or nothing failed.
  virtual std::string failed_step() const = 0;

  // The project root it lets a job write.
  virtual const std::string& root() const = 0;

  // "write: root, tmp; network: off", for a result that says where a command ran.
  virtual std::string describe() const = 0;

  // The protected names (relative to the root) that exist now: the root's own, looked up now,
  // and those below it the last walk found (no walk: this runs before each spawn). spawn()
  // binds the same (a few stat calls in the parent); one the job creates cannot be bound, so
  // the caller compares this list at the job's start with walk_protected() at its end.
  virtual std::vector<std::string> existing_protected() const = 0;

  // The protected names at every depth of the root (`sub/.envrc`, `lib/.git`), walked now
  // (protected_walk.h: bounded by Settings::walk_limit), and remembered for the next spawns'
  // binds. Run when the sandbox is built and after each job, off the spawn path.
  virtual std::vector<std::string> walk_protected() const = 0;
};

// The variables a sandboxed job never inherits: Neovim's socket is a way back into the editor,
// the others lead to agents and daemons outside the sandbox.
const std::vector<std::string>& dropped_environment();
// `env` ("NAME=value" entries) without the dropped variables.
std::vector<std::string> clean_environment(const std::vector<std::string>& env);

}  // namespace toolhost::sandbox
