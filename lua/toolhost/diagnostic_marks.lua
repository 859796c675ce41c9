-- The signs and virtual text of toolhost's diagnostics (a call's `✓ bash …`, a parse error),
-- drawn by toolhost in place of vim.diagnostic's `signs` and `virtual_text` handlers, for
-- toolhost's namespace only. vim.diagnostic (0.7–0.11) has no per-item update: a refresh of a
-- chat of 100 calls re-placed 100 signs (0.4 ms) and re-made 100 texts (0.4–0.8 ms), and after
-- every change of the buffer it re-read the texts to put back those the change moved (0.24 ms
-- per result written, so results were written with the diagnostics hidden). Here each is an
-- extmark that Neovim moves with the text: a refresh sets only those that changed, and a write
-- costs nothing more. vim.diagnostic still decides when and what is shown: its config (global
-- or toolhost's namespace: `signs` and `virtual_text` with their `severity`, `priority`,
-- `format`, `prefix`, `spacing`, `source`, `suffix`; the DiagnosticSign* sign definitions),
-- update_in_insert, hide, show, enable, disable; its handlers call these. One text per
-- diagnostic: two on one row show one after the other.
local M = {}

local api = vim.api
local features = require("toolhost.features")
local severity = vim.diagnostic.severity

local names = { [severity.ERROR] = "Error", [severity.WARN] = "Warn", [severity.INFO] = "Info",
                [severity.HINT] = "Hint" }

local function to_severity(s)
  return type(s) == "string" and severity[s:upper()] or s
end

-- vim.diagnostic's severity filter: one severity, { min, max }, or (0.10) a list.
local function wanted(s, filter)
  if filter == nil then
    return true
  end
  if type(filter) ~= "table" then
    return s == to_severity(filter)
  end
  if filter.min or filter.max or #filter == 0 then
    return s <= (to_severity(filter.min) or severity.HINT) and s >= (to_severity(filter.max) or severity.ERROR)
  end
  for _, f in ipairs(filter) do
    if s == to_severity(f) then
      return true
    end
  end
  return false
end

-- A call's mark carries its own row (follow()); another diagnostic's row is part of what it shows.
local function row_sig(d)
  return (d.user_data and d.user_data.toolhost_mark) and "" or tostring(d.lnum)
end

-- What a diagnostic's sign is: (signature, extmark options) or nil, for `cfg` (opts.signs).
local function sign_of(d, cfg, ctx)
  local sign = ctx.signs[d.severity]
  if not sign then
    return nil
  end
  local priority = cfg.priority or 10
  if ctx.severity_sort then
    priority = priority + (ctx.reverse and (d.severity - severity.ERROR) or (severity.HINT - d.severity))
  end
  local opts = { sign_text = sign.text, sign_hl_group = sign.texthl, number_hl_group = sign.numhl,
                 line_hl_group = sign.linehl, priority = priority }
  return table.concat({ d.severity, priority, row_sig(d) }, "\1"), opts
end

-- The sign of each severity: 0.10's `signs.text`, `numhl`, `linehl`, or the DiagnosticSign*
-- definitions (vim.diagnostic defines them when the user has not).
local function sign_context(cfg, opts)
  local ctx = { signs = {}, severity_sort = opts.severity_sort }
  ctx.reverse = type(opts.severity_sort) == "table" and opts.severity_sort.reverse
  for s, name in pairs(names) do
    local defined = vim.fn.sign_getdefined("DiagnosticSign" .. name)[1] or {}
    local text = type(cfg.text) == "table" and cfg.text[s] or defined.text or name:sub(1, 1)
    ctx.signs[s] = {
      text = text ~= "" and vim.trim(text) ~= "" and text or nil,
      texthl = defined.texthl or ("DiagnosticSign" .. name),
      numhl = type(cfg.numhl) == "table" and cfg.numhl[s] or defined.numhl,
      linehl = type(cfg.linehl) == "table" and cfg.linehl[s] or defined.linehl,
    }
  end
  return ctx
end

-- What a diagnostic's virtual text is: (signature, extmark options) or nil, for `cfg`
-- (opts.virtual_text): vim.diagnostic's own chunks where it exports the builder (0.7–0.10).
local function text_of(d, cfg, ctx)
  local message = d.message
  if cfg.format then
    message = cfg.format(d)
    if not message then
      return nil
    end
  end
  if cfg.source == true and d.source then
    message = d.source .. ": " .. message
  end
  local sig = table.concat({ message, d.severity, row_sig(d) }, "\1")
  if not ctx.prefix_fn then
    sig = sig .. ctx.sig -- the same config, the same chunks: not built again
  end
  return sig, function()
    local shown = message == d.message and d or vim.tbl_extend("force", d, { message = message })
    local chunks
    if vim.diagnostic._get_virt_text_chunks then
      chunks = vim.diagnostic._get_virt_text_chunks({ shown }, cfg)
    else
      local prefix, hl = cfg.prefix or "■", "DiagnosticVirtualText" .. names[d.severity]
      if type(prefix) == "function" then
        local p, h = prefix(shown, 1, 1)
        prefix, hl = p, h or hl
      end
      local text = message:gsub("\r", ""):gsub("\n", "  ")
      chunks = { { string.rep(" ", cfg.spacing or 4) }, { prefix .. " " .. text .. (cfg.suffix or ""), hl } }
    end
    return chunks and { virt_text = chunks, virt_text_pos = cfg.virt_text_pos or "eol",
                        virt_text_win_col = cfg.virt_text_win_col, hl_mode = cfg.hl_mode or "combine" }
  end
end

local function text_context(cfg)
  local prefix = cfg.prefix
  return { prefix_fn = type(prefix) == "function",
           sig = table.concat({ tostring(prefix), tostring(cfg.spacing), tostring(cfg.suffix),
                                tostring(cfg.virt_text_pos), tostring(cfg.virt_text_win_col),
                                tostring(cfg.hl_mode) }, "\1") }
end

-- One kind of mark (signs, texts): its namespace and what it shows per buffer.
local function drawer(handler, namespace_name, mark_of, context)
  local self = { handler = handler, ns = api.nvim_create_namespace(namespace_name) }
  local drawn = {} -- buf -> key -> { id, sig, opts }
  local hiding = {} -- buf -> true: hidden, unless a show follows before the next loop turn

  local function place(buf, mark, row)
    local opts = vim.tbl_extend("force", mark.opts, { id = mark.id })
    if features.has_extmark_invalidate then
      opts.invalidate = true -- its row deleted, it goes with it
    end
    row = math.max(0, math.min(row, api.nvim_buf_line_count(buf) - 1))
    local ok, id = pcall(api.nvim_buf_set_extmark, buf, self.ns, row, 0, opts)
    mark.id = ok and id or nil
    return ok
  end

  function self.show(buf, diagnostics, opts)
    hiding[buf] = nil
    local cfg = type(opts) == "table" and type(opts[handler]) == "table" and opts[handler] or {}
    local ctx = context(cfg, opts or {})
    local before, now = drawn[buf] or {}, {}
    for _, d in ipairs(diagnostics) do
      local key = d.user_data and d.user_data.toolhost_key or ("row " .. d.lnum)
      if not now[key] and wanted(d.severity, cfg.severity) then
        local sig, opts_of = mark_of(d, cfg, ctx)
        if sig then
          local mark = before[key] or {}
          if mark.sig ~= sig or not mark.id then
            mark.opts = type(opts_of) == "function" and opts_of() or opts_of
            mark.sig = mark.opts and place(buf, mark, d.lnum) and sig or nil
          end
          now[key] = mark.opts and mark or nil
        end
      end
    end
    for key, mark in pairs(before) do
      if not now[key] and mark.id then
        pcall(api.nvim_buf_del_extmark, buf, self.ns, mark.id)
      end
    end
    drawn[buf] = now
  end

  function self.forget(buf, gone)
    local marks = drawn[buf]
    drawn[buf], hiding[buf] = nil, nil
    if marks and not gone and api.nvim_buf_is_valid(buf) then
      for _, mark in pairs(marks) do
        if mark.id then
          pcall(api.nvim_buf_del_extmark, buf, self.ns, mark.id)
        end
      end
    end
  end

  -- vim.diagnostic's show hides first, every time: the marks go only if no show comes before
  -- the next loop turn, so that a refresh changes what changed, not everything.
  function self.hide(buf)
    if not drawn[buf] or hiding[buf] then
      return
    end
    hiding[buf] = true
    vim.schedule(function()
      if hiding[buf] then
        self.forget(buf)
      end
    end)
  end

  function self.follow(buf, key, row)
    local mark = drawn[buf] and drawn[buf][key]
    if mark and mark.id then
      place(buf, mark, row)
    end
  end

  return self
end

M.signs = drawer("signs", "toolhost_signs", sign_of, sign_context)
M.texts = drawer("virtual_text", "toolhost_status", text_of, text_context)

-- A call's block extmark moved to `row` (blocks.set_mark): its sign and text go along.
function M.follow(buf, key, row)
  M.signs.follow(buf, key, row)
  M.texts.follow(buf, key, row)
end

-- Drops what `buf` shows (`gone`: the buffer is, its extmarks with it).
function M.forget(buf, gone)
  M.signs.forget(buf, gone)
  M.texts.forget(buf, gone)
end

-- Puts toolhost in vim.diagnostic's handlers for namespace `ns` (once; the handlers of every
-- other namespace run as before).
function M.install(ns)
  -- 0.11 turned vim.diagnostic's virtual text off by default. A call's text is toolhost's main
  -- feedback (running, awaiting approval with the keys that answer it), so toolhost's namespace
  -- keeps it on there unless it was configured: globally to anything but off, or for toolhost's
  -- namespace (`vim.diagnostic.config({ virtual_text = false }, ns)` turns it off).
  if features.diagnostic_virtual_text_off_by_default and vim.diagnostic.config(nil, ns).virtual_text == nil
      and not vim.diagnostic.config().virtual_text then
    vim.diagnostic.config({ virtual_text = true }, ns)
  end
  local handlers = vim.diagnostic.handlers
  for _, d in ipairs({ M.signs, M.texts }) do
    local theirs = handlers[d.handler]
    if theirs and not theirs.toolhost then
      handlers[d.handler] = {
        toolhost = true,
        show = function(namespace, bufnr, diagnostics, opts)
          if namespace == ns then
            return d.show(bufnr, diagnostics, opts)
          end
          return theirs.show(namespace, bufnr, diagnostics, opts)
        end,
        hide = function(namespace, bufnr)
          if namespace == ns then
            return d.hide(bufnr)
          end
          return theirs.hide(namespace, bufnr)
        end,
      }
    end
  end
end

return M
