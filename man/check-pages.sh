#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# check-pages.sh - format every manual page with groff, all warnings on; fail on any warning, a non-ASCII byte or a .TH without the project's version.
#
#   check-pages.sh GROFF VERSION STAMP PAGE...
#
# Run by man/meson.build at build time; STAMP is written when every page passes.
set -euo pipefail

groff=$1 version=$2 stamp=$3
shift 3
bad=0
for page in "$@"; do
    out=$("$groff" -man -ww -z "$page" 2>&1) || true
    if [ -n "$out" ]; then
        printf '%s: groff warns:\n%s\n' "$page" "$out" >&2
        bad=1
    fi
    if LC_ALL=C grep -n '[^[:print:][:space:]]' "$page" >&2; then
        printf '%s: the lines above hold non-ASCII bytes (write \\(em, \\(aq, ... instead)\n' "$page" >&2
        bad=1
    fi
    if ! grep -q "^\.TH .* \"ebfarm $version\" " "$page"; then
        printf '%s: its .TH line does not name "ebfarm %s" (the project version)\n' "$page" "$version" >&2
        bad=1
    fi
done
[ "$bad" = 0 ] && : >"$stamp"
exit "$bad"
