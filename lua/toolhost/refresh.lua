-- The diagnostics refresh of a chat buffer after a host's list, coalesced (SPEC 9, P2). On 0.7,
-- vim.diagnostic.set re-sets every diagnostic of the buffer (no per-item update: ~1.3 ms for
-- 100 calls then; ~0.3 since diagnostic_marks.lua draws the signs and texts), so one refresh per
-- list made each call's feedback cost as much as the chat has calls, and a list arriving
-- meanwhile waited behind it (a chat of 200 calls run one by one: 8–12 ms from :ToolRun to
-- ToolhostJobStarted instead of 3–6). A refresh joins the one already queued for its buffer.
-- With none queued, it is queued at once (a slice after the list) when the list ended a call (a
-- result written, a ✓/✗ diagnostic, ToolhostJobFinished, a block forgotten) or when the
-- buffer's last refresh is far enough behind; otherwise (a job started, awaiting approval, the
-- running jobs' elapsed time) it waits until Neovim has spent `spacing` times that refresh's
-- cost elsewhere (at most `max_wait_ms`), and the lists that come meanwhile join it: a job's
-- result, usually.
local M = {}

local api = vim.api
local uv = vim.uv or vim.loop
local blocks = require("toolhost.blocks")
local slices = require("toolhost.slices")

M.spacing = 4
M.max_wait_ms = 200

local last = {} -- buf -> { ended = hrtime (ns), cost = ms } of its last refresh
local queued = {} -- buf -> { after = {fn...}, cancel = fn while it waits } until its refresh runs

-- How long a refresh of `buf` must still wait (ms; 0: it may run now).
local function wait_ms(buf)
  local previous = last[buf]
  if not previous then
    return 0
  end
  local since = (uv.hrtime() - previous.ended) / 1e6
  return math.max(0, math.min(previous.cost * M.spacing, M.max_wait_ms) - since)
end

-- Refreshes `buf` now; the refresh queued for it, done by this one, calls its callbacks.
function M.now(buf)
  local refresh = queued[buf]
  queued[buf] = nil
  if refresh and refresh.cancel then
    refresh.cancel()
  end
  local st = blocks.get(buf)
  if st and api.nvim_buf_is_valid(buf) then
    local started = uv.hrtime()
    blocks.refresh_diagnostics(buf, st)
    local ended = uv.hrtime()
    last[buf] = { ended = ended, cost = (ended - started) / 1e6 }
  else
    last[buf] = nil
  end
  for _, after in ipairs(refresh and refresh.after or {}) do
    after()
  end
end

local function queue(buf, refresh, delay_ms)
  queued[buf] = refresh
  local work = {
    steps = {
      function()
        if queued[buf] == refresh then
          M.now(buf)
        end
      end,
    },
  }
  if delay_ms then
    refresh.cancel = slices.push_after(work, delay_ms)
  else
    slices.push(work)
  end
end

-- Asks for a refresh of `buf` (`urgent`: the list hid its diagnostics, which must be shown
-- again at once, or ended a call, whose ✓/✗ a ToolhostJobFinished handler may read); `after`
-- is called once it is done. Returns true when a refresh was queued to run now, behind the work
-- queued so far.
function M.request(buf, urgent, after)
  local refresh = queued[buf]
  if refresh then
    refresh.after[#refresh.after + 1] = after
    if not (urgent and refresh.cancel) then
      return false
    end
    -- The waiting refresh runs now instead.
    refresh.cancel()
    refresh = { after = refresh.after }
    queue(buf, refresh)
    return true
  end
  refresh = { after = { after } }
  local wait = urgent and 0 or wait_ms(buf)
  if wait > 0 then
    queue(buf, refresh, math.ceil(wait))
    return false
  end
  queue(buf, refresh)
  return true
end

-- `buf` is no longer a chat buffer: its queued refresh is dropped (a waiting one would keep
-- slices.busy() true, and refresh the state a new attach creates), its lists are done.
function M.forget(buf)
  last[buf] = nil
  local refresh = queued[buf]
  queued[buf] = nil
  if refresh and refresh.cancel then
    refresh.cancel()
  end
  for _, after in ipairs(refresh and refresh.after or {}) do
    after()
  end
end

return M
