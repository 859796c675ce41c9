-- Where toolhost's calls are in a chat buffer: the per-buffer state, the extmarks that track each
-- call's block and inserted result through edits, the streamed lines under a running call, and
-- the diagnostics (SPEC 5). ui.lua applies the host's batches with these; rewrite.lua writes.
local M = {}

local api = vim.api
local ns = api.nvim_create_namespace("toolhost")
M.namespace = ns

local features = require("toolhost.features")
local diagnostic_marks = require("toolhost.diagnostic_marks")
diagnostic_marks.install(ns)

local buffers = {} -- buf -> per-buffer state

-- The state of `buf`, created on first use.
function M.state(buf)
  local st = buffers[buf]
  if not st then
    -- kept: key -> true for a call whose result was not written (its block changed) and is
    -- shown beside it (rewrite.lua's conflict)
    st = { marks = {}, streams = {}, results = {}, diags = {}, errors = {}, waiting = {}, kept = {} }
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

-- Where a mark of rows row..last ends: at the end of its last line's text. Ending at column 0
-- of that row, a one-row mark is an empty range, which 0.11+ invalidates when the line above it
-- is replaced (its end touches the change), so the next result read as its block deleted.
local function range_end(buf, last)
  return last, #(api.nvim_buf_get_lines(buf, last, last + 1, false)[1] or "")
end

local function set_mark(buf, st, key, row, last)
  local count = api.nvim_buf_line_count(buf)
  row = math.max(0, math.min(row, count - 1))
  last = math.max(row, math.min(last, count - 1))
  local end_row, end_col = range_end(buf, last)
  local opts = { id = st.marks[key], end_row = end_row, end_col = end_col }
  if features.has_extmark_invalidate then
    opts.invalidate = true
  end
  -- Its sign and text go along when it moves (a rewrite keeps its first row: they stay), and
  -- are placed again when it was invalid (0.10: its row deleted, they went with it).
  local before = extmark_rows(buf, opts.id)
  local ok, id = pcall(api.nvim_buf_set_extmark, buf, ns, row, 0, opts)
  if ok then
    st.marks[key] = id
    if before ~= row then
      diagnostic_marks.follow(buf, key, row)
    end
  end
end

-- The host reads a block's rows from its mirror, which lags behind the buffer: a batch waits
-- for the one Neovim applies, whose results Lua may write above the block. Each mark comes
-- with the changedtick it was read at, and every change of an attached buffer since (reply.lua
-- watches them) moves its rows as it moved the text. The log is complete after changedtick
-- `st.changes_from`; it holds { tick, first, old_end, new_end } per change, flat.
local max_changes = 4096

-- Drops the oldest `count` changes; marks read before the last of them keep their rows.
local function drop_changes(st, count)
  local log = st.changes
  local n, cut = #log, 4 * count
  st.changes_from = log[cut - 3]
  for i = cut + 1, n do
    log[i - cut] = log[i]
  end
  for i = n - cut + 1, n do
    log[i] = nil
  end
end

-- A change of `buf` (reply.lua's on_lines). A buffer without a state is no chat buffer of a
-- host (attach creates it, forget_buffer drops it): its changes move no mark.
function M.record_change(buf, tick, first, old_end, new_end)
  local st = buffers[buf]
  if not st then
    return
  end
  local log = st.changes
  if not log then
    log = {}
    st.changes, st.changes_from = log, tick - 1
  end
  local n = #log
  log[n + 1], log[n + 2], log[n + 3], log[n + 4] = tick, first, old_end, new_end
  if n >= 8 * max_changes then
    drop_changes(st, max_changes) -- no mark came for long
  end
end

local function moved(row, first, old_end, new_end)
  if row >= old_end then
    return row + new_end - old_end
  end
  if row >= first then
    return math.max(first, math.min(row, new_end - 1))
  end
  return row
end

-- Rows `row`..`last` as the host read them at changedtick `tick`, where they are now. A later
-- mark is never read at an older tick (the host's mirror only goes forward): the changes up to
-- `tick` are dropped.
local function rows_now(st, tick, row, last)
  local log = st.changes
  if not tick or not log or tick < st.changes_from then
    return row, last
  end
  local stale = 0
  for i = 1, #log, 4 do
    if log[i] <= tick then
      stale = stale + 1
    else
      row = moved(row, log[i + 1], log[i + 2], log[i + 3])
      last = moved(last, log[i + 1], log[i + 2], log[i + 3])
    end
  end
  if stale > 0 then
    drop_changes(st, stale)
  end
  return row, last
end

M.rows_now = rows_now

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
  st.marks[key], st.diags[key], st.results[key], st.kept[key] = nil, nil, nil, nil
end

-- The display options of a refresh. A call's diagnostic is a point (col 0 to col 0): its
-- underline is an empty range, invisible, yet an extmark that every refresh sets and every change
-- of the buffer re-reads (a quarter of a refresh of 100 calls; bench/NOTES-p2.md). With the
-- underline as configured by default, only the parse errors, which span rows, get one; a
-- user's own underline setting is left as it is.
local function display_opts()
  local underline = vim.diagnostic.config(nil, ns).underline
  if underline == nil then
    underline = vim.diagnostic.config().underline
  end
  if underline == true then
    return { underline = { severity = vim.diagnostic.severity.ERROR } }
  end
  return nil
end

-- Every block mark's first row, by extmark id (one call instead of one per call: 33 µs against
-- 150 for a chat of 100 calls).
local function mark_rows(buf)
  local rows = {}
  local details = features.has_extmark_invalidate
  for _, m in ipairs(api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = details })) do
    if not (details and m[4].invalid) then
      rows[m[1]] = m[2]
    end
  end
  return rows
end

local function refresh_diagnostics(buf, st)
  local list = {}
  local rows = mark_rows(buf)
  for key, d in pairs(st.diags) do
    local row = st.marks[key] and rows[st.marks[key]]
    list[#list + 1] = {
      lnum = row or d.row,
      col = 0,
      severity = d.severity,
      message = d.message,
      source = "toolhost",
      -- diagnostic_marks.lua's: which marks are this call's, and whether its block's mark carries them.
      user_data = { toolhost_key = key, toolhost_mark = row ~= nil },
    }
  end
  for i, e in ipairs(st.errors) do
    list[#list + 1] = {
      lnum = e.row,
      end_lnum = math.max(e.row, e.end_row - 1),
      col = 0,
      severity = vim.diagnostic.severity.ERROR,
      message = e.message,
      source = "toolhost",
      user_data = { toolhost_key = "error " .. i },
    }
  end
  vim.diagnostic.set(ns, buf, list, display_opts())
end

-- The state of `buf` if it has one.
function M.get(buf)
  return buffers[buf]
end

function M.drop(buf)
  buffers[buf] = nil
  diagnostic_marks.forget(buf, true)
end

function M.each()
  return pairs(buffers)
end

M.extmark_rows = extmark_rows
M.mark_range = mark_range
M.set_mark = set_mark
M.range_end = range_end
M.set_stream = set_stream
M.forget = forget
M.refresh_diagnostics = refresh_diagnostics

return M
