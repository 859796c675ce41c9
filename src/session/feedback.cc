#include "session/feedback.h"

#include <algorithm>

#include "jobs/job_json.h"

namespace toolhost::session {

Feedback::Feedback(uv_loop_t* loop, Send send) : send_(std::move(send)) {
  uv_idle_init(loop, &idle_);
  idle_.data = this;
  uv_timer_init(loop, &late_);
  late_.data = this;
}

void Feedback::close() {
  for (auto* handle :
       {reinterpret_cast<uv_handle_t*>(&idle_), reinterpret_cast<uv_handle_t*>(&late_)}) {
    if (!uv_is_closing(handle)) uv_close(handle, nullptr);
  }
}

void Feedback::schedule() {
  if (deferring_) return;
  // An active idle handle makes the loop poll without blocking, so the batch leaves at the
  // end of the current iteration whatever callback filled it.
  if (!uv_is_active(reinterpret_cast<uv_handle_t*>(&idle_))) {
    uv_idle_start(&idle_, [](uv_idle_t* idle) { static_cast<Feedback*>(idle->data)->flush(); });
  }
}

nlohmann::json& Feedback::entry(int64_t buf) {
  schedule();
  nlohmann::json& entry = buffers_[buf];
  if (entry.is_null()) entry = {{"buf", buf}};
  return entry;
}

nlohmann::json& Feedback::buffer(int64_t buf, const char* list) {
  nlohmann::json& at = entry(buf);
  if (!at.contains(list)) at[list] = nlohmann::json::array();
  return at[list];
}

nlohmann::json& Feedback::top(const char* list) {
  schedule();
  if (!batch_.contains(list)) batch_[list] = nlohmann::json::array();
  return batch_[list];
}

void Feedback::mark(int64_t buf, const std::string& key, int row, int end_row, int64_t tick) {
  nlohmann::json mark = {{"key", key}, {"row", row}, {"end_row", end_row}};
  if (tick > 0) mark["tick"] = tick;
  buffer(buf, "marks").push_back(std::move(mark));
}

void Feedback::forget(int64_t buf, const std::string& key) {
  buffer(buf, "forget").push_back(key);
}

void Feedback::diagnostic(int64_t buf, const std::string& key, int row, Severity severity,
                          const std::string& message) {
  buffer(buf, "diags")
      .push_back({{"key", key},
                  {"row", row},
                  {"severity", static_cast<int>(severity)},
                  {"message", message}});
}

void Feedback::parse_errors(int64_t buf, nlohmann::json errors) {
  entry(buf)["errors"] = std::move(errors);
}

void Feedback::stream(int64_t buf, const std::string& key, std::vector<std::string> lines) {
  buffer(buf, "stream").push_back({{"key", key}, {"lines", std::move(lines)}});
}

void Feedback::rewrite(int64_t buf, Rewrite rewrite) {
  nlohmann::json edit = {{"key", std::move(rewrite.key)},
                         {"expect", std::move(rewrite.expect)},
                         {"lines", std::move(rewrite.lines)},
                         {"fallback", std::move(rewrite.fallback)},
                         {"job", std::move(rewrite.job_id)}};
  if (rewrite.insert) {
    edit["insert"] = true;
    edit["after_rows"] = rewrite.after_rows;
    edit["after_keys"] = std::move(rewrite.after_keys);
  }
  buffer(buf, "edits").push_back(std::move(edit));
}

void Feedback::awaiting(int64_t buf, std::vector<std::string> keys) {
  entry(buf)["awaiting"] = std::move(keys);
}

void Feedback::prompt(int64_t buf, nlohmann::json prompt) {
  buffer(buf, "prompts").push_back(std::move(prompt));
}

void Feedback::submitted(nlohmann::json done) {
  top("submitted").push_back(std::move(done));
}

void Feedback::quickfix(nlohmann::json update) {
  top("quickfix").push_back(std::move(update));
}

void Feedback::job(nlohmann::json job) {
  top("jobs").push_back(std::move(job));
}

void Feedback::all_jobs(std::vector<nlohmann::json> records) {
  all_jobs_ = std::move(records);
  all_jobs_sent_ = 0;
  paging_ = true;
  schedule();
}

void Feedback::resume_pages() {
  if (paging_ && !uv_is_closing(reinterpret_cast<uv_handle_t*>(&idle_))) schedule();
}

void Feedback::add_all_jobs_page(nlohmann::json& batch) {
  size_t end = std::min(all_jobs_.size(), all_jobs_sent_ + kAllJobsPage);
  nlohmann::json page = nlohmann::json::array();
  for (size_t i = all_jobs_sent_; i < end; ++i) page.push_back(std::move(all_jobs_[i]));
  bool first = all_jobs_sent_ == 0;
  bool last = end == all_jobs_.size();
  batch["all_jobs"] = std::move(page);
  batch["all_jobs_page"] = {{"first", first}, {"last", last}};
  all_jobs_sent_ = end;
  if (last) {
    all_jobs_.clear();
    all_jobs_sent_ = 0;
    paging_ = false;
    mirror_sent_ = true;
  }
}

std::vector<nlohmann::json> mirror_records(const std::vector<const jobs::JobInfo*>& oldest_first) {
  std::vector<nlohmann::json> records;
  records.reserve(oldest_first.size());
  auto live = [](const jobs::JobInfo* job) {
    return job->status == core::Status::Queued || job->status == core::Status::Running;
  };
  for (const jobs::JobInfo* job : oldest_first) {
    if (live(job)) records.push_back(job_entry(*job, 0));
  }
  for (auto it = oldest_first.rbegin(); it != oldest_first.rend(); ++it) {
    if (!live(*it)) records.push_back(job_entry(**it, 0));
  }
  return records;
}

nlohmann::json job_entry(const jobs::JobInfo& job, int64_t buf) {
  nlohmann::json entry = jobs::job_to_json(job);
  if (buf > 0) entry["buf"] = buf;
  return entry;
}

void Feedback::event(const std::string& name, nlohmann::json data) {
  top("events").push_back({{"name", name}, {"data", std::move(data)}});
}

void Feedback::notify(const std::string& message, const std::string& level) {
  top("notify").push_back({{"message", message}, {"level", level}});
}

void Feedback::deferred(uint64_t ms, const std::function<void()>& add) {
  const bool outer = deferring_;
  deferring_ = true;
  add();
  deferring_ = outer;
  if (!outer && ++deferred_ > kDeferredMax) return schedule();
  const auto* late = reinterpret_cast<uv_handle_t*>(&late_);
  if (outer || uv_is_active(late) || uv_is_closing(late)) return;
  uv_timer_start(
      &late_, [](uv_timer_t* timer) { static_cast<Feedback*>(timer->data)->flush(); }, ms, 0);
}

void Feedback::flush() {
  uv_idle_stop(&idle_);
  uv_timer_stop(&late_);
  deferred_ = 0;
  bool page = paging_ && (!pages_ready_ || pages_ready_());
  if (buffers_.empty() && batch_.is_null() && !page) return;
  nlohmann::json batch = std::move(batch_);
  if (batch.is_null()) batch = nlohmann::json::object();
  if (page) add_all_jobs_page(batch);
  batch["buffers"] = nlohmann::json::array();
  for (auto& [buf, entry] : buffers_) batch["buffers"].push_back(std::move(entry));
  buffers_.clear();
  batch_ = nullptr;
  send_(std::move(batch));
  // Ungated, the next page leaves at the next loop turn; gated, when resume_pages() says.
  if (paging_ && !pages_ready_) schedule();
}

}  // namespace toolhost::session
