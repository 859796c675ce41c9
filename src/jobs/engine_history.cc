// The part of the engine that follows the shared history file: the jobs read from it at start,
// other hosts' jobs followed until they end (or their host dies), and the trims that keep the
// file and the log directory bounded.
#include <algorithm>
#include <map>

#include "base/fs.h"
#include "base/memory.h"
#include "jobs/engine.h"
#include "jobs/host_id.h"
#include "jobs/job_json.h"

namespace toolhost::jobs {
namespace {

constexpr const char* kHostExited = "the host that ran this job exited";

// One history line applied to a job read from history, as History::load() merges lines.
void apply_line(JobInfo& info, const nlohmann::json& line) {
  nlohmann::json record = job_to_json(info);
  if (!info.inline_log.empty()) record["output"] = info.inline_log;
  record.update(line);
  info = job_from_json(record);
}

}  // namespace

Engine::Engine(uv_loop_t* loop, EngineOptions options)
    : loop_(loop), options_(std::move(options)), history_(loop, options_.state_dir) {
  if (!options_.cache_dir.empty()) base::make_dirs(options_.cache_dir + "/jobs");
  std::vector<nlohmann::json> records = history_.load();
  const size_t in_file = records.size();
  for (const nlohmann::json& record : records) {
    JobInfo info = job_from_json(record);
    if (info.number == 0) continue;
    // load() ended the unfinished jobs of dead hosts: these run on live ones (another
    // Neovim's host), which write their next lines; refresh_peers() follows them.
    if (auto host = record.find("host");
        !is_finished(info.status) && host != record.end() && host->is_object()) {
      others_[info.number] = *host;
    }
    auto job = std::make_unique<Job>();
    job->info = std::move(info);
    index_call(job->info);
    jobs_[job->info.number] = std::move(job);
  }
  records = {};
  trim();
  // The trim reads the whole file again: only when it holds more jobs than it keeps (half the
  // start-up's work with a full history of small jobs).
  if (in_file > options_.history_max) trim_history(true);
  // The records read are freed: give their pages back (a 500-job history left the idle host
  // at 11 MB instead of 4).
  base::release_free_memory();
}

void Engine::refresh_peers() {
  if (others_.empty()) return;
  // Which hosts are dead is decided before the file is read: whatever a dead host wrote is in
  // the file by then, so a job it ended before it died reads as it ended, not `interrupted`.
  std::map<std::string, bool> alive;  // by host, as written
  std::vector<uint64_t> orphaned;
  for (const auto& [number, host] : others_) {
    auto [it, inserted] =
        alive.emplace(host.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), false);
    if (inserted) it->second = host_alive(host);
    if (!it->second) orphaned.push_back(number);
  }
  for (const nlohmann::json& line : history_.updates()) {
    const uint64_t number = job_number(line["id"].get<std::string>());
    auto other = others_.find(number);
    if (other == others_.end()) continue;
    auto job = jobs_.find(number);
    if (job != jobs_.end()) apply_line(job->second->info, line);
    if (job == jobs_.end() || is_finished(job->second->info.status)) others_.erase(other);
  }
  for (uint64_t number : orphaned) {
    auto other = others_.find(number);
    if (other == others_.end()) continue;  // it ended before its host died
    others_.erase(other);
    auto job = jobs_.find(number);
    if (job == jobs_.end()) continue;
    JobInfo& info = job->second->info;
    info.status = Status::Interrupted;
    info.error = kHostExited;
    // As load() does at start: whichever host sees it first records it, for every host after.
    // A second host doing the same appends the same ending again, which changes nothing.
    history_.append({{"ev", "ended"},
                     {"id", info.id},
                     {"status", "interrupted"},
                     {"error", kHostExited},
                     {"host", history_.host()}});
  }
}

size_t Engine::interrupt_host(int pid, const std::string& reason) {
  size_t count = 0;
  for (auto it = others_.begin(); it != others_.end();) {
    auto job = jobs_.find(it->first);
    if (job == jobs_.end()) {  // trimmed since
      it = others_.erase(it);
      continue;
    }
    if (number_or(it->second, "pid", 0) != pid) {
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

void Engine::trim() {
  // In memory: the newest history_max jobs, plus whatever is still queued or running.
  size_t excess = jobs_.size() > options_.history_max ? jobs_.size() - options_.history_max : 0;
  // At most this many can go (a peer's live job is not subtracted: an upper bound). With 1,000
  // calls queued at once, a scan that stops there does not walk every live job at each end.
  size_t removable = jobs_.size() - std::min(jobs_.size(), processes_ + queue_.size());
  for (auto it = jobs_.begin(); excess > 0 && removable > 0 && it != jobs_.end();) {
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
    --removable;
  }
  // A trim reads and rewrites the whole file, which holds every job still queued or running
  // and cannot drop one: it waits for as many ends as such jobs of ours, so that 1,000 calls
  // queued at once cost a few trims, not one per history_max / 4 ends (each re-reading all
  // 1,000). The file stays bounded: history_max + the live jobs + one such batch.
  const size_t live = queue_.size() + running_;
  if (history_.enabled() &&
      ended_since_trim_ >= std::max({size_t{16}, options_.history_max / 4, live})) {
    ended_since_trim_ = 0;
    trim_history(false);
  }
}

void Engine::trim_history(bool wait) {
  release_held();
  history_.trim(
      options_.history_max,
      [this](const nlohmann::json& record) {
        if (record.contains("output")) return;  // its log had no file
        // A line edited by hand may hold anything where the path goes.
        auto log = record.find("log");
        if (log != record.end() && log->is_string()) delete_log(log->get<std::string>());
      },
      wait);
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

}  // namespace toolhost::jobs
