-- :ToolOutput [id]: a job's full log (both streams, as a terminal showed them) in a split,
-- following the job while it runs. Reads are incremental `jobs.output` calls, never blocking.
local host = require("toolhost.host")

local M = {}
local api = vim.api

local kChunk = 1024 * 1024
local kFollowMs = 200

local function append(buf, state, data)
  if data == "" then
    return
  end
  local text = state.partial .. data:gsub("\r\n", "\n")
  local lines = vim.split(text, "\n", { plain = true })
  state.partial = lines[#lines]
  local last = api.nvim_buf_line_count(buf)
  local first = state.written == 0 and 0 or last - 1
  vim.bo[buf].modifiable = true
  api.nvim_buf_set_lines(buf, first, -1, false, lines)
  vim.bo[buf].modifiable = false
  state.written = state.written + #lines
  -- Follow: windows whose cursor sat on the last line stay at the end.
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    if api.nvim_win_get_cursor(win)[1] >= last then
      api.nvim_win_set_cursor(win, { api.nvim_buf_line_count(buf), 0 })
    end
  end
end

local function fetch(buf, id, state)
  host.call("jobs.output", { id = id, since = state.offset, max_bytes = kChunk }, function(err, result)
    if not api.nvim_buf_is_valid(buf) then
      return
    end
    if err then
      vim.bo[buf].modifiable = true
      api.nvim_buf_set_lines(buf, 0, -1, false, { "toolhost: " .. tostring(err) })
      vim.bo[buf].modifiable = false
      require("toolhost.ui").fire("ToolhostViewUpdated", { view = "output", buf = buf, id = id, error = tostring(err) })
      return
    end
    local data = result.data or ""
    append(buf, state, data)
    state.offset = result.next or state.offset
    local info = { view = "output", buf = buf, id = id, offset = state.offset, finished = result.finished == true }
    vim.b[buf].toolhost_output = info
    require("toolhost.ui").fire("ToolhostViewUpdated", info)
    if data ~= "" and result.eof == false then
      -- A chunk is at most kChunk bytes: more may be there already.
      fetch(buf, id, state)
    elseif result.finished ~= true then
      -- Nothing new (a queued job, or a running one that is quiet): look again later.
      vim.defer_fn(function()
        fetch(buf, id, state)
      end, kFollowMs)
    end
  end)
end

-- The job of the call under the cursor in a chat buffer, else the newest job this Neovim saw.
function M.default_id()
  local ui = require("toolhost.ui")
  local buf = api.nvim_get_current_buf()
  local call = ui.call_at(buf, api.nvim_win_get_cursor(0)[1] - 1)
  local name = api.nvim_buf_get_name(buf)
  -- A job from history (an earlier Neovim) knows its buffer by file name only.
  local function of_this_buffer(job)
    return job.buf == buf or (job.buf == nil and name ~= "" and job.buffer == name)
  end
  local best
  for id, job in pairs(ui.jobs) do
    if not call or (job.call_id == call and of_this_buffer(job)) then
      if not best or tonumber(id:match("%d+") or 0) > tonumber(best:match("%d+") or 0) then
        best = id
      end
    end
  end
  return best
end

function M.open(id)
  id = id or M.default_id()
  if not id then
    vim.notify("toolhost: no job to show", vim.log.levels.WARN)
    return
  end
  vim.cmd("botright new")
  local buf = api.nvim_get_current_buf()
  pcall(api.nvim_buf_set_name, buf, "toolhost://output/" .. id)
  for option, value in pairs({ buftype = "nofile", bufhidden = "wipe", swapfile = false, modifiable = false }) do
    vim.bo[buf][option] = value
  end
  fetch(buf, id, { offset = 0, partial = "", written = 0 })
  return buf
end

return M
