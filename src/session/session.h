#pragma once
// One attached chat buffer: its line mirror, what the parser finds in it, and the tool calls
// it is running. The only place that joins parse, jobs, tools and the editor feedback.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/config.h"
#include "jobs/engine.h"
#include "nvim/api.h"
#include "parse/incremental.h"
#include "parse/types.h"
#include "session/feedback.h"
#include "session/output_tail.h"
#include "tools/editor.h"

namespace toolhost::session {

// What a session shares with the others; it reaches Neovim only through `feedback`.
struct Context {
  Feedback& feedback;
  jobs::Engine& engine;
  const core::Config& config;
  const parse::ToolTable& tools;
  tools::Editor* editor = nullptr;  // Neovim's side of Lua tools and loaded-buffer edits
  uv_loop_t* loop = nullptr;
};

class Session {
 public:
  Session(Context context, int64_t buf, std::string root, std::string name);

  int64_t buf() const { return buf_; }
  // The mirror is loaded once the initial nvim_buf_lines_event arrived; commands that came
  // earlier wait for it.
  void when_ready(std::function<void()> action);
  void on_lines(const nvim::LinesEvent& event);

  // The user's run of the call at `row` (0-based). `force` re-runs a finished call.
  void run_at(int row, bool force);
  // Cancels the running call at `row`; false when there is none.
  bool cancel_at(int row);
  bool has_active() const { return !active_.empty(); }
  // Streams output and refreshes running diagnostics; called by the host's ticker.
  void tick();
  // The buffer is gone or no longer watched: forget its calls (their jobs still finish into
  // history).
  void detach();
  bool detached() const { return detached_; }
  // Watched again (:ToolAttach after :ToolDetach while a job ran): the buffer is read anew
  // from the next initial lines event, and results of jobs still running land again.
  void reattach(std::string root, std::string name);
  // The buffer's filetype decides its header style (CodeCompanion headings, llm-sidekick
  // names); other filetypes take the style of the first header.
  void set_filetype(std::string_view filetype);

 private:
  struct Active {
    explicit Active(size_t stream_lines) : tail(stream_lines) {}
    parse::ToolCall call;            // as it was when it started
    std::vector<std::string> block;  // the block's lines then: the conflict check expects them
    std::string job_id;
    uint64_t started_ns = 0;
    long shown_second = -1;
    OutputTail tail;
    bool stream_dirty = false;
  };

  // Brings extmarks and parse-error diagnostics in line with the parse after a change.
  void sync_feedback();
  const std::vector<std::string>& lines() const { return parser_.lines(); }
  using CallFilter = std::function<bool(const parse::ToolCall&)>;
  // The call whose block or result covers `row`: the first `preferred` one, else the first.
  const parse::ToolCall* call_at(int row, const CallFilter& preferred) const;
  void start(const parse::ToolCall& call);
  void on_finished(const jobs::JobInfo& job);
  void finish_refused(const parse::ToolCall& call, const std::string& reason);
  // Rewrites the block to its executed form with the result block under it.
  void write_result(const parse::ToolCall& call, const std::vector<std::string>& block,
                    const jobs::JobInfo& job, std::vector<std::string> body,
                    const std::string& message);
  void announce_finished(const jobs::JobInfo& job);
  // A fenced block keeps its text: its result goes after it, after those of its lower parts.
  void place_after_earlier_parts(const parse::ToolCall& call, Feedback::Rewrite& rewrite) const;
  bool starts_message(std::string_view line) const;

  Context ctx_;
  int64_t buf_;
  std::string root_;
  std::string name_;
  bool ready_ = false;
  bool detached_ = false;
  std::vector<std::function<void()>> waiting_;
  parse::IncrementalParser parser_;
  parse::ParseDelta unsynced_;  // what changed since sync_feedback() last ran
  std::vector<parse::ParseError> shown_errors_;
  std::map<std::string, int> marked_;     // call id -> row its extmark was created at
  std::map<std::string, Active> active_;  // by call id
};

}  // namespace toolhost::session
