#pragma once
// One attached chat buffer: its line mirror, what the parser finds in it, and the tool calls
// it is running. The only place that joins parse, jobs, tools and the editor feedback.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/config.h"
#include "jobs/engine.h"
#include "nvim/api.h"
#include "parse/incremental.h"
#include "parse/types.h"
#include "quickfix/lists.h"
#include "results/output_tail.h"
#include "session/feedback.h"
#include "tools/editor.h"
#include "tools/remote.h"

namespace toolhost::session {

// The data of ToolhostJobStarted / ToolhostJobFinished (SPEC 8).
nlohmann::json job_event_data(const jobs::JobInfo& job, int64_t buf);

// Someone besides the buffer who waits on its calls: an outside agent whose call the host wrote
// into the agent's buffer (server/agent_backend.h). Told of a call's streamed lines as the block
// shows them, and of its end with the body its result block gets.
class CallObserver {
 public:
  virtual ~CallObserver() = default;
  virtual void call_output(int64_t buf, const std::string& call_id,
                           const std::vector<std::string>& lines) = 0;
  virtual void call_ended(int64_t buf, const std::string& call_id, const jobs::JobInfo& job,
                          const std::vector<std::string>& body) = 0;
  // A call started ahead went to a block the parse gave another id than the one predicted
  // (an identical block was typed above it, or a write above it failed): it is `to` from now.
  virtual void call_renamed(int64_t buf, const std::string& from, const std::string& to) = 0;
};

// What a session shares with the others; it reaches Neovim only through `feedback`.
struct Context {
  Feedback& feedback;
  jobs::Engine& engine;
  const core::Config& config;
  const parse::ToolTable& tools;
  tools::Editor* editor = nullptr;  // Neovim's side of Lua tools and loaded-buffer edits
  uv_loop_t* loop = nullptr;
  CallObserver* observer = nullptr;
  // The MCP servers' tools: how they run and what their policy reads (null: none).
  tools::RemoteTools* remote = nullptr;
  // Build and test output into quickfix lists (null: none).
  quickfix::Lists* quickfix = nullptr;
};

// What a job's quickfix list needs of it (session_quickfix.cc); `tools`: the custom tools,
// whose own `quickfix` setting wins.
quickfix::JobStart quickfix_start(const jobs::JobInfo& job,
                                  const std::vector<core::CustomTool>& tools);

class Session {
 public:
  // A job's started feedback (its record, ToolhostJobStarted, the running diagnostic) waits
  // this long for the job's end, to leave with it (Feedback::deferred).
  static constexpr uint64_t kStartedFeedbackDelayMs = 10;

  Session(Context context, int64_t buf, std::string root, std::string name);

  int64_t buf() const { return buf_; }
  // The buffer's key in history: its file's absolute path, or Neovim's pid and its number.
  const std::string& name() const { return name_; }
  // The mirror is loaded once the host has read the whole buffer (load); commands that came
  // earlier wait for it.
  void when_ready(std::function<void()> action);
  // Runs `answer` once the buffer has been read, or, when the session detaches first (the
  // buffer is gone, or never could be attached), at once then: whoever waits on it is
  // answered either way (toolhost.call).
  void when_read_or_detached(std::function<void()> answer);
  // The buffer as the host read it (server/buffer_reads.h), then each change after it; last =
  // -1 in an event also means the whole buffer.
  void load(std::vector<std::string> lines);
  void on_lines(const nvim::LinesEvent& event);
  // The mirror: what the host knows of the buffer's lines (toolhost.mirror).
  const std::vector<std::string>& mirror() const { return parser_.lines(); }
  // For toolhost.mirror's callers (tests): the calls as parsed here, each with its message,
  // row and status, and whether a fresh parse of the mirror finds the same calls and messages
  // (the incremental parser's invariant), with that parse's calls when it does not.
  nlohmann::json parse_check() const;

  // The user's run of the call at `row` (0-based), or, outside any block, of the first call
  // awaiting approval in the last assistant message. `force` re-runs a finished call without
  // asking (else Lua asks first).
  void run_at(int row, bool force);
  // The user declines the call at `row` (or the first awaiting one): a `rejected` result that
  // tells the model, with `reason` when given.
  void reject_at(int row, const std::string& reason);
  // :ToolRunAll: the pending calls of the last assistant message (only `ids` when given), in
  // order, one after another or, with `parallel`, all at once but a file edit alone.
  void run_all(const std::vector<std::string>& ids, bool parallel);
  // What run_all would run: { id, tool, row, auto, reason } per pending call.
  nlohmann::json run_all_plan() const;
  // The job `job_id` ran a call of this buffer: run that call again (jobs.rerun).
  bool rerun(const std::string& call_id);
  // The last assistant message is complete: a chat plugin said so (assistant_done, a User
  // autocmd), or, with `idle`, the buffer has been quiet since a change that was not
  // toolhost's own, made at `first_row` or below (Lua's timer). Its unclosed fence becomes an
  // error, and with auto-run on its auto-acceptable calls start (SPEC 4).
  void reply_complete(bool idle, int first_row);
  // A structured call from a chat plugin (submit(), SPEC 10.5): nothing is parsed; it gets
  // an extmark on rows [row, end_row), the same policy, job and feedback, and its result goes
  // back to the plugin (and into the buffer after end_row only with `write_result`).
  struct Submission {
    std::string id;  // the plugin's; one is made when empty
    std::string name;
    nlohmann::json arguments;  // an object, or a JSON-encoded string
    int row = 0;
    int end_row = 0;
    bool write_result = false;
  };
  void submit(Submission submission);
  // --- an outside agent's buffer (session_agent.cc) ---
  // The calls of this buffer are an agent's: approved in the order they arrived, whatever
  // message they are in.
  void set_agent_buffer(bool on) { agent_buffer_ = on; }
  // The call whose block starts at `row` (the host wrote it there), if the parse has it.
  const parse::ToolCall* call_starting_at(int row) const;
  // An agent's call: runs now when policy lets auto-run start it, else waits for approval
  // (:ToolRun / :ToolReject). False when it is not pending (ran already, or is running).
  bool start_agent_call(const std::string& call_id);
  // Ends an agent's call that it cancelled or left: a running one is canceled, a waiting one
  // rejected with `reason`. False when it is neither.
  bool end_agent_call(const std::string& call_id, const std::string& reason);
  // An agent's call started ahead of its block (P9: the agent waits for the tool, not for a
  // Neovim round trip): `message` is the assistant message the host is about to append to this
  // buffer. Its call as the parser will read it once appended, with the id the parse will give
  // it (`start` is -1); none when the message does not hold one complete call, or policy would
  // not auto-run it.
  std::optional<parse::ToolCall> agent_call_ahead(const std::vector<std::string>& message) const;
  // Starts that call now; false when it cannot start (its job is refused): then it goes the
  // way of any agent call, through its block. Its output and end reach the observer at once;
  // when the block shows up in the parse, the running job streams there, or the finished one's
  // result block is written under it.
  bool start_agent_call_ahead(const parse::ToolCall& call);
  // Lua wrote the message of a call started ahead at `row` (-1: it could not): the block
  // there is the call's, whatever id the parse gave it (an identical block typed above it, or
  // a failed write above it, shifts the count its id holds). A block that did not read back
  // as the call keeps nothing of it, and the job answers the agent only.
  void agent_block_written(const std::string& call_id, int row);
  bool running(const std::string& call_id) const { return active_.count(call_id) > 0; }
  // Whether auto-run runs this buffer's calls, and the keys the approval hint names.
  void set_auto_run(bool on) { auto_run_ = on; }
  void set_keys(std::string run, std::string reject);
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
  // (load), and results of jobs still running land again.
  void reattach(std::string root, std::string name);
  // The tool table changed (an MCP server's tools were listed or changed): the buffer is parsed
  // again with it, so a block naming such a tool becomes a call.
  void tools_changed();
  // The buffer's filetype decides its header style (CodeCompanion headings, llm-sidekick
  // names); other filetypes take the style of the first header.
  void set_filetype(std::string_view filetype);

 private:
  // Why a call starts: the chain and run-all continue after it.
  enum class Origin { User, Chain, RunAll };

  struct Active {
    Active(size_t stream_lines, size_t width) : tail(stream_lines, width) {}
    parse::ToolCall call;            // as it was when it started
    std::vector<std::string> block;  // the block's lines then: the conflict check expects them
    std::string job_id;
    uint64_t started_ns = 0;
    long shown_second = -1;
    results::OutputTail tail;
    bool stream_dirty = false;
    Origin origin = Origin::User;
    // The chain reached it while it ran (the user or :ToolRunAll started it): the chain goes
    // on, or stops, when it ends, as after a call of its own.
    bool chain_waits = false;
    std::optional<parse::ResultRef> replaces;  // a re-run: the old result block goes
    // An agent's call started ahead of its block: nothing of it shows in the buffer until the
    // parse places it (place_agent_call).
    bool placed = true;
  };
  // An agent's call started ahead that ended before its block was parsed: written then.
  struct EndedAhead {
    Origin origin = Origin::User;
    jobs::JobInfo job;
    std::vector<std::string> body;
    std::string message;
  };

  // After the mirror changed: feedback, and the first time the commands that waited.
  void after_change(bool more);
  // Brings extmarks and parse-error diagnostics in line with the parse after a change.
  void sync_feedback();
  const std::vector<std::string>& lines() const { return parser_.lines(); }
  using CallFilter = std::function<bool(const parse::ToolCall&)>;
  // The call whose block or result covers `row`: the first `preferred` one, else the first.
  const parse::ToolCall* call_at(int row, const CallFilter& preferred) const;
  // `automatic`: auto-run starts it without the user's approval (RunContext::automatic).
  void start(const parse::ToolCall& call, Origin origin = Origin::User, bool automatic = false);
  // start(), for a call whose block may not be in the mirror yet (`placed` false): then a job
  // the policy refuses is not recorded (false), and nothing shows until place_agent_call().
  bool launch(const parse::ToolCall& call, Origin origin, bool automatic, bool placed);
  // The parse found the block of an agent's call started ahead: it streams or gets its result.
  void place_agent_call(const parse::ToolCall& call);
  void on_finished(const std::string& call_id, const jobs::JobInfo& job);
  // A running job's elapsed time and new output lines, when they changed.
  void show_progress(const std::string& call_id, Active& active);
  // --- the agent loop (session_flow.cc) ---
  const parse::Message* last_assistant() const;
  std::vector<const parse::ToolCall*> reply_calls() const;
  // Pending: not run as far as the text, this session and the history of this buffer know.
  bool pending(const parse::ToolCall& call) const;
  const jobs::JobInfo* history_job(const std::string& call_id) const;
  // The first call awaiting approval in the last assistant message.
  const parse::ToolCall* first_awaiting() const;
  const parse::ToolCall* find_call(const std::string& id) const;
  void replace_mirror(std::vector<std::string> lines, int64_t tick);
  // The changedtick a call's rows were read at: the mirror's, or none for a submitted call
  // (its rows are the chat plugin's).
  int64_t mirror_tick(const std::string& call_id) const {
    return submitted_.count(call_id) ? 0 : tick_;
  }
  void continue_chain();
  void hold(const parse::ToolCall& call, const std::string& reason);
  void release(const std::string& call_id);
  void pump_run_all();
  // After a job of the last assistant message ended (or a call was rejected); `chained`: the
  // chain started it or waited for it.
  void after_handled(const std::string& call_id, core::Status status, bool chained, Origin origin);
  void maybe_all_done();
  std::string approval_hint(const std::string& tool) const;
  void finish_refused(const parse::ToolCall& call, const std::string& reason, Origin origin);
  // A pending call that ends without running (rejected by the user, canceled by its agent):
  // a job record with `status`, and `body` as its result.
  void end_unrun(const parse::ToolCall& call, core::Status status, const std::string& reason,
                 std::vector<std::string> body);
  // Runs `call` (the user's approval), or asks whether to run a finished one again.
  void run_call(const parse::ToolCall& call, bool force);
  // A pending-looking call that history says ran: its diagnostic says how it ended.
  void show_history(const parse::ToolCall& call);
  void take(const parse::ParseDelta& delta);                // into unsynced_
  std::vector<std::string> rows(int first, int end) const;  // of the mirror, clamped
  // --- results (session_results.cc) ---
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
  std::vector<std::function<void()>> answers_;  // when_read_or_detached
  parse::IncrementalParser parser_;
  parse::ParseDelta unsynced_;  // what changed since sync_feedback() last ran
  std::vector<parse::ParseError> shown_errors_;
  std::map<std::string, int> marked_;  // call id -> row its extmark was created at
  // The changedtick the mirror is at (that of the last lines event), sent with each mark; 0
  // after a read in slices, which is at no single tick (Lua then takes the rows as they are).
  int64_t tick_ = 0;
  std::map<std::string, Active> active_;  // by call id
  // The agent loop.
  bool auto_run_ = false;
  std::string run_key_ = ":ToolRun";
  std::string reject_key_ = ":ToolReject";
  std::vector<std::string> awaiting_;  // call ids held for approval, in buffer order
  bool chain_ = false;                 // auto-run goes on after each success
  std::deque<std::string> run_all_;    // :ToolRunAll's calls still to start
  bool run_all_parallel_ = false;
  struct Submitted {
    parse::ToolCall call;
    bool write_result = false;
  };
  std::map<std::string, Submitted> submitted_;  // submit()'s calls, by id
  uint64_t next_submission_ = 1;
  bool agent_buffer_ = false;
  // Agents' calls started ahead whose blocks the parse has not shown yet (running or ended),
  // and those of them that ended.
  std::set<std::string> ahead_;
  std::map<std::string, EndedAhead> ended_ahead_;
  // Calls started ahead whose block got another id than predicted: the job's events, which
  // name the predicted id, reach the block's.
  std::map<std::string, std::string> renamed_;
  const std::string& current_id(const std::string& call_id) const;
  // Moves a call started ahead from its predicted id to its block's (or aside, when its block
  // was not written), for the session and its observer.
  void rekey(const std::string& from, const std::string& to);
  bool taken_by_another(const std::string& block_id, const std::string& call_id) const;
  // Whether `block` reads as the call started ahead as `call_id` (its tool and parameters).
  bool same_call(const parse::ToolCall& block, const std::string& call_id) const;
  bool handled_ = false;  // a call of the last reply ran or was rejected since it completed
  bool all_done_sent_ = false;
  // Expires with the session: an answer from Neovim (an auto_accept function's) may come after
  // the host dropped a detached session that had no job running.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace toolhost::session
