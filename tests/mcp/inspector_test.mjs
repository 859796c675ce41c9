// `@modelcontextprotocol/inspector-cli`, as a user checks a server by hand (`npx
// @modelcontextprotocol/inspector --cli toolhost mcp serve --method ...`), run from
// node_modules without npx.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverEnv, tempRoot, toolhost, within } from './helpers.mjs';

const inspector = fileURLToPath(
  new URL('./node_modules/@modelcontextprotocol/inspector-cli/build/cli.js', import.meta.url));

// The inspector's stdout is the JSON answer; its stderr carries a deprecation notice.
function inspect(paths, ...args) {
  return within(new Promise((resolve, reject) => {
    execFile(process.execPath, [inspector, '--cli', toolhost, 'mcp', 'serve', ...args],
      { cwd: paths.root, env: serverEnv(paths), maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`inspector failed: ${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout));
      });
  }), `inspector ${args.join(' ')}`);
}

function rootFor(t) {
  const paths = tempRoot(t);
  // inspector-cli 1.0.3 checks for "../package.json" from the current directory but imports it
  // from its own build/: without one above the root it cannot read its own version.
  writeFileSync(join(paths.dir, 'package.json'), '{}\n');
  return paths;
}

test('the inspector lists toolhost\'s tools', async (t) => {
  const paths = rootFor(t);
  const { tools } = await inspect(paths, '--method', 'tools/list');
  const names = tools.map((tool) => tool.name);
  for (const name of ['run_terminal_command', 'read_file', 'list_directory', 'delete_file']) {
    assert.ok(names.includes(name), `${name} missing from ${names}`);
  }
  const readFile = tools.find((tool) => tool.name === 'read_file');
  assert.equal(readFile.annotations.readOnlyHint, true);
  assert.equal(readFile.inputSchema.properties.start_line.type, 'integer');
});

test('the inspector calls read_file with typed --tool-arg values', async (t) => {
  const paths = rootFor(t);
  writeFileSync(join(paths.root, 'a.txt'), 'alpha\nbeta\ngamma\n');
  const result = await inspect(paths, '--method', 'tools/call', '--tool-name', 'read_file',
    '--tool-arg', 'path=a.txt', 'start_line=2', 'end_line=2');
  assert.equal(result.isError, false);
  assert.equal(result.content[0].type, 'text');
  assert.match(result.content[0].text, /beta/);
  assert.doesNotMatch(result.content[0].text, /alpha|gamma/);
});
