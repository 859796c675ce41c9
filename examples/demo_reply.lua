-- The demo's "chat plugin": streams an assistant reply into the chat buffer a few lines at a
-- time, as a real one would, then says the reply is done. toolhost's auto-run chain then runs
-- the read-only calls, and the commands it may run in the kernel sandbox, at once, and stops at
-- the first call that needs your approval.
local M = {}

M.reply = {
  "ASSISTANT: Let me look around first.",
  "",
  "**ls:** `.`",
  "",
  "**Read:** `notes.md`",
  "",
  "**bash**",
  "```bash",
  "wc -l notes.md",
  "```",
  "> Allowed without asking: `wc` is on the read-only allow list",
  "",
  "**bash**",
  "```bash",
  'for i in 1 2 3 4 5; do echo "step $i of 5" | tee -a steps.log; sleep 0.4; done',
  "```",
  "> Runs by itself in the kernel sandbox: it may write in the project and /tmp only, with no",
  "> network (where the sandbox is unavailable it waits for your approval: it holds `;` and `$`)",
  "",
  "**bash**",
  "```bash",
  "rm -f steps.log",
  "```",
  "> Needs your approval: deleting always asks, sandbox or not: press <leader>tr, or <leader>tx",
  "",
  "**bash**",
  "```bash",
  "ls -la",
  "```",
  "> Runs by itself once the call above succeeded",
  "",
  "And a malformed call, which gets an error diagnostic instead of running:",
  "",
  "```json",
  '{"tool": "no_such_tool", "parameters": {}}',
  "```",
}

-- Appends the reply in chunks, then calls assistant_done(buf); `done()` runs after that.
function M.stream(buf, done)
  local chunk, at = 4, 1
  local function next_chunk()
    if at > #M.reply then
      require("toolhost").assistant_done(buf)
      if done then
        done()
      end
      return
    end
    local lines = vim.list_slice(M.reply, at, at + chunk - 1)
    at = at + chunk
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, lines)
    vim.defer_fn(next_chunk, 60)
  end
  next_chunk()
end

-- Headless: the chain, then the approval, each printed.
function M.headless(buf)
  local events = {}
  for _, name in ipairs({ "ToolhostAllDone" }) do
    vim.api.nvim_create_autocmd("User", { pattern = name, callback = function() events[name] = true end })
  end
  local function awaiting()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.message:find("awaiting approval", 1, true) then
        return d.message, d.lnum
      end
    end
  end
  local function print_buffer(title)
    io.stdout:write(("---- %s\n"):format(title))
    io.stdout:write(table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") .. "\n")
  end
  M.stream(buf)
  assert(vim.wait(20000, awaiting, 20), "the chain did not stop at the call that needs approval")
  print_buffer("the chain stopped at: " .. awaiting())
  -- The delete; without the sandbox the loop before it waits first, and is approved the same way.
  for _ = 1, 2 do
    local _, approved_row = awaiting()
    vim.api.nvim_win_set_cursor(0, { 1, 0 }) -- outside any block: the first call that waits
    vim.cmd("ToolRun")
    local function next_stop()
      local message, row = awaiting()
      return events.ToolhostAllDone or (message and row ~= approved_row)
    end
    assert(vim.wait(20000, next_stop, 20), "the chain did not go on")
    if events.ToolhostAllDone then
      break
    end
  end
  assert(vim.wait(20000, function() return events.ToolhostAllDone end, 20), "the chain did not finish")
  print_buffer("after <leader>tr (:ToolRun) approved it, the chain went on: ToolhostAllDone")
end

return M
