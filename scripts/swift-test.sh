#!/bin/bash
# Runs `swift test ARGS...`, and when it fails, repeats the failures at the end of
# the output: CI logs keep only their tail, and a failure printed among hundreds of
# passing tests would otherwise be cut off.
set -uo pipefail
log=$(mktemp "${TMPDIR:-/tmp}/swift-test.XXXXXX")
trap 'rm -f "$log"' EXIT
"${SWIFT:-swift}" test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo
    echo "==> swift test $* failed (exit $status); its failures again:"
    grep -E "✘|error:|recorded an issue|Fatal error|ThreadSanitizer|AddressSanitizer|LeakSanitizer" "$log" | grep -v "^✘ Test run with" | head -60
fi
exit "$status"
