#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the module's pure decisions (suite "kpolicy"): the files
# vgpu.ko is built from, kmod/policy_vram.c and kmod/policy_sched.c,
# compiled in userspace against tests/unit/kshim/ (kmod/policy.h) with
# tests/unit/test_kpolicy.c's tables: normally and under ASan/UBSan
# ("kpolicy-asan"). Then deliberately broken copies of the policy (one
# operator changed each, "mutants") must make checks fail: a test that
# cannot fail proves nothing. Every check prints "PASS: suite: what" or
# "FAIL: suite: what: detail".
suite=kpolicy
. "$(dirname "$0")/lib.bash"

pass() { echo "PASS: $1: $2"; }
fail() { echo "FAIL: $1: $2: $3"; failures=$((failures + 1)); }

CC=${CC:-cc}
WARN=(-std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Itests/unit/kshim)
# shellcheck disable=SC2054 # one -fsanitize= argument
SAN=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
SRC=(kmod/policy_vram.c kmod/policy_sched.c)

# build SUITE OUT [FLAGS...] -- SOURCES...: one binary, a FAIL if it does not build.
build() {
	local suite=$1 out=$2
	shift 2
	if "$CC" "${WARN[@]}" "$@" -o "$out" > "$tmp/cc.err" 2>&1; then
		return 0
	fi
	fail "$suite" "test_kpolicy builds" "$(oneline "$tmp/cc.err")"
	return 1
}

# run SUITE BINARY: relay its lines under SUITE; a crash, a sanitizer
# report or no check at all is a FAIL of its own.
run() {
	local suite=$1 bin=$2 rc
	"$bin" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	sed "s/^\(PASS\|FAIL\): kpolicy: /\1: $suite: /" "$tmp/out"
	failures=$((failures + $(grep -c '^FAIL: ' "$tmp/out")))
	if [ "$(grep -c '^PASS: ' "$tmp/out")" -lt 50 ]; then
		fail "$suite" "test_kpolicy ran its checks" "$(grep -c '^PASS: ' "$tmp/out") passed: $(oneline "$tmp/err")"
	elif [ "$rc" -ne 0 ] && ! grep -q '^FAIL: ' "$tmp/out"; then
		fail "$suite" "test_kpolicy exits cleanly" "status $rc: $(oneline "$tmp/err")"
	elif [ -s "$tmp/err" ]; then
		fail "$suite" "test_kpolicy writes nothing on stderr" "$(oneline "$tmp/err")"
	else
		pass "$suite" "test_kpolicy exits with status $rc, stderr empty"
	fi
}

build kpolicy "$tmp/kp" tests/unit/test_kpolicy.c "${SRC[@]}" && run kpolicy "$tmp/kp"
build kpolicy-asan "$tmp/kp-asan" "${SAN[@]}" tests/unit/test_kpolicy.c "${SRC[@]}" &&
	run kpolicy-asan "$tmp/kp-asan"

# mutant FILE FROM TO WHAT: FILE with FROM (a fixed string, present once)
# replaced by TO must build and fail at least one check.
mutant() {
	local file=$1 from=$2 to=$3 what=$4 copy n
	copy=$tmp/$(basename "$file")
	if [ "$(grep -cF -- "$from" "$file")" -ne 1 ]; then
		fail kpolicy-mutants "$what" "'$from' is not in $file exactly once (the policy changed: update the mutant)"
		return
	fi
	FROM=$from TO=$to awk '{ i = index($0, ENVIRON["FROM"]); if (i) $0 = substr($0, 1, i - 1) ENVIRON["TO"] substr($0, i + length(ENVIRON["FROM"])); print }' \
		"$file" > "$copy"
	local srcs=()
	for s in "${SRC[@]}"; do
		if [ "$s" = "$file" ]; then srcs+=("$copy"); else srcs+=("$s"); fi
	done
	if ! "$CC" "${WARN[@]}" -Ikmod -o "$tmp/mut" tests/unit/test_kpolicy.c "${srcs[@]}" \
		> "$tmp/cc.err" 2>&1; then
		fail kpolicy-mutants "$what" "the mutant does not build: $(oneline "$tmp/cc.err")"
		return
	fi
	"$tmp/mut" > "$tmp/mut.out" 2>&1
	n=$(grep -c '^FAIL: ' "$tmp/mut.out")
	if [ "$n" -gt 0 ]; then
		pass kpolicy-mutants "$what: caught by $n checks ($(grep -m1 '^FAIL: ' "$tmp/mut.out" | cut -c1-120))"
	else
		fail kpolicy-mutants "$what" "no check failed"
	fi
}

mutant kmod/policy_sched.c 'return priority > best_priority ||' 'return priority < best_priority ||' \
	"the pick prefers the lower class"
mutant kmod/policy_sched.c '(s64)(vtime - best_vtime) < 0' '(s64)(vtime - best_vtime) <= 0' \
	"a tie goes to the later waiter"
mutant kmod/policy_sched.c '*budget = min_t(s64, *budget + (s64)k * quota, quota);' '*budget = quota;' \
	"debt is forgiven at each period"
mutant kmod/policy_sched.c 'if (idle && (h->best || h->capped))' 'if (idle && h->best)' \
	"an idle capped holder keeps the GPU"
mutant kmod/policy_vram.c 'return bytes > room && bytes <= limit;' 'return bytes > room && bytes < limit;' \
	"a charge of exactly the limit is refused without a look"
mutant kmod/policy_vram.c 'u64 others = v->held - v->hold;' 'u64 others = v->held;' \
	"the bucket's own hold counts as others'"
mutant kmod/policy_vram.c 'left = left > keep_free ? left - keep_free : 0;' 'left = left + 0 * keep_free;' \
	"a resume takes the room a waiting charge wants"
mutant kmod/policy_vram.c '&& reserve <= left;' '&& reserve <= left + reserve;' \
	"a resume promises a reservation it cannot give"

[ "$failures" -eq 0 ]
