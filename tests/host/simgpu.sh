#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of simgpu, the simulated CUDA driver and NVML (tests/simgpu).
# Run from the repository root. One line per check:
#   PASS: simgpu: <what>    or    FAIL: simgpu: <what>: <detail>
# Exit status: 0 when every check passed.
set -u

top=$(pwd)
sim=$top/tests/simgpu
cli=$top/tests/clients
work=$(mktemp -d /tmp/simgpu-test.XXXXXX)
fails=0
pids=()

cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

pass() { echo "PASS: simgpu: $1"; }
fail() { echo "FAIL: simgpu: $1: $2"; fails=$((fails + 1)); }
check() { # check WHAT DETAIL CONDITION...
	local what=$1 detail=$2
	shift 2
	if "$@"; then pass "$what"; else fail "$what" "$detail"; fi
}

export SIMGPU_STATE=$work/state
export LD_LIBRARY_PATH=$sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset SIMGPU_CONFIG SIMGPU_GPUS SIMGPU_VRAM SIMGPU_SMS SIMGPU_CTX_VRAM SIMGPU_KERNEL_NS
export SIMGPU_CONFIG=$work/empty.conf
: > "$SIMGPU_CONFIG"
C=$cli/simgpu-client
STAT=$sim/simgpu-stat

# ---- build ----
if make -s -C "$sim" >"$work/build.log" 2>&1; then
	pass "build libcuda.so.1, libnvidia-ml.so.1, simgpu-stat"
else
	fail "build libcuda.so.1, libnvidia-ml.so.1, simgpu-stat" "$(tail -n 3 "$work/build.log" | tr '\n' ' ')"
	exit 1
fi
if make -s -C "$cli" >"$work/build2.log" 2>&1; then
	pass "build clients"
else
	fail "build clients" "$(tail -n 3 "$work/build2.log" | tr '\n' ' ')"
	exit 1
fi

# ---- exported names ----
if ! command -v nm >/dev/null; then
	fail "exported names" "nm missing: install binutils"
else
	nm -D --defined-only "$sim/libcuda.so.1" | awk '{print $3}' >"$work/cuda.syms"
	missing=""
	for s in cuInit cuDriverGetVersion cuGetProcAddress cuGetProcAddress_v2 \
		cuGetExportTable cuMemAlloc cuMemAlloc_v2 cuMemFree cuMemFree_v2 \
		cuMemGetInfo cuMemGetInfo_v2 cuDeviceTotalMem cuDeviceTotalMem_v2 \
		cuCtxCreate cuCtxCreate_v2 cuCtxCreate_v3 cuCtxCreate_v4 \
		cuCtxDestroy cuCtxDestroy_v2 cuCtxGetDevice cuCtxGetDevice_v2 \
		cuCtxSynchronize cuCtxSynchronize_v2 cuDeviceGetUuid cuDeviceGetUuid_v2 \
		cuDevicePrimaryCtxRelease cuDevicePrimaryCtxRelease_v2 \
		cuMemcpyHtoD cuMemcpyHtoD_v2 cuMemcpyHtoD_v2_ptds cuMemcpyHtoDAsync_v2_ptsz \
		cuMemsetD8 cuMemsetD8_v2 cuMemsetD8_v2_ptds cuMemcpy cuMemcpy_ptds \
		cuMemcpy2D cuMemcpy2D_v2 cuMemcpy2D_v2_ptds cuMemcpy2DAsync_v2_ptsz \
		cuMemcpy2DUnaligned_v2_ptds cuMemcpy3D cuMemcpy3D_v2_ptds cuMemcpy3DAsync_v2_ptsz \
		cuMemcpy3DPeer_ptds cuMemcpy3DPeerAsync_ptsz cuMemsetD2D8 cuMemsetD2D32_v2_ptds \
		cuMemsetD2D16Async_ptsz cuMemcpyPeer_ptds cuMemcpyPeerAsync_ptsz \
		cuMemPrefetchAsync cuMemPrefetchAsync_v2_ptsz cuStreamWriteValue32 \
		cuStreamWriteValue64_v2_ptsz cuStreamWaitValue32_v2 cuStreamWaitValue64_ptsz \
		cuStreamBatchMemOp cuStreamBatchMemOp_v2_ptsz cuMemcpyBatchAsync \
		cuMemcpyBatchAsync_v2_ptsz cuMemcpyHtoA cuMemcpyAtoH_v2 cuMemcpyAtoA_v2_ptds \
		cuMemcpyDtoA_v2_ptds cuMemcpyAtoD cuMemcpyHtoAAsync_v2_ptsz cuMemcpyAtoHAsync \
		cuMemcpy3DBatchAsync cuMemcpy3DBatchAsync_ptsz cuMemcpy3DBatchAsync_v2_ptsz \
		cuMemPrefetchBatchAsync_ptsz cuMemDiscardAndPrefetchBatchAsync \
		cuLaunch cuLaunchGrid cuLaunchGridAsync cuLaunchCooperativeKernelMultiDevice \
		cuFuncSetBlockShape cuParamSetv \
		cuLaunchKernel cuLaunchKernel_ptsz cuLaunchKernelEx cuLaunchKernelEx_ptsz \
		cuLaunchCooperativeKernel cuLaunchCooperativeKernel_ptsz \
		cuStreamSynchronize cuStreamSynchronize_ptsz cuEventRecord_ptsz \
		cuEventElapsedTime cuEventElapsedTime_v2 cuGraphLaunch cuGraphLaunch_ptsz \
		cuGraphInstantiate cuGraphInstantiate_v2 cuGraphInstantiateWithFlags \
		cuGraphAddKernelNode cuGraphAddKernelNode_v2 cuMemAllocAsync_ptsz \
		cuMemFreeAsync_ptsz cuMemAllocFromPoolAsync_ptsz cuLibraryLoadData \
		cuLibraryGetKernel cuKernelGetFunction cuMemCreate cuMemMap \
		cuArrayCreate cuArrayCreate_v2 cuArray3DCreate_v2 cuMipmappedArrayCreate; do
		grep -qx "$s" "$work/cuda.syms" || missing="$missing $s"
	done
	check "libcuda.so.1 exports versioned, legacy and per-thread names" \
		"missing:$missing" test -z "$missing"
	leaked=$(grep -v '^cu' "$work/cuda.syms" | tr '\n' ' ')
	check "libcuda.so.1 exports only cu* names" "also: $leaked" test -z "$leaked"
	soname=$(readelf -d "$sim/libcuda.so.1" 2>/dev/null | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
	check "libcuda.so.1 soname" "got '$soname'" test "$soname" = libcuda.so.1
	nm -D --defined-only "$sim/libnvidia-ml.so.1" | awk '{print $3}' >"$work/nvml.syms"
	missing=""
	for s in nvmlInit nvmlInit_v2 nvmlInitWithFlags nvmlShutdown nvmlErrorString \
		nvmlSystemGetDriverVersion nvmlSystemGetCudaDriverVersion \
		nvmlSystemGetCudaDriverVersion_v2 nvmlDeviceGetCount_v2 \
		nvmlDeviceGetHandleByIndex_v2 nvmlDeviceGetHandleByUUID \
		nvmlDeviceGetHandleByPciBusId_v2 nvmlDeviceGetName nvmlDeviceGetUUID \
		nvmlDeviceGetPciInfo_v3 nvmlDeviceGetIndex nvmlDeviceGetMemoryInfo \
		nvmlDeviceGetMemoryInfo_v2 nvmlDeviceGetComputeRunningProcesses_v3 \
		nvmlDeviceGetUtilizationRates nvmlDeviceGetMinorNumber \
		nvmlDeviceGetSerial nvmlDeviceGetHandleBySerial nvmlDeviceGetNumaNodeId \
		nvmlDeviceGetTopologyCommonAncestor nvmlDeviceGetTopologyNearestGpus \
		nvmlSystemGetTopologyGpuSet nvmlDeviceGetP2PStatus nvmlDeviceGetNvLinkState \
		nvmlDeviceGetNvLinkVersion nvmlDeviceGetNvLinkCapability \
		nvmlDeviceGetNvLinkRemotePciInfo nvmlDeviceGetNvLinkRemotePciInfo_v2; do
		grep -qx "$s" "$work/nvml.syms" || missing="$missing $s"
	done
	check "libnvidia-ml.so.1 exports" "missing:$missing" test -z "$missing"
fi

# ---- pure logic under ASan/UBSan ----
if make -s -C "$sim" test-logic-asan >"$work/asan.log" 2>&1; then
	SIMGPU_STATE=$work/asan-state "$sim/test-logic-asan" >"$work/asan.out" 2>&1
	rc=$?
	grep -E '^(PASS|FAIL): ' "$work/asan.out"
	fails=$((fails + $(grep -c '^FAIL: ' "$work/asan.out")))
	if [ $rc -ne 0 ] && ! grep -q '^FAIL: ' "$work/asan.out"; then
		fail "asan: test-logic-asan" "exit $rc: $(grep -m1 -E 'ERROR|runtime error' "$work/asan.out")"
	fi
else
	fail "asan: build test-logic-asan" "$(tail -n 3 "$work/asan.log" | tr '\n' ' ')"
fi

# ---- look-ups the runtime's way (dlopen + cuGetProcAddress_v2) ----
lookup() { # NAME VERSION FLAGS EXPECT
	local out
	out=$("$C" lookup "$1" "$2" "$3" | head -n 1)
	case "$out" in
	*"-> $4" | *"-> $4 "*) pass "lookup $1@$2 flags $3 -> $4" ;;
	*) fail "lookup $1@$2 flags $3 -> $4" "got: $out" ;;
	esac
}
lookup cuMemAlloc 3020 1 cuMemAlloc_v2
lookup cuMemAlloc 2000 1 cuMemAlloc
lookup cuMemcpyHtoD 7000 2 cuMemcpyHtoD_v2_ptds
lookup cuLaunchKernel 7000 2 cuLaunchKernel_ptsz
lookup cuMemcpy2D 7000 2 cuMemcpy2D_v2_ptds
lookup cuMemcpy2D 2000 1 cuMemcpy2D
lookup cuMemcpy3DPeerAsync 7000 2 cuMemcpy3DPeerAsync_ptsz
lookup cuMemcpyBatchAsync 13000 2 cuMemcpyBatchAsync_v2_ptsz
lookup cuMemcpyBatchAsync 12080 1 cuMemcpyBatchAsync
lookup cuMemPrefetchAsync 12020 2 cuMemPrefetchAsync_v2_ptsz
lookup cuMemPrefetchAsync 11000 1 cuMemPrefetchAsync
lookup cuStreamWaitValue64 11070 1 cuStreamWaitValue64_v2
lookup cuStreamWaitValue64 9000 2 cuStreamWaitValue64_ptsz
lookup cuLaunchKernel 4000 1 cuLaunchKernel
lookup cuCtxSynchronize 13000 1 cuCtxSynchronize_v2
lookup cuCtxSynchronize 2000 1 cuCtxSynchronize
lookup cuCtxGetDevice 13000 1 cuCtxGetDevice_v2
lookup cuGetProcAddress 12000 0 cuGetProcAddress_v2
lookup cuGetProcAddress 11030 0 cuGetProcAddress
lookup cuDoesNotExist 13000 0 "CUDA_ERROR_NOT_FOUND status 1"
lookup cuMemPoolCreate 11000 0 "CUDA_ERROR_NOT_FOUND status 2"

# ---- configuration ----
out=$(SIMGPU_GPUS=0 "$C" 2>&1)
check "zero GPUs: cuInit fails with CUDA_ERROR_NO_DEVICE (100)" "got: $out" \
	grep -q "init code 100" <<<"$out"
printf 'gpus = 2\nvram = 16Q\n' >"$work/bad.conf"
out=$(SIMGPU_CONFIG=$work/bad.conf "$C" 2>&1)
check "bad config: message names the problem, cuInit fails" "got: $out" \
	bash -c 'grep -q "bad vram size .16Q." <<<"$1" && grep -q "init code 1\$" <<<"$1"' _ "$out"
printf 'gpus = 1\nvram = 3G\nsms = 66\n' >"$work/small.conf"
out=$(SIMGPU_CONFIG=$work/small.conf "$C" info , device 1 2>&1)
check "config file: 1 GPU of 3 GiB" "got: $out" \
	bash -c 'grep -q "info free 3221225472 total 3221225472 ok" <<<"$1" &&
		grep -q "device 1 CUDA_ERROR_INVALID_DEVICE" <<<"$1"' _ "$out"

# ---- the patterns frameworks use ----
out=$("$C" memcpy 8M , pattern vmm 2M steps 16 , pattern pool 1M count 16 , graph 1000000 count 4 , info 2>&1)
check "memcpy, vmm, pool and graph patterns" "got: $(tr '\n' ' ' <<<"$out")" \
	bash -c '! grep -q CUDA_ERROR <<<"$1" && grep -q "vmm mapped 33554432" <<<"$1" &&
		grep -q "pool created reserved 0" <<<"$1" &&
		grep -q "info free 17179869184 total 17179869184" <<<"$1"' _ "$out"
# VMM by reference: a released handle's memory lives while mapped; a
# retained handle is the mapped one and holds the memory past the unmap.
out=$("$cli/vmm-client" reserve 1G , sample 48M , info , unmap 0 48M , info , create 2M , \
	map 1 0 , retain 1M , release 1 , unmap 0 2M , info , map 2 0 , release 2 , info , \
	unmap 0 2M , info , release 2 2>&1)
G16=17179869184 M=1048576
check "vmm: memory lives until the last handle or mapping goes" "got: $(tr '\n' ' ' <<<"$out")" \
	bash -c 'grep -q "^info free $(($2 - 48 * $3)) ok" <<<"$1" &&
		grep -q "^unmap 0 48M ok" <<<"$1" && grep -q "^retain 1M = h2 (h1) ok" <<<"$1" &&
		[ "$(grep -c "^info free $(($2 - 2 * $3)) ok" <<<"$1")" = 2 ] &&
		[ "$(grep -c "^info free $2 ok" <<<"$1")" = 2 ] &&
		grep -q "^release 2 CUDA_ERROR_INVALID_VALUE" <<<"$1"' _ "$out" $G16 $M
out=$("$C" -p launch 1000000 count 4 , memcpy 1M 2>&1)
check "per-thread default stream look-ups (-p) work" "got: $out" \
	bash -c '! grep -q CUDA_ERROR <<<"$1"' _ "$out"
# Lazy loading: a library (loaded, its kernel got, nothing charged) takes
# SIMGPU_MODULE_VRAM of a context's device at its kernel's first launch
# there, once per context: GPU 0's at its first launch, GPU 1's at the
# first launch there; released with its context (the client releases a
# primary context when it changes device).
out=$(SIMGPU_MODULE_VRAM=8M "$C" info , launch 1000 , info , launch 1000 , info , \
	device 1 , info , launch 1000 , info , device 0 , info 2>&1)
check "lazy loading: a library's code charged at its first launch in each context" \
	"got: $(tr '\n' ' ' <<<"$out")" \
	bash -c '! grep -q CUDA_ERROR <<<"$1" &&
		[ "$(grep "^info" <<<"$1" | cut -d" " -f3 | tr "\n" " ")" = "$2 $3 $3 $2 $3 $2 " ]' \
	_ "$out" $G16 $((G16 - 8 * M))

# Wait until CONDITION (a command) holds, for up to 5 s.
wait_for() {
	local i
	for i in $(seq 100); do "$@" && return 0; sleep 0.05; done
	return 1
}
# await WHAT CONDITION...: wait_for, and a wait that gives up is a FAIL of
# its own (the checks after it would judge a state that never came).
await() {
	local what=$1
	shift
	wait_for "$@" || { fail "$what" "gave up after 5 s waiting for '$*'"; return 1; }
}
gpu_used() { "$STAT" | awk -v g="$1" '$1 == "gpu" && $2 == g {print $4}'; }
used_is() { [ "$(gpu_used 0)" = "$1" ]; }

# ---- VMM shareable handles across processes ----
# The importer maps the exported memory and releases its handle; the
# memory lives while either process holds a reference or the exporter's
# descriptor is open; it is attributed to each process while that process
# holds a handle or mapping of its own, and counted once on the GPU.
"$STAT" reset
# Each output file is emptied before its process starts, not by the job's
# own redirection, which may come after the wait has begun: the loop below
# reuses e.out, and its first round read this exporter's "holding" and
# checked before its own process had allocated (a full run, under load).
: > "$work/e.out"
"$cli/vmm-client" reserve 64M , ecreate 32M , export 0 , hold 60000 >>"$work/e.out" 2>&1 &
e=$!
pids+=($e)
if wait_for grep -q holding "$work/e.out"; then
	fd=$(sed -n 's/^export 0 = fd \([0-9]*\) (e0) ok$/\1/p' "$work/e.out")
	: > "$work/i.out"
	"$cli/vmm-client" reserve 64M , import $e "${fd:-none}" 32M , map 0 0 , access 0 32M , \
		memset 0 32M , release 0 , hold 60000 >>"$work/i.out" 2>&1 &
	i=$!
	pids+=($i)
	await "vmm ipc: the importer holds" grep -q holding "$work/i.out"
	st=$("$STAT")
	check "vmm ipc: the importer maps the exported memory: both hold it, the GPU once" \
		"got: $(cat "$work/i.out" | tr '\n' ' ') $st" \
		bash -c 'grep -q "memset 0 32M ok" <<<"$1" && grep -q "^gpu 0 used 33554432 " <<<"$2" &&
			grep -q "^proc $3 gpu 0 alive 1 bytes 33554432 " <<<"$2" &&
			grep -q "^proc $4 gpu 0 alive 1 bytes 33554432 " <<<"$2"' _ "$(cat "$work/i.out")" "$st" $e $i
	kill -9 $e
	wait $e 2>/dev/null
	check "vmm ipc: the importer's mapping keeps it after the exporter's kill -9" \
		"used $(gpu_used 0)" used_is 33554432
	kill -9 $i
	wait $i 2>/dev/null
	check "vmm ipc: freed after the importer's kill -9" "used $(gpu_used 0)" used_is 0
else
	fail "vmm ipc" "exporter never held: $(cat "$work/e.out")"
fi
out=$("$cli/vmm-client" reserve 64M , create 2M , export 0 , ecreate 32M , export 1 , \
	import 0 0 32M , release 1 , release 2 , info , close 0 , info 2>&1)
check "vmm ipc: export needs the descriptor type; an open descriptor alone keeps the memory" \
	"got: $(tr '\n' ' ' <<<"$out")" \
	bash -c 'grep -q "^export 0 CUDA_ERROR_INVALID_VALUE" <<<"$1" &&
		grep -q "^import 0 0 32M = h2 (h1) ok" <<<"$1" &&
		grep -q "^info free $(($2 - 34 * $3)) ok" <<<"$1" &&
		grep -q "^info free $(($2 - 2 * $3)) ok" <<<"$1"' _ "$out" $G16 $M

# A process that released its handle but keeps its exported descriptor
# open still holds the memory; once it closes it, a look finds it closed.
for cmds in "release 0" "release 0 , close 0"; do
	"$STAT" reset
	: > "$work/e.out"
	"$cli/vmm-client" reserve 64M , ecreate 32M , export 0 , $cmds , hold 60000 \
		>>"$work/e.out" 2>&1 &
	e=$!
	pids+=($e)
	await "vmm ipc: the exporter ($cmds) holds" grep -q holding "$work/e.out"
	case $cmds in
	*close*) want=0 what="closed: attributed nothing, freed" ;;
	*) want=33554432 what="open: still attributed to it" ;;
	esac
	st=$("$STAT")
	check "vmm ipc: released, descriptor $what" "got: $(tr '\n' ' ' <<<"$st")" \
		bash -c 'grep -q "^gpu 0 used $2 " <<<"$1" && if [ $2 = 0 ]; then
			! grep -q "^proc $3 gpu 0 alive 1 bytes [1-9]" <<<"$1"; else
			grep -q "^proc $3 gpu 0 alive 1 bytes $2 " <<<"$1"; fi' _ "$st" $want $e
	kill -9 $e
	wait $e 2>/dev/null
	check "vmm ipc: released, descriptor $what; kill -9 frees" "used $(gpu_used 0)" used_is 0
done

# ---- memory exhaustion across processes ----
# (the querying client holds a context too: NVML lists 2 processes)
"$STAT" reset
export SIMGPU_VRAM=4G
"$C" alloc 3G , sleep 1500 , free , sleep 60000 >"$work/a.out" 2>&1 &
a=$!
pids+=($a)
if wait_for used_is 3221225472; then
	out=$("$C" alloc 2G , info 2>&1)
	check "OOM across processes: 2 GiB fails while another holds 3 of 4 GiB" "got: $out" \
		grep -q "alloc 2147483648 CUDA_ERROR_OUT_OF_MEMORY" <<<"$out"
	nv=$("$C" nvml 2>&1)
	check "NVML memory info matches the shared state" "got: $nv" \
		grep -q "nvml gpu 0 total 4294967296 used 3221225472 free 1073741824 procs 2 ok" <<<"$nv"
	await "OOM across processes: the other frees" used_is 0
	out=$("$C" alloc 2G 2>&1)
	check "OOM across processes: succeeds after the other frees" "got: $out" \
		grep -q "alloc 2147483648 ok" <<<"$out"
else
	fail "OOM across processes" "first process never held 3 GiB: $(cat "$work/a.out")"
fi
kill "$a" 2>/dev/null
wait "$a" 2>/dev/null
"$C" alloc 3G , sleep 500 >/dev/null 2>&1 &
a=$!
await "OOM across processes: a holder of 3 GiB" used_is 3221225472
wait "$a"
out=$("$C" alloc 3G 2>&1)
check "OOM across processes: memory returns when the holder exits" "got: $out" \
	grep -q "alloc 3221225472 ok" <<<"$out"
unset SIMGPU_VRAM

# ---- serialised execution and the ground truth ----
"$STAT" reset
t0=$(date +%s%N)
"$C" launch 10000000 count 100 >"$work/s1.out" 2>&1 &
p1=$!
"$C" launch 10000000 count 100 >"$work/s2.out" 2>&1 &
p2=$!
wait "$p1"; r1=$?
wait "$p2"; r2=$?
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
check "serialised: two processes x 1 s of kernels take 1.8-2.6 s" \
	"took $ms ms (exit $r1 $r2)" test "$ms" -ge 1800 -a "$ms" -le 2600 -a $r1 -eq 0 -a $r2 -eq 0
"$STAT" >"$work/stat.txt"
for p in $p1 $p2; do
	ns=$(awk -v p="$p" '$1 == "proc" && $2 == p && $4 == 0 {print $10}' "$work/stat.txt")
	check "ground truth: process $p consumed 1 s +-5%" "busy_ns '${ns:-none}'" \
		test -n "$ns" -a "${ns:-0}" -ge 950000000 -a "${ns:-0}" -le 1050000000
done
cg=$(awk '$1 == "cgroup" && $4 == 0 {s += $8} END {print s + 0}' "$work/stat.txt")
check "ground truth: cgroup totals add up to 2 s +-5%" "busy_ns $cg" \
	test "$cg" -ge 1900000000 -a "$cg" -le 2100000000
if command -v python3 >/dev/null; then
	check "simgpu-stat -j is valid JSON" "$("$STAT" -j | head -c 200)" \
		bash -c '"$1" -j | python3 -c "import json,sys; json.load(sys.stdin)"' _ "$STAT"
fi

# ---- pitched and peer copies, 2D memsets, prefetch, stream memory ops ----
E=$cli/engine-client
for k in 2d 3d peer batch memset2d prefetch writevalue batchmemop array arraysync batch3d \
	prefetchbatch discardprefetch launch launchgrid launchgridasync multidevice; do
	out=$("$E" work $k 64K 5 2>&1)
	check "work $k: stream-ordered, the bytes or value land where documented" "$out" \
		grep -qx "work $k ok" <<<"$out"
done
out=$("$E" waitvalue 100000000 7 2>&1)
check "cuStreamWaitValue32 blocks its stream until another stream writes the word" "$out" \
	grep -qx "waitvalue ok" <<<"$out"
out=$("$E" errors 0 0 2>&1)
check "bad pitches, bounds, arrays, contexts, prefetch targets, flags, batches and launches get documented errors" \
	"$(tr '\n' ' ' <<<"$out")" grep -qx "errors ok" <<<"$out"
# Device time: 4 operations of 4 MiB at 64 MiB/s hold the engine 250 ms
# (what work KIND 4M 4 takes beyond work KIND 4M 0, its set-up).
gpu_busy() { "$STAT" | awk '$1 == "gpu" && $2 == 0 { print $8 }'; }
for k in 2d 3d peer batch memset2d prefetch array arraysync batch3d prefetchbatch discardprefetch; do
	"$STAT" reset
	SIMGPU_COPY_BW=64M "$E" work $k 4M 0 >/dev/null 2>&1
	b0=$(gpu_busy)
	"$STAT" reset
	SIMGPU_COPY_BW=64M "$E" work $k 4M 4 >/dev/null 2>&1
	b1=$(gpu_busy)
	check "work $k: 4 x 4 MiB hold the engine 250 ms at copy_bw 64M" \
		"$(((b1 - b0) / 1000)) us" test $((b1 - b0)) -ge 245000000 -a $((b1 - b0)) -le 255000000
done

# The deprecated launches: 4 kernels of 50 ms hold the engine 200 ms (the
# multi-device launch on each of GPUs 0 and 1).
gpu_busy_g() { "$STAT" | awk -v g="$1" '$1 == "gpu" && $2 == g { print $8 }'; }
for k in launch launchgrid launchgridasync multidevice; do
	"$STAT" reset
	"$E" work $k 50000000 4 >/dev/null 2>&1
	b0=$(gpu_busy_g 0)
	b1=$(gpu_busy_g 1)
	[ $k = multidevice ] || b1=200000000
	check "work $k: 4 kernels of 50 ms hold the engine 200 ms" "$((b0 / 1000)) us, GPU 1 $((b1 / 1000)) us" \
		test "$b0" -ge 199000000 -a "$b0" -le 205000000 -a "$b1" -ge 199000000 -a "$b1" -le 205000000
done

# ---- device time: queued kernels run back to back on a loaded host ----
# The engine must not idle while a process has kernels queued, however late
# the host thread that runs the next one wakes: 4 CPU hogs per core.
"$STAT" reset
hogs=()
for _ in $(seq $((4 * $(nproc)))); do
	sh -c 'while :; do :; done' &
	hogs+=($!)
done
"$C" launch 2000000 count 100000 streams 2 >"$work/b.out" 2>&1 &
bp=$!
# From its first kernel on (a loaded host started it late), then 0.5 s
# more for its queue to fill.
engine_busy() { [ "$("$STAT" | awk '$1 == "gpu" && $2 == 0 {print $8}')" -gt 0 ]; }
await "the launcher's first kernel runs" engine_busy
sleep 0.5
s0=$("$STAT" | awk '$1 == "gpu" && $2 == 0 {print $8, $14}')
sleep 3
s1=$("$STAT" | awk '$1 == "gpu" && $2 == 0 {print $8, $14}')
kill "$bp" "${hogs[@]}" 2>/dev/null
wait "$bp" "${hogs[@]}" 2>/dev/null
read -r b0 n0 <<<"$s0"
read -r b1 n1 <<<"$s1"
util=$(( (b1 - b0) * 1000 / (n1 - n0 > 0 ? n1 - n0 : 1) ))
# (Up to 103%: a kernel is counted when its thread takes the engine, which
# a loaded host delays past a snapshot; overlapping kernels would show far
# more.)
check "device time: queued 2 ms kernels keep the engine >= 97% busy beside CPU hogs" \
	"busy $((b1 - b0)) ns over $((n1 - n0)) ns ($util/1000)" \
	test "$util" -ge 970 -a "$util" -le 1030

# ---- kill -9 mid-kernel, holding memory ----
"$STAT" reset
"$C" alloc 1G , launch 5000000000 >"$work/k.out" 2>&1 &
k=$!
pids+=($k)
owner() { [ "$("$STAT" | awk '$1 == "gpu" && $2 == 0 {print $12}')" = "$k" ]; }
if wait_for owner; then
	t0=$(date +%s%N)
	"$C" launch 100000000 >"$work/v.out" 2>&1 &
	v=$!
	sleep 0.2
	exec 3>&2 2>/dev/null	# no "Killed" job notice
	kill -9 "$k"
	wait "$k"
	exec 2>&3 3>&-
	wait "$v"; rv=$?
	t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
	check "kill -9 mid-kernel: the other process's kernel proceeds" \
		"took $ms ms, exit $rv: $(cat "$work/v.out")" test $rv -eq 0 -a "$ms" -lt 1500
	check "kill -9: its memory returns" "used $(gpu_used 0)" wait_for used_is 0
else
	fail "kill -9 mid-kernel" "victim never took the engine: $(cat "$work/k.out")"
fi

# ---- stream capture (capture.c), as CUDA documents it ----
K=$cli/capture-client
cap_has() { # cap_has OUTPUT LINE...: every LINE is in OUTPUT
	local out=$1 l
	shift
	for l in "$@"; do grep -qx -- "$l" <<<"$out" || return 1; done
}
out=$($K global 100000 3 4M 5 0 2>&1)
check "capture: alloc, memset, copy, 3 kernels, free captured as 7 nodes, replayed" \
	"$(tr '\n' ' ' <<<"$out")" cap_has "$out" "status ok 1" "end ok" "nodes ok 7" "replays 5 ok"
for m in global thread; do
	for f in sync alloc query; do
		out=$($K $m 100000 2 4M 1 0 forbid $f 2>&1)
		check "capture: $m mode: $f during the capture fails and invalidates it" \
			"$(tr '\n' ' ' <<<"$out")" cap_has "$out" \
			"$f CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED" "end CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"
	done
done
out=$($K relaxed 100000 2 4M 1 0 forbid alloc 2>&1)
check "capture: relaxed mode: cuMemAlloc is allowed, the capture ends well" \
	"$(tr '\n' ' ' <<<"$out")" cap_has "$out" "alloc ok" "end ok"
out=$($K relaxed 100000 2 4M 1 0 forbid sync 2>&1)
check "capture: relaxed mode: cuCtxSynchronize is still illegal" \
	"$(tr '\n' ' ' <<<"$out")" cap_has "$out" \
	"sync CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED" "end CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"
out=$($K global 100000 2 4M 1 0 forbid other 2>&1)
check "capture: global mode: another thread's cuMemAlloc fails and invalidates it" \
	"$(tr '\n' ' ' <<<"$out")" cap_has "$out" \
	"other CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED" "end CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"
out=$($K thread 100000 2 4M 1 0 forbid other 2>&1)
check "capture: thread-local mode: another thread's cuMemAlloc is allowed" \
	"$(tr '\n' ' ' <<<"$out")" cap_has "$out" "other ok" "end ok"
out=$($K global 100000 2 4M 2 0 fork joined 2>&1)
check "capture: a fork joined back ends well (the forked kernel is a node)" \
	"$(tr '\n' ' ' <<<"$out")" cap_has "$out" "end ok" "nodes ok 7" "replays 2 ok"
out=$($K global 100000 2 4M 1 0 fork unjoined 2>&1)
check "capture: a fork left unjoined ends with CUDA_ERROR_STREAM_CAPTURE_UNJOINED" \
	"$(tr '\n' ' ' <<<"$out")" cap_has "$out" "end CUDA_ERROR_STREAM_CAPTURE_UNJOINED"

# ---- green contexts ----
# A green context retains its device's primary context and is a context of
# its own (SIMGPU_CTX_VRAM each); what was allocated in it goes with it.
"$STAT" reset
SIMGPU_CTX_VRAM=32M "$cli/greenctx-client" primary 0 , green 0 16 , current , alloc 8M , \
	stream , launch , pause "$work/g1" , destroy , pause "$work/g2" , green 0 1000 , \
	green 0 0 , destroy >"$work/g.out" 2>&1 &
g=$!
pids+=($g)
if wait_for grep -q "pausing $work/g1" "$work/g.out"; then
	check "green context: 32M primary + 32M green + 8M allocated in it, one process, 2 contexts" \
		"$(tr '\n' ' ' <"$work/g.out") $("$STAT" | grep "^proc $g ")" \
		bash -c '[ "$1" = $((72 * $2)) ] && grep -q "^proc $3 gpu 0 alive 1 bytes $1 .* contexts 2 " <<<"$4"' \
		_ "$(gpu_used 0)" $M $g "$("$STAT")"
	check "green context: its stream launches" "$(tr '\n' ' ' <"$work/g.out")" \
		grep -q "^launch ok" "$work/g.out"
	touch "$work/g1"
	await "green context: destroyed, paused" grep -q "pausing $work/g2" "$work/g.out"
	check "green context destroyed: the primary context alone is left" "used $(gpu_used 0)" \
		used_is $((32 * M))
	touch "$work/g2"
	wait $g 2>/dev/null
	check "green context: more SMs than the device has is CUDA_ERROR_INVALID_VALUE" \
		"$(tr '\n' ' ' <"$work/g.out")" grep -q "^green 0 1000 CUDA_ERROR_INVALID_VALUE" "$work/g.out"
	check "green context: a minimum of 0 SMs gives the smallest partition" \
		"$(tr '\n' ' ' <"$work/g.out")" grep -q "^green 0 0 ok" "$work/g.out"
	check "green context: after exit simgpu holds nothing" "used $(gpu_used 0)" used_is 0
else
	fail "green context" "client never paused: $(tr '\n' ' ' <"$work/g.out")"
fi
# ---- graph memory: the device's reserve (graphmem.c), as CUDA documents it ----
G=$cli/graphmem-client
M6=$((6 << 20))
out=$($G 6M upload launch launch trim launch 2>&1)
check "graph memory: cuGraphUpload reserves the graph's allocations before a launch" \
	"$(tr '\n' ' ' <<<"$out")" cap_has "$out" "built ok reserved 0 used 0" \
	"upload ok reserved $M6 used 0"
check "graph memory: cuDeviceGraphMemTrim gives the unused reserve back" \
	"$(tr '\n' ' ' <<<"$out")" cap_has "$out" "trim ok reserved 0 used 0"
n=$(grep -c -x "launch ok reserved $M6 used 0" <<<"$out")
check "graph memory: launches reuse the reserve (kept when freed), regrown after the trim" \
	"$n of 3 launches: $(tr '\n' ' ' <<<"$out")" \
	test "$n" = 3
out=$($G 4M keep launch trim 2>&1)
check "graph memory: memory in use is not trimmed" "$(tr '\n' ' ' <<<"$out")" \
	cap_has "$out" "launch ok reserved 4194304 used 4194304" "trim ok reserved 4194304 used 4194304"
out=$($G 6M launch trim high reset high 2>&1)
check "graph memory: high watermarks kept past the trim, reset to the current values" \
	"$(tr '\n' ' ' <<<"$out")" cap_has "$out" "high ok used $M6 reserved $M6" \
	"reset ok reserved 0 used 0" "high ok used 0 reserved 0"
$G 6M launch pause:3000 trim pause:3000 >"$work/gm.out" 2>&1 &
g=$!
await "graph memory: the graph launched" grep -q "^launch ok" "$work/gm.out"
check "graph memory: freed, the reserve is still held (ground truth)" "used $(gpu_used 0)" \
	wait_for used_is $M6
check "graph memory: trimmed, the ground truth holds nothing" "used $(gpu_used 0)" \
	wait_for used_is 0
wait "$g"
out=$(SIMGPU_VRAM=4G $G 6G upload launch 2>&1)
check "graph memory: an upload beyond the GPU fails with CUDA_ERROR_OUT_OF_MEMORY" \
	"$(tr '\n' ' ' <<<"$out")" cap_has "$out" "upload CUDA_ERROR_OUT_OF_MEMORY" \
	"launch CUDA_ERROR_OUT_OF_MEMORY"

# ---- a program built by nvcc against NVIDIA's cuda.h ----
# nvcc is the pinned wheel's (make deps); NVIDIA's wheels carry no libcuda
# stub, so -lcuda links against simgpu's libcuda.so, as against a driver's.
NVCC=${NVCC:-$top/build/deps/cuda/bin/nvcc}
if [ ! -x "$NVCC" ]; then
	fail "nvcc driver-API program" "$NVCC missing: run make deps (NVIDIA's pinned wheels) or set NVCC"
elif ! "$NVCC" -o "$work/nvcc_driver" "$cli/nvcc_driver.c" -L"$sim" -lcuda \
		>"$work/nvcc.log" 2>&1; then
	fail "nvcc driver-API program" "compile: $(tail -n 3 "$work/nvcc.log" | tr '\n' ' ')"
else
	out=$("$work/nvcc_driver" 2>&1)
	check "nvcc-built driver-API program runs unchanged on simgpu" "$(tr '\n' ' ' <<<"$out")" \
		grep -q "nvcc_driver ok" <<<"$out"
fi

[ "$fails" -eq 0 ]
