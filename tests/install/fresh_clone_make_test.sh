#!/usr/bin/env bash
# Installs toolhost as a plugin manager does (lazy.nvim's `build = "make"`): a fresh clone of
# HEAD, then plain `make` as an ordinary user, with GoogleTest and Google Benchmark hidden from
# CMake. `make` must stop early with a short message when a library is missing, build only
# build/toolhost (Release) otherwise, never call sudo or apt-get, and do nothing the second time.
# usage: tests/install/fresh_clone_make_test.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
git -C "$source_dir" rev-parse --verify -q HEAD >/dev/null || { echo "not a git checkout: skipped"; exit 77; }
work=$(mktemp -d /tmp/toolhost-install-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

git clone -q "$source_dir" "$work/toolhost"
chmod 755 "$work"
mkdir -m 777 "$work/calls" "$work/home"
mkdir "$work/bin" "$work/empty"
# A sudo and an apt-get that only record being called.
for tool in sudo apt-get; do
  printf '#!/bin/sh\necho "%s $*" >>"%s/calls/log"\nexit 1\n' "$tool" "$work" >"$work/bin/$tool"
  chmod +x "$work/bin/$tool"
done

# As root, build as `nobody`: a plugin manager runs `make` as the user.
as_user=()
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  chown -R 65534:65534 "$work/toolhost" "$work/home"
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
# The user's own `make`, not one inheriting ctest's or an outer make's settings.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES BUILD JOBS CMAKE_FLAGS
user_make() {
  (cd "$work/toolhost" && env HOME="$work/home" PATH="$work/bin:$PATH" "$@" "${as_user[@]}" make)
}

# 1. A missing library stops `make` before CMake, with the message of scripts/check-build-deps.
if out=$(user_make PKG_CONFIG_LIBDIR="$work/empty" 2>&1); then fail "make succeeded without libuv"; fi
case $out in
  "toolhost: cannot build, missing: libuv"*"apt-get install libuv1-dev"*) ;;
  *) fail "unexpected output without libuv:
$out" ;;
esac
[ "$(printf '%s\n' "$out" | wc -l)" -le 3 ] || fail "more than a short message without libuv:
$out"
[ ! -e "$work/toolhost/build" ] || fail "make configured a build without libuv"

# 2. Plain `make`, the test and benchmark frameworks hidden: only the binary, Release.
hidden="-DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON"
start=$(date +%s)
user_make CMAKE_FLAGS="$hidden" >"$work/make.log" 2>&1 || { tail -30 "$work/make.log"; fail "make failed"; }
seconds=$(($(date +%s) - start))
build="$work/toolhost/build"
version=$(sed -n 's/^return "\(.*\)"$/\1/p' "$work/toolhost/lua/toolhost/version.lua")
[ "$("$build/toolhost" --version)" = "toolhost $version" ] || fail "build/toolhost --version: $("$build/toolhost" --version)"
grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$build/CMakeCache.txt" || fail "not a Release build"
grep -q '^TOOLHOST_TESTS:BOOL=OFF$' "$build/CMakeCache.txt" || fail "tests configured"
! grep -i 'gtest' "$build/CMakeCache.txt" | grep -qv '^CMAKE_DISABLE_FIND_PACKAGE_GTest:' ||
  fail "CMake looked for GoogleTest"
[ ! -e "$build/tests" ] || fail "a tests directory was built: $(ls "$build/tests")"
extra=$(cd "$build" && find . -type f -perm -u+x ! -name toolhost ! -path './CMakeFiles/*')
[ -z "$extra" ] || fail "more than the binary was built: $extra"
[ ! -e "$work/calls/log" ] || fail "make called $(cat "$work/calls/log")"

# The binary users get is linked statically where the archives exist (P7: idle RSS); it must
# run the whole loop through Neovim as the test build does.
if ldd "$build/toolhost" >/dev/null 2>&1; then linked=dynamic; else linked=static; fi
# libcurl and libcrypto are loaded when first needed (src/jsonrpc/curl_api.h,
# src/mcp/crypto_api.h): named among the binary's NEEDED libraries, every idle host would map
# them and what they need (P7).
if command -v readelf >/dev/null 2>&1; then
  needed=$(readelf -d "$build/toolhost" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  case " $needed" in
    *" libcurl"* | *" libcrypto"* | *" libssl"*) fail "build/toolhost needs at its start: $needed" ;;
  esac
fi
"$source_dir/tests/demo/demo_test.sh" "$work/toolhost" "$build/toolhost" >"$work/demo.log" 2>&1 ||
  { cat "$work/demo.log"; fail "the demo loop failed with the $linked build/toolhost"; }

# 3. `make` again rebuilds nothing.
user_make CMAKE_FLAGS="$hidden" >"$work/again.log" 2>&1 || { cat "$work/again.log"; fail "second make failed"; }
! grep -qE 'Building|Linking|Configuring' "$work/again.log" || fail "the second make rebuilt: $(cat "$work/again.log")"

# The size the README states is the size users get (it once said 1.4 MB of a 4.1 MB binary).
bytes=$(stat -c %s "$build/toolhost")
stated=$(grep -o '`build/toolhost`, a [0-9.]* MB' "$source_dir/README.md" | grep -o '[0-9.]*' | head -1)
[ -n "$stated" ] || fail "README.md does not state the size of build/toolhost"
awk -v b="$bytes" -v s="$stated" 'BEGIN { r = b / (s * 1e6); exit !(r > 0.85 && r < 1.15) }' ||
  fail "README.md says build/toolhost is $stated MB; it is $bytes bytes"

echo "make from a fresh clone: ${seconds} s, build/toolhost: $(stat -c %s "$build/toolhost") bytes, $linked"
