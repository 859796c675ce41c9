#!/bin/sh
# `toolhost mcp list` and `toolhost mcp call` against the reference MCP server,
# @modelcontextprotocol/server-everything, started on stdio from tests/mcp/node_modules
# (everything_lib.sh: what the HTTP test does alike, and the skips).
# Usage: everything_test.sh TOOLHOST_BINARY NODE_MODULES_DIR
set -u
. "$(dirname "$0")/everything_lib.sh"

cat >"$tmp/config.json" <<JSON
{"mcp": {"servers": {"everything": {"command": "node", "args": ["$server", "stdio"]}}}}
JSON

check_list_and_calls

run call everything no-such-tool
[ "$status" = 1 ] || fail "an unknown tool exited $status, not 1: $(cat "$tmp/err")"

run call nowhere echo
[ "$status" = 2 ] || fail "an unknown server exited $status, not 2"
grep -q 'no MCP server named "nowhere" (configured: everything)' "$tmp/err" ||
  fail "an unknown server said: $(cat "$tmp/err")"

finish "toolhost mcp list and call against server-everything"
