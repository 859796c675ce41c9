-- The options of setup() as one schema (as gitsigns does; lua/toolhost/schema.lua): each option
-- with its type, default and a one-line description; nested tables have their own fields.
-- Validation, defaults, the host's share of the options and the options section of
-- doc/toolhost.txt are all read from it, so they cannot drift apart. Everything else reads
-- the merged `M.options`.
local M = {}

local schema = require("toolhost.schema")
local T = schema.types
M.schema = schema.entries

-- name -> entry, for every level of the schema.
local function index(entries)
  local by_name = {}
  for _, entry in ipairs(entries) do
    by_name[entry.name] = entry
    if entry.fields then
      entry.type = entry.type or T.table
      entry.index = index(entry.fields)
    end
  end
  return by_name
end
local by_name = index(M.schema)

local function describe(v)
  if type(v) == "string" then
    return ("%q"):format(v)
  elseif type(v) == "table" or type(v) == "function" then
    return "a " .. type(v)
  end
  return tostring(v)
end

-- The first problem of `value` against `entries`, named by its full path; nil when none.
local function check(entries, names, value, prefix)
  local unknown = {}
  for name in pairs(value) do
    if not names[name] then
      unknown[#unknown + 1] = tostring(name)
    end
  end
  if #unknown > 0 then
    table.sort(unknown)
    return ("unknown option `%s%s`"):format(prefix, unknown[1])
  end
  for _, entry in ipairs(entries) do
    local v, path = value[entry.name], prefix .. entry.name
    if v ~= nil then
      if not entry.type.check(v) then
        return ("%s: expected %s, got %s"):format(path, entry.type.expected, describe(v))
      end
      if entry.fields and type(v) == "table" then
        local err = check(entry.fields, entry.index, v, path .. ".")
        if err then
          return err
        end
      end
    end
  end
  return nil
end

-- `value` (already checked) over the defaults: a nested table merges field by field, any
-- other value (lists included) replaces the default whole.
local function merge(entries, value)
  local out = {}
  for _, entry in ipairs(entries) do
    local v = value and value[entry.name]
    if entry.fields and (v == nil or type(v) == "table") then
      out[entry.name] = merge(entry.fields, v)
    elseif v == nil then
      out[entry.name] = vim.deepcopy(entry.default)
    else
      out[entry.name] = v
    end
  end
  return out
end

-- A fresh table of every option's default.
function M.defaults()
  return merge(M.schema, nil)
end

M.options = M.defaults()

-- Returns the merged options, or nil and an error text naming the bad or unknown key by its
-- full path (`output.max_lines: expected a whole number > 0, got "x"`).
function M.validate(opts)
  if opts == nil then
    opts = {}
  end
  if type(opts) ~= "table" then
    return nil, "options: expected a table, got " .. describe(opts)
  end
  local err = check(M.schema, by_name, opts, "")
  if err then
    return nil, err
  end
  return merge(M.schema, opts)
end

function M.set(opts)
  local merged, err = M.validate(opts)
  if not merged then
    return nil, err
  end
  M.options = merged
  return merged
end

local function host_part(entries, value, all)
  local out = {}
  for _, entry in ipairs(entries) do
    if all or entry.host then
      local v = value[entry.name]
      if entry.to_host then
        v = entry.to_host(v)
      elseif entry.fields and type(v) == "table" then
        v = host_part(entry.fields, v, true)
      end
      out[entry.name] = v
    end
  end
  return out
end

-- What the host needs of `options` (default: the current options), as plain data: the
-- options marked `host` in the schema. Functions stay in Lua; nil options are left out.
function M.for_host(options)
  return host_part(M.schema, options or M.options, false)
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

-- The project root: the `root` option, else Neovim's cwd. Jobs run there; :ToolJobs and jobs()
-- list its jobs.
function M.root()
  return M.options.root or vim.fn.getcwd()
end

-- The root as the host's peers compare it (agents' relays, MCP project files): absolute,
-- without a trailing slash.
function M.absolute_root()
  local root = vim.fn.fnamemodify(M.root(), ":p")
  return (root:gsub("(.)/$", "%1"))
end

return M
