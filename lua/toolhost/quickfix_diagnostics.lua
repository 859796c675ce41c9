-- A call's quickfix items as diagnostics in their files (issue #39): a namespace per call,
-- `source` = the tool, the severity from the item's type (`%t`); cleared when the call runs
-- again or its chat buffer goes. Knows nothing of the list (quickfix.lua): both read the same
-- items.
local M = {}

local api = vim.api
local features = require("toolhost.features")
local S = vim.diagnostic.severity

-- `%t` gives a letter, lowercase for gcc's words (error -> e, warning -> w, note -> n, fatal
-- error -> f) and uppercase for the `%E`/`%W`/`%I`/`%N` of multi-line formats. A note is a
-- hint (it explains an error next to it), `i` is information; an item without a type (pytest's
-- failures, `:compiler go`) is an error. vim.diagnostic.fromqflist would make every lowercase
-- type an error.
M.severity_of = {
  e = S.ERROR, E = S.ERROR, f = S.ERROR, F = S.ERROR,
  w = S.WARN, W = S.WARN,
  i = S.INFO, I = S.INFO,
  n = S.HINT, N = S.HINT,
}

-- call id -> { ns, source, by_buf = { buf -> diagnostics }, buf_of = { file name -> buf },
-- waiting = { buf -> true } }
local calls = {}

local function namespace(call)
  return api.nvim_create_namespace("toolhost.quickfix." .. call)
end

function M.namespace(call)
  return calls[call] and calls[call].ns
end

-- Forgets the call's diagnostics everywhere. Reset buffer by buffer: on 0.7.2 the cached
-- diagnostics of a wiped buffer survive a namespace-wide reset.
function M.clear(call)
  local st = calls[call]
  if not st then
    return
  end
  calls[call] = nil
  for buf in pairs(st.by_buf) do
    if api.nvim_buf_is_valid(buf) then
      vim.diagnostic.reset(st.ns, buf)
    end
  end
  vim.diagnostic.reset(st.ns)
end

local function diagnostic(item, source)
  local lnum = math.max((item.lnum or 1) - 1, 0)
  local col = math.max((item.col or 1) - 1, 0)
  local end_lnum = item.end_lnum and item.end_lnum > 0 and item.end_lnum - 1 or lnum
  local end_col = item.end_col and item.end_col > 0 and item.end_col - 1 or col
  return {
    lnum = lnum,
    col = col,
    end_lnum = math.max(end_lnum, lnum),
    end_col = end_col,
    severity = M.severity_of[item.type or ""] or S.ERROR,
    message = item.text or "",
    source = source,
    code = item.nr and item.nr > 0 and item.nr or nil,
  }
end

-- On 0.7–0.11 a buffer's diagnostics set while it was not loaded show only once shown again
-- after it is read: one autocmd per call and buffer, gone after it ran.
local function show_when_loaded(st, buf)
  if features.diagnostic_shown_on_load or st.waiting[buf] or api.nvim_buf_is_loaded(buf) then
    return
  end
  st.waiting[buf] = true
  api.nvim_create_autocmd({ "BufRead", "BufEnter" }, {
    buffer = buf,
    once = true,
    callback = function()
      st.waiting[buf] = nil
      if calls[st.call] == st then
        vim.schedule(function()
          if calls[st.call] == st and api.nvim_buf_is_valid(buf) then
            vim.diagnostic.show(st.ns, buf)
          end
        end)
      end
    end,
  })
end

-- The files `items` name that take diagnostics, each once, in order: one set each is due
-- after M.add (a step each: vim.diagnostic.set costs as much as the buffer has diagnostics).
function M.files(items)
  local files, seen = {}, {}
  for _, item in ipairs(items) do
    local file = item.filename
    if item.valid ~= 0 and file and file ~= "" and not seen[file] then
      seen[file] = true
      files[#files + 1] = file
    end
  end
  return files
end

-- Adds `items` to the call's diagnostics (their files' buffers made once); M.set shows them.
function M.add(call, source, items)
  local st = calls[call]
  if not st then
    st = { call = call, ns = namespace(call), source = source, by_buf = {}, buf_of = {}, waiting = {} }
    calls[call] = st
  end
  for _, item in ipairs(items) do
    if item.valid ~= 0 and item.filename and item.filename ~= "" then
      local buf = st.buf_of[item.filename]
      if not buf then
        buf = vim.fn.bufadd(item.filename)
        st.buf_of[item.filename] = buf
      end
      local list = st.by_buf[buf]
      if not list then
        list = {}
        st.by_buf[buf] = list
      end
      list[#list + 1] = diagnostic(item, source)
    end
  end
end

-- Sets the call's diagnostics of the file `file` (a step): the buffer M.add made for it.
function M.set_file(call, file)
  local st = calls[call]
  local buf = st and st.buf_of[file]
  if buf then
    M.set(call, buf)
  end
end

-- Sets the call's diagnostics of `buf`.
function M.set(call, buf)
  local st = calls[call]
  if not st or not api.nvim_buf_is_valid(buf) then
    return
  end
  vim.diagnostic.set(st.ns, buf, st.by_buf[buf] or {})
  show_when_loaded(st, buf)
end

return M
