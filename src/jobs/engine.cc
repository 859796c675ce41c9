#include "jobs/engine.h"

#include <algorithm>
#include <csignal>
#include <cstring>

extern char** environ;

namespace toolhost::jobs {

Engine::Engine(uv_loop_t* loop, EngineOptions options)
    : loop_(loop), options_(std::move(options)) {}

Engine::~Engine() = default;

std::string Engine::submit(JobSpec spec, JobEvents events) {
  auto job = std::make_unique<Job>();
  job->info.id = "th-" + std::to_string(next_number_++);
  job->info.spec = std::move(spec);
  job->events = std::move(events);
  Job* raw = job.get();
  std::string id = job->info.id;
  jobs_.emplace(id, std::move(job));
  queue_.push_back(raw);
  start_next();
  return id;
}

const JobInfo& Engine::refuse(JobSpec spec, std::string reason) {
  auto job = std::make_unique<Job>();
  job->info.id = "th-" + std::to_string(next_number_++);
  job->info.spec = std::move(spec);
  job->info.status = Status::Failed;
  job->info.error = std::move(reason);
  const JobInfo& info = job->info;
  jobs_.emplace(info.id, std::move(job));
  return info;
}

void Engine::start_next() {
  while (!on_shutdown_ && !queue_.empty() &&
         running_ < static_cast<size_t>(std::max(1, options_.max_concurrent))) {
    Job* job = queue_.front();
    queue_.pop_front();
    start(*job);
  }
}

std::vector<std::string> Engine::environment() const {
  std::vector<std::string> env;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string_view text(*entry);
    bool overridden = std::any_of(options_.env.begin(), options_.env.end(), [&](const auto& kv) {
      return text.size() > kv.first.size() && text.substr(0, kv.first.size()) == kv.first &&
             text[kv.first.size()] == '=';
    });
    if (!overridden) env.emplace_back(text);
  }
  for (const auto& [key, value] : options_.env) env.push_back(key + "=" + value);
  return env;
}

void Engine::start(Job& job) {
  ++running_;
  ++processes_;
  Job* raw = &job;
  Process::Events events;
  events.output = [raw](Stream stream, std::string_view data) {
    if (raw->events.output) raw->events.output(raw->info, stream, data);
  };
  events.finished = [this, raw] { finished(*raw); };
  events.closed = [this, raw] {
    raw->process.reset();
    --processes_;
    maybe_done_shutting_down();
  };
  job.process = std::make_unique<Process>(loop_, job.info, options_.kill_grace_ms, events);
  std::vector<std::string> env = environment();
  for (const auto& [key, value] : job.info.spec.env) env.push_back(key + "=" + value);
  if (!job.process->start(env)) {
    job.info.status = Status::Failed;
    finished(job);
    job.process->close();
    return;
  }
  if (job.events.started) job.events.started(job.info);
}

void Engine::finished(Job& job) {
  --running_;
  if (job.process) job.process->close();
  if (job.events.finished) job.events.finished(job.info);
  start_next();
}

bool Engine::cancel(const std::string& id) {
  auto it = jobs_.find(id);
  if (it == jobs_.end() || is_finished(it->second->info.status)) return false;
  Job& job = *it->second;
  if (job.info.status == Status::Queued) {
    queue_.erase(std::remove(queue_.begin(), queue_.end(), &job), queue_.end());
    job.info.status = Status::Canceled;
    if (job.events.finished) job.events.finished(job.info);
    return true;
  }
  job.process->terminate(Status::Canceled, options_.kill_grace_ms);
  return true;
}

const JobInfo* Engine::find(const std::string& id) const {
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : &it->second->info;
}

std::vector<const JobInfo*> Engine::list() const {
  std::vector<const JobInfo*> out;
  for (const auto& [id, job] : jobs_) out.push_back(&job->info);
  return out;
}

void Engine::shutdown(uint64_t grace_ms, std::function<void()> done) {
  on_shutdown_ = std::move(done);
  for (Job* job : queue_) job->info.status = Status::Canceled;
  queue_.clear();
  for (auto& [id, job] : jobs_) {
    if (job->process && job->info.status == Status::Running) {
      job->process->terminate(Status::Canceled, grace_ms);
    }
  }
  maybe_done_shutting_down();
}

void Engine::maybe_done_shutting_down() {
  if (on_shutdown_ && processes_ == 0) {
    auto done = std::move(on_shutdown_);
    on_shutdown_ = [] {};  // stays set: no new job starts after shutdown
    done();
  }
}

}  // namespace toolhost::jobs
