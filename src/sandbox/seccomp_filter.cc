#include "sandbox/seccomp_filter.h"

#include <seccomp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace toolhost::sandbox {
namespace {

enum class Mode { kAlways, kNetworkOff, kNetworkOn };

// When a call is denied: always, or on its arguments (compared as the kernel reads them: the
// domain is an int, so only its low 32 bits count).
enum class When { kAlways, kDomainIsNotUnix, kDomainIsUnix, kHasDestination };

struct Denial {
  const char* syscall;
  Mode mode;
  When when;
  const char* why;
};

// Everything else is allowed: the filesystem is Landlock's, the mounts the namespace's. Denied
// calls fail with EPERM, so a program reports "Operation not permitted" instead of dying.
constexpr Denial kDenials[] = {
    // Network off: only unix sockets can be made, and none of them can reach a listener (Neovim's
    // $NVIM, an ssh agent, docker): socketpair and its send() are what stays (pipes in Python's
    // multiprocessing, test runners' workers).
    {"socket", Mode::kNetworkOff, When::kDomainIsNotUnix, "any network socket"},
    {"connect", Mode::kNetworkOff, When::kAlways, "a unix socket's listener outside the sandbox"},
    {"bind", Mode::kNetworkOff, When::kAlways, "a listener of its own"},
    {"listen", Mode::kNetworkOff, When::kAlways, "a listener of its own"},
    {"accept", Mode::kNetworkOff, When::kAlways, "a listener of its own"},
    {"accept4", Mode::kNetworkOff, When::kAlways, "a listener of its own"},
    // glibc's send() is sendto(fd, buf, len, flags, NULL, 0): only an address is refused, which
    // would reach a pathname datagram socket (journald's, syslog's).
    {"sendto", Mode::kNetworkOff, When::kHasDestination, "a datagram to an address"},
    {"sendmmsg", Mode::kNetworkOff, When::kAlways, "datagrams to addresses"},
    // Network on (an allow-listed `network = true` command): TCP and UDP go out, but a unix
    // socket would still reach Neovim and the agents, so none can be made (socketpair can).
    {"socket", Mode::kNetworkOn, When::kDomainIsUnix, "a listener outside the sandbox (Neovim)"},
    // Both modes.
    {"ptrace", Mode::kAlways, When::kAlways, "another process of the user: the host, Neovim"},
    {"process_vm_readv", Mode::kAlways, When::kAlways, "another process's memory"},
    {"process_vm_writev", Mode::kAlways, When::kAlways, "another process's memory"},
    // io_uring opens files and sockets and connects without the calls above (and seccomp cannot
    // see its operations).
    {"io_uring_setup", Mode::kAlways, When::kAlways, "the calls above, unfiltered"},
    {"io_uring_enter", Mode::kAlways, When::kAlways, "the calls above, unfiltered"},
    {"io_uring_register", Mode::kAlways, When::kAlways, "the calls above, unfiltered"},
};

bool applies(Mode mode, bool network) {
  return mode == Mode::kAlways || (mode == Mode::kNetworkOn) == network;
}

int add_denial(scmp_filter_ctx ctx, const Denial& denial) {
  int nr = seccomp_syscall_resolve_name(denial.syscall);
  if (nr == __NR_SCMP_ERROR) return -ENOSYS;
  const uint32_t action = SCMP_ACT_ERRNO(EPERM);
  switch (denial.when) {
    case When::kAlways: return seccomp_rule_add(ctx, action, nr, 0);
    case When::kDomainIsNotUnix:
      return seccomp_rule_add(ctx, action, nr, 1, SCMP_A0_32(SCMP_CMP_NE, AF_UNIX));
    case When::kDomainIsUnix:
      return seccomp_rule_add(ctx, action, nr, 1, SCMP_A0_32(SCMP_CMP_EQ, AF_UNIX));
    case When::kHasDestination:
      return seccomp_rule_add(ctx, action, nr, 1, SCMP_A4_64(SCMP_CMP_NE, 0));
  }
  return -EINVAL;
}

// bookworm's libseccomp (2.5.4) exports only to a descriptor: through a memfd, read back.
int export_program(scmp_filter_ctx ctx, std::vector<sock_filter>& program) {
  int fd = ::memfd_create("toolhost-seccomp", MFD_CLOEXEC);
  if (fd < 0) return -errno;
  int result = seccomp_export_bpf(ctx, fd);
  off_t size = result == 0 ? ::lseek(fd, 0, SEEK_END) : -1;
  if (result == 0 && (size <= 0 || size % sizeof(sock_filter) != 0)) result = -EINVAL;
  if (result == 0) {
    program.resize(static_cast<size_t>(size) / sizeof(sock_filter));
    if (::pread(fd, program.data(), static_cast<size_t>(size), 0) != size) result = -EIO;
  }
  ::close(fd);
  return result;
}

}  // namespace

bool build_seccomp_program(bool network, std::vector<sock_filter>& program, std::string& error) {
  // Allowed unless the table denies; a call of another architecture (i386's int 0x80, x32) is
  // killed: libseccomp's default for a foreign architecture.
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr) {
    error = "seccomp_init failed";
    return false;
  }
  int result = 0;
  for (const Denial& denial : kDenials) {
    if (!applies(denial.mode, network)) continue;
    result = add_denial(ctx, denial);
    if (result != 0) {
      error = std::string("seccomp rule for ") + denial.syscall + ": " + std::strerror(-result);
      break;
    }
  }
  if (result == 0) {
    result = export_program(ctx, program);
    if (result != 0) error = std::string("seccomp_export_bpf: ") + std::strerror(-result);
  }
  seccomp_release(ctx);
  return result == 0;
}

}  // namespace toolhost::sandbox
