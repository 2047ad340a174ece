#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-wrapper.sh - the repo-root ./ebfarm wrapper with fake dpkg-query, apt-get, meson and ninja: what it runs and prints.
#
#   tests/unit/test-wrapper.sh SOURCE_ROOT
#
# Copies the wrapper and tools/scripts/ into a scratch root, puts fakes that
# record their arguments first in PATH and checks, call by call: the package
# check on a fresh build directory (one dpkg-query for the whole list), no
# check while the stamp matches, a check and an install when the list
# changes or fuzz needs more, a failed install, quiet no-op builds, a failed
# build, a failed meson setup, and the "tests: ..." closing line.
set -euo pipefail

src=${1:?usage: test-wrapper.sh SOURCE_ROOT}
unset EBFARM_WERROR   # set only where a check asks for it
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
build=$tmp/build
fake=$tmp/bin
calls=$tmp/calls
mkdir -p "$root/tools/scripts" "$fake"
cp "$src/ebfarm" "$root/"
cp "$src"/tools/scripts/{packages.txt,install-deps.sh,fuzz.sh} "$root/tools/scripts/"

# fake NAME BODY: a script in the fake bin that logs "NAME ARGS" first.
fake() {
    printf '#!/usr/bin/env bash\necho "%s $*" >>"%s"\n%s\n' "$1" "$calls" "$2" >"$fake/$1"
    chmod +x "$fake/$1"
}
fake id 'echo 1000'
fake sudo 'exec "$@"'
# Every name asked for is installed, except those in FAKE_MISSING.
fake dpkg-query 'for p; do
    case "$p" in -*) continue ;; esac
    case " ${FAKE_MISSING:-} " in *" $p "*) ;; *) echo "$p install ok installed" ;; esac
done'
fake apt-get '[ "$1" = install ] && exit "${FAKE_APT_RC:-0}"; exit 0'
fake ninja '[ -n "${FAKE_NINJA_FAIL:-}" ] && { echo "FAILED: x.o"; echo "x.c:1: error: y"; exit 1; }
echo "ninja: no work to do."'
fake meson 'if [ "$1" = setup ]; then
    [ -n "${FAKE_SETUP_FAIL:-}" ] && exit 1
    mkdir -p "$2/tools" "$2/meson-logs" && : >"$2/build.ninja"
    printf "#!/bin/sh\necho \"bin \$*\" >>%s\n" "'"$calls"'" >"$2/tools/ebfarm"
    chmod +x "$2/tools/ebfarm"
elif [ "$1" = test ]; then
    printf "%s\n" "${FAKE_TESTLOG:-}" >"$3/meson-logs/testlog.json"
    exit "${FAKE_TEST_RC:-0}"
fi'

failures=0
# run ARGS...: the wrapper from the scratch root; sets out, err, rc, got
# (the calls it made, one a line).
run() {
    : >"$calls"
    rc=0
    PATH=$fake:$PATH EBFARM_BUILD=$build "$root/ebfarm" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
    out=$(<"$tmp/out") err=$(<"$tmp/err") got=$(<"$calls")
}
# expect WHAT GOT WANT
expect() {
    if [ "$2" != "$3" ]; then
        printf 'FAIL %s:\n--- got\n%s\n--- want\n%s\n' "$1" "$2" "$3" >&2
        failures=$((failures + 1))
    fi
}

# The base list and the whole list, as dpkg-query is asked for them.
base=$(sed -e 's/#.*//' -e '/ fuzz *$/d' -e '/^ *$/d' -e 's/ *$//' "$root/tools/scripts/packages.txt" | tr '\n' ' ')
all=$(sed -e 's/#.*//' -e 's/ fuzz *$//' -e '/^ *$/d' -e 's/ *$//' "$root/tools/scripts/packages.txt" | tr '\n' ' ')
query="dpkg-query -W -f=\${Package} \${Status}\\n"
[[ " $base" != *" clang "* && " $all" == *" clang "* ]] ||
    expect "clang is in the list for fuzz only" "$base | $all" "no clang | clang"

# A fresh build directory, every package installed: one query, set-up, build.
EBFARM_WERROR=1 run status --json
expect "fresh: calls" "$got" "$query ${base% }
meson setup $build $root --werror
ninja --quiet -C $build
bin status --json"
expect "fresh: stderr" "$err" "ebfarm: configuring $build"
expect "fresh: rc" "$rc" 0
expect "fresh: stamp" "$(head -n 1 "$build/ebfarm-packages.stamp")" base

# The stamp matches: no package check, no set-up, nothing printed.
run demo --json
expect "stamp matches: calls" "$got" "ninja --quiet -C $build
bin demo --json"
expect "stamp matches: stderr" "$err" ""

# A package added to the list: checked and installed once, then not again.
echo "libnew-dev   # a new library" >>"$root/tools/scripts/packages.txt"
FAKE_MISSING=libnew-dev run status
expect "list changed: calls" "$got" "$query ${base}libnew-dev
id -u
sudo apt-get update -qq
apt-get update -qq
sudo apt-get install -y -qq --no-install-recommends libnew-dev
apt-get install -y -qq --no-install-recommends libnew-dev
ninja --quiet -C $build
bin status"
expect "list changed: stderr" "$err" "ebfarm: installing libnew-dev"
run status
expect "list changed, then: calls" "$got" "ninja --quiet -C $build
bin status"

# fuzz needs the fuzz-only packages too: one query for all; then fuzz.sh,
# which refuses 0 s. The fuzz stamp stands for base as well.
run fuzz 0
expect "fuzz: calls" "$got" "$query ${all}libnew-dev"
expect "fuzz: stderr" "$err" "ebfarm: fuzz: SECONDS must be a positive number of seconds, not '0'"
expect "fuzz: rc" "$rc" 2
run fuzz 0
expect "fuzz again: calls" "$got" ""
run status
expect "after fuzz: calls" "$got" "ninja --quiet -C $build
bin status"

# An install that fails: nothing built or run, and the stamp stays old, so
# the next run checks again.
echo "libbad-dev" >>"$root/tools/scripts/packages.txt"
FAKE_MISSING=libbad-dev FAKE_APT_RC=100 run status
expect "install fails: rc" "$rc" 1
expect "install fails: last call" "${got##*$'\n'}" "apt-get install -y -qq --no-install-recommends libbad-dev"
expect "install fails: stderr" "$err" "ebfarm: installing libbad-dev
ebfarm: installing the packages of $root/tools/scripts/packages.txt failed"
run status
expect "after a failed install: calls" "$got" "$query ${base}libnew-dev libbad-dev
ninja --quiet -C $build
bin status"

# A failed build shows ninja's output and runs nothing.
FAKE_NINJA_FAIL=1 run status
expect "build fails: rc" "$rc" 1
expect "build fails: calls" "$got" "ninja --quiet -C $build"
expect "build fails: stderr" "$err" "FAILED: x.o
x.c:1: error: y
ebfarm: build failed in $build"

# test: meson test without a second build, then the closing line from
# meson's log; a key "result" in a test's environment does not count.
log_line() { printf '{"name": "%s", "stdout": "say \\"result\\": \\"FAIL\\"", "result": "%s", "env": {"result": "FAIL"}}' "$1" "$2"; }
FAKE_TEST_RC=1 FAKE_TESTLOG="$(log_line a OK)
$(log_line b EXPECTEDFAIL)
$(log_line c FAIL)
$(log_line d SKIP)
$(log_line e TIMEOUT)" run test --suite unit
expect "test: calls" "$got" "ninja --quiet -C $build
meson test -C $build --no-rebuild --print-errorlogs --suite unit"
expect "test: summary" "$out" "tests: 2 passed, 2 failed, 1 skipped"
expect "test: rc" "$rc" 1
FAKE_TESTLOG="$(log_line a OK)" run test
expect "test, none skipped: summary" "$out" "tests: 1 passed, 0 failed"
expect "test, none skipped: rc" "$rc" 0

# --sanitize: its own build directory, the unit suites only.
FAKE_TESTLOG="$(log_line a OK)" run test --sanitize
expect "sanitize: calls" "$got" "meson setup $build-sanitize $root -Db_sanitize=address,undefined -Db_lundef=false
ninja --quiet -C $build-sanitize
meson test -C $build-sanitize --no-rebuild --print-errorlogs --suite unit"

# A failed meson setup removes the stamp: the next run checks again.
rm -rf "$build" "$build-sanitize"
run status
FAKE_SETUP_FAIL=1 run test --sanitize
expect "setup fails: rc" "$rc" 1
expect "setup fails: stderr" "$err" "ebfarm: configuring $build-sanitize
ebfarm: configuring $build-sanitize failed (the next run checks the packages again)"
expect "setup fails: stamp gone" "$(ls "$build")" "build.ninja
meson-logs
tools"

if [ "$failures" -ne 0 ]; then
    echo "test-wrapper: $failures checks failed" >&2
    exit 1
fi
echo "test-wrapper: all checks passed"
