-- Applies the host's feedback batches: extmarks, diagnostics, streamed output, block
-- rewrites, job states and User events. The host calls apply() once per batch through
-- nvim_exec_lua, so the conflict check and the write happen in one call (SPEC 5).
local M = {}

local api = vim.api
local blocks = require("toolhost.blocks")
local rewrite = require("toolhost.rewrite")
local ns = blocks.namespace
M.namespace = ns

local features = require("toolhost.features")
local state, mark_range, set_mark = blocks.state, blocks.mark_range, blocks.set_mark
local set_stream, forget = blocks.set_stream, blocks.forget
local refresh_diagnostics, run_edits = blocks.refresh_diagnostics, rewrite.run_edits

-- toolhost's own writes (tools.lua's edits of loaded buffers too); reply.lua reads
-- rewrite.writing.
M.write = rewrite.write
M.jobs = {} -- job id -> latest record from the host (jobs(), job(), statusline)
M.job_host = {} -- job id -> the host process record that ran it (host.lua's `proc`)
local submitted = {} -- submit()'s call id -> on_done

function M.on_submitted(id, callback)
  submitted[id] = callback
end


-- While a list of batches is applied: buf -> state of the buffers whose diagnostics are set
-- once, after all of them (vim.diagnostic.set costs as much as the buffer has diagnostics).
local deferred = nil

local function apply_buffer(entry, results)
  local buf = entry.buf
  if not api.nvim_buf_is_valid(buf) then
    blocks.drop(buf)
    for _, edit in ipairs(entry.edits or {}) do
      results[#results + 1] = { buf = buf, key = edit.key, job = edit.job, status = "gone" }
    end
    return
  end
  local st = state(buf)
  -- A streaming tick (new last lines, nothing else) leaves the diagnostics as they are:
  -- vim.diagnostic.set would cost a millisecond of Neovim's time ten times a second per buffer.
  local changed = entry.forget or entry.marks or entry.diags or entry.errors or entry.edits
    or #st.waiting > 0
  for _, key in ipairs(entry.forget or {}) do
    forget(buf, st, key)
  end
  for _, m in ipairs(entry.marks or {}) do
    if not st.marks[m.key] then
      set_mark(buf, st, m.key, m.row, m.end_row)
    end
  end
  for _, d in ipairs(entry.diags or {}) do
    st.diags[d.key] = { row = d.row, severity = d.severity, message = d.message }
  end
  if entry.errors then
    st.errors = entry.errors
  end
  if entry.awaiting then
    st.awaiting = entry.awaiting
  end
  for _, prompt in ipairs(entry.prompts or {}) do
    vim.schedule(function()
      M.ask(buf, prompt)
    end)
  end
  for _, edit in ipairs(entry.edits or {}) do
    st.waiting[#st.waiting + 1] = edit
  end
  -- After every change of a buffer, vim.diagnostic (0.7) puts back the extmarks of every
  -- diagnostic it shows there: with one per call, each result written would cost as many
  -- extmark calls as the buffer has calls. Hidden while a list writes, they are shown again by
  -- the refresh that ends the list.
  if deferred and not deferred[buf] and #st.waiting > 0 then
    vim.diagnostic.hide(ns, buf)
  end
  run_edits(buf, st, results)
  for _, s in ipairs(entry.stream or {}) do
    set_stream(buf, st, s.key, s.lines)
  end
  if not changed then
    return
  elseif deferred then
    deferred[buf] = st
  else
    refresh_diagnostics(buf, st)
  end
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

local applying, queue = false, {}

-- `all_jobs` (sent at every host start) is the host's whole job list, history included: it
-- replaces the mirror, so jobs() lists what jobs.list lists. Neovim's buffer numbers outlive
-- a host, so a job keeps the `buf` this Neovim knew when the new record has none. Process
-- groups are not tracked from it: a running job there may be another host's (a peer sharing
-- the state dir, or the host a restart left winding down).
local function replace_jobs(all)
  local jobs = {}
  for _, job in ipairs(all) do
    local known = M.jobs[job.id]
    if job.buf == nil and known then
      job.buf = known.buf
    end
    jobs[job.id] = job
  end
  M.jobs = jobs
end

-- A batch's changes; its events go to `events`, fired once the whole list is applied.
local function apply_one(batch, events)
  local results = {}
  if batch.all_jobs then
    replace_jobs(batch.all_jobs)
  end
  for _, entry in ipairs(batch.buffers or {}) do
    apply_buffer(entry, results)
  end
  local host = require("toolhost.host")
  for _, job in ipairs(batch.jobs or {}) do
    M.job_host[job.id] = host.current() -- only the current host sends batches
    M.jobs[job.id] = job
    host.track_pgid(job.pgid, job.status == "running")
  end
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
  vim.list_extend(events, batch.events or {})
  return results
end

-- Batches in order; then the diagnostics of the buffers they touched, once; then their
-- events, so that a handler sees every change the list made.
local function apply_list(batches)
  local results, events = {}, {}
  deferred = {}
  for _, batch in ipairs(batches) do
    vim.list_extend(results, apply_one(batch, events))
  end
  local dirty = deferred
  deferred = nil
  for buf, st in pairs(dirty) do
    if api.nvim_buf_is_valid(buf) then
      refresh_diagnostics(buf, st)
    end
  end
  for _, e in ipairs(events) do
    fire(e.name, e.data)
  end
  return results
end

-- Applies a list of batches (the host sends those that came while Neovim applied the previous
-- list together); a list that arrives while another is applied (an event handler that waits
-- on the host, say) is applied after it, in order.
function M.apply_all(batches, instance)
  -- The host names itself: a dead host's last batches are not applied.
  if instance and not require("toolhost.host").accepts_batches(instance, batches) then
    return { dropped = true }
  end
  if applying then
    vim.list_extend(queue, batches)
    return { queued = true }
  end
  applying = true
  local ok, results = pcall(apply_list, batches)
  while ok and #queue > 0 do
    local next_list = queue
    queue = {}
    ok, results = pcall(apply_list, next_list)
  end
  deferred = nil
  applying = false
  if not ok then
    error(results)
  end
  return { edits = results }
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
  refresh_diagnostics(buf, st)
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
    refresh_diagnostics(buf, st)
  end
end

function M.forget_buffer(buf)
  local st = blocks.get(buf)
  if st and api.nvim_buf_is_valid(buf) then
    api.nvim_buf_clear_namespace(buf, ns, 0, -1)
    vim.diagnostic.reset(ns, buf)
  end
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
