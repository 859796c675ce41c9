-- The process groups of a host's jobs, as Neovim sees them: tracked while the host reports
-- them running, so that when the host dies its jobs do not live on (SIGTERM, then SIGKILL after
-- `kill_grace_ms`), and never a group that is no longer the job's (SPEC 11: never kill a
-- process toolhost did not start).
local config = require("toolhost.config")

local uv = vim.uv or vim.loop

local M = {}

-- When process `pid` started (clock ticks since boot, field 22 of /proc/<pid>/stat); nil when
-- it is gone or there is no /proc.
local function start_time(pid)
  local file = io.open("/proc/" .. pid .. "/stat", "r")
  if not file then
    return nil
  end
  local text = file:read("*a") or ""
  file:close()
  -- The command name (field 2) may hold spaces and parentheses: count from the last ")".
  local rest = text:match(".*%)%s+(.*)")
  local fields = rest and vim.split(rest, " ", { plain = true }) or {}
  return tonumber(fields[20])
end

-- Whether group `pgid` is still the job's (never signal a process we did not start): its
-- leader, when alive, must be the process that started within `start` ({ min, max } clock
-- ticks). A pid is not reused while it still names a group, so a group whose leader is gone is
-- the job's leftovers (or empty).
local function still_ours(pgid, start)
  if not start then
    return true -- no /proc to compare with
  end
  local now = start_time(pgid)
  return now == nil or (now >= start[1] and now <= start[2])
end

local function signal_group(pgid, signal)
  local ok, rc = pcall(uv.kill, -pgid, signal)
  return ok and rc == 0
end

-- Groups sent SIGTERM after their host died, one set per dead host: pgid -> leader start
-- time. SIGKILL follows after the grace, or when Neovim exits first.
local doomed = {}

local function kill_groups(groups)
  for pgid, start in pairs(groups) do
    if still_ours(pgid, start) then
      signal_group(pgid, "sigkill")
    end
  end
end

function M.kill_doomed()
  for groups in pairs(doomed) do
    kill_groups(groups)
  end
  doomed = {}
end

function M.kill_orphaned(proc)
  -- The host reports every job's process group; if it died, its jobs must not live on: SIGTERM
  -- now, SIGKILL after kill_grace_ms (or when Neovim exits first) to what ignored it.
  local groups = {}
  for pgid, start in pairs(proc.pgids) do
    if still_ours(pgid, start) and signal_group(pgid, "sigterm") then
      groups[pgid] = start
    end
  end
  proc.pgids = {}
  if next(groups) then
    doomed[groups] = true
    vim.defer_fn(function()
      if doomed[groups] then
        doomed[groups] = nil
        kill_groups(groups)
      end
    end, config.options.kill_grace_ms or 2000)
  end
end

-- A job's group is tracked while it runs, with its leader's start time: the bounds the host
-- read around its spawn (`leader_start`), or else read here once (false when /proc cannot
-- tell), while the leader is alive: the host reports the job running. Reading /proc/<pid>/stat
-- of a process in the middle of an exec waits for the exec to end, milliseconds under load,
-- and a job's first record arrives while its shell execs the command (bench/NOTES.md, P1).
function M.track(pgids, pgid, running, leader_start)
  if not pgid or pgid <= 0 then
    return
  end
  if not running then
    pgids[pgid] = nil
  elseif pgids[pgid] == nil then
    local min = type(leader_start) == "table" and tonumber(leader_start[1]) or 0
    local max = min > 0 and tonumber(leader_start[2])
    if max then
      pgids[pgid] = { min, max }
    else
      local now = start_time(pgid)
      pgids[pgid] = now and { now, now } or false
    end
  end
end

return M
