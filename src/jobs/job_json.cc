#include "jobs/job_json.h"

#include <cstring>

namespace toolhost::jobs {

std::string signal_name(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  return abbrev ? std::string("SIG") + abbrev : "SIG" + std::to_string(signal);
}

std::optional<int> signal_number(std::string_view name) {
  for (int signal = 1; signal < 65; ++signal) {
    if (signal_name(signal) == name) return signal;
  }
  if (name.rfind("SIG", 0) == 0 && name.size() > 3) {
    int number = std::atoi(std::string(name.substr(3)).c_str());
    if (number > 0) return number;
  }
  return std::nullopt;
}

namespace {

nlohmann::json stream_to_json(const Capture& capture) {
  nlohmann::json out = nlohmann::json::object();
  auto& fields = out.get_ref<nlohmann::json::object_t&>();
  fields.emplace("bytes", capture.bytes());
  fields.emplace("lines", capture.lines());
  return out;
}

// The fields of a job that change as it runs, in both of its shapes (job_to_json, end_line).
// Each is emplaced into the object: an initializer list builds a pair array per key and
// copies it, four times the allocations, and a job's JSON is on the path from its exit to the
// feedback in Neovim (bench/NOTES-p2.md).
void add_state(nlohmann::json::object_t& fields, const JobInfo& job) {
  fields.emplace("id", job.id);
  fields.emplace("status", to_string(job.status));
  fields.emplace("exit_code", job.exit_code ? nlohmann::json(*job.exit_code) : nlohmann::json());
  fields.emplace("signal", job.term_signal ? nlohmann::json(signal_name(*job.term_signal))
                                           : nlohmann::json());
  fields.emplace("error", job.error);
  fields.emplace("pid", job.pid);
  fields.emplace("pgid", job.pgid);
  fields.emplace("leader_start",
                 nlohmann::json::array({job.leader_start_min, job.leader_start_max}));
  fields.emplace("started_at_ms", job.started_at_ms);
  fields.emplace("duration_s", job.duration_s);
  fields.emplace("stdout", stream_to_json(job.out));
  fields.emplace("stderr", stream_to_json(job.err));
  fields.emplace("log", job.log_path);
  fields.emplace("log_bytes", job.log_bytes);
}

}  // namespace

nlohmann::json job_to_json(const JobInfo& job) {
  nlohmann::json out = nlohmann::json::object();
  auto& fields = out.get_ref<nlohmann::json::object_t&>();
  add_state(fields, job);
  fields.emplace("call_id", job.spec.call_id);
  fields.emplace("tool", job.spec.tool);
  fields.emplace("params", job.spec.params);
  fields.emplace("cwd", job.spec.cwd);
  fields.emplace("buffer", job.spec.buffer_name);
  fields.emplace("queued_at_ms", job.queued_at_ms);
  return out;
}

nlohmann::json end_line(const JobInfo& job, const nlohmann::json& host) {
  nlohmann::json out = nlohmann::json::object();
  auto& fields = out.get_ref<nlohmann::json::object_t&>();
  add_state(fields, job);
  fields.emplace("ev", "ended");
  fields.emplace("host", host);
  if (!job.inline_log.empty()) fields.emplace("output", job.inline_log);
  return out;
}

JobInfo job_from_json(const nlohmann::json& json) {
  JobInfo job;
  auto string = [&](const char* key) {
    auto it = json.find(key);
    return it != json.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  job.id = string("id");
  job.number = job_number(job.id);
  job.spec.call_id = string("call_id");
  job.spec.tool = string("tool");
  if (auto it = json.find("params"); it != json.end()) job.spec.params = *it;
  job.spec.cwd = string("cwd");
  job.spec.buffer_name = string("buffer");
  job.status = status_from_string(string("status")).value_or(Status::Interrupted);
  if (auto it = json.find("exit_code"); it != json.end() && it->is_number_integer()) {
    job.exit_code = it->get<int>();
  }
  if (auto it = json.find("signal"); it != json.end() && it->is_string()) {
    job.term_signal = signal_number(it->get<std::string>());
  }
  job.error = string("error");
  job.pid = number_or(json, "pid", 0);
  job.pgid = number_or(json, "pgid", 0);
  if (auto it = json.find("leader_start"); it != json.end() && it->is_array() && it->size() == 2 &&
                                           (*it)[0].is_number_unsigned() &&
                                           (*it)[1].is_number_unsigned()) {
    job.leader_start_min = (*it)[0].get<uint64_t>();
    job.leader_start_max = (*it)[1].get<uint64_t>();
  }
  job.queued_at_ms = number_or(json, "queued_at_ms", int64_t{0});
  job.started_at_ms = number_or(json, "started_at_ms", int64_t{0});
  job.duration_s = number_or(json, "duration_s", 0.0);
  for (auto [key, capture] : {std::pair{"stdout", &job.out}, std::pair{"stderr", &job.err}}) {
    auto it = json.find(key);
    if (it == json.end() || !it->is_object()) continue;
    capture->restore_counts(number_or(*it, "bytes", uint64_t{0}),
                            number_or(*it, "lines", uint64_t{0}));
  }
  job.log_path = string("log");
  job.log_bytes = number_or(json, "log_bytes", uint64_t{0});
  job.inline_log = string("output");  // only in history lines (Engine::record_end)
  return job;
}

nlohmann::json list_to_json(const JobList& list) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const JobInfo* job : list.jobs) jobs.push_back(job_to_json(*job));
  return {{"jobs", std::move(jobs)},
          {"total", list.total},
          {"running", list.running},
          {"queued", list.queued}};
}

nlohmann::json output_to_json(const OutputChunk& chunk) {
  nlohmann::json out = {
      {"data", chunk.data}, {"next", chunk.next}, {"finished", chunk.finished}, {"eof", chunk.eof}};
  if (!chunk.error.empty()) out["error"] = chunk.error;
  return out;
}

nlohmann::json cancel_to_json(bool canceled) {
  return {{"canceled", canceled}};
}

}  // namespace toolhost::jobs
