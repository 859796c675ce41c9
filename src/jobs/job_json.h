#pragma once
// JSON shapes of the job engine, for the history file and the RPC layer (jobs.list,
// jobs.get, jobs.output, jobs.cancel).

#include <nlohmann/json.hpp>

#include "jobs/engine.h"
#include "jobs/types.h"

namespace toolhost::jobs {

// "SIGTERM" for 15; "SIG99" when the number has no name.
std::string signal_name(int signal);
std::optional<int> signal_number(std::string_view name);

// {id, call_id, tool, params, cwd, buffer, status, exit_code, signal, error, pid, pgid,
//  queued_at_ms, started_at_ms, duration_s, stdout{bytes,lines}, stderr{bytes,lines}, log,
//  log_bytes}. exit_code and signal ("SIGTERM") are null when absent.
nlohmann::json job_to_json(const JobInfo& job);
// The reverse, for records read back from history; unknown or missing fields keep defaults.
JobInfo job_from_json(const nlohmann::json& json);
// {jobs: [job…], total, running, queued}
nlohmann::json list_to_json(const JobList& list);
// {data, next, finished, eof[, error]}
nlohmann::json output_to_json(const OutputChunk& chunk);
// {canceled: bool}
nlohmann::json cancel_to_json(bool canceled);

}  // namespace toolhost::jobs
