-- The types setup()'s options can have (lua/toolhost/schema.lua): how a value is checked, and
-- how an error message and the doc name it.
local M = {}

local islist = require("toolhost.features").islist
local function is_list(v)
  return type(v) == "table" and (next(v) == nil or islist(v))
end

local function is_list_of_strings(v)
  if not is_list(v) then
    return false
  end
  for _, item in ipairs(v) do
    if type(item) ~= "string" then
      return false
    end
  end
  return true
end

local function is_whole(v)
  return type(v) == "number" and v == math.floor(v) and v > -math.huge and v < math.huge
end

-- An allow-list entry: "cmd words" or { "cmd words", deny = { "--opt", … } } (SPEC 7).
local function is_command_list(v)
  if not is_list(v) then
    return false
  end
  for _, entry in ipairs(v) do
    local ok = type(entry) == "string"
      or (type(entry) == "table" and type(entry[1]) == "string" and (entry.deny == nil or is_list_of_strings(entry.deny))
        and (entry.sandbox == nil or type(entry.sandbox) == "boolean")
        and (entry.network == nil or type(entry.network) == "boolean"))
    if not ok then
      return false
    end
  end
  return true
end

-- A type: how a value is checked, and how an error message and the doc name it.
function M.kind(expected, check)
  return { expected = expected, check = check }
end

function M.either(a, b)
  return M.kind(a.expected .. " or " .. b.expected, function(v)
    return a.check(v) or b.check(v)
  end)
end

function M.one_of(...)
  local values = { ... }
  local quoted = vim.tbl_map(function(value)
    return ('"%s"'):format(value)
  end, values)
  return M.kind("one of " .. table.concat(quoted, ", "), function(v)
    return vim.tbl_contains(values, v)
  end)
end

M.T = {
  boolean = M.kind("a boolean", function(v) return type(v) == "boolean" end),
  string = M.kind("a string", function(v) return type(v) == "string" end),
  table = M.kind("a table", function(v) return type(v) == "table" end),
  func = M.kind("a function", function(v) return type(v) == "function" end),
  no = M.kind("false", function(v) return v == false end),
  strings = M.kind("a list of strings", is_list_of_strings),
  commands = M.kind("a list of commands", is_command_list),
  count = M.kind("a whole number > 0", function(v) return is_whole(v) and v > 0 end),
  ms = M.kind("a whole number >= 0", function(v) return is_whole(v) and v >= 0 end),
  nice = M.kind("a whole number from 0 to 19", function(v) return is_whole(v) and v >= 0 and v <= 19 end),
}
M.key = M.either(M.T.string, M.T.no)

return M
