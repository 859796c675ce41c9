#include "cli/serve_command.h"

#include <unistd.h>
#include <uv.h>

#include <csignal>
#include <filesystem>
#include <ostream>

#include "agents/headless_backend.h"
#include "agents/host_seeking_backend.h"
#include "cli/transcript.h"
#include "jsonrpc/stream_transport.h"
#include "mcp/host_registry.h"
#include "mcp/oauth_store.h"
#include "mcp/relay.h"
#include "mcp/server.h"

namespace toolhost::cli {
namespace {

// Runs the agent's calls here until it goes away or a signal comes; the jobs end with it. A
// call that needs approval looks for a Neovim host again (`find_host`) and, once one serves the
// project, the calls go there. `handover`: the session a relayed host left, to go on with.
int serve_headless(uv_loop_t* loop, agents::HeadlessBackend::Options options,
                   agents::HostSeekingBackend::FindHost find_host, const std::string& version,
                   const mcp::Relay::Handover* handover, std::ostream& err) {
  agents::HeadlessBackend local(loop, std::move(options));
  agents::HostSeekingBackend backend(loop, local, std::move(find_host), version,
                                     [&err](const std::string& message) {
                                       err << "toolhost mcp serve: " << message << std::endl;
                                     });
  auto transport = jsonrpc::StreamTransport::from_fds(loop, 0, 1);
  if (handover) transport->set_unread(handover->unread);
  mcp::Server server(loop, std::move(transport), backend, mcp::Server::Info{"toolhost", version, {}});
  std::string error;
  if (handover && !handover->initialize.is_null() && !server.resume(handover->initialize, error)) {
    err << "toolhost mcp serve: cannot go on with the agent's session: " << error << "\n";
  }
  uv_signal_t signals[3];
  bool stopping = false;
  auto stop = [&] {
    if (stopping) return;
    stopping = true;
    local.shutdown([&] {
      for (auto& signal : signals) uv_close(reinterpret_cast<uv_handle_t*>(&signal), nullptr);
    });
  };
  server.on_closed([&](const std::string&) { stop(); });
  const int signums[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < std::size(signals); ++i) {
    uv_signal_init(loop, &signals[i]);
    signals[i].data = &server;
    uv_signal_start(
        &signals[i],
        [](uv_signal_t* handle, int signum) {
          static_cast<mcp::Server*>(handle->data)->close("signal " + std::to_string(signum));
        },
        signums[i]);
  }
  if (!server.start(error)) {
    err << "toolhost mcp serve: " << error << "\n";
    stop();
    uv_run(loop, UV_RUN_DEFAULT);
    return 2;
  }
  uv_run(loop, UV_RUN_DEFAULT);
  return 0;
}

// The Neovim host whose project holds `root`, from the registry; what was odd on the way goes
// to `err`.
std::optional<mcp::HostEntry> registered_host(const std::string& state_dir,
                                              const std::string& root, std::ostream& err) {
  std::string error;
  auto dir = mcp::socket_dir(state_dir, error);
  if (!dir) {
    err << "toolhost mcp serve: no host registry: " << error << "\n";
    return std::nullopt;
  }
  std::vector<std::string> warnings;
  std::optional<mcp::HostEntry> host = mcp::find_host(*dir, root, &warnings);
  for (const auto& warning : warnings) err << "toolhost mcp serve: " << warning << "\n";
  return host;
}

// The socket of the host to relay to: the one named, or the Neovim host whose project holds
// `root`. Empty when there is none (then the calls run here); nullopt when the named one is
// unusable (an error to report, not a reason to run unapproved calls here).
std::optional<std::string> host_socket(const ServeCommand& command, const std::string& root,
                                       std::ostream& err) {
  std::string error;
  if (!command.socket.empty()) {
    if (!mcp::check_socket(command.socket, error)) {
      err << "toolhost mcp serve: " << error << "\n";
      return std::nullopt;
    }
    err << "toolhost mcp serve: relaying to the host at " << command.socket << "\n";
    return command.socket;
  }
  std::optional<mcp::HostEntry> host = registered_host(command.state_dir, root, err);
  if (!host) return std::string();
  err << "toolhost mcp serve: relaying to the Neovim host (pid " << host->pid << ") serving "
      << host->root << " at " << host->socket << "\n";
  return host->socket;
}

// Pumps the agent's lines to the host and back until either side goes. With `handover`, a host
// that goes first leaves the agent's session there for this process to go on with; without, it
// is the agent's server exiting (stderr says why). False when the host cannot be reached.
bool relay(uv_loop_t* loop, const std::string& socket, std::optional<mcp::Relay::Handover>* handover,
           std::ostream& err) {
  std::string error, ended;
  bool done = false;
  mcp::Relay::Options options;
  options.log = [&err](const std::string& message) {
    err << "toolhost mcp serve: " << message << "\n";
  };
  if (handover) {
    options.host_gone = [&](mcp::Relay::Handover next) {
      ended = next.reason;
      *handover = std::move(next);
      done = true;
    };
  }
  // Copies of the standard streams: the relay closes its own, and what comes after it reads
  // the agent on these.
  const int in = ::dup(0), out = ::dup(1);
  auto relay = mcp::Relay::start(
      loop, in, out, socket,
      [&](const std::string& reason) {
        done = true;
        ended = reason;
      },
      error, options);
  if (!relay) {
    for (int fd : {in, out}) {
      if (fd >= 0) ::close(fd);
    }
    err << "toolhost mcp serve: cannot reach the host: " << error << "\n";
    return false;
  }
  while (!done && uv_run(loop, UV_RUN_ONCE) != 0) {
  }
  if (handover && *handover) {
    err << "toolhost mcp serve: the Neovim host went away (" << ended << ")";
    if ((*handover)->calls_failed > 0) {
      err << "; the " << (*handover)->calls_failed << " call(s) it owed were answered as failed";
    }
    err << ": running calls here until one serves the project again\n";
  } else {
    err << "toolhost mcp serve: " << ended << "\n";
  }
  return true;
}

}  // namespace

int run_serve_command(const ServeCommand& command, std::ostream& err) {
  auto config = read_config(command.config_file);
  if (!config) {
    err << "toolhost mcp serve: " << config.error() << "\n";
    return 2;
  }
  std::error_code ec;
  std::string root =
      command.root.empty() ? std::filesystem::current_path(ec).string() : command.root;
  if (root.empty()) {
    err << "toolhost mcp serve: no current directory: " << ec.message() << "\n";
    return 2;
  }
  std::signal(SIGPIPE, SIG_IGN);  // an agent gone is a closed pipe, not a death
  std::optional<std::string> socket = host_socket(command, root, err);
  if (!socket) return 2;
  uv_loop_t loop;
  uv_loop_init(&loop);
  std::optional<mcp::Relay::Handover> handover;
  if (!socket->empty()) {
    // A host the agent named ends the session with it; one found in the registry leaves it to
    // this process, which runs the calls here and looks for the next host.
    const bool named = !command.socket.empty();
    const bool connected = relay(&loop, *socket, named ? nullptr : &handover, err);
    if (named || (connected && !handover)) {
      uv_run(&loop, UV_RUN_DEFAULT);
      uv_loop_close(&loop);
      return connected ? 0 : 2;
    }
  }
  agents::HeadlessBackend::Options options;
  options.config = std::move(*config);
  options.root = root;
  options.approve_all = command.approve == "all";
  options.state_dir = command.state_dir;
  options.cache_dir = command.cache_dir;
  // The MCP sign-in records stay out of every sandboxed command's reach.
  std::string hide_error;
  if (!mcp::hide_oauth_records(options.config, command.state_dir, hide_error)) {
    err << "toolhost mcp serve: " << hide_error << "\n";
  }
  if (!handover) {
    err << "toolhost mcp serve: no Neovim serves " << root
        << (options.approve_all ? ": running every call here (--approve all)\n"
                                : ": running calls here; those that need approval are refused\n");
  }
  auto find_host = [state_dir = command.state_dir, root, &err]() -> std::optional<std::string> {
    std::optional<mcp::HostEntry> host = registered_host(state_dir, root, err);
    if (!host) return std::nullopt;
    err << "toolhost mcp serve: found the Neovim host (pid " << host->pid << ") serving "
        << host->root << " at " << host->socket << "\n";
    return host->socket;
  };
  int status = serve_headless(&loop, std::move(options), std::move(find_host), command.version,
                              handover ? &*handover : nullptr, err);
  uv_run(&loop, UV_RUN_DEFAULT);  // close callbacks
  uv_loop_close(&loop);
  return status;
}

}  // namespace toolhost::cli
