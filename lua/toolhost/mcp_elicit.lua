-- Asks the user what an MCP server wants to know in the middle of a call (`elicitation/create`,
-- form mode; :help toolhost-mcp-elicitation). The host sends one question at a time,
--   { id = 7, server = "name", message = "...", fields = { { name = "age", type = "integer",
--     title?, description?, default?, minimum?, maximum?, enum?, enumNames?, oneOf?,
--     required = true }, ... } }  (the fields in the order the server's schema lists them)
-- and waits for `toolhost.mcp_elicited` { id, action = "accept" | "decline" | "cancel" |
-- "defaults", content? }. ask() returns at once: the questions come from a scheduled callback,
-- through vim.ui.select and vim.ui.input (looked up at each use, so that a UI plugin's or a
-- test's replacement answers). Without a UI the answer is "defaults" at once: the host accepts
-- the schema's defaults, as `toolhost mcp call` does.
local M = {}

-- Whether anyone can answer: a headless Neovim (no UI) is never asked.
function M.can_ask()
  return #vim.api.nvim_list_uis() > 0
end

local function warn(text)
  vim.notify("toolhost: " .. text, vim.log.levels.WARN)
end

local function present(value)
  return value ~= nil and value ~= vim.NIL
end

-- "Your name (what to call you) [name]": the title, the description, the field's own name.
local function label(field)
  local text = present(field.title) and field.title or field.name
  if present(field.description) then
    text = text .. " (" .. field.description .. ")"
  end
  if present(field.title) then
    text = text .. " [" .. field.name .. "]"
  end
  return text
end

-- The choices of an enum or a titled oneOf: { { value, text } }, or nil for a free field.
local function choices(field)
  local list = {}
  if type(field.enum) == "table" then
    local names = type(field.enumNames) == "table" and field.enumNames or {}
    for i, value in ipairs(field.enum) do
      local text = present(names[i]) and names[i] or tostring(value)
      table.insert(list, { value = value, text = text })
    end
  elseif type(field.oneOf) == "table" then
    for _, choice in ipairs(field.oneOf) do
      if type(choice) == "table" and present(choice.const) then
        local title = present(choice.title) and choice.title or tostring(choice.const)
        table.insert(list, { value = choice.const, text = title })
      end
    end
  elseif field.type == "boolean" then
    list = { { value = true, text = "yes" }, { value = false, text = "no" } }
  end
  return #list > 0 and list or nil
end

-- The typed value of `text` for `field`, or nil and why it does not fit.
local function parse(field, text)
  if field.type == "number" or field.type == "integer" then
    -- Decimal only: tonumber() would take "0x1F" and "1e3" too.
    local decimal = text:match("^%s*[-+]?%d+%.?%d*%s*$") or text:match("^%s*[-+]?%.%d+%s*$")
    local number = decimal and tonumber(text)
    if not number then
      return nil, ("%s: %q is not a number"):format(field.name, text)
    end
    if field.type == "integer" and number ~= math.floor(number) then
      return nil, ("%s: %s is not a whole number"):format(field.name, text)
    end
    if present(field.minimum) and number < field.minimum then
      return nil, ("%s: must be at least %s"):format(field.name, tostring(field.minimum))
    end
    if present(field.maximum) and number > field.maximum then
      return nil, ("%s: must be at most %s"):format(field.name, tostring(field.maximum))
    end
    return number
  end
  -- Code points, as JSON Schema counts them (str_utfindex's one-argument form is deprecated
  -- from 0.11).
  local length = vim.fn.strchars(text)
  if present(field.minLength) and length < field.minLength then
    return nil, ("%s: must be at least %d characters long"):format(field.name, field.minLength)
  end
  if present(field.maxLength) and length > field.maxLength then
    return nil, ("%s: must be at most %d characters long"):format(field.name, field.maxLength)
  end
  return text
end

-- `callback`, an error in it ending the question with cancel(): the host must hear an answer,
-- or its later questions would wait for ever.
local function protect(cancel, callback)
  return function(...)
    local ok, err = pcall(callback, ...)
    if not ok then
      warn("asking failed: " .. tostring(err))
      cancel()
    end
  end
end

-- What input() returns for <Esc>, which no one types.
local CANCELED = "\1toolhost-canceled\1"

-- Whether `input` is Neovim's own vim.ui.input rather than a plugin's, told by the file it was
-- defined in (runtime/lua/vim/ui.lua): a saved original would be a plugin's if it loaded first.
local function is_builtin(input)
  local info = debug.getinfo(input, "S")
  return info ~= nil and info.source:match("vim[/\\]ui%.lua$") ~= nil
end

-- Asks one field: done(value) (nil: left out, the field being optional), or cancel().
local function ask_field(server, field, done, cancel)
  local list = choices(field)
  if list then
    local items = {}
    for _, choice in ipairs(list) do
      if present(field.default) and choice.value == field.default then
        table.insert(items, 1, { value = choice.value, text = choice.text .. " (default)" })
      else
        table.insert(items, choice)
      end
    end
    if not field.required then
      table.insert(items, { text = "(leave out)" })
    end
    local prompt = ("%s: %s"):format(server, label(field))
    vim.ui.select(items, { prompt = prompt, format_item = function(item)
      return item.text
    end }, protect(cancel, function(item)
      if not item then
        return cancel()
      end
      done(item.value)
    end))
    return
  end
  local suffix = field.required and "" or " (optional)"
  if present(field.format) then
    suffix = suffix .. " (" .. field.format .. ")"
  end
  local opts = { prompt = ("%s: %s%s: "):format(server, label(field), suffix) }
  if present(field.default) then
    opts.default = tostring(field.default)
  end
  -- Neovim 0.7.2's own vim.ui.input gives nil for <Esc> and for an empty line alike, and later
  -- ones give "" for an empty line: with `cancelreturn`, which its input() honours, <Esc> is
  -- told apart there. A UI plugin's nil stays a cancel.
  opts.cancelreturn = CANCELED
  local builtin = is_builtin(vim.ui.input)
  vim.ui.input(opts, protect(cancel, function(text)
    if text == nil and builtin then
      text = ""
    end
    if text == nil or text == CANCELED then
      return cancel()
    end
    if text == "" and not field.required then
      return done(nil)
    end
    if text == "" then
      warn(("%s: %s is required"):format(server, field.name))
      return ask_field(server, field, done, cancel)
    end
    local value, why = parse(field, text)
    if value == nil then
      warn(server .. ": " .. why)
      return ask_field(server, field, done, cancel)
    end
    done(value)
  end))
end

-- Asks `question`'s fields in order; answer(reply) once.
local function ask_form(question, answer)
  local fields, content = question.fields or {}, {}
  local function cancel()
    answer({ action = "cancel" })
  end
  local function next_field(i)
    if i > #fields then
      return answer({ action = "accept", content = next(content) and content or vim.empty_dict() })
    end
    ask_field(question.server, fields[i], function(value)
      content[fields[i].name] = value
      next_field(i + 1)
    end, cancel)
  end
  local first = #fields > 0 and "Answer" or "Accept"
  local prompt = ("MCP server %s asks: %s"):format(question.server, question.message or "")
  vim.ui.select({ first, "Decline" }, { prompt = prompt }, protect(cancel, function(choice)
    if choice == nil then
      return cancel()
    elseif choice == "Decline" then
      return answer({ action = "decline" })
    end
    next_field(1)
  end))
end

-- The host's question (see the top); `instance`: the host that asked, which alone gets the answer.
function M.ask(question, instance)
  local host = require("toolhost.host")
  local answered = false
  local function answer(reply)
    if answered or host.instance() ~= instance then
      return -- answered already, or that host is gone
    end
    answered = true
    reply.id = question.id
    host.notify("toolhost.mcp_elicited", reply)
  end
  if not M.can_ask() then
    return answer({ action = "defaults" })
  end
  vim.schedule(function()
    local ok, err = pcall(ask_form, question, answer)
    if not ok then
      warn("asking for " .. tostring(question.server) .. " failed: " .. tostring(err))
      answer({ action = "cancel" })
    end
  end)
end

return M
