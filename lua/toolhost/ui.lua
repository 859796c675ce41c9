-- Applies the host's feedback batches: extmarks, diagnostics, streamed output, block
-- rewrites, job states and User events. The host calls apply() once per batch through
-- nvim_exec_lua, so the conflict check and the write happen in one call (SPEC 5).
local M = {}

local api = vim.api
local ns = api.nvim_create_namespace("toolhost")
M.namespace = ns

local features = require("toolhost.features")

local buffers = {} -- buf -> per-buffer state
M.jobs = {} -- job id -> latest record from the host (jobs(), job(), statusline)
M.job_host = {} -- job id -> the host process record that ran it (host.lua's `proc`)
local submitted = {} -- submit()'s call id -> on_done

function M.on_submitted(id, callback)
  submitted[id] = callback
end

local function state(buf)
  local st = buffers[buf]
  if not st then
    st = { marks = {}, streams = {}, results = {}, diags = {}, errors = {}, waiting = {} }
    buffers[buf] = st
  end
  return st
end

-- Current rows of extmark `id`: first, last (inclusive); nil when it is gone or invalid.
local function extmark_rows(buf, id)
  if not id then
    return nil
  end
  local pos = api.nvim_buf_get_extmark_by_id(buf, ns, id, { details = true })
  if not pos or #pos == 0 then
    return nil
  end
  local details = pos[3] or {}
  if details.invalid then
    return nil
  end
  return pos[1], details.end_row or pos[1]
end

-- Current rows of a block's extmark.
local function mark_range(buf, st, key)
  return extmark_rows(buf, st.marks[key])
end

local function set_mark(buf, st, key, row, last)
  local count = api.nvim_buf_line_count(buf)
  row = math.max(0, math.min(row, count - 1))
  last = math.max(row, math.min(last, count - 1))
  local opts = { id = st.marks[key], end_row = last, end_col = 0 }
  if features.has_extmark_invalidate then
    opts.invalidate = true
  end
  local ok, id = pcall(api.nvim_buf_set_extmark, buf, ns, row, 0, opts)
  if ok then
    st.marks[key] = id
  end
end

local function set_stream(buf, st, key, lines)
  local old = st.streams[key]
  if #lines == 0 then
    if old then
      pcall(api.nvim_buf_del_extmark, buf, ns, old)
      st.streams[key] = nil
    end
    return
  end
  local _, last = mark_range(buf, st, key)
  if not last then
    return
  end
  local virt = {}
  for _, line in ipairs(lines) do
    virt[#virt + 1] = { { line, "Comment" } }
  end
  local ok, id = pcall(api.nvim_buf_set_extmark, buf, ns, last, 0, { id = old, virt_lines = virt })
  if ok then
    st.streams[key] = id
  end
end

local function forget(buf, st, key)
  if st.marks[key] then
    pcall(api.nvim_buf_del_extmark, buf, ns, st.marks[key])
  end
  if st.results[key] then
    pcall(api.nvim_buf_del_extmark, buf, ns, st.results[key])
  end
  set_stream(buf, st, key, {})
  st.marks[key], st.diags[key], st.results[key] = nil, nil, nil
end

local function refresh_diagnostics(buf, st)
  local list = {}
  for key, d in pairs(st.diags) do
    local row = mark_range(buf, st, key) or d.row
    list[#list + 1] = { lnum = row, col = 0, severity = d.severity, message = d.message, source = "toolhost" }
  end
  for _, e in ipairs(st.errors) do
    list[#list + 1] = {
      lnum = e.row,
      end_lnum = math.max(e.row, e.end_row - 1),
      col = 0,
      severity = vim.diagnostic.severity.ERROR,
      message = e.message,
      source = "toolhost",
    }
  end
  vim.diagnostic.set(ns, buf, list)
end

-- A write must wait while the user types in the buffer or a plugin streams into it.
local function write_blocked(buf)
  if not vim.bo[buf].modifiable then
    return true
  end
  local mode = api.nvim_get_mode().mode
  return api.nvim_get_current_buf() == buf and (mode:sub(1, 1) == "i" or mode:sub(1, 1) == "R")
end

-- True while toolhost itself changes a buffer: reply.lua's idle rule does not count it.
M.writing = false

-- nvim_buf_set_lines as toolhost's own write; returns pcall's results.
function M.write(buf, first, last, lines)
  M.writing = true
  local ok, err = pcall(api.nvim_buf_set_lines, buf, first, last, false, lines)
  M.writing = false
  return ok, err
end

local function conflict(buf, st, edit, why)
  set_stream(buf, st, edit.key, edit.fallback)
  local before = st.diags[edit.key] and st.diags[edit.key].message or edit.job
  st.diags[edit.key] = {
    row = (mark_range(buf, st, edit.key)) or 0,
    severity = vim.diagnostic.severity.WARN,
    message = ("%s — result not written: %s (see :ToolOutput %s)"):format(before, why, edit.job),
  }
  return "conflict"
end

-- Where a fenced block's result goes: after the block, after the result blocks of lower parts
-- that the host saw there (`after_rows`), and after those this Lua has inserted since
-- (`after_keys`), so results stay in call order whatever order jobs end in. The host reads
-- result blocks; Lua only counts rows.
local function insertion_row(buf, st, last, edit)
  local row = last + 1 + (edit.after_rows or 0)
  for _, key in ipairs(edit.after_keys or {}) do
    local _, result_last = extmark_rows(buf, st.results[key])
    if result_last and result_last + 1 > row then
      row = result_last + 1
    end
  end
  return math.min(row, api.nvim_buf_line_count(buf))
end

-- A change refused for now: a textlock (an <expr> mapping, a completion or TextYankPost
-- handler is running; 0.7 says E523, later versions E565) ends by itself, with no event to
-- retry on, so the write is tried again shortly, until the lock is gone.
local function locked(err)
  err = tostring(err)
  return err:match("E523") or err:match("E565") or err:match("textlock")
end

local retry_pending = {}

local function retry_later(buf)
  if retry_pending[buf] then
    return
  end
  retry_pending[buf] = true
  vim.defer_fn(function()
    retry_pending[buf] = nil
    M.retry(buf)
  end, 20)
end

-- Rewrites a block if it still reads what the host expects; returns what became of it. The
-- block is the `expect` lines from its mark's first row on: the mark's end may lag behind a
-- block that grew after it was marked (a `> purpose` line streamed in after the fence) or
-- cover less than a re-run replaces (the old result block).
local function try_edit(buf, st, edit)
  local row = mark_range(buf, st, edit.key)
  if not row then
    return conflict(buf, st, edit, "the block was deleted")
  end
  local last = row + math.max(#edit.expect, 1) - 1
  if write_blocked(buf) then
    return "waiting"
  end
  local current = api.nvim_buf_get_lines(buf, row, last + 1, false)
  if not vim.deep_equal(current, edit.expect) then
    return conflict(buf, st, edit, "the block changed while it ran")
  end
  local first, stop = row, last + 1
  if edit.insert then
    first = insertion_row(buf, st, last, edit)
    stop = first
  end
  local ok, err = M.write(buf, first, stop, edit.lines)
  if not ok then
    if locked(err) then
      retry_later(buf)
      return "waiting"
    end
    return conflict(buf, st, edit, tostring(err))
  end
  vim.b[buf].toolhost_own_tick = api.nvim_buf_get_changedtick(buf)
  if edit.insert then
    local ok_mark, id = pcall(api.nvim_buf_set_extmark, buf, ns, first, 0,
      { id = st.results[edit.key], end_row = first + #edit.lines - 1, end_col = 0 })
    if ok_mark then
      st.results[edit.key] = id
    end
  else
    set_mark(buf, st, edit.key, row, row + #edit.lines - 1)
  end
  return "applied"
end

local function run_edits(buf, st, results)
  local still = {}
  for _, edit in ipairs(st.waiting) do
    local status = try_edit(buf, st, edit)
    if status == "waiting" then
      still[#still + 1] = edit
    end
    results[#results + 1] = { buf = buf, key = edit.key, job = edit.job, status = status }
  end
  st.waiting = still
end

-- While a list of batches is applied: buf -> state of the buffers whose diagnostics are set
-- once, after all of them (vim.diagnostic.set costs as much as the buffer has diagnostics).
local deferred = nil

local function apply_buffer(entry, results)
  local buf = entry.buf
  if not api.nvim_buf_is_valid(buf) then
    buffers[buf] = nil
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
function M.apply_all(batches)
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
  local st = buf and buffers[buf]
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
    M.write(buf, last + 1, last + 1, {
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
  for _, st in pairs(buffers) do
    count = count + #(st.awaiting or {})
  end
  return count
end

-- Retries the rewrites that had to wait (InsertLeave, 'modifiable' set back).
function M.retry(buf)
  local st = buffers[buf]
  if st and #st.waiting > 0 and api.nvim_buf_is_valid(buf) then
    run_edits(buf, st, {})
    refresh_diagnostics(buf, st)
  end
end

function M.forget_buffer(buf)
  local st = buffers[buf]
  if st and api.nvim_buf_is_valid(buf) then
    api.nvim_buf_clear_namespace(buf, ns, 0, -1)
    vim.diagnostic.reset(ns, buf)
  end
  buffers[buf] = nil
end

-- The call id whose block covers `row` (0-based), if any.
function M.call_at(buf, row)
  local st = buffers[buf]
  for key in pairs(st and st.marks or {}) do
    local first, last = mark_range(buf, st, key)
    if first and row >= first and row <= last then
      return key
    end
  end
  return nil
end

function M.marks(buf)
  return buffers[buf] and buffers[buf].marks or {}
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
