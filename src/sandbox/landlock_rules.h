#pragma once
// The Landlock ruleset of a sandbox, built once: every right the ABI knows is handled, so a
// right no rule grants is denied.

#include <string>
#include <vector>

namespace toolhost::sandbox {

struct FilesystemPolicy {
  std::vector<std::string> writable;  // every right beneath each (absent ones are skipped)
  std::vector<std::string> hidden;    // absolute: not even readable (the secret stores)
  bool network = false;               // false: TCP bind and connect denied (ABI 4)
};

// Returns the ruleset's descriptor (close-on-exec), or -1 and `error`.
int build_ruleset(const FilesystemPolicy& policy, int abi, std::string& error);

}  // namespace toolhost::sandbox
