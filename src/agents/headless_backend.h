#pragma once
// `toolhost mcp serve` with no Neovim to relay to (SPEC 13.5): the agent's calls run here, on
// toolhost's job engine, with `toolhost run`'s policy: what auto-run may start runs; what needs
// approval is answered with an `isError` result saying that approval needs Neovim, unless the
// server was started with `--approve all`. Jobs share Neovim's history, so `:ToolJobs` lists
// them.

#include <uv.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/config.h"
#include "jobs/engine.h"
#include "mcp/server.h"
#include "results/output_tail.h"

namespace toolhost::agents {

class HeadlessBackend : public mcp::ToolBackend {
 public:
  struct Options {
    core::Config config;
    std::string root;          // the agent's working directory: paths are confined to it
    bool approve_all = false;  // `--approve all`: every call runs, as `toolhost run --yes`
    std::string state_dir;     // the job history (Neovim's host reads the same)
    std::string cache_dir;     // the job logs
  };

  // Lines of output a progress notification carries.
  static constexpr size_t kProgressLines = 5;

  HeadlessBackend(uv_loop_t* loop, Options options);
  ~HeadlessBackend() override;
  HeadlessBackend(const HeadlessBackend&) = delete;
  HeadlessBackend& operator=(const HeadlessBackend&) = delete;

  std::vector<mcp::Tool> tools() override { return tools_; }
  void start(Call call, Sink sink) override;
  // Why `call` needs an approval nobody here can give; nullopt when it would run.
  std::optional<std::string> approval_needed(const Call& call) const;
  void cancel(uint64_t id, const std::string& reason) override;

  // Ends every job (SIGTERM, SIGKILL after the config's kill grace); `done` runs once they are
  // gone. Call before destroying the backend, and let the loop run.
  void shutdown(std::function<void()> done);

 private:
  struct Running {
    std::string job;
    Sink sink;
    results::OutputTail tail{kProgressLines};
    bool unsent = false;  // output came since the agent's sink last heard of it
  };

  void output(uint64_t id, jobs::Stream stream, std::string_view data);
  void flush_output();

  uv_loop_t* loop_;
  Options options_;
  std::vector<mcp::Tool> tools_;
  jobs::Engine engine_;
  std::map<uint64_t, Running> running_;
  uv_timer_t* output_timer_;  // freed by its close callback
};

}  // namespace toolhost::agents
