#pragma once
// The jobs.* queries (SPEC 8): jobs.list, jobs.get, jobs.output, jobs.cancel. The host
// serves them as RPC requests to any client and through `toolhost.call`, the asynchronous
// bridge lua/toolhost uses so that Neovim never waits on the host.

#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "jobs/engine.h"

namespace toolhost::session {

// A query the host cannot answer; what() is the message the caller sees.
struct QueryError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The methods answer_job_query() knows.
const std::vector<std::string>& job_query_methods();

// Answers `method` with `args` (one table: {status?, limit?}, {id}, {id, since?, max_bytes?}).
// Throws QueryError for an unknown method, a bad argument or an unknown job.
nlohmann::json answer_job_query(jobs::Engine& engine, const std::string& method,
                                const nlohmann::json& args);

}  // namespace toolhost::session
