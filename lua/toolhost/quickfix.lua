-- A call's quickfix list in this Neovim (issue #39): the host parses build and test output in
-- its own headless Neovim and sends the items in its feedback batches; this applies them as
-- slice steps (ui.lua), a chunk of items per step. One list per call, titled
-- `toolhost: <command> (#<job id>)`, with context { toolhost = { call, job } }; a re-run
-- replaces it in place; a new list goes at the end of the stack, and the list you were on stays
-- the current one; the window never opens by itself. `QuickFixCmdPost toolhost` fires after
-- each update. :ToolQuickfix makes a call's list current and opens it.
local M = {}

local api = vim.api
local diagnostics = require("toolhost.quickfix_diagnostics")
local unpack = table.unpack or unpack

-- A step's items: an item costs 15-25 µs (setqflist with `filename`, its diagnostic), and a file
-- not seen before about 90 µs more (its buffer, made by both): at most this many items and new
-- files per step keep a step near a slice's budget (P11 measured 6 ms steps of 64 new files).
M.chunk = 32
M.new_files_per_step = 6

-- call id -> { job, files = { name -> true } }: the files of the call's current job that a
-- step has been made for, to cut steps at new files.
local seen_files = {}

-- The calls whose items stay here once done, to make their list again after it left the
-- 10-deep stack (:ToolQuickfix): the latest ones, so that a long session's builds do not pile
-- up in this Neovim (up to quickfix.max_items each).
M.keep = 20

-- call id -> { call, job, title, id (the list's, nil once pushed off the stack), items (nil
-- once dropped), done, buf (the chat buffer that ran it) }
local calls = {}
local order = {} -- call ids, the latest update last

local function touch(call)
  for i, c in ipairs(order) do
    if c == call then
      table.remove(order, i)
      break
    end
  end
  order[#order + 1] = call
  for i = 1, #order - M.keep do
    local st = calls[order[i]]
    if st.done then
      st.items = nil
    end
  end
end

local function context(st)
  return { toolhost = { call = st.call, job = st.job } }
end

-- Whether the list `id` is still in the stack.
local function alive(id)
  return id ~= nil and vim.fn.getqflist({ id = id, nr = 0 }).nr > 0
end

-- Makes list `nr` the current one without opening anything.
local function go_to(nr)
  local current = vim.fn.getqflist({ nr = 0 }).nr
  if nr < current then
    vim.cmd(("silent %dcolder"):format(current - nr))
  elseif nr > current then
    vim.cmd(("silent %dcnewer"):format(nr - current))
  end
end

-- A new list at the end of the stack ({} ' ' alone would free the lists after the current
-- one); the current list stays current (it moves down one when the stack was full).
local function create(st, items)
  local before = vim.fn.getqflist({ nr = 0 }).nr
  local full = vim.fn.getqflist({ nr = "$" }).nr >= 10
  vim.fn.setqflist({}, " ", { nr = "$", title = st.title, context = context(st), items = items or {} })
  st.id = vim.fn.getqflist({ nr = "$", id = 0 }).id
  if before > 0 then
    local keep = full and before - 1 or before
    if keep > 0 then
      go_to(keep)
    end
  end
end

-- The call's list for a new job: the old one emptied and renamed, in its place, or a new one.
local function begin(update)
  local st = calls[update.call]
  local buf = nil
  local job = require("toolhost.ui").jobs[update.job]
  if job then
    buf = job.buf
  end
  diagnostics.clear(update.call)
  if st and alive(st.id) then
    st.job, st.title, st.items, st.done, st.buf = update.job, update.title, {}, false, buf
    vim.fn.setqflist({}, "r", { id = st.id, items = {}, title = st.title, context = context(st) })
  else
    st = { call = update.call, job = update.job, title = update.title, items = {}, done = false, buf = buf }
    calls[update.call] = st
    create(st)
  end
  touch(update.call)
end

local function append(st, items)
  st.items = st.items or {}
  for _, item in ipairs(items) do
    st.items[#st.items + 1] = item
  end
  if st.id and vim.fn.setqflist({}, "a", { id = st.id, items = items }) ~= 0 then
    st.id = nil -- pushed off the stack: recreated on request (:ToolQuickfix)
  end
end

local function fire()
  pcall(api.nvim_exec_autocmds, "QuickFixCmdPost", { pattern = "toolhost", modeline = false })
end

-- The steps of one update (ui.lua's list_steps): a chunk of items per step, into the list and
-- the call's diagnostics; then one step per file's diagnostics set (vim.diagnostic.set costs
-- as much as that buffer has); then the update's end, which fires QuickFixCmdPost once the
-- list and the diagnostics are in. All made here, in order: the files are known from the items.
function M.steps(steps, update)
  if update.first then
    steps[#steps + 1] = function()
      begin(update)
    end
  end
  local function current()
    local st = calls[update.call]
    return st and st.job == update.job and st or nil
  end
  local items = update.items or {}
  local with_diagnostics = update.diagnostics and #items > 0
    and require("toolhost.config").options.quickfix.diagnostics
  local seen = seen_files[update.call]
  if update.first or not seen or seen.job ~= update.job then
    seen = { job = update.job, files = {} }
    seen_files[update.call] = seen
  end
  local first, new_files = 1, 0
  for i, item in ipairs(items) do
    local file = item.filename
    if file and file ~= "" and not seen.files[file] then
      seen.files[file] = true
      new_files = new_files + 1
    end
    if i - first + 1 >= M.chunk or new_files >= M.new_files_per_step or i == #items then
      local from, to = first, i
      first, new_files = i + 1, 0
      steps[#steps + 1] = function()
        local st = current()
        if not st then
          return
        end
        local chunk = { unpack(items, from, to) }
        append(st, chunk)
        if with_diagnostics then
          diagnostics.add(update.call, update.source, chunk)
        end
      end
    end
  end
  if with_diagnostics then
    for _, file in ipairs(diagnostics.files(items)) do
      steps[#steps + 1] = function()
        if current() then
          diagnostics.set_file(update.call, file)
        end
      end
    end
  end
  if update.done then
    seen_files[update.call] = nil
  end
  steps[#steps + 1] = function()
    local st = current()
    if st then
      st.done = update.done
      fire()
    end
  end
end

-- The state of a call's list: by call id or job id; none: the latest.
function M.find(id)
  if id == nil or id == "" then
    return calls[order[#order]]
  end
  if calls[id] then
    return calls[id]
  end
  for _, st in pairs(calls) do
    if st.job == id then
      return st
    end
  end
  return nil
end

-- :ToolQuickfix [id]: the call's list current and open; one pushed off the stack is made
-- again (at the end) from the items kept here.
function M.open(id)
  local st = M.find(id)
  if not st then
    vim.notify("toolhost: no quickfix list" .. (id and id ~= "" and (" for " .. id) or ""), vim.log.levels.WARN)
    return false
  end
  if alive(st.id) then
    go_to(vim.fn.getqflist({ id = st.id, nr = 0 }).nr)
  elseif not st.items then
    vim.notify(
      ("toolhost: the quickfix list of %s left the stack, and only the %d latest calls' items are kept"):format(st.job, M.keep),
      vim.log.levels.WARN
    )
    return false
  else
    create(st, st.items)
    go_to(vim.fn.getqflist({ id = st.id, nr = 0 }).nr)
  end
  vim.cmd("copen")
  return true
end

-- The calls with a list, the latest last: { call, job, title, items (nil: dropped, see
-- M.keep), done, id }.
function M.list()
  local out = {}
  for _, call in ipairs(order) do
    out[#out + 1] = calls[call]
  end
  return out
end

-- The chat buffer `buf` is gone: its calls' diagnostics go with it (their lists stay, as
-- :make's do).
function M.forget_buffer(buf)
  for call, st in pairs(calls) do
    if st.buf == buf then
      diagnostics.clear(call)
    end
  end
end

return M
