// A real headless Neovim with toolhost loaded from this checkout, for the tests where an agent's
// calls go through `toolhost mcp serve` to Neovim. It has its own XDG directories and a 0700
// XDG_RUNTIME_DIR, so its host's registry is its own; the test asks it questions through its
// --listen socket (msgpack_rpc.mjs).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HANG_GUARD_MS, defer, isGone, toolhost, until, within } from './helpers.mjs';
import { connectNeovim } from './msgpack_rpc.mjs';

const checkout = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');

// vim.notify records what it is told in _G.toolhost_test.notes, and the User event
// ToolhostJobOutput (Neovim 0.7: its data in g:toolhost_event) in .outputs.
const INIT = `
vim.opt.runtimepath:prepend(${JSON.stringify(checkout)})
_G.toolhost_test = { notes = {}, outputs = {} }
vim.notify = function(message, level)
  table.insert(_G.toolhost_test.notes, { message = tostring(message), level = level or vim.log.levels.INFO })
end
vim.api.nvim_create_autocmd("User", {
  pattern = "ToolhostJobOutput",
  callback = function()
    table.insert(_G.toolhost_test.outputs, vim.g.toolhost_event)
  end,
})
-- The sandbox off: these tests hold shell commands for approval in Neovim, which the sandbox
-- would run unasked (tests/e2e/sandbox_*_test.cc test it).
require("toolhost").setup({ binary = ${JSON.stringify(toolhost)}, shell = "sh", sandbox = "off" })
local ok, err = require("toolhost.host").ensure()
if not ok then
  vim.notify("toolhost did not start: " .. tostring(err), vim.log.levels.ERROR)
end
`;

// What the test reads of an agent's buffer: its lines, the calls the host says await approval,
// the diagnostics' messages (the awaiting hint is one) and the output lines ToolhostJobOutput
// said were shown under its blocks; nil before the buffer exists.
const AGENT_BUFFER = `
local name = "toolhost://agent/" .. ...
for _, buf in ipairs(vim.api.nvim_list_bufs()) do
  if vim.api.nvim_buf_get_name(buf) == name then
    local st = require("toolhost.blocks").get(buf) or {}
    local messages = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      messages[#messages + 1] = d.message
    end
    local shown = {}
    for _, event in ipairs(_G.toolhost_test.outputs) do
      if event.buf == buf then
        vim.list_extend(shown, event.lines)
      end
    end
    return {
      buf = buf,
      shown = shown,
      lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false),
      awaiting = #(st.awaiting or {}),
      diagnostics = messages,
    }
  end
end
return nil
`;

// In the agent's buffer (in its window, which toolhost opened as a split), the cursor on its
// first line, outside any block: the command then takes the first call waiting.
const IN_AGENT_BUFFER = `
local name, command = ...
for _, buf in ipairs(vim.api.nvim_list_bufs()) do
  if vim.api.nvim_buf_get_name(buf) == name then
    local win = vim.fn.bufwinid(buf)
    if win == -1 then
      vim.cmd("sbuffer " .. buf)
    else
      vim.api.nvim_set_current_win(win)
    end
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    vim.cmd(command)
    return true
  end
end
return false
`;

function sanitizerOptions(name, dir) {
  const own = process.env[name];
  return `${own ? `${own}:` : ''}log_path=${join(dir, 'sanitizer')}`;
}

// Starts Neovim in `root` and resolves once its toolhost host serves that root (its registry
// file exists). Returns { rpc, env, registry, pid, hostPid, agent(client), inAgentBuffer(client, cmd),
// notes() }; the Neovim quits at the test's end.
export async function startNeovim(t, root) {
  // Short paths: a unix socket's path must fit in 108 bytes.
  const dir = mkdtempSync(join(tmpdir(), 'thnv-'));
  const xdg = (name) => {
    const path = join(dir, name);
    mkdirSync(path, { recursive: true, mode: 0o700 });
    return path;
  };
  const env = {
    ...process.env,
    XDG_CONFIG_HOME: xdg('config'),
    XDG_DATA_HOME: xdg('data'),
    XDG_STATE_HOME: xdg('state'),
    XDG_CACHE_HOME: xdg('cache'),
    XDG_RUNTIME_DIR: xdg('run'),
    // Neovim drops its host's stderr: in the sanitizer build a report goes to a file instead.
    ASAN_OPTIONS: sanitizerOptions('ASAN_OPTIONS', dir),
    UBSAN_OPTIONS: sanitizerOptions('UBSAN_OPTIONS', dir),
  };
  const init = join(dir, 'init.lua');
  writeFileSync(init, INIT);
  const socket = join(dir, 'nvim.sock');
  // ctest registers the Neovim tests once per version (tests/CMakeLists.txt), naming its binary.
  const binary = process.env.TOOLHOST_TEST_NVIM || 'nvim';
  const nvim = spawn(binary, ['--headless', '--clean', '--listen', socket, '-u', init], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = [];
  nvim.stdout.on('data', (chunk) => log.push(chunk.toString()));
  nvim.stderr.on('data', (chunk) => log.push(chunk.toString()));
  let exitedEarly = null;
  const exited = new Promise((resolve) => {
    nvim.once('exit', (code, signal) => {
      exitedEarly ??= `Neovim exited (${signal ?? code}): ${log.join('')}`;
      resolve();
    });
    nvim.once('error', (error) => {
      exitedEarly ??= `cannot start ${binary} (the Neovim tests need nvim on PATH or $TOOLHOST_TEST_NVIM): ${error.message}`;
      resolve();
    });
  });
  let rpc;
  let hostPid;
  defer(t, async () => {
    // As a user quits; SIGTERM only when the test never reached Neovim.
    if (rpc) rpc.request('nvim_command', ['qa!']).catch(() => {});
    else if (!isGone(nvim.pid)) nvim.kill('SIGTERM');
    await within(exited, 'Neovim exiting');
    rpc?.close();
    // Its host ends with it (SPEC 6), so no test leaves one behind.
    if (hostPid) await until(() => isGone(hostPid), `toolhost's host (pid ${hostPid}) ending with Neovim`);
    if (t.passed === false) process.stderr.write(`Neovim's output:\n${log.join('')}\n`);
    const reports = readdirSync(dir).filter((f) => f.startsWith('sanitizer.'));
    const text = reports.map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
    rmSync(dir, { recursive: true, force: true });
    if (reports.length) throw new Error(`a sanitizer report of toolhost (${reports}):\n${text}`);
  });

  // The host writes {pid}.json once it listens.
  const registry = join(env.XDG_RUNTIME_DIR, 'toolhost');
  const entry = () => existsSync(registry) && readdirSync(registry).find((f) => /^\d+\.json$/.test(f));
  await until(() => exitedEarly || (existsSync(socket) && entry()),
    "Neovim's socket and its toolhost host's registry file");
  if (exitedEarly) throw new Error(exitedEarly);
  hostPid = Number(entry().split('.')[0]);
  rpc = await connectNeovim(socket);
  const name = (client) => `toolhost://agent/${client}`;
  return {
    rpc,
    env,
    registry,
    pid: nvim.pid,
    hostPid,
    agent: (client) => rpc.lua(AGENT_BUFFER, client),
    inAgentBuffer: (client, command) => rpc.lua(IN_AGENT_BUFFER, name(client), command),
    notes: () => rpc.lua('return _G.toolhost_test.notes'),
  };
}

// Resolves with the agent buffer's state once `predicate(state)` holds, asking Neovim every
// 50 ms; rejects at the hang guard with the last state seen.
export async function untilAgent(neovim, client, predicate, what) {
  const deadline = Date.now() + HANG_GUARD_MS;
  for (;;) {
    const state = await within(neovim.agent(client), "reading the agent's buffer");
    if (state && predicate(state)) return state;
    if (Date.now() > deadline) {
      throw new Error(`still waiting for ${what} after ${HANG_GUARD_MS} ms; the agent's buffer: ${
        JSON.stringify(state, null, 1)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
