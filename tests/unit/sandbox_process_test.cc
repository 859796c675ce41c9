// The sandboxed child as a process: what posix_spawn gave a job (a session of its own, default
// signals, /dev/null for stdin) still holds; it cannot trace or signal processes outside its
// sandbox; its failures come back as errno values; and what the probe says.

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>

#include "sandbox_test_util.h"

namespace toolhost::sandbox::testing {
namespace {

class SandboxProcess : public SandboxFixture {};

TEST_F(SandboxProcess, TheChildLeadsItsOwnSessionWithDefaultSignalsAndNoStdin) {
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  // The host ignores SIGPIPE; the job must not inherit that (nor a blocked signal). grep reads
  // its own status: the shell blocks every signal for a moment around each fork.
  struct sigaction ignore {
  }, previous{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &previous);
  // glibc's own real-time signal 33, ignored the way a CI runner started the host (glibc's
  // sigaction() cannot reset it: the child must go to the kernel).
  struct {
    void* handler;
    unsigned long flags;
    void* restorer;
    unsigned long mask;
  } kernel_ignore{reinterpret_cast<void*>(SIG_IGN), 0, nullptr, 0}, kernel_previous{};
  ::syscall(SYS_rt_sigaction, 33, &kernel_ignore, &kernel_previous, sizeof kernel_ignore.mask);
  Outcome run = sh_in(*sandbox,
                      "set -e; test \"$(cut -d' ' -f6 /proc/$$/stat)\" = $$; "
                      "grep -E '^Sig(Ign|Blk):' /proc/self/status; test -z \"$(cat)\"");
  ::syscall(SYS_rt_sigaction, 33, &kernel_previous, nullptr, sizeof kernel_ignore.mask);
  ::sigaction(SIGPIPE, &previous, nullptr);
  EXPECT_TRUE(run.ok()) << run.output;
  EXPECT_NE(run.output.find("SigIgn:\t0000000000000000"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("SigBlk:\t0000000000000000"), std::string::npos) << run.output;
}

// The children are cloned from a thread that holds the filter (spawner_thread.h): each has it,
// once, without compiling its own; the host's threads keep neither the filter nor no_new_privs.
TEST_F(SandboxProcess, TheChildInheritsOneFilterAndTheHostsThreadHasNone) {
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  Outcome child =
      sh_in(*sandbox, "grep -E '^(Seccomp|Seccomp_filters|NoNewPrivs):' /proc/self/status");
  EXPECT_TRUE(child.ok()) << child.output;
  EXPECT_NE(child.output.find("NoNewPrivs:\t1"), std::string::npos) << child.output;
  EXPECT_NE(child.output.find("Seccomp:\t2"), std::string::npos) << child.output;
  if (child.output.find("Seccomp_filters:") != std::string::npos) {
    EXPECT_NE(child.output.find("Seccomp_filters:\t1"), std::string::npos) << child.output;
  }
  std::ifstream status("/proc/thread-self/status");
  std::string host((std::istreambuf_iterator<char>(status)), {});
  EXPECT_NE(host.find("NoNewPrivs:\t0"), std::string::npos) << host;
  EXPECT_NE(host.find("Seccomp:\t0"), std::string::npos) << host;
}

TEST_F(SandboxProcess, ItCannotSignalTheHost) {
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  std::string script = "kill -0 " + std::to_string(::getpid());
  Outcome denied = sh_in(*sandbox, script);
  EXPECT_NE(denied.exit_code, 0);
  EXPECT_NE(denied.output.find("ermitted"), std::string::npos) << denied.output;
  EXPECT_TRUE(sh_plain(script).ok());
  // Its own children are in its sandbox: those it may signal.
  EXPECT_TRUE(sh_in(*sandbox, "sleep 5 & kill $!; wait $! || true").ok());
}

TEST_F(SandboxProcess, PtraceIsDenied) {
  std::string strace = program_path("strace");
  std::string python = program_path("python3");
  // PTRACE_TRACEME: harmless to allow in the control, and refused by the filter.
  std::vector<std::string> argv =
      !strace.empty() ? std::vector<std::string>{strace, "-o", "/dev/null", "/bin/true"}
      : !python.empty()
          ? std::vector<std::string>{python, "-c",
                                     "import ctypes, sys; libc = ctypes.CDLL(None, "
                                     "use_errno=True); sys.exit(libc.ptrace(0, 0, 0, 0) != 0)"}
          : std::vector<std::string>{};
  if (argv.empty()) GTEST_SKIP() << "neither strace nor python3 is installed";
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  Outcome denied = run_in(*sandbox, argv);
  EXPECT_NE(denied.exit_code, 0) << denied.output;
  Outcome allowed = run_plain(argv);
  EXPECT_TRUE(allowed.ok()) << allowed.output;
}

TEST_F(SandboxProcess, AMissingProgramIsENOENTAndLeavesNoZombie) {
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  Outcome missing = run_in(*sandbox, {root_ + "/no-such-program"});
  EXPECT_EQ(missing.spawn_error, ENOENT);
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
  {
    SpawnArgs args;
    args.path = "/bin/true";
    args.argv = {"/bin/true"};
    args.cwd = root_ + "/no-such-dir";
    pid_t pid = -1;
    EXPECT_EQ(sandbox->spawn(args, pid), ENOENT);
  }
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
}

TEST_F(SandboxProcess, AScriptWithoutAShebangRunsUnderSh) {
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  write(root_ + "/script", "echo from-sh \"$1\"\n");
  ::chmod((root_ + "/script").c_str(), 0755);
  Outcome run = run_in(*sandbox, {root_ + "/script", "arg"});
  EXPECT_TRUE(run.ok()) << run.output;
  EXPECT_EQ(run.output, "from-sh arg\n");
}

TEST(SandboxEnvironment, CleanEnvironmentDropsTheWaysBackToTheEditorAndTheAgents) {
  std::vector<std::string> env = {"PATH=/bin",
                                  "NVIM=/run/nvim.sock",
                                  "NVIM_LISTEN_ADDRESS=x",
                                  "SSH_AUTH_SOCK=/tmp/agent",
                                  "DBUS_SESSION_BUS_ADDRESS=unix:x",
                                  "DOCKER_HOST=unix:///d",
                                  "NVIMX=kept",
                                  "HOME=/h"};
  EXPECT_EQ(clean_environment(env),
            (std::vector<std::string>{"PATH=/bin", "NVIMX=kept", "HOME=/h"}));
}

TEST(SandboxProbe, TheTestFlagMakesItUnavailableWithTheReason) {
  ::setenv("TOOLHOST_SANDBOX_UNAVAILABLE", "testing the fallback", 1);
  Availability forced = probe_uncached();
  ::unsetenv("TOOLHOST_SANDBOX_UNAVAILABLE");
  EXPECT_FALSE(forced.available);
  EXPECT_NE(forced.reason.find("testing the fallback"), std::string::npos);
  Availability real = probe_uncached();
  EXPECT_EQ(real.available, probe().available);
  EXPECT_EQ(real.landlock_abi, probe().landlock_abi);
  std::printf("[ sandbox  ] available: %s, Landlock ABI %d, user namespaces %s, seccomp %s%s%s\n",
              real.available ? "yes" : "no", real.landlock_abi, real.user_namespaces ? "yes" : "no",
              real.seccomp ? "yes" : "no", real.reason.empty() ? "" : "; ", real.reason.c_str());
}

// Many spawns in a row through one sandbox, with a protected name in the root (the held mount
// namespace): each child runs, exits 0 and is reaped. What a spawn costs against
// posix_spawn is bench P10's (`make bench`, bench/NOTES.md); this test once measured it with
// 1,000 spawns, 18 s of the suite, and asserted nothing.
TEST_F(SandboxProcess, ManySpawnsInARowEachRunAndExitZero) {
  auto sandbox = make(settings());
  ASSERT_TRUE(sandbox);
  std::filesystem::create_directories(root_ + "/.git");
  int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  SpawnArgs args;
  args.path = "/bin/true";
  args.argv = {"/bin/true"};
  args.environment = environment();
  args.cwd = root_;
  args.out_fd = args.err_fd = null_fd;
  for (int i = 0; i < 50; ++i) {
    pid_t pid = -1;
    ASSERT_EQ(sandbox->spawn(args, pid), 0) << "spawn " << i;
    int status = -1;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid) << "spawn " << i;
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "spawn " << i << ": " << status;
  }
  ::close(null_fd);
}

}  // namespace
}  // namespace toolhost::sandbox::testing
