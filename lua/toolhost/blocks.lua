-- Where toolhost's calls are in a chat buffer: the per-buffer state, the extmarks that track each
-- call's block and inserted result through edits, the streamed lines under a running call, and
-- the diagnostics (SPEC 5). ui.lua applies the host's batches with these; rewrite.lua writes.
local M = {}

local api = vim.api
local ns = api.nvim_create_namespace("toolhost")
M.namespace = ns

local features = require("toolhost.features")

local buffers = {} -- buf -> per-buffer state

-- The state of `buf`, created on first use.
function M.state(buf)
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

-- The display options of a refresh. A call's diagnostic is a point (col 0 to col 0): its
-- underline is an empty range, invisible, yet an extmark that every refresh sets and every change
-- of the buffer re-reads (a quarter of a refresh of 100 calls; bench/NOTES.md, P2). With the
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
  vim.diagnostic.set(ns, buf, list, display_opts())
end

-- The state of `buf` if it has one.
function M.get(buf)
  return buffers[buf]
end

function M.drop(buf)
  buffers[buf] = nil
end

function M.each()
  return pairs(buffers)
end

M.extmark_rows = extmark_rows
M.mark_range = mark_range
M.set_mark = set_mark
M.set_stream = set_stream
M.forget = forget
M.refresh_diagnostics = refresh_diagnostics

return M
