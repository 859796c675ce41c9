// The agents issue's "done when", with the official TypeScript SDK's client and a real headless
// Neovim: `toolhost mcp serve`, started as Claude Code starts it in the project Neovim serves,
// relays each call to Neovim's host; the call shows up in the buffer `toolhost://agent/claude-code`,
// runs at once or waits for :ToolRun / :ToolReject there, and streams its output to both sides.
// Every wait is on an event or a bounded poll of what Neovim shows; no sleep stands for timing.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, serverEnv, shell, tempRoot, text, toolhost, until, within } from './helpers.mjs';
import { startNeovim, untilAgent } from './neovim.mjs';

const CLIENT = 'claude-code';

// Neovim serving a fresh project root, and the agent's server started there with Neovim's
// environment (the same XDG_RUNTIME_DIR, where the host's registry is).
async function agentWithNeovim(t, files = {}) {
  const paths = tempRoot(t);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(paths.root, name), content);
  const neovim = await startNeovim(t, paths.root);
  const agent = await connect(t, paths, [], { env: neovim.env, name: CLIENT });
  // Relayed, not run headless (which would answer the calls that need no approval too).
  await until(() => agent.log.join('').includes(`relaying to the Neovim host (pid `),
    "toolhost mcp serve saying it relays to Neovim's host");
  return { paths, neovim, ...agent };
}

// A call whose promise says whether it has settled yet.
function tracked(promise) {
  const call = { settled: false };
  call.promise = promise.finally(() => (call.settled = true));
  call.promise.catch(() => {});
  return call;
}

// Waits until the agent's buffer holds a call awaiting approval, with its hint.
function untilAwaiting(neovim, command) {
  return untilAgent(neovim, CLIENT,
    (s) => s.awaiting === 1 && s.lines.includes(command) &&
      s.diagnostics.some((d) => d.startsWith('? run_terminal_command awaiting approval')),
    `\`${command}\` awaiting approval in the agent's buffer`);
}

// The lines of the last result block in the buffer: its header and body.
function lastResult(lines) {
  const start = lines.findLastIndex((line) => line.startsWith('````result '));
  if (start < 0) return null;
  const end = lines.indexOf('````', start + 1);
  return { header: lines[start], body: lines.slice(start + 1, end) };
}

const asks = (notes) => notes.filter((n) => n.message.includes(`${CLIENT} asks: `));

test('tools/list relayed to Neovim shows toolhost\'s tools', async (t) => {
  const { neovim, client } = await agentWithNeovim(t);
  const printed = JSON.parse(execFileSync(toolhost, ['tools', '--format', 'mcp'], { env: neovim.env }));

  const { tools } = await within(client.listTools(), 'tools/list');
  assert.deepEqual(tools.map((tool) => tool.name), printed.map((tool) => tool.name));
  assert.ok(tools.some((tool) => tool.name === 'run_terminal_command'));
});

test('an allow-listed ls runs at once; its message and result are in the agent\'s buffer', async (t) => {
  const { neovim, client } = await agentWithNeovim(t, { 'notes.txt': 'hello\n' });

  const result = await within(client.callTool(shell('ls')), 'ls');
  assert.notEqual(result.isError, true, text(result));
  assert.match(text(result), /notes\.txt/);

  const state = await untilAgent(neovim, CLIENT, (s) => lastResult(s.lines) !== null,
    "ls's result block in the agent's buffer");
  assert.match(state.lines[0], new RegExp(`${CLIENT} is connected through \`toolhost mcp serve\``));
  assert.ok(state.lines.includes(`${CLIENT} calls run_terminal_command:`), state.lines.join('\n'));
  assert.ok(state.lines.some((line) => line.includes('`ls`')), state.lines.join('\n'));
  const block = lastResult(state.lines);
  assert.match(block.header, /tool=run_terminal_command status=succeeded exit=0/);
  assert.ok(block.body.includes('notes.txt'), block.body.join('\n'));
  assert.equal(state.awaiting, 0);
  assert.deepEqual(asks(await neovim.notes()), [], 'ls asked for approval');
});

test('rm waits for :ToolRun in the agent\'s buffer, with a notification, then runs and answers', async (t) => {
  const { paths, neovim, client } = await agentWithNeovim(t, { 'victim.txt': 'delete me\n' });
  const victim = join(paths.root, 'victim.txt');

  const call = tracked(client.callTool(shell('rm victim.txt && echo removed')));
  await untilAwaiting(neovim, 'rm victim.txt && echo removed');
  assert.equal(call.settled, false, 'the call answered while it awaited approval');
  assert.ok(existsSync(victim), 'rm ran before it was approved');
  const notes = asks(await neovim.notes());
  assert.equal(notes.length, 1, JSON.stringify(notes));
  // One line of 68 cells: the command, without the commands' hint (agents_notice_test.cc).
  assert.equal(notes[0].message, 'toolhost: claude-code asks: rm victim.txt && echo removed');

  assert.equal(await neovim.inAgentBuffer(CLIENT, 'ToolRun'), true);
  const result = await within(call.promise, 'rm after :ToolRun');
  assert.notEqual(result.isError, true, text(result));
  assert.match(text(result), /removed/);
  assert.ok(!existsSync(victim), 'rm did not run');
  const state = await untilAgent(neovim, CLIENT, (s) => s.awaiting === 0 && lastResult(s.lines),
    "rm's result block in the agent's buffer");
  assert.match(lastResult(state.lines).header, /status=succeeded exit=0/);
});

test('an approved slow command streams its lines as progress and into Neovim', async (t) => {
  const { neovim, client } = await agentWithNeovim(t);
  const command = 'for i in 1 2 3 4 5; do echo line$i; sleep 0.2; done';

  const progress = [];
  const call = tracked(client.callTool(shell(command), undefined, {
    onprogress: (p) => progress.push(p),
  }));
  await untilAwaiting(neovim, command);
  assert.equal(call.settled, false);
  const approved = Date.now();
  assert.equal(await neovim.inAgentBuffer(CLIENT, 'ToolRun'), true);
  const result = await within(call.promise, 'the slow command');
  const seconds = (Date.now() - approved) / 1000;

  assert.notEqual(result.isError, true, text(result));
  assert.match(text(result), /line1\nline2\nline3\nline4\nline5/);
  assert.ok(progress.length >= 1, 'no progress notification');
  assert.ok(progress.length <= seconds * 4 + 1, `${progress.length} notifications in ${seconds} s`);
  const streamed = progress.flatMap((p) => p.message.split('\n'));
  for (const line of streamed) assert.match(line, /^line[1-5]$/, JSON.stringify(progress));
  for (const [i, p] of progress.entries()) assert.equal(p.progress, i + 1, 'progress must rise');

  // In Neovim: the lines were shown under the block while it ran (ToolhostJobOutput says so),
  // and the result block holds them all.
  const state = await untilAgent(neovim, CLIENT, (s) => s.shown.length > 0 && lastResult(s.lines),
    "the slow command's streamed lines and result block");
  for (const line of state.shown) assert.match(line, /^line[1-5]$/);
  const block = lastResult(state.lines);
  assert.match(block.header, /status=succeeded exit=0/);
  for (let i = 1; i <= 5; i++) assert.ok(block.body.includes(`line${i}`), block.body.join('\n'));
});

test(':ToolReject with a reason gives the agent an isError result with it; the file stays', async (t) => {
  const { paths, neovim, client } = await agentWithNeovim(t, { 'keep.txt': 'keep me\n' });

  const call = tracked(client.callTool(shell('rm keep.txt')));
  await untilAwaiting(neovim, 'rm keep.txt');
  assert.equal(await neovim.inAgentBuffer(CLIENT, 'ToolReject too risky'), true);
  const result = await within(call.promise, 'rm keep.txt after :ToolReject');

  assert.equal(result.isError, true, text(result));
  assert.match(text(result), /too risky/);
  assert.ok(existsSync(join(paths.root, 'keep.txt')), 'the rejected rm ran');
  const state = await untilAgent(neovim, CLIENT, (s) => s.awaiting === 0 && lastResult(s.lines),
    "the rejected call's result block");
  assert.match(lastResult(state.lines).header, /status=rejected/);
  assert.ok(lastResult(state.lines).body.join('\n').includes('too risky'));
});

test('the agent closing while a call waits ends the call in Neovim and the server exits', async (t) => {
  const { paths, neovim, client, transport } = await agentWithNeovim(t, { 'keep.txt': 'keep me\n' });
  const server = transport._process; // the SDK's child: its exit is the event to wait on
  const exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));

  const call = tracked(client.callTool(shell('rm keep.txt')));
  await untilAwaiting(neovim, 'rm keep.txt');
  // The SDK closes the server's stdin, and sends SIGTERM only if it is still there 2 s later.
  await within(client.close(), 'the client closing');
  const { code, signal } = await within(exited, 'toolhost mcp serve exiting');
  assert.equal(signal, null, 'toolhost mcp serve had to be killed');
  assert.equal(code, 0);
  await assert.rejects(call.promise);

  const state = await untilAgent(neovim, CLIENT, (s) => s.awaiting === 0 && lastResult(s.lines),
    "the abandoned call's result block");
  assert.ok(lastResult(state.lines).body.join('\n').includes('the agent disconnected'),
    state.lines.join('\n'));
  assert.ok(existsSync(join(paths.root, 'keep.txt')), 'the abandoned rm ran');
});

test('the agent aborting a waiting call ends it in Neovim unrun, and the next call goes on', async (t) => {
  const { paths, neovim, client } = await agentWithNeovim(t, { 'keep.txt': 'keep me\n' });

  const abort = new AbortController();
  const call = tracked(client.callTool(shell('rm keep.txt'), undefined, { signal: abort.signal }));
  await untilAwaiting(neovim, 'rm keep.txt');
  abort.abort('the user pressed Esc');
  await assert.rejects(call.promise, /Esc|abort/i);

  // Neovim applies the host's feedback in slices: the hint goes in a later one than the block.
  const state = await untilAgent(neovim, CLIENT, (s) => s.awaiting === 0 && lastResult(s.lines) &&
    !s.diagnostics.some((d) => d.includes('awaiting approval')),
  "the aborted call's result block, and its hint gone");
  assert.ok(lastResult(state.lines).body.join('\n').includes('the user pressed Esc'),
    state.lines.join('\n'));
  assert.ok(existsSync(join(paths.root, 'keep.txt')), 'the aborted rm ran');
  const after = await within(client.callTool(shell('ls')), 'ls after the abort');
  assert.match(text(after), /keep\.txt/);
});

test('the headless tests\' server relays to no Neovim of the user running them, even one serving a parent of their root', async (t) => {
  const paths = tempRoot(t);
  const neovim = await startNeovim(t, paths.dir);
  const socket = join(neovim.registry, `${neovim.hostPid}.sock`);
  // The user's environment: the Neovim's XDG directories, once with $TOOLHOST_SOCKET naming it.
  for (const users of [neovim.env, { ...neovim.env, TOOLHOST_SOCKET: socket }]) {
    const { log } = await connect(t, paths, [], { env: serverEnv(paths, users) });
    await until(() => /no Neovim serves|relaying/.test(log.join('')), 'toolhost mcp serve choosing');
    assert.match(log.join(''), /no Neovim serves/);
  }
});
