-- :checkhealth toolhost
local M = {}

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
end

return M
