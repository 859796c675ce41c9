// Shared by the MCP tests: `toolhost mcp serve` started as an agent starts it, temp roots, and
// waits on events (a deadline only turns a hang into a failure).
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';

let sdk;
try {
  sdk = {
    ...(await import('@modelcontextprotocol/sdk/client/index.js')),
    ...(await import('@modelcontextprotocol/sdk/client/stdio.js')),
  };
} catch (error) {
  throw new Error(
    `the MCP tests need their Node packages: run scripts/install-test-node-deps (${error.message})`,
  );
}
export const { Client, StdioClientTransport } = sdk;

export const toolhost = process.env.TOOLHOST_BINARY;
if (!toolhost) throw new Error('set TOOLHOST_BINARY to the toolhost binary (CMake does)');

// Generous: a hang guard under 5 agents on 2 cores and sanitizers, never a latency assertion.
export const HANG_GUARD_MS = 90_000;

// Cleanups run last registered first (node:test runs t.after hooks first registered first): a
// server closes before its temp root goes. The first error is rethrown after all ran.
const cleanups = new WeakMap();
export function defer(t, cleanup) {
  let list = cleanups.get(t);
  if (!list) {
    list = [];
    cleanups.set(t, list);
    t.after(async () => {
      let failure;
      for (const run of list.reverse()) {
        try {
          await run();
        } catch (error) {
          failure ??= error;
        }
      }
      if (failure) throw failure;
    });
  }
  list.push(cleanup);
}

// A fresh root with its own state, cache, data and runtime directories; removed at the end.
export function tempRoot(t) {
  const base = process.env.TOOLHOST_MCP_TMP || tmpdir();
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, 'mcp-'));
  const paths = {
    dir,
    root: join(dir, 'root'),
    state: join(dir, 'state'),
    cache: join(dir, 'cache'),
    data: join(dir, 'data'),
    run: join(dir, 'run'),
  };
  for (const path of [paths.root, paths.state, paths.cache, paths.data]) mkdirSync(path);
  mkdirSync(paths.run, { mode: 0o700 });
  defer(t, () => rmSync(dir, { recursive: true, force: true }));
  return paths;
}

// The server's environment: `base` (the test's) with every directory where it looks for a
// Neovim host its own, and no $TOOLHOST_SOCKET: a Neovim of the user running the tests, which
// serves a parent of the temp root (the checkout, say), must not get the calls.
export function serverEnv(paths, base = process.env) {
  const { TOOLHOST_SOCKET: _, ...env } = base;
  return {
    ...env,
    XDG_STATE_HOME: paths.state,
    XDG_CACHE_HOME: paths.cache,
    XDG_DATA_HOME: paths.data,
    XDG_RUNTIME_DIR: paths.run,
  };
}

// As Claude Code starts a stdio server (`claude mcp add NAME -- toolhost mcp serve ...`):
// command and args, cwd the project root, the agent's environment; stderr is the server's log.
// `options`: the server's `env` (else serverEnv(paths)) and the client's `name`.
export async function connect(t, paths, extraArgs = [], options = {}) {
  const transport = new StdioClientTransport({
    command: toolhost,
    args: ['mcp', 'serve', ...extraArgs],
    cwd: paths.root,
    env: options.env ?? serverEnv(paths),
    stderr: 'pipe',
  });
  const log = [];
  transport.stderr?.on('data', (chunk) => log.push(chunk.toString()));
  const client = new Client({ name: options.name ?? 'toolhost-tests', version: '1.0.0' });
  await client.connect(transport);
  defer(t, async () => {
    await client.close();
    if (t.passed === false) process.stderr.write(`toolhost's log:\n${log.join('')}\n`);
    assertNoSanitizerReport(log);
  });
  return { client, transport, log };
}

// In the sanitizer build a leak found at exit or a report is on toolhost's stderr.
function assertNoSanitizerReport(log) {
  const text = log.join('');
  const report = text.match(/^.*(Sanitizer|runtime error:).*$/m);
  if (report) throw new Error(`toolhost's stderr has a sanitizer report: ${report[0]}\n${text}`);
}

// The text of a tools/call result (toolhost answers one text item).
export function text(result) {
  return result.content.map((item) => item.text).join('');
}

export function shell(command) {
  return { name: 'run_terminal_command', arguments: { command } };
}

// A process is gone when kill(pid, 0) fails or it is a zombie nobody reaped yet (PID 1 in a
// container may not reap).
export function isGone(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

// Resolves once `predicate()` holds, checked every `everyMs`; rejects at the hang guard.
export function until(predicate, what, everyMs = 20) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      if (predicate()) {
        clearInterval(timer);
        resolve();
      } else if (Date.now() - started > HANG_GUARD_MS) {
        clearInterval(timer);
        reject(new Error(`still waiting for ${what} after ${HANG_GUARD_MS} ms`));
      }
    }, everyMs);
  });
}

// A hang guard for a promise.
export function within(promise, what) {
  let timer;
  const guard = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${HANG_GUARD_MS} ms`)),
      HANG_GUARD_MS);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

// `toolhost mcp serve` on raw pipes, for what no SDK sends: garbage, huge lines, deep nesting.
// send() writes one line; next() resolves with the next JSON line the server writes.
export function rawServer(t, paths, extraArgs = []) {
  const child = spawn(toolhost, ['mcp', 'serve', ...extraArgs], {
    cwd: paths.root,
    env: serverEnv(paths),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const log = [];
  child.stderr.on('data', (chunk) => log.push(chunk.toString()));
  const lines = [];
  const waiters = [];
  createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) => {
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  defer(t, async () => {
    child.stdin.end();
    const { code, signal } = await within(exited, 'toolhost mcp serve exiting at EOF');
    if (t.passed === false) process.stderr.write(`toolhost's log:\n${log.join('')}\n`);
    assertNoSanitizerReport(log);
    if (code !== 0 || signal !== null) {
      throw new Error(`toolhost mcp serve ended with ${signal ?? `exit code ${code}`} at EOF`);
    }
  });
  const next = () =>
    within(
      new Promise((resolve) => {
        if (lines.length) resolve(lines.shift());
        else waiters.push(resolve);
      }),
      'the next line from toolhost mcp serve',
    ).then((line) => JSON.parse(line));
  const write = (data) =>
    new Promise((resolve, reject) => child.stdin.write(data, (e) => (e ? reject(e) : resolve())));
  const send = (message) =>
    write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  return { child, send, write, next, exited, log };
}

export const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'raw-tests', version: '1' },
  },
};
