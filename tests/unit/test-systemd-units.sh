#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-systemd-units.sh - systemd-analyze verify accepts the unit templates (systemd/), with not one warning.
#
# $1: the build directory's systemd/ (the copies whose ExecStart is the
# build's daemon). Skipped (77) where systemd-analyze is not installed.
# The man pages are not installed where this runs: --man=no. Checks that the check can fail: a copy with an unknown key is reported.
set -u
dir=$1
command -v systemd-analyze >/dev/null || { echo "systemd-analyze not installed: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
for kind in readout sfc node; do
    unit=$dir/build-ebfarm-$kind@.service
    [ -r "$unit" ] || { echo "FAIL: $unit is missing"; rc=1; continue; }
    grep -q "^ExecStart=/.*/ebfarm-$kind \$EBFARM_EAL_ARGS -- \$EBFARM_ARGS --name=%i\$" "$unit" ||
        { echo "FAIL: $unit: ExecStart is not the $kind daemon's"; rc=1; }
    cp "$unit" "$tmp/ebfarm-$kind@.service"
    out=$(systemd-analyze verify --man=no "$tmp/ebfarm-$kind@t1.service" 2>&1)
    if [ $? -ne 0 ] || [ -n "$out" ]; then
        echo "FAIL: systemd-analyze verify ebfarm-$kind@t1.service: $out"
        rc=1
    fi
    sed 's/^Type=exec$/Type=exec\nNoSuchKey=1/' "$unit" >"$tmp/ebfarm-bad$kind@.service"
    out=$(systemd-analyze verify --man=no "$tmp/ebfarm-bad$kind@t1.service" 2>&1)
    case $out in
    *"Unknown key 'NoSuchKey'"*) ;;
    *) echo "FAIL: an unknown key in ebfarm-$kind@ went unreported: $out"; rc=1 ;;
    esac
done
[ $rc -eq 0 ] && echo "ok: ebfarm-readout@, ebfarm-sfc@, ebfarm-node@ verify clean"
exit $rc
