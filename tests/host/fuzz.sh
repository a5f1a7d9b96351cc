#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests by fuzzing (suite "fuzz"): the libFuzzer harnesses of
# tests/fuzz (the OCI hook's state and config.json, the configuration
# files, the HTTP requests of metrics --listen, SIZE, PERCENT and cpulist
# arguments), built with clang and -fsanitize=fuzzer,address,undefined
# (make -C tests/fuzz, into build/fuzz/):
# - each seed of tests/fuzz/corpus/TARGET runs without a crash, a leak,
#   undefined behaviour or a broken invariant (round trips, oracles: see
#   each harness's header);
# - then each harness fuzzes for VGPU_FUZZ_SECONDS (10) seconds, or
#   VGPU_FUZZ_RUNS inputs, VGPU_FUZZ_JOBS (the CPUs) at once; what it
#   finds new is kept in build/fuzz/corpus/TARGET for the next run, a
#   crash in build/fuzz/artifacts/TARGET/ and its report in
#   build/fuzz/logs/TARGET.log;
# - the harnesses catch a broken parser: two copies of ctl/ with a bug
#   put in (SIZE printed one unit off; the pod annotations' agreement
#   left unchecked) must each crash their harness on the seeds alone.
# Every check prints "PASS: fuzz: what" or "FAIL: fuzz: what: detail".
suite=fuzz
. "$(dirname "$0")/lib.bash"

oneline() { head -c "${2:-600}" "$1" | tr '\n' '|'; }

targets=(oci_state oci_config conf http size pct cpulist)
out=build/fuzz
CC=${FUZZ_CC:-clang}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# The longest input each harness makes (an HTTP request may pass 8192).
max_len() {
	case $1 in
	http) echo 10000 ;;
	conf | oci_config) echo 8192 ;;
	*) echo 256 ;;
	esac
}

if ! make -s -j"${VGPU_FUZZ_JOBS:-$(nproc)}" -C tests/fuzz CC="$CC" > "$tmp/make.out" 2>&1; then
	fail "the harnesses build with $CC -fsanitize=fuzzer,address,undefined" "$(oneline "$tmp/make.out")"
	exit 1
fi
pass "the ${#targets[@]} harnesses build with $CC -fsanitize=fuzzer,address,undefined"

# report TARGET LOG RC WHAT: PASS with the runs libFuzzer did, or FAIL
# with the first line of its report and where the input was saved.
report() {
	local t=$1 log=$2 rc=$3 what=$4 runs why art
	runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 runs in \2 s/p' "$log" | tail -n 1)
	if [ "$rc" -eq 0 ] && [ -n "$runs" ]; then
		pass "$t: $what: $runs, no crash"
		return
	fi
	why=$(grep -m 1 -E '^FUZZ-CHECK|^SUMMARY: |ERROR: ' "$log" | head -c 400)
	art=$(sed -n "s/.*Test unit written to \(.*\)/\1/p" "$log" | head -n 1)
	fail "$t: $what" "exit $rc: ${why:-$(tail -n 3 "$log" | tr '\n' '|')}${art:+ (input: $art; log: $log)}"
}

# fuzz TARGET: the seeds, then the fuzzing; its lines in $tmp/TARGET.res.
fuzz() {
	local t=$1 log=$out/logs/$1.log rc budget kept span
	mkdir -p "$out/corpus/$t" "$out/artifacts/$t"
	kept=$(find "$out/corpus/$t" -type f | wc -l)
	budget=(-max_total_time="${VGPU_FUZZ_SECONDS:-10}") span="${VGPU_FUZZ_SECONDS:-10} s"
	[ -z "${VGPU_FUZZ_RUNS:-}" ] || budget=(-runs="$VGPU_FUZZ_RUNS") span="$VGPU_FUZZ_RUNS runs"
	{
		"$out/fuzz_$t" -runs=0 -max_len="$(max_len "$t")" tests/fuzz/corpus/"$t" > "$log.seeds" 2>&1
		report "$t" "$log.seeds" $? "the $(find tests/fuzz/corpus/"$t" -type f | wc -l) seeds of tests/fuzz/corpus/$t"
		"$out/fuzz_$t" "${budget[@]}" -max_len="$(max_len "$t")" -timeout=10 \
			-artifact_prefix="$out/artifacts/$t/" -print_final_stats=1 \
			"$out/corpus/$t" tests/fuzz/corpus/"$t" > "$log" 2>&1
		rc=$?
		report "$t" "$log" "$rc" "fuzzing for $span from $kept kept inputs"
	} > "$tmp/$t.res"
}

mkdir -p "$out/logs"
jobs=${VGPU_FUZZ_JOBS:-$(nproc)}
for t in "${targets[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	fuzz "$t" &
done
wait
for t in "${targets[@]}"; do
	cat "$tmp/$t.res"
	failures=$((failures + $(grep -c '^FAIL: ' "$tmp/$t.res")))
done

# mutant NAME TARGET FILE SED SEED WANT: ctl/ copied with FILE edited by
# SED; TARGET's harness built on it must stop on SEED with WANT.
mutant() {
	local name=$1 t=$2 file=$3 script=$4 seed=$5 want=$6 dir=$out/mutant-$2 what
	what="a $name is caught: fuzz_$t crashes on the seed $(basename "$seed")"
	rm -rf "$dir" && mkdir -p "$dir"
	cp -r ctl uapi "$dir/"
	rm -f "$dir"/ctl/*/*.o "$dir"/ctl/*/*.d "$dir/ctl/vgpuctl"
	sed -i "$script" "$dir/ctl/$file"
	if cmp -s "ctl/$file" "$dir/ctl/$file"; then
		fail "$what" "the edit '$script' changed nothing in ctl/$file"
	elif ! make -s -C tests/fuzz CC="$CC" O="../../$dir" C="../../$dir/ctl" TARGETS="$t" \
		> "$tmp/make.out" 2>&1; then
		fail "$what" "$(oneline "$tmp/make.out")"
	elif "$dir/fuzz_$t" -runs=0 "$seed" > "$tmp/mut.out" 2>&1; then
		fail "$what" "it passed: the harness misses the bug"
	elif ! grep -q -- "$want" "$tmp/mut.out"; then
		fail "$what" "not with '$want': $(grep -m 1 -E '^FUZZ-CHECK|^SUMMARY' "$tmp/mut.out")"
	else
		pass "$what ($(grep -m 1 '^FUZZ-CHECK' "$tmp/mut.out" | sed 's/^FUZZ-CHECK [^ ]* //' | head -c 200))"
	fi
	rm -rf "$dir"
}
mutant "SIZE printed one unit off" size lib/parse.c \
	's|(unsigned long long)(bytes >> shift), units|(unsigned long long)(bytes >> shift) + 1, units|' \
	tests/fuzz/corpus/size/size-0 'prints as'
mutant "pod identity taken without the agreement check" oci_config oci/oci_pod.c \
	's|ret = check_agree(fam, t, what) ?: |ret = 0 * check_agree(fam, t, what) ?: |' \
	tests/fuzz/corpus/oci_config/crio-forged-cri.json 'the pod taken "billing"'

[ "$failures" -eq 0 ]
