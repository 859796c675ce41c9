-- An MCP server that needs sign-in (OAuth, :help toolhost-mcp-signin): the host calls open()
-- when a server waits for it; the user is told which server and which authorization server,
-- and the URL opens in the browser (vim.ui.open where Neovim has it, else $BROWSER, xdg-open
-- or open). The URL also shows in :ToolMcp while the sign-in waits. No token comes here.
local M = {}

-- The command that opens a URL outside Neovim's vim.ui.open, or nil.
local function opener()
  local browser = vim.env.BROWSER
  if browser and browser ~= "" then
    return { "sh", "-c", browser .. ' "$1"', "toolhost-browser" }
  end
  for _, command in ipairs({ "xdg-open", "open" }) do
    if vim.fn.executable(command) == 1 then
      return { command }
    end
  end
  return nil
end

-- Opens `url` in the browser; false when nothing could.
function M.open_url(url)
  if vim.ui and vim.ui.open then
    -- It returns nil and why when it found no opener (no xdg-open): then ours are tried.
    local ok, started = pcall(vim.ui.open, url)
    if ok and started then
      return true
    end
  end
  local command = opener()
  if not command then
    return false
  end
  table.insert(command, url)
  return vim.fn.jobstart(command, { detach = true }) > 0
end

-- The host's call: server `server` waits for its sign-in at `url`, on `host`.
function M.open(server, url, host)
  vim.schedule(function()
    local opened = M.open_url(url)
    local how = opened and "opened in your browser" or "open it in a browser"
    vim.notify(("toolhost: MCP server %s needs sign-in at %s; %s (also in :ToolMcp):\n%s")
      :format(server, host, how, url), vim.log.levels.WARN)
  end)
end

return M
