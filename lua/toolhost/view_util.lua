-- What the :ToolJobs and :ToolMcp windows share: a scratch buffer in a split, keys acting on the
-- row under the cursor, host calls that refresh the window once answered, and events that
-- refresh it while it lives.
local M = {}
local api = vim.api

function M.valid(buf)
  return buf ~= nil and api.nvim_buf_is_valid(buf)
end

-- Makes the current window's buffer a scratch buffer named `name` (one screen line per row,
-- whatever its length); `q` closes the window.
function M.scratch(name, filetype)
  local buf = api.nvim_get_current_buf()
  vim.wo.wrap = false
  pcall(api.nvim_buf_set_name, buf, name)
  for option, value in pairs({ buftype = "nofile", bufhidden = "wipe", swapfile = false, filetype = filetype }) do
    vim.bo[buf][option] = value
  end
  vim.keymap.set("n", "q", "<cmd>close<CR>", { buffer = buf, nowait = true, desc = "toolhost: close" })
  return buf
end

-- A view opened before whose buffer still exists: its window is focused, or it is shown again
-- in a split. False when there is none to show.
function M.show_again(buf)
  if not M.valid(buf) then
    return false
  end
  local win = vim.fn.bufwinid(buf)
  if win ~= -1 then
    api.nvim_set_current_win(win)
  else
    vim.cmd("botright sbuffer " .. buf)
  end
  return true
end

-- Replaces the lines of a view's read-only buffer.
function M.set_lines(buf, lines)
  vim.bo[buf].modifiable = true
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
end

-- map(lhs, fn, desc): a normal-mode key of `buf` only.
function M.mapper(buf)
  return function(lhs, fn, desc)
    vim.keymap.set("n", lhs, fn, { buffer = buf, nowait = true, desc = "toolhost: " .. desc })
  end
end

-- What `rows` (row, 1-based -> key) holds for the cursor's line.
function M.under_cursor(rows)
  return rows[api.nvim_win_get_cursor(0)[1]]
end

-- A key's function: action(key) for the key `key_under_cursor()` names, if the row has one.
function M.on_row(key_under_cursor, action)
  return function()
    local key = key_under_cursor()
    if key then
      action(key)
    end
  end
end

-- A host call's callback: warns of its error, then refreshes the view either way.
function M.then_refresh(refresh)
  return function(err)
    if err then
      vim.notify("toolhost: " .. tostring(err), vim.log.levels.WARN)
    end
    refresh()
  end
end

-- Refreshes the view on the User events `patterns` until its buffer is gone (the autocmds go
-- with it, at the first event after).
function M.refresh_on(group_name, patterns, is_valid, refresh)
  local group = api.nvim_create_augroup(group_name, { clear = true })
  api.nvim_create_autocmd("User", {
    group = group,
    pattern = patterns,
    callback = function()
      if not is_valid() then
        api.nvim_del_augroup_by_id(group)
        return
      end
      refresh()
    end,
  })
end

return M
