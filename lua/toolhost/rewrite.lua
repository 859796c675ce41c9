-- Writes results into chat buffers (SPEC 5): a block is rewritten only if it still reads what
-- the host expects, in one call with the check; a write waits while the user types in the buffer,
-- while it is 'nomodifiable', or during a textlock; otherwise the result shows as virtual lines
-- with a WARN diagnostic (the conflict rule), never over the user's text.
local M = {}

local api = vim.api
local blocks = require("toolhost.blocks")
local ns = blocks.namespace
local extmark_rows, mark_range = blocks.extmark_rows, blocks.mark_range
local set_mark, set_stream = blocks.set_mark, blocks.set_stream

-- A write must wait while the user types in the buffer or a plugin streams into it.
local function write_blocked(buf)
  if not vim.bo[buf].modifiable then
    return true
  end
  if api.nvim_get_current_buf() ~= buf then
    return false
  end
  local mode = api.nvim_get_mode().mode:sub(1, 1)
  return mode == "i" or mode == "R"
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
  st.kept[edit.key] = true
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
    require("toolhost.ui").retry(buf)
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
  st.kept[edit.key] = nil -- a run again whose result was written
  if edit.insert then
    local end_row, end_col = blocks.range_end(buf, first + math.max(#edit.lines, 1) - 1)
    local ok_mark, id = pcall(api.nvim_buf_set_extmark, buf, ns, first, 0,
      { id = st.results[edit.key], end_row = end_row, end_col = end_col })
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

M.run_edits = run_edits

return M
