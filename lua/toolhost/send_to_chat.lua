-- :ToolSendQuickfix and :ToolSendDiagnostics: a quickfix list or diagnostics, as the model reads
-- them, added to a chat as the user's message (issue #39 section 2). One line per entry,
-- `path:line:col: severity [code]: text`, paths relative to the chat's root, a quickfix entry's
-- continuation lines folded into it, sorted by severity then place, capped.
local config = require("toolhost.config")
local host = require("toolhost.host")

local M = {}

M.max_entries = 200
M.max_chars = 8000

local RANK = { error = 1, warning = 2, info = 3, note = 3, hint = 4 }

-- A quickfix item's type letter (`%t`: lowercase from most formats) as a severity word.
local QF_SEVERITY = { e = "error", f = "error", w = "warning", i = "info", n = "note", h = "hint" }

local DIAGNOSTIC_SEVERITY = { "error", "warning", "info", "hint" }

-- One row of text: line breaks and the runs of blanks that aligned it (a caret under a column)
-- become single spaces.
local function one_line(text)
  return vim.trim((tostring(text or "")):gsub("%s+", " "))
end

local function relative(path, root)
  if path == "" then
    return ""
  end
  path = vim.fn.fnamemodify(path, ":p")
  local prefix = root .. "/"
  if path:sub(1, #prefix) == prefix then
    return path:sub(#prefix + 1)
  end
  return path
end

-- The entries of a quickfix list's items: an item that is not valid (a line the format did not
-- match as an entry) continues the entry before it; before any entry it is noise.
function M.quickfix_entries(items, root)
  local entries = {}
  for _, item in ipairs(items) do
    local text = one_line(item.text)
    if item.valid == 1 then
      local path = item.bufnr ~= 0 and vim.api.nvim_buf_get_name(item.bufnr) or (item.filename or "")
      entries[#entries + 1] = {
        path = relative(path, root),
        lnum = item.lnum or 0,
        col = item.col or 0,
        severity = QF_SEVERITY[(item.type or ""):lower()] or "",
        code = (item.nr or 0) > 0 and tostring(item.nr) or "",
        text = text,
      }
    elseif #entries > 0 and text ~= "" then
      local last = entries[#entries]
      last.text = last.text == "" and text or (last.text .. " " .. text)
    end
  end
  return entries
end

function M.diagnostic_entries(diagnostics, root)
  local entries = {}
  for _, d in ipairs(diagnostics) do
    entries[#entries + 1] = {
      path = relative(vim.api.nvim_buf_get_name(d.bufnr), root),
      lnum = d.lnum + 1,
      col = (d.col or 0) + 1,
      severity = DIAGNOSTIC_SEVERITY[d.severity] or "",
      code = d.code ~= nil and tostring(d.code) or "",
      text = one_line(d.message),
    }
  end
  return entries
end

local function entry_line(e)
  local place = e.path
  if e.lnum > 0 then
    place = place .. ":" .. e.lnum .. (e.col > 0 and (":" .. e.col) or "")
  end
  local kind = e.severity .. (e.code ~= "" and (" [" .. e.code .. "]") or "")
  local parts = {}
  for _, part in ipairs({ place, vim.trim(kind), e.text }) do
    if part ~= "" then
      parts[#parts + 1] = part
    end
  end
  return table.concat(parts, ": ")
end

-- The message's lines: `title`, then the entries sorted and capped ("… N more").
function M.format(title, entries)
  table.sort(entries, function(a, b)
    local ra, rb = RANK[a.severity] or 5, RANK[b.severity] or 5
    if ra ~= rb then
      return ra < rb
    end
    if a.path ~= b.path then
      return a.path < b.path
    end
    if a.lnum ~= b.lnum then
      return a.lnum < b.lnum
    end
    return a.col < b.col
  end)
  local lines, chars = { title }, #title
  for i, e in ipairs(entries) do
    local line = entry_line(e)
    if i > M.max_entries or chars + #line + 1 > M.max_chars then
      lines[#lines + 1] = ("… %d more"):format(#entries - i + 1)
      break
    end
    lines[#lines + 1] = line
    chars = chars + #line + 1
  end
  return lines
end

-- The chat to add to: the current buffer when it is one, else the one in the window used
-- before this one, else a chat shown in this tab, else the chat buffer used last.
function M.target_chat()
  local current = vim.api.nvim_get_current_buf()
  if host.is_attached(current) then
    return current
  end
  local previous = vim.fn.winbufnr(vim.fn.winnr("#"))
  if previous > 0 and host.is_attached(previous) then
    return previous
  end
  local shown = {}
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    shown[vim.api.nvim_win_get_buf(win)] = true
  end
  local best, best_key
  for _, info in ipairs(vim.fn.getbufinfo({ bufloaded = 1 })) do
    if host.is_attached(info.bufnr) then
      -- Shown first, then used last (seconds: the newer buffer wins a tie).
      local key = { shown[info.bufnr] and 1 or 0, info.lastused, info.bufnr }
      if not best_key or key[1] > best_key[1] or (key[1] == best_key[1] and (key[2] > best_key[2]
          or (key[2] == best_key[2] and key[3] > best_key[3]))) then
        best, best_key = info.bufnr, key
      end
    end
  end
  return best
end

local function role_names(role)
  return (config.options.roles or {})[role] or {}
end

-- The role and form of a header line: "heading" (`## Me`) or "name" (`USER:`), or nil.
local function header_of(line)
  for _, role in ipairs({ "user", "assistant", "system" }) do
    for _, name in ipairs(role_names(role)) do
      if line:match("^##? " .. vim.pesc(name) .. "%f[^%w]") then
        return role, "heading", line
      end
      if line:sub(1, #name + 1) == name .. ":" then
        return role, "name", line
      end
    end
  end
end

-- The last header of `buf` (read from the end, a slice at a time): its row, role, form, line.
local function last_header(buf)
  local last = vim.api.nvim_buf_line_count(buf)
  while last > 0 do
    local first = math.max(0, last - 2000)
    local lines = vim.api.nvim_buf_get_lines(buf, first, last, false)
    for i = #lines, 1, -1 do
      local role, form = header_of(lines[i])
      if role then
        return first + i - 1, role, form, lines[i]
      end
    end
    last = first
  end
end

-- A new user header in the chat's own form (`## Me` in CodeCompanion's, `USER:` otherwise).
local function user_header(buf)
  local lines = vim.api.nvim_buf_get_lines(buf, -5001, -1, false)
  local form
  for i = #lines, 1, -1 do
    local role, f, line = header_of(lines[i])
    if role == "user" then
      return f == "heading" and line or (line:gsub(":.*$", ":"))
    end
    form = form or f
  end
  local users = role_names("user")
  if form == "heading" or vim.bo[buf].filetype == "codecompanion" then
    return "## " .. (users[1] or "Me")
  end
  return (users[#users] or "USER") .. ":"
end

-- Adds `lines` to the user's message at the end of `buf`: into it when the chat ends with one
-- (below what the user typed there), else as a new user message. Returns the first row written.
function M.append_user_message(buf, lines)
  if not vim.bo[buf].modifiable then
    return nil, "the chat buffer is not modifiable"
  end
  local count = vim.api.nvim_buf_line_count(buf)
  local row, role, form, line = last_header(buf)
  if role ~= "user" then
    local add = {}
    if vim.trim(vim.api.nvim_buf_get_lines(buf, count - 1, count, false)[1] or "") ~= "" then
      add[#add + 1] = ""
    end
    local header = user_header(buf)
    add[#add + 1] = header
    if header:sub(1, 1) == "#" then
      add[#add + 1] = ""
    end
    vim.list_extend(add, lines)
    vim.api.nvim_buf_set_lines(buf, count, count, false, add)
    return count
  end
  -- The rows the user typed end at the last one that is not blank.
  local keep = count
  while keep > row + 1 and vim.trim(vim.api.nvim_buf_get_lines(buf, keep - 1, keep, false)[1]) == "" do
    keep = keep - 1
  end
  local header_only = keep == row + 1
  if header_only and form == "name" and line:match("^[^:]*:%s*$") then
    -- `USER:` alone on its row: the message starts on it, as the chat's own replies do.
    local first = { (line:gsub("%s*$", "")) .. " " .. lines[1] }
    vim.api.nvim_buf_set_lines(buf, row, count, false, vim.list_extend(first, vim.list_slice(lines, 2)))
    return row
  end
  local add = { "" }
  vim.list_extend(add, lines)
  vim.api.nvim_buf_set_lines(buf, keep, count, false, add)
  return keep
end

local function send(lines)
  local buf = M.target_chat()
  if not buf then
    return vim.notify("toolhost: no chat buffer to send to (open one, or attach with :ToolAttach)", vim.log.levels.ERROR)
  end
  local row, err = M.append_user_message(buf, lines)
  if not row then
    return vim.notify("toolhost: " .. err, vim.log.levels.ERROR)
  end
  vim.notify(("toolhost: added %d line(s) to %s"):format(#lines, vim.fn.bufname(buf)), vim.log.levels.INFO)
  return buf
end

-- The quickfix list `arg` names: a call's job id or call id (the list toolhost made for it,
-- context.toolhost), else a list number of the stack; none: the current list.
function M.quickfix_list(arg)
  local what = { items = 1, title = 1, context = 1, nr = 0 }
  if arg and arg ~= "" then
    local last = vim.fn.getqflist({ nr = "$" }).nr
    for nr = 1, last do
      local ctx = vim.fn.getqflist({ nr = nr, context = 1 }).context
      local mine = type(ctx) == "table" and type(ctx.toolhost) == "table" and ctx.toolhost
      if mine and (tostring(mine.job) == arg or tostring(mine.call) == arg) then
        what.nr = nr
        return vim.fn.getqflist(what)
      end
    end
    local nr = tonumber(arg)
    if not nr or nr < 1 or nr > last or nr ~= math.floor(nr) then
      return nil, ("no quickfix list for %q (a call's job id or a list number 1-%d)"):format(arg, last)
    end
    what.nr = nr
  end
  return vim.fn.getqflist(what)
end

-- The message of quickfix list `arg` (quickfix_list), or nil and why not.
function M.quickfix_lines(arg)
  local list, err = M.quickfix_list(arg)
  if not list then
    return nil, err
  end
  local entries = M.quickfix_entries(list.items, config.absolute_root())
  if #entries == 0 then
    return nil, "the quickfix list has no entries"
  end
  local title = list.title ~= "" and (" %q"):format(list.title) or ""
  local count = #entries == 1 and "1 entry" or (#entries .. " entries")
  return M.format(("Quickfix list%s (%s):"):format(title, count), entries)
end

-- The message of the diagnostics of `buf` (nil: every buffer's but the chats'), or nil and why
-- not.
function M.diagnostic_lines(buf)
  local root = config.absolute_root()
  local diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if buf or not host.is_attached(d.bufnr) then
      diagnostics[#diagnostics + 1] = d
    end
  end
  if #diagnostics == 0 then
    return nil, "no diagnostics"
  end
  local where = buf and (" of " .. relative(vim.api.nvim_buf_get_name(buf), root)) or ""
  return M.format(("Diagnostics%s (%d):"):format(where, #diagnostics),
    M.diagnostic_entries(diagnostics, root))
end

function M.send_quickfix(arg)
  local lines, err = M.quickfix_lines(arg)
  if not lines then
    return vim.notify("toolhost: nothing sent: " .. err, vim.log.levels.WARN)
  end
  return send(lines)
end

-- `scope`: "%" the current buffer's, else every buffer's but the chats' own (the calls' state).
function M.send_diagnostics(scope)
  if scope ~= nil and scope ~= "" and scope ~= "%" and scope ~= "all" then
    return vim.notify(("toolhost: :ToolSendDiagnostics takes %% or all, not %q"):format(scope), vim.log.levels.ERROR)
  end
  local lines, err = M.diagnostic_lines(scope == "%" and vim.api.nvim_get_current_buf() or nil)
  if not lines then
    return vim.notify("toolhost: nothing sent: " .. err, vim.log.levels.WARN)
  end
  return send(lines)
end

return M
