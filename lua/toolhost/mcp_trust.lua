-- Asks the user to accept a project's MCP files (SPEC 13.2, :help toolhost-mcp-config).
-- A project's .mcp.json or .vscode/mcp.json can start programs, so its servers run only once
-- the user accepted the file. The host lists the pending files, each as
--   { path = "/p/.mcp.json", digest = "<sha256>", changed = false, servers = { "name", ... },
--     prompt = "<the file, every server's command line or URL, the question>" }
-- and records an acceptance given the path and the digest the prompt showed. This module asks:
-- one confirm() per file, listing every command (Neovim 0.7.2 has it; a multi-line
-- vim.ui.select item would hide them); accept_pending() is the whole round with the host.
local M = {}

-- Who is asked, replaceable for tests: returns 1 for "Accept".
function M.confirm(text, choices, default)
  return vim.fn.confirm(text, choices, default, "Question")
end

-- Whether anyone can answer: a headless Neovim (no UI) is never asked and accepts nothing.
function M.can_ask()
  return #vim.api.nvim_list_uis() > 0
end

-- Asks about each file of `pending` in turn, outside any fast event or textlock.
-- on_accept(file) is called for each file accepted (the host records file.path, file.digest);
-- on_done(accepted, declined), if given, gets the two lists of paths once every file was
-- answered.
function M.ask(pending, on_accept, on_done)
  local accepted, declined = {}, {}
  local function finish()
    if on_done then
      on_done(accepted, declined)
    end
  end
  if not M.can_ask() then
    for _, file in ipairs(pending or {}) do
      table.insert(declined, file.path)
    end
    finish()
    return
  end
  vim.schedule(function()
    for _, file in ipairs(pending or {}) do
      local ok, choice = pcall(M.confirm, file.prompt, "&Accept\n&Not now", 2)
      if ok and choice == 1 then
        on_accept(file)
        table.insert(accepted, file.path)
      else
        table.insert(declined, file.path)
      end
    end
    finish()
  end)
end

-- One line saying which files wait and how to accept them (for vim.notify or :ToolMcp), or nil.
function M.summary(pending)
  if not pending or #pending == 0 then
    return nil
  end
  local names = {}
  for _, file in ipairs(pending) do
    table.insert(names, vim.fn.fnamemodify(file.path, ":~:."))
  end
  local one = #pending == 1
  return "toolhost: "
    .. table.concat(names, ", ")
    .. (one and " is" or " are")
    .. " not accepted yet, so "
    .. (one and "its" or "their")
    .. " MCP servers are off: :ToolMcp accept shows their commands"
end

-- The project whose files count for the host: Neovim's root, absolute, without a trailing slash.
-- Tells the host `chan` its project (before its setup, and again when the directory changes).
function M.announce(chan, reload)
  vim.rpcnotify(chan, "toolhost.mcp_project", {
    root = require("toolhost.config").absolute_root(),
    reload = reload == true,
  })
end

-- The host found project files not accepted yet (at its start, or when they changed).
M.pending = {}
function M.pending_changed(pending)
  M.pending = pending or {}
  local text = M.summary(M.pending)
  if text then
    vim.notify(text, vim.log.levels.WARN)
  end
end

-- The whole round: asks the host which files wait (read again now), asks the user about each,
-- and has the host record each one accepted (its servers then start). on_done(accepted,
-- declined, errors), if given, runs once the host answered every acceptance.
function M.accept_pending(on_done)
  local host = require("toolhost.host")
  local function done(accepted, declined, errors)
    if on_done then
      on_done(accepted, declined, errors)
    end
  end
  host.call("toolhost.mcp_pending", {}, function(err, result)
    if err then
      vim.notify("toolhost: " .. tostring(err), vim.log.levels.ERROR)
      return done({}, {}, { err })
    end
    local pending = result.pending or {}
    M.pending = pending
    if #pending == 0 then
      vim.notify("toolhost: no project MCP file waits to be accepted")
      return done({}, {}, {})
    end
    local answers, recorded, errors, asked = 0, {}, {}, nil
    local function maybe_done()
      if asked and answers == #asked.accepted then
        done(recorded, asked.declined, errors)
      end
    end
    M.ask(pending, function(file)
      host.call("toolhost.mcp_accept", { path = file.path, digest = file.digest }, function(e)
        answers = answers + 1
        if e then
          table.insert(errors, e)
          vim.notify("toolhost: " .. tostring(e), vim.log.levels.ERROR)
        else
          table.insert(recorded, file.path)
        end
        maybe_done()
      end)
    end, function(accepted, declined)
      asked = { accepted = accepted, declined = declined }
      maybe_done()
    end)
  end)
end

return M
