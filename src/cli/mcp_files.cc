#include "cli/mcp_files.h"

#include <algorithm>
#include <filesystem>
#include <istream>
#include <ostream>
#include <vector>

#include "cli/transcript.h"
#include "mcp/config_files.h"
#include "mcp/project_trust.h"

namespace toolhost::cli {
namespace {

// --config's `mcp.servers`, as setup()'s (none without --config).
core::Result<mcp::ServersConfig> read_setup_servers(const std::string& path) {
  if (path.empty()) return mcp::ServersConfig{};
  auto text = read_file_text(path);
  if (!text) return core::error(text.error());
  auto json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return core::error(path + ": not a JSON object");
  mcp::ServersConfig config =
      mcp::servers_from_json(json.value("mcp", nlohmann::json()), mcp::environment_lookup());
  if (!config.error.empty()) return core::error(path + ": " + config.error);
  for (auto& server : config.servers) server.source = path;
  return config;
}

mcp::Places places_of(const McpCommand& command) {
  mcp::Places places = mcp::places_from_environment(command.project_root);
  if (!command.config_home.empty()) places.config_home = command.config_home;
  if (!command.home.empty()) places.home = command.home;
  return places;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

std::string normal(const std::string& path) {
  return std::filesystem::absolute(path).lexically_normal().string();
}

}  // namespace

core::Result<McpServers> load_mcp_servers(const McpCommand& command, std::ostream& err) {
  auto setup = read_setup_servers(command.config_file);
  if (!setup) return core::error(setup.error());
  mcp::AcceptedServers loaded = mcp::load_accepted_servers(
      *setup, places_of(command), command.state_dir, mcp::environment_lookup());
  mcp::Configured& configured = loaded.configured;
  const std::vector<mcp::PendingFile>& pending = loaded.pending;
  for (const auto& message : configured.messages) err << "toolhost: " << message << "\n";
  McpServers out;
  for (const auto& file : pending) {
    err << "toolhost: " << file.file.path
        << (file.changed ? " changed since it was accepted" : " is not accepted yet")
        << ": its MCP servers (" << joined(file.servers)
        << ") are skipped; run `toolhost mcp accept` to see their commands and accept it\n";
  }
  for (auto& server : configured.servers) {
    bool held = false;
    for (const auto& file : pending) held = held || file.file.path == server.source;
    if (held) {
      out.held[server.name] = server.name + " is in " + server.source +
                              ", which is not accepted: run `toolhost mcp accept`";
    } else {
      out.config.servers.push_back(std::move(server));
    }
  }
  if (out.config.servers.empty() && out.held.empty()) {
    return core::error(
        "no MCP servers configured: give --config FILE.json with mcp.servers, or write "
        "~/.config/toolhost/mcp.json or the project's .mcp.json (:help toolhost-mcp-config)");
  }
  return out;
}

int run_mcp_accept(const McpCommand& command, std::istream& in, bool interactive, std::ostream& out,
                   std::ostream& err) {
  if (command.state_dir.empty() || command.project_root.empty()) {
    err << "toolhost: mcp accept needs a state directory and a project directory\n";
    return kMcpUsage;
  }
  auto setup = read_setup_servers(command.config_file);
  if (!setup) {
    err << "toolhost: " << setup.error() << "\n";
    return kMcpUsage;
  }
  mcp::Places places = places_of(command);
  mcp::Configured configured = mcp::load_servers(*setup, places, mcp::environment_lookup());
  for (const auto& message : configured.messages) err << "toolhost: " << message << "\n";
  std::vector<mcp::PendingFile> pending =
      mcp::pending_files(configured, mcp::load_acceptances(command.state_dir));
  if (!command.file.empty()) {
    std::string wanted = normal(command.file);
    std::vector<mcp::PendingFile> only;
    for (auto& file : pending) {
      if (normal(file.file.path) == wanted) only.push_back(std::move(file));
    }
    bool known = false;
    for (const auto& file : mcp::config_files(places)) {
      known = known || (file.project && normal(file.path) == wanted);
    }
    if (!known) {
      err << "toolhost: " << command.file << " is not one of this project's MCP files ("
          << places.project_root << "/.mcp.json, " << places.project_root << "/.vscode/mcp.json)\n";
      return kMcpUsage;
    }
    pending = std::move(only);
  }
  if (pending.empty()) {
    out << "toolhost: nothing to accept: the project's MCP files are accepted, or start "
           "nothing\n";
    return 0;
  }
  int status = 0;
  for (const auto& file : pending) {
    out << file.prompt << "\n";
    if (!command.yes) {
      if (!interactive) {
        err << "toolhost: not accepting " << file.file.path
            << " without a terminal to ask on: read the commands above, then run `toolhost "
               "mcp accept --yes`\n";
        status = kMcpUsage;
        continue;
      }
      out << "Accept " << file.file.path << "? [y/N] " << std::flush;
      std::string answer;
      std::getline(in, answer);
      if (answer != "y" && answer != "Y" && answer != "yes") {
        out << "not accepted: its servers stay off\n";
        status = std::max(status, kMcpToolFailed);
        continue;
      }
    }
    std::string error;
    if (!mcp::accept(command.state_dir, file.file, file.digest, error)) {
      err << "toolhost: " << error << "\n";
      status = kMcpUsage;
      continue;
    }
    out << "accepted " << file.file.path << "\n";
  }
  return status;
}

}  // namespace toolhost::cli
