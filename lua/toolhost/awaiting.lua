-- Which call :ToolRun and :ToolReject act on. In a chat buffer, the call under the cursor or the
-- buffer's first one awaiting approval (the host picks). From any other window (the user at work
-- in a file while an agent's call waits in its split), the call awaiting approval in another
-- buffer: the one, or the one the user picks (vim.ui.select) when several wait.
local M = {}

local api = vim.api
local blocks = require("toolhost.blocks")

-- Whether the host should pick in `buf` itself: a call is marked at `row`, or one awaits there.
local function acts_here(buf, row)
  local st = blocks.get(buf)
  if not st then
    return false
  end
  if #(st.awaiting or {}) > 0 then
    return true
  end
  for key in pairs(st.marks) do
    local first, last = blocks.mark_range(buf, st, key)
    if first and row >= first and row <= last then
      return true
    end
  end
  return false
end

-- One line for the picker: the buffer, the call's line and its block's text (rows first..last).
local function label(buf, row, last)
  local name = api.nvim_buf_get_name(buf)
  if name == "" then
    name = "[buffer " .. buf .. "]"
  end
  if not row then
    return name
  end
  local text = {}
  for _, line in ipairs(api.nvim_buf_get_lines(buf, row, math.min(last, row + 8) + 1, false)) do
    line = vim.trim(line)
    if line ~= "" and not line:match("^```") and not line:match("^%*%*.*%*%*$") then
      text[#text + 1] = line
    end
  end
  local summary = table.concat(text, " ")
  if #summary > 60 then
    summary = summary:sub(1, 57) .. "..."
  end
  return ("%s:%d %s"):format(name, row + 1, summary)
end

-- The calls awaiting approval in buffers other than `except`, in buffer order, each
-- { buf, row (0-based, of its block; -1 when its mark is gone: the host takes the buffer's
-- first waiting one), label }.
function M.elsewhere(except)
  local list = {}
  for buf, st in blocks.each() do
    if buf ~= except and api.nvim_buf_is_valid(buf) then
      for _, key in ipairs(st.awaiting or {}) do
        local row, last = blocks.mark_range(buf, st, key)
        list[#list + 1] = { buf = buf, row = row or -1, label = label(buf, row, last) }
      end
    end
  end
  table.sort(list, function(a, b)
    return a.buf < b.buf or (a.buf == b.buf and a.row < b.row)
  end)
  return list
end

-- Calls act(buf, row) with the buffer and row the command is for: the cursor's in a chat buffer
-- where it can act, else the call awaiting approval elsewhere (asked for when several wait),
-- else the cursor's (the host then says there is no call under it). `verb` words the question.
function M.target(verb, act)
  local buf = api.nvim_get_current_buf()
  local row = api.nvim_win_get_cursor(0)[1] - 1
  if acts_here(buf, row) then
    return act(buf, row)
  end
  local list = M.elsewhere(buf)
  if #list == 0 then
    return act(buf, row)
  end
  if #list == 1 then
    return act(list[1].buf, list[1].row)
  end
  vim.ui.select(list, {
    prompt = ("%s which tool call awaiting approval?"):format(verb),
    format_item = function(item)
      return item.label
    end,
  }, function(choice)
    if choice then
      act(choice.buf, choice.row)
    end
  end)
end

return M
