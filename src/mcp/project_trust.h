#pragma once
// A project's MCP file can start programs (SPEC 13.2): its servers run only after the user
// accepted that file once. What is accepted is the SHA-256 of the file's server entries as
// written (commands, args, env, cwd, url, headers: what would run, before `${…}` expansion):
// comments, layout and other keys do not count; a changed entry needs accepting again. The
// digests live in {state_dir}/mcp_accepted.json (mode 0600, written whole under a lock), the last
// few per file, so switching back to a branch whose file was accepted asks nothing.
//
// The host (or the CLI): load_servers (config_files.h), then load_acceptances and pending_files;
// hold_unaccepted marks the pending files' servers disabled; the user sees each file's `prompt`
// and answers; accept() records the digest the prompt showed, refusing when the file changed
// meanwhile.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mcp/config_files.h"

namespace toolhost::mcp {

// The digest of a file's entries (FileServers::entries).
std::string entries_digest(const nlohmann::json& entries);

struct Acceptances {
  std::map<std::string, std::vector<std::string>> digests;  // file path -> newest first
  std::string error;  // the state file could not be read: nothing counts as accepted
};

// {state_dir}/mcp_accepted.json
std::string acceptances_path(const std::string& state_dir);
Acceptances load_acceptances(const std::string& state_dir);

struct PendingFile {
  ConfigFile file;
  std::string digest;                // what accept() must be given
  bool changed = false;              // a digest of it was accepted before
  std::vector<std::string> servers;  // the names it configures
  // For the user: the file, each server's command line as written (and as it runs, when `${…}`
  // changed it), env, cwd, or URL and header names; the servers a clash leaves unused.
  std::string prompt;
};

// The project files whose digest is not accepted and that have a server in use (not one whose
// every name comes from another source first), in precedence order.
std::vector<PendingFile> pending_files(const Configured& configured, const Acceptances& accepted);

// The error a held server carries.
inline constexpr const char* kNotAccepted =
    "not accepted yet: its project file can start programs; run :ToolMcp accept (or "
    "`toolhost mcp accept` in the project) to see its commands and accept it";

// Marks every server of a pending file `disabled`, with kNotAccepted as its error.
void hold_unaccepted(Configured& configured, const std::vector<PendingFile>& pending);

// Records `digest` as accepted for `file`. False (with `error`) when the file's entries no
// longer have that digest (it changed since the prompt) or the state file cannot be written.
bool accept(const std::string& state_dir, const ConfigFile& file, const std::string& digest,
            std::string& error);

// All of it for a host or the CLI: load_servers, then the acceptances, pending_files and
// hold_unaccepted. `messages` gets an unreadable state file too.
struct AcceptedServers {
  Configured configured;  // the pending files' servers disabled with kNotAccepted
  std::vector<PendingFile> pending;
};
AcceptedServers load_accepted_servers(const ServersConfig& setup, const Places& places,
                                      const std::string& state_dir, const Lookup& lookup);

// The pending files as the Lua prompt (lua/toolhost/mcp_trust.lua) takes them: a list of
// {path, digest, changed, servers, prompt}.
nlohmann::json pending_to_json(const std::vector<PendingFile>& pending);

// The project file of `places` at `path` (as pending_to_json gave it), for accept().
std::optional<ConfigFile> project_file(const Places& places, const std::string& path);

// How many digests are kept per file.
inline constexpr size_t kKeptDigests = 8;

}  // namespace toolhost::mcp
