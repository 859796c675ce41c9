#!/bin/bash
# `toolhost mcp list` and `toolhost mcp call` against the reference MCP server,
# @modelcontextprotocol/server-everything, over Streamable HTTP (`node dist/index.js
# streamableHttp` on a free port, path /mcp) from tests/mcp/node_modules
# (scripts/install-test-node-deps installs it; $TOOLHOST_MCP_NODE_MODULES points elsewhere).
# Exits 77 (skipped) without Node.js or the package.
# Usage: everything_http_test.sh TOOLHOST_BINARY NODE_MODULES_DIR
set -u
toolhost=$1
modules=${TOOLHOST_MCP_NODE_MODULES:-$2}
server=$modules/@modelcontextprotocol/server-everything/dist/index.js

if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: the MCP client test needs Node.js 20 or newer"
  exit 77
fi
if [ ! -f "$server" ]; then
  echo "SKIP: $server is missing: run scripts/install-test-node-deps"
  exit 77
fi

tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# A free port (the server takes PORT=0 literally and would not say which it got), then the
# server's stderr read through a FIFO until it says it listens: no sleeping on a guess.
port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => {
  console.log(s.address().port); s.close(); })')
mkfifo "$tmp/stderr"
PORT=$port node "$server" streamableHttp >/dev/null 2>"$tmp/stderr" &
pid=$!
exec 3<"$tmp/stderr"
ready=0
while IFS= read -r -t 30 line <&3; do
  case $line in
    *"listening on port $port"*) ready=1; break ;;
  esac
done
if [ "$ready" != 1 ]; then
  echo "FAIL: server-everything did not listen on port $port"
  exit 1
fi
cat <&3 >/dev/null &  # keep reading its log, or it blocks once the pipe is full

cat >"$tmp/config.json" <<JSON
{"mcp": {"servers": {"everything": {"url": "http://127.0.0.1:$port/mcp",
                                    "headers": {"X-Test": "toolhost"}}}}}
JSON
run() {
  "$toolhost" mcp "$@" --config "$tmp/config.json" >"$tmp/out" 2>"$tmp/err"
  status=$?
}

run list everything
[ "$status" = 0 ] || fail "list exited $status: $(cat "$tmp/err")"
grep -q '^everything: mcp-servers/everything .*, MCP 2025-11-25, ' "$tmp/out" ||
  fail "list has no header naming the server and its revision: $(head -1 "$tmp/out")"
grep -q '^  everything__echo  Echoes back the input string$' "$tmp/out" ||
  fail "list has no everything__echo: $(cat "$tmp/out")"

run call everything echo '{"message":"hi"}'
[ "$status" = 0 ] || fail "call echo exited $status: $(cat "$tmp/err")"
[ "$(cat "$tmp/out")" = "Echo: hi" ] || fail "call echo printed: $(cat "$tmp/out")"

# Its progress arrives on the call's SSE stream before the answer.
run call everything trigger-long-running-operation '{"duration":1,"steps":2}'
[ "$status" = 0 ] || fail "the long-running call exited $status: $(cat "$tmp/err")"
grep -q '^Long running operation completed' "$tmp/out" ||
  fail "the long-running call printed: $(cat "$tmp/out")"
grep -q '^progress 1/2$' "$tmp/err" && grep -q '^progress 2/2$' "$tmp/err" ||
  fail "the long-running call showed no progress: $(cat "$tmp/err")"

run call everything get-sum '{"a":"x","b":2}'
[ "$status" = 1 ] || fail "get-sum with a string exited $status, not 1"

# Nothing listens on the next port: the handshake fails with a message, at once.
sed "s/:$port\//:1\//" "$tmp/config.json" >"$tmp/down.json"
"$toolhost" mcp list everything --config "$tmp/down.json" >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" = 2 ] || fail "an unreachable server exited $status, not 2"
grep -q 'cannot reach http://127.0.0.1:1/mcp' "$tmp/err" ||
  fail "an unreachable server said: $(cat "$tmp/err")"

if [ "$failures" -gt 0 ]; then
  exit 1
fi
echo "PASS: toolhost mcp list and call against server-everything over Streamable HTTP"
