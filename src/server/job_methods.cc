#include "server/job_methods.h"

#include <algorithm>
#include <filesystem>

#include "jobs/job_json.h"
#include "server/args.h"

namespace toolhost::server {
namespace {

constexpr size_t kMaxChunk = 4u << 20;  // one jobs.output answer stays a small RPC message

core::Result<core::Status> parse_status(const nlohmann::json& value) {
  if (value.is_string()) {
    if (auto status = core::status_from_string(value.get<std::string>())) return *status;
  }
  return core::error("unknown status " +
                     value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// The job named by args.id, or why there is none.
core::Result<const jobs::JobInfo*> existing(const jobs::Engine& engine, Args& args) {
  std::string id = args.string("id");
  if (!args.ok()) return core::error("missing job id");
  const jobs::JobInfo* job = engine.get(id);
  if (!job) return core::error("no job " + id);
  return job;
}

// Whether `dir` is `root` or a directory under it.
bool inside(const std::string& dir, const std::string& root) {
  if (root.empty() || dir.compare(0, root.size(), root) != 0) return false;
  return dir.size() == root.size() || root.back() == '/' || dir[root.size()] == '/';
}

// The jobs of project `root` (a job's cwd is the root, or a directory under it for a `cwd`
// parameter, resolved), at most `limit` of them.
void keep_project(jobs::JobList& list, const std::string& root, size_t limit) {
  std::error_code ec;
  std::string resolved = std::filesystem::weakly_canonical(root, ec).string();
  if (ec) resolved = root;
  auto other = [&](const jobs::JobInfo* job) {
    return !inside(job->spec.cwd, root) && !inside(job->spec.cwd, resolved);
  };
  list.jobs.erase(std::remove_if(list.jobs.begin(), list.jobs.end(), other), list.jobs.end());
  list.total = list.jobs.size();
  if (limit && list.jobs.size() > limit) list.jobs.resize(limit);
}

}  // namespace

Reply jobs_list(jobs::Engine& engine, const nlohmann::json& raw) {
  engine.refresh_peers();
  Args args(raw);
  jobs::JobQuery query;
  query.limit = args.count_or("limit", 0);
  std::string root = args.string_or("root", "");
  if (!args.ok()) return core::error(args.error());
  if (args.has("status")) {
    const nlohmann::json& status = args.raw()["status"];
    for (const auto& name : status.is_array() ? status : nlohmann::json::array({status})) {
      auto parsed = parse_status(name);
      if (!parsed) return core::error(parsed.error());
      query.statuses.insert(*parsed);
    }
  }
  if (root.empty()) return jobs::list_to_json(engine.jobs(query));
  const size_t limit = query.limit;
  query.limit = 0;  // counted after the project's are kept
  jobs::JobList list = engine.jobs(query);
  keep_project(list, root, limit);
  return jobs::list_to_json(list);
}

Reply jobs_get(jobs::Engine& engine, const nlohmann::json& raw) {
  engine.refresh_peers();
  Args args(raw);
  auto job = existing(engine, args);
  if (!job) return core::error(job.error());
  return jobs::job_to_json(**job);
}

Reply jobs_output(jobs::Engine& engine, const nlohmann::json& raw) {
  engine.refresh_peers();
  Args args(raw);
  auto job = existing(engine, args);
  if (!job) return core::error(job.error());
  size_t max_bytes = std::min<uint64_t>(args.count_or("max_bytes", kMaxChunk), kMaxChunk);
  uint64_t since = args.count_or("since", 0);
  if (!args.ok()) return core::error(args.error());
  jobs::OutputChunk chunk = engine.output((*job)->id, since, max_bytes);
  if (!chunk.error.empty() && chunk.data.empty()) return core::error(chunk.error);
  return jobs::output_to_json(chunk);
}

Reply jobs_cancel(jobs::Engine& engine, const nlohmann::json& raw) {
  engine.refresh_peers();
  Args args(raw);
  auto job = existing(engine, args);
  if (!job) return core::error(job.error());
  return jobs::cancel_to_json(engine.cancel((*job)->id));
}

}  // namespace toolhost::server
