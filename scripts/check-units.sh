#!/bin/bash
# Checks the systemd units shipped in scripts/systemd: every service and timer
# passes `systemd-analyze verify` with no message at all (an unknown key or a bad
# calendar only warns), and every service's exposure in `systemd-analyze security
# --offline=true` is at most 5.0 (Litestream's unit scores 6.0).
# Usage: scripts/check-units.sh DBTOOL_BINARY
set -euo pipefail
binary=$(realpath "$1")
units=$(mktemp -d)
trap 'rm -rf "$units"' EXIT
status=0
for template in scripts/systemd/*@.service scripts/systemd/*@.timer; do
    name=$(basename "$template")
    instance=${name/@./@var-lib-app-db.}
    # verify loads the binary of ExecStart=: point it at the one just built.
    sed "s|/usr/bin/dbtool|$binary|" "$template" > "$units/$name"
    cp "$units/$name" "$units/$instance"
done
for unit in "$units"/*@var-lib-app-db.*; do
    messages=$(cd "$units" && systemd-analyze verify --man=no "./$(basename "$unit")" 2>&1) || true
    if [ -n "$messages" ]; then
        echo "scripts/systemd/$(basename "${unit/@var-lib-app-db./@.}"): systemd-analyze verify says:"
        echo "$messages"
        status=1
    fi
done
for service in "$units"/*@.service; do
    name=$(basename "$service")
    if ! systemd-analyze security --offline=true --threshold=50 "$service" > "$units/security.txt" 2>&1; then
        echo "scripts/systemd/$name: exposure over 5.0 in systemd-analyze security:"
        grep -E '✗|Overall' "$units/security.txt"
        status=1
    else
        echo "scripts/systemd/$name: $(grep -o 'exposure level.*' "$units/security.txt")"
    fi
done
exit $status
