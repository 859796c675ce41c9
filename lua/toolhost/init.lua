-- Public Lua API of toolhost. Every call that needs the host is a notification: Neovim
-- never waits on the host, and the host never waits on a tool.
local config = require("toolhost.config")
local host = require("toolhost.host")

local M = {}

function M.setup(opts)
  local merged, err = config.set(opts)
  if not merged then
    vim.notify("toolhost.setup: " .. err, vim.log.levels.ERROR)
    return false
  end
  if host.running() then
    vim.rpcnotify(host.channel(), "toolhost.setup", config.for_host())
  end
  return true
end

local function buffer(buf)
  if buf == nil or buf == 0 then
    return vim.api.nvim_get_current_buf()
  end
  return buf
end

local function set_keymaps(buf)
  local keys = config.options.keymaps
  if not keys then
    return
  end
  local actions = {
    run = function() M.run_at_cursor() end,
    cancel = function() M.cancel() end,
    output = function() require("toolhost.output_view").open() end,
  }
  for name, fn in pairs(actions) do
    if keys[name] then
      vim.keymap.set("n", keys[name], fn, { buffer = buf, desc = "toolhost: " .. name })
    end
  end
end

function M.attach(buf)
  buf = buffer(buf)
  if host.is_attached(buf) then
    return true
  end
  local root = config.options.root or vim.fn.getcwd()
  if not host.attach(buf, root) then
    return false
  end
  set_keymaps(buf)
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    once = true,
    callback = function()
      host.forget(buf)
      require("toolhost.ui").forget_buffer(buf)
    end,
  })
  return true
end

function M.detach(buf)
  buf = buffer(buf)
  if host.is_attached(buf) then
    vim.rpcnotify(host.channel(), "toolhost.detach", { buf = buf })
    host.forget(buf)
  end
  require("toolhost.ui").forget_buffer(buf)
end

-- Runs the tool call under the cursor (the user's approval for it).
function M.run_at_cursor(opts)
  opts = opts or {}
  local buf = vim.api.nvim_get_current_buf()
  if not M.attach(buf) then
    return
  end
  local row = vim.api.nvim_win_get_cursor(0)[1] - 1
  host.notify("toolhost.run", { buf = buf, row = row, force = opts.force == true })
end

-- Cancels a job by id, the call under the cursor, or everything (`{ all = true }`).
function M.cancel(id, opts)
  opts = opts or {}
  if not host.running() then
    return
  end
  if opts.all then
    for job_id, job in pairs(require("toolhost.ui").jobs) do
      if job.status == "running" or job.status == "queued" then
        vim.rpcnotify(host.channel(), "toolhost.cancel", { id = job_id })
      end
    end
  elseif id then
    vim.rpcnotify(host.channel(), "toolhost.cancel", { id = id })
  else
    local row = vim.api.nvim_win_get_cursor(0)[1] - 1
    vim.rpcnotify(host.channel(), "toolhost.cancel", { buf = vim.api.nvim_get_current_buf(), row = row })
  end
end

-- The jobs this Neovim knows of (from the host's batches), newest first.
function M.jobs(filter)
  local list = {}
  for _, job in pairs(require("toolhost.ui").jobs) do
    if not filter or not filter.status or filter.status == job.status then
      list[#list + 1] = job
    end
  end
  table.sort(list, function(a, b)
    return tonumber(a.id:match("%d+")) > tonumber(b.id:match("%d+"))
  end)
  return list
end

function M.job(id)
  return require("toolhost.ui").jobs[id]
end

-- Reads a job's log from byte `since` on; `callback({ data, next, finished, eof })`, or
-- `callback(nil, err)`. Asynchronous: Neovim never waits on the host.
function M.output(id, since, callback)
  return host.call("jobs.output", { id = id, since = since or 0 }, function(err, result)
    if err then
      callback(nil, err)
    else
      callback(result)
    end
  end)
end

-- e.g. "⟳2 ✓5 ✗1"; empty when nothing ran. Counts the jobs of this Neovim's buffers, not the
-- whole history that jobs() lists.
function M.statusline()
  local running, ok, failed = 0, 0, 0
  for _, job in pairs(require("toolhost.ui").jobs) do
    local status = job.buf and job.status -- nil: another session's or Neovim's job
    if status == "running" or status == "queued" then
      running = running + 1
    elseif status == "succeeded" then
      ok = ok + 1
    elseif status then
      failed = failed + 1
    end
  end
  local parts = {}
  if running > 0 then parts[#parts + 1] = "⟳" .. running end
  if ok > 0 then parts[#parts + 1] = "✓" .. ok end
  if failed > 0 then parts[#parts + 1] = "✗" .. failed end
  return table.concat(parts, " ")
end

-- Starts a new host at once and attaches the buffers again; the old host winds down on its
-- own (its jobs end) without Neovim waiting for it.
function M.restart()
  local buffers = host.restart()
  local chan, err = host.ensure()
  if not chan then
    vim.notify(err, vim.log.levels.ERROR)
    return
  end
  for _, buf in ipairs(buffers) do
    if vim.api.nvim_buf_is_valid(buf) then
      require("toolhost.ui").forget_buffer(buf)
      M.attach(buf)
    end
  end
end

function M.open_log()
  vim.cmd("split " .. vim.fn.fnameescape(host.dirs().log))
end

return M
