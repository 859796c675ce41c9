-- Outside agents (SPEC 13.5): `toolhost mcp serve` relays an agent's MCP session to this
-- Neovim's host, which writes each call into the agent's buffer `toolhost://agent/{client}` as
-- an assistant message; from there it is a chat block like any other (:ToolRun, :ToolReject,
-- streamed output, the result written under it). The host calls append() for each call.
local M = {}

local api = vim.api
local config = require("toolhost.config")

local buffers = {} -- client name -> buffer

-- Tells the host `chan` which project it serves (at its start, and when the directory changes).
function M.announce(chan)
  local serve = config.options.serve or {}
  if serve.enabled == false then
    return
  end
  vim.rpcnotify(chan, "toolhost.serve_agents", { root = config.absolute_root() })
end

-- Agents find a Neovim only through its running host (:help toolhost-agents), and an agent in
-- the terminal beside an editor on ordinary files would wait for a chat buffer that never
-- comes: with `serve.enabled` and `serve.at_startup` the host starts once Neovim has started
-- (plugin/toolhost.lua calls this after VimEnter, when setup() has run). Quietly: a binary not
-- built yet is said by the first command that needs it, and by :checkhealth, not at every start.
function M.start_at_startup()
  local serve = config.options.serve or {}
  if serve.enabled == false or serve.at_startup == false then
    return false
  end
  return require("toolhost.host").ensure() ~= nil
end

local function find_named(name)
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_get_name(buf) == name then
      return buf
    end
  end
end

-- The agent's buffer: made (a listed scratch buffer) and started with `intro` when new.
local function agent_buffer(client, intro)
  local buf = buffers[client]
  if buf and api.nvim_buf_is_valid(buf) then
    return buf
  end
  local name = "toolhost://agent/" .. client
  buf = find_named(name)
  if not buf then
    buf = api.nvim_create_buf(true, true)
    api.nvim_buf_set_name(buf, name)
  end
  vim.b[buf].toolhost_agent = client
  vim.bo[buf].swapfile = false
  -- Markdown once it is shown: its syntax and ftplugin take 15-30 ms per buffer, which would
  -- stall every other client of Neovim when an agent connects (most agent buffers are never
  -- looked at: their calls run at once). A buffer found by name may have it already.
  if vim.bo[buf].filetype ~= "markdown" then
    if vim.fn.bufwinid(buf) ~= -1 then
      vim.bo[buf].filetype = "markdown"
    else
      api.nvim_create_autocmd("BufWinEnter", {
        buffer = buf,
        once = true,
        nested = true, -- FileType and Syntax fire
        callback = function()
          vim.bo[buf].filetype = "markdown"
        end,
      })
    end
  end
  require("toolhost.rewrite").write(buf, 0, -1, { intro })
  buffers[client] = buf
  return buf
end

local function visible(buf)
  for _, win in ipairs(api.nvim_tabpage_list_wins(0)) do
    if api.nvim_win_get_buf(win) == buf then
      return true
    end
  end
  return false
end

-- Shows the buffer without taking the focus from what the user is doing.
local function open(buf, how)
  if how == "none" or visible(buf) then
    return
  end
  local win, tab = api.nvim_get_current_win(), api.nvim_get_current_tabpage()
  local ok, err = pcall(function()
    if how == "tab" then
      vim.cmd("tab sbuffer " .. buf)
    else
      vim.cmd("botright sbuffer " .. buf)
    end
  end)
  if not ok then
    vim.notify("toolhost: cannot open the agent's buffer: " .. tostring(err), vim.log.levels.WARN)
  end
  pcall(api.nvim_set_current_tabpage, tab)
  pcall(api.nvim_set_current_win, win)
end

-- `text` cut to `width` display cells, its end replaced by "…" when cut.
local function fit(text, width)
  if vim.fn.strdisplaywidth(text) <= width then
    return text
  end
  local chars = vim.fn.strchars(text)
  while chars > 0 and vim.fn.strdisplaywidth(vim.fn.strcharpart(text, 0, chars)) > width - 1 do
    chars = chars - 1
  end
  return vim.fn.strcharpart(text, 0, chars) .. "…"
end

-- The approval notice, in one line of the command line: a longer one makes Neovim (0.7, with
-- 'cmdheight' 1) stop at "Press ENTER", which eats the keys the user is typing in their own
-- window. The commands' hint goes first (the agent's buffer shows its keys too), then the end
-- of the command, then of the whole line.
function M.notice(client, summary)
  local head = ("toolhost: %s asks: "):format(client)
  local tail = " (:ToolRun/:ToolReject)"
  -- 68 cells on an 80-column screen with 'ruler' and 'showcmd' (the defaults).
  local room = math.max(vim.v.echospace, 1)
  local command = summary:gsub("%s+", " ")
  local width = vim.fn.strdisplaywidth
  if width(head .. command .. tail) <= room then
    return head .. command .. tail
  end
  if width(head .. command) <= room then
    return head .. command
  end
  local left = room - width(head .. tail)
  if left >= 10 then
    return head .. fit(command, left) .. tail
  end
  return fit(head .. command .. tail, room)
end

-- From the host: { client, intro, lines, needs_approval, summary }. Appends the call's message
-- and answers where it went: { buf, row } (0-based row of its first line), or { error }.
function M.append(args)
  local buf = agent_buffer(args.client, args.intro)
  local row = api.nvim_buf_line_count(buf)
  local ok, err = require("toolhost.rewrite").write(buf, row, row, args.lines)
  if not ok then
    -- An answer, not a Lua error: the agent reads it, without a stack traceback.
    return { error = "cannot write into " .. api.nvim_buf_get_name(buf) .. ": " .. tostring(err) }
  end
  require("toolhost").attach(buf)
  if args.needs_approval then
    -- The window first: the notice then fits the command line as it is after the split.
    open(buf, (config.options.serve or {}).open or "split")
    vim.notify(M.notice(args.client, args.summary), vim.log.levels.WARN)
  end
  return { buf = buf, row = row }
end

-- Whether `buf` is an agent's buffer (its calls run or wait as the host says, never by auto_run).
function M.is_agent_buffer(buf)
  return vim.b[buf].toolhost_agent ~= nil
end

return M
