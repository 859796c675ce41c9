#!/usr/bin/env bash
# scripts/check-build-deps: silent when everything is installed; one short message naming the
# missing packages and the install command otherwise. A library goes missing the way it does
# for CMake: pkg-config pointed at an empty directory no longer knows libuv.
# usage: tests/install/check_build_deps_test.sh SOURCE_DIR
set -euo pipefail
check="$1/scripts/check-build-deps"
work=$(mktemp -d /tmp/toolhost-deps-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# An apt-get on PATH that must never run: the check only names the command.
mkdir "$work/bin" "$work/empty"
printf '#!/bin/sh\necho "apt-get ran" >&2\nexit 1\n' >"$work/bin/apt-get"
chmod +x "$work/bin/apt-get"
export PATH="$work/bin:$PATH"

out=$("$check" 2>&1) || fail "the check fails with everything installed: $out"
[ -z "$out" ] || fail "the check is not quiet with everything installed: $out"

if out=$(PKG_CONFIG_LIBDIR="$work/empty" "$check" 2>&1); then fail "libuv hidden, yet the check passed"; fi
sudo='sudo '
[ "$(id -u)" -ne 0 ] || sudo=
expected="toolhost: cannot build, missing: libuv
  install with: ${sudo}apt-get install libuv1-dev"
[ "$out" = "$expected" ] || fail "unexpected message:
$out
expected:
$expected"

if out=$(CXX=/nonexistent/c++ PKG_CONFIG_LIBDIR="$work/empty" "$check" 2>&1); then
  fail "no compiler, yet the check passed"
fi
case $out in
  *"missing: C++ compiler, libuv"*"apt-get install g++ libuv1-dev") ;;
  *) fail "unexpected message without a compiler: $out" ;;
esac

# install-deps installs what `make` needs from the same list.
debian=$("$check" --debian | tr '\n' ' ')
case $debian in
  "cmake g++ pkg-config libuv1-dev "*" libcli11-dev libseccomp-dev ") ;;
  *) fail "unexpected Debian list: $debian" ;;
esac
echo "ok"
