// What no SDK sends, written as raw lines to `toolhost mcp serve`: every bad message gets a
// clear error, and the connection stays for the next one.
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { initialize, rawServer, tempRoot } from './helpers.mjs';

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
// src/jsonrpc/line_splitter.h's kMaxMessageBytes: a longer line is dropped as it arrives.
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

// A server past the handshake.
async function ready(t, args = []) {
  const paths = tempRoot(t);
  const server = rawServer(t, paths, args);
  await server.send(initialize);
  const answer = await server.next();
  assert.equal(answer.id, 0);
  assert.equal(answer.result.serverInfo.name, 'toolhost');
  await server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { ...server, paths };
}

async function stillAnswers(server, id) {
  await server.send({ jsonrpc: '2.0', id, method: 'ping' });
  assert.deepEqual(await server.next(), { jsonrpc: '2.0', id, result: {} });
}

function call(id, name, args) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

test('malformed JSON is a parse error, and the next request is answered', async (t) => {
  const server = await ready(t);
  await server.send('{"jsonrpc": "2.0", "id": 1, "method": "ping"');
  const answer = await server.next();
  assert.equal(answer.error.code, PARSE_ERROR);
  assert.equal(answer.id, null);
  await stillAnswers(server, 2);
});

test('a 100 MB line is dropped with a parse error naming the 64 MiB cap; the connection stays', async (t) => {
  const server = await ready(t);
  const huge = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(100 * 1024 * 1024)}"}}`;
  await server.send(huge);
  const answer = await server.next();
  assert.equal(answer.error.code, PARSE_ERROR);
  assert.equal(answer.id, null, 'the dropped line was not parsed for its id');
  assert.match(answer.error.message, new RegExp(`over ${MAX_MESSAGE_BYTES} bytes was dropped`));
  await stillAnswers(server, 2);
});

test('nesting 10,000 deep is refused before it is walked, and the server lives', async (t) => {
  const server = await ready(t);
  const deep = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":${'['.repeat(10000)}${']'.repeat(10000)}}}`;
  await server.send(deep);
  const answer = await server.next();
  assert.equal(answer.error.code, PARSE_ERROR);
  assert.match(answer.error.message, /nested deeper than/);
  await stillAnswers(server, 2);
});

test('a batch is refused (MCP has none since 2025-06-18), and the server goes on', async (t) => {
  const server = await ready(t);
  await server.send('[{"jsonrpc":"2.0","id":1,"method":"ping"}]');
  const answer = await server.next();
  assert.equal(answer.error.code, INVALID_REQUEST);
  assert.match(answer.error.message, /batch/);
  await stillAnswers(server, 2);
});

test('an unknown method is "method not found"', async (t) => {
  const server = await ready(t);
  await server.send({ jsonrpc: '2.0', id: 'x1', method: 'tools/dance' });
  const answer = await server.next();
  assert.equal(answer.id, 'x1');
  assert.equal(answer.error.code, METHOD_NOT_FOUND);
  assert.match(answer.error.message, /tools\/dance/);
});

test('a request before initialize is refused, and initialize still works after it', async (t) => {
  const server = rawServer(t, tempRoot(t));
  await server.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  const refused = await server.next();
  assert.equal(refused.id, 1);
  assert.equal(refused.error.code, INVALID_REQUEST);
  assert.match(refused.error.message, /initialize/);
  await server.send(initialize);
  assert.equal((await server.next()).result.serverInfo.name, 'toolhost');
  await server.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  assert.ok((await server.next()).result.tools.length > 0);
});

test('arguments of the wrong type are an isError result naming the parameter', async (t) => {
  const server = await ready(t);
  await server.send(call(1, 'read_file', { path: 42 }));
  const answer = await server.next();
  assert.equal(answer.id, 1);
  assert.equal(answer.result.isError, true);
  assert.match(answer.result.content[0].text, /path/);
  await server.send(call(2, 'read_file', { path: 'a', start_line: 'one' }));
  const second = await server.next();
  assert.equal(second.result.isError, true);
  assert.match(second.result.content[0].text, /start_line/);
});

test('an unknown tool is a JSON-RPC error naming it', async (t) => {
  const server = await ready(t);
  await server.send(call(1, 'launch_rockets', {}));
  const answer = await server.next();
  assert.equal(answer.id, 1);
  assert.equal(answer.error.code, INVALID_PARAMS);
  assert.match(answer.error.message, /launch_rockets/);
});

test('a path outside the root is an isError result, and nothing is read or written', async (t) => {
  const server = await ready(t, ['--approve', 'all']);
  writeFileSync(join(server.paths.dir, 'secret.txt'), 'do not show\n');
  const calls = [
    call(1, 'read_file', { path: '../secret.txt' }),
    call(2, 'read_file', { path: join(server.paths.dir, 'secret.txt') }),
    call(3, 'create_or_replace_file', { path: '../escape.txt', content: 'out' }),
    call(4, 'run_terminal_command', { command: 'cat secret.txt', cwd: '..' }),
  ];
  for (const request of calls) {
    await server.send(request);
    const answer = await server.next();
    assert.equal(answer.id, request.id);
    assert.equal(answer.result.isError, true, JSON.stringify(request.params));
    assert.match(answer.result.content[0].text, /outside the project root/);
    assert.doesNotMatch(answer.result.content[0].text, /do not show/);
  }
  assert.ok(!existsSync(join(server.paths.dir, 'escape.txt')), 'a file was written outside the root');
});
