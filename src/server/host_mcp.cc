// The host's side of MCP servers (SPEC 13.3, 13.4): setup()'s `mcp.servers` configure them,
// their tools join the tool table (buffers parse again when they change, and Lua fires
// `User ToolhostToolsChanged`), and the methods the :ToolMcp view is built on. The config files
// users keep join setup()'s servers (mcp/config_files.h); a project file's servers stay off
// until the user accepted it (mcp/project_trust.h, lua/toolhost/mcp_trust.lua).
#include <cstdlib>

#include "base/log.h"
#include "server/args.h"
#include "server/host.h"
#include "server/self_server.h"

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

// The project's MCP files count from `root`, else from the host's cwd (Neovim's, which started
// it).
std::string project_root(const std::string& root) {
  if (!root.empty()) return root;
  char cwd[4096];
  size_t size = sizeof cwd;
  return uv_cwd(cwd, &size) == 0 ? std::string(cwd, size) : std::string();
}

std::vector<std::string> pending_digests(const std::vector<mcp::PendingFile>& pending) {
  std::vector<std::string> digests;
  for (const mcp::PendingFile& file : pending) digests.push_back(file.file.path + file.digest);
  return digests;
}

}  // namespace

void Host::add_mcp_methods() {
  auto bind = [this](Reply (Host::*method)(const nlohmann::json&)) {
    return [this, method](const nlohmann::json& args) { return (this->*method)(args); };
  };
  methods_.add("toolhost.mcp_servers", bind(&Host::mcp_servers));
  methods_.add("toolhost.mcp_restart", bind(&Host::mcp_restart));
  methods_.add("toolhost.mcp_stop", bind(&Host::mcp_stop));
  methods_.add("toolhost.mcp_pending", bind(&Host::mcp_pending));
  methods_.add("toolhost.mcp_accept", bind(&Host::mcp_accept));
  methods_.add("toolhost.mcp_project", bind(&Host::mcp_project));
  methods_.add("toolhost.mcp_elicited", bind(&Host::mcp_elicited));
  methods_.add("toolhost.mcp_login", bind(&Host::mcp_login));
  methods_.add("toolhost.mcp_logout", bind(&Host::mcp_logout));
}

void Host::configure_mcp(const nlohmann::json& options) {
  mcp_options_ = empty_lists_as_tables(options);
  mcp_configured_ = true;
  load_mcp(true);
}

void Host::load_mcp(bool setup_ran) {
  // A message is shown when the previous load did not have it (or `again`): reloads repeat
  // none, and one fixed and then brought back is shown again.
  std::set<std::string> said;
  auto say_mcp = [this, &said](const std::string& text, const std::string& level, bool again) {
    said.insert(text);
    if (mcp_said_.count(text) == 0 || again) feedback_.notify(text, level);
  };
  const mcp::Lookup lookup = mcp::environment_lookup();
  mcp::ServersConfig setup = mcp::servers_from_json(mcp_options_, lookup);
  if (!setup.error.empty()) say_mcp("toolhost: mcp: " + setup.error, "error", setup_ran);
  mcp_places_ = mcp::places_from_environment(project_root(mcp_root_));
  mcp::AcceptedServers accepted =
      mcp::load_accepted_servers(setup, mcp_places_, options_.state_dir, lookup);
  const char* path = std::getenv("PATH");
  for (mcp::ServerConfig& server : accepted.configured.servers) {
    if (server.error.empty() && server.url.empty() &&
        starts_toolhost_serve(server.stdio, "/proc/self/exe", path ? path : "")) {
      server.error = kServesItself;
    }
  }
  const std::string setup_prefix = std::string(mcp::kSetupSource) + ": ";
  for (const std::string& message : accepted.configured.messages) {
    say_mcp("toolhost: mcp: " + message, "warn", setup_ran && message.rfind(setup_prefix, 0) == 0);
  }
  for (const mcp::ServerConfig& server : accepted.configured.servers) {
    if (server.error.empty() || server.error == mcp::kNotAccepted) continue;
    const bool from_setup = server.source.empty() || server.source == mcp::kSetupSource;
    const std::string where = from_setup ? "mcp.servers." + server.name
                                         : "mcp: " + server.name + " (" + server.source + ")";
    say_mcp("toolhost: " + where + ": " + server.error, "error", setup_ran && from_setup);
  }
  mcp_said_ = std::move(said);
  const bool news = pending_digests(accepted.pending) != pending_digests(mcp_pending_);
  mcp_pending_ = std::move(accepted.pending);
  mcp_.servers().configure(std::move(accepted.configured.servers));
  if (!news || mcp_pending_.empty()) return;
  api_.exec_lua("require('toolhost.mcp_trust').pending_changed(...)",
                nlohmann::json::array({mcp::pending_to_json(mcp_pending_)}),
                [](const std::string&, nlohmann::json) {});
}

Host::Reply Host::mcp_project(const nlohmann::json& raw) {
  Args args(raw);
  std::string root = args.string("root");
  // A config file written in Neovim: read the files again even where the root stays.
  const bool reload = args.boolean_or("reload", false);
  if (!args.ok()) return core::error(args.error());
  if (root.empty() || root[0] != '/') return core::error("`root` must be an absolute path");
  if (root == mcp_root_ && !reload) return ok();
  mcp_root_ = std::move(root);
  if (mcp_configured_) {
    load_mcp(false);
    rebuild_tools();
  }
  return ok();
}

Host::Reply Host::mcp_pending(const nlohmann::json&) {
  const mcp::Lookup lookup = mcp::environment_lookup();
  mcp::ServersConfig setup = mcp::servers_from_json(mcp_options_, lookup);
  mcp::Places places = mcp::places_from_environment(project_root(mcp_root_));
  mcp::AcceptedServers now = mcp::load_accepted_servers(setup, places, options_.state_dir, lookup);
  return nlohmann::json{{"root", places.project_root},
                        {"pending", mcp::pending_to_json(now.pending)}};
}

Host::Reply Host::mcp_accept(const nlohmann::json& raw) {
  Args args(raw);
  std::string path = args.string("path");
  std::string digest = args.string("digest");
  if (!args.ok()) return core::error(args.error());
  auto file = mcp::project_file(mcp_places_, path);
  if (!file) {
    return core::error(path + " is not an MCP file of the project " + mcp_places_.project_root);
  }
  std::string error;
  if (!mcp::accept(options_.state_dir, *file, digest, error)) return core::error(error);
  load_mcp(false);
  rebuild_tools();
  return nlohmann::json{{"accepted", path}, {"pending", mcp::pending_to_json(mcp_pending_)}};
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

Host::Reply Host::mcp_elicited(const nlohmann::json& args) {
  auto done = elicitations_.answered(args);
  if (!done) return core::error(done.error());
  return ok();
}

Host::Reply Host::mcp_login(const nlohmann::json& raw) {
  Args args(raw);
  std::string name = args.string("name");
  if (!args.ok()) return core::error(args.error());
  // Answered at once: the sign-in takes a person's time; its end is a notification.
  mcp_.servers().login(name, [this, name](std::optional<std::string> error) {
    if (error) return feedback_.notify("toolhost: " + *error, "error");
    feedback_.notify("toolhost: signed in to MCP server " + name, "info");
  });
  return ok();
}

Host::Reply Host::mcp_logout(const nlohmann::json& raw) {
  Args args(raw);
  std::string name = args.string("name");
  if (!args.ok()) return core::error(args.error());
  auto done = mcp_.servers().logout(name);
  if (!done) return core::error(done.error());
  return ok();
}

void Host::send_sign_in(const std::string& server, const std::string& url,
                        const std::string& host) {
  api_.exec_lua("require('toolhost.mcp_signin').open(...)",
                nlohmann::json::array({server, url, host}),
                [](const std::string& error, const nlohmann::json&) {
                  if (!error.empty()) log::error("mcp: telling the user to sign in failed: " + error);
                });
}

void Host::send_question(const nlohmann::json& question, std::function<void()> failed) {
  // Lua asks from a scheduled callback and returns at once: neither side waits for the user.
  api_.exec_lua("require('toolhost.mcp_elicit').ask(...)",
                nlohmann::json::array({question, options_.instance}),
                [failed](const std::string& error, const nlohmann::json&) {
                  if (error.empty()) return;
                  log::error("mcp: asking the user failed: " + error);
                  failed();
                });
}

}  // namespace toolhost::server
