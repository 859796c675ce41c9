-- Applies the host's feedback batches: extmarks, diagnostics, streamed output, block
-- rewrites, job states and User events. The host sends lists of batches through
-- nvim_exec_lua; each rewrite's conflict check and write happen in one step (SPEC 5), and a
-- list is applied in slices with Neovim's loop in between (slices.lua).
local M = {}

local api = vim.api
local blocks = require("toolhost.blocks")
local rewrite = require("toolhost.rewrite")
local slices = require("toolhost.slices")
local refresh = require("toolhost.refresh")
local ns = blocks.namespace
M.namespace = ns

local features = require("toolhost.features")
local mark_range, set_stream = blocks.mark_range, blocks.set_stream
local run_edits = rewrite.run_edits

-- toolhost's own writes (tools.lua's edits of loaded buffers too); reply.lua reads
-- rewrite.writing.
M.write = rewrite.write
M.jobs = {} -- job id -> latest record from the host (jobs(), job(), statusline)
M.job_host = {} -- job id -> the host process record that ran it (host.lua's `proc`)
local submitted = {} -- submit()'s call id -> on_done

function M.on_submitted(id, callback)
  submitted[id] = callback
end


-- Fires `User {name}` with `data` (0.8+: in the autocmd's data; every version: g:toolhost_event).
local function fire(name, data)
  -- No handler, nothing to do: ToolhostJobOutput comes ten times a second for each running job.
  if vim.fn.exists("#User#" .. name) == 0 then
    return
  end
  vim.g.toolhost_event = data
  local opts = { pattern = name, modeline = false }
  if features.has_autocmd_data then
    opts.data = data
  end
  pcall(api.nvim_exec_autocmds, "User", opts)
end

M.fire = fire

-- A list of batches is applied as steps (slices.lua runs them in slices): per buffer entry, its
-- state, then each rewrite and each stream (apply_buffer.lua); per batch, each job, then its
-- callbacks; at the end, the events (a handler sees every result, mark and job the list
-- wrote), then the diagnostics of every buffer the list touched, once (vim.diagnostic.set
-- costs as much as the buffer has diagnostics). The cheap steps between a list's last write
-- and its events are glued (slices.lua): the events fire in the slice of the write they
-- report, not a loop turn later (a redraw, another client's request). `list`: { results,
-- events, dirty = buf -> state, wrote = buf -> true, urgent = buf -> true (its refresh may not
-- wait, refresh.lua), glued }.

-- `all_jobs` (sent at every host start) is the host's whole job list, history included, in
-- pages (`all_jobs_page` = { first, last }; none: one page): it replaces the mirror, so jobs()
-- lists what jobs.list lists. Each page's records land at once (the first carries the live
-- jobs); the last drops the jobs no page named. A record a `jobs` update brought since the
-- first page wins over a page's: the pages are the host's list as setup() saw it. Neovim's
-- buffer numbers outlive a host, so a job keeps the `buf` this Neovim knew when the new record
-- has none. Process groups are not tracked from it: a running job there may be another host's
-- (a peer sharing the state dir, or the host a restart left winding down).
local paged = nil -- id -> true: the jobs named since the first page, while pages come

local function replace_jobs(all, page)
  page = page or { first = true, last = true }
  if page.first or not paged then
    paged = {}
  end
  for _, job in ipairs(all) do
    if not paged[job.id] then
      local known = M.jobs[job.id]
      if job.buf == nil and known then
        job.buf = known.buf
      end
      M.jobs[job.id] = job
      paged[job.id] = true
    end
  end
  if page.last then
    for id in pairs(M.jobs) do
      if not paged[id] then
        M.jobs[id] = nil
      end
    end
    paged = nil
  end
end

-- One step per job: a running job's first record starts tracking its process group, which
-- reads /proc/<pgid>/stat when the host sent no `leader_start` (groups.lua; up to 0.7 ms a
-- job while eight floods were being exec'd on a loaded machine).
local function update_job(job)
  local host = require("toolhost.host")
  M.job_host[job.id] = host.current() -- only the current host sends batches
  M.jobs[job.id] = job
  if paged then
    paged[job.id] = true
  end
  host.track_pgid(job.pgid, job.status == "running", job.leader_start)
end

local function batch_callbacks(batch, list)
  for _, done in ipairs(batch.submitted or {}) do
    local callback = submitted[done.id]
    submitted[done.id] = nil
    if callback then
      local ok, err = pcall(callback, { id = done.id, status = done.status, output = done.output, job = done.job })
      if not ok then
        vim.notify("toolhost: on_done of " .. done.id .. " failed: " .. tostring(err), vim.log.levels.ERROR)
      end
    end
  end
  for _, n in ipairs(batch.notify or {}) do
    vim.notify(n.message, vim.log.levels[(n.level or "info"):upper()] or vim.log.levels.INFO)
  end
  for _, e in ipairs(batch.events or {}) do
    list.events[#list.events + 1] = e
    -- A handler of ToolhostJobFinished may look at the call's diagnostic right after it.
    local buf = e.name == "ToolhostJobFinished" and type(e.data) == "table" and e.data.buf
    if buf then
      list.urgent[buf] = true
    end
  end
end

-- Each touched buffer's diagnostics set again, now.
local function refresh_steps(list)
  local steps = {}
  for buf in pairs(list.dirty) do
    steps[#steps + 1] = function()
      refresh.now(buf)
    end
  end
  return steps
end

-- A host's list: each touched buffer's refresh, coalesced with other lists' (refresh.lua);
-- `after` once all are done.
local function request_refreshes(list, work, after)
  local remaining = 1
  local function one_done()
    remaining = remaining - 1
    if remaining == 0 then
      after()
    end
  end
  for buf in pairs(list.dirty) do
    remaining = remaining + 1
    if refresh.request(buf, list.wrote[buf] or list.urgent[buf], one_done) then
      -- The slice ends here, so that the answer leaves before the refresh starts.
      work.yield_after = true
    end
  end
  one_done()
end

-- The last steps: each event, then each touched buffer's diagnostics. The events first: a
-- handler (a chat plugin sending results back to the model) waits on the result written, not
-- on the diagnostics, whose refresh re-sets every call's diagnostic of the buffer (~1.2 ms for
-- 100 calls when it came first and was the largest part of P2; ~0.3 ms now). A host's list
-- leaves its refresh to refresh.lua (apply_all), which coalesces it with other lists': the host
-- hears that the list is applied, and may send the next, before the refresh runs.
local function finish_steps(steps, list)
  for _, e in ipairs(list.events) do
    steps[#steps + 1] = function()
      fire(e.name, e.data)
    end
    list.glued[steps[#steps]] = true
  end
  if not list.coalesce_refresh then
    vim.list_extend(steps, refresh_steps(list))
  end
end

local buffer_steps = require("toolhost.apply_buffer").steps

local function list_steps(batches, list)
  local steps = {}
  for _, batch in ipairs(batches) do
    if batch.all_jobs then
      steps[#steps + 1] = function()
        replace_jobs(batch.all_jobs, batch.all_jobs_page)
      end
    end
    for _, entry in ipairs(batch.buffers or {}) do
      buffer_steps(steps, entry, list)
    end
    for _, job in ipairs(batch.jobs or {}) do
      steps[#steps + 1] = function()
        update_job(job)
      end
      -- Only a running job's first record may read /proc (update_job).
      list.glued[steps[#steps]] = job.status ~= "running" or nil
    end
    for _, update in ipairs(batch.quickfix or {}) do
      require("toolhost.quickfix").steps(steps, update)
    end
    steps[#steps + 1] = function()
      batch_callbacks(batch, list)
    end
    list.glued[steps[#steps]] = true
  end
  steps[#steps + 1] = function()
    finish_steps(steps, list)
  end
  list.glued[steps[#steps]] = true
  return steps
end

-- Called with the batches of each list once it is applied, its diagnostics refresh included
-- (tests watch with it).
M.after_list = nil

-- Applies a list of batches (the host sends those that came while Neovim applied the previous
-- list together), after the lists queued before it. A host passes its `instance` (see
-- host.lua): the batches of a host that is gone are dropped at once, and a list of a host that
-- goes while it is applied stops there. From a host it is applied in slices with Neovim's loop
-- in between; when the list is not done before this returns, the answer is `{ pending = true }`
-- and the results go to the host in a `toolhost.applied` notification once the last slice is
-- done, and only then does it send its next list. Any other caller gets the whole list applied
-- now, unless lists are queued (an event handler of a list applying another): then it is
-- applied after them and the answer is `{ pending = true }`.
function M.apply_all(batches, instance)
  local host = require("toolhost.host")
  -- The host names itself: a dead host's last batches are not applied.
  if instance and not host.accepts_batches(instance, batches) then
    return { dropped = true }
  end
  local from_host = instance ~= nil
  local proc, chan = host.current(), from_host and host.channel() or nil
  local list = { results = {}, events = {}, dirty = {}, wrote = {}, urgent = {}, glued = {},
                 coalesce_refresh = from_host }
  local work = { steps = list_steps(batches, list), glued = list.glued }
  -- A list of a host that is gone (stopped, restarted, dead) stops where it is: that host's
  -- calls were marked interrupted when it went, and get no second result.
  work.dropped = function()
    return from_host and host.current() ~= proc
  end
  work.done = function()
    if work.was_dropped then
      -- What it wrote is shown with the diagnostics it changed.
      for buf in pairs(list.wrote) do
        refresh.now(buf)
      end
      return
    end
    if work.answered and chan then
      pcall(vim.rpcnotify, chan, "toolhost.applied", { edits = list.results, errors = work.errors })
    end
    local function after()
      if M.after_list then
        M.after_list(batches)
      end
    end
    if list.coalesce_refresh then
      request_refreshes(list, work, after)
    else
      after()
    end
  end
  if slices.push(work, not from_host) then
    return { edits = list.results, errors = work.errors }
  end
  work.answered = true
  return { pending = true }
end

-- One batch (as apply_all({ batch })).
function M.apply(batch)
  return M.apply_all({ batch })
end

-- A question from the host: whether to run a finished call again (SPEC 4: :ToolRun on a
-- finished block asks).
function M.ask(buf, prompt)
  if prompt.kind ~= "rerun" then
    return
  end
  local question = ("%s already ran (%s). Run it again?"):format(prompt.tool, prompt.status)
  vim.ui.select({ "Run it again", "Cancel" }, { prompt = question }, function(choice)
    if choice == "Run it again" then
      require("toolhost.host").notify("toolhost.run", { buf = buf, call_id = prompt.key, force = true })
    end
  end)
end

-- The host died while `job` ran (SPEC 4, `interrupted`): its block gets the diagnostic and a
-- result block saying so, written by Lua since no host is left to do it. The next host finds
-- the job in history as interrupted too, so the call is never re-run by itself.
function M.interrupt(job)
  local buf, key = job.buf, job.call_id
  local st = buf and blocks.get(buf)
  job.status = "interrupted"
  M.jobs[job.id] = job
  if not st or not key or not api.nvim_buf_is_valid(buf) then
    return
  end
  set_stream(buf, st, key, {})
  st.diags[key] = {
    row = (mark_range(buf, st, key)) or 0,
    severity = vim.diagnostic.severity.ERROR,
    message = ("✗ %s: interrupted"):format(job.tool),
  }
  local _, last = mark_range(buf, st, key)
  if last and vim.bo[buf].modifiable then
    rewrite.write(buf, last + 1, last + 1, {
      ("````result id=%s tool=%s status=interrupted"):format(job.id, job.tool),
      ("The tool host stopped while this call ran; its output so far: :ToolOutput %s"):format(job.id),
      "````",
    })
  end
  refresh.now(buf) -- and a refresh that waits is done by this one
  fire("ToolhostJobFinished", { id = job.id, tool = job.tool, status = "interrupted", buf = buf, call_id = key })
end

-- Calls awaiting approval in this Neovim's chat buffers (statusline()).
function M.awaiting_count()
  local count = 0
  for _, st in blocks.each() do
    count = count + #(st.awaiting or {})
  end
  return count
end

-- Retries the rewrites that had to wait (InsertLeave, 'modifiable' set back).
function M.retry(buf)
  local st = blocks.get(buf)
  if st and #st.waiting > 0 and api.nvim_buf_is_valid(buf) then
    run_edits(buf, st, {})
    refresh.now(buf)
  end
end

function M.forget_buffer(buf)
  local st = blocks.get(buf)
  if st and api.nvim_buf_is_valid(buf) then
    api.nvim_buf_clear_namespace(buf, ns, 0, -1)
    require("toolhost.diagnostic_marks").forget(buf)
    vim.diagnostic.reset(ns, buf)
  end
  refresh.forget(buf)
  blocks.drop(buf)
end

-- The call id whose block covers `row` (0-based), if any.
function M.call_at(buf, row)
  local st = blocks.get(buf)
  for key in pairs(st and st.marks or {}) do
    local first, last = mark_range(buf, st, key)
    if first and row >= first and row <= last then
      return key
    end
  end
  return nil
end

function M.marks(buf)
  local st = blocks.get(buf)
  return st and st.marks or {}
end

local group = api.nvim_create_augroup("toolhost_ui", { clear = true })
api.nvim_create_autocmd("InsertLeave", {
  group = group,
  callback = function(args)
    M.retry(args.buf)
  end,
})
api.nvim_create_autocmd("OptionSet", {
  group = group,
  pattern = "modifiable",
  callback = function()
    M.retry(api.nvim_get_current_buf())
  end,
})

return M
