#pragma once
// The fingerprints (description and schema) of the MCP tools that ran approved by name, kept in
// {state_dir}/mcp/approved.json: a tool whose fingerprint changed since waits for approval
// again, in this Neovim and the next (SPEC 13.3).

#include <map>
#include <optional>
#include <string>

namespace toolhost::tools {

class ApprovedFingerprints {
 public:
  // Reads the file; an empty `state_dir` keeps them in memory only.
  explicit ApprovedFingerprints(std::string state_dir);
  std::optional<std::string> get(const std::string& server, const std::string& tool) const;
  // Records it and writes the file (a temporary renamed over it); the reason it could not be
  // written, or "".
  std::string set(const std::string& server, const std::string& tool,
                  const std::string& fingerprint);

 private:
  std::string path_;
  std::map<std::string, std::string> seen_;  // "server\ttool" -> fingerprint
};

}  // namespace toolhost::tools
