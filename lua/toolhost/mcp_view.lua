-- :ToolMcp: a window listing the configured MCP servers (SPEC 13.4), one line each.
-- <CR> shows or hides a server's tools with their schemas, `r` restarts it, `s` stops it,
-- `l` opens its log, `S` starts the servers not running, `R` refreshes, `q` closes.
-- Never waits on a server: every request is answered by the host at once, and nothing starts
-- unless the user asks (`S`, :ToolMcp start, `r`).
local islist = require("toolhost.features").islist
local host = require("toolhost.host")
local view_util = require("toolhost.view_util")

local M = {}

-- rows: row (1-based) -> server name; expanded: name -> true for servers showing their tools
local view = { buf = nil, rows = {}, expanded = {}, poll = false }
local kPollMs = 300 -- how often the window asks again while a server starts or backs off

local function valid()
  return view_util.valid(view.buf)
end

local function is_dict(t)
  return getmetatable(t) == getmetatable(vim.empty_dict()) or not islist(t)
end

-- JSON text of a decoded value, keys sorted so that a schema always reads the same.
local function compact(value)
  if type(value) ~= "table" then
    return value == vim.NIL and "null" or vim.fn.json_encode(value)
  end
  local parts = {}
  if is_dict(value) then
    local keys = vim.tbl_keys(value)
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    for _, key in ipairs(keys) do
      parts[#parts + 1] = vim.fn.json_encode(tostring(key)) .. ": " .. compact(value[key])
    end
    return "{" .. table.concat(parts, ", ") .. "}"
  end
  for _, item in ipairs(value) do
    parts[#parts + 1] = compact(item)
  end
  return "[" .. table.concat(parts, ", ") .. "]"
end

-- Appends `value` to `lines` as indented JSON: a table whose text fits in a line stays on one.
local function pretty(lines, value, indent, prefix, suffix)
  local text = compact(value)
  if type(value) ~= "table" or #indent + #prefix + #text <= 80 then
    lines[#lines + 1] = indent .. prefix .. text .. suffix
    return
  end
  local dict = is_dict(value)
  lines[#lines + 1] = indent .. prefix .. (dict and "{" or "[")
  local keys = dict and vim.tbl_keys(value) or {}
  if dict then
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  else
    for i = 1, #value do
      keys[i] = i
    end
  end
  for i, key in ipairs(keys) do
    local name = dict and vim.fn.json_encode(tostring(key)) .. ": " or ""
    pretty(lines, value[key], indent .. "  ", name, i < #keys and "," or "")
  end
  lines[#lines + 1] = indent .. (dict and "}" or "]") .. suffix
end

-- The last column: the last error, and when the next start is due while it backs off.
local function problem(server)
  -- one line per server: an error's stderr lines join with its message
  local text = (type(server.error) == "string" and server.error or ""):gsub("%s*\n%s*", " ")
  local retry = tonumber(server.retry_in_ms) or 0
  if retry > 0 then
    text = ("retry in %ds; %s"):format(math.ceil(retry / 1000), text)
  end
  return text
end

M.format = { compact = compact, pretty = pretty, problem = problem }

local kColumns = "%-18s %-9s %-9s %-10s %5s %7s  %s"

local function tool_lines(lines, server)
  for _, tool in ipairs(server.tools or {}) do
    local name = type(tool.name) == "string" and tool.name or (tool.tool .. " (disabled)")
    local description = type(tool.description) == "string" and tool.description:gsub("%s*\n%s*", " ") or ""
    lines[#lines + 1] = ("    %s: %s"):format(name, description)
    if type(tool.annotations) == "table" and next(tool.annotations) then
      lines[#lines + 1] = "      annotations: " .. compact(tool.annotations)
    end
    pretty(lines, tool.inputSchema or vim.empty_dict(), "      ", "inputSchema: ", "")
  end
  if #(server.tools or {}) == 0 then
    lines[#lines + 1] = "    (no tools listed yet)"
  end
end

local function schedule_poll()
  if view.poll then
    return
  end
  view.poll = true
  vim.defer_fn(function()
    view.poll = false
    M.refresh()
  end, kPollMs)
end

local function render(err, result)
  if not valid() then
    return
  end
  local lines, rows, busy = {}, {}, false
  if err then
    lines = { "toolhost: " .. tostring(err) }
  else
    local servers = result and result.servers or {}
    lines[1] = ("toolhost MCP servers: %d   <CR> tools  r restart  s stop  l log  S start all  R refresh  q close")
      :format(#servers)
    lines[2] = kColumns:format("NAME", "TRANSPORT", "STATE", "PROTOCOL", "TOOLS", "PID", "LAST ERROR")
    if #servers == 0 then
      lines[3] = "(no MCP servers configured: :help toolhost-mcp)"
    end
    for _, server in ipairs(servers) do
      local pid = tonumber(server.pid) or 0
      lines[#lines + 1] = kColumns:format(server.name, server.transport or "", server.state or "",
        (type(server.protocol) == "string" and server.protocol ~= "") and server.protocol or "-", #(server.tools or {}), pid > 0 and pid or "-",
        problem(server))
      rows[#lines] = server.name
      if type(server.sign_in_url) == "string" and server.sign_in_url ~= "" then
        lines[#lines + 1] = "    sign-in needed: " .. server.sign_in_url
        busy = true -- its end comes without an event
      end
      if view.expanded[server.name] then
        tool_lines(lines, server)
      end
      busy = busy or server.state == "starting" or (tonumber(server.retry_in_ms) or 0) > 0
    end
    -- every line of an expanded server's tools belongs to it (<CR> there folds it again)
    local owner
    for row = 3, #lines do
      owner = rows[row] or owner
      rows[row] = owner
    end
  end
  view.rows = rows
  view_util.set_lines(view.buf, vim.split(table.concat(lines, "\n"), "\n", { plain = true }))
  require("toolhost.ui").fire("ToolhostViewUpdated", { view = "mcp", buf = view.buf })
  if busy then
    schedule_poll() -- a start or a backoff ends without an event when the tools stay the same
  end
end

-- Asks the host for the servers' state; `start`: starts those not running yet first.
function M.refresh(start)
  if valid() then
    host.call("toolhost.mcp_servers", { start = start == true }, render)
  end
end

-- The server named on the cursor's line (or in the tools under it).
function M.server_under_cursor()
  return view_util.under_cursor(view.rows)
end

local function with_server(action)
  return view_util.on_row(M.server_under_cursor, action)
end

local after_refresh = view_util.then_refresh(function() M.refresh() end)

-- Opens server `name`'s log (its last stderr lines and log messages) in a split.
function M.open_log(name)
  host.call("toolhost.mcp_servers", { log = true }, function(err, result)
    local lines
    for _, server in ipairs(not err and result and result.servers or {}) do
      if server.name == name then
        lines = type(server.log) == "table" and server.log or {}
        if #lines == 0 then
          lines = { "(no log lines yet)" }
        end
      end
    end
    lines = lines or { "toolhost: " .. tostring(err or ("no MCP server named " .. name)) }
    vim.cmd("botright new")
    local buf = view_util.scratch("toolhost://mcp-log/" .. name, "toolhost-mcp-log")
    view_util.set_lines(buf, vim.split(table.concat(lines, "\n"), "\n", { plain = true }))
    vim.cmd("normal! G")
    require("toolhost.ui").fire("ToolhostViewUpdated", { view = "mcp_log", buf = buf, server = name })
  end)
end

-- `opts.start`: start the servers not running yet (:ToolMcp start).
function M.open(opts)
  local start = opts ~= nil and opts.start == true
  if view_util.show_again(view.buf) then
    return M.refresh(start)
  end
  vim.cmd("botright new")
  view.buf = view_util.scratch("toolhost://mcp", "toolhost-mcp")
  view.expanded = {}
  render(nil, { servers = {} })
  local map = view_util.mapper(view.buf)
  map("<CR>", with_server(function(name)
    view.expanded[name] = not view.expanded[name] or nil
    M.refresh()
  end), "show or hide the server's tools")
  map("r", with_server(function(name) host.call("toolhost.mcp_restart", { name = name }, after_refresh) end),
    "restart the server")
  map("s", with_server(function(name) host.call("toolhost.mcp_stop", { name = name }, after_refresh) end),
    "stop the server")
  map("l", with_server(M.open_log), "open the server's log")
  map("S", function() M.refresh(true) end, "start the servers not running")
  map("R", function() M.refresh() end, "refresh")
  view_util.refresh_on("toolhost_mcp_view", "ToolhostToolsChanged", valid, function() M.refresh() end)
  M.refresh(start)
end

-- :ToolMcp login|logout NAME: an HTTP server's sign-in (its end is notified), or its tokens
-- forgotten.
local function sign(verb, name)
  if name == nil or name == "" then
    return vim.notify(("toolhost: :ToolMcp %s needs a server's name"):format(verb), vim.log.levels.ERROR)
  end
  host.call("toolhost.mcp_" .. verb, { name = name }, function(err)
    if err then
      return vim.notify("toolhost: " .. tostring(err), vim.log.levels.ERROR)
    end
    if verb == "logout" then
      vim.notify(("toolhost: signed out of MCP server %s"):format(name))
    end
    M.refresh()
  end)
end

-- :ToolMcp [start|accept|login NAME|logout NAME]
function M.command(args)
  local words = {}
  for word in (args or ""):gmatch("%S+") do
    words[#words + 1] = word
  end
  local sub = words[1]
  if sub == "login" or sub == "logout" then
    return sign(sub, words[2])
  end
  if sub == nil or sub == "" then
    return M.open()
  elseif sub == "start" then
    return M.open({ start = true })
  elseif sub == "accept" then
    return require("toolhost.mcp_trust").accept_pending()
  end
  vim.notify(("toolhost: unknown :ToolMcp subcommand %q (start, accept, login, logout)"):format(sub),
    vim.log.levels.ERROR)
end

return M
