#!/bin/bash
# What a test run may leave behind, and must not: the processes the tests
# start (tmux servers of the completion tests, the S3-API server, the helper
# processes, Litestream) and the tests-* directories of the temp directory.
#
#   scripts/leftovers.sh record FILE   notes what is there before the run
#   scripts/leftovers.sh check FILE    fails, listing pids and paths, when
#                                      the run left any of them behind
set -uo pipefail
pattern='tmux -L dbtool-tests-|s3-test-server\.py|moto_server|TestWorkload|litestream (replicate|restore)'
temp="${TMPDIR:-/tmp}"

current() {
    pgrep -f -a -- "$pattern" | grep -v -- "leftovers.sh" | awk '{print "process " $0}'
    find "$temp" -maxdepth 1 -name 'tests-*' -printf 'directory %p\n' 2>/dev/null
}

case "${1:-}" in
record)
    current | sort > "$2"
    ;;
check)
    # What ends on its own gets a moment (a server closing its sockets).
    for _ in 1 2 3 4 5; do
        left=$(comm -13 "$2" <(current | sort))
        [ -z "$left" ] && exit 0
        sleep 1
    done
    echo "==> The tests left these behind (each test must end what it starts):"
    echo "$left"
    exit 1
    ;;
*)
    echo "usage: $0 record|check FILE" >&2
    exit 64
    ;;
esac
