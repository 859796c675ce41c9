-- Runs queued work in time-budgeted slices, with Neovim's loop in between (SPEC 9, P1): a list
-- of feedback batches is a sequence of small steps (one result written, one stream updated,
-- one buffer's diagnostics set, one event fired); a slice runs steps until `budget_ms` is
-- spent, then yields with vim.schedule, so that a request from another client waits for one
-- slice, never for a whole list. Work is applied in the order it was queued.
local M = {}

local uv = vim.uv or vim.loop

-- Work per slice before yielding; the step that crosses it finishes first (bench/NOTES.md has
-- the cost of each kind of step).
M.budget_ms = 0.5

-- Queued work, oldest first: { steps = {fn...}, next = 1, errors = {}, done = fn(work),
-- dropped = fn() -> bool, glued = {[step] = true}, yield_after = bool }. Steps may append steps
-- to their own work while it runs. A glued step runs in the same slice as the step before it,
-- whatever the budget (ui.lua: a list's events with the write they report). After a work that
-- sets `yield_after` (by its last step or its `done`), the slice ends even with budget left:
-- its answer goes out before the work queued behind it runs (ui.lua: a host's list, before
-- its diagnostics refresh).
local queue = {}
local scheduled, in_slice = false, false

-- The cost of each slice (ms), for bench/: the last `keep` slices and every count since reset.
local keep = 8192
local costs, slices, steps = {}, 0, 0

-- When bench/ sets it to a table (BENCH_P1_TRACE), each slice appends what it cost: { started
-- (uv.hrtime), ms, Neovim's CPU ms (getrusage: a slice that took longer was preempted or
-- blocked), its costliest step ("file:line" where the step was defined), that step's ms }.
M.trace = nil

local function cpu_ms()
  local r = uv.getrusage()
  return (r.utime.sec + r.stime.sec) * 1e3 + (r.utime.usec + r.stime.usec) / 1e3
end

-- Runs `step`, timed into `slice` when tracing.
local function run_step(step, slice)
  if not slice then
    return pcall(step)
  end
  local started = uv.hrtime()
  local ok, err = pcall(step)
  local ms = (uv.hrtime() - started) / 1e6
  if ms > slice[5] then
    local info = debug.getinfo(step, "S")
    slice[4], slice[5] = info.short_src .. ":" .. info.linedefined, ms
  end
  return ok, err
end

local function finish(work)
  if work.done then
    local ok, err = pcall(work.done, work)
    if not ok then
      vim.notify("toolhost: " .. tostring(err), vim.log.levels.ERROR)
    end
  end
end

-- Whether the next step of `work` (still unfinished) is glued to the one it just ran.
local function next_is_glued(work)
  return not work.finished and work.glued ~= nil and work.glued[work.steps[work.next]] == true
end

-- Runs steps until the budget is spent (`whole`: until the queue is empty); returns whether work
-- is left.
local function run(whole)
  in_slice = true
  local started = uv.hrtime()
  local deadline = started + M.budget_ms * 1e6
  local traced = M.trace and { started, 0, cpu_ms(), "", 0 }
  while queue[1] do
    local work = queue[1]
    if work.dropped and work.dropped() then
      work.was_dropped = true
      work.next = #work.steps + 1
    else
      local step = work.steps[work.next]
      work.next = work.next + 1
      steps = steps + 1
      local ok, err = run_step(step, traced)
      if not ok then
        -- A step that fails loses only itself: the list's other changes are still applied.
        work.errors[#work.errors + 1] = tostring(err)
      end
    end
    local yield = false
    if work.next > #work.steps then
      table.remove(queue, 1)
      work.finished = true
      finish(work)
      yield = work.yield_after == true
    end
    if not whole and (yield or uv.hrtime() >= deadline) and not next_is_glued(work) then
      break
    end
  end
  in_slice = false
  slices = slices + 1
  costs[(slices - 1) % keep + 1] = (uv.hrtime() - started) / 1e6
  if traced then
    traced[2], traced[3] = costs[(slices - 1) % keep + 1], cpu_ms() - traced[3]
    M.trace[#M.trace + 1] = traced
  end
  return queue[1] ~= nil
end

local function slice()
  scheduled = false
  if run(false) and not scheduled then
    scheduled = true
    vim.schedule(slice)
  end
end

-- Queues `work` behind what is queued. When nothing is, its first slice runs now (`whole`: all
-- of it), so a small list is applied before this returns. Returns true when `work` is done.
function M.push(work, whole)
  work.next, work.errors = 1, {}
  queue[#queue + 1] = work
  if in_slice or scheduled then
    return false -- the slice running or scheduled reaches it in order
  end
  if run(whole) then
    scheduled = true
    vim.schedule(slice)
  end
  return work.finished == true
end

-- Work pushed after a delay (refresh.lua's coalesced diagnostics); it counts as queued meanwhile.
local delayed = 0

-- Queues `work` in `ms`; returns a function that drops it if it is not queued yet.
function M.push_after(work, ms)
  delayed = delayed + 1
  local timer = uv.new_timer()
  local function stop()
    if not timer:is_closing() then
      timer:stop()
      timer:close()
      delayed = delayed - 1
      return true
    end
    return false
  end
  timer:start(ms, 0, vim.schedule_wrap(function()
    if stop() then
      M.push(work)
    end
  end))
  return stop
end

-- Whether any work is queued, waiting to be queued, or being applied.
function M.busy()
  return queue[1] ~= nil or delayed > 0
end

-- Slice costs since the last reset: { slices, steps, p50, p99, max } (ms, over the last
-- `keep` slices); `reset` starts counting again.
function M.stats(reset)
  local n = math.min(slices, keep)
  local sorted = {}
  for i = 1, n do
    sorted[i] = costs[i]
  end
  table.sort(sorted)
  local function at(p)
    return n > 0 and sorted[math.max(1, math.ceil(p / 100 * n))] or 0
  end
  local out = { slices = slices, steps = steps, p50 = at(50), p99 = at(99), max = sorted[n] or 0 }
  if reset then
    costs, slices, steps = {}, 0, 0
  end
  return out
end

return M
