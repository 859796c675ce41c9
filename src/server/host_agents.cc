// The host's side of outside agents: Lua names the project (Neovim's root) once the host runs
// and whenever the directory changes; agents reach the host through the hub's socket.
#include "server/args.h"
#include "server/host.h"

namespace toolhost::server {

Host::Reply Host::serve_agents(const nlohmann::json& raw) {
  Args args(raw);
  std::string root = args.string_or("root", "");
  if (!args.ok()) return core::error(args.error());
  if (root.empty() || root[0] != '/') return core::error("`root` must be an absolute path");
  auto served = agents_.serve(root);
  if (!served) return core::error("agents cannot reach this Neovim: " + served.error());
  return nlohmann::json{{"socket", *served}};
}

}  // namespace toolhost::server
