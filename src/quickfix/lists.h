#pragma once
// The quickfix lists of every call that has one (issue #39): which format a job's command
// gets, its CallList in the worker while it runs, and the updates the editor applies (one
// list per call, replaced when the call runs again, diagnostics per call). Nothing of a list
// stays here once it is done: the editor holds the lists (the views that list them,
// :ToolSendQuickfix and the get_quickfix tool, read them there).
//
// An update, as Lua's quickfix.lua applies it: { call, job, title, source, diagnostics,
// first (a new list: replaces the call's), items = { qf items }, done }.

#include <uv.h>

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.h"
#include "quickfix/call_list.h"
#include "quickfix/worker.h"

namespace toolhost::quickfix {

// A job that started, as far as its list needs it.
struct JobStart {
  std::string call_id;
  std::string job_id;
  std::string tool;
  std::string command;             // what the title shows
  std::vector<std::string> words;  // the command's words, for the format's choice
  std::optional<core::QuickfixFormat> tool_format;
  std::string cwd;
  std::string log_path;
};

// The diagnostics' `source`: the program's word, else the tool's name.
std::string source_of(const JobStart& job);
// `toolhost: <command> (#<job id>)`, the command cut at 80 characters.
std::string list_title(const std::string& command, const std::string& job_id);

class Lists {
 public:
  using Send = std::function<void(nlohmann::json update)>;
  using Notify = std::function<void(const std::string& message)>;

  Lists(uv_loop_t* loop, Send send, Notify notify);
  ~Lists();
  Lists(const Lists&) = delete;
  Lists& operator=(const Lists&) = delete;

  // The Neovim binary the worker runs (Lua's v:progpath); empty: no lists.
  void set_nvim(std::string path) { nvim_ = std::move(path); }
  void set_config(const core::QuickfixConfig& config) { config_ = config; }

  // A job started: its list when its command has a format. False when it gets none.
  bool start(const JobStart& job);
  void output(const std::string& job_id, int stream, std::string_view data);
  void finish(const std::string& job_id);

  // Jobs whose list is still being parsed.
  size_t running() const { return running_.size(); }
  // The worker, once started (tests, :checkhealth).
  Worker* worker() { return worker_.get(); }

  // Ends the worker and the timer; `done` once their handles are closed (then it may go).
  void close(std::function<void()> done);

 private:
  struct Running {
    std::string call_id;
    std::unique_ptr<CallList> list;
    bool sent_first = false;
    bool failed = false;
  };
  void update(const std::string& job_id, std::vector<nlohmann::json> items, bool done);
  static void on_flush(uv_timer_t* timer);
  void failed(const std::string& job_id, const std::string& error);

  uv_loop_t* loop_;
  Send send_;
  Notify notify_;
  std::string nvim_;
  core::QuickfixConfig config_;
  std::unique_ptr<Worker> worker_;
  uv_timer_t flush_timer_{};                // runs while a list does, sends their waiting lines
  std::map<std::string, Running> running_;  // by job id
  std::vector<std::unique_ptr<CallList>> ended_;
  std::map<std::string, nlohmann::json> headers_;  // by job id: the update's fixed fields
  bool failure_said_ = false;  // the worker's failure was told; again only after a success
  bool closed_ = false;
  bool timer_open_ = true;
  std::function<void()> on_closed_;
};

}  // namespace toolhost::quickfix
