#pragma once
// JSON shapes of the job engine, for the history file and the RPC layer (jobs.list,
// jobs.get, jobs.output, jobs.cancel).

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <type_traits>

#include "jobs/engine.h"
#include "jobs/types.h"

namespace toolhost::jobs {

// "SIGTERM" for 15; "SIG99" when the number has no name.
std::string signal_name(int signal);
std::optional<int> signal_number(std::string_view name);

// `object[key]` when it is a number that fits T, else `fallback`: history lines may have been
// edited by hand or written by another version, and a wrong type must read as absent.
template <typename T>
T number_or(const nlohmann::json& object, const char* key, T fallback) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return fallback;
  if constexpr (std::is_floating_point_v<T>) {
    return it->template get<T>();
  } else {
    // A hand-edited line may hold 1e30 or -1 where a count goes: out of range is as absent
    // (a float's cast to an integer it does not fit is undefined).
    if (!it->is_number_integer()) return fallback;
    if (it->is_number_unsigned()) {
      auto value = it->template get<uint64_t>();
      return value <= static_cast<uint64_t>(std::numeric_limits<T>::max()) ? static_cast<T>(value)
                                                                           : fallback;
    }
    auto value = it->template get<int64_t>();
    if (value < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
        (value > 0 &&
         static_cast<uint64_t>(value) > static_cast<uint64_t>(std::numeric_limits<T>::max()))) {
      return fallback;
    }
    return static_cast<T>(value);
  }
}

// {id, call_id, tool, params, cwd, buffer, status, exit_code, signal, error, pid, pgid,
//  leader_start [min, max], queued_at_ms, started_at_ms, duration_s, stdout{bytes,lines},
//  stderr{bytes,lines}, log, log_bytes}. exit_code and signal ("SIGTERM") are null when absent.
nlohmann::json job_to_json(const JobInfo& job);

// A finished job's history line ("ev": "ended"): its state without what the queued line said
// (call, tool, params, cwd, buffer), the writing host, and its inline output when it has one.
nlohmann::json end_line(const JobInfo& job, const nlohmann::json& host);

// The reverse, for records read back from history; unknown or missing fields keep defaults.
JobInfo job_from_json(const nlohmann::json& json);
// {jobs: [job…], total, running, queued}
nlohmann::json list_to_json(const JobList& list);
// {data, next, finished, eof[, error]}
nlohmann::json output_to_json(const OutputChunk& chunk);
// {canceled: bool}
nlohmann::json cancel_to_json(bool canceled);

}  // namespace toolhost::jobs
