// A long call as an agent lives it: progress while it runs, cancel, and the agent going away.
// The slow commands sleep inside the child; the tests wait on events only.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, isGone, shell, tempRoot, text, until, within } from './helpers.mjs';

// Starts `sleep 30` in the background, writes its pid, says "ready" and waits for it: the sleep
// is a grandchild of toolhost, which must end it with the shell.
const SLEEPER = 'sleep 30 & echo $! > sleep.pid; echo ready; wait';
// The same, deaf to SIGTERM (an ignored signal stays ignored across fork and exec).
const DEAF_SLEEPER = `trap '' TERM; ${SLEEPER}`;

test('a slow command streams its last lines as progress, at most 4 a second', async (t) => {
  const paths = tempRoot(t);
  const { client } = await connect(t, paths, ['--approve', 'all']);
  const progress = [];
  const started = Date.now();
  const result = await within(
    client.callTool(
      shell('for i in $(seq 1 12); do echo line $i; sleep 0.1; done'),
      undefined,
      { onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true },
    ),
    'the slow command',
  );
  const seconds = (Date.now() - started) / 1000;

  assert.notEqual(result.isError, true, text(result));
  assert.match(text(result), /line 12/);
  assert.ok(progress.length >= 1, 'no progress notification');
  assert.ok(progress.length <= seconds * 4 + 1,
    `${progress.length} progress notifications in ${seconds} s`);
  for (const [i, p] of progress.entries()) {
    assert.equal(p.progress, i + 1, 'progress must rise');
    assert.match(p.message, /^line \d+/, 'a notification carries the last lines');
    assert.ok(p.message.split('\n').length <= 5, p.message);
  }
});

test('an aborted call ends its command, and the server goes on', async (t) => {
  const paths = tempRoot(t);
  const { client } = await connect(t, paths, ['--approve', 'all']);
  const abort = new AbortController();
  let sawReady;
  const ready = new Promise((resolve) => (sawReady = resolve));
  const call = client.callTool(shell(SLEEPER), undefined, {
    signal: abort.signal,
    onprogress: (p) => { if (/ready/.test(p.message)) sawReady(); },
  });
  call.catch(() => {});
  await within(ready, 'the sleeper starting');
  const pid = Number(readFileSync(join(paths.root, 'sleep.pid'), 'utf8'));
  assert.ok(!isGone(pid), 'the sleep is not running');

  abort.abort('the user pressed Esc');
  await assert.rejects(call, /Esc|abort/i);
  await until(() => isGone(pid), `sleep (pid ${pid}) ending after the cancel`);
  const after = await within(
    client.callTool({ name: 'list_directory', arguments: { path: '.' } }),
    'a call after the cancel',
  );
  assert.match(text(after), /sleep\.pid/);
});

test('the agent going away mid-call ends toolhost mcp serve and its command, even one deaf to SIGTERM', async (t) => {
  const paths = tempRoot(t);
  const { client, transport } = await connect(t, paths, ['--approve', 'all']);
  const server = transport._process; // the SDK's child: its exit is the event to wait on
  const exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));
  let sawReady;
  const ready = new Promise((resolve) => (sawReady = resolve));
  const call = client.callTool(shell(DEAF_SLEEPER), undefined, {
    onprogress: (p) => { if (/ready/.test(p.message)) sawReady(); },
  });
  call.catch(() => {});
  await within(ready, 'the sleeper starting');
  const pid = Number(readFileSync(join(paths.root, 'sleep.pid'), 'utf8'));

  // As an agent that quits: its end of the pipe closes; no signal is sent.
  server.stdin.end();
  const { code, signal } = await within(exited, 'toolhost mcp serve exiting at EOF');
  assert.equal(signal, null, 'toolhost mcp serve had to be killed');
  assert.equal(code, 0);
  await until(() => isGone(pid), `sleep (pid ${pid}) ending with the server`);
  await assert.rejects(call);
});
