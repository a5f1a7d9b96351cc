#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVIDIA's real cuBLAS and cuBLASLt 13.4 (the pinned nvidia-cublas wheel,
# with its own statically linked CUDA 13.0 runtime) on simgpu, bare and
# under libvgpu without the module: tests/clients/cublas-smoke.c calls
# cublasCreate, cublasSgemm, cublasLtCreate and cublasLtMatmul, each
# CUBLAS_STATUS_SUCCESS, and a negative m CUBLAS_STATUS_INVALID_VALUE
# (Documentation/simgpu.md, "PyTorch on simgpu"). Run from the
# repository root. One line per check:
#   PASS: cublas: <what>    or    FAIL: cublas: <what>: <detail>
# Exit status: 0 when every check passed.
suite=cublas
. "$(dirname "$0")/lib.bash"
sim=$top/tests/simgpu
deps=${CUDA_DEPS:-$top/build/deps/cuda}
PRE=$top/libvgpu/libvgpu.so

unset SIMGPU_GPUS SIMGPU_VRAM SIMGPU_SMS SIMGPU_CTX_VRAM SIMGPU_KERNEL_NS SIMGPU_TRACE_EXPORT \
	SIMGPU_TRACE_PROCADDR VGPU_LOG LD_PRELOAD CUDA_VISIBLE_DEVICES
export SIMGPU_CONFIG=$tmp/empty.conf
: >"$SIMGPU_CONFIG"
export LD_LIBRARY_PATH=$sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# ---- build ----
if ! make -s -C "$sim" >"$tmp/build.log" 2>&1 || ! make -s -C "$top/libvgpu" libvgpu.so >>"$tmp/build.log" 2>&1; then
	fail "build simgpu and libvgpu" "$(tail -n 3 "$tmp/build.log" | tr '\n' ' ')"
	exit 1
fi
for f in include/cublas_v2.h include/cublasLt.h lib/libcublas.so.13 lib/libcublasLt.so.13 lib/libcudart.so.13; do
	if [ ! -r "$deps/$f" ]; then
		fail "NVIDIA's cuBLAS and runtime" "no $f under $deps: run make deps (NVIDIA's pinned wheels)"
		exit 1
	fi
done
# cublas_api.h includes cuda_fp16.h, which includes CCCL's <nv/target>
# for its device code only (no CCCL wheel is pinned): a C client needs
# none of it, so an empty one stands in.
mkdir -p "$tmp/inc/nv" && : >"$tmp/inc/nv/target"
if ! cc -std=gnu11 -Wall -Wextra -Werror -I"$deps/include" -I"$tmp/inc" -o "$tmp/smoke" \
	"$top/tests/clients/cublas-smoke.c" -L"$deps/lib" -l:libcublas.so.13 -l:libcublasLt.so.13 \
	-l:libcudart.so.13 -Wl,-rpath,"$deps/lib" >"$tmp/cc.log" 2>&1; then
	fail "build cublas-smoke" "$(oneline "$tmp/cc.log")"
	exit 1
fi
pass "cublas-smoke builds against the wheel's cublas_v2.h and cublasLt.h"

STEPS="malloc cublas-create sgemm sgemm-negative-m blas-sync cublas-destroy lt-create lt-desc
lt-layouts lt-matmul lt-sync lt-destroy"
steps_ok() { # steps_ok OUT: every step ok, or the first missing one
	local s
	for s in $STEPS; do grep -qx "$s ok" "$1" || { echo "no '$s ok'"; return 1; }; done
	grep -qx "cublas_smoke ok" "$1" || { echo "no 'cublas_smoke ok'"; return 1; }
}

run_smoke() { # run_smoke NAME [ENV...]: its output in $tmp/NAME.out, .err
	local name=$1 rc t0
	shift
	export SIMGPU_STATE=$tmp/state-$name
	t0=$(date +%s.%N)
	env "$@" timeout 300 "$tmp/smoke" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	secs=$(echo "$(date +%s.%N) - $t0" | bc | cut -c1-4)
	return $rc
}

for mode in bare libvgpu; do
	if [ $mode = bare ]; then run_smoke $mode; else run_smoke $mode LD_PRELOAD="$PRE"; fi
	rc=$?
	why=$(steps_ok "$tmp/$mode.out")
	check "$mode: cublasCreate, cublasSgemm, cublasLtCreate, cublasLtMatmul succeed ($secs s)" \
		"exit $rc, $why: $(grep -v ' ok$' "$tmp/$mode.out" | tr '\n' ' ' | cut -c1-200) $(oneline "$tmp/$mode.err")" \
		test "$rc" = 0 -a -z "$why"
	# (cuBLAS prints its complaint on stdout)
	check "$mode: cublasSgemm with m = -1 is CUBLAS_STATUS_INVALID_VALUE, and cuBLAS names parameter 3" \
		"$(grep -E 'sgemm-negative-m|illegal' "$tmp/$mode.out" | tr '\n' ' ')" \
		grep -q 'parameter number 3 had an illegal value' "$tmp/$mode.out"
done
check "libvgpu: one warning says it passes through" "$(oneline "$tmp/libvgpu.err")" \
	test "$(grep -c 'passing CUDA and NVML through without vgpu limits' "$tmp/libvgpu.err")" = 1

# Three runtimes start: libcudart.so.13 (13.5) and the CUDA 13.0 runtimes
# linked into libcublas and libcublasLt, each with its integrity check
# (simgpu.md, "Versions").
run_smoke trace SIMGPU_TRACE_EXPORT=1
check "the 13.0 runtimes in cuBLAS and cuBLASLt pass simgpu's integrity check (13000-13002, twice)" \
	"$(grep INTEGRITY "$tmp/trace.err" | tr '\n' ' ')" \
	test "$(grep -c '^simgpu: export INTEGRITY_CHECK\[1\] version 1300[012]$' "$tmp/trace.err")" = 6
check "cuBLASLt's launches ask TOOLS_TLS[2] and TOOLS_CONTEXT[4] (the current context and its id)" \
	"$(grep -c 'TOOLS_' "$tmp/trace.err") calls" \
	grep -q '^simgpu: export TOOLS_CONTEXT\[4\] ctx 0x' "$tmp/trace.err"

[ "$failures" -eq 0 ]
