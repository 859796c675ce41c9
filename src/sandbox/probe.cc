// probe(): what the kernel offers, asked once per host. Each part is tried for real in a
// short-lived child running the very code a sandboxed spawn runs (child.cc), since a container's
// seccomp profile or an LSM may refuse a call the kernel has: never assume a restriction applied.

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "sandbox/child.h"
#include "sandbox/landlock_abi.h"
#include "sandbox/sandbox.h"
#include "sandbox/seccomp_filter.h"

namespace toolhost::sandbox {
namespace {

// Runs a trial child (no exec) of `plan`; "" when it went through, else what failed.
std::string trial(ChildPlan plan) {
  plan.new_session = false;
  plan.in_fd = -1;
  pid_t pid = -1;
  int error = start_child(plan, pid);
  if (error != 0) {
    return std::string(plan.failed_step ? plan.failed_step : "clone") + ": " + std::strerror(error);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "the trial child was killed";
  return {};
}

std::string landlock_reason(int abi, int error) {
  if (abi >= landlock::kMinimumAbi) return {};
  if (abi > 0) {
    return "Landlock ABI " + std::to_string(abi) +
           " (Linux before 6.2): a truncating open cannot be denied; needs ABI 3";
  }
  if (error == ENOSYS) return "Landlock is not built into this kernel (Linux 6.2+ needed)";
  if (error == EOPNOTSUPP) return "Landlock is disabled at boot (add landlock to lsm=)";
  return std::string("landlock_create_ruleset: ") + std::strerror(error) +
         " (a container's seccomp profile?)";
}

void add_reason(std::string& reasons, const std::string& reason) {
  if (reason.empty()) return;
  if (!reasons.empty()) reasons += "; ";
  reasons += reason;
}

}  // namespace

Availability probe_uncached() {
  Availability result;
  if (const char* forced = std::getenv("TOOLHOST_SANDBOX_UNAVAILABLE"); forced && *forced) {
    result.reason = std::string(forced) + " (TOOLHOST_SANDBOX_UNAVAILABLE)";
    return result;
  }

  int abi = landlock::create_ruleset(nullptr, 0, landlock::kCreateRulesetVersion);
  int abi_error = errno;
  std::string landlock_failure = landlock_reason(abi, abi_error);
  if (landlock_failure.empty()) {
    // A ruleset that handles reading and grants nothing: restricting must be allowed.
    landlock::RulesetAttr attr{};
    attr.handled_access_fs = landlock::kReadFile;
    int fd = landlock::create_ruleset(&attr, sizeof attr.handled_access_fs, 0);
    ChildPlan plan;
    plan.ruleset_fd = fd;
    landlock_failure =
        fd < 0 ? std::string("landlock_create_ruleset: ") + std::strerror(errno) : trial(plan);
    if (fd >= 0) ::close(fd);
  }
  result.landlock_abi = landlock_failure.empty() ? abi : 0;

  std::string uid_map = std::to_string(::getuid()) + " " + std::to_string(::getuid()) + " 1";
  std::string gid_map = std::to_string(::getgid()) + " " + std::to_string(::getgid()) + " 1";
  ChildPlan namespace_plan;
  namespace_plan.uid_map = uid_map.c_str();
  namespace_plan.gid_map = gid_map.c_str();
  std::string namespace_failure = trial(namespace_plan);
  if (!namespace_failure.empty()) {
    namespace_failure = "user namespaces: " + namespace_failure +
                        " (blocked by a sysctl such as kernel.unprivileged_userns_clone or "
                        "AppArmor's restrict_unprivileged_userns, or by a container)";
  }
  result.user_namespaces = namespace_failure.empty();

  std::string seccomp_failure;
  std::vector<sock_filter> program;
  if (::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) {
    seccomp_failure = std::string("seccomp: ") + std::strerror(errno);
  } else if (!build_seccomp_program(false, program, seccomp_failure)) {
    seccomp_failure = "seccomp: " + seccomp_failure;
  } else {
    sock_fprog filter{static_cast<unsigned short>(program.size()), program.data()};
    ChildPlan plan;
    plan.seccomp = &filter;
    seccomp_failure = trial(plan);
  }
  result.seccomp = seccomp_failure.empty();

  add_reason(result.reason, landlock_failure);
  add_reason(result.reason, namespace_failure);
  add_reason(result.reason, seccomp_failure);
  result.available = result.reason.empty();
  return result;
}

const Availability& probe() {
  static const Availability cached = probe_uncached();
  return cached;
}

}  // namespace toolhost::sandbox
