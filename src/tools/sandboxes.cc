#include "tools/sandboxes.h"

#include <cstdlib>
#include <map>

#include "core/protected_names.h"

namespace toolhost::tools {

core::Result<std::shared_ptr<const sandbox::Sandbox>> sandbox_for(const core::Config& config,
                                                                 const std::string& root,
                                                                 bool network) {
  const std::vector<std::string>& secrets =
      config.sandbox.secrets ? *config.sandbox.secrets : sandbox::default_secrets();
  std::string key = root + '\n' + (network ? "net" : "") + '\n';
  for (const auto& path : config.sandbox.writable) key += path + '\1';
  key += '\n';
  for (const auto& path : secrets) key += path + '\1';
  key += '\n';
  for (const auto& path : config.sandbox.hidden) key += path + '\1';
  static std::map<std::string, std::shared_ptr<const sandbox::Sandbox>> built;
  if (auto found = built.find(key); found != built.end()) return found->second;

  // Built once per key: the settings, the walk of the home directory, the BPF program.
  sandbox::Settings settings;
  settings.root = root;
  settings.writable = config.sandbox.writable;
  const char* tmpdir = std::getenv("TMPDIR");
  settings.tmpdir = tmpdir ? tmpdir : "";
  settings.protected_names = core::protected_names();
  const char* home = std::getenv("HOME");
  settings.home = home ? home : "";
  settings.secrets = secrets;
  settings.hidden = config.sandbox.hidden;
  settings.network = network;
  std::string error;
  std::shared_ptr<const sandbox::Sandbox> box = sandbox::Sandbox::create(settings, error);
  if (!box) return core::error("the sandbox could not be built: " + error);
  built.emplace(key, box);
  return box;
}

}  // namespace toolhost::tools
