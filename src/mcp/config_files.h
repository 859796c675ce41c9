#pragma once
// The MCP server files users already keep (SPEC 13.2), read when present and merged with
// setup()'s `mcp.servers`:
//   {config}/toolhost/mcp.json        toolhost's own: `servers` (or `mcpServers`), setup()'s keys
//   ~/.config/mcphub/servers.json     mcphub's: `mcpServers` or VS Code's `servers`; its
//                                     `autoApprove`, `disabled`, `disabled_tools` are ours
//   {project}/.mcp.json               Claude Code's: `mcpServers`, `type` stdio | http | sse
//   {project}/.vscode/mcp.json        VS Code's: `servers`, `type`, `inputs`
// ({config} is $XDG_CONFIG_HOME, else ~/.config.) A name configured twice is taken from the
// first of setup(), then the files in that order, and every entry that loses is reported: what
// the user wrote for themselves always wins over what came with a repository, so a project can
// add servers but never replace one (whose tools the user may have approved by name).
//
// Comments and trailing commas are allowed (VS Code writes JSONC). Values expand `${VAR}`,
// `${env:VAR}`, `${VAR:-default}` (Claude Code's) and VS Code's `${workspaceFolder}`,
// `${workspaceFolderBasename}`, `${userHome}`, `${pathSeparator}`, `${/}`; nothing runs to
// expand a value, so mcphub's `${cmd: …}` and VS Code's `${input:…}` make that server's error.
// An entry that starts `toolhost mcp serve` (how agents reach toolhost, often in these same
// files) is left out: toolhost does not call its own tools through itself.
// A project file's stdio server without `cwd` runs in the project root (a relative `cwd` is
// under it), as Claude Code and VS Code run them.
//
// Reading is pure (read_config_text, merge_servers); load_servers reads the files.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mcp/server_config.h"

namespace toolhost::mcp {

enum class FileFormat { kToolhost, kMcphub, kClaudeCode, kVsCode };

struct ConfigFile {
  std::string path;
  FileFormat format = FileFormat::kToolhost;
  // In the project: its servers start only once the user accepted the file (project_trust.h).
  bool project = false;
};

struct Places {
  std::string config_home;   // $XDG_CONFIG_HOME, else ~/.config
  std::string home;          // $HOME: mcphub's file is ~/.config/mcphub/servers.json
  std::string project_root;  // absolute; empty: no project files
};
// config_home and home from the environment.
Places places_from_environment(const std::string& project_root);

// The files, in precedence order (the first that names a server wins).
std::vector<ConfigFile> config_files(const Places& places);

// What one file configures.
struct FileServers {
  ConfigFile file;
  // What is wrong with the file as a whole (not JSON, naming the line; not an object): it then
  // has no servers. The other files are read all the same.
  std::string error;
  // The server entries as written, under the key(s) read ({"mcpServers": {NAME: entry}}): what
  // a project file's acceptance covers.
  nlohmann::json entries = nlohmann::json::object();
  // Each entry read into our spec; `source` is the file's path, `error` what is wrong with it.
  std::vector<ServerConfig> servers;
  std::vector<std::string> warnings;  // a name under both `servers` and `mcpServers`
};

// The file's text, read (pure).
FileServers read_config_text(const ConfigFile& file, const std::string& text, const Places& places,
                             const Lookup& lookup);
// The file read from disk; nothing when it does not exist (an unreadable one is an error).
std::optional<FileServers> read_config_file(const ConfigFile& file, const Places& places,
                                            const Lookup& lookup);

// The text with comments and trailing commas blanked out, lines and columns kept (JSONC).
std::string strip_jsonc(const std::string& text);

// Every configured server, each name once.
struct Configured {
  std::vector<ServerConfig> servers;  // in name order; `source` says where each came from
  std::vector<FileServers> files;     // the files present, in precedence order
  // For the user: a file that could not be read, an entry a name clash ignored.
  std::vector<std::string> messages;
};

// The source setup()'s servers get.
inline constexpr const char* kSetupSource = "setup()";

// `setup` (its servers' empty `source` becomes kSetupSource) then `files` in precedence order.
Configured merge_servers(const ServersConfig& setup, std::vector<FileServers> files);
// merge_servers over the files of `places` that exist.
Configured load_servers(const ServersConfig& setup, const Places& places, const Lookup& lookup);

}  // namespace toolhost::mcp
