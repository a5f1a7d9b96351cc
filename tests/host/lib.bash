# SPDX-License-Identifier: GPL-2.0
# Sourced by a host suite after it sets suite=NAME, the word its lines
# carry. Gives: the shell's strict mode without -e (a failed check is
# counted, not fatal); top, the repository, as the working directory; tmp,
# a directory removed at exit; pass WHAT and fail WHAT DETAIL, which print
# "PASS: NAME: WHAT" or "FAIL: NAME: WHAT: DETAIL" and count failures;
# check WHAT DETAIL CMD... (pass if CMD succeeds); oneline FILE [BYTES],
# the file's start on one line. A suite whose lines name several suites
# defines its own pass and fail after sourcing this.
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top" || exit 1
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass() { echo "PASS: $suite: $1"; }
fail() { echo "FAIL: $suite: $1: $2"; failures=$((failures + 1)); }
check() {
	local what=$1 detail=$2

	shift 2
	if "$@"; then pass "$what"; else fail "$what" "$detail"; fi
}
oneline() { head -c "${2:-400}" "$1" | tr '\n' '|'; }
