-- Starts the toolhost process on first use, keeps its channel, restarts it on request and
-- notices when it dies.
local config = require("toolhost.config")
local features = require("toolhost.features")
local groups = require("toolhost.groups")


local M = {}

-- The current host: its job/channel id, the name its batches carry (`instance`), the buffers it
-- serves, and the process groups it reported running (pgids) plus whether we asked it to stop;
-- one `proc` table per process, so an old host's exit after a restart only ever touches its own.
local state = { chan = nil, job = nil, instance = nil, attached = {}, proc = { pgids = {} } }

-- The pid of the host restart() stopped, for its successor: history says that host still runs
-- its jobs until it has ended them.
local replaced_pid = nil

-- Hosts started so far: the next one's batches carry the next number (M.accepts_batches).
local started = 0

-- Answers to M.call(): token -> callback. The host answers with nvim_exec_lua(resolve).
local pending, next_token = {}, 0

local function fail_pending(reason)
  local callbacks = pending
  pending = {}
  for _, callback in pairs(callbacks) do
    pcall(callback, reason, nil)
  end
end

-- The plugin's root: two levels above this file (lua/toolhost/host.lua).
function M.plugin_root()
  local source = debug.getinfo(1, "S").source:sub(2)
  return vim.fn.fnamemodify(source, ":p:h:h:h")
end

function M.binary()
  if config.options.binary then
    return config.options.binary
  end
  return M.plugin_root() .. "/build/toolhost"
end

-- Neovim 0.7 has no stdpath("state"): the state dir lives under "data" there (SPEC 6).
function M.dirs()
  local state_home = vim.fn.stdpath(features.has_stdpath_state and "state" or "data")
  local cache = vim.fn.stdpath("cache") .. "/toolhost"
  return { state = state_home .. "/toolhost", cache = cache, log = cache .. "/toolhost.log" }
end

-- The calls this host was running or had queued end `interrupted` in their buffers.
local function mark_interrupted(proc)
  local ui = require("toolhost.ui")
  for _, job in pairs(ui.jobs) do
    if job.buf and ui.job_host[job.id] == proc and (job.status == "running" or job.status == "queued") then
      ui.interrupt(job)
    end
  end
end

-- A job's group is tracked while it runs (groups.lua): the jobs of a host that dies are ended.
function M.track_pgid(pgid, running, leader_start)
  groups.track(state.proc.pgids, pgid, running, leader_start)
end

function M.running()
  return state.chan ~= nil
end

-- The current host's process record: ui.lua tags the jobs its batches report with it.
function M.current()
  return state.proc
end

function M.channel()
  return state.chan
end

-- Whether the batches host `instance` sent may be applied: only the current host's. A host that
-- died may have sent some just before; they can arrive after its exit marked its calls
-- `interrupted` and would bring them back to life (a late `running`, a result, a stream). A
-- job such a batch reports running or queued that Lua never heard of ends `interrupted` too.
-- The name the current host's batches carry; nil when none runs.
function M.instance()
  return state.instance
end

function M.accepts_batches(instance, batches)
  if instance == state.instance then
    return true
  end
  local ui = require("toolhost.ui")
  for _, batch in ipairs(batches) do
    for _, job in ipairs(batch.jobs or {}) do
      if job.buf and not ui.jobs[job.id] and (job.status == "running" or job.status == "queued") then
        ui.interrupt(job)
      end
    end
  end
  return false
end

-- A new working directory is a new project: the host learns it for the MCP project files and
-- for the agents it serves; and it reads the MCP config files again when one is written here.
local dir_group
local function announce_project_changes()
  if dir_group then
    return
  end
  dir_group = vim.api.nvim_create_augroup("toolhost_project_root", { clear = true })
  vim.api.nvim_create_autocmd("DirChanged", {
    group = dir_group,
    callback = function()
      local chan = M.channel()
      if chan then
        require("toolhost.mcp_trust").announce(chan)
        require("toolhost.agents").announce(chan)
      end
    end,
  })
  -- An MCP config file written here is read again at once (with the others: it is cheap, so
  -- any file of these names will do, wherever it is).
  vim.api.nvim_create_autocmd("BufWritePost", {
    group = dir_group,
    pattern = { "mcp.json", ".mcp.json", "servers.json" },
    callback = function()
      local chan = M.channel()
      if chan then
        require("toolhost.mcp_trust").announce(chan, true)
      end
    end,
  })
end

-- What toolhost.setup carries: the host's options, and this Neovim's binary, which the host
-- runs as its errorformat worker (the user's own, whatever PATH holds).
function M.setup_args()
  local args = config.for_host()
  args.progpath = vim.v.progpath
  return args
end

-- Returns the channel, starting the host if needed; nil and an error text when it cannot.
function M.ensure()
  if state.chan then
    return state.chan
  end
  local bin = M.binary()
  if vim.fn.executable(bin) ~= 1 then
    return nil, ("toolhost binary not found; run `make` in %s"):format(M.plugin_root())
  end
  local dirs = M.dirs()
  started = started + 1
  local instance = tostring(started)
  local cmd = {
    bin, "--stdio",
    "--instance", instance,
    "--state-dir", dirs.state,
    "--cache-dir", dirs.cache,
    "--log-file", dirs.log,
    "--log-level", config.options.log_level,
  }
  local job
  local proc = { pgids = {}, stopping = false }
  job = vim.fn.jobstart(cmd, {
    rpc = true,
    on_exit = function(_, code)
      groups.kill_orphaned(proc)
      mark_interrupted(proc)
      if state.job ~= job then
        return -- a host stopped by restart(): the current state belongs to its successor
      end
      state.chan, state.job, state.instance, state.attached, state.proc = nil, nil, nil, {}, { pgids = {} }
      fail_pending("toolhost exited")
      require("toolhost.reply").unwatch_all()
      if code ~= 0 and not proc.stopping then
        vim.notify(("toolhost exited (code %d); see :ToolhostLog"):format(code), vim.log.levels.ERROR)
      end
    end,
  })
  if job <= 0 then
    return nil, "cannot start " .. bin
  end
  state.job, state.chan, state.instance, state.proc = job, job, instance, proc
  if replaced_pid then
    -- Before setup, whose job list must already say `interrupted` for them.
    vim.rpcnotify(job, "jobs.interrupt_host", { pid = replaced_pid })
    replaced_pid = nil
  end
  -- Neovim ends its jobs when it exits: that is no crash to report.
  vim.api.nvim_create_autocmd("VimLeavePre", {
    once = true,
    callback = function()
      proc.stopping = true
      groups.kill_doomed() -- no SIGKILL timer runs after Neovim
    end,
  })
  require("toolhost.mcp_trust").announce(job) -- before setup: the project's MCP files count
  vim.rpcnotify(job, "toolhost.setup", M.setup_args())
  require("toolhost.agents").announce(job)
  announce_project_changes()
  return job
end

function M.notify(method, args)
  local chan, err = M.ensure()
  if not chan then
    vim.notify(err, vim.log.levels.ERROR)
    return false
  end
  vim.rpcnotify(chan, method, args or {})
  return true
end

-- Asks the host `method` (jobs.list, jobs.get, jobs.output, jobs.cancel) without waiting:
-- `callback(err, result)` runs when the answer arrives. An rpcrequest would block Neovim
-- until the host answered; this never does.
function M.call(method, args, callback)
  local chan, err = M.ensure()
  if not chan then
    callback(err, nil)
    return false
  end
  next_token = next_token + 1
  pending[next_token] = callback
  vim.rpcnotify(chan, "toolhost.call", { token = next_token, method = method, args = args or vim.empty_dict() })
  return true
end

function M.resolve(token, err, result)
  local callback = pending[token]
  pending[token] = nil
  if callback then
    if err == vim.NIL then
      err = nil
    end
    callback(err, result)
  end
end

-- Whether auto-run runs the calls of `buf`: `auto_run`, or what its function says (an error
-- counts as no).
function M.auto_run(buf)
  if require("toolhost.agents").is_agent_buffer(buf) then
    return false -- the host runs or holds an agent's call as it arrives
  end
  local auto_run = config.options.auto_run
  if type(auto_run) == "function" then
    local ok, result = pcall(auto_run, buf)
    return ok and result == true
  end
  return auto_run == true
end

-- How history knows the buffer (SPEC 3): its file's absolute path, or, for a buffer without a
-- file, this Neovim's pid and the buffer number. An agent's buffer is named after the agent,
-- whose calls repeat across sessions: its key has this Neovim's pid and the buffer too, so that
-- history of an earlier session never reads as a call of this one that already ran.
function M.buffer_key(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  if vim.b[buf].toolhost_agent ~= nil then
    return ("%s#nvim-%d:%d"):format(name, vim.fn.getpid(), buf)
  end
  if name ~= "" then
    return name
  end
  return ("nvim-%d:%d"):format(vim.fn.getpid(), buf)
end

function M.attach(buf, root)
  if state.attached[buf] then
    return true
  end
  local keys = config.options.keymaps or {}
  local ok = M.notify("toolhost.attach", {
    buf = buf,
    root = root,
    name = M.buffer_key(buf),
    filetype = vim.bo[buf].filetype,
    auto_run = M.auto_run(buf),
    run_key = keys.run or nil,
    reject_key = keys.reject or nil,
  })
  if ok then
    state.attached[buf] = true
  end
  return ok
end

function M.is_attached(buf)
  return state.attached[buf] == true
end

function M.forget(buf)
  state.attached[buf] = nil
end

-- Closes the host's channel; it then ends its jobs and exits on its own (SPEC 6: SIGKILL to
-- what is left after 300 ms, gone within 1 s).
function M.stop()
  if state.job then
    state.proc.stopping = true
    vim.fn.jobstop(state.job)
  end
end

-- Stops the host without waiting for it to exit (jobwait() would freeze the editor for the
-- old host's shutdown grace) and forgets it at once, so that the next ensure() starts a new
-- host right away. Answers the old host still owed fail now; its on_exit only kills the
-- process groups it had reported. Its running and queued calls end `interrupted` now: the old
-- host ends their jobs, records them so and writes nothing more into the buffers, so each
-- call gets this one result. Returns the buffers it served, to attach again.
function M.restart()
  local buffers = vim.tbl_keys(state.attached)
  if state.job then
    local ok, pid = pcall(vim.fn.jobpid, state.job)
    replaced_pid = ok and pid > 0 and pid or nil
  end
  M.stop()
  mark_interrupted(state.proc)
  state.chan, state.job, state.instance, state.attached, state.proc = nil, nil, nil, {}, { pgids = {} }
  fail_pending("toolhost restarted")
  return buffers
end

return M
