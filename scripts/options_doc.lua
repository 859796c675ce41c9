-- Writes the options section of doc/toolhost.txt from the schema in lua/toolhost/schema.lua,
-- so the help text cannot drift from the defaults and checks (scripts/gen-doc runs update();
-- tests/e2e/config_test.cc checks that the doc holds exactly what render() returns).
local M = {}

local kWidth = 78
local kTagColumn = 80 -- where the section tag ends, as in the doc's other headings
local kColumn = 24 -- where defaults and descriptions start
local kHeading = "Options and defaults:"
local kTag = "*toolhost-options*"

local function inline(value)
  local text = vim.inspect(value, { newline = " ", indent = "" })
  if type(value) == "number" and value >= 1048576 and value % 1048576 == 0 then
    text = ("%s (%d MiB)"):format(text, value / 1048576)
  end
  return text
end

-- `text` wrapped at kWidth, every line starting at kColumn.
local function wrap(text, out)
  local pad = string.rep(" ", kColumn)
  local line = ""
  for word in text:gmatch("%S+") do
    if line ~= "" and kColumn + #line + 1 + #word > kWidth then
      out[#out + 1] = pad .. line
      line = word
    else
      line = line == "" and word or line .. " " .. word
    end
  end
  if line ~= "" then
    out[#out + 1] = pad .. line
  end
end

-- `name` at column 2, then `first` at kColumn, on the next line when the name is long.
local function head(name, first, out)
  local left = "  " .. name
  if #left + 2 <= kColumn then
    out[#out + 1] = left .. string.rep(" ", kColumn - #left) .. first
  else
    out[#out + 1] = left
    out[#out + 1] = string.rep(" ", kColumn) .. first
  end
end

local function render_entries(entries, prefix, out)
  for _, entry in ipairs(entries) do
    local name = prefix .. entry.name
    local kind = "(" .. entry.type.expected .. ")"
    local first = entry.fields and kind or inline(entry.default)
    local text = entry.description
    if not entry.fields then
      -- The type goes after the default when it fits, else after the description.
      if kColumn + #first + 2 + #kind <= kWidth then
        first = first .. "  " .. kind
      else
        text = text .. " " .. kind
      end
    end
    if entry.planned then
      text = text .. " [planned]"
    end
    head(name, first, out)
    wrap(text, out)
    if entry.fields then
      render_entries(entry.fields, name .. ".", out)
    end
  end
end

-- The section's lines: its heading, a blank line, then every option with its default,
-- description and type.
function M.render()
  local out = { kHeading .. string.rep(" ", kTagColumn - #kHeading - #kTag) .. kTag, "" }
  render_entries(require("toolhost.config").schema, "", out)
  return out
end

-- Replaces the section in `path`: from its heading to the blank line before the next
-- `====` separator.
function M.update(path)
  local lines = vim.fn.readfile(path)
  local first, stop
  for i, line in ipairs(lines) do
    if not first and line:find(kTag, 1, true) then
      first = i
    elseif first and line:match("^====") then
      stop = i - 1
      break
    end
  end
  assert(first and stop, path .. ": no " .. kTag .. " section")
  local out = {}
  vim.list_extend(out, lines, 1, first - 1)
  vim.list_extend(out, M.render())
  out[#out + 1] = ""
  vim.list_extend(out, lines, stop + 1, #lines)
  vim.fn.writefile(out, path)
end

return M
