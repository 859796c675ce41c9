#include "jobs/engine.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "base/fs.h"
#include "base/log.h"
#include "jobs/job_json.h"
#include "jobs/process.h"
#include "jobs/sequence.h"
#include "jobs/task.h"

extern char** environ;

namespace toolhost::jobs {
namespace {

bool has_key(const std::vector<std::pair<std::string, std::string>>& env, std::string_view entry) {
  return std::any_of(env.begin(), env.end(), [&](const auto& kv) {
    return entry.size() > kv.first.size() && entry.substr(0, kv.first.size()) == kv.first &&
           entry[kv.first.size()] == '=';
  });
}

}  // namespace

Engine::~Engine() = default;  // each Job's JobLog closes itself

void Engine::set_options(EngineOptions options) {
  options.state_dir = options_.state_dir;
  options.cache_dir = options_.cache_dir;
  options_ = std::move(options);
  start_next();
}

Engine::Job& Engine::create(JobSpec spec, bool starts_now) {
  auto job = std::make_unique<Job>();
  JobInfo& info = job->info;
  info.spec = std::move(spec);
  info.queued_at_ms = wall_clock_ms();
  auto name = [this, &info](uint64_t number) {
    info.number = number;
    info.id = "th-" + std::to_string(number);
    if (!options_.cache_dir.empty())
      info.log_path = options_.cache_dir + "/jobs/" + info.id + ".log";
  };
  if (history_.enabled()) {
    history_.allocate(
        [&](uint64_t number) {
          name(number);
          return nlohmann::json{{"ev", "queued"},
                                {"id", info.id},
                                {"call_id", info.spec.call_id},
                                {"tool", info.spec.tool},
                                {"params", info.spec.params},
                                {"cwd", info.spec.cwd},
                                {"buffer", info.spec.buffer_name},
                                {"status", "queued"},
                                {"queued_at_ms", info.queued_at_ms},
                                {"log", info.log_path},
                                {"host", history_.host()}};
        },
        /*write_now=*/!starts_now);
  } else {
    name(next_number_++);
  }
  Job& ref = *job;
  index_call(info);
  jobs_[info.number] = std::move(job);
  return ref;
}

std::string Engine::submit(JobSpec spec, JobEvents events) {
  const bool starts_now = !shutting_down_ && queue_.empty() &&
                          running_ < static_cast<size_t>(std::max(1, options_.max_concurrent));
  Job& job = create(std::move(spec), starts_now);
  job.events = std::move(events);
  std::string id = job.info.id;
  if (shutting_down_) {
    job.info.status = Status::Canceled;
    job.info.error = "the host is shutting down";
    finished(job);
    return id;
  }
  queue_.push_back(&job);
  start_next();
  return id;
}

EngineOptions with_config(EngineOptions options, const core::Config& config) {
  options.max_concurrent = config.max_concurrent;
  options.kill_grace_ms = config.kill_grace_ms;
  options.job_nice = config.job_nice;
  options.log_max_bytes = config.output.log_max_bytes;
  options.history_max = config.history_max;
  return options;
}

const JobInfo& Engine::refuse(JobSpec spec, std::string reason, Status status) {
  Job& job = create(std::move(spec));
  job.info.status = status;
  job.info.error = std::move(reason);
  record_end(job.info);
  return job.info;
}

const JobInfo* Engine::rename_call(const std::string& id, const std::string& call_id) {
  auto it = jobs_.find(job_number(id));
  if (it == jobs_.end() || it->second->info.id != id) return nullptr;
  JobInfo& info = it->second->info;
  if (info.spec.call_id == call_id) return &info;
  const std::string before = std::exchange(info.spec.call_id, call_id);
  auto indexed = newest_by_call_.find(call_key(info.spec.buffer_name, before));
  if (indexed != newest_by_call_.end() && indexed->second == info.number) {
    // The old id's newest job is now an older one, if any (a rename is rare: a scan is fine).
    newest_by_call_.erase(indexed);
    for (const auto& [number, job] : jobs_) {
      if (job->info.spec.buffer_name == info.spec.buffer_name && job->info.spec.call_id == before)
        index_call(job->info);
    }
  }
  index_call(info);
  // No `ev`: merged over the job's lines (load(), a peer following them), it changes the id
  // alone.
  history_.append({{"id", info.id}, {"call_id", call_id}});
  return &info;
}

void Engine::start_next() {
  while (!shutting_down_ && !queue_.empty() &&
         running_ < static_cast<size_t>(std::max(1, options_.max_concurrent))) {
    Job* job = queue_.front();
    queue_.pop_front();
    start(*job);
  }
}

std::vector<std::string> Engine::environment() const {
  std::vector<std::string> env;
  for (char** entry = environ; entry && *entry; ++entry) {
    if (!has_key(options_.env, *entry)) env.emplace_back(*entry);
  }
  for (const auto& [key, value] : options_.env) env.push_back(key + "=" + value);
  return env;
}

void Engine::start(Job& job) {
  ++running_;
  ++processes_;
  Job* raw = &job;
  Executor::Events events;
  events.output = [this, raw](Stream stream, std::string_view data) {
    on_output(*raw, data);
    if (raw->events.output) raw->events.output(raw->info, stream, data);
  };
  events.finished = [this, raw] { finished(*raw); };
  events.closed = [this, raw] {
    raw->process.reset();
    --processes_;
    maybe_done_shutting_down();
  };
  open_log(job);
  job.info.spec.nice = options_.job_nice;
  if (job.info.spec.task || job.info.spec.async || job.info.spec.stream) {
    job.process = std::make_unique<Task>(loop_, job.info, events);
  } else if (!job.info.spec.steps.empty()) {
    job.process = std::make_unique<Sequence>(loop_, job.info, options_.kill_grace_ms, events);
  } else {
    job.process = std::make_unique<Process>(loop_, job.info, options_.kill_grace_ms, events);
  }
  std::vector<std::string> env = environment();
  if (!job.info.spec.env.empty()) {
    env.erase(std::remove_if(env.begin(), env.end(),
                             [&](const std::string& e) { return has_key(job.info.spec.env, e); }),
              env.end());
    for (const auto& [key, value] : job.info.spec.env) env.push_back(key + "=" + value);
  }
  if (!job.process->start(env)) return;  // `finished` comes from the loop
  history_.append({{"ev", "started"},
                   {"id", job.info.id},
                   {"status", "running"},
                   {"started_at_ms", job.info.started_at_ms},
                   {"pid", job.info.pid},
                   {"pgid", job.info.pgid},
                   {"host", history_.host()}});
  if (job.events.started) job.events.started(job.info);
}

void Engine::open_log(Job& job) {
  job.log_pending = !job.info.log_path.empty();
}

void Engine::on_output(Job& job, std::string_view data) {
  if (job.log_pending) {
    const size_t inline_max = std::min<uint64_t>(kInlineLogMax, options_.log_max_bytes);
    if (hold_history_ && job.held_log.size() + data.size() <= inline_max) {
      if (job.held_log.empty()) held_logs_.push_back(job.info.number);
      job.held_log.append(data);
      job.info.log_bytes = job.held_log.size();
      return;
    }
    create_log_file(job);
  }
  if (!job.log.is_open()) return;
  job.log.write(data);
  job.info.log_bytes = job.log.bytes();
}

void Engine::create_log_file(Job& job) {
  job.log_pending = false;
  std::string error = job.log.open(job.info.log_path, options_.log_max_bytes);
  if (!error.empty()) {
    log::warn("jobs: cannot create " + job.info.log_path + ": " + error);
    job.info.log_path.clear();
  } else if (!job.held_log.empty()) {
    job.log.write(job.held_log);
  }
  job.held_log.clear();
  job.held_log.shrink_to_fit();
}

void Engine::close_log(Job& job) {
  if (job.log_pending && !job.held_log.empty()) {
    job.info.inline_log = std::move(job.held_log);
    job.held_log.clear();
  }
  job.log_pending = false;
  if (!job.log.is_open()) return;
  job.log.close();
  job.info.log_bytes = job.log.bytes();
}

void Engine::record_end(const JobInfo& info) {
  nlohmann::json line = end_line(info, history_.host());
  if (hold_history_) return held_history_.push_back(std::move(line));
  history_.append(std::move(line));
}

void Engine::release_held() {
  // A job still running by now has its log file: whatever it writes is on disk
  // HeldWorkRelease::kDelayMs after the loop turn that read it.
  for (uint64_t number : held_logs_) {
    auto it = jobs_.find(number);
    if (it != jobs_.end() && it->second->log_pending && !it->second->held_log.empty()) {
      create_log_file(*it->second);
    }
  }
  held_logs_.clear();
  std::vector<nlohmann::json> lines = std::move(held_history_);
  held_history_.clear();
  history_.append_all(lines);
  // The handles of the jobs that ended: their pipes' closes free the kernel's pipe buffers.
  std::vector<uint64_t> closes = std::move(held_closes_);
  held_closes_.clear();
  for (uint64_t number : closes) {
    auto it = jobs_.find(number);
    if (it != jobs_.end() && it->second->process) it->second->process->close();
  }
}

void Engine::finished(Job& job) {
  if (job.process) {
    --running_;
    if (hold_history_) {
      held_closes_.push_back(job.info.number);  // trim() keeps a job while it has a process
    } else {
      job.process->close();
    }
  }
  close_log(job);
  if (job.events.finished) job.events.finished(job.info);
  record_end(job.info);
  // The result is delivered: free the buffers (SPEC 6); counts and the log stay.
  job.info.out.release();
  job.info.err.release();
  job.events = {};
  ++ended_since_trim_;
  trim();
  start_next();
}

bool Engine::cancel(const std::string& id) {
  auto it = jobs_.find(job_number(id));
  if (it == jobs_.end() || is_finished(it->second->info.status)) return false;
  Job& job = *it->second;
  if (job.process) return job.process->terminate(Status::Canceled, options_.kill_grace_ms);
  auto queued = std::find(queue_.begin(), queue_.end(), &job);
  if (queued == queue_.end()) return false;  // a peer's job, known from history
  queue_.erase(queued);
  job.info.status = Status::Canceled;
  finished(job);
  return true;
}

void Engine::shutdown(uint64_t grace_ms, std::function<void()> done) {
  shutting_down_ = true;
  on_shutdown_ = std::move(done);
  release_held();
  hold_history_ = false;  // nothing is held past this point: the loop may end any time
  std::deque<Job*> queued;
  queued.swap(queue_);
  for (Job* job : queued) {
    job->info.status = Status::Interrupted;
    job->info.error = "the host shut down";
    finished(*job);
  }
  for (auto& [number, job] : jobs_) {
    if (job->process) job->process->hurry(grace_ms);
  }
  maybe_done_shutting_down();
}

void Engine::maybe_done_shutting_down() {
  if (!on_shutdown_ || processes_ != 0) return;
  auto done = std::move(on_shutdown_);
  on_shutdown_ = nullptr;
  trim_history(true);
  history_.close();
  done();
}

}  // namespace toolhost::jobs
