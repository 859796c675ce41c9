-- The baseline of bench/: a job runner written the way Lua plugins run tools inside Neovim.
-- jobstart() the command, append what on_stdout/on_stderr deliver to a table (joining the
-- partial lines Neovim splits at chunk boundaries), and on exit write a result block into the
-- buffer. It holds every byte a job writes until it exits, in Neovim's Lua heap, and every
-- chunk crosses Neovim's main loop as a Lua call: what toolhost keeps out of the editor.
local M = {}

-- Lines of output written into the buffer, as toolhost's output.max_lines.
M.max_lines = 200

local function collector(lines)
  return function(_, data)
    lines[#lines] = lines[#lines] .. data[1]
    for i = 2, #data do
      lines[#lines + 1] = data[i]
    end
  end
end

-- Runs `cmd` (a list). On exit, appends a result block (its exit code and the last
-- `M.max_lines` lines of stdout and stderr) to `buf` and calls `on_done(code, stdout)`.
-- Returns the job id (<= 0 when it could not start).
function M.run(cmd, buf, on_done)
  local out, err = { "" }, { "" }
  return vim.fn.jobstart(cmd, {
    on_stdout = collector(out),
    on_stderr = collector(err),
    on_exit = function(_, code)
      if out[#out] == "" then
        out[#out] = nil
      end
      if err[#err] == "" then
        err[#err] = nil
      end
      local block = { ("```result exit=%d lines=%d"):format(code, #out + #err) }
      local keep_err = math.min(#err, M.max_lines)
      local keep_out = math.min(#out, M.max_lines - keep_err)
      for i = #out - keep_out + 1, #out do
        block[#block + 1] = out[i]
      end
      for i = #err - keep_err + 1, #err do
        block[#block + 1] = err[i]
      end
      block[#block + 1] = "```"
      if vim.api.nvim_buf_is_valid(buf) then
        vim.api.nvim_buf_set_lines(buf, -1, -1, false, block)
      end
      if on_done then
        on_done(code, out)
      end
    end,
  })
end

return M
