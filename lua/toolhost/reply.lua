-- When is a reply complete (SPEC 4)? When the chat plugin says so — assistant_done(buf), or one
-- of the `auto_run_events` User autocmds — or when the buffer has been quiet for
-- `auto_run_idle_ms` after a change that was not toolhost's own (ui.lua marks its writes). The
-- host then decides: the last reply must have changed and its last block be closed.
-- Opening a transcript or reloading it with :e is no change here: on_lines does not fire for
-- the text a buffer is loaded with, and a reload (or an unload) ends the watch (on_detach; the
-- host's nvim_buf_attach ends with it) until the buffer is attached again.
local M = {}

local uv = vim.uv or vim.loop
local config = require("toolhost.config")

local watched = {} -- buf -> { timer, first_row }: the lowest row changed since the last idle

local function stop(w)
  if w.timer then
    w.timer:stop()
    w.timer:close()
    w.timer = nil
  end
  w.first_row = nil
end

local function idle(buf, w)
  if watched[buf] ~= w or w.first_row == nil then
    return
  end
  local first_row = w.first_row
  w.first_row = nil
  require("toolhost.host").notify("toolhost.idle", { buf = buf, first_row = first_row })
end

-- `on_detached()` runs when Neovim ends the watch itself (the buffer is unloaded or re-read),
-- not after unwatch().
function M.watch(buf, on_detached)
  if watched[buf] then
    return
  end
  local w = {}
  watched[buf] = w
  vim.api.nvim_buf_attach(buf, false, {
    on_lines = function(_, _, tick, first, old_end, new_end)
      if watched[buf] ~= w then
        return true -- detached: stop watching
      end
      -- Every change, toolhost's own included, moves the rows the host read before it.
      require("toolhost.blocks").record_change(buf, tick, first, old_end, new_end)
      if require("toolhost.rewrite").writing then
        return -- a result toolhost writes is not a reply arriving
      end
      w.first_row = math.min(w.first_row or first, first)
      w.timer = w.timer or uv.new_timer()
      w.timer:stop()
      w.timer:start(config.options.auto_run_idle_ms, 0, vim.schedule_wrap(function()
        idle(buf, w)
      end))
    end,
    on_detach = function()
      if watched[buf] == w then
        stop(w)
        watched[buf] = nil
        if on_detached then
          on_detached()
        end
      end
    end,
  })
end

function M.unwatch(buf)
  local w = watched[buf]
  if w then
    stop(w)
    watched[buf] = nil
  end
end

-- The host is gone: what was watched is attached again (and watched) by the next host.
function M.unwatch_all()
  for buf in pairs(watched) do
    M.unwatch(buf)
  end
end

-- The reply was said complete: the changes so far need no idle check (the change log that
-- moves the host's marks is blocks.lua's, and stays).
function M.skip_idle_check(buf)
  local w = watched[buf]
  if w then
    if w.timer then
      w.timer:stop()
    end
    w.first_row = nil
  end
end

local listening = nil

-- `User` autocmds that complete a reply; the buffer is the event's `data.bufnr` or
-- `data.buf` (0.8+), else the current buffer.
function M.listen(events)
  local key = table.concat(events, "\0")
  if listening == key then
    return
  end
  listening = key
  local group = vim.api.nvim_create_augroup("toolhost_reply", { clear = true })
  if #events == 0 then
    return
  end
  vim.api.nvim_create_autocmd("User", {
    group = group,
    pattern = events,
    callback = function(args)
      local data = type(args.data) == "table" and args.data or {}
      local buf = tonumber(data.bufnr or data.buf) or vim.api.nvim_get_current_buf()
      if require("toolhost.host").is_attached(buf) then
        require("toolhost").assistant_done(buf)
      end
    end,
  })
end

return M
