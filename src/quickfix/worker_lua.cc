#include "quickfix/worker_lua.h"

namespace toolhost::quickfix::worker_lua {

const char* const kPrelude = R"lua(
local M = {}
_G.toolhost_qf = M
local efms, cwd = {}, nil

-- A compiler plugin's 'errorformat', read in a scratch buffer (`:compiler` without ! sets it
-- buffer-locally); kept per name.
function M.efm_of(compiler)
  if efms[compiler] then
    return efms[compiler]
  end
  local buf = vim.api.nvim_create_buf(false, true)
  local efm
  local ok, err = pcall(vim.api.nvim_buf_call, buf, function()
    vim.cmd("compiler " .. compiler)
    efm = vim.api.nvim_eval("&l:errorformat")
  end)
  vim.api.nvim_buf_delete(buf, { force = true })
  if not ok then
    error(("no :compiler %s in this Neovim (%s)"):format(compiler, tostring(err)), 0)
  end
  if efm == nil or efm == "" then
    error((":compiler %s sets no 'errorformat'"):format(compiler), 0)
  end
  efms[compiler] = efm
  return efm
end

-- A new list at the end of the stack (' ' would free the lists after the current one).
function M.open(title, compiler)
  local efm = compiler ~= "" and M.efm_of(compiler) or nil
  vim.fn.setqflist({}, " ", { nr = "$", title = title })
  return { id = vim.fn.getqflist({ nr = "$", id = 0 }).id, efm = efm }
end

-- Appends `lines` to list `id`, parsed with `efm` from `dir` (relative names resolve against
-- the cwd at parse time; appending through setqflist keeps the multi-line and directory state
-- of the list across chunks). Returns the valid items from index `from` on, but the last
-- one unless `final`: a next line may still complete it (`%C`, `%Z`).
function M.append(id, dir, efm, lines, from, final)
  if dir ~= cwd then
    vim.cmd("noautocmd cd " .. vim.fn.fnameescape(dir))
    cwd = dir
  end
  if #lines > 0 and vim.fn.setqflist({}, "a", { id = id, lines = lines, efm = efm }) ~= 0 then
    return { evicted = true }
  end
  local all = vim.fn.getqflist({ id = id, items = 1 }).items
  local last = final and #all or #all - 1
  local out = {}
  for i = from, last do
    local it = all[i]
    if it.valid == 1 then
      out[#out + 1] = {
        filename = it.bufnr > 0 and vim.api.nvim_buf_get_name(it.bufnr) or "",
        lnum = it.lnum, col = it.col, end_lnum = it.end_lnum, end_col = it.end_col,
        vcol = it.vcol, nr = it.nr, type = it.type, text = it.text,
      }
    end
  end
  return { items = out, next = math.max(last + 1, from) }
end

-- Nothing is being parsed: the lists and every buffer their file names made go, so that a
-- long session's parses do not slow down on the buffers of earlier ones.
function M.reset()
  vim.fn.setqflist({}, "f")
  local current = vim.api.nvim_get_current_buf()
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if buf ~= current then
      pcall(vim.api.nvim_buf_delete, buf, { force = true })
    end
  end
  return #vim.api.nvim_list_bufs()
end
)lua";

const char* const kReset = "return toolhost_qf.reset()";
const char* const kOpen = "return toolhost_qf.open(...)";
const char* const kAppend = "return toolhost_qf.append(...)";

}  // namespace toolhost::quickfix::worker_lua
