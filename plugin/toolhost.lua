-- Commands and autocmds; the host starts when a command or a chat buffer needs it, or, for
-- agents (serve.at_startup), once Neovim has started.
if vim.g.loaded_toolhost then
  return
end
vim.g.loaded_toolhost = true

local function th()
  return require("toolhost")
end

local command = vim.api.nvim_create_user_command
command("ToolRun", function(opts)
  th().run_at_cursor({ force = opts.bang })
end, { bang = true, desc = "Run the tool call under the cursor" })
command("ToolRunAll", function()
  th().run_all()
end, { desc = "Run the pending tool calls of the last reply" })
command("ToolReject", function(opts)
  th().reject(opts.args)
end, { nargs = "?", desc = "Decline the tool call under the cursor (or the one awaiting approval)" })
command("ToolCancel", function(opts)
  th().cancel(opts.args ~= "" and opts.args or nil, { all = opts.bang })
end, { bang = true, nargs = "?", desc = "Cancel the tool call under the cursor, a job id, or all (!)" })
command("ToolJobs", function(opts)
  require("toolhost.jobs_view").open({ all = opts.bang })
end, { bang = true, desc = "List this project's toolhost jobs, history included (!: every project's)" })
command("ToolOutput", function(opts)
  require("toolhost.output_view").open(opts.args ~= "" and opts.args or nil)
end, { nargs = "?", desc = "Show a job's full output (the call under the cursor, or a job id)" })
command("ToolQuickfix", function(opts)
  th().quickfix(opts.args ~= "" and opts.args or nil)
end, { nargs = "?", desc = "Open a call's quickfix list (a job or call id; none: the latest)" })
command("ToolMcp", function(opts)
  require("toolhost.mcp_view").command(opts.args)
end, {
  nargs = "*",
  complete = function()
    return { "start", "accept", "login", "logout" }
  end,
  desc = "List the MCP servers (start, accept; login NAME, logout NAME: an HTTP server's sign-in)",
})
command("ToolSendQuickfix", function(opts)
  require("toolhost.send_to_chat").send_quickfix(opts.args)
end, { nargs = "?", desc = "Add a quickfix list (a call's job id, a list number; none: the current one) to the chat as your message" })
command("ToolSendDiagnostics", function(opts)
  require("toolhost.send_to_chat").send_diagnostics(opts.args)
end, {
  nargs = "?",
  complete = function()
    return { "%", "all" }
  end,
  desc = "Add diagnostics (%: this buffer's; all, the default: every file's) to the chat as your message",
})
command("ToolAttach", function()
  th().attach(0)
end, { desc = "Treat this buffer as a chat buffer" })
command("ToolDetach", function()
  th().detach(0)
end, { desc = "Stop watching this buffer" })
command("ToolhostRestart", function()
  th().restart()
end, { desc = "Restart the toolhost process" })
command("ToolhostLog", function()
  th().open_log()
end, { desc = "Open toolhost's log file" })

local group = vim.api.nvim_create_augroup("toolhost_detect", { clear = true })
vim.api.nvim_create_autocmd({ "FileType", "BufReadPost", "BufNewFile" }, {
  group = group,
  callback = function(args)
    -- Lazy: only chat buffers load the rest of the plugin.
    if require("toolhost.config").is_chat_buffer(args.buf) then
      th().attach(args.buf)
    end
  end,
})

-- Off the startup path: after VimEnter (setup() has run by then, so its options count) and a
-- little later still, so that Neovim draws its first screen and reads the first keys before the
-- host's spawn takes its ~1 ms. A plugin loaded after startup (a plugin manager's lazy load, a
-- test) starts it the same way.
local startup_delay_ms = 50
local function start_later()
  vim.defer_fn(function()
    require("toolhost.agents").start_at_startup()
  end, startup_delay_ms)
end
if vim.v.vim_did_enter == 1 then
  start_later()
else
  vim.api.nvim_create_autocmd("VimEnter", { group = group, once = true, callback = start_later })
end
