// The kernel sandbox as the host reports it (issue #38, |toolhost-sandbox|).
#include "sandbox/sandbox.h"
#include "server/host.h"
#include "tools/policy.h"

namespace toolhost::server {

void Host::announce_sandbox() {
  if (config_.sandbox.mode != core::SandboxMode::Auto || sandbox_announced_) return;
  const tools::SandboxState& state = tools::sandbox_state();
  if (state.available) return;
  sandbox_announced_ = true;
  feedback_.notify("toolhost: the sandbox is unavailable (" + state.reason +
                       "): commands off the allow-list wait for your approval",
                   "warn");
}

Host::Reply Host::sandbox_status(const nlohmann::json&) {
  const sandbox::Availability& kernel = sandbox::probe();
  const tools::SandboxState& policy = tools::sandbox_state();
  const bool wanted = config_.sandbox.mode == core::SandboxMode::Auto;
  return nlohmann::json{{"mode", wanted ? "auto" : "off"},
                        {"available", policy.available},
                        {"reason", policy.reason},
                        {"landlock_abi", kernel.landlock_abi},
                        {"user_namespaces", kernel.user_namespaces},
                        {"seccomp", kernel.seccomp},
                        {"in_force", wanted && policy.available}};
}

}  // namespace toolhost::server
