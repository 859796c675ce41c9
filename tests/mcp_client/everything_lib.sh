# What the server-everything tests share, sourced by everything_test.sh (stdio) and
# everything_http_test.sh (Streamable HTTP) with their arguments TOOLHOST_BINARY NODE_MODULES_DIR
# ($TOOLHOST_MCP_NODE_MODULES points elsewhere). POSIX sh.
# Sets toolhost (absolute: run() changes directory), server (its dist/index.js) and tmp (removed
# on exit, with the process $pid when a test starts one); exits 77 (skipped) without Node.js or
# the package (scripts/install-test-node-deps installs it).
toolhost=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
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
# Runs `toolhost mcp` with $tmp/config.json; its exit status in $status, stdout and stderr in
# $tmp/out and $tmp/err. The user's MCP files (~/.config/mcphub/servers.json, a .mcp.json here)
# are not the test's.
run() {
  (cd "$tmp" && HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/config" XDG_STATE_HOME="$tmp/state" \
    "$toolhost" mcp "$@" --config "$tmp/config.json" >"$tmp/out" 2>"$tmp/err")
  status=$?
}

# What both transports must do alike: list the server's tools, call echo, show a long call's
# progress (over HTTP it arrives on the call's SSE stream before the answer), and fail a call
# with bad arguments with 1.
check_list_and_calls() {
  run list everything
  [ "$status" = 0 ] || fail "list exited $status: $(cat "$tmp/err")"
  grep -q '^everything: mcp-servers/everything .*, MCP 2025-11-25, ' "$tmp/out" ||
    fail "list has no header naming the server and its revision: $(head -1 "$tmp/out")"
  grep -q '^  everything__echo  Echoes back the input string$' "$tmp/out" ||
    fail "list has no everything__echo: $(cat "$tmp/out")"
  grep -q '^  everything__get-sum  ' "$tmp/out" || fail "list has no everything__get-sum"

  run call everything echo '{"message":"hi"}'
  [ "$status" = 0 ] || fail "call echo exited $status: $(cat "$tmp/err")"
  [ "$(cat "$tmp/out")" = "Echo: hi" ] || fail "call echo printed: $(cat "$tmp/out")"

  run call everything trigger-long-running-operation '{"duration":1,"steps":2}'
  [ "$status" = 0 ] || fail "the long-running call exited $status: $(cat "$tmp/err")"
  grep -q '^Long running operation completed' "$tmp/out" ||
    fail "the long-running call printed: $(cat "$tmp/out")"
  grep -q '^progress 1/2$' "$tmp/err" && grep -q '^progress 2/2$' "$tmp/err" ||
    fail "the long-running call showed no progress: $(cat "$tmp/err")"

  run call everything get-sum '{"a":"x","b":2}'
  [ "$status" = 1 ] || fail "get-sum with a string exited $status, not 1"
  grep -q 'expected number, received string' "$tmp/out" ||
    fail "get-sum with a string printed: $(cat "$tmp/out")"
}

# The verdict: 1 after any failure, else `message` after PASS.
finish() {
  [ "$failures" -gt 0 ] && exit 1
  echo "PASS: $1"
}
