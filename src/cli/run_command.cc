#include "cli/run_command.h"

#include <uv.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <set>

#include "cli/run_report.h"
#include "cli/run_rewrite.h"
#include "cli/transcript.h"
#include "core/tool_table.h"
#include "jobs/engine.h"
#include "mcp/oauth_store.h"
#include "parse/parser.h"
#include "results/format.h"
#include "results/result_block.h"
#include "tools/policy.h"
#include "tools/runner.h"

namespace toolhost::cli {
namespace {
namespace fs = std::filesystem;

std::string absolute(const std::string& path) {
  std::error_code ec;
  fs::path full = fs::absolute(path, ec);
  return ec ? path : full.lexically_normal().string();
}

// One run over one transcript: a private loop and, once a call runs, a job engine on it.
class Runner {
 public:
  Runner(const RunCommand& command, core::Config config, std::string root, std::ostream& out,
         std::ostream& err)
      : command_(command),
        config_(std::move(config)),
        root_(std::move(root)),
        name_(absolute(command.file)),
        err_(err),
        reporter_(out, err, command.json, command.progress, command.dry_run) {
    uv_loop_init(&loop_);
    options_.tools = core::tool_table_for(config_);
    options_.roles = config_.roles;
    options_.complete = true;  // a file is not streaming: an unclosed fence is an error
  }
  ~Runner() {
    stop_engine();
    uv_loop_close(&loop_);
  }
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  int run(const std::string& text);

 private:
  struct Signal {
    uv_signal_t handle{};
    Runner* runner = nullptr;
  };

  jobs::Engine& engine();
  // Runs the job to its end on the loop; its record, with its output.
  jobs::JobInfo run_job(jobs::JobSpec spec);
  jobs::JobInfo refuse(const parse::ToolCall& call, const std::string& reason);
  void on_signal(int signum);
  void stop_engine();
  core::Result<bool> save();

  const RunCommand& command_;
  core::Config config_;
  std::string root_;
  std::string name_;  // the transcript, as jobs record it (a buffer's name in Neovim)
  std::ostream& err_;
  Reporter reporter_;
  parse::Options options_;
  Transcript transcript_;
  std::string on_disk_;  // the file's bytes as this run last read or wrote them
  uv_loop_t loop_{};
  std::unique_ptr<jobs::Engine> engine_;
  Signal signals_[3];
  std::string running_;  // the id of the job now running
  int stopped_by_ = 0;   // the signal that stops the run
};

jobs::Engine& Runner::engine() {
  if (engine_) return *engine_;
  jobs::EngineOptions options;
  options.state_dir = command_.state_dir;
  options.cache_dir = command_.cache_dir;
  engine_ = std::make_unique<jobs::Engine>(&loop_, jobs::with_config(std::move(options), config_));
  // A job runs in its own process group, out of reach of the terminal's ^C: the run cancels it
  // (and writes its `canceled` result) instead of leaving it behind.
  const int signums[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < std::size(signals_); ++i) {
    signals_[i].runner = this;
    signals_[i].handle.data = &signals_[i];
    uv_signal_init(&loop_, &signals_[i].handle);
    uv_signal_start(
        &signals_[i].handle,
        [](uv_signal_t* h, int signum) {
          static_cast<Signal*>(h->data)->runner->on_signal(signum);
        },
        signums[i]);
    uv_unref(reinterpret_cast<uv_handle_t*>(&signals_[i].handle));
  }
  return *engine_;
}

void Runner::on_signal(int signum) {
  if (!stopped_by_) stopped_by_ = signum;
  if (!running_.empty()) engine_->cancel(running_);
}

jobs::JobInfo Runner::run_job(jobs::JobSpec spec) {
  std::optional<jobs::JobInfo> done;
  jobs::JobEvents events;
  // Copied inside the callback: the engine releases the output once it returns.
  events.finished = [&done](const jobs::JobInfo& job) { done = job; };
  running_ = engine().submit(std::move(spec), std::move(events));
  if (stopped_by_) engine_->cancel(running_);
  while (!done && uv_run(&loop_, UV_RUN_ONCE) != 0) {
  }
  running_.clear();
  if (done) return std::move(*done);
  // Nothing left on the loop and no end: an engine bug, reported as the call's failure.
  jobs::JobInfo lost;
  lost.status = core::Status::Failed;
  lost.error = "the job did not finish";
  return lost;
}

jobs::JobInfo Runner::refuse(const parse::ToolCall& call, const std::string& reason) {
  // As Session::finish_refused: a refusal is a finished call with a `failed` result.
  jobs::JobSpec spec;
  spec.tool = call.tool;
  spec.call_id = call.id;
  spec.params = call.params;
  spec.buffer_name = name_;
  return engine().refuse(std::move(spec), reason);
}

void Runner::stop_engine() {
  if (engine_) {
    bool done = false;
    engine_->shutdown(config_.kill_grace_ms, [&done] { done = true; });
    while (!done && uv_run(&loop_, UV_RUN_ONCE) != 0) {
    }
    engine_.reset();
    for (auto& signal : signals_) uv_close(reinterpret_cast<uv_handle_t*>(&signal.handle), nullptr);
  }
  uv_run(&loop_, UV_RUN_DEFAULT);  // close callbacks
}

core::Result<bool> Runner::save() {
  // The conflict rule of a chat buffer: text someone changed meanwhile is never overwritten.
  auto now = read_file_text(command_.file);
  if (!now) return core::error(now.error());
  if (*now != on_disk_) return core::error(command_.file + " changed while the call ran");
  std::string text = join_transcript(transcript_);
  auto written = write_file_atomically(command_.file, text);
  if (!written) return written;
  on_disk_ = std::move(text);
  return true;
}

std::string failure_reason(const jobs::JobInfo& job) {
  std::string message = results::finished_message(job);
  const std::string prefix = "✗ " + job.spec.tool + ": ";
  return message.compare(0, prefix.size(), prefix) == 0 ? message.substr(prefix.size()) : message;
}

int Runner::run(const std::string& text) {
  on_disk_ = text;
  transcript_ = split_transcript(text);
  parse::ParseResult parsed = parse::parse(transcript_.lines, options_);
  for (const auto& error : parsed.errors) reporter_.parse_error(error);
  // Only the calls pending now: a result's text never becomes a call that runs.
  std::set<std::string> pending;
  for (const auto& call : parsed.calls) {
    if (call.status == core::Status::Pending) pending.insert(call.id);
  }
  const size_t total = pending.size();
  bool failed = false;
  for (size_t index = 1; !pending.empty(); ++index) {
    auto it = std::find_if(parsed.calls.begin(), parsed.calls.end(), [&](const auto& c) {
      return c.status == core::Status::Pending && pending.count(c.id);
    });
    if (it == parsed.calls.end()) break;  // edited away by an earlier call's tool
    const parse::ToolCall& call = *it;
    pending.erase(call.id);
    if (engine_) uv_run(&loop_, UV_RUN_NOWAIT);  // a signal that came while the file was written
    if (stopped_by_) break;

    CallReport report = report_for(call);
    tools::Approval approval{tools::Approval::Verdict::Yes, "--yes"};
    if (!command_.yes) approval = tools::auto_accept(call, config_, root_);
    if (approval.verdict == tools::Approval::Verdict::AskLua) {
      approval.reason += " (a Lua function: only Neovim can ask it)";
    }
    reporter_.starting(report, index, total);
    if (!approval.auto_run()) {
      report.status = "held";
      report.reason = approval.reason;
      reporter_.finished(report);
      continue;
    }
    tools::RunContext context{config_, root_};
    context.automatic = !command_.yes;
    auto spec = tools::job_for(call, context);
    if (command_.dry_run) {
      report.status = spec ? "would_run" : "would_refuse";
      report.reason = spec ? approval.reason : spec.error();
      reporter_.finished(report);
      continue;
    }
    jobs::JobInfo job;
    std::vector<std::string> body;
    if (spec) {
      spec->buffer_name = name_;
      job = run_job(std::move(*spec));
      body = result_body(job, config_);
      report.reason = job.status == core::Status::Succeeded ? approval.reason : failure_reason(job);
      report.duration_s = job.duration_s;
    } else {
      job = refuse(call, spec.error());
      body = results::refused_body(spec.error());
      report.reason = "refused: " + spec.error();
    }
    report.status = std::string(core::to_string(job.status));
    report.job_id = job.id;
    report.exit_code = job.exit_code;
    write_result(transcript_.lines, parsed.calls, call, job, std::move(body), config_);
    if (auto saved = save(); !saved) {
      reporter_.finished(report);
      err_ << "toolhost run: the result of " << job.id << " is not written: " << saved.error()
           << "\n";
      return 2;
    }
    reporter_.finished(report);
    failed = failed || job.status != core::Status::Succeeded;
    parsed = parse::parse(transcript_.lines, options_);
  }
  reporter_.summary();
  if (stopped_by_) return 128 + stopped_by_;
  return failed ? 1 : 0;
}

}  // namespace

int run_run_command(const RunCommand& command, std::ostream& out, std::ostream& err) {
  auto config = read_config(command.config_file);
  auto text = config ? read_file_text(command.file) : core::error(config.error());
  if (!text) {
    err << "toolhost run: " << text.error() << "\n";
    return 2;
  }
  std::error_code ec;
  std::string root = command.root.empty() ? fs::current_path(ec).string() : command.root;
  if (root.empty()) {
    err << "toolhost run: no current directory: " << ec.message() << "\n";
    return 2;
  }
  // The MCP sign-in records stay out of every sandboxed command's reach (a dry run runs none,
  // and changes nothing).
  std::string hide_error;
  if (!command.dry_run && !mcp::hide_oauth_records(*config, command.state_dir, hide_error)) {
    err << "toolhost run: " << hide_error << "\n";
  }
  Runner runner(command, std::move(*config), std::move(root), out, err);
  return runner.run(*text);
}

}  // namespace toolhost::cli
