#pragma once
// Value types of the job engine. Knows nothing of Neovim or of tools.

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/config.h"
#include "core/status.h"

namespace toolhost::sandbox {
class Sandbox;
}

namespace toolhost::jobs {

// A job's status is a call's (SPEC 4): queued, running, then a finished one.
using core::is_finished;
using core::Status;
using core::status_from_string;
using core::to_string;

enum class Stream { Stdout, Stderr };

int64_t wall_clock_ms();
// The N of a job id "th-N" (decimal digits only); 0 for anything else.
uint64_t job_number(std::string_view id);

// What a job that is a function (a file tool) returns; it runs on libuv's threadpool.
struct TaskOutcome {
  int exit_code = 0;  // 0: succeeded; anything else: failed
  std::string out;    // the result's text
  std::string err;    // why it failed
};
using TaskFunction = std::function<TaskOutcome()>;
// A function that runs elsewhere and reports back through the loop (a Lua tool in Neovim, an
// edit of a loaded buffer): it gets `done`, to call once, on the loop thread; a `done` that
// comes after the job ended (timeout, cancel) is ignored.
using TaskDone = std::function<void(TaskOutcome)>;
using AsyncFunction = std::function<void(TaskDone done)>;
// A function on the loop that streams output and can be stopped (a call of an MCP server's
// tool): it gets `output`, for lines of the job's output (its stderr stream: what the call says
// while it works, not its result), and `done`, and returns the hook that stops it. On cancel,
// timeout or shutdown the job ends at once and then the hook runs with that status (the
// function tells whoever does the work); `output` and `done` after the job ended are ignored.
using OutputSink = std::function<void(std::string_view text)>;
using StopHook = std::function<void(Status reason)>;
using StreamFunction = std::function<StopHook(OutputSink output, TaskDone done)>;

struct JobSpec {
  // A process (argv), or a function: `task` on the threadpool, or `async` or `stream` when set.
  std::vector<std::string> argv;
  // Several processes, one after another, when set (instead of argv): the job stops at the
  // first step that fails; timeout_ms covers them all (a custom tool's `cmds`, SPEC 7).
  std::vector<std::vector<std::string>> steps;
  TaskFunction task;
  AsyncFunction async;
  StreamFunction stream;
  std::string cwd;
  std::vector<std::pair<std::string, std::string>> env;  // added to the inherited environment
  uint64_t timeout_ms = core::defaults::kTimeoutMs;      // 0 = no timeout
  int nice = 0;  // added to the host's nice for the job's process group (set by the engine)
  // Exit codes that mean success (grep and rg exit 1 when nothing matched).
  std::vector<int> ok_exit_codes{0};
  // A process runs in this kernel sandbox when set (issue #38; the tools' policy decides): its
  // environment without the variables that lead out (sandbox::dropped_environment), TMPDIR a
  // directory of its own, and the protected names it creates moved aside when it ends.
  std::shared_ptr<const sandbox::Sandbox> sandbox;
  // Recorded with the job (history, job lists); the engine does not interpret them.
  std::string call_id;
  std::string tool;
  nlohmann::json params;
  std::string buffer_name;
};

// What a job wrote on one stream: a head and a tail kept in memory, exact counts.
class Capture {
 public:
  static constexpr size_t kHeadBytes = 64 * 1024;
  static constexpr size_t kTailBytes = 1024 * 1024;

  void append(std::string_view data);
  const std::string& head() const { return head_; }
  // The last kTailBytes written after the head (fewer when less was written).
  std::string tail() const;
  uint64_t bytes() const { return bytes_; }
  uint64_t lines() const { return lines_; }
  bool ends_with_newline() const { return last_ == '\n'; }
  // Bytes neither in the head nor in the tail.
  uint64_t omitted_bytes() const;
  // The whole output when nothing was omitted, else head + tail.
  std::string text() const { return head_ + tail(); }
  // Frees the buffers; the counts stay.
  void release();
  // A job known only from history: counts without text.
  void restore_counts(uint64_t bytes, uint64_t lines);

 private:
  std::string head_;
  // A ring of at most kTailBytes: it grows until full, then `ring_pos_` is the oldest byte.
  std::string ring_;
  size_t ring_pos_ = 0;
  uint64_t bytes_ = 0;
  uint64_t lines_ = 0;
  char last_ = '\n';
};

struct JobInfo {
  std::string id;       // "th-7"
  uint64_t number = 0;  // the 7 of "th-7"
  JobSpec spec;
  Status status = Status::Queued;
  int pid = 0;
  int pgid = 0;
  // The leader's start time lies in [min, max] (clock ticks since boot, /proc/PID/stat's
  // field 22), read around its spawn: Neovim tells the job's group from a stranger's that got
  // its number with it, without reading /proc while the job execs (groups.lua). 0 when unknown.
  uint64_t leader_start_min = 0;
  uint64_t leader_start_max = 0;
  std::optional<int> exit_code;
  std::optional<int> term_signal;
  std::string error;          // why the job could not start, if it could not
  int64_t queued_at_ms = 0;   // wall clock
  int64_t started_at_ms = 0;  // wall clock; 0 = never started
  double duration_s = 0;      // monotonic
  std::string log_path;       // {cache_dir}/jobs/{id}.log; empty without a cache dir
  uint64_t log_bytes = 0;     // size of the log file (data, plus the trailer once capped)
  // The whole log of a job that wrote little and ended before its file was due (Engine's
  // hold_history): kept here and in its history line instead of a file.
  std::string inline_log;
  Capture out;
  Capture err;
  // A sandboxed job: where it ran (Sandbox::describe()), and the protected names it created,
  // each moved aside as "`.envrc` (now `.envrc.toolhost-th-3`)"; empty when unsandboxed.
  std::string sandbox;
  std::vector<std::string> moved_aside;
};

}  // namespace toolhost::jobs
