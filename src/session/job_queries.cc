#include "session/job_queries.h"

#include <optional>

#include "jobs/job_json.h"

namespace toolhost::session {
namespace {

constexpr size_t kMaxChunk = 4u << 20;  // one jobs.output answer stays a small RPC message

std::string job_id(const nlohmann::json& args) {
  auto it = args.find("id");
  if (it == args.end() || !it->is_string()) throw QueryError("missing job id");
  return it->get<std::string>();
}

uint64_t non_negative(const nlohmann::json& args, const char* key, uint64_t fallback) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return fallback;
  if (!it->is_number_integer() || it->get<int64_t>() < 0) {
    throw QueryError(std::string("`") + key + "` must be a number >= 0");
  }
  return it->get<uint64_t>();
}

jobs::Status parse_status(const nlohmann::json& value) {
  if (value.is_string()) {
    if (auto status = jobs::status_from_string(value.get<std::string>())) return *status;
  }
  throw QueryError("unknown status " + value.dump());
}

jobs::JobQuery list_query(const nlohmann::json& args) {
  jobs::JobQuery query;
  query.limit = non_negative(args, "limit", 0);
  auto it = args.find("status");
  if (it == args.end() || it->is_null()) return query;
  if (it->is_array()) {
    for (const auto& s : *it) query.statuses.insert(parse_status(s));
  } else {
    query.statuses.insert(parse_status(*it));
  }
  return query;
}

const jobs::JobInfo& existing(const jobs::Engine& engine, const std::string& id) {
  const jobs::JobInfo* job = engine.get(id);
  if (!job) throw QueryError("no job " + id);
  return *job;
}

}  // namespace

const std::vector<std::string>& job_query_methods() {
  static const std::vector<std::string> methods = {"jobs.list", "jobs.get", "jobs.output",
                                                   "jobs.cancel"};
  return methods;
}

nlohmann::json answer_job_query(jobs::Engine& engine, const std::string& method,
                                const nlohmann::json& raw_args) {
  const nlohmann::json args = raw_args.is_object() ? raw_args : nlohmann::json::object();
  if (method == "jobs.list") return jobs::list_to_json(engine.jobs(list_query(args)));
  if (method == "jobs.get") return jobs::job_to_json(existing(engine, job_id(args)));
  if (method == "jobs.output") {
    std::string id = job_id(args);
    existing(engine, id);
    size_t max_bytes = std::min<uint64_t>(non_negative(args, "max_bytes", kMaxChunk), kMaxChunk);
    jobs::OutputChunk chunk = engine.output(id, non_negative(args, "since", 0), max_bytes);
    if (!chunk.error.empty() && chunk.data.empty()) throw QueryError(chunk.error);
    return jobs::output_to_json(chunk);
  }
  if (method == "jobs.cancel") {
    std::string id = job_id(args);
    existing(engine, id);
    return jobs::cancel_to_json(engine.cancel(id));
  }
  throw QueryError("unknown method " + method);
}

}  // namespace toolhost::session
