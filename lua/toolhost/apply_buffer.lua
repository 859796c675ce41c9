-- The steps of one buffer entry of a feedback batch (ui.lua applies a list of batches as steps,
-- slices.lua runs them): the entry's state (diagnostics, errors; cheap), its marks (a step per
-- `marks_per_step`), then each rewrite, then each stream. `list`: { results, dirty = buf ->
-- state, wrote = buf -> true (a result written or tried), urgent = buf -> true, glued = the steps
-- run in the slice of the step before them }.
local M = {}

local api = vim.api
local blocks = require("toolhost.blocks")
local rewrite = require("toolhost.rewrite")
local state, set_mark, set_stream, forget = blocks.state, blocks.set_mark, blocks.set_stream, blocks.forget
local run_edits = rewrite.run_edits

local function gone(buf, edit, list)
  list.results[#list.results + 1] = { buf = buf, key = edit.key, job = edit.job, status = "gone" }
end

-- Whether the call `key` has a result on its way (this entry's rewrite, or one waiting) or one
-- kept beside its changed block. The host forgets a call whose block no longer parses, which is
-- also what a user's edit of a running call's block does: its result, sent before or with the
-- forget, must still end as the conflict's WARN with the result kept (rewrite.lua), and those
-- stay (as when the host saw the edit while the job ran, and forgot nothing).
local function owes_result(st, entry, key)
  if st.kept[key] then
    return true
  end
  for _, edits in ipairs({ entry.edits or {}, st.waiting }) do
    for _, edit in ipairs(edits) do
      if edit.key == key then
        return true
      end
    end
  end
  return false
end

local function buffer_state(entry, list)
  local buf = entry.buf
  if not api.nvim_buf_is_valid(buf) then
    blocks.drop(buf)
    return nil
  end
  local st = state(buf)
  -- A streaming tick (new last lines, nothing else) leaves the diagnostics as they are:
  -- vim.diagnostic.set would cost a millisecond of Neovim's time ten times a second per buffer.
  if entry.forget or entry.marks or entry.diags or entry.errors or entry.edits or #st.waiting > 0 then
    list.dirty[buf] = st
  end
  for _, key in ipairs(entry.forget or {}) do
    if not owes_result(st, entry, key) then
      forget(buf, st, key)
    end
  end
  for _, d in ipairs(entry.diags or {}) do
    st.diags[d.key] = { row = d.row, severity = d.severity, message = d.message }
    -- A call's end (✓/✗, refused) is shown at once; a hint (running, awaiting) may wait.
    if d.severity ~= vim.diagnostic.severity.HINT then
      list.urgent[buf] = true
    end
  end
  if entry.forget then
    list.urgent[buf] = true -- a block that is gone loses its diagnostic at once
  end
  if entry.errors then
    st.errors = entry.errors
  end
  if entry.awaiting then
    st.awaiting = entry.awaiting
  end
  for _, prompt in ipairs(entry.prompts or {}) do
    vim.schedule(function()
      require("toolhost.ui").ask(buf, prompt)
    end)
  end
  return st
end

-- Tries `edit` (nil: only the rewrites already waiting, retried with each batch) after those
-- that wait before it, in order.
local function write(buf, edit, list)
  if not api.nvim_buf_is_valid(buf) then
    blocks.drop(buf)
    return edit and gone(buf, edit, list)
  end
  local st = state(buf)
  if edit then
    st.waiting[#st.waiting + 1] = edit
  end
  -- The diagnostics stay shown: their signs and texts (diagnostic_marks.lua) move with the text by
  -- themselves, so a write costs no more with them than without. The list's refresh comes at
  -- once, for the ✓/✗ or the conflict's WARN it brings.
  list.wrote[buf] = true
  list.dirty[buf] = st
  run_edits(buf, st, list.results)
end

-- Marks per step: an extmark costs 3–6 µs (a 50 MB chat, loaded machine), so a step of them
-- stays near 0.2 ms; the first feedback of a chat of 5,000 calls was one step of 30–70 ms.
M.marks_per_step = 32

local function marks_chunk(buf, marks, from)
  local st = api.nvim_buf_is_valid(buf) and blocks.get(buf)
  if not st then
    return
  end
  for i = from, math.min(from + M.marks_per_step - 1, #marks) do
    local m = marks[i]
    local row, last = blocks.rows_now(st, m.tick, m.row, m.end_row)
    if not st.marks[m.key] then
      set_mark(buf, st, m.key, row, last)
    end
  end
end

local function stream(buf, s)
  local st = api.nvim_buf_is_valid(buf) and blocks.get(buf)
  if st then
    set_stream(buf, st, s.key, s.lines)
  end
end

-- Appends the steps of `entry` to `steps`.
function M.steps(steps, entry, list)
  local buf = entry.buf
  local alive = false -- whether the buffer was there at the entry's first step
  steps[#steps + 1] = function()
    local st = buffer_state(entry, list)
    alive = st ~= nil
    if not st then
      for _, edit in ipairs(entry.edits or {}) do
        gone(buf, edit, list)
      end
    end
  end
  -- The marks before the rewrites and streams, which find their blocks by them.
  local marks = entry.marks or {}
  for from = 1, #marks, M.marks_per_step do
    steps[#steps + 1] = function()
      marks_chunk(buf, marks, from)
    end
  end
  if not entry.edits then
    -- The rewrites waiting from earlier batches are retried with each batch.
    steps[#steps + 1] = function()
      local st = alive and blocks.get(buf)
      if st and #st.waiting > 0 then
        write(buf, nil, list)
      end
    end
  end
  for _, edit in ipairs(entry.edits or {}) do
    steps[#steps + 1] = function()
      if alive then
        write(buf, edit, list)
      end
    end
  end
  for _, s in ipairs(entry.stream or {}) do
    steps[#steps + 1] = function()
      stream(buf, s)
    end
    -- A finished call's stream is cleared (one extmark deleted) before its event.
    list.glued[steps[#steps]] = #(s.lines or {}) == 0 or nil
  end
end


return M
