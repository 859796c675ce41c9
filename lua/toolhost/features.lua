-- What this Neovim can do, decided once from its API level (SPEC 11: never by trying and
-- failing in front of the user). 0.7 = 9, 0.8 = 10, 0.9 = 11, 0.10 = 12, 0.11 = 13.
local api_level = vim.fn.api_info().version.api_level

return {
  api_level = api_level,
  -- Whether a table is a list: vim.islist (0.10); vim.tbl_islist warns as deprecated from 0.12.
  islist = vim.islist or vim.tbl_islist,
  -- nvim_buf_set_extmark() `invalidate` (0.10); 0.7 rejects the key.
  has_extmark_invalidate = api_level >= 12,
  -- nvim_exec_autocmds() / User autocmd `data` (0.8); 0.7 has only vim.g.toolhost_event.
  has_autocmd_data = api_level >= 10,
  -- vim.diagnostic's `virtual_text` is off unless configured (0.11); on before.
  diagnostic_virtual_text_off_by_default = api_level >= 13,
  -- Diagnostics set on a buffer not loaded yet are shown when it is opened (0.12); before, only
  -- a vim.diagnostic.show() after it is read shows them (quickfix_diagnostics.lua).
  diagnostic_shown_on_load = api_level >= 14,
  -- stdpath("state") (0.8); 0.7 keeps state under stdpath("data").
  has_stdpath_state = api_level >= 10,
}
