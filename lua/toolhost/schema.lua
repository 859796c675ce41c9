-- The schema of setup()'s options (see lua/toolhost/config.lua, which validates, merges and
-- documents from it): the types an option can have, and every option with its type, default,
-- description and flags.

local types = require("toolhost.schema_types")
local T, key, either, one_of = types.T, types.key, types.either, types.one_of

-- What the host gets of `allow`: entries as { words, deny } (a Lua table that mixes a list part
-- and `deny` has no msgpack form); nil when the built-in list applies.
local function allow_for_host(allow)
  if type(allow) ~= "table" or allow.commands == nil then
    return nil
  end
  local commands = {}
  for _, entry in ipairs(allow.commands) do
    if type(entry) == "string" then
      commands[#commands + 1] = entry
    else
      commands[#commands + 1] = { words = entry[1], deny = entry.deny or {}, sandbox = entry.sandbox,
                                  network = entry.network }
    end
  end
  return { commands = commands }
end

-- What the host gets of `tools`: the specs as data. A Lua function stays in Lua and is sent as
-- a marker (`fn = true`, `auto_accept = "function"`); lua/toolhost/tools.lua calls it.
local function tools_for_host(tools)
  if type(tools) ~= "table" or next(tools) == nil then
    return nil
  end
  local out = {}
  for name, spec in pairs(tools) do
    if type(spec) ~= "table" then
      out[name] = spec -- the host names the problem
    else
      local copy = {}
      for key, value in pairs(spec) do
        copy[key] = value
      end
      if type(spec.fn) == "function" then
        copy.fn = true
      end
      if type(spec.auto_accept) == "function" then
        copy.auto_accept = "function"
      end
      out[name] = copy
    end
  end
  return out
end

-- Each entry: name, type (a kind) or fields (a nested table: its own entries), default,
-- description (one line), `optional` (nil is allowed and the default), `host` (the host reads
-- it: M.for_host() sends it, through `to_host` when the entry has one; for a nested table, all
-- of its fields), `planned` (accepted and
-- documented, not used yet).
local entries = {
  {
    name = "chat_filetypes",
    type = T.strings,
    default = { "codecompanion", "llm-sidekick", "markdown.chat" },
    description = "Buffers of these filetypes are attached automatically.",
  },
  {
    name = "chat_patterns",
    type = T.strings,
    default = { "*.chat.md" },
    description = "Buffers whose name matches one of these globs are attached, whatever their filetype.",
  },
  {
    name = "roles",
    host = true,
    description = "Names of the role headers that split a buffer into messages.",
    fields = {
      { name = "user", type = T.strings, default = { "Me", "User", "USER" }, description = "Headers of the user's messages." },
      {
        name = "assistant",
        type = T.strings,
        default = { "CodeCompanion", "Assistant", "ASSISTANT", "LLM" },
        description = "Headers of the LLM's replies; tool calls are taken from these only.",
      },
      { name = "system", type = T.strings, default = { "System", "SYSTEM" }, description = "Headers of system prompts." },
    },
  },
  {
    name = "auto_run",
    type = either(T.boolean, T.func),
    default = true,
    description = "Run the auto-acceptable calls of a finished reply; a function(buf) decides per buffer.",
  },
  {
    name = "auto_run_events",
    type = T.strings,
    default = { "CodeCompanionRequestFinished", "LlmSidekickResponseDone" },
    description = "User autocmds that say a reply is complete (the buffer: data.bufnr or data.buf, else the current one).",
  },
  {
    name = "auto_run_idle_ms",
    type = T.ms,
    default = 1500,
    description = "A reply counts as finished when its buffer has not changed for this long.",
  },
  {
    name = "run_all",
    type = one_of("sequential", "parallel"),
    default = "sequential",
    description = ":ToolRunAll runs the calls one after another, or up to max_concurrent at once.",
  },
  {
    name = "confirm_run_all",
    type = T.boolean,
    default = true,
    description = ":ToolRunAll asks once before it runs calls that need approval.",
  },
  {
    name = "max_concurrent",
    type = T.count,
    default = 4,
    host = true,
    description = "Jobs running at once; the rest wait in a FIFO queue.",
  },
  {
    name = "job_nice",
    type = T.nice,
    default = 10,
    host = true,
    description = "Jobs run this much below Neovim's priority (nice), so a CPU-bound tool cannot slow the editor; 0 = the same.",
  },
  {
    name = "timeout_ms",
    type = T.ms,
    default = 120000,
    host = true,
    description = "Per job, 0 = none: SIGTERM to its process group, SIGKILL after kill_grace_ms.",
  },
  {
    name = "max_timeout_ms",
    type = T.count,
    default = 600000,
    host = true,
    description = "Upper bound of a timeout_ms the model writes into a call (a value <= 0 means this bound).",
  },
  {
    name = "kill_grace_ms",
    type = T.ms,
    default = 2000,
    host = true,
    description = "Between SIGTERM and SIGKILL on timeout or cancel.",
  },
  {
    name = "shell",
    type = T.string,
    optional = true,
    host = true,
    description = "Shell of run_terminal_command; nil: bash when on PATH, else sh (never 'shell' or $SHELL).",
  },
  {
    name = "root",
    type = T.string,
    optional = true,
    description = "Project root, the cwd of every job; nil: Neovim's cwd when the buffer is attached.",
  },
  {
    name = "allow",
    host = true,
    to_host = allow_for_host,
    description = "What auto-run may run without asking.",
    fields = {
      {
        name = "commands",
        type = T.commands,
        optional = true,
        description = 'Literal word lists, "git status" or { "git log", deny = { "--output" } }, with sandbox = false (runs outside the sandbox) or network = true (sandboxed with the network on); nil: the built-in read-only list.',
      },
    },
  },
  {
    name = "auto_accept_edits",
    type = T.boolean,
    default = false,
    host = true,
    description = "Auto-run the tools that edit files too.",
  },
  {
    name = "sandbox",
    type = one_of("auto", "off"),
    default = "auto",
    host = true,
    description = 'Where auto-run runs terminal commands: "auto", in the kernel sandbox when it is available (on or off the allow-list); "off", the allow-list rule alone.',
  },
  {
    name = "sandbox_approved",
    type = T.boolean,
    default = false,
    host = true,
    description = "Run the commands you approve in the sandbox too.",
  },
  {
    name = "sandbox_writable",
    type = T.strings,
    default = {},
    host = true,
    description = "More directories a sandboxed command may write (build caches), besides the project root and /tmp.",
  },
  {
    name = "sandbox_secrets",
    type = T.strings,
    optional = true,
    host = true,
    description = "Entries of your home a sandboxed command may not read; nil: .ssh, .gnupg, .aws, .config/gh, .netrc, .docker, .kube, .password-store.",
  },
  {
    name = "tools",
    type = T.table,
    default = {},
    host = true,
    to_host = tools_for_host,
    description = "Custom tools: name = { cmd | cmds | fn, params, auto_accept, timeout_ms, cwd, env, description, quickfix }.",
  },
  {
    name = "output",
    host = true,
    description = "Output of jobs in the buffer and in their log files.",
    fields = {
      {
        name = "max_lines",
        type = T.count,
        default = 200,
        description = "Lines written into a result block, both streams together.",
      },
      {
        name = "stream_lines",
        type = T.count,
        default = 15,
        description = "Last lines of a running job's output shown under its block.",
      },
      {
        name = "stream_interval_ms",
        type = T.count,
        default = 100,
        description = "Least time between two updates of those lines.",
      },
      {
        name = "stream_width",
        type = T.count,
        optional = true,
        to_host = function(v)
          return v or vim.o.columns
        end,
        description = "Characters shown of each of those lines, the rest cut with …; nil: Neovim's 'columns' when setup() ran.",
      },
      {
        name = "log_max_bytes",
        type = T.count,
        default = 64 * 1024 * 1024,
        description = "Size cap of each job's log file.",
      },
    },
  },
  {
    name = "quickfix",
    host = true,
    description = "Build and test output into a quickfix list per call, and diagnostics (:help toolhost-quickfix).",
    fields = {
      {
        name = "enabled",
        type = T.boolean,
        default = true,
        description = "A call whose command has a known errorformat gets a list.",
      },
      {
        name = "diagnostics",
        type = T.boolean,
        default = true,
        description = "Its items are diagnostics in their files too, in a namespace per call.",
      },
      {
        name = "max_items",
        type = T.count,
        default = 1000,
        description = "Items per call; past it, one last item names the full log.",
      },
      {
        name = "max_files",
        type = T.count,
        default = 300,
        description = "Distinct files per call; an item in one more ends the list the same way.",
      },
      {
        name = "commands",
        type = T.table,
        optional = true,
        description = 'A command\'s first word -> { efm = "..." }, { compiler = "name" } or false, over the built-in map.',
      },
    },
  },
  {
    name = "history_max",
    type = T.count,
    default = 500,
    host = true,
    description = "Jobs kept in the history file, with their logs; older ones are deleted.",
  },
  {
    name = "keymaps",
    type = either(T.table, T.no),
    description = "Buffer-local keys in chat buffers; false turns them all off, a key set to false only that one.",
    fields = {
      { name = "run", type = key, default = "<leader>tr", description = ":ToolRun" },
      { name = "run_all", type = key, default = "<leader>ta", description = ":ToolRunAll" },
      { name = "cancel", type = key, default = "<leader>tc", description = ":ToolCancel" },
      { name = "reject", type = key, default = "<leader>tx", description = ":ToolReject" },
      { name = "output", type = key, default = "<leader>to", description = ":ToolOutput" },
    },
  },
  {
    name = "serve",
    description = "Outside agents through `toolhost mcp serve` (:help toolhost-agents).",
    fields = {
      {
        name = "enabled",
        type = T.boolean,
        default = true,
        description = "Agents started in this project may reach this Neovim (a socket only you can use).",
      },
      {
        name = "at_startup",
        type = T.boolean,
        default = true,
        description = "With `enabled`, the host starts once Neovim has started, so that agents find this Neovim before any chat buffer or command.",
      },
      {
        name = "open",
        type = one_of("split", "tab", "none"),
        default = "split",
        description = "Where an agent's buffer opens when a call waits for approval; focus stays where it was.",
      },
    },
  },
  {
    name = "mcp",
    type = T.table,
    optional = true,
    host = true,
    description = "MCP servers whose tools chat blocks can call: { servers = { NAME = { command, args, env, cwd, auto_approve, disabled_tools, trusted, timeout_ms, startup_timeout_ms, disabled, protocol } } } (:help toolhost-mcp).",
  },
  {
    name = "log_level",
    type = one_of("debug", "info", "warn", "error", "off"),
    default = "warn",
    description = "Level of the host's log file (:ToolhostLog).",
  },
  {
    name = "binary",
    type = T.string,
    optional = true,
    description = "Path of the toolhost binary; nil: build/toolhost in the plugin's directory.",
  },
}

return { entries = entries, types = T }
