// toolhost: runs the tool calls an LLM writes into a Neovim chat buffer.
//   toolhost --stdio [--state-dir D] [--cache-dir D] [--log-file F]   (started by Neovim)
//   toolhost parse FILE [--json] [--config FILE.json]
//   toolhost run FILE [--yes] [--dry-run] [--json] [--config FILE.json]
//   toolhost mcp serve [--socket PATH] [--approve all] [--config FILE.json]   (started by agents)
//   toolhost mcp list [SERVER] [--config FILE.json] | mcp call SERVER TOOL [JSON] [--config ...]
//   toolhost mcp accept [FILE] [--yes]   (the project's MCP files: see their commands, accept)
//   toolhost --version | --print-config
#include <sys/prctl.h>
#include <unistd.h>
#include <uv.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>

#include "base/log.h"
#include "cli/mcp_command.h"
#include "cli/mcp_login.h"
#include "cli/mcp_files.h"
#include "cli/parse_command.h"
#include "cli/run_command.h"
#include "cli/serve_command.h"
#include "cli/tools_command.h"
#include "core/config.h"
#include "rpc/peer.h"
#include "server/host.h"

namespace {

using namespace toolhost;

// Kill grace at shutdown: Neovim kills a job that outlives it by ~2 s (SPEC 6).
constexpr uint64_t kShutdownGraceMs = 300;
constexpr uint64_t kShutdownDeadlineMs = 900;

std::string xdg_dir(const char* variable, const char* fallback) {
  const char* value = std::getenv(variable);
  if (value && *value) return std::string(value) + "/nvim/toolhost";
  const char* home = std::getenv("HOME");
  return std::string(home ? home : ".") + "/" + fallback + "/nvim/toolhost";
}

int serve_stdio(const server::HostOptions& options) {
  // Die with Neovim even if it cannot close our stdin (SIGKILLed, crashed).
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() == 1) return 0;  // the parent is already gone
  std::signal(SIGPIPE, SIG_IGN);   // a closed channel is an EPIPE, not a death

  uv_loop_t* loop = uv_default_loop();
  rpc::Peer peer(loop);
  if (int rc = peer.open(0, 1)) {
    log::error(std::string("cannot open stdio: ") + uv_strerror(rc));
    return 1;
  }
  server::Host host(loop, peer, options);
  uv_signal_t sigterm{}, sighup{};
  uv_timer_t deadline{};
  bool stopping = false;

  auto stop = [&](const std::string& why) {
    if (stopping) return;
    stopping = true;
    log::info("shutting down: " + why);
    uv_timer_init(loop, &deadline);
    uv_unref(reinterpret_cast<uv_handle_t*>(&deadline));
    // Whatever is still pending then, the process exits on time.
    uv_timer_start(
        &deadline, [](uv_timer_t*) { std::_Exit(0); }, kShutdownDeadlineMs, 0);
    host.shutdown(kShutdownGraceMs, [&] {
      uv_close(reinterpret_cast<uv_handle_t*>(&sigterm), nullptr);
      uv_close(reinterpret_cast<uv_handle_t*>(&sighup), nullptr);
      uv_close(reinterpret_cast<uv_handle_t*>(&deadline), nullptr);
      peer.close("shutdown");
    });
  };
  peer.on_close([&](const std::string& reason) { stop(reason); });
  for (auto [handle, signum] : {std::pair{&sigterm, SIGTERM}, std::pair{&sighup, SIGHUP}}) {
    uv_signal_init(loop, handle);
    handle->data = &stop;
    uv_signal_start(
        handle,
        [](uv_signal_t* h, int sig) {
          (*static_cast<decltype(stop)*>(h->data))(std::string("signal ") + std::to_string(sig));
        },
        signum);
  }
  host.start();
  uv_run(loop, UV_RUN_DEFAULT);
  uv_loop_close(loop);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"toolhost: runs an LLM's tool calls for Neovim, outside the editor's loop"};
  app.set_version_flag("--version", "toolhost " TOOLHOST_VERSION);
  bool stdio = false;
  server::HostOptions options;
  options.version = TOOLHOST_VERSION;
  options.state_dir = xdg_dir("XDG_STATE_HOME", ".local/state");
  options.registry_state_dir = options.state_dir;  // what `toolhost mcp serve` reads
  options.cache_dir = xdg_dir("XDG_CACHE_HOME", ".cache");
  std::string log_file;
  std::string log_level = "warn";
  app.add_flag("--stdio", stdio, "Serve msgpack-RPC on stdin/stdout (how Neovim starts it)");
  app.add_option("--state-dir", options.state_dir, "Directory for job history");
  app.add_option("--cache-dir", options.cache_dir, "Directory for job logs");
  app.add_option("--log-file", log_file, "Log file (default: {cache dir}/toolhost.log)");
  app.add_option("--instance", options.instance,
                 "Names this host in its feedback batches (Lua drops those of a host it saw die)");
  app.add_option("--log-level", log_level, "debug, info, warn, error or off")
      ->check(CLI::IsMember({"debug", "info", "warn", "error", "off"}, CLI::ignore_case));
  cli::ParseCommand parse;
  CLI::App* parse_app =
      app.add_subcommand("parse", "Print the messages, tool calls and errors of a transcript");
  parse_app->add_option("file", parse.file, "The chat transcript")->required();
  parse_app->add_flag("--json", parse.json, "Print JSON (rows 0-based, end-exclusive)");
  parse_app->add_option("--config", parse.config_file, "setup() options as JSON (roles)");
  cli::RunCommand run;
  CLI::App* run_app = app.add_subcommand(
      "run", "Run a transcript's pending tool calls and write their results into it");
  run_app->add_option("file", run.file, "The chat transcript")->required();
  run_app->add_flag("--yes", run.yes, "Run every call, also those that need approval");
  run_app->add_flag("--dry-run", run.dry_run, "Say what would run or be held; change nothing");
  run_app->add_flag("--json", run.json, "Print one JSON object per call");
  run_app->add_option("--config", run.config_file, "setup() options as JSON");
  cli::ToolsCommand tools;
  CLI::App* tools_app = app.add_subcommand(
      "tools", "Print every tool with its JSON Schema, as require(\"toolhost\").tools()");
  tools_app->add_option("--format", tools.format, "openai, anthropic or mcp")
      ->check(CLI::IsMember({"openai", "anthropic", "mcp"}));
  tools_app->add_option("--config", tools.config_file, "setup() options as JSON (custom tools)");
  cli::ServeCommand serve;
  serve.version = TOOLHOST_VERSION;
  CLI::App* mcp_app =
      app.add_subcommand("mcp",
                         "MCP: serve outside agents (serve), use MCP servers (list, call, accept)")
          ->require_subcommand(1);
  CLI::App* serve_app = mcp_app->add_subcommand(
      "serve", "An MCP server on stdio for agents (Claude Code, codex, Gemini CLI, ...)");
  serve_app->add_option("--socket", serve.socket, "The toolhost host's socket to relay to")
      ->envname("TOOLHOST_SOCKET");
  serve_app->add_option("--approve", serve.approve, "all: run every call without approval")
      ->check(CLI::IsMember({"all"}));
  serve_app->add_option("--config", serve.config_file, "setup() options as JSON");
  cli::McpCommand mcp_command;
  mcp_command.version = TOOLHOST_VERSION;
  CLI::App* mcp_list_app =
      mcp_app->add_subcommand("list", "List the tools of the configured MCP servers");
  mcp_list_app->add_option("server", mcp_command.server, "Only this server");
  mcp_list_app->add_option("--config", mcp_command.config_file, "setup() options as JSON (mcp)");
  CLI::App* mcp_call_app =
      mcp_app->add_subcommand("call", "Call a tool of a configured MCP server, print its result");
  mcp_call_app->add_option("server", mcp_command.server, "The server's name")->required();
  mcp_call_app->add_option("tool", mcp_command.tool, "The tool's name")->required();
  mcp_call_app->add_option("arguments", mcp_command.arguments, "The arguments, a JSON object");
  mcp_call_app->add_option("--config", mcp_command.config_file, "setup() options as JSON (mcp)");
  CLI::App* mcp_login_app = mcp_app->add_subcommand(
      "login", "Sign in to an MCP server that asks for it (OAuth): prints the URL, opens $BROWSER");
  mcp_login_app->add_option("server", mcp_command.server, "The server's name")->required();
  mcp_login_app->add_option("--config", mcp_command.config_file, "setup() options as JSON (mcp)");
  CLI::App* mcp_logout_app = mcp_app->add_subcommand(
      "logout", "Forget an MCP server's sign-in (its tokens and client registration)");
  mcp_logout_app->add_option("server", mcp_command.server, "The server's name")->required();
  mcp_logout_app->add_option("--config", mcp_command.config_file, "setup() options as JSON (mcp)");
  CLI::App* mcp_accept_app = mcp_app->add_subcommand(
      "accept",
      "Show the commands of this project's MCP files (.mcp.json, .vscode/mcp.json), "
      "accept them");
  mcp_accept_app->add_option("file", mcp_command.file, "Only this file");
  mcp_accept_app->add_flag("--yes", mcp_command.yes, "Accept without asking (no terminal)");
  mcp_accept_app->add_option("--config", mcp_command.config_file, "setup() options as JSON (mcp)");
  bool print_config = false;
  app.add_flag("--print-config", print_config,
               "Print the defaults of the options the host reads, as JSON (setup() names)");
  CLI11_PARSE(app, argc, argv);

  if (print_config) {
    std::cout << core::config_to_json(core::Config{}).dump(2) << "\n";
    return 0;
  }

  if (parse_app->parsed()) return cli::run_parse_command(parse, std::cout, std::cerr);
  if (tools_app->parsed()) return cli::run_tools_command(tools, std::cout, std::cerr);
  // The MCP files are the current directory's project's; acceptances are kept with the history.
  mcp_command.state_dir = options.state_dir;
  if (char* cwd = ::getcwd(nullptr, 0)) {
    mcp_command.project_root = cwd;
    std::free(cwd);
  }
  if (mcp_list_app->parsed()) return cli::run_mcp_list(mcp_command, std::cout, std::cerr);
  if (mcp_call_app->parsed()) return cli::run_mcp_call(mcp_command, std::cout, std::cerr);
  if (mcp_login_app->parsed()) return cli::run_mcp_login(mcp_command, std::cout, std::cerr);
  if (mcp_logout_app->parsed()) return cli::run_mcp_logout(mcp_command, std::cout, std::cerr);
  if (mcp_accept_app->parsed()) {
    return cli::run_mcp_accept(mcp_command, std::cin, ::isatty(0) == 1, std::cout, std::cerr);
  }
  if (serve_app->parsed()) {
    serve.state_dir = options.state_dir;
    serve.cache_dir = options.cache_dir;
    return cli::run_serve_command(serve, std::cerr);
  }
  if (run_app->parsed()) {
    // The same history and logs as Neovim's host: job ids continue across both.
    run.state_dir = options.state_dir;
    run.cache_dir = options.cache_dir;
    run.progress = ::isatty(2) == 1;
    std::signal(SIGPIPE, SIG_IGN);  // a closed stdout is an error to report, not a death
    return cli::run_run_command(run, std::cout, std::cerr);
  }
  auto level = log::level_from_string(log_level).value_or(log::Level::Warn);
  if (!stdio) {
    std::cout << app.help();
    return 0;
  }
  if (log_file.empty()) log_file = options.cache_dir + "/toolhost.log";
  log::init(log_file, level);
  return serve_stdio(options);
}
