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
#   every RESULT; the PyTorch steps again with the fake torch
#   (tests/realgpu/faketorch, NOT PyTorch): labelled -faketorch and
#   torch=fake, OutOfMemoryError at 16 and 8 GiB under the stand-in, the
#   uncharged difference, and FAIL with a fake raising RuntimeError or a
#   stand-in applying no limit; a libvgpu with cuMemAlloc's wrapper
#   bypassed in cuGetProcAddress makes procaddr FAIL naming it (and the
#   fake's cuMemAlloc OOM steps); no driver at all, a
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
expect "$tmp/full" "the run on simgpu (exit $rc, $secs s): build, version, procaddr, dlsym, rt-entry (simgpu serves NVIDIA's runtime), same-results (both flavours) PASS; env, cost-alloc, cost-launch and cost-launch-gated (3 kernel lengths each), cost-gate INFO; cost-calls (CUPTI) WARN, never PASS" \
	build=PASS env=INFO version=PASS procaddr=PASS dlsym=PASS rt-entry=PASS same-results=PASS \
	same-results-ptds=PASS cost-alloc=INFO "cost-launch=INFO INFO INFO" \
	"cost-launch-gated=INFO INFO INFO" cost-gate=INFO cost-calls=WARN
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
   [ "$(wc -l < "$tmp/full/results.jsonl")" = 40 ] &&
   python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' "$tmp/full/results.jsonl"; then
	pass realgpu "its lines: RESULT lines naming what is missing, 40 JSON objects in results.jsonl, exit 0, last line '22 passed, 0 failed'"
else
	fail realgpu "the run's lines and results.jsonl" "exit $rc: $(tail -n 3 "$tmp/full.log" | tr '\n' '|')"
fi
if grep -q '^RESULT procaddr PASS asked=[1-9][0-9]* hooked_symbols=2[0-9][0-9] .*answers="driver distinct"' "$tmp/full.log"; then
	pass realgpu "procaddr asked every hooked base, simgpu answering with its exports and with distinct entry points: $(grep '^RESULT procaddr' "$tmp/full.log" | cut -d' ' -f4-5)"
else
	fail realgpu "procaddr's counts" "$(grep '^RESULT procaddr' "$tmp/full.log")"
fi

# CUPTI on simgpu: not applicable, named; a CUPTI that is not there: a
# WARN naming it; the arithmetic of the added calls.
if grep -q "^RESULT cost-calls WARN cupti=[^ ]*libcupti.so.13 why=\"not applicable: CUPTI needs NVIDIA's driver's private interfaces, which simgpu does not serve (cupti-count: CUPTI refused" "$tmp/full.log"; then
	pass realgpu "cost-calls on simgpu: WARN not applicable, naming why and what CUPTI answered (the pinned wheel's libcupti, loaded and refusing)"
else
	fail realgpu "cost-calls on simgpu" "$(grep '^RESULT cost-calls' "$tmp/full.log")"
fi
REALGPU_CUPTI=$tmp/nowhere/libcupti.so.13 REALGPU_OUT=$tmp/nocupti tests/realgpu/run --only cost-calls \
	> "$tmp/nocupti.log" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -q "^RESULT cost-calls WARN missing=libcupti.so.13 why=\"no CUPTI: REALGPU_CUPTI=$tmp/nowhere/libcupti.so.13 does not exist\"" "$tmp/nocupti.log"; then
	pass realgpu "no libcupti: cost-calls WARNs naming the missing libcupti.so.13, exit 0"
else
	fail realgpu "no libcupti" "exit $rc: $(grep '^RESULT' "$tmp/nocupti.log")"
fi
mkdir -p "$tmp/cupti"
printf '%s\n' "cupti version 130001" "count ns 0 launches 1000 calls 1000" \
	"call ns 0 cbid 307 name cuLaunchKernel count 1000" > "$tmp/cupti/bare"
printf '%s\n' "cupti version 130001" "count ns 0 launches 1000 calls 3010" \
	"call ns 0 cbid 307 name cuLaunchKernel count 1000" "call ns 0 cbid 9 name cuCtxGetDevice count 2000" \
	"call ns 0 cbid 20 name cuStreamQuery count 10" "call ns 5000 cbid 21 name cuEventRecord count 99" \
	> "$tmp/cupti/vgpu"
got=$(bash -c '. tests/realgpu/cost-steps.sh && cupti_added "$1/bare" "$1/vgpu" 0 1000' _ "$tmp/cupti")
if [ "$got" = "2010 cuCtxGetDevice+2000,cuStreamQuery+10" ]; then
	pass realgpu "cost-calls' arithmetic: the calls added per 1000 launches and the most added by name ($got), other kernel lengths apart"
else
	fail realgpu "cost-calls' arithmetic" "got '$got'"
fi

# The PyTorch steps with the fake torch (tests/realgpu/faketorch: NOT
# PyTorch, the driver API through ctypes): torch-check.py's logic and the
# run's handling of its output, labelled ID-faketorch and torch=fake,
# never under the PyTorch steps' own ids. With the stand-in each tenant's
# refusal at its limit is torch.cuda.OutOfMemoryError at 16 and 8 GiB,
# by cuMemAlloc and by cuMemCreate (expandable segments).
fake=$top/tests/realgpu/faketorch
torch_ids=torch-matmul,torch-graph,torch-oom,torch-oom-expandable,torch-oom-standin,torch-oom-expandable-standin
PYTHONPATH=$fake REALGPU_TORCH_HOLD=1 REALGPU_OUT=$tmp/fake tests/realgpu/run --only "$torch_ids" \
	> "$tmp/fake.log" 2>&1
rc=$?
expect "$tmp/fake" "the PyTorch steps with the fake torch (exit $rc): each PASSes under its -faketorch id, both tenants' OutOfMemoryError with either allocator; nothing under the PyTorch steps' ids" \
	torch-matmul-faketorch=PASS torch-graph-faketorch=PASS torch-oom-faketorch=PASS \
	torch-oom-expandable-faketorch=PASS "torch-oom-standin-faketorch=PASS PASS" \
	"torch-oom-expandable-standin-faketorch=PASS PASS" torch-matmul= torch-graph= torch-oom= \
	torch-oom-expandable= torch-oom-standin= torch-oom-expandable-standin=
# (every result torch=fake; the stand-in's: OOM at the tenant's limit, the
# charge that limit, the driver's use read by NVML, uncharged its difference)
if python3 - "$tmp/fake/results.jsonl" > "$tmp/fake.check" 2>&1 <<'PY'
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
assert len(rs) == 8, f"{len(rs)} results, want 8"
for r in rs:
    assert r["id"].endswith("-faketorch") and r["torch"] == "fake", r
    if "standin" in r["id"]:
        lim = {"t16": 16, "t8": 8}[r["tenant"]]
        assert r["oom_at_gib"] == str(lim) and r["charged"] == str(lim << 30), r
        assert r["used_by"] == "nvml" and int(r["uncharged"]) == int(r["driver_used"]) - int(r["charged"]), r
    elif "oom" in r["id"]:
        assert int(r["oom_at_gib"]) >= 70 and r["total_gib"] == "80.0", r   # simgpu's 80 GiB
    else:
        assert r["bare"] == r["vgpu"] and ("match_cpu=True" in r["bare"] or "correct=10" in r["bare"]), r
print(" ".join(f'{r["tenant"]}:{r["alloc_conf"]}:oom_at_gib={r["oom_at_gib"]},uncharged={r["uncharged"]}'
               for r in rs if "tenant" in r))
PY
then
	if [ "$rc" = 0 ] && [ "$(tail -n 1 "$tmp/fake.log")" = "8 passed, 0 failed" ] &&
	   grep -q '^# 8 results from the fake torch of the tests (tests/realgpu/faketorch): NOT PyTorch$' "$tmp/fake.log"; then
		pass realgpu "the fake torch's results.jsonl: 8 objects, all torch=fake, OutOfMemoryError at each tenant's limit with the charge at it, uncharged = NVML's use - the charge ($(cat "$tmp/fake.check")); the summary says NOT PyTorch"
	else
		fail realgpu "the fake torch's run" "exit $rc: $(tail -n 3 "$tmp/fake.log" | tr '\n' '|')"
	fi
else
	fail realgpu "the fake torch's results.jsonl" "$(tail -n 2 "$tmp/fake.check" | tr '\n' ' ')"
fi
# Without the stand-in its two steps WARN, the others still PASS; the fake
# raising RuntimeError where PyTorch raises OutOfMemoryError, and a
# stand-in that applies no limit, FAIL the matching steps.
PYTHONPATH=$fake REALGPU_STANDIN_BIN=$tmp/nowhere/vgpu-standin REALGPU_OUT=$tmp/fakenosd \
	tests/realgpu/run --only torch-oom,torch-oom-standin > "$tmp/fakenosd.log" 2>&1
rc=$?
expect "$tmp/fakenosd" "the fake torch without the stand-in (exit $rc): torch-oom PASSes, torch-oom-standin WARNs (the stand-in missing), never PASS" \
	torch-oom-faketorch=PASS torch-oom-standin-faketorch=WARN
PYTHONPATH=$fake FAKETORCH_BREAK=oom-error REALGPU_TORCH_HOLD=1 REALGPU_OUT=$tmp/fakebrk \
	tests/realgpu/run --only torch-oom,torch-oom-standin > "$tmp/fakebrk.log" 2>&1
rc=$?
expect "$tmp/fakebrk" "a fake torch raising RuntimeError at the limit (exit $rc): torch-oom and both tenants' torch-oom-standin FAIL" \
	torch-oom-faketorch=FAIL "torch-oom-standin-faketorch=FAIL FAIL"
if grep -q '^RESULT torch-oom-faketorch FAIL torch=fake why="error=DriverError after_gib=80 alloc_conf=default"' "$tmp/fakebrk.log" &&
   grep -q '^RESULT torch-oom-standin-faketorch FAIL torch=fake tenant=t8 want="OutOfMemoryError at 6-8 GiB" why="error=DriverError after_gib=8 ' "$tmp/fakebrk.log"; then
	pass realgpu "their FAIL lines name the error torch-check.py caught, where, and what was wanted"
else
	fail realgpu "the broken fake's FAIL lines" "$(grep '^RESULT' "$tmp/fakebrk.log" | tr '\n' '|')"
fi
PYTHONPATH=$fake REALGPU_STANDIN_BREAK=charge REALGPU_TORCH_HOLD=1 REALGPU_OUT=$tmp/fakenolim \
	tests/realgpu/run --only torch-oom-standin,torch-oom-expandable-standin > "$tmp/fakenolim.log" 2>&1
rc=$?
expect "$tmp/fakenolim" "the fake torch under a stand-in that applies no limit (exit $rc): both tenants' OOM steps FAIL with either allocator" \
	"torch-oom-standin-faketorch=FAIL FAIL" "torch-oom-expandable-standin-faketorch=FAIL FAIL"

# The stand-in's set-up: with vgpuctl where it can run (here), through
# vgpu-standin's own probe and controls where it cannot: forced, and a
# vgpuctl whose library is missing (ldd says "not found").
if grep -q "^RESULT standin-setup INFO path=vgpuctl why=\"ldd finds all of vgpuctl's libraries\"" "$tmp/full.log"; then
	pass realgpu "the full run set the tenants up with vgpuctl, ldd finding its libraries (an INFO line says so)"
else
	fail realgpu "the full run's set-up path" "$(grep '^RESULT standin-setup' "$tmp/full.log")"
fi
REALGPU_STANDIN_SETUP=ctl REALGPU_OUT=$tmp/setupctl \
	tests/realgpu/run --only standin,standin-limit,standin-view,standin-denied,standin-gate \
	> "$tmp/setupctl.log" 2>&1
rc=$?
expect "$tmp/setupctl" "REALGPU_STANDIN_SETUP=ctl (exit $rc): the tenants set up by vgpu-standin probe and ctl tenant-add, and the stand-in's steps PASS on them" \
	standin-setup=INFO standin=PASS "standin-limit=PASS PASS PASS PASS PASS PASS PASS PASS" \
	"standin-view=PASS PASS" standin-denied=PASS standin-gate=PASS
if grep -q '^RESULT standin-setup INFO path=vgpu-standin why=REALGPU_STANDIN_SETUP=ctl$' "$tmp/setupctl.log" &&
   grep -q '^probe gpu 1 vram 85899345920 uuid GPU-' "$tmp/setupctl/logs/standin-setup.log"; then
	pass realgpu "the forced fallback says so (path=vgpu-standin), and probe added simgpu's 2 GPUs from NVML"
else
	fail realgpu "the forced fallback's lines" "$(grep '^RESULT standin-setup' "$tmp/setupctl.log") $(oneline "$tmp/setupctl/logs/standin-setup.log")"
fi
# a vgpuctl that cannot load: a program linked with a library since removed
mkdir -p "$tmp/nolib"
echo 'int vgpu_gone(void) { return 0; }' > "$tmp/nolib/gone.c"
echo 'int vgpu_gone(void); int main(void) { return vgpu_gone(); }' > "$tmp/nolib/main.c"
if cc -shared -fPIC -o "$tmp/nolib/libvgpu-gone.so" "$tmp/nolib/gone.c" &&
   cc -o "$tmp/nolib/vgpuctl" "$tmp/nolib/main.c" -L"$tmp/nolib" -lvgpu-gone &&
   rm "$tmp/nolib/libvgpu-gone.so"; then
	REALGPU_VGPUCTL=$tmp/nolib/vgpuctl REALGPU_OUT=$tmp/nolib/out tests/realgpu/run --only standin,standin-view \
		> "$tmp/nolib.log" 2>&1
	rc=$?
	if [ "$rc" = 0 ] && grep -q '^RESULT standin-setup INFO path=vgpu-standin why="vgpuctl cannot run here (ldd: libvgpu-gone.so)"' "$tmp/nolib.log" &&
	   [ "$(status "$tmp/nolib/out" standin)" = PASS ] && [ "$(status "$tmp/nolib/out" standin-view)" = "PASS PASS" ]; then
		pass realgpu "a vgpuctl whose library is missing: ldd names it in the INFO line, the tenants are set up by vgpu-standin, standin and standin-view PASS"
	else
		fail realgpu "a vgpuctl whose library is missing" "exit $rc: $(grep -E '^RESULT' "$tmp/nolib.log" | tr '\n' '|')"
	fi
else
	fail realgpu "a vgpuctl whose library is missing" "could not build the fake vgpuctl"
fi


# The stand-in under the sanitizers: the daemon built with ASan and UBSan
# serving the stand-in's steps, with the interposer built with UBSan in
# the tenants' processes (ASan's runtime cannot be preloaded before
# libvgpu: its start-up calls libvgpu's dlsym, which calls strcmp before
# ASan has set up its own), then with ASan and UBSan under vgpuctl (the
# netlink half) and under devcheck.py (the device half, without libvgpu).
# Any report fails (-fno-sanitize-recover; ASan's reports to files).
sd=tests/realgpu/standin
san_sd() { # OUT FLAGS-AND-SOURCES...: a stand-in build under sanitizers
	local out=$1
	shift
	cc -std=gnu11 -Wall -Wextra -Werror -g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=all \
		-o "$out" "$@" -ldl
}
mkdir -p "$tmp/san/rep"
asanrt=$(cc -print-file-name=libasan.so)
if ! { san_sd "$tmp/san/vgpu-standin" -fsanitize=address,undefined $sd/standind.c $sd/acct.c $sd/nl.c \
		$sd/ctl.c $sd/probe.c &&
       san_sd "$tmp/san/asan.so" -fsanitize=address,undefined -fPIC -shared -fvisibility=hidden $sd/preload.c &&
       san_sd "$tmp/san/ubsan.so" -fsanitize=undefined -fPIC -shared -fvisibility=hidden $sd/preload.c; } \
	> "$tmp/san/build.log" 2>&1 || [ ! -e "$asanrt" ]; then
	fail realgpu "the stand-in under ASan/UBSan" "build: $(oneline "$tmp/san/build.log") ($asanrt)"
else
	export ASAN_OPTIONS=detect_leaks=0:log_path=$tmp/san/rep/asan UBSAN_OPTIONS=print_stacktrace=1
	t0=$SECONDS
	REALGPU_STANDIN_BIN=$tmp/san/vgpu-standin REALGPU_STANDIN_SO=$tmp/san/ubsan.so REALGPU_OUT=$tmp/san/a \
		tests/realgpu/run --only standin,standin-view,standin-procs,standin-denied,standin-gate,standin-graph-flip \
		> "$tmp/san/a.log" 2>&1
	rc=$?
	REALGPU_STANDIN_BIN=$tmp/san/vgpu-standin REALGPU_STANDIN_SO=$tmp/san/asan.so \
		REALGPU_STANDIN_PRELOAD=$asanrt REALGPU_OUT=$tmp/san/b tests/realgpu/run --only standin \
		> "$tmp/san/b.log" 2>&1
	rcb=$?
	(
		export LD_LIBRARY_PATH=$top/tests/simgpu SIMGPU_STATE=$tmp/san/sim.state SIMGPU_CONFIG=/dev/null
		"$tmp/san/vgpu-standin" serve "$tmp/san/sock" 2> "$tmp/san/d.err" & d=$!
		for _ in $(seq 50); do [ -S "$tmp/san/sock" ] && break; sleep 0.1; done
		"$tmp/san/vgpu-standin" probe "$tmp/san/sock" > /dev/null 2>> "$tmp/san/d.err"
		VGPU_STANDIN_SOCK=$tmp/san/sock LD_PRELOAD=$asanrt:$tmp/san/asan.so \
			python3 tests/realgpu/standin/devcheck.py > "$tmp/san/dev.out" 2>> "$tmp/san/d.err"
		echo "rc $?" >> "$tmp/san/dev.out"
		kill "$d"
		wait "$d"
	)
	secs=$((SECONDS - t0))
	reports=$(cat "$tmp/san/rep/"* 2> /dev/null; grep -rh -A3 'runtime error\|AddressSanitizer' "$tmp/san/a" "$tmp/san/b" "$tmp/san/d.err" 2> /dev/null)
	if [ "$rc" = 0 ] && [ "$rcb" = 0 ] && [ -z "$reports" ] &&
	   [ "$(status "$tmp/san/a" standin-view) $(status "$tmp/san/a" standin-gate) $(status "$tmp/san/a" standin-graph-flip) $(status "$tmp/san/a" standin-procs)" = "PASS PASS PASS PASS PASS" ] &&
	   [ "$(status "$tmp/san/b" standin)" = PASS ] && grep -q '^devcheck capacity [1-9]' "$tmp/san/dev.out" &&
	   grep -qx 'rc 0' "$tmp/san/dev.out"; then
		pass realgpu "the stand-in under ASan/UBSan ($secs s): the daemon (ASan+UBSan) through the views, process lists, gate and flipping grants with the interposer (UBSan) in the tenants; the interposer (ASan+UBSan) under vgpuctl's set-up and devcheck.py's open, maps and ioctls; no report"
	else
		fail realgpu "the stand-in under ASan/UBSan" "exit $rc and $rcb: $(grep -hE '^RESULT' "$tmp/san/a.log" "$tmp/san/b.log" | grep -v ' PASS\| INFO\| WARN' | tr '\n' '|') $(tr '\n' ' ' < "$tmp/san/dev.out") ${reports:0:600}"
	fi
	unset ASAN_OPTIONS UBSAN_OPTIONS
fi

# A libvgpu whose cuGetProcAddress hands out the driver's cuMemAlloc: a
# copy of libvgpu/ with the wrapper bypassed for that name.
mkdir -p "$tmp/broken"
cp -r libvgpu "$tmp/broken/libvgpu"
ln -s "$top/uapi" "$tmp/broken/uapi"
sed -i 's/libvgpu_hook_is_wrapper(fn))$/libvgpu_hook_is_wrapper(fn) || !strcmp(symbol, "cuMemAlloc"))/' \
	"$tmp/broken/libvgpu/interpose/procaddr.c"
if ! grep -q 'strcmp(symbol, "cuMemAlloc")' "$tmp/broken/libvgpu/interpose/procaddr.c"; then
	fail realgpu "a libvgpu with cuMemAlloc's wrapper bypassed" "the edit of procaddr.c no longer applies"
elif ! make -s -C "$tmp/broken/libvgpu" clean libvgpu.so CUDA_INC="${CUDA_INC:-$top/build/deps/cuda/include}" \
	> "$tmp/broken.log" 2>&1; then
	fail realgpu "a libvgpu with cuMemAlloc's wrapper bypassed" "build: $(oneline "$tmp/broken.log")"
else
	PYTHONPATH=$fake REALGPU_TORCH_HOLD=1 REALGPU_LIBVGPU=$tmp/broken/libvgpu/libvgpu.so REALGPU_OUT=$tmp/broken/out \
		tests/realgpu/run --only procaddr,same-results,standin-limit,torch-oom-standin,torch-oom-expandable-standin \
		> "$tmp/broken/run.log" 2>&1
	rc=$?
	if [ "$rc" = 1 ] && grep -q '^RESULT procaddr FAIL .*cuMemAlloc' "$tmp/broken/run.log" &&
	   [ "$(status "$tmp/broken/out" procaddr)" = FAIL ] &&
	   [ "$(grep -c '^RESULT standin-limit FAIL tenant=t[0-9]* path=alloc ' "$tmp/broken/run.log")" = 2 ] &&
	   [ "$(status "$tmp/broken/out" torch-oom-standin-faketorch)" = "FAIL FAIL" ] &&
	   [ "$(status "$tmp/broken/out" torch-oom-expandable-standin-faketorch)" = "PASS PASS" ] &&
	   [ "$(tail -n 1 "$tmp/broken/run.log")" = "9 passed, 5 failed" ]; then
		pass realgpu "a libvgpu with cuMemAlloc's wrapper bypassed in cuGetProcAddress: procaddr FAILs naming it ($(grep -o 'wrong=[0-9]*' "$tmp/broken/run.log" | tr '\n' ' ')), standin-limit FAILs for plain allocation in both tenants (the other paths PASS), the fake torch's OutOfMemoryError steps FAIL with cuMemAlloc and PASS with expandable segments (cuMemCreate), exit 1"
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
