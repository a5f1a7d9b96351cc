#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVIDIA's CUDA runtime (libcudart, from the pinned wheels) on simgpu:
# tests/clients/cudart_smoke.cu built by the wheels' nvcc with -cudart
# shared and -cudart static, run bare and under libvgpu without the
# module, and simgpu's private export tables asked directly
# (Documentation/simgpu.md, "Private export tables"). Run from the
# repository root. One line per check:
#   PASS: cudart: <what>    or    FAIL: cudart: <what>: <detail>
# Exit status: 0 when every check passed.
suite=cudart
. "$(dirname "$0")/lib.bash"
sim=$top/tests/simgpu
cli=$top/tests/clients
deps=${CUDA_DEPS:-$top/build/deps/cuda}
NVCC=${NVCC:-$deps/bin/nvcc}
PRE=$top/libvgpu/libvgpu.so
field_of() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' <<<"$2"; }

unset SIMGPU_GPUS SIMGPU_VRAM SIMGPU_SMS SIMGPU_CTX_VRAM SIMGPU_KERNEL_NS SIMGPU_TRACE_EXPORT \
	VGPU_LOG LD_PRELOAD CUDA_VISIBLE_DEVICES
export SIMGPU_CONFIG=$tmp/empty.conf
: >"$SIMGPU_CONFIG"
export LD_LIBRARY_PATH=$sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# ---- build ----
if ! make -s -C "$sim" >"$tmp/build.log" 2>&1 || ! make -s -C "$top/libvgpu" libvgpu.so >>"$tmp/build.log" 2>&1; then
	fail "build simgpu and libvgpu" "$(tail -n 3 "$tmp/build.log" | tr '\n' ' ')"
	exit 1
fi
if [ ! -x "$NVCC" ] || [ ! -r "$deps/lib/libcudart.so.13" ] || [ ! -r "$deps/lib/libcudart_static.a" ]; then
	fail "NVIDIA's nvcc and libcudart" "missing under $deps: run make deps (NVIDIA's pinned wheels)"
	exit 1
fi
# The wheels carry libcudart.so.13 only: -lcudart needs the plain name.
mkdir -p "$tmp/lib" && ln -s "$deps/lib/libcudart.so.13" "$tmp/lib/libcudart.so"
for rt in shared static; do
	t0=$(date +%s.%N)
	if "$NVCC" -cudart "$rt" -L"$tmp/lib" -Xlinker -rpath="$deps/lib" -o "$tmp/smoke-$rt" \
		"$cli/cudart_smoke.cu" >"$tmp/nvcc-$rt.log" 2>&1; then
		pass "nvcc -cudart $rt builds cudart_smoke ($(echo "$(date +%s.%N) - $t0" | bc | cut -c1-4) s)"
	else
		fail "nvcc -cudart $rt builds cudart_smoke" "$(oneline "$tmp/nvcc-$rt.log")"
	fi
done
needed() { readelf -d "$1" 2>/dev/null | grep -c 'NEEDED.*libcudart'; }
check "the shared build needs libcudart.so.13, the static one does not" \
	"shared $(needed "$tmp/smoke-shared"), static $(needed "$tmp/smoke-static")" \
	test "$(needed "$tmp/smoke-shared")" = 1 -a "$(needed "$tmp/smoke-static")" = 0
if ! cc -std=gnu11 -Wall -Wextra -Werror -I"$deps/include" -o "$tmp/xt" \
	"$cli/exporttab-client.c" -L"$sim" -lcuda >"$tmp/xt.log" 2>&1; then
	fail "build exporttab-client" "$(oneline "$tmp/xt.log")"
fi

STEPS="runtime-version driver-version device-count set-device mem-info malloc memcpy-h2d
memcpy-d2h data launch launch-sync mem-info-after-launch stream-create capture-begin capture-launch capture-copy
capture-end graph-instantiate graph-launch stream-sync graph-exec-destroy graph-destroy
stream-destroy free device-sync malloc-too-big after-oom-malloc after-oom-free device-reset
after-reset-malloc after-reset-free"
ENTRIES="cuMemAlloc:default:cuMemAlloc_v2 cuMemcpyHtoD:default:cuMemcpyHtoD_v2
cuLaunchKernel:default:cuLaunchKernel cuLaunchKernel:per-thread:cuLaunchKernel_ptsz
cuStreamBeginCapture:default:cuStreamBeginCapture_v2 cuGraphLaunch:default:cuGraphLaunch
cuMemGetInfo:default:cuMemGetInfo_v2"

# Every step ok, and each entry point answered from LIB.
smoke_ok() { # smoke_ok OUT LIB
	local s e n
	for s in $STEPS; do grep -q "^$s ok" "$1" || { echo "no '$s ok'"; return 1; }; done
	for e in $ENTRIES; do
		IFS=: read -r n f sym <<<"$e"
		grep -qx "entry $n $f in $2 as $sym" "$1" || { echo "no 'entry $n $f in $2 as $sym'"; return 1; }
	done
	grep -qx "cudart_smoke ok" "$1" || { echo "no 'cudart_smoke ok'"; return 1; }
}

for rt in shared static; do
	b=$tmp/smoke-$rt
	[ -x "$b" ] || continue
	export SIMGPU_STATE=$tmp/state-$rt
	t0=$(date +%s.%N)
	timeout 120 "$b" >"$tmp/$rt.out" 2>"$tmp/$rt.err"
	rc=$?
	secs=$(echo "$(date +%s.%N) - $t0" | bc | cut -c1-4)
	why=$(smoke_ok "$tmp/$rt.out" libcuda.so.1)
	check "$rt runtime on simgpu: every step ok, data copied back, past-memory cudaMalloc is cudaErrorMemoryAllocation ($secs s)" \
		"exit $rc, $why: $(grep -v ' ok' "$tmp/$rt.out" | tr '\n' ' ' | cut -c1-300) $(oneline "$tmp/$rt.err")" \
		test "$rc" = 0 -a -z "$why"
	# Engine work: the <<<>>> launch, the graph's kernel (10 us each,
	# kernel_ns) and three copies (H2D, D2H, the graph's); after exit the
	# process holds no context (the runtime releases its primary context
	# in its own exit handlers, after simgpu's).
	st=$("$sim/simgpu-stat" | grep '^proc .* gpu 0 ')
	n=$(field_of kernels "$st")
	busy=$(field_of busy_ns "$st")
	check "$rt runtime: 2 launches and 3 copies held simgpu's engine (at least 20 us), no context left after exit" \
		"$st" test "$n" = 5 -a "${busy:-0}" -ge 20000 -a "$(field_of contexts "$st")" = 0
	check "$rt runtime: the runtime's cuGetProcAddress answers simgpu's exports" \
		"$(grep '^entry' "$tmp/$rt.out" | tr '\n' ' ')" \
		test "$(grep -c "^entry .* in libcuda.so.1 as " "$tmp/$rt.out")" = 7

	# A GPU of 1 GiB and contexts of 64 MiB: cudaMemGetInfo after
	# cudaSetDevice shows it, with one context (the runtime asks every
	# device's primary context handle at start and starts only device 0's).
	SIMGPU_STATE=$tmp/state-$rt-1g SIMGPU_VRAM=1G SIMGPU_CTX_VRAM=64M timeout 120 "$b" $(((960 << 20) + 4096)) \
		>"$tmp/$rt-1g.out" 2>&1
	rc=$?
	check "$rt runtime, 1 GiB GPU: cudaMemGetInfo shows it, with one 64 MiB context" \
		"exit $rc: $(grep -E '^mem free|malloc-too-big|FAILED' "$tmp/$rt-1g.out" | tr '\n' ' ')" \
		grep -qx "mem free $(((1024 - 64) << 20)) total $((1 << 30))" "$tmp/$rt-1g.out"
	check "$rt runtime, 1 GiB GPU: 4 KiB more than is free is cudaErrorMemoryAllocation, and later allocations work" \
		"exit $rc: $(grep -E 'malloc-too-big|after-oom' "$tmp/$rt-1g.out" | tr '\n' ' ')" \
		test "$rc" = 0

	# Under libvgpu without vgpu.ko: it passes through (libvgpu.md,
	# "Registration": "Module absent ... everything passes through
	# untouched, and one warning says so"), and the runtime's look-ups
	# answer libvgpu's wrappers.
	t0=$(date +%s.%N)
	LD_PRELOAD=$PRE VGPU_LOG=debug timeout 120 "$b" >"$tmp/$rt-pre.out" 2>"$tmp/$rt-pre.err"
	rc=$?
	secs=$(echo "$(date +%s.%N) - $t0" | bc | cut -c1-4)
	why=$(smoke_ok "$tmp/$rt-pre.out" libvgpu.so)
	check "$rt runtime under libvgpu without the module: every step ok, the runtime's cuGetProcAddress answers libvgpu's wrappers ($secs s)" \
		"exit $rc, $why: $(grep -v ' ok' "$tmp/$rt-pre.out" | tr '\n' ' ' | cut -c1-300)" \
		test "$rc" = 0 -a -z "$why"
	check "$rt runtime under libvgpu: one warning says it passes through" \
		"$(oneline "$tmp/$rt-pre.err")" \
		test "$(grep -c 'passing CUDA and NVML through without vgpu limits' "$tmp/$rt-pre.err")" = 1
	check "$rt runtime under libvgpu: the runtime's own capture and graph calls reach libvgpu's wrappers" \
		"$(oneline "$tmp/$rt-pre.err")" \
		grep -q 'capture begun on stream' "$tmp/$rt-pre.err"
done

# ---- the tables themselves ----
export SIMGPU_STATE=$tmp/state-xt
if [ -x "$tmp/smoke-static" ]; then
	SIMGPU_TRACE_EXPORT=1 "$tmp/smoke-static" >/dev/null 2>"$tmp/trace.err"
	want="CUDART_INTERFACE TOOLS_RUNTIME_CALLBACK_HOOKS TOOLS_TLS TOOLS_CONTEXT CONTEXT_LOCAL_STORAGE_INTERFACE_V0301 CONTEXT_CHECKS INTEGRITY_CHECK"
	got=$(sed -n 's/^simgpu: export table [0-9a-f]*: \([A-Z_0-9]*\) (.*/\1/p' "$tmp/trace.err" | tr '\n' ' ')
	check "SIMGPU_TRACE_EXPORT=1 names the tables the 13.5 runtime asks for, in order" \
		"got '$got'" test "$got" = "$want "
	check "SIMGPU_TRACE_EXPORT=1: the table f8cff951... is refused" "$(oneline "$tmp/trace.err")" \
		grep -q "^simgpu: export table f8cff95121468b4eb9e2fb469e7c0dd9: unknown, not served" "$tmp/trace.err"
	check "SIMGPU_TRACE_EXPORT=1 logs the modelled slots called (integrity check at 13050-13052)" \
		"$(oneline "$tmp/trace.err")" \
		test "$(grep -c '^simgpu: export INTEGRITY_CHECK\[1\] version 1305[012]$' "$tmp/trace.err")" = 3
	check "cudaDeviceReset calls the runtime's context-local storage destructor, once" \
		"$(grep -c 'CONTEXT_LOCAL_STORAGE destructor' "$tmp/trace.err") calls" \
		test "$(grep -c '^simgpu: export CONTEXT_LOCAL_STORAGE destructor ctx' "$tmp/trace.err")" = 1
fi
if [ -x "$tmp/xt" ]; then
	out=$("$tmp/xt" size 6bd5fb6c5bf4e74a8987d93912fd9df9 2>&1)
	check "CUDART_INTERFACE's size header: 13 slots" "$out" test "$out" = "size rc 0 bytes 104"
	out=$("$tmp/xt" size 00000000000000000000000000000000 2>&1)
	check "an unknown table id is CUDA_ERROR_INVALID_VALUE and no table" "$out" \
		test "$out" = "size rc 1 bytes 0"
	# (the braces keep bash's "Aborted" notice out of the output)
	rc=$({ "$tmp/xt" call 6bd5fb6c5bf4e74a8987d93912fd9df9 1 >"$tmp/trap.out" 2>"$tmp/trap.err"; echo $?; } 2>/dev/null)
	check "a slot not modelled is a trap: it names table and slot and aborts" \
		"exit $rc: $(oneline "$tmp/trap.err")" test "$rc" = 134 -a \
		"$(grep -c '^simgpu: private export table CUDART_INTERFACE (0) slot 1 called: not simulated' "$tmp/trap.err")" = 1
	rc=$({ "$tmp/xt" call 21318c60971432488ca641ff7324c8f2 94 >"$tmp/trap.out" 2>"$tmp/trap.err"; echo $?; } 2>/dev/null)
	check "TOOLS_CONTEXT's last slot (94) is a trap of its own" "exit $rc: $(oneline "$tmp/trap.err")" \
		grep -q '^simgpu: private export table TOOLS_CONTEXT (9) slot 94 called' "$tmp/trap.err"
	out=$("$tmp/xt" integrity 13052 2>&1)
	check "the integrity check answers the 13.5 runtime" "$out" test "$out" = "integrity rc 0"
	"$tmp/xt" integrity 12082 >"$tmp/old.out" 2>"$tmp/old.err"
	check "a runtime simgpu does not serve (12.8) gets one clear error: CUDA_ERROR_NOT_SUPPORTED" \
		"$(oneline "$tmp/old.out") $(oneline "$tmp/old.err")" \
		grep -q '^simgpu: CUDA runtime 12.8: its private export tables are not verified on simgpu' "$tmp/old.err"
	check "... and the call answers CUDA_ERROR_NOT_SUPPORTED (801)" "$(oneline "$tmp/old.out")" \
		grep -qx 'integrity rc 801' "$tmp/old.out"
fi

[ "$failures" -eq 0 ]
