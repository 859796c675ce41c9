-- :ToolJobs: a window listing the host's jobs of this project (:ToolJobs!: of every project),
-- history included, newest first.
-- <CR> opens a job's output, `c` cancels it, `r` re-runs it, `q` closes the window.
local host = require("toolhost.host")
local fmt = require("toolhost.format")
local config = require("toolhost.config")
local view_util = require("toolhost.view_util")

local M = {}
local uv = vim.uv or vim.loop

-- ids: row (1-based) -> job id; all: every project's jobs, else those of config.root()
local view = { buf = nil, ids = {}, all = false }

-- Whether `dir` is `root` or a directory under it.
local function inside(dir, root)
  if type(dir) ~= "string" or root == "" or dir:sub(1, #root) ~= root then
    return false
  end
  return #dir == #root or root:sub(-1) == "/" or dir:sub(#root + 1, #root + 1) == "/"
end

-- A test of whether a job is one of project `root`'s: it ran there or in a directory under it
-- (a refused or rejected call records the root). The host's jobs.list { root } keeps the same.
function M.in_project(root)
  local resolved = uv.fs_realpath(root) or root
  return function(job)
    return inside(job.cwd, root) or inside(job.cwd, resolved)
  end
end

local kHeader = 2 -- title line and column names

local function valid()
  return view_util.valid(view.buf)
end

local function render(err, result)
  if not valid() then
    return
  end
  local lines, ids = {}, {}
  if err then
    lines = { "toolhost: " .. tostring(err) }
  else
    lines[1] = ("toolhost jobs: %d total, %d running, %d queued (%s)   <CR> output  c cancel  r re-run  q close")
      :format(result.total or 0, result.running or 0, result.queued or 0, view.all and "all projects" or view.root)
    lines[2] = ("%-8s %-22s %-11s %8s %-9s %s"):format("ID", "TOOL", "STATUS", "TIME", "EXIT", "COMMAND")
    for _, job in ipairs(result.jobs or {}) do
      lines[#lines + 1] = ("%-8s %-22s %-11s %8s %-9s %s"):format(
        job.id, job.tool or "", job.status or "", fmt.duration(job.duration_s), fmt.exit(job), fmt.summary(job))
      ids[#lines] = job.id
    end
  end
  view.ids = ids
  view_util.set_lines(view.buf, lines)
  require("toolhost.ui").fire("ToolhostViewUpdated", { view = "jobs", buf = view.buf })
end

function M.refresh()
  if valid() then
    host.call("jobs.list", { limit = 500, root = not view.all and view.root or nil }, render)
  end
end

-- The job id on the cursor's line of the jobs window.
function M.job_under_cursor()
  return view_util.under_cursor(view.ids)
end

local function with_job(action)
  return view_util.on_row(M.job_under_cursor, action)
end

local after_refresh = view_util.then_refresh(function() M.refresh() end)

-- `opts.all`: the jobs of every project (:ToolJobs!), else of this one (config.root()).
function M.open(opts)
  view.all = opts ~= nil and opts.all == true
  view.root = config.root()
  if view_util.show_again(view.buf) then
    return M.refresh()
  end
  vim.cmd("botright new")
  view.buf = view_util.scratch("toolhost://jobs", "toolhost-jobs")
  render(nil, { jobs = {}, total = 0, running = 0, queued = 0 })
  local map = view_util.mapper(view.buf)
  map("<CR>", with_job(function(id) require("toolhost.output_view").open(id) end), "open output")
  map("c", with_job(function(id) host.call("jobs.cancel", { id = id }, after_refresh) end), "cancel job")
  map("r", with_job(function(id) host.call("jobs.rerun", { id = id }, after_refresh) end), "re-run job")
  view_util.refresh_on("toolhost_jobs_view", { "ToolhostJobStarted", "ToolhostJobFinished" }, valid, function()
    M.refresh()
  end)
  M.refresh()
end

return M
