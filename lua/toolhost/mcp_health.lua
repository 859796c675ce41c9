-- The MCP servers' part of :checkhealth toolhost: starts each configured server and reports how
-- long it took to list its tools. A health check may block (the user asked for it), but never
-- longer than the slowest server's startup_timeout_ms and a margin.
local M = {}

local uv = vim.uv or vim.loop
local kMarginMs = 2000 -- the host's own startup timeout fails a server first
local kLogLines = 5

local function servers(chan, args)
  local answered, reply = pcall(vim.rpcrequest, chan, "toolhost.mcp_servers", args or vim.empty_dict())
  if not answered or type(reply) ~= "table" then
    return nil, tostring(reply)
  end
  return reply.servers or {}
end

local function by_name(list)
  local map = {}
  for _, server in ipairs(list or {}) do
    map[server.name] = server
  end
  return map
end

local function settled(server)
  return server and (server.state == "running" or server.state == "failed" or server.state == "disabled"
    or server.state == "stopped")
end

-- The server's last log lines, as advice under an error.
local function last_log(chan, name)
  local list = servers(chan, { log = true }) or {}
  local log = (by_name(list)[name] or {}).log or {}
  local advice = {}
  for i = math.max(1, #log - kLogLines + 1), #log do
    advice[#advice + 1] = "log: " .. log[i]
  end
  if #advice == 0 then
    advice[1] = "no log lines (:ToolMcp, `l` on the server, shows them as they come)"
  end
  return advice
end

-- `report`: { start, ok, warn, error, info } from vim.health or 0.7's health module.
function M.check(chan, report)
  report.start("toolhost: MCP servers")
  local list, err = servers(chan)
  if not list then
    return report.error("the host does not list its MCP servers: " .. err)
  end
  if #list == 0 then
    -- The report links `:help tag` up to the next blank: the tag ends the message, or a `)`
    -- after it would join the link (`(:help |toolhost-mcp)|`).
    return report.info("no MCP servers configured; how to add one: :help toolhost-mcp")
  end
  -- Every server starts at once (a failed one without its backoff), so the check takes as
  -- long as the slowest, not the sum.
  local started, deadline_ms = {}, 0
  for _, server in ipairs(list) do
    if server.state ~= "running" and server.state ~= "disabled" then
      if server.state == "failed" then
        pcall(vim.rpcrequest, chan, "toolhost.mcp_restart", { name = server.name })
      end
      started[server.name] = uv.hrtime()
      deadline_ms = math.max(deadline_ms, (tonumber(server.startup_timeout_ms) or 10000) + kMarginMs)
    end
  end
  local finished, current = {}, by_name(list)
  if next(started) then
    current = by_name(servers(chan, { start = true }))
    vim.wait(deadline_ms, function()
      current = by_name(servers(chan) or {})
      local all = true
      for name in pairs(started) do
        local server = current[name]
        if not finished[name] and settled(server) and server.state ~= "stopped" then
          finished[name] = uv.hrtime()
        end
        all = all and finished[name] ~= nil
      end
      return all
    end, 20)
  end
  for _, listed in ipairs(list) do
    local name = listed.name
    local server = current[name] or listed
    local tools = #(server.tools or {})
    if server.state == "disabled" then
      report.warn(("%s: disabled: %s"):format(name, server.error ~= "" and server.error or "its spec says disabled"),
        { "its tools are left out; remove `disabled` from its spec to use it" })
    elseif server.state == "running" and started[name] then
      local ms = math.floor((finished[name] - started[name]) / 1e6 + 0.5)
      report.ok(("%s: %d tools listed in %d ms (%s, %s, pid %d)"):format(name, tools, ms, server.transport,
        server.protocol, server.pid))
    elseif server.state == "running" then
      report.ok(("%s: %d tools listed (already running: %s, %s, pid %d)"):format(name, tools, server.transport,
        server.protocol, server.pid))
    elseif server.state == "failed" then
      report.error(("%s: does not start: %s"):format(name, server.error), last_log(chan, name))
    else
      report.error(("%s: no tools listed within %d ms (%s)"):format(name, deadline_ms, server.state),
        last_log(chan, name))
    end
  end
end

return M
