#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host suite: the benchmarks in a short mode that checks their own
# consistency (not their timings), and tests/realgpu/run (make
# realgpu-check) against simgpu, with what it must notice:
# - "bench": bench/gate-bench 100000 (every launch counted once on its GPU,
#   deferred marks no more driver calls than counted ones: its exit
#   status), bench/http-bench against vgpuctl metrics --listen for 1 s a
#   row beside 20 idle connections (every scrape answered), bench/vram-bench
#   pairs and vmmpairs on simgpu, bare and under libvgpu (each pair
#   succeeded, median <= p99), and those short modes built under ASan
#   and UBSan. The VM benchmarks (bench/vm-*.sh) are not
#   run: each is minutes of emulation.
# - "realgpu": the whole run on simgpu: the steps that can pass here pass,
#   the PyTorch ones and the stand-in WARN (never PASS), results.jsonl has
#   every RESULT; a libvgpu with cuMemAlloc's wrapper bypassed in
#   cuGetProcAddress makes procaddr FAIL naming it; no driver at all, a
#   driver older than the headers: WARN lines naming what is missing, the
#   other steps still run; a hung step is cut at the watchdog and the run
#   ends in time; --only runs the steps named.
# Every check prints "PASS: suite: what" or "FAIL: suite: what: detail".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
tmp=$(mktemp -d /tmp/realgpu-test.XXXXXX)
hpid=""
failures=0
trap '[ -z "$hpid" ] || kill "$hpid" 2> /dev/null; rm -rf "$tmp"' EXIT

pass() { echo "PASS: $1: $2"; }
fail() { echo "FAIL: $1: $2: $3"; failures=$((failures + 1)); }
oneline() { head -c 400 "$1" | tr '\n' '|'; }

for d in libvgpu tests/simgpu tests/clients bench ctl "libvgpu tests" tests/realgpu tests/realgpu/standin; do
	# shellcheck disable=SC2086 # "libvgpu tests": a directory and a target
	if ! make -s -C $d > "$tmp/build.log" 2>&1; then
		fail realgpu "build $d" "$(oneline "$tmp/build.log")"
		exit 1
	fi
done

# ---- the benchmarks, short ----
if bench/gate-bench 100000 > "$tmp/gate.out" 2> "$tmp/gate.err" &&
   grep -q '^added ' "$tmp/gate.out" && grep -q '^short kernels (5 us)' "$tmp/gate.out"; then
	pass bench "gate-bench 100000: every launch counted once on its GPU, deferred marks <= counted ($(awk '/^short kernels/ { print $5 " and " $6 }' "$tmp/gate.out") driver calls per 1000 5 us launches)"
else
	fail bench "gate-bench 100000" "$(oneline "$tmp/gate.err") $(oneline "$tmp/gate.out")"
fi

port=$((20000 + $$ % 20000))
ctl/vgpuctl metrics --listen "127.0.0.1:$port" 2> "$tmp/httpd.err" &
hpid=$!
if bench/http-bench "$port" 20 1 > "$tmp/http.out" 2> "$tmp/http.err" &&
   grep -q '^bare ' "$tmp/http.out" && grep -q '^beside 20 idle ' "$tmp/http.out"; then
	pass bench "http-bench, 1 s a row, beside 20 idle: every scrape answered ($(awk '$1 == "bare" { print $5 }' "$tmp/http.out") bare)"
else
	fail bench "http-bench short" "$(oneline "$tmp/http.err") $(oneline "$tmp/http.out")"
fi
kill "$hpid" 2> /dev/null
wait "$hpid" 2> /dev/null
hpid=""

# vram-bench MODE N SIZE [PRELOAD]: "MODE N size SIZE median_ns M p99_ns P", M <= P
vram_bench() {
	local out
	out=$(env ${4:+LD_PRELOAD=$4} LD_LIBRARY_PATH="$top/tests/simgpu" \
		SIMGPU_STATE="$tmp/sim.state" SIMGPU_CONFIG=/dev/null \
		bench/vram-bench "$1" "$2" "$3" 2> "$tmp/vram.err") || { echo "exit $?: $out"; return 1; }
	echo "$out" | awk -v m="$1" -v n="$2" '$1 == m && $2 == n && $5 == "median_ns" &&
		$7 == "p99_ns" && $6 > 0 && $6 <= $8 { ok = 1 } END { exit !ok }' || { echo "$out"; return 1; }
	echo "$out"
}
for pre in "" libvgpu/libvgpu.so; do
	for m in "pairs 500 1048576" "vmmpairs 200 2097152"; do
		# shellcheck disable=SC2086 # mode, count and size
		if out=$(vram_bench $m "$pre"); then
			pass bench "vram-bench $m on simgpu${pre:+ under libvgpu}: every round succeeded, median <= p99 ($out)"
		else
			fail bench "vram-bench $m on simgpu${pre:+ under libvgpu}" "$out $(oneline "$tmp/vram.err")"
		fi
	done
done

# The same short modes built under ASan and UBSan, with simgpu-client's
# new words (any report fails the run: -fno-sanitize-recover).
san="-fsanitize=address,undefined -fno-sanitize-recover=all -g -O1"
inc=${CUDA_INC:-$top/build/deps/cuda/include}
cflags="-std=gnu11 -Wall -Wextra -Werror -I$inc"
# libvgpu/sources.mk lists the gate's files (LIBVGPU_GATE).
gate_srcs=$(make -s --no-print-directory -C libvgpu -f sources.mk list-LIBVGPU_GATE)
# shellcheck disable=SC2086 # the flags are words
if ! { cc $cflags $san -o "$tmp/gate-asan" bench/gate-bench.c $gate_srcs -pthread &&
       cc $cflags $san -o "$tmp/vram-asan" bench/vram-bench.c -ldl &&
       cc $cflags -D_GNU_SOURCE -DCUDA_ENABLE_DEPRECATED $san -pthread -o "$tmp/client-asan" tests/clients/simgpu-client.c \
		tests/clients/cuload.c -ldl; } > "$tmp/asan.log" 2>&1; then
	fail bench "build under ASan/UBSan" "$(oneline "$tmp/asan.log")"
# (no leak check where simgpu is loaded: it keeps what a program
# unloads, simgpu.md "What it does not do", and LeakSanitizer reports
# lib_load's 16 bytes)
elif "$tmp/gate-asan" 100000 > /dev/null 2> "$tmp/asan.log" &&
     ASAN_OPTIONS=detect_leaks=0 LD_LIBRARY_PATH=$top/tests/simgpu SIMGPU_STATE=$tmp/sim.state \
	SIMGPU_CONFIG=/dev/null "$tmp/vram-asan" launches 100 5000 > /dev/null 2>> "$tmp/asan.log" &&
     ASAN_OPTIONS=detect_leaks=0 LD_LIBRARY_PATH=$top/tests/simgpu SIMGPU_STATE=$tmp/sim.state \
	SIMGPU_CONFIG=/dev/null "$tmp/client-asan" version , lookup cuMemAlloc 3020 2 , launch 10000 count 4 \
	> /dev/null 2>> "$tmp/asan.log"; then
	pass bench "under ASan/UBSan: gate-bench 100000, vram-bench launches, simgpu-client version, lookup and launch"
else
	fail bench "under ASan/UBSan" "$(oneline "$tmp/asan.log")"
fi

# ---- tests/realgpu/run on simgpu ----
# status OUT ID: the step's status in OUT's results.jsonl
status() { sed -n "s/^{\"id\":\"$2\",\"status\":\"\([A-Z]*\)\".*/\1/p" "$1/results.jsonl" | tr '\n' ' ' | sed 's/ $//'; }
# expect OUT WHAT ID=STATUS...: each step's status as given
expect() {
	local out=$1 what=$2 kv got bad=""
	shift 2
	for kv in "$@"; do
		got=$(status "$out" "${kv%%=*}")
		[ "$got" = "${kv#*=}" ] || bad+="${kv%%=*} $got (want ${kv#*=}); "
	done
	if [ -z "$bad" ]; then
		pass realgpu "$what"
	else
		fail realgpu "$what" "$bad"
	fi
}

t0=$SECONDS
REALGPU_OUT=$tmp/full tests/realgpu/run > "$tmp/full.log" 2>&1
rc=$?
secs=$((SECONDS - t0))
expect "$tmp/full" "the run on simgpu (exit $rc, $secs s): build, version, procaddr, dlsym, rt-entry (simgpu serves NVIDIA's runtime), same-results (both flavours) PASS; env, cost-alloc, cost-launch (3 kernel lengths), cost-gate INFO" \
	build=PASS env=INFO version=PASS procaddr=PASS dlsym=PASS rt-entry=PASS same-results=PASS \
	same-results-ptds=PASS cost-alloc=INFO "cost-launch=INFO INFO INFO" cost-gate=INFO
expect "$tmp/full" "on simgpu without PyTorch the six PyTorch steps, and nvidia-smi's view, are WARN, never PASS" \
	torch-matmul=WARN torch-graph=WARN torch-oom=WARN torch-oom-expandable=WARN \
	torch-oom-standin=WARN torch-oom-expandable-standin=WARN standin-view-smi=WARN
expect "$tmp/full" "the stand-in's steps on simgpu PASS: set-up, every allocation path of both tenants stops at its limit, the views, NVML's process lists, the denied GPU, the gate, a graph under flipping grants" \
	standin=PASS "standin-limit=PASS PASS PASS PASS PASS PASS PASS PASS" "standin-view=PASS PASS" \
	standin-procs=PASS standin-denied=PASS standin-gate=PASS standin-graph-flip=PASS
if grep -q 'RESULT torch-matmul WARN missing=PyTorch' "$tmp/full.log" &&
   grep -q 'RESULT rt-entry PASS answers=20 ' "$tmp/full.log" &&
   grep -q 'RESULT env INFO mode=simgpu' "$tmp/full.log" && [ "$rc" = 0 ] &&
   [ "$(tail -n 1 "$tmp/full.log")" = "22 passed, 0 failed" ] &&
   [ "$(grep -c '^RESULT ' "$tmp/full.log")" = "$(wc -l < "$tmp/full/results.jsonl")" ] &&
   [ "$(wc -l < "$tmp/full/results.jsonl")" = 35 ] &&
   python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' "$tmp/full/results.jsonl"; then
	pass realgpu "its lines: RESULT lines naming what is missing, 35 JSON objects in results.jsonl, exit 0, last line '22 passed, 0 failed'"
else
	fail realgpu "the run's lines and results.jsonl" "exit $rc: $(tail -n 3 "$tmp/full.log" | tr '\n' '|')"
fi
if grep -q '^RESULT procaddr PASS asked=[1-9][0-9]* hooked_symbols=2[0-9][0-9] .*answers="driver distinct"' "$tmp/full.log"; then
	pass realgpu "procaddr asked every hooked base, simgpu answering with its exports and with distinct entry points: $(grep '^RESULT procaddr' "$tmp/full.log" | cut -d' ' -f4-5)"
else
	fail realgpu "procaddr's counts" "$(grep '^RESULT procaddr' "$tmp/full.log")"
fi

# A libvgpu whose cuGetProcAddress hands out the driver's cuMemAlloc: a
# copy of libvgpu/ with the wrapper bypassed for that name.
mkdir -p "$tmp/broken"
cp -r libvgpu "$tmp/broken/libvgpu"
ln -s "$top/uapi" "$tmp/broken/uapi"
sed -i 's/libvgpu_hook_is_wrapper(fn))$/libvgpu_hook_is_wrapper(fn) || !strcmp(symbol, "cuMemAlloc"))/' \
	"$tmp/broken/libvgpu/procaddr.c"
if ! grep -q 'strcmp(symbol, "cuMemAlloc")' "$tmp/broken/libvgpu/procaddr.c"; then
	fail realgpu "a libvgpu with cuMemAlloc's wrapper bypassed" "the edit of procaddr.c no longer applies"
elif ! make -s -C "$tmp/broken/libvgpu" clean libvgpu.so CUDA_INC="${CUDA_INC:-$top/build/deps/cuda/include}" \
	> "$tmp/broken.log" 2>&1; then
	fail realgpu "a libvgpu with cuMemAlloc's wrapper bypassed" "build: $(oneline "$tmp/broken.log")"
else
	REALGPU_LIBVGPU=$tmp/broken/libvgpu/libvgpu.so REALGPU_OUT=$tmp/broken/out \
		tests/realgpu/run --only procaddr,same-results,standin-limit > "$tmp/broken/run.log" 2>&1
	rc=$?
	if [ "$rc" = 1 ] && grep -q '^RESULT procaddr FAIL .*cuMemAlloc' "$tmp/broken/run.log" &&
	   [ "$(status "$tmp/broken/out" procaddr)" = FAIL ] &&
	   [ "$(grep -c '^RESULT standin-limit FAIL tenant=t[0-9]* path=alloc ' "$tmp/broken/run.log")" = 2 ] &&
	   [ "$(tail -n 1 "$tmp/broken/run.log")" = "7 passed, 3 failed" ]; then
		pass realgpu "a libvgpu with cuMemAlloc's wrapper bypassed in cuGetProcAddress: procaddr FAILs naming it ($(grep -o 'wrong=[0-9]*' "$tmp/broken/run.log" | tr '\n' ' ')), standin-limit FAILs for plain allocation in both tenants (the other paths PASS), exit 1"
	else
		fail realgpu "a libvgpu with cuMemAlloc's wrapper bypassed" "exit $rc: $(grep -E '^RESULT|passed' "$tmp/broken/run.log" | tr '\n' '|')"
	fi
fi

# A stand-in that is wrong: one that applies no limit makes every
# allocation path's step FAIL, one that reports no limit the view's.
REALGPU_STANDIN_BREAK=charge REALGPU_OUT=$tmp/brkcharge tests/realgpu/run --only standin-limit \
	> "$tmp/brkcharge.log" 2>&1
rc=$?
expect "$tmp/brkcharge" "a stand-in that applies no limit (exit $rc): standin-limit FAILs on every path of both tenants" \
	"standin-limit=FAIL FAIL FAIL FAIL FAIL FAIL FAIL FAIL"
REALGPU_STANDIN_BREAK=view REALGPU_OUT=$tmp/brkview tests/realgpu/run --only standin-view,standin-limit \
	> "$tmp/brkview.log" 2>&1
rc=$?
expect "$tmp/brkview" "a stand-in that reports no limit in its view (exit $rc): standin-view FAILs for both tenants, the charges still PASS" \
	"standin-view=FAIL FAIL" "standin-limit=PASS PASS PASS PASS PASS PASS PASS PASS"
if grep -q '^RESULT standin-view FAIL tenant=t8 cuMemGetInfo_total=85899345920 nvml_total=85899345920 want=8589934592' "$tmp/brkview.log"; then
	pass realgpu "the view's FAIL names what it got and wanted (the device's 80 GiB, want 8 GiB)"
else
	fail realgpu "the view's FAIL line" "$(grep '^RESULT standin-view' "$tmp/brkview.log" | tr '\n' '|')"
fi

# No GPU and no simgpu: a WARN naming both, the driver's steps WARN, the
# others still run.
REALGPU_MODE=simgpu REALGPU_SIMGPU=$tmp/nowhere REALGPU_OUT=$tmp/none \
	tests/realgpu/run --only env,version,procaddr,same-results,cost-gate,torch-matmul \
	> "$tmp/none.log" 2>&1
rc=$?
expect "$tmp/none" "no GPU and no simgpu (exit $rc): env WARN, the driver's steps WARN, cost-gate still runs" \
	env=WARN version=WARN procaddr=WARN same-results=WARN cost-gate=INFO torch-matmul=WARN
if grep -q "^RESULT env WARN mode=none missing=\"no NVIDIA GPU looked for, and no simgpu ($tmp/nowhere/libcuda.so.1" "$tmp/none.log" &&
   [ "$rc" = 0 ]; then
	pass realgpu "no GPU and no simgpu: the WARN names the missing simgpu ($(grep -o 'no simgpu ([^)]*)' "$tmp/none.log"))"
else
	fail realgpu "no GPU and no simgpu, named" "exit $rc: $(grep '^RESULT env' "$tmp/none.log")"
fi

# A driver older than the headers: a WARN naming both versions.
REALGPU_HEADERS_VERSION=99990 REALGPU_OUT=$tmp/old tests/realgpu/run --only version,same-results \
	> "$tmp/old.log" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -q '^RESULT version WARN driver=[0-9]* headers=99990 why="the driver is older' "$tmp/old.log" &&
   [ "$(status "$tmp/old" same-results)" = PASS ]; then
	pass realgpu "a driver older than the headers: version WARNs naming both ($(grep -o 'driver=[0-9]* headers=[0-9]*' "$tmp/old.log")), same-results still runs"
else
	fail realgpu "a driver older than the headers" "exit $rc: $(grep -E '^RESULT' "$tmp/old.log" | tr '\n' '|')"
fi

# A hung step: cut at the watchdog, the rest FAIL unrun, the run ends in time.
t0=$SECONDS
REALGPU_TEST_HANG=procaddr REALGPU_WATCHDOG=5 REALGPU_OUT=$tmp/hang \
	tests/realgpu/run --only version,procaddr,same-results > "$tmp/hang.log" 2>&1
rc=$?
secs=$((SECONDS - t0))
if [ "$rc" = 1 ] && [ "$secs" -le 15 ] &&
   grep -q '^RESULT procaddr FAIL why="timed out after [0-9]* s' "$tmp/hang.log" &&
   grep -q "^RESULT same-results FAIL why=\"not run: the watchdog's 5 s were spent\"" "$tmp/hang.log" &&
   [ "$(status "$tmp/hang" version)" = PASS ]; then
	pass realgpu "a hung step under a 5 s watchdog: timed out, the next step FAILs unrun, the run ended after $secs s"
else
	fail realgpu "a hung step and the watchdog" "exit $rc after $secs s: $(grep -E '^RESULT' "$tmp/hang.log" | tr '\n' '|')"
fi
REALGPU_OUT=$tmp/only tests/realgpu/run --only cost-gate > "$tmp/only.log" 2>&1
rc=$?
if [ "$rc" = 0 ] && [ "$(wc -l < "$tmp/only/results.jsonl")" = 1 ] && [ "$(status "$tmp/only" cost-gate)" = INFO ] &&
   tests/realgpu/run --only nosuchstep > /dev/null 2>&1; [ $? = 2 ]; then
	pass realgpu "--only cost-gate runs that step alone; an unknown step is a usage error (exit 2)"
else
	fail realgpu "--only" "exit $rc: $(oneline "$tmp/only.log")"
fi
[ "$failures" -eq 0 ]
