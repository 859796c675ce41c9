-- What the end-to-end benchmarks' Neovim sides share (scenarios.lua and scenarios_mcp.lua load
-- it with dofile): chat buffers opened from their lines, waiting for the host's parse, and
-- counting the result lines written.
local U = {}
local api = vim.api

-- A chat whose last assistant message says `intro` and has one fenced call per entry of `calls`
-- ({ open = its lines before the body, body = one line }), written to DIR/NAME.chat.md and
-- opened: its buffer (current now) and the row (1-based) of each call's body.
function U.open_chat(dir, name, intro, calls)
  local lines = { "USER: bench", "ASSISTANT: " .. intro }
  local rows = {}
  for i, call in ipairs(calls) do
    lines[#lines + 1] = ""
    vim.list_extend(lines, call.open)
    lines[#lines + 1] = call.body
    rows[i] = #lines
    lines[#lines + 1] = "```"
  end
  lines[#lines + 1] = "USER: "
  local path = dir .. "/" .. name .. ".chat.md"
  vim.fn.writefile(lines, path)
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  return api.nvim_get_current_buf(), rows
end

-- Calls `fn` once the host has parsed all `n` calls of `buf` (attaching sends the buffer's
-- lines asynchronously; a user's :ToolRunAll comes long after).
function U.when_parsed(buf, n, fn)
  require("toolhost").attach(buf)
  local function poll()
    require("toolhost.host").call("toolhost.run_all_plan", { buf = buf }, function(err, plan)
      if not err and plan and #(plan.calls or {}) == n then
        fn()
      else
        vim.defer_fn(poll, 5)
      end
    end)
  end
  poll()
end

-- How many of `buf`'s lines contain `pattern` (`plain`: as a plain string).
function U.count_lines(buf, pattern, plain)
  local count = 0
  for _, line in ipairs(api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if line:find(pattern, 1, plain) then
      count = count + 1
    end
  end
  return count
end

-- `callback(event)` on every ToolhostJobFinished, in augroup `group` (cleared first).
function U.on_job_finished(group, callback)
  api.nvim_create_autocmd("User", {
    group = api.nvim_create_augroup(group, { clear = true }),
    pattern = "ToolhostJobFinished",
    callback = function()
      callback(vim.g.toolhost_event)
    end,
  })
end

return U
