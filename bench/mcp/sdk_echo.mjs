// P8's baseline (SPEC 13.6): the official TypeScript SDK's client calling server-everything's
// `echo` on its own server, as toolhost does from a chat buffer.
//   node sdk_echo.mjs NODE_MODULES SEQUENTIAL QUEUED
// Prints one JSON line: {sequential_ms: [...], queued_ms, queued, ok}. The client runs in this
// process; the server is a child on stdio, started as toolhost starts it (node index.js stdio).
import { pathToFileURL } from "node:url";

const [modules, sequentialArg, queuedArg] = process.argv.slice(2);
const sdk = `${modules}/@modelcontextprotocol/sdk/dist/esm/client`;
const { Client } = await import(pathToFileURL(`${sdk}/index.js`).href);
const { StdioClientTransport } = await import(pathToFileURL(`${sdk}/stdio.js`).href);

const server = `${modules}/@modelcontextprotocol/server-everything/dist/index.js`;
const transport = new StdioClientTransport({ command: "node", args: [server, "stdio"], stderr: "ignore" });
const client = new Client({ name: "toolhost-bench-p8", version: "1" });
await client.connect(transport);

let ok = 0;
async function echo(message) {
  const result = await client.callTool({ name: "echo", arguments: { message } });
  if (!result.isError && result.content?.[0]?.text === `Echo: ${message}`) ok += 1;
}

// A few calls warm up both ends first, as on toolhost's side.
for (let i = 0; i < 5; i += 1) await echo(`warm ${i}`);
ok = 0;
const sequential = [];
for (let i = 0; i < Number(sequentialArg); i += 1) {
  const t0 = process.hrtime.bigint();
  await echo(`call ${i}`);
  sequential.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
const queued = Number(queuedArg);
const t0 = process.hrtime.bigint();
await Promise.all(Array.from({ length: queued }, (_, i) => echo(`queued ${i}`)));
const queuedMs = Number(process.hrtime.bigint() - t0) / 1e6;
await client.close();
process.stdout.write(`${JSON.stringify({ sequential_ms: sequential, queued_ms: queuedMs, queued, ok })}\n`);
