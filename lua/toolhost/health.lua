-- :checkhealth toolhost
local M = {}

local uv = vim.uv or vim.loop -- vim.loop is deprecated since 0.10
local health = vim.health or require("health")
local start = health.start or health.report_start
local ok = health.ok or health.report_ok
local warn = health.warn or health.report_warn
local error = health.error or health.report_error
local info = health.info or health.report_info

function M.check()
  local host = require("toolhost.host")
  start("toolhost")

  local v = vim.version()
  local features = require("toolhost.features")
  info(("Neovim %d.%d.%d, API level %d"):format(v.major, v.minor, v.patch, features.api_level))
  info("extmark invalidate (0.10+): " .. (features.has_extmark_invalidate and "yes" or "no"))
  info("User autocmd data (0.8+): " .. (features.has_autocmd_data and "yes" or "no, vim.g.toolhost_event is used"))

  local bin = host.binary()
  if vim.fn.executable(bin) ~= 1 then
    error(("binary not found: %s"):format(bin), { "run `make` in " .. host.plugin_root() })
    return
  end
  local version = vim.fn.system({ bin, "--version" }):gsub("%s+$", "")
  ok(("binary: %s (%s)"):format(bin, version))
  M.check_build(bin, version)

  local chan, err = host.ensure()
  if not chan then
    error("host does not start: " .. err)
  else
    local answered, reply = pcall(vim.rpcrequest, chan, "toolhost.ping")
    if answered and type(reply) == "table" then
      ok(("host answers (pid %d, version %s)"):format(reply.pid, reply.version))
      if not version:find(reply.version, 1, true) then
        warn("the running host is another version than the binary; run :ToolhostRestart")
      end
    else
      error("host does not answer: " .. tostring(reply))
    end
  end

  if vim.fn.executable("rg") == 1 then
    ok("rg found (search_files uses it)")
  else
    info("rg not found: search_files falls back to grep")
  end
  for name, dir in pairs({ state = host.dirs().state, cache = host.dirs().cache }) do
    vim.fn.mkdir(dir, "p")
    if vim.fn.filewritable(dir) == 2 then
      ok(("%s dir writable: %s"):format(name, dir))
    else
      error(("%s dir not writable: %s"):format(name, dir))
    end
  end
  if chan then
    M.check_sandbox(chan)
    require("toolhost.mcp_health").check(chan, { start = start, ok = ok, warn = warn, error = error, info = info })
  end
end

-- The kernel sandbox auto-run runs commands in (:help toolhost-sandbox).
function M.check_sandbox(chan)
  local answered, s = pcall(vim.rpcrequest, chan, "toolhost.sandbox")
  if not answered or type(s) ~= "table" then
    error("the host does not say whether the sandbox is available: " .. tostring(s))
    return
  end
  info(("sandbox: Landlock ABI %d, user namespaces %s, seccomp %s"):format(
    s.landlock_abi, s.user_namespaces and "yes" or "no", s.seccomp and "yes" or "no"))
  if s.mode == "off" then
    info("sandbox: off (setup's `sandbox`): the allow-list alone decides what runs unasked")
  elseif s.in_force then
    ok("sandbox: in force: commands auto-run starts run in it; :help toolhost-sandbox")
  else
    warn("sandbox: unavailable: " .. tostring(s.reason), {
      "commands off the allow-list wait for your approval",
      "it needs Linux with Landlock ABI 3 (6.2+), unprivileged user namespaces and seccomp",
    })
  end
end

-- Seconds (with the fraction) since the epoch of a file's last change; nil if it is missing.
local function mtime(path)
  local stat = uv.fs_stat(path)
  return stat and stat.mtime.sec + stat.mtime.nsec / 1e9, stat and stat.type
end

-- The newest of the files the binary is built from: everything under src/. (Not CMakeLists.txt:
-- most of its edits, such as a new test, rebuild nothing, and the binary would look stale.)
local function newest_source(root)
  local newest, newest_path = 0, nil
  local function visit(path)
    local time, kind = mtime(path)
    if kind == "directory" then
      local dir = uv.fs_scandir(path)
      local name = dir and uv.fs_scandir_next(dir)
      while name do
        visit(path .. "/" .. name)
        name = uv.fs_scandir_next(dir)
      end
    elseif time and time > newest then
      newest, newest_path = time, path
    end
  end
  visit(root .. "/src")
  return newest, newest_path
end

-- Warns when the binary is older than the plugin's sources (a `git pull` without `make`) or
-- reports another version than lua/toolhost/version.lua. `version` is its --version output.
function M.check_build(bin, version)
  local host = require("toolhost.host")
  local root = host.plugin_root()
  local advice = { "run `make` in " .. root }
  if require("toolhost.config").options.binary then
    table.insert(advice, "the `binary` option points at " .. bin)
  end
  local built = mtime(bin)
  local newest, newest_path = newest_source(root)
  if built and newest_path and built < newest then
    warn(("binary is older than the plugin's sources (%s changed since)"):format(newest_path:sub(#root + 2)), advice)
  end
  local lua_version = require("toolhost.version")
  local bin_version = version:match("%d+%.%d+%.%d+")
  if bin_version ~= lua_version then
    warn(("binary is version %s, the plugin's Lua side %s"):format(bin_version or "?", lua_version), advice)
  end
end

return M
