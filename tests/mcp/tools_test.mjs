// The official TypeScript SDK's client lists toolhost's tools and calls them, headless (no
// Neovim): what runs at once, what needs approval, and `--approve all`.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, shell, tempRoot, text, toolhost, within } from './helpers.mjs';

test('tools/list shows the tools, schemas and hints that `toolhost tools --format mcp` prints', async (t) => {
  const paths = tempRoot(t);
  const { client } = await connect(t, paths);
  const printed = JSON.parse(execFileSync(toolhost, ['tools', '--format', 'mcp'], { cwd: paths.root }));
  const { tools } = await within(client.listTools(), 'tools/list');

  assert.deepEqual(tools.map((tool) => tool.name), printed.map((tool) => tool.name));
  for (const tool of tools) {
    const expected = printed.find((p) => p.name === tool.name);
    assert.deepEqual(tool.inputSchema, expected.inputSchema, tool.name);
    // The server lists annotations.title as the tool's `title` (which takes precedence in MCP).
    const { title, ...hints } = expected.annotations;
    assert.deepEqual(tool.annotations, hints, tool.name);
    assert.equal(tool.title, expected.title ?? title, tool.name);
    assert.equal(typeof tool.description, 'string');
  }
  const hints = (name) => tools.find((tool) => tool.name === name).annotations;
  assert.equal(hints('read_file').readOnlyHint, true);
  assert.equal(hints('read_file').destructiveHint, false);
  assert.equal(hints('run_terminal_command').readOnlyHint, false);
  assert.equal(hints('run_terminal_command').destructiveHint, true);
  assert.equal(hints('delete_file').destructiveHint, true);
  assert.deepEqual(tools.find((tool) => tool.name === 'read_file').inputSchema.required, ['path']);
});

test('an allow-listed command and read_file run at once and answer text', async (t) => {
  const paths = tempRoot(t);
  writeFileSync(join(paths.root, 'notes.txt'), 'first line\nsecond line\n');
  const { client } = await connect(t, paths);

  const [listing, file] = await within(
    Promise.all([
      client.callTool(shell('ls')),
      client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } }),
    ]),
    'ls and read_file',
  );
  assert.notEqual(listing.isError, true, text(listing));
  assert.equal(listing.content[0].type, 'text');
  assert.match(text(listing), /notes\.txt/);
  assert.notEqual(file.isError, true, text(file));
  assert.equal(file.content[0].type, 'text');
  assert.match(text(file), /first line/);
  assert.match(text(file), /second line/);
});

test('a command that needs approval is refused, saying approval needs Neovim, and does nothing', async (t) => {
  const paths = tempRoot(t);
  const victim = join(paths.root, 'x');
  writeFileSync(victim, 'keep me\n');
  const { client } = await connect(t, paths);

  const result = await within(client.callTool(shell('rm x')), 'rm x');
  assert.equal(result.isError, true);
  assert.match(text(result), /approval needs Neovim/);
  assert.match(text(result), /--approve all/);
  assert.ok(existsSync(victim), 'rm x ran without approval');
});

test('with --approve all a command that needs approval runs', async (t) => {
  const paths = tempRoot(t);
  const victim = join(paths.root, 'x');
  writeFileSync(victim, 'delete me\n');
  const { client } = await connect(t, paths, ['--approve', 'all']);

  const result = await within(client.callTool(shell('rm x && echo removed')), 'rm x');
  assert.notEqual(result.isError, true, text(result));
  assert.match(text(result), /removed/);
  assert.ok(!existsSync(victim), 'rm x did not run');
});

test('a failing command is an isError result with its output', async (t) => {
  const paths = tempRoot(t);
  const { client } = await connect(t, paths, ['--approve', 'all']);

  const result = await within(client.callTool(shell('echo oops >&2; exit 3')), 'exit 3');
  assert.equal(result.isError, true);
  assert.match(text(result), /oops/);
  assert.match(text(result), /3/);
});
