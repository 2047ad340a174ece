#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# fuzz.sh - builds the proto parser fuzz target with clang and runs libFuzzer on it (docs/fuzzing.md).
#
#   tools/scripts/fuzz.sh [SECONDS]     what `./ebfarm fuzz [SECONDS]` runs; default 60 s
#
# The target lives in its own build directory, EBFARM_BUILD-fuzz (default
# build-fuzz; clang, ASan, UBSan; -Werror with EBFARM_WERROR=1). Two runs
# over a copy of the committed corpus: each seed once (a seed that crashes
# fails at once), then libFuzzer for SECONDS. Runs, corpus and crash
# artifacts stay in the build directory. Prints one closing line,
# "fuzz: ok, ..." on stdout, and exits non-zero on any failure.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${EBFARM_BUILD:-$root/build}

log() { printf 'ebfarm: %s\n' "$*" >&2; }

# build DIR: configure DIR once for the fuzz target, then build only it.
build() {
    local dir=$1
    local opts=(-Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false)
    [ "${EBFARM_WERROR:-0}" = 1 ] && opts+=(--werror)
    if [ ! -f "$dir/build.ninja" ]; then
        log "configuring $dir"
        CC=clang meson setup "$dir" "$root" "${opts[@]}" >&2 ||
            { log "configuring $dir failed"; exit 1; }
    fi
    ninja --quiet -C "$dir" tests/fuzz/fuzz-proto 2>&1 |
        { grep -v '^ninja: no work to do\.$' >&2 || true; } ||
        { log "build failed in $dir"; exit 1; }
}

# fuzz_failed EXE WORK WHAT: name the saved input and how to replay it.
fuzz_failed() {
    local f
    log "fuzz: FAILED on $3 (crash, sanitizer report, leak or broken invariant)"
    for f in "$2"/artifacts/*; do
        [ -e "$f" ] && log "fuzz: input saved as $f; replay with: $1 $f"
    done
    exit 1
}

# fuzz_summary WORK SECS: one line from the job's log (executions, speed,
# coverage) and the grown corpus (inputs, bytes).
fuzz_summary() {
    find "$1/corpus" -maxdepth 1 -type f -printf '%s\n' |
        awk -v secs="$2" -v logfile="$1/fuzz-0.log" '
        function commas(s,   out) {
            out = ""
            while (length(s) > 3) {
                out = "," substr(s, length(s) - 2) out
                s = substr(s, 1, length(s) - 3)
            }
            return s out
        }
        !sizes && $1 == "stat::number_of_executed_units:" { units = $2 }
        !sizes && $1 == "stat::average_exec_per_sec:" { speed = $2 }
        !sizes && /^#[0-9]+[ \t]+[A-Za-z0-9_]+[ \t]+cov: [0-9]+ ft: [0-9]+ corp: / {
            cov = $4; ft = $6
        }
        sizes { files++; bytes += $1 }
        END {
            if (units == "" || speed == "" || cov == "") {
                printf "ebfarm: fuzz: no final statistics in %s\n", logfile > "/dev/stderr"
                exit 1
            }
            printf "fuzz: ok, %s s, %s executions (%s/s), cov: %s edges, ft: %s, ", \
                secs, commas(units), commas(speed), cov, ft
            printf "corpus: %d inputs (%s bytes), no crash\n", files, commas(sprintf("%.0f", bytes))
        }' "$1/fuzz-0.log" sizes=1 -
}

secs=${1:-60}
if ! [[ $secs =~ ^[1-9][0-9]*$ ]]; then
    log "fuzz: SECONDS must be a positive number of seconds, not '$secs'"
    exit 2
fi
dir=${build}-fuzz
build "$dir"

exe=$dir/tests/fuzz/fuzz-proto
work=$dir/fuzz-run
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
cp "$root"/tests/fuzz/corpus/* "$work/corpus/"
export ASAN_OPTIONS=detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}
common=(-error_exitcode=77 -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$work/artifacts/")

n=$(find "$work/corpus" -type f | wc -l)
log "fuzz: regression run over the $n committed seeds"
if ! "$exe" "${common[@]}" -runs=0 "$work/corpus" >"$work/regress.log" 2>&1; then
    cat "$work/regress.log" >&2
    fuzz_failed "$exe" "$work" "a committed seed in tests/fuzz/corpus"
fi

log "fuzz: fuzzing for $secs s (log: $work/fuzz-0.log)"
# One job, one worker: one core. The job's output goes to fuzz-0.log.
if ! (cd "$work" && "$exe" "${common[@]}" -max_total_time="$secs" -max_len=4096 \
        -jobs=1 -workers=1 -print_final_stats=1 -dict="$root/tests/fuzz/proto.dict" \
        corpus >"$work/fuzz.log" 2>&1); then
    tail -n 60 "$work/fuzz-0.log" >&2
    fuzz_failed "$exe" "$work" "a new input"
fi
fuzz_summary "$work" "$secs"
