-- Neovim's side of the tools (SPEC 7): what the host asks Lua to do because only Neovim can —
-- run a custom `fn` tool, run edit_buffer, read the quickfix list and the diagnostics, and
-- edit a file that is loaded in a buffer through that buffer. The host calls start() with nvim_exec_lua and returns at once; the answer
-- comes later as a `toolhost.done` notification, so neither side waits on the other.
local M = {}

local uv = vim.uv or vim.loop

-- The absolute, resolved form of a file name (a file not written yet keeps its full name).
local function resolved(name)
  local full = vim.fn.fnamemodify(name, ":p")
  return uv.fs_realpath(full) or full
end

-- The loaded buffer that holds the file at `path` (absolute, resolved), or nil.
local function buffer_of(path)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(buf)
    if name ~= "" and vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == "" and resolved(name) == path then
      return buf
    end
  end
  return nil
end

local function inside(root, path)
  root = resolved(root)
  return path == root or path:sub(1, #root + 1) == root .. "/"
end

local function describe_buffer(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  return name == "" and ("buffer " .. buf) or vim.fn.fnamemodify(name, ":~:.")
end

-- One change (one undo step), as toolhost's own write: in the chat buffer it is no reply
-- arriving (reply.lua).
local function set_lines(buf, first, last, lines)
  local ok, err = require("toolhost.ui").write(buf, first, last, lines)
  if not ok then
    error(err, 0)
  end
end

local ops = {}

-- { path } -> { loaded = false } or { loaded, buf, lines, tick, modified }
function ops.buffer_text(args, reply)
  local buf = buffer_of(args.path)
  if not buf then
    return reply({ loaded = false })
  end
  reply({
    loaded = true,
    buf = buf,
    lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false),
    tick = vim.api.nvim_buf_get_changedtick(buf),
    modified = vim.bo[buf].modified,
  })
end

-- { buf, tick, first, last, lines, save }: rows [first, last) become `lines` in one change (one
-- undo step), unless the buffer changed since buffer_text read it; then written if `save`.
function ops.set_text(args, reply)
  local buf = args.buf
  if not vim.api.nvim_buf_is_valid(buf) or not vim.api.nvim_buf_is_loaded(buf) then
    error("the buffer of the file was closed while the edit was prepared; nothing was changed")
  end
  if vim.api.nvim_buf_get_changedtick(buf) ~= args.tick then
    error(describe_buffer(buf) .. " changed while the edit was prepared; nothing was changed")
  end
  if not vim.bo[buf].modifiable then
    error(describe_buffer(buf) .. " is not modifiable; nothing was changed")
  end
  set_lines(buf, args.first, args.last, args.lines)
  if args.save then
    vim.api.nvim_buf_call(buf, function()
      vim.cmd("silent keepalt write")
    end)
  end
  reply({ ok = true })
end

local function whole(value, name)
  local n = tonumber(value)
  if n == nil or n ~= math.floor(n) then
    error(("parameter `%s` must be a whole number"):format(name))
  end
  return n
end

local function code_lines(code)
  if code == nil or code == vim.NIL then
    return {}
  end
  local lines = vim.split(tostring(code), "\n", { plain = true })
  if lines[#lines] == "" then
    table.remove(lines)
  end
  return lines
end

-- CodeCompanion's editor tool: { buffer, action = add|update|delete, line | start_line,
-- end_line, code } with 1-based lines, as one change (one undo step). The buffer must be the
-- chat buffer, or a loaded buffer whose file is inside the project root (SPEC 7).
function ops.edit_buffer(args, reply)
  local p = args.params
  local buf = whole(p.buffer, "buffer")
  local ok_buf = vim.api.nvim_buf_is_valid(buf) and vim.api.nvim_buf_is_loaded(buf)
  local name = ok_buf and vim.api.nvim_buf_get_name(buf) or ""
  if not ok_buf or (buf ~= args.chat_buf and (name == "" or not inside(args.root, resolved(name)))) then
    error(("buffer %s is not a loaded buffer whose file is inside the project root"):format(tostring(p.buffer)))
  end
  if not vim.bo[buf].modifiable then
    error(describe_buffer(buf) .. " is not modifiable")
  end
  local count = vim.api.nvim_buf_line_count(buf)
  local lines = code_lines(p.code)
  local what
  if p.action == "add" then
    local line = p.line ~= nil and whole(p.line, "line") or count + 1
    if line < 1 or line > count + 1 then
      error(("line %d is outside %s (1 to %d)"):format(line, describe_buffer(buf), count + 1))
    end
    set_lines(buf, line - 1, line - 1, lines)
    what = ("Added %d line(s) at line %d of %s"):format(#lines, line, describe_buffer(buf))
  elseif p.action == "update" or p.action == "delete" then
    local first, last = whole(p.start_line, "start_line"), whole(p.end_line or p.start_line, "end_line")
    if first < 1 or last < first or last > count then
      error(("lines %d-%d are outside %s (1 to %d)"):format(first, last, describe_buffer(buf), count))
    end
    if p.action == "delete" then
      lines = {}
    end
    set_lines(buf, first - 1, last, lines)
    local verb = p.action == "delete" and "Deleted" or "Replaced"
    what = ("%s lines %d-%d of %s"):format(verb, first, last, describe_buffer(buf))
  else
    error(("action must be add, update or delete, not %s"):format(tostring(p.action)))
  end
  reply({ ok = true, output = what })
end

-- get_quickfix and get_diagnostics: what :ToolSendQuickfix and :ToolSendDiagnostics add to a
-- chat, as a tool's output (an agent reads Neovim's errors the way the user sends them).
function ops.get_quickfix(args, reply)
  local list = args.params.list
  local lines, err = require("toolhost.send_to_chat").quickfix_lines(list ~= nil and tostring(list) or nil)
  reply({ ok = lines ~= nil or err == "the quickfix list has no entries", output = lines and table.concat(lines, "\n") or err })
end

function ops.get_diagnostics(args, reply)
  local buf
  if args.params.path ~= nil then
    local path = resolved(args.root .. "/" .. tostring(args.params.path))
    buf = buffer_of(path) or vim.fn.bufnr(path)
    if buf < 0 then
      return reply({ ok = true, output = ("no diagnostics: %s is not open in Neovim"):format(args.params.path) })
    end
  end
  local lines, err = require("toolhost.send_to_chat").diagnostic_lines(buf)
  reply({ ok = true, output = lines and table.concat(lines, "\n") or err })
end

-- A custom tool's auto_accept function: { name, params } -> { ok = bool }. The host waits
-- 1 s for the answer; an error counts as no.
function ops.auto_accept(args, reply)
  local spec = (require("toolhost.config").options.tools or {})[args.name]
  local decide = type(spec) == "table" and spec.auto_accept
  local ok, yes = pcall(type(decide) == "function" and decide or function() return decide == true end, args.params)
  reply({ ok = ok and yes == true })
end

-- A custom `fn` tool: fn(params, done) calls done({ ok = bool, output = string }) once, now
-- or later; a done that never comes is the host's timeout.
function ops.custom(args, reply)
  local spec = (require("toolhost.config").options.tools or {})[args.name]
  if type(spec) ~= "table" or type(spec.fn) ~= "function" then
    error(("no Lua function for the tool `%s`"):format(args.name))
  end
  local answered = false
  spec.fn(args.params, function(result)
    if answered then
      return
    end
    answered = true
    result = type(result) == "table" and result or { ok = false, output = "done() needs a table" }
    reply({ ok = result.ok == true, output = result.output ~= nil and tostring(result.output) or "" })
  end)
end

-- Runs `op` after the host's request has returned, and answers on the channel that asked.
function M.start(token, op, args)
  local chan = require("toolhost.host").channel()
  local function answer(payload)
    payload.token = token
    if chan then
      pcall(vim.rpcnotify, chan, "toolhost.done", payload)
    end
  end
  vim.schedule(function()
    local fn = ops[op]
    if not fn then
      return answer({ error = "unknown tool operation " .. tostring(op) })
    end
    local ok, err = pcall(fn, args, function(result)
      answer({ result = result })
    end)
    if not ok then
      answer({ error = tostring(err):gsub("^[^:]*:%d+: ", "") })
    end
  end)
end

return M
