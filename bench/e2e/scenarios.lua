-- The Neovim side of the end-to-end benchmarks (bench/e2e/driver.cc loads it with dofile).
-- Each scenario starts its jobs and returns at once; when it is over it sends the driver one
-- notification `bench` {name = ..., ...}. Times are taken inside Neovim: vim.loop.hrtime()
-- for durations, gettimeofday for comparing with the stamps bench children write.
local B = {}
local uv = vim.loop
local api = vim.api

local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
local util = dofile(here .. "scenario_util.lua")

local chan, base, dir, child, runner

local function now_us()
  local s, us = uv.gettimeofday()
  return s * 1e6 + us
end

local function report(result)
  vim.rpcnotify(chan, "bench", result)
end

-- The Lua runner's scenarios leave their output tables to the garbage collector: it runs
-- before they report (after their figures were taken), so that the next scenario does not
-- pay for it; the time it took is reported.
-- Scheduled, so that the job callback holding the last table has returned.
local function report_collected(result)
  vim.schedule(function()
    local t0 = uv.hrtime()
    collectgarbage("collect")
    result.gc_seconds = (uv.hrtime() - t0) / 1e9
    report(result)
  end)
end

-- A stamp file a bench child wrote: CLOCK_REALTIME in ns, as microseconds.
local function stamp_us(path)
  local f = io.open(path)
  if not f then
    return nil
  end
  local ns = f:read("*l")
  f:close()
  return ns and tonumber(ns) / 1000 or nil
end

function B.init(args)
  chan, base, dir, child = args.chan, args.setup, args.dir, args.child
  runner = dofile(args.runner)
  vim.o.hidden = true
  util.on_job_finished("toolhost_bench", function(data)
    if B.on_finished then
      B.on_finished(data)
    end
  end)
end

-- setup() with the base options (binary, auto_run = false, ...) and `extra` over them.
local function setup(extra)
  local opts = vim.deepcopy(base)
  for k, v in pairs(extra or {}) do
    opts[k] = v
  end
  assert(require("toolhost").setup(opts))
end

-- A chat buffer whose last assistant message has one bash block per command; returns it and
-- the (1-based) row of each command.
local function chat(name, commands)
  local calls = {}
  for i, cmd in ipairs(commands) do
    calls[i] = { open = { "**bash**", "```bash" }, body = cmd }
  end
  return util.open_chat(dir, name, ("%d commands."):format(#commands), calls)
end

local when_parsed = util.when_parsed

local function scratch()
  local buf = api.nvim_create_buf(true, false)
  api.nvim_set_current_buf(buf)
  return buf
end

-- Counts ToolhostJobFinished of `buf`; `each(data)` for every one, `done()` after the n-th.
local function on_finished(buf, n, each, done)
  local count = 0
  B.on_finished = function(data)
    if data.buf ~= buf then
      return
    end
    count = count + 1
    if each then
      each(data)
    end
    if count == n then
      B.on_finished = nil
      done()
    end
  end
end

local result_blocks = util.count_lines

-- The host: its pid, started if it is not yet. `ready_ms`: from the first call (which starts
-- it with jobstart) to its answer arriving in Neovim.
function B.host_ready()
  local t0 = uv.hrtime()
  require("toolhost.host").call("toolhost.ping", {}, function(err)
    local chan_id = require("toolhost.host").channel()
    report({
      name = "host_ready",
      ready_ms = (uv.hrtime() - t0) / 1e6,
      error = err,
      pid = vim.fn.jobpid(chan_id),
      nvim_pid = vim.fn.getpid(),
    })
  end)
end

-- Floods: `jobs` children writing `bytes` each, through toolhost (:ToolRunAll, parallel) or
-- the Lua runner. Reports the wall time and what arrived, and when the floods started
-- (`started_ns`, uv.hrtime(): CLOCK_MONOTONIC, the driver's clock too): P1 counts the round
-- trips from then on, not those of the chat buffer being opened and parsed before.
function B.flood(args)
  local cmd = ("exec %s flood %d"):format(child, args.bytes)
  local name = args.name
  if args.via == "toolhost" then
    setup({ max_concurrent = args.jobs })
    local cmds = {}
    for i = 1, args.jobs do
      cmds[i] = cmd
    end
    local buf = chat(name, cmds)
    local t0 = uv.hrtime()
    local ok, bytes = 0, 0
    on_finished(buf, args.jobs, function(data)
      ok = ok + (data.status == "succeeded" and 1 or 0)
      local job = require("toolhost").job(data.id)
      bytes = bytes + (job and job.stdout and job.stdout.bytes or 0)
    end, function()
      -- The slices Neovim applied the host's feedback in, from :ToolRunAll to the last result.
      local slices = require("toolhost.slices").stats()
      local trace = require("toolhost.slices").trace
      require("toolhost.slices").trace = nil
      report({ name = name, seconds = (uv.hrtime() - t0) / 1e9, started_ns = t0, ok = ok, bytes = bytes,
               blocks = result_blocks(buf, "^````result id="), slices = slices,
               trace = trace })
    end)
    when_parsed(buf, args.jobs, function()
      t0 = uv.hrtime()
      require("toolhost.slices").stats(true)
      if args.trace then
        require("toolhost.slices").trace = {}
      end
      require("toolhost").run_all(buf)
    end)
  else
    local buf = scratch()
    local t0 = uv.hrtime()
    local done, ok, lines = 0, 0, 0
    for _ = 1, args.jobs do
      runner.run({ "sh", "-c", cmd }, buf, function(code, out)
        done = done + 1
        ok = ok + (code == 0 and 1 or 0)
        lines = lines + #out
        if done == args.jobs then
          local seconds = (uv.hrtime() - t0) / 1e9
          report_collected({ name = name, seconds = seconds, started_ns = t0, ok = ok, bytes = lines * 1024,
                             blocks = result_blocks(buf, "^```result exit=") })
        end
      end)
    end
  end
end

-- P2: `n` jobs in flight, child i exits after base_ms + a spread; the latency of each is
-- from the stamp the child writes as it exits to its feedback applied in Neovim
-- (ToolhostJobFinished, fired after the batch's buffer edits; the runner: after its
-- buffer write).
function B.exit_feedback(args)
  local name, n = args.name, args.n
  local function delay(i)
    return args.base_ms + math.floor(((i * 37) % n) * args.spread_ms / n)
  end
  local function stamp_path(i)
    return ("%s/%s-%d"):format(dir, name, i)
  end
  local function command(i)
    return ("exec %s exit-after %d %s"):format(child, delay(i), stamp_path(i))
  end
  local seen = {} -- i -> microseconds (realtime) when the feedback was in
  local function finish()
    local latencies = {}
    for i = 1, n do
      local stamp = stamp_path(i)
      local exited = stamp_us(stamp)
      if exited and seen[i] then
        latencies[#latencies + 1] = (seen[i] - exited) / 1000
      end
      os.remove(stamp)
    end
    report({ name = name, latencies_ms = latencies })
  end
  if args.via == "toolhost" then
    -- The feedback path alone: :ToolRunAll would start these unasked commands in the kernel
    -- sandbox, whose own costs are P10's (its spawn) and bench/NOTES.md's (its exit: the mount
    -- namespace's teardown delays the exit the host sees by 0.3-0.5 ms where `.git` is bound).
    setup({ max_concurrent = n, sandbox = "off" })
    local cmds = {}
    for i = 1, n do
      cmds[i] = command(i)
    end
    local buf = chat(name, cmds)
    on_finished(buf, n, function(data)
      local t = now_us()
      local job = require("toolhost").job(data.id)
      local i = job and job.params and tonumber(job.params.command:match("%-(%d+)$"))
      if i then
        seen[i] = t
      end
    end, finish)
    when_parsed(buf, n, function()
      require("toolhost").run_all(buf)
    end)
  else
    local buf = scratch()
    local done = 0
    for i = 1, n do
      runner.run({ "sh", "-c", command(i) }, buf, function()
        seen[i] = now_us()
        done = done + 1
        if done == n then
          finish()
        end
      end)
    end
  end
end

-- P3: `n` runs one after another, each from Neovim's call (the :ToolRun function; jobstart)
-- to the child's first instruction (the stamp it writes at entry).
function B.exec_latency(args)
  local name, n = args.name, args.n
  local function stamp_path(i)
    return ("%s/%s-%d"):format(dir, name, i)
  end
  local function command(i)
    return ("exec %s now %s"):format(child, stamp_path(i))
  end
  local t0 = {}
  local function finish()
    local latencies = {}
    for i = 1, n do
      local exec = stamp_us(stamp_path(i))
      if exec then
        latencies[#latencies + 1] = (exec - t0[i]) / 1000
      end
      os.remove(stamp_path(i))
    end
    report({ name = name, latencies_ms = latencies })
  end
  local i = 0
  if args.via == "toolhost" then
    -- P10: :ToolRun's job in the sandbox (sandbox_approved: what you approve runs in it too),
    -- in a root that holds a `.git`, as a project's does: its read-only bind is part of what a
    -- sandboxed job costs (without one, no mount namespace is made or joined).
    if args.sandboxed then
      vim.fn.mkdir(vim.fn.getcwd() .. "/.git", "p")
    end
    setup({ max_concurrent = 1, sandbox = "auto", sandbox_approved = args.sandboxed == true })
    local cmds = {}
    for k = 1, n do
      cmds[k] = command(k)
    end
    local buf, rows = chat(name, cmds)
    local function next()
      i = i + 1
      if i > n then
        B.on_finished = nil
        return finish()
      end
      api.nvim_win_set_cursor(0, { rows[i], 0 })
      t0[i] = now_us()
      require("toolhost").run_at_cursor()
    end
    B.on_finished = function(data)
      if data.buf == buf then
        vim.schedule(next)
      end
    end
    when_parsed(buf, n, next)
  else
    local buf = scratch()
    local function next()
      i = i + 1
      if i > n then
        return finish()
      end
      t0[i] = now_us()
      runner.run({ "sh", "-c", command(i) }, buf, function()
        vim.schedule(next)
      end)
    end
    next()
  end
end

-- P6: `n` calls queued at once (:ToolRunAll, parallel, max_concurrent = n; the runner: n
-- jobstarts); over when every result is written into the buffer.
function B.many(args)
  local name, n = args.name, args.n
  local cmd = "true"
  local t0
  if args.via == "toolhost" then
    setup({ max_concurrent = n })
    local cmds = {}
    for i = 1, n do
      cmds[i] = cmd
    end
    local buf = chat(name, cmds)
    local ok = 0
    local cpu0
    on_finished(buf, n, function(data)
      ok = ok + (data.status == "succeeded" and 1 or 0)
    end, function()
      local seconds = (uv.hrtime() - t0) / 1e9
      report({ name = name, seconds = seconds, ok = ok, nvim_cpu_s = os.clock() - cpu0,
               written = result_blocks(buf, "^````result id=.* status=succeeded") })
    end)
    when_parsed(buf, n, function()
      t0, cpu0 = uv.hrtime(), os.clock()
      require("toolhost").run_all(buf)
    end)
  else
    local buf = scratch()
    local done, ok = 0, 0
    t0 = uv.hrtime()
    local cpu0 = os.clock()
    for _ = 1, n do
      runner.run({ "sh", "-c", cmd }, buf, function(code)
        done = done + 1
        ok = ok + (code == 0 and 1 or 0)
        if done == n then
          local seconds = (uv.hrtime() - t0) / 1e9
          report_collected({ name = name, seconds = seconds, ok = ok, nvim_cpu_s = os.clock() - cpu0,
                             written = result_blocks(buf, "^```result exit=0") })
        end
      end)
    end
  end
end

-- P11 (a gcc log into the quickfix list) is in scenarios_quickfix.lua.
dofile(here .. "scenarios_quickfix.lua")(B, {
  report = report,
  setup = setup,
  chat = chat,
  when_parsed = when_parsed,
  now_us = now_us,
  stamp_us = stamp_us,
  dir = function()
    return dir
  end,
  child = function()
    return child
  end,
})

-- P1 attach (opening a big chat) is in scenarios_attach.lua.
dofile(here .. "scenarios_attach.lua")(B, {
  report = report,
  dir = function()
    return dir
  end,
})

return B
