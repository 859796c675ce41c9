#!/bin/bash
# `toolhost mcp list` and `toolhost mcp call` against the reference MCP server,
# @modelcontextprotocol/server-everything, over Streamable HTTP (`node dist/index.js
# streamableHttp` on a free port, path /mcp) from tests/mcp/node_modules
# (everything_lib.sh: what the stdio test does alike, and the skips).
# Usage: everything_http_test.sh TOOLHOST_BINARY NODE_MODULES_DIR
set -u
. "$(dirname "$0")/everything_lib.sh"

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
check_list_and_calls

# Nothing listens on the next port: the handshake fails with a message, at once.
sed "s/:$port\//:1\//" "$tmp/config.json" >"$tmp/down.json"
"$toolhost" mcp list everything --config "$tmp/down.json" >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" = 2 ] || fail "an unreachable server exited $status, not 2"
grep -q 'cannot reach http://127.0.0.1:1/mcp' "$tmp/err" ||
  fail "an unreachable server said: $(cat "$tmp/err")"

finish "toolhost mcp list and call against server-everything over Streamable HTTP"
