#!/bin/bash
# The client the MCP conformance suite drives (`conformance client --command "THIS TOOLHOST"`):
# it appends the test server's URL and names the scenario in $MCP_CONFORMANCE_SCENARIO. Each
# scenario goes through toolhost's real client path, `toolhost mcp list` / `toolhost mcp call`
# with a config file naming that URL, as a user's configured HTTP server would.
# Usage: conformance_client.sh TOOLHOST_BINARY URL
set -eu
toolhost=$1
url=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '{"mcp": {"servers": {"conformance": {"url": "%s"}}}}\n' "$url" >"$tmp/config.json"
mcp() { "$toolhost" mcp "$@" --config "$tmp/config.json"; }

case ${MCP_CONFORMANCE_SCENARIO:-} in
  initialize) mcp list conformance ;;
  tools_call) mcp call conformance add_numbers '{"a":2,"b":3}' ;;
  sse-retry) mcp call conformance test_reconnection '{}' ;;
  elicitation-sep1034-client-defaults) mcp call conformance test_client_elicitation_defaults '{}' ;;
  # What a user's first contact with an OAuth-protected server does; toolhost has no OAuth, so
  # these are expected failures (tests/mcp/conformance-expected-failures.yml says why).
  auth/*) mcp list conformance ;;
  *)
    echo "conformance_client.sh: no client behaviour for scenario '${MCP_CONFORMANCE_SCENARIO:-}'" >&2
    exit 2
    ;;
esac
