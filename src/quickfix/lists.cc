#include "quickfix/lists.h"

#include "base/log.h"
#include "quickfix/format_choice.h"
#include "quickfix/worker_lua.h"

namespace toolhost::quickfix {

std::string list_title(const std::string& command, const std::string& job_id) {
  constexpr size_t kMaxCommand = 80;
  std::string shown = command.substr(0, command.find('\n'));
  if (shown.size() > kMaxCommand) {
    size_t cut = kMaxCommand;
    while (cut > 0 && (static_cast<unsigned char>(shown[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
    shown = shown.substr(0, cut) + "…";
  }
  return "toolhost: " + shown + " (#" + job_id + ")";
}

// The diagnostics' `source`: the program that printed them (`make`, `cargo`), which says more
// in the editor than the tool that ran it (`run_terminal_command`).
std::string source_of(const JobStart& job) {
  std::string word = program_word(job.words);
  return word.empty() ? job.tool : word;
}

Lists::Lists(uv_loop_t* loop, Send send, Notify notify)
    : loop_(loop), send_(std::move(send)), notify_(std::move(notify)) {
  uv_timer_init(loop_, &flush_timer_);
  flush_timer_.data = this;
}

Lists::~Lists() {
  if (timer_open_) log::error("quickfix: Lists destroyed before close()");
}

void Lists::on_flush(uv_timer_t* timer) {
  auto* self = static_cast<Lists*>(timer->data);
  self->ended_.clear();
  for (auto& [job_id, running] : self->running_) {
    if (running.list) running.list->flush();
  }
}

bool Lists::start(const JobStart& job) {
  ended_.clear();
  if (closed_ || nvim_.empty()) return false;
  auto format = choose_format(job.words, job.tool_format, config_);
  if (!format) return false;
  if (!worker_) worker_ = std::make_unique<Worker>(loop_, nvim_, worker_lua::kPrelude);
  CallListSpec spec;
  spec.format = *format;
  spec.title = list_title(job.command, job.job_id);
  spec.cwd = job.cwd;
  spec.log_path = job.log_path;
  spec.max_items = config_.max_items;
  spec.max_files = config_.max_files;
  headers_[job.job_id] = {
      {"call", job.call_id},    {"job", job.job_id},
      {"title", spec.title},    {"source", source_of(job)},
      {"format", format->name}, {"diagnostics", config_.diagnostics && format->diagnostics}};
  const std::string job_id = job.job_id;
  Running& running = running_[job_id];
  running.call_id = job.call_id;
  running.list = std::make_unique<CallList>(
      *worker_, std::move(spec),
      [this, job_id](std::vector<nlohmann::json> items, bool done) {
        update(job_id, std::move(items), done);
      },
      [this, job_id](const std::string& error) { failed(job_id, error); });
  if (!uv_is_active(reinterpret_cast<uv_handle_t*>(&flush_timer_))) {
    uv_timer_start(&flush_timer_, on_flush, CallList::kFlushMs, CallList::kFlushMs);
  }
  return true;
}

void Lists::output(const std::string& job_id, int stream, std::string_view data) {
  ended_.clear();
  auto it = running_.find(job_id);
  if (it != running_.end()) it->second.list->output(stream, data);
}

void Lists::finish(const std::string& job_id) {
  ended_.clear();
  auto it = running_.find(job_id);
  if (it != running_.end()) it->second.list->finish();
}

void Lists::close(std::function<void()> done) {
  closed_ = true;
  running_.clear();
  ended_.clear();
  uv_timer_stop(&flush_timer_);
  on_closed_ = std::move(done);
  uv_close(reinterpret_cast<uv_handle_t*>(&flush_timer_), [](uv_handle_t* handle) {
    auto* self = static_cast<Lists*>(handle->data);
    self->timer_open_ = false;
    if (!self->worker_) return self->on_closed_();
    self->worker_->close(std::move(self->on_closed_));
  });
}

void Lists::update(const std::string& job_id, std::vector<nlohmann::json> items, bool done) {
  auto it = running_.find(job_id);
  if (it == running_.end()) return;
  Running& running = it->second;
  nlohmann::json message = headers_[job_id];
  if (!running.sent_first && running.failed) {
    // The worker never made its list: the editor has nothing to make either.
    headers_.erase(job_id);
    ended_.push_back(std::move(running.list));
    running_.erase(it);
    if (running_.empty()) uv_timer_stop(&flush_timer_);
    return;
  }
  if (!running.sent_first) {
    // The call's list from now on (a re-run's replaces the one before).
    message["first"] = true;
    running.sent_first = true;
    failure_said_ = false;  // the worker works again: its next failure is news
  }
  message["items"] = std::move(items);
  message["done"] = done;
  if (done) {
    headers_.erase(job_id);
    // It may be running this callback: destroyed at the next call from outside.
    ended_.push_back(std::move(running.list));
    running_.erase(it);
    if (running_.empty()) {
      uv_timer_stop(&flush_timer_);
      // Idle: the worker drops its lists and buffers (a call's parse costs what its own files
      // cost, not what every earlier call's did). A list that starts meanwhile is made after
      // this, on the same pipe.
      worker_->exec_lua(worker_lua::kReset, nlohmann::json::array(),
                        [](const std::string&, nlohmann::json) {});
    }
  }
  if (message.contains("first") || !message["items"].empty() || done) send_(std::move(message));
}

void Lists::failed(const std::string& job_id, const std::string& error) {
  log::warn("quickfix: no list for " + job_id + ": " + error);
  if (auto it = running_.find(job_id); it != running_.end()) it->second.failed = true;
  if (failure_said_) return;
  failure_said_ = true;
  notify_("toolhost: no quickfix list for " + job_id + ": " + error);
}

}  // namespace toolhost::quickfix
