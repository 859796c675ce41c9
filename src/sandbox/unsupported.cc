// The sandbox where the kernel's is not (every system but Linux): always unavailable, so the
// allow-list rule alone decides what runs unasked (CMakeLists.txt builds this file instead of
// the Linux ones).
#include "sandbox/sandbox.h"

namespace toolhost::sandbox {

Availability probe_uncached() {
  Availability none;
  none.reason = "the kernel sandbox needs Linux (Landlock, user namespaces, seccomp)";
  return none;
}

const Availability& probe() {
  static const Availability once = probe_uncached();
  return once;
}

std::unique_ptr<Sandbox> Sandbox::create(const Settings&, std::string& error) {
  error = probe().reason;
  return nullptr;
}

}  // namespace toolhost::sandbox
