#!/usr/bin/env bash
# `make demo` without a terminal shows the whole loop (SPEC 4): a reply arrives, the read-only
# calls run by themselves, the chain stops at the call that needs approval, and after the
# approval it goes on to the end. Usage: demo_test.sh SOURCE_DIR TOOLHOST_BINARY
set -euo pipefail
source_dir=$1
out=$(TOOLHOST_BINARY=$2 "$source_dir/scripts/demo" </dev/null 2>&1)
expect() {
  if ! grep -qF -- "$1" <<<"$out"; then
    echo "demo output lacks: $1"
    echo "$out"
    exit 1
  fi
}
expect "---- the chain stopped at: ? run_terminal_command awaiting approval (<leader>tr run, <leader>tx reject)"
expect "✓ Read: \`notes.md\`"
expect "✓ Executed: \`wc -l notes.md\`"
expect "---- after <leader>tr (:ToolRun) approved it, the chain went on: ToolhostAllDone"
expect "step 5 of 5"
expect "✓ Executed: \`ls -la\`"
if grep -qE "toolhost exited|Error detected" <<<"$out"; then
  echo "the demo reported an error:"
  echo "$out"
  exit 1
fi
echo "demo: the chain ran, stopped for approval and went on"
