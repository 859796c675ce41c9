#include "cli/serve_command.h"

#include <uv.h>

#include <csignal>
#include <filesystem>
#include <ostream>

#include "agents/headless_backend.h"
#include "cli/transcript.h"
#include "jsonrpc/stream_transport.h"
#include "mcp/server.h"

namespace toolhost::cli {
namespace {

// Runs the agent's calls here until it goes away or a signal comes; the jobs end with it.
int serve_headless(uv_loop_t* loop, agents::HeadlessBackend::Options options,
                   const std::string& version, std::ostream& err) {
  agents::HeadlessBackend backend(loop, std::move(options));
  mcp::Server server(loop, jsonrpc::StreamTransport::from_fds(loop, 0, 1), backend,
                     mcp::Server::Info{"toolhost", version, {}});
  uv_signal_t signals[3];
  bool stopping = false;
  auto stop = [&] {
    if (stopping) return;
    stopping = true;
    backend.shutdown([&] {
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
  std::string error;
  if (!server.start(error)) {
    err << "toolhost mcp serve: " << error << "\n";
    stop();
    uv_run(loop, UV_RUN_DEFAULT);
    return 2;
  }
  uv_run(loop, UV_RUN_DEFAULT);
  return 0;
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
  agents::HeadlessBackend::Options options;
  options.config = std::move(*config);
  options.root = root;
  options.approve_all = command.approve == "all";
  options.state_dir = command.state_dir;
  options.cache_dir = command.cache_dir;
  err << "toolhost mcp serve: no Neovim serves " << root
      << (options.approve_all ? ": running every call here (--approve all)\n"
                              : ": running calls here; those that need approval are refused\n");
  uv_loop_t loop;
  uv_loop_init(&loop);
  int status = serve_headless(&loop, std::move(options), command.version, err);
  uv_run(&loop, UV_RUN_DEFAULT);  // close callbacks
  uv_loop_close(&loop);
  return status;
}

}  // namespace toolhost::cli
