// The engine's answers about jobs: lookups, lists, and reads of a job's log.
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "jobs/engine.h"

namespace toolhost::jobs {

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
  // Canceled while queued, refused: it never ran, so its output is empty and complete, with
  // or without a log directory (a job's log file comes with its first output).
  if (chunk.finished && info->started_at_ms == 0 && info->log_bytes == 0) {
    chunk.eof = true;
    return chunk;
  }
  // A log kept in memory: the job's whole log once it ended, or its first output until its
  // file is created (Engine::hold_history).
  const std::string* memory = info->inline_log.empty() ? nullptr : &info->inline_log;
  if (auto job = jobs_.find(info->number);
      !memory && job != jobs_.end() && job->second->log_pending && !job->second->held_log.empty()) {
    memory = &job->second->held_log;
  }
  if (memory) {
    const uint64_t from = std::min<uint64_t>(since, memory->size());
    chunk.data = memory->substr(from, max_bytes);
    chunk.next = from + chunk.data.size();
    chunk.eof = chunk.finished && chunk.next >= memory->size();
    return chunk;
  }
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

}  // namespace toolhost::jobs
