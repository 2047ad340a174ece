#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# install-deps.sh - installs the packages of tools/scripts/packages.txt that are missing, with apt-get.
#
#   tools/scripts/install-deps.sh [--fuzz]
#
# Without --fuzz, the packages not marked "fuzz"; with it, all of them. One
# dpkg-query call finds what is missing; apt-get installs it (no recommended
# packages), as root or through sudo. Exits 0 when everything is installed.
# The ./ebfarm wrapper runs this only when its stamp says the list changed.
set -euo pipefail

here=${BASH_SOURCE[0]%/*}
[ "$here" != "${BASH_SOURCE[0]}" ] || here=.
list=$here/packages.txt

log() { printf 'ebfarm: %s\n' "$*" >&2; }

fuzz=0
case "${1:-}" in
--fuzz) fuzz=1 ;;
'') ;;
*)
    log "install-deps.sh: unknown argument '$1' (allowed: --fuzz)"
    exit 2
    ;;
esac

# The package names of the list: a name, optionally "fuzz", then a comment.
packages=()
while read -r name tag rest; do
    case "$name" in '' | '#'*) continue ;; esac
    case "$tag" in
    '' | '#'*) ;;
    fuzz) [ "$fuzz" = 1 ] || continue ;;
    *)
        log "$list: '$name $tag': after a package name only 'fuzz' or a comment may follow"
        exit 2
        ;;
    esac
    packages+=("$name")
done <"$list"

# One query for all: a line "NAME STATUS" per known package (twice for a
# package installed for two architectures); unknown names print nothing.
declare -A installed=()
while read -r name status; do
    [ "$status" = "install ok installed" ] && installed[$name]=1
done < <(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null || true)

missing=()
for p in "${packages[@]}"; do
    [ -n "${installed[$p]:-}" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

log "installing ${missing[*]}"
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq >&2
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
