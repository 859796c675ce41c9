-- P8's Neovim side (bench/e2e/mcp.cc loads it with dofile into a Neovim whose setup() names
-- server-everything): calls of `everything__echo` from JSON fences in a chat buffer. Each
-- scenario returns at once and sends the driver one notification `bench` {name = ..., ...}.
local M = {}
local uv = vim.loop
local api = vim.api
local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
local util = dofile(here .. "scenario_util.lua")
local chan, dir
local on_finished

function M.init(args)
  chan, dir = args.chan, args.dir
  vim.o.hidden = true
  util.on_job_finished("toolhost_bench_mcp", function(data)
    if on_finished then
      on_finished(data)
    end
  end)
end

local function report(result)
  vim.rpcnotify(chan, "bench", result)
end

-- A chat whose last assistant message has `n` echo calls; returns it and each call's row.
local function chat(name, n)
  local calls = {}
  for i = 1, n do
    calls[i] = { open = { "```json" },
                 body = vim.json.encode({ tool = "everything__echo", parameters = { message = "p8 " .. i } }) }
  end
  return util.open_chat(dir, name, ("%d calls."):format(n), calls)
end

local when_parsed = util.when_parsed

local function written(buf)
  return util.count_lines(buf, "tool=everything__echo status=succeeded", true)
end

-- The row of call `i` now that results were written above it (from its row at first on).
local function row_of(buf, i, from)
  local needle = ('"p8 %d"'):format(i)
  for row, line in ipairs(api.nvim_buf_get_lines(buf, from - 1, -1, false)) do
    if line:find(needle, 1, true) then
      return from + row - 1
    end
  end
  error("P8: call " .. i .. " is no longer in the chat")
end

-- `warm + n` calls one after the other (:ToolRun on each block): from run_at_cursor() to its
-- ToolhostJobFinished, the result written under the block. In chats of `per_chat` calls: a
-- call's latency grows with the chat's size (bench/NOTES-mcp.md), and a chat holds a few.
-- Beside it, each job's duration: the host's own MCP hop (its request written to the answer
-- read), the part of the path that is the SDK's whole round trip.
function M.sequential(args)
  local warm, n, per_chat = 5, args.n, args.per_chat or 10
  local latencies, hops, total_written = {}, {}, 0
  local done, t0 = 0, 0
  local buf, rows, i
  local next
  local function open_chat()
    if buf then
      total_written = total_written + written(buf)
    end
    local calls = math.min(per_chat, warm + n - done)
    buf, rows = chat(("%s-%d"):format(args.name, done), calls)
    i = 0
    when_parsed(buf, calls, next)
  end
  next = function()
    i = i + 1
    if done == warm + n then
      on_finished = nil
      total_written = total_written + written(buf)
      return report({ name = args.name, latencies_ms = latencies, hops_ms = hops,
                      written = total_written })
    end
    if i > #rows then
      return open_chat()
    end
    api.nvim_win_set_cursor(0, { row_of(buf, i, rows[i]), 0 })
    t0 = uv.hrtime()
    require("toolhost").run_at_cursor()
  end
  on_finished = function(data)
    if data.buf ~= buf then
      return
    end
    done = done + 1
    if done > warm then
      latencies[#latencies + 1] = (uv.hrtime() - t0) / 1e6
      hops[#hops + 1] = data.duration * 1e3
    end
    vim.schedule(next)
  end
  open_chat()
end

-- `n` calls queued at once (:ToolRunAll, parallel): until the last one's ToolhostJobFinished.
function M.queued(args)
  local n = args.n
  local buf = chat(args.name, n)
  local done, ok, t0 = 0, 0, 0
  on_finished = function(data)
    if data.buf ~= buf then
      return
    end
    done = done + 1
    ok = ok + (data.status == "succeeded" and 1 or 0)
    if done == n then
      local ms = (uv.hrtime() - t0) / 1e6
      on_finished = nil
      vim.schedule(function()
        report({ name = args.name, ms = ms, ok = ok, written = written(buf) })
      end)
    end
  end
  when_parsed(buf, n, function()
    t0 = uv.hrtime()
    require("toolhost").run_all(buf)
  end)
end

-- A fresh host over a warm tool cache: from the host's first answer (ready) to
-- `everything__echo` being in its tool table, the server not yet started.
function M.cache(args)
  local t0 = uv.hrtime()
  local ready
  local function has_echo(tools)
    for _, t in ipairs(tools or {}) do
      if t.name == "everything__echo" then
        return true
      end
    end
    return false
  end
  local function check()
    require("toolhost").tools({ format = "mcp", callback = function(tools)
      if has_echo(tools) then
        on_finished = nil
        return report({ name = args.name, ready_ms = (ready - t0) / 1e6,
                        tools_ms = (uv.hrtime() - ready) / 1e6 })
      end
      vim.defer_fn(check, 1)
    end })
  end
  require("toolhost.host").call("toolhost.ping", {}, function()
    ready = uv.hrtime()
    check()
  end)
end

return M
