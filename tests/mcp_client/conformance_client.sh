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
here=$(cd "$(dirname "$0")" && pwd)
# What a user would write for this server: its url, and for the auth scenarios the `oauth`
# settings the scenario hands over in $MCP_CONFORMANCE_CONTEXT (a pre-registered client, a
# machine's client credentials: a secret, or a private key, which goes into a file only the user
# can read, named by private_key_file) plus the client ID metadata document toolhost would
# publish. The suite's Node writes the JSON ($TOOLHOST_TEST_NODE, set by conformance_test.sh).
"${TOOLHOST_TEST_NODE:-node}" -e '
  const fs = require("fs");
  const [url, scenario, context, dir] = process.argv.slice(1);
  const server = { url };
  if (scenario.startsWith("auth/")) {
    const given = context ? JSON.parse(context) : {};
    server.oauth = { client_metadata_url: "https://conformance-test.local/client-metadata.json" };
    if (given.client_id) server.oauth.client_id = given.client_id;
    if (given.client_secret) server.oauth.client_secret = given.client_secret;
    if (given.private_key_pem) {
      const file = dir + "/client-key.pem";
      fs.writeFileSync(file, given.private_key_pem, { mode: 0o600 });
      server.oauth.private_key_file = file;
      if (given.signing_algorithm) server.oauth.algorithm = given.signing_algorithm;
    }
    if (scenario.startsWith("auth/client-credentials")) server.oauth.grant = "client_credentials";
  }
  console.log(JSON.stringify({ mcp: { servers: { conformance: server } } }));
' "$url" "${MCP_CONFORMANCE_SCENARIO:-}" "${MCP_CONFORMANCE_CONTEXT:-}" "$tmp" >"$tmp/config.json"
# The sign-in's browser fetches the URL and follows the redirects; the tokens land in a state
# directory of this run only.
export BROWSER="$here/fetch_browser.sh"
export XDG_STATE_HOME="$tmp/state"
mcp() { "$toolhost" mcp "$@" --config "$tmp/config.json"; }

case ${MCP_CONFORMANCE_SCENARIO:-} in
  initialize) mcp list conformance ;;
  tools_call) mcp call conformance add_numbers '{"a":2,"b":3}' ;;
  sse-retry) mcp call conformance test_reconnection '{}' ;;
  elicitation-sep1034-client-defaults) mcp call conformance test_client_elicitation_defaults '{}' ;;
  # A user's first contact with a server that needs sign-in: the call signs in, then runs.
  # Step-up: listing needs one scope, calling another.
  auth/scope-step-up | auth/scope-retry-limit) mcp call conformance test-tool '{}' ;;
  auth/*) mcp list conformance ;;
  *)
    echo "conformance_client.sh: no client behaviour for scenario '${MCP_CONFORMANCE_SCENARIO:-}'" >&2
    exit 2
    ;;
esac
