// Many calls at once, and a flood of output: every request is answered, and answered right.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, shell, tempRoot, text, within } from './helpers.mjs';

const LONG = { timeout: 120_000 };

test('20 calls in parallel each get their own answer', async (t) => {
  const paths = tempRoot(t);
  for (let i = 0; i < 10; i++) writeFileSync(join(paths.root, `file${i}.txt`), `content of file ${i}\n`);
  const { client } = await connect(t, paths, ['--approve', 'all']);

  const calls = [];
  for (let i = 0; i < 10; i++) {
    calls.push(client.callTool({ name: 'read_file', arguments: { path: `file${i}.txt` } }, undefined, LONG));
    calls.push(client.callTool(shell(`echo answer ${i}`), undefined, LONG));
  }
  const results = await within(Promise.all(calls), '20 parallel calls');
  for (let i = 0; i < 10; i++) {
    const [file, echo] = [results[2 * i], results[2 * i + 1]];
    assert.notEqual(file.isError, true, text(file));
    assert.match(text(file), new RegExp(`content of file ${i}\\b`));
    assert.notEqual(echo.isError, true, text(echo));
    assert.match(text(echo), new RegExp(`answer ${i}\\b`));
    assert.doesNotMatch(text(echo), /answer \d+[\s\S]*answer \d+/, 'one call, one answer');
  }
});

test('1,000 pings and read_file calls sent at once are all answered', async (t) => {
  const paths = tempRoot(t);
  writeFileSync(join(paths.root, 'small.txt'), 'small\n');
  const { client, transport } = await connect(t, paths);
  // The SDK waits for 'drain' once per message the pipe did not take at once: 1,000 waiters.
  transport._process.stdin.setMaxListeners(1100);

  const requests = [];
  for (let i = 0; i < 1000; i++) {
    requests.push(i % 2 === 0
      ? client.ping(LONG)
      : client.callTool({ name: 'read_file', arguments: { path: 'small.txt' } }, undefined, LONG));
  }
  const answers = await within(Promise.all(requests), '1,000 requests');
  assert.equal(answers.length, 1000);
  for (const [i, answer] of answers.entries()) {
    if (i % 2 === 0) {
      assert.deepEqual(answer, {});
    } else {
      assert.notEqual(answer.isError, true, text(answer));
      assert.match(text(answer), /small/);
    }
  }
});

// The peak resident memory of a process, in kB.
function peakRss(pid) {
  return Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+)/)[1]);
}

test('a command printing 50 MB ends with a capped result, and the server still answers', async (t) => {
  const paths = tempRoot(t);
  const { client, transport } = await connect(t, paths, ['--approve', 'all']);
  const before = peakRss(transport.pid);
  const progress = [];

  const result = await within(
    client.callTool(shell('yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 50000000; echo done'),
      undefined,
      { ...LONG, onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true }),
    'the flood',
  );
  assert.notEqual(result.isError, true, text(result).slice(0, 500));
  assert.ok(text(result).length < 1_000_000, `the result holds ${text(result).length} characters`);
  assert.match(text(result), /lines omitted/, 'the cut is said');
  assert.match(text(result), /done$/, 'the last lines are kept');
  for (const p of progress) assert.ok(p.message.length < 10_000, 'progress carries the last lines only');

  // 50 MB on one line: no line buffer grows with it.
  const line = await within(
    client.callTool(shell('head -c 50000000 /dev/zero | tr "\\0" x; echo; echo done'), undefined, LONG),
    'the one-line flood',
  );
  assert.notEqual(line.isError, true, text(line).slice(0, 500));
  assert.ok(text(line).length < 1_000_000, `the result holds ${text(line).length} characters`);
  assert.match(text(line), /1 lines omitted[\s\S]*done$/);

  assert.deepEqual(await within(client.ping(), 'a ping after the floods'), {});
  // toolhost keeps the last lines, not the output (about 5 MB more at the peak, 10 under ASan).
  const grown = peakRss(transport.pid) - before;
  assert.ok(grown < 25_000, `toolhost's peak RSS grew by ${grown} kB during 100 MB of output`);
});
