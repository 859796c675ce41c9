// The host's side of MCP servers (SPEC 13.3, 13.4): setup()'s `mcp.servers` configure them,
// their tools join the tool table (buffers parse again when they change, and Lua fires
// `User ToolhostToolsChanged`), and the methods the :ToolMcp view is built on.
#include "base/log.h"
#include "server/args.h"
#include "server/host.h"

namespace toolhost::server {
namespace {

// What tells one table from another for the parser and the policy.
std::string table_signature(const core::ToolTable& table) {
  std::string signature;
  for (const core::ToolSpec& spec : table.tools) {
    signature += spec.name;
    if (spec.remote) {
      signature += "\x1f" + spec.remote->fingerprint + (spec.remote->auto_approve ? "+" : "-") +
                   (spec.remote->approved_by_name ? "n" : "");
    }
    signature += '\x1e';
  }
  return signature;
}

// Lua sends an empty table as an empty list: where a table of names is meant, it is one.
nlohmann::json empty_lists_as_tables(nlohmann::json mcp) {
  auto fix = [](nlohmann::json& value) {
    if (value.is_array() && value.empty()) value = nlohmann::json::object();
  };
  fix(mcp);
  if (!mcp.is_object() || !mcp.contains("servers")) return mcp;
  nlohmann::json& servers = mcp["servers"];
  fix(servers);
  if (!servers.is_object()) return mcp;
  for (auto& [name, spec] : servers.items()) {
    fix(spec);
    if (!spec.is_object()) continue;
    for (const char* key : {"env", "headers"}) {
      if (spec.contains(key)) fix(spec[key]);
    }
  }
  return mcp;
}

}  // namespace

void Host::configure_mcp(const nlohmann::json& options) {
  mcp::ServersConfig servers =
      mcp::servers_from_json(empty_lists_as_tables(options), mcp::environment_lookup());
  if (!servers.error.empty()) {
    feedback_.notify("toolhost: mcp: " + servers.error, "error");
  }
  for (const mcp::ServerConfig& server : servers.servers) {
    if (!server.error.empty()) {
      feedback_.notify("toolhost: mcp.servers." + server.name + ": " + server.error, "error");
    }
  }
  mcp_.servers().configure(std::move(servers.servers));
}

void Host::rebuild_tools() {
  core::ToolTable table = tool_table_with(config_, mcp_.servers());
  const bool changed = table_signature(table) != table_signature(tools_);
  tools_ = std::move(table);
  if (!changed || stopping_) return;
  for (auto& [buf, s] : sessions_) {
    if (!s->detached()) s->tools_changed();
  }
  feedback_.event("ToolhostToolsChanged", {{"count", tools_.tools.size()}});
}

Host::Reply Host::mcp_servers(const nlohmann::json& raw) {
  Args args(raw);
  const bool start = args.boolean_or("start", false);
  const bool log = args.boolean_or("log", false);
  if (!args.ok()) return core::error(args.error());
  // :ToolMcp is a need: servers not running yet start (their state says how it goes).
  if (start) mcp_.servers().start("");
  return nlohmann::json{{"servers", mcp_.servers().status(log)}};
}

Host::Reply Host::mcp_restart(const nlohmann::json& raw) {
  Args args(raw);
  std::string name = args.string("name");
  if (!args.ok()) return core::error(args.error());
  auto done = mcp_.servers().restart(name);
  if (!done) return core::error(done.error());
  return ok();
}

Host::Reply Host::mcp_stop(const nlohmann::json& raw) {
  Args args(raw);
  std::string name = args.string("name");
  if (!args.ok()) return core::error(args.error());
  auto done = mcp_.servers().stop(name);
  if (!done) return core::error(done.error());
  return ok();
}

}  // namespace toolhost::server
