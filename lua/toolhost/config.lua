-- Defaults, validation and the merged options every other module reads.
local M = {}

local defaults = {
  chat_filetypes = { "codecompanion", "llm-sidekick", "markdown.chat" },
  chat_patterns = { "*.chat.md" },
  roles = {
    user = { "Me", "User", "USER" },
    assistant = { "CodeCompanion", "Assistant", "ASSISTANT", "LLM" },
    system = { "System", "SYSTEM" },
  },
  auto_run = true,
  auto_run_idle_ms = 1500,
  run_all = "sequential",
  confirm_run_all = true,
  max_concurrent = 4,
  timeout_ms = 120000,
  max_timeout_ms = 600000,
  kill_grace_ms = 2000,
  shell = nil,
  root = nil,
  allow = { commands = nil },
  auto_accept_edits = false,
  tools = {},
  output = { max_lines = 200, stream_lines = 15, stream_interval_ms = 100, log_max_bytes = 64 * 1024 * 1024 },
  history_max = 500,
  keymaps = { run = "<leader>tr", run_all = "<leader>ta", cancel = "<leader>tc", reject = "<leader>tx", output = "<leader>to" },
  log_level = "warn",
  binary = nil,
}

M.options = vim.deepcopy(defaults)

local function is_list_of_strings(v)
  if type(v) ~= "table" then
    return false
  end
  for _, item in ipairs(v) do
    if type(item) ~= "string" then
      return false
    end
  end
  return true
end

local function non_negative(v)
  return type(v) == "number" and v >= 0
end

local function positive(v)
  return type(v) == "number" and v > 0
end

-- Returns the merged options, or nil and an error text naming the bad or unknown key.
function M.validate(opts)
  opts = opts or {}
  for key in pairs(opts) do
    if defaults[key] == nil and key ~= "shell" and key ~= "root" and key ~= "binary" then
      return nil, "unknown option `" .. tostring(key) .. "`"
    end
  end
  local merged = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts)
  local ok, err = pcall(vim.validate, {
    chat_filetypes = { merged.chat_filetypes, is_list_of_strings, "list of filetypes" },
    chat_patterns = { merged.chat_patterns, is_list_of_strings, "list of patterns" },
    roles = { merged.roles, "table" },
    auto_run = { merged.auto_run, { "boolean", "function" } },
    auto_run_idle_ms = { merged.auto_run_idle_ms, non_negative, "number >= 0" },
    run_all = { merged.run_all, function(v) return v == "sequential" or v == "parallel" end, '"sequential" or "parallel"' },
    confirm_run_all = { merged.confirm_run_all, "boolean" },
    max_concurrent = { merged.max_concurrent, positive, "number > 0" },
    timeout_ms = { merged.timeout_ms, non_negative, "number >= 0" },
    max_timeout_ms = { merged.max_timeout_ms, positive, "number > 0" },
    kill_grace_ms = { merged.kill_grace_ms, non_negative, "number >= 0" },
    shell = { merged.shell, "string", true },
    root = { merged.root, "string", true },
    allow = { merged.allow, "table" },
    auto_accept_edits = { merged.auto_accept_edits, "boolean" },
    tools = { merged.tools, "table" },
    output = { merged.output, "table" },
    history_max = { merged.history_max, positive, "number > 0" },
    keymaps = { merged.keymaps, { "table", "boolean" } },
    log_level = { merged.log_level, function(v)
      return vim.tbl_contains({ "debug", "info", "warn", "error", "off" }, v)
    end, "debug|info|warn|error|off" },
    binary = { merged.binary, "string", true },
  })
  if not ok then
    return nil, err
  end
  for key, value in pairs(merged.roles) do
    if not is_list_of_strings(value) then
      return nil, "roles." .. tostring(key) .. ": expected a list of names"
    end
  end
  for _, key in ipairs({ "max_lines", "stream_lines", "stream_interval_ms", "log_max_bytes" }) do
    if not positive(merged.output[key]) then
      return nil, "output." .. key .. ": expected a number > 0"
    end
  end
  return merged
end

function M.set(opts)
  local merged, err = M.validate(opts)
  if not merged then
    return nil, err
  end
  M.options = merged
  return merged
end

-- What the host needs, as plain data (functions stay in Lua).
function M.for_host()
  local o = M.options
  return {
    timeout_ms = o.timeout_ms,
    max_timeout_ms = o.max_timeout_ms,
    kill_grace_ms = o.kill_grace_ms,
    max_concurrent = o.max_concurrent,
    shell = o.shell,
    roles = o.roles,
    output = o.output,
    history_max = o.history_max,
  }
end

function M.is_chat_buffer(buf)
  if buf == 0 then
    buf = vim.api.nvim_get_current_buf()
  end
  local o = M.options
  if vim.tbl_contains(o.chat_filetypes, vim.bo[buf].filetype) then
    return true
  end
  local name = vim.api.nvim_buf_get_name(buf)
  if name == "" then
    return false
  end
  for _, pattern in ipairs(o.chat_patterns) do
    if vim.fn.match(name, vim.fn.glob2regpat(pattern)) >= 0 then
      return true
    end
  end
  return false
end

return M
