#include "jobs/engine.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

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

Engine::Engine(uv_loop_t* loop, EngineOptions options)
    : loop_(loop), options_(std::move(options)), history_(loop, options_.state_dir) {
  if (!options_.cache_dir.empty()) base::make_dirs(options_.cache_dir + "/jobs");
  for (const nlohmann::json& record : history_.load()) {
    JobInfo info = job_from_json(record);
    if (info.number == 0) continue;
    if (auto host = record.find("host");
        !is_finished(info.status) && host != record.end() && host->is_object()) {
      // A line another host wrote may hold anything: only a number is a pid.
      auto pid = host->find("pid");
      if (pid != host->end() && pid->is_number_integer()) others_[info.number] = pid->get<int>();
    }
    auto job = std::make_unique<Job>();
    job->info = std::move(info);
    index_call(job->info);
    jobs_[job->info.number] = std::move(job);
  }
  trim();
  history_.trim(
      options_.history_max, [this](const nlohmann::json& r) { delete_log(r.value("log", "")); },
      true);
}

Engine::~Engine() = default;  // each Job's JobLog closes itself

void Engine::set_options(EngineOptions options) {
  options.state_dir = options_.state_dir;
  options.cache_dir = options_.cache_dir;
  options_ = std::move(options);
  start_next();
}

Engine::Job& Engine::create(JobSpec spec) {
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
    history_.allocate([&](uint64_t number) {
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
    });
  } else {
    name(next_number_++);
  }
  Job& ref = *job;
  index_call(info);
  jobs_[info.number] = std::move(job);
  return ref;
}

std::string Engine::submit(JobSpec spec, JobEvents events) {
  Job& job = create(std::move(spec));
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
  if (job.info.spec.task || job.info.spec.async) {
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
    job.log_pending = false;
    std::string error = job.log.open(job.info.log_path, options_.log_max_bytes);
    if (!error.empty()) {
      log::warn("jobs: cannot create " + job.info.log_path + ": " + error);
      job.info.log_path.clear();
    }
  }
  if (!job.log.is_open()) return;
  job.log.write(data);
  job.info.log_bytes = job.log.bytes();
}

void Engine::close_log(Job& job) {
  job.log_pending = false;
  if (!job.log.is_open()) return;
  job.log.close();
  job.info.log_bytes = job.log.bytes();
}

void Engine::record_end(const JobInfo& info) {
  nlohmann::json line = job_to_json(info);
  for (const char* key : {"call_id", "tool", "params", "cwd", "buffer", "queued_at_ms"}) {
    line.erase(key);
  }
  line["ev"] = "ended";
  line["host"] = history_.host();
  history_.append(std::move(line));
}

void Engine::finished(Job& job) {
  if (job.process) {
    --running_;
    job.process->close();
  }
  close_log(job);
  record_end(job.info);
  if (job.events.finished) job.events.finished(job.info);
  // The result is delivered: free the buffers (SPEC 6); counts and the log stay.
  job.info.out.release();
  job.info.err.release();
  job.events = {};
  ++ended_since_trim_;
  trim();
  start_next();
}

void Engine::trim() {
  // In memory: the newest history_max jobs, plus whatever is still queued or running.
  size_t excess = jobs_.size() > options_.history_max ? jobs_.size() - options_.history_max : 0;
  for (auto it = jobs_.begin(); excess > 0 && it != jobs_.end();) {
    Job& job = *it->second;
    if (job.process || !is_finished(job.info.status)) {
      ++it;
      continue;
    }
    if (!history_.enabled()) delete_log(job.info.log_path);  // else history's trim does it
    auto indexed = newest_by_call_.find(call_key(job.info.spec.buffer_name, job.info.spec.call_id));
    if (indexed != newest_by_call_.end() && indexed->second == job.info.number) {
      newest_by_call_.erase(indexed);
    }
    it = jobs_.erase(it);
    --excess;
  }
  if (history_.enabled() && ended_since_trim_ >= std::max<size_t>(16, options_.history_max / 4)) {
    ended_since_trim_ = 0;
    history_.trim(
        options_.history_max, [this](const nlohmann::json& r) { delete_log(r.value("log", "")); },
        false);
  }
}

void Engine::delete_log(const std::string& path) const {
  // Only ever our own log files, whatever a history line says.
  const std::string dir = options_.cache_dir + "/jobs/";
  if (options_.cache_dir.empty() || path.size() <= dir.size() || path.compare(0, dir.size(), dir) ||
      path.find('/', dir.size()) != std::string::npos ||
      path.compare(path.size() - 4, 4, ".log") != 0) {
    return;
  }
  JobLog::remove(path);
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

std::string Engine::call_key(const std::string& buffer_name, const std::string& call_id) {
  std::string key = buffer_name;
  key += '\0';
  return key += call_id;
}

void Engine::index_call(const JobInfo& info) {
  if (info.spec.call_id.empty()) return;
  uint64_t& newest = newest_by_call_[call_key(info.spec.buffer_name, info.spec.call_id)];
  newest = std::max(newest, info.number);
}

const JobInfo* Engine::newest_for_call(const std::string& buffer_name,
                                       const std::string& call_id) const {
  auto it = newest_by_call_.find(call_key(buffer_name, call_id));
  if (it == newest_by_call_.end()) return nullptr;
  auto job = jobs_.find(it->second);
  return job == jobs_.end() ? nullptr : &job->second->info;
}

size_t Engine::interrupt_host(int pid, const std::string& reason) {
  size_t count = 0;
  for (auto it = others_.begin(); it != others_.end();) {
    auto job = jobs_.find(it->first);
    if (job == jobs_.end()) {  // trimmed since
      it = others_.erase(it);
      continue;
    }
    if (it->second != pid) {
      ++it;
      continue;
    }
    JobInfo& info = job->second->info;
    if (!is_finished(info.status)) {
      info.status = Status::Interrupted;
      info.error = reason;
      ++count;
    }
    it = others_.erase(it);
  }
  return count;
}

const JobInfo* Engine::get(const std::string& id) const {
  auto it = jobs_.find(job_number(id));
  return it == jobs_.end() ? nullptr : &it->second->info;
}

JobList Engine::jobs(const JobQuery& query) const {
  JobList list;
  list.running = running_;
  list.queued = queue_.size();
  for (auto it = jobs_.rbegin(); it != jobs_.rend(); ++it) {
    const JobInfo& info = it->second->info;
    if (!query.statuses.empty() && !query.statuses.count(info.status)) continue;
    ++list.total;
    if (query.limit == 0 || list.jobs.size() < query.limit) list.jobs.push_back(&info);
  }
  return list;
}

std::vector<const JobInfo*> Engine::list() const {
  std::vector<const JobInfo*> out;
  for (const auto& [number, job] : jobs_) out.push_back(&job->info);
  return out;
}

OutputChunk Engine::output(const std::string& id, uint64_t since, size_t max_bytes) const {
  OutputChunk chunk;
  chunk.next = since;
  const JobInfo* info = get(id);
  if (!info) {
    chunk.error = "no job " + id;
    return chunk;
  }
  // A queued job has no log yet: nothing to read so far, which is not an error (a view that
  // follows the job keeps asking until it runs).
  if (info->status == Status::Queued) return chunk;
  chunk.finished = is_finished(info->status);
  if (info->log_path.empty()) {
    chunk.error = "job " + id + " has no log";
    chunk.eof = chunk.finished;
    return chunk;
  }
  // No output, no log file (it is created with the first output).
  if (info->log_bytes == 0 && ::access(info->log_path.c_str(), F_OK) != 0 && errno == ENOENT) {
    chunk.eof = chunk.finished;
    return chunk;
  }
  JobLog::Slice slice = JobLog::read(info->log_path, since, max_bytes);
  chunk.data = std::move(slice.data);
  chunk.next = slice.next;
  chunk.error = std::move(slice.error);
  chunk.eof = chunk.finished && (!chunk.error.empty() || chunk.next >= slice.size);
  return chunk;
}

void Engine::shutdown(uint64_t grace_ms, std::function<void()> done) {
  shutting_down_ = true;
  on_shutdown_ = std::move(done);
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
  history_.trim(
      options_.history_max, [this](const nlohmann::json& r) { delete_log(r.value("log", "")); },
      true);
  history_.close();
  done();
}

}  // namespace toolhost::jobs
