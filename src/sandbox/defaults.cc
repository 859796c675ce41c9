// The sandbox's default lists, each entry with its reason.

#include <string_view>

#include "sandbox/sandbox.h"

namespace toolhost::sandbox {

const std::vector<std::string>& default_secrets() {
  static const std::vector<std::string> secrets = {
      ".ssh", ".gnupg", ".aws", ".config/gh", ".netrc", ".docker", ".kube", ".password-store",
  };
  return secrets;
}

const std::vector<std::string>& dropped_environment() {
  static const std::vector<std::string> names = {
      "NVIM",                      // Neovim's RPC socket: `nvim --server $NVIM --remote-expr`
      "NVIM_LISTEN_ADDRESS",       // the same, before Neovim 0.7
      "SSH_AUTH_SOCK",             // the ssh agent: signs as the user
      "DBUS_SESSION_BUS_ADDRESS",  // the session bus: starts and drives the user's services
      "DOCKER_HOST",               // a docker daemon: root on the machine
  };
  return names;
}

std::vector<std::string> clean_environment(const std::vector<std::string>& env) {
  std::vector<std::string> kept;
  kept.reserve(env.size());
  for (const auto& entry : env) {
    std::string_view name = std::string_view(entry).substr(0, entry.find('='));
    bool dropped = false;
    for (const auto& drop : dropped_environment()) dropped = dropped || name == drop;
    if (!dropped) kept.push_back(entry);
  }
  return kept;
}

}  // namespace toolhost::sandbox
