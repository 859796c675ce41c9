#pragma once
// The jobs.* methods (SPEC 8): jobs.list, jobs.get, jobs.output, jobs.cancel. The host
// serves them as RPC requests to any client and through `toolhost.call`, the asynchronous
// bridge lua/toolhost uses so that Neovim never waits on the host. Each first catches up
// with other hosts' jobs (Engine::refresh_peers), so that a view polling one sees it end.

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "jobs/engine.h"

namespace toolhost::server {

using Reply = core::Result<nlohmann::json>;

// {status?: name or list of names, root?, limit?} -> {jobs, total, running, queued}; with
// `root`, only the jobs of that project: those that ran in it or in a directory under it.
Reply jobs_list(jobs::Engine& engine, const nlohmann::json& args);
// {id} -> the job
Reply jobs_get(jobs::Engine& engine, const nlohmann::json& args);
// {id, since?, max_bytes?} -> {data, next, finished, eof}
Reply jobs_output(jobs::Engine& engine, const nlohmann::json& args);
// {id} -> {canceled}
Reply jobs_cancel(jobs::Engine& engine, const nlohmann::json& args);

}  // namespace toolhost::server
