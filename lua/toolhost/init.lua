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
    vim.rpcnotify(host.channel(), "toolhost.setup", host.setup_args())
  end
  require("toolhost.reply").listen(config.options.auto_run_events)
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
    run_all = function() M.run_all() end,
    cancel = function() M.cancel() end,
    reject = function() M.reject() end,
    output = function() require("toolhost.output_view").open() end,
  }
  for name, fn in pairs(actions) do
    if keys[name] then
      vim.keymap.set("n", keys[name], fn, { buffer = buf, desc = "toolhost: " .. name })
    end
  end
end

-- Neovim ends every buffer-update listener of a buffer it unloads or re-reads (:e, :bd), the
-- host's included: the buffer is forgotten, and attached again once a reload is over (a buffer
-- read again later is attached by the chat detection or :ToolAttach).
local function detached(buf)
  host.forget(buf)
  vim.schedule(function()
    if not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    pcall(require("toolhost.ui").forget_buffer, buf)
    if vim.api.nvim_buf_is_loaded(buf) then
      M.attach(buf)
    end
  end)
end

function M.attach(buf)
  buf = buffer(buf)
  if host.is_attached(buf) then
    return true
  end
  if not host.attach(buf, config.root()) then
    return false
  end
  -- From now on its changes are logged: the host's first marks, read at attach, follow them.
  require("toolhost.blocks").state(buf)
  set_keymaps(buf)
  local reply = require("toolhost.reply")
  reply.listen(config.options.auto_run_events)
  reply.watch(buf, function() detached(buf) end)
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    once = true,
    callback = function()
      host.forget(buf)
      require("toolhost.ui").forget_buffer(buf)
      -- The chat is gone: so are its calls' build diagnostics (their lists stay, as :make's).
      require("toolhost.quickfix").forget_buffer(buf)
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
  require("toolhost.reply").unwatch(buf)
  require("toolhost.ui").forget_buffer(buf)
end

-- Runs the tool call under the cursor (the user's approval for it), or the one awaiting
-- approval: in this buffer, else in another (an agent's, while the user works in a file;
-- awaiting.lua asks which when several wait).
function M.run_at_cursor(opts)
  opts = opts or {}
  require("toolhost.awaiting").target("Run", function(buf, row)
    if M.attach(buf) then
      host.notify("toolhost.run", { buf = buf, row = row, force = opts.force == true })
    end
  end)
end

-- Declines the call under the cursor or the one awaiting approval, found as run_at_cursor()
-- finds it: the model reads that the user declined, with `reason` when given.
function M.reject(reason)
  require("toolhost.awaiting").target("Decline", function(buf, row)
    if M.attach(buf) then
      host.notify("toolhost.reject", { buf = buf, row = row, reason = reason or "" })
    end
  end)
end

-- Runs the pending calls of the last assistant message, in order. With `confirm_run_all`, asks
-- once first when some of them would not auto-run, listing those.
function M.run_all(buf)
  buf = buffer(buf)
  if not M.attach(buf) then
    return
  end
  local parallel = config.options.run_all == "parallel"
  host.call("toolhost.run_all_plan", { buf = buf }, function(err, plan)
    if err then
      vim.notify("toolhost: " .. err, vim.log.levels.ERROR)
      return
    end
    local asking = {}
    for _, call in ipairs(plan.calls or {}) do
      if not call.auto then
        asking[#asking + 1] = ("  line %d: %s (%s)"):format(call.row + 1, call.tool, call.reason)
      end
    end
    if #(plan.calls or {}) == 0 then
      vim.notify("toolhost: no pending tool call in the last reply", vim.log.levels.WARN)
      return
    end
    if config.options.confirm_run_all and #asking > 0 then
      local text = ("Run %d tool call(s)? These need your approval:\n%s"):format(
        #plan.calls, table.concat(asking, "\n"))
      if vim.fn.confirm(text, "&Run all\n&Cancel", 2) ~= 1 then
        return
      end
    end
    local ids = vim.tbl_map(function(call) return call.id end, plan.calls)
    host.notify("toolhost.run_all", { buf = buf, ids = ids, parallel = parallel })
  end)
end

-- A chat plugin says the reply in `buf` is complete: its unclosed fence becomes an error and,
-- with auto-run, its auto-acceptable calls run (SPEC 4).
function M.assistant_done(buf)
  buf = buffer(buf)
  if not M.attach(buf) then
    return
  end
  require("toolhost.reply").skip_idle_check(buf)
  host.notify("toolhost.assistant_done", { buf = buf })
end

-- A tool call a chat plugin keeps as structured data (SPEC 10.5): `call` = { id, name,
-- arguments (a table or a JSON string), row, end_row (0-based, end-exclusive), on_done,
-- write_result }. toolhost marks the rows, runs the call through the same policy (a call that
-- is not auto-acceptable waits for the run key), job and feedback, and calls
-- `on_done({ id, status, output })`; nothing is parsed, and no result block is written
-- unless `write_result`. Returns the call's id.
local submissions = 0
function M.submit(buf, call)
  buf = buffer(buf)
  if not M.attach(buf) then
    return nil
  end
  local id = call.id
  if id == nil or id == "" then
    submissions = submissions + 1
    id = ("lua-%x-%d"):format(os.time(), submissions) -- unique across Neovims: history keys by id
  end
  require("toolhost.ui").on_submitted(id, call.on_done)
  host.notify("toolhost.submit", {
    buf = buf,
    id = id,
    name = call.name,
    arguments = call.arguments or vim.empty_dict(),
    row = call.row or 0,
    end_row = call.end_row or ((call.row or 0) + 1),
    write_result = call.write_result == true,
  })
  return id
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

-- The jobs this Neovim knows of (from the host's batches), newest first: this project's (of
-- its root), or with `filter.all` every project's; `filter.status` keeps one status.
function M.jobs(filter)
  filter = filter or {}
  local mine = not filter.all and require("toolhost.jobs_view").in_project(config.root())
  local list = {}
  for _, job in pairs(require("toolhost.ui").jobs) do
    if (not filter.status or filter.status == job.status) and (not mine or mine(job)) then
      list[#list + 1] = job
    end
  end
  table.sort(list, function(a, b)
    return tonumber(a.id:match("%d+")) > tonumber(b.id:match("%d+"))
  end)
  return list
end

-- Every tool (built-in and custom) with its JSON Schema, for a chat plugin to send to its
-- model (SPEC 13.4): `opts.format` is "openai" (default), "anthropic" or "mcp". With
-- `opts.callback(tools, err)` it returns at once and calls back; without, it waits for the
-- host's answer, which comes from memory (never from behind a job). nil and an error text
-- when the host cannot start or the format is unknown.
function M.tools(opts)
  opts = opts or {}
  local args = { format = opts.format or "openai" }
  if opts.callback then
    host.call("toolhost.tools", args, function(err, result)
      opts.callback(result, err)
    end)
    return nil
  end
  local chan, err = host.ensure()
  if not chan then
    return nil, err
  end
  local ok, result = pcall(vim.rpcrequest, chan, "toolhost.tools", args)
  if not ok then
    return nil, tostring(result)
  end
  return result
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

-- A quickfix list (`arg`: a call's job id or a list number; nil: the current list) added to
-- the chat as the user's message (:ToolSendQuickfix).
function M.send_quickfix(arg)
  return require("toolhost.send_to_chat").send_quickfix(arg and tostring(arg) or nil)
end

-- Diagnostics (`scope`: "%" the current buffer's, "all" or nil every file's) added to the chat
-- as the user's message (:ToolSendDiagnostics).
function M.send_diagnostics(scope)
  return require("toolhost.send_to_chat").send_diagnostics(scope)
end

-- A call's quickfix list made current and opened (:ToolQuickfix): `id` a job id ("th-3") or a
-- call id; nil, the latest list toolhost filled. False when there is none.
function M.quickfix(id)
  return require("toolhost.quickfix").open(id)
end

-- The calls with a quickfix list, the latest last: { call, job, title, items, done }.
function M.quickfix_lists()
  return require("toolhost.quickfix").list()
end

-- e.g. "⟳2 ?1 ✓5 ✗1"; empty when nothing ran. Counts the jobs of this Neovim's buffers, not
-- the whole history that jobs() lists, and the calls awaiting approval.
function M.statusline()
  local running, ok, failed = 0, 0, 0
  local awaiting = require("toolhost.ui").awaiting_count()
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
  if awaiting > 0 then parts[#parts + 1] = "?" .. awaiting end
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
