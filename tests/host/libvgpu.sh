#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of libvgpu (the preloaded interposer), against simgpu, with
# vgpu.ko absent (enforcement and the compute gate with the module are
# tested in the VM suites; the gate's logic against a fake page here). Run from the
# repository root. One line per check:
#   PASS: libvgpu: <what>    or    FAIL: libvgpu: <what>: <detail>
# Exit status: 0 when every check passed.
set -u

top=$(pwd)
sim=$top/tests/simgpu
cli=$top/tests/clients
lib=$top/libvgpu
work=$(mktemp -d /tmp/libvgpu-test.XXXXXX)
fails=0

trap 'rm -rf "$work"' EXIT

pass() { echo "PASS: libvgpu: $1"; }
fail() { echo "FAIL: libvgpu: $1: $2"; fails=$((fails + 1)); }

export SIMGPU_STATE=$work/state
export SIMGPU_CONFIG=$work/empty.conf
: > "$SIMGPU_CONFIG"
unset SIMGPU_GPUS SIMGPU_VRAM SIMGPU_SMS SIMGPU_CTX_VRAM SIMGPU_KERNEL_NS VGPU_LOG LD_PRELOAD
export LD_LIBRARY_PATH=$sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
PRE=$lib/libvgpu.so
C=$cli/simgpu-client

# ---- build ----
build() { # build WHAT DIR [TARGETS]
	local what=$1 dir=$2
	shift 2
	if make -s -C "$dir" "$@" >"$work/build.log" 2>&1; then
		pass "build $what"
	else
		fail "build $what" "$(tail -n 3 "$work/build.log" | tr '\n' ' ')"
		exit 1
	fi
}
build "simgpu" "$sim"
build "clients" "$cli"
build "libvgpu.so (-Wall -Wextra -Werror)" "$lib" all
build "libvgpu test programs and ASan/UBSan logic tests" "$lib" tests

# ---- pure logic under ASan and UBSan ----
if "$lib/test-logic-asan" >"$work/asan.out" 2>&1; then
	cat "$work/asan.out"
else
	grep -E '^(PASS|FAIL): ' "$work/asan.out"
	fail "logic under ASan/UBSan" "$(grep -v '^PASS' "$work/asan.out" | head -n 5 | tr '\n' ' ')"
fi

# ---- what the library is ----
needed=$(readelf -d "$PRE" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
if echo "$needed" | grep -qvE '^((libc|libdl|libpthread|ld-linux[-a-z0-9_]*)\.so\.[0-9]+ )+$'; then
	fail "links libc (-ldl -pthread) only" "NEEDED: $needed"
else
	pass "links libc (-ldl -pthread) only: $needed"
fi
"$lib/tests/hookcheck" list >"$work/hooks"
nm -D --defined-only "$sim/libcuda.so.1" | awk '{print $3}' >"$work/cuda.syms"
nm -D --defined-only "$sim/libnvidia-ml.so.1" | awk '{print $3}' >"$work/nvml.syms"
missing=$(awk '$1 == "CU" {print $2}' "$work/hooks" | grep -vxFf "$work/cuda.syms")
missing+=$(awk '$1 == "NV" {print $2}' "$work/hooks" | grep -vxFf "$work/nvml.syms")
if [ -z "$missing" ]; then
	pass "every hooked name ($(wc -l <"$work/hooks")) is exported by simgpu's libcuda.so.1 / libnvidia-ml.so.1"
else
	fail "every hooked name is exported by simgpu" "missing: $(echo $missing)"
fi
nm -D --defined-only "$PRE" | awk '{print $3}' | sort >"$work/vgpu.syms"
{ awk '{print $2}' "$work/hooks"; printf '%s\n' dlsym dlvsym vgpu_version; } | sort >"$work/want.syms"
if diff -q "$work/vgpu.syms" "$work/want.syms" >/dev/null; then
	pass "libvgpu.so exports the hook table's names, dlsym, dlvsym and vgpu_version only"
else
	fail "libvgpu.so exports" "$(diff "$work/want.syms" "$work/vgpu.syms" | grep '^[<>]' | tr '\n' ' ')"
fi

# ---- every allocating, launching, copying or context-creating entry point
# of cudaTypedefs.h is hooked or passed through on purpose (libvgpu.md) ----
ep=$top/tests/tools/cuda-entry-points
tdefs=${CUDA_INC:-$top/build/deps/cuda/include}/cudaTypedefs.h
what="every allocating, launching, copying or context-creating entry point is hooked or listed as passed through"
if out=$("$ep" --typedefs "$tdefs" 2>&1); then
	pass "$what: $out"
else
	fail "$what" "$(echo "$out" | tr '\n' ' ')"
fi
# It can fail: the same check without cuMemcpyPeerAsync's HOOK rows, with a
# header that has one entry point more, and with a stale table row.
sed '/^HOOK(CU, cuMemcpyPeerAsync\(_ptsz\)\?,/d' "$lib/hooks.def" >"$work/hooks.def"
{ cat "$tdefs"; echo 'typedef CUresult (CUDAAPI *PFN_cuMemcpyVgpuProbe_v99990)(void);'; } \
	>"$work/cudaTypedefs.h"
sed 's/^## Passed through on purpose$/&\n\n| `cuMemAllocVgpuGone` | allocating | probe |/' \
	"$top/Documentation/libvgpu.md" >"$work/libvgpu.md"
for neg in "--hooks $work/hooks.def|cuMemcpyPeerAsync (copying): neither hooked" \
	   "--typedefs $work/cudaTypedefs.h|cuMemcpyVgpuProbe (copying): neither hooked" \
	   "--doc $work/libvgpu.md|cuMemAllocVgpuGone: listed as passed through, but .* (stale)"; do
	read -ra args <<<"${neg%%|*}"
	out=$("$ep" --typedefs "$tdefs" "${args[@]}" 2>&1)
	rc=$?
	if [ "$rc" = 1 ] && grep -q "^${neg#*|}" <<<"$out"; then
		pass "the entry-point check fails ($rc) and names the offender: $(grep "^${neg#*|}" <<<"$out")"
	else
		fail "the entry-point check fails on ${neg#*|}" "exit $rc: $(echo "$out" | tr '\n' ' ')"
	fi
done

# ---- every export begins with its nesting guard (nest.h) ----
nc=$top/tests/tools/nest-check
# libvgpu's files (sources.mk's list, in their folders); -I$lib/cuda lets
# the negative runs' copies below (in $work) find "../access/hooks.h" and
# the other folders' headers they name.
srcs=()
for s in $(make -s --no-print-directory -C "$lib" -f sources.mk list-LIBVGPU_SRCS); do
	srcs+=("$top/$s")
done
ncflags="-I$lib/cuda -I${CUDA_INC:-$top/build/deps/cuda/include} -std=c11 -D_GNU_SOURCE"
what="every exported wrapper passes a call from inside the driver straight through (nest.h)"
if [ "${#srcs[@]}" -lt 20 ]; then
	fail "$what" "libvgpu/sources.mk lists ${#srcs[@]} files"
elif out=$("$nc" --so "$PRE" --cflags "$ncflags" "${srcs[@]}" 2>&1); then
	pass "$what: $out"
else
	fail "$what" "$(echo "$out" | head -n 5 | tr '\n' ' ')"
fi
# It can fail: alloc.c without cuMemAlloc_v2's guard, engine.h without the
# fast path's.
sed '/VGPU_PASS_NESTED(cuMemAlloc_v2,/d' "$lib/cuda/alloc.c" >"$work/alloc.c"
sed 's/VGPU_PASS_NESTED_HOT(real, args);//' "$lib/cuda/engine.h" >"$work/engine.h"
cp "$lib/cuda/launch.c" "$work/launch.c"
for neg in "alloc.c|$work/alloc.c: cuMemAlloc_v2: does not begin with VGPU_PASS_NESTED" \
	   "launch.c|$work/launch.c: cuLaunchKernel: does not begin with VGPU_PASS_NESTED"; do
	files=()
	for f in "${srcs[@]}"; do
		[ "${f##*/}" = "${neg%%|*}" ] && f=$work/${neg%%|*}
		files+=("$f")
	done
	out=$("$nc" --so "$PRE" --cflags "-I$work $ncflags" "${files[@]}" 2>&1)
	rc=$?
	if [ "$rc" = 1 ] && grep -qF "${neg#*|}" <<<"$out"; then
		pass "the guard check fails ($rc) and names the offender: ${neg#*|}"
	else
		fail "the guard check fails on ${neg#*|}" "exit $rc: $(echo "$out" | head -n 3 | tr '\n' ' ')"
	fi
done

# ---- interposition ----
LD_PRELOAD=$PRE "$lib/tests/hookcheck" >"$work/hookcheck.out" 2>"$work/hookcheck.err"
rc=$?
grep -E '^(PASS|FAIL): ' "$work/hookcheck.out"
grep -q '^FAIL' "$work/hookcheck.out" && fails=$((fails + 1))
[ "$rc" -ne 0 ] && ! grep -q '^FAIL' "$work/hookcheck.out" &&
	fail "hookcheck" "exit $rc: $(head -c 300 "$work/hookcheck.err")"

# The same with a driver whose cuGetProcAddress answers are not its exports:
# libvgpu's self-check notices, says so once, and maps look-ups by name.
SIMGPU_PROCADDR=distinct LD_PRELOAD=$PRE "$lib/tests/hookcheck" >"$work/hookd.out" 2>"$work/hookd.err"
rc=$?
sed -n 's/^\(PASS\|FAIL\): libvgpu: /\1: libvgpu: distinct entry points: /p' "$work/hookd.out"
grep -q '^FAIL' "$work/hookd.out" && fails=$((fails + 1))
[ "$rc" -ne 0 ] && ! grep -q '^FAIL' "$work/hookd.out" &&
	fail "hookcheck, distinct entry points" "exit $rc: $(head -c 300 "$work/hookd.err")"
# And with a driver whose exports call their siblings through the dynamic
# linker (SIMGPU_SELFCALL=plt: cuGetProcAddress -> cuGetProcAddress_v2, as a
# library built without -Bsymbolic): before nest.h the first look-up hung in
# libvgpu's self-check, waiting on itself.
SIMGPU_SELFCALL=plt LD_PRELOAD=$PRE timeout 60 "$lib/tests/hookcheck" >"$work/hooks.out" 2>"$work/hooks.err"
rc=$?
sed -n 's/^\(PASS\|FAIL\): libvgpu: /\1: libvgpu: driver calling its own exports: /p' "$work/hooks.out"
grep -q '^FAIL' "$work/hooks.out" && fails=$((fails + 1))
[ "$rc" -ne 0 ] && ! grep -q '^FAIL' "$work/hooks.out" &&
	fail "hookcheck, a driver calling its own exports" "exit $rc (124: hung): $(head -c 300 "$work/hooks.err")"
# A driver newer than libvgpu's headers (SIMGPU_PROCADDR_NEWER: cuMemAlloc
# has a variant from API version 99990 on that no cuda.h names): libvgpu
# cannot wrap what it does not know, so the look-up is refused and said
# once, with either kind of answer (issue 28, finding 2). Without a newer
# variant, the same look-up is libvgpu's cuMemAlloc_v2.
newer='a variant newer than the CUDA'
for mode in exports distinct; do
	SIMGPU_PROCADDR=$mode SIMGPU_PROCADDR_NEWER=99990 LD_PRELOAD=$PRE \
		"$lib/tests/hookcheck" newer 99990 refused >"$work/newer.out" 2>"$work/newer.err"
	rc=$?
	n=$(grep -c "$newer" "$work/newer.err")
	if [ "$rc" -eq 0 ] && [ "$n" -eq 1 ]; then
		pass "$mode: a cuMemAlloc variant newer than libvgpu's headers is refused twice, said once ($(grep -c '^PASS' "$work/newer.out") checks)"
	else
		fail "$mode: a cuMemAlloc variant newer than libvgpu's headers is refused, said once" \
			"exit $rc, $n warnings: $(grep -v '^PASS' "$work/newer.out" "$work/newer.err" | head -n 3 | tr '\n' ' ')"
	fi
	SIMGPU_PROCADDR=$mode LD_PRELOAD=$PRE "$lib/tests/hookcheck" newer 99990 wrapped \
		>"$work/newer.out" 2>"$work/newer.err"
	rc=$?
	if [ "$rc" -eq 0 ] && ! grep -q "$newer" "$work/newer.err"; then
		pass "$mode: cuMemAlloc at a newer version the driver answers with a known variant is wrapped, nothing said"
	else
		fail "$mode: cuMemAlloc at a newer version, a known variant" \
			"exit $rc: $(grep -v '^PASS' "$work/newer.out" "$work/newer.err" | head -n 3 | tr '\n' ' ')"
	fi
done
SIMGPU_PROCADDR_NEWER=13abc LD_PRELOAD=$PRE "$lib/tests/hookcheck" newer 99990 wrapped \
	>"$work/newer.out" 2>"$work/newer.err"
rc=$?
if [ "$rc" -eq 0 ] && grep -q 'SIMGPU_PROCADDR_NEWER="13abc" is not an API version' "$work/newer.err"; then
	pass "simgpu says a malformed SIMGPU_PROCADDR_NEWER on stderr and answers as without it"
else
	fail "a malformed SIMGPU_PROCADDR_NEWER" "exit $rc: $(head -c 300 "$work/newer.err")"
fi
byname='mapping look-ups by name'
n_ex=$(grep -c "$byname" "$work/hookcheck.err")
n_di=$(grep -c "$byname" "$work/hookd.err")
if [ "$n_ex" -eq 0 ] && [ "$n_di" -eq 1 ]; then
	pass "the cuGetProcAddress self-check says once that it maps by name with distinct entry points, and nothing with exports"
else
	fail "cuGetProcAddress self-check log" "by-name lines: $n_ex with exports, $n_di with distinct (want 0 and 1)"
fi

out=$(LD_PRELOAD=$PRE "$lib/tests/linked" 2>"$work/linked.err")
if [ "$out" = "$(printf 'cuMemAlloc_v2 in libvgpu\nlinked ok (0)')" ]; then
	pass "a program linked with -lcuda calls the exported wrappers and works"
else
	fail "program linked with -lcuda" "$(echo "$out" | tr '\n' ' ')"
fi

plain=$("$lib/tests/nexttest" 2>&1)
pre=$(LD_PRELOAD=$PRE "$lib/tests/nexttest" 2>&1)
if [ "${pre%, vgpu_version: *}" = "${plain%, vgpu_version: *}" ] &&
   [ "${pre##*vgpu_version: }" = "libvgpu.so" ]; then
	pass "dlsym(RTLD_NEXT) stays relative to its caller under the preload"
else
	fail "dlsym(RTLD_NEXT) relative to its caller" "without: $plain; with: $pre"
fi

# ASan's runtime first, as a program built with -fsanitize=address has it:
# it looks names up through libvgpu's dlsym while it starts, before its
# string interceptors work (libvgpu's look-up called strcmp: SIGSEGV).
asan=$(${CC:-cc} -print-file-name=libasan.so)
if [ ! -e "$asan" ]; then
	fail "a program with ASan's runtime loaded first" "no libasan.so from ${CC:-cc} (make deps)"
elif out=$(LD_PRELOAD="$asan:$PRE" ASAN_OPTIONS=detect_leaks=0 "$lib/tests/linked" 2>"$work/asanfirst.err") &&
     [ "$out" = "$(printf 'cuMemAlloc_v2 in libvgpu\nlinked ok (0)')" ]; then
	pass "a program with ASan's runtime loaded before libvgpu starts and calls the wrappers"
else
	fail "a program with ASan's runtime loaded before libvgpu" \
		"got: $(echo "$out" | tr '\n' ' ') $(head -c 300 "$work/asanfirst.err")"
fi

# ---- module absent: everything passes through, said once ----
script='alloc 256M count 4 , info , free , memcpy 1M , launch 100000 count 20 streams 2 threads 2 , pattern vmm 2M steps 8 , pattern pool 1M count 8 , graph 100000 count 4 , nvml'
for flav in "" "-p"; do
	name="simgpu-client ${flav:+$flav }(runtime-style loading) passes through with the module absent"
	if LD_PRELOAD=$PRE $C $flav $script >"$work/client.out" 2>"$work/client.err"; then
		n=$(grep -c 'passing CUDA and NVML through' "$work/client.err")
		other=$(grep -v 'passing CUDA and NVML through' "$work/client.err" | head -n 3)
		if [ "$n" = 1 ] && [ -z "$other" ]; then
			pass "$name: alloc/free/memcpy/launch/VMM/pool/graph/NVML, one warning"
		else
			fail "$name" "$n warnings; stderr: $(echo "$other" | tr '\n' ' ')"
		fi
	else
		fail "$name" "$(grep -v ' ok$' "$work/client.out" | head -n 3 | tr '\n' ' ') $(head -c 300 "$work/client.err")"
	fi
done
# ---- the compute gate with the module absent: every launch reaches simgpu ----
kernels() { # PID: kernels simgpu ran for it
	"$sim/simgpu-stat" | awk -v p="$1" '$1 == "proc" && $2 == p {
		for (i = 3; i < NF; i++) if ($i == "kernels") k += $(i + 1) } END { print k + 0 }'
}
out=$(LD_PRELOAD=$PRE "$lib/tests/launchcheck" 2>"$work/launch.err")
rc=$?
pid=$(echo "$out" | sed -n 's/^pid //p')
n=$(echo "$out" | sed -n 's/^launched //p')
k=$(kernels "$pid")
inlib=$(echo "$out" | grep -c ' in libvgpu: 0$')
if [ "$rc" = 0 ] && [ "$n" = 6 ] && [ "$k" = 6 ] && [ "$inlib" = 6 ]; then
	pass "module absent: cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel (+_ptsz) wrappers pass launches through (6 of 6 run by simgpu; contexts via SetCurrent/Push/Pop)"
else
	fail "launches pass through with the module absent" "exit $rc, launched $n, simgpu ran $k, $inlib wrappers: $(echo "$out" | grep -v ': 0$' | tr '\n' ' ') $(head -c 200 "$work/launch.err")"
fi
read -ra pattern <<<'launch 100000 count 50 streams 4 threads 4 , async 10000 count 20 , sync , graph 100000 count 8'
for flav in "" "-p"; do
	$C ${flav:+"$flav"} "${pattern[@]}" >/dev/null 2>&1 &
	wait $!
	want=$(kernels $!)
	LD_PRELOAD=$PRE $C ${flav:+"$flav"} "${pattern[@]}" >"$work/pat.out" 2>/dev/null &
	wait $!
	rc=$?
	got=$(kernels $!)
	if [ "$rc" = 0 ] && [ "$got" = "$want" ] && [ "$got" -gt 0 ]; then
		pass "module absent: simgpu-client ${flav:+$flav }launch patterns (4 threads x 4 streams, async, graphs) run the same $got kernels as without libvgpu"
	else
		fail "simgpu-client ${flav:+$flav }launch patterns" "exit $rc, $got kernels with libvgpu, $want without: $(grep -v ' ok$' "$work/pat.out" | head -n 2 | tr '\n' ' ')"
	fi
done

a=$($C info , nvml 2>&1 | sed 's/procs [0-9]*//')
b=$(LD_PRELOAD=$PRE $C info , nvml 2>/dev/null | sed 's/procs [0-9]*//')
if [ "$a" = "$b" ]; then
	pass "views are the driver's own without the module (cuMemGetInfo, NVML)"
else
	fail "views without the module" "without: $(echo $a); with: $(echo $b)"
fi
# NVML 12.4+'s detail list and newer samples: bad input reaches the caller
# as simgpu's own answer (NVIDIA's documented codes), with libvgpu or not.
want="detail null 2 version 2 mode 2 entries-no-array 2 util2 null 2 version 25 no-array 7"
a=$($cli/nvml-procs bad 2>&1)
b=$(LD_PRELOAD=$PRE VGPU_LOG=none $cli/nvml-procs bad 2>&1)
if [ "$a" = "$want" ] && [ "$b" = "$want" ]; then
	pass "nvmlDeviceGetRunningProcessDetailList and nvmlDeviceGetProcessesUtilizationInfo: bad input gets NVML's own error through libvgpu ($want)"
else
	fail "NVML 12.4+ process calls, bad input" "without: $a; with: $b"
fi
if LD_PRELOAD=$PRE VGPU_LOG=bogus $C info >/dev/null 2>"$work/bad.err" &&
   grep -q 'VGPU_LOG="bogus" is not one of' "$work/bad.err"; then
	pass "a bad VGPU_LOG gives a warning and the default"
else
	fail "bad VGPU_LOG" "$(head -c 300 "$work/bad.err")"
fi

# ---- stream capture through libvgpu (module absent): captured, replayed ----
for m in global thread; do
	out=$(LD_PRELOAD=$PRE $cli/capture-client $m 100000 4 4M 20 0 2>/dev/null)
	if echo "$out" | grep -q '^end ok' && echo "$out" | grep -q '^nodes ok 8$' &&
	   echo "$out" | grep -q '^replays 20 ok'; then
		pass "module absent: a $m-mode capture (alloc, memset, copy, kernels, free) through libvgpu ends well, 8 nodes, 20 replays"
	else
		fail "$m-mode capture through libvgpu" "$(echo "$out" | grep -v ' ok' | tr '\n' ' ')"
	fi
	out=$(LD_PRELOAD=$PRE $cli/capture-client $m 100000 2 4M 1 0 forbid query 2>/dev/null)
	if echo "$out" | grep -q '^query CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED' &&
	   echo "$out" | grep -q '^end CUDA_ERROR_STREAM_CAPTURE_INVALIDATED'; then
		pass "module absent: the app's own cuEventQuery during a $m-mode capture still fails and invalidates it"
	else
		fail "$m-mode forbidden query through libvgpu" "$(echo "$out" | tr '\n' ' ')"
	fi
done

# ---- CUDA_VISIBLE_DEVICES is written without racing getenv (env.c) ----
out=$("$lib/tests/envrace" 2>&1)
rc=$?
if [ "$rc" = 0 ] && [ "${out#envrace ok }" != "$out" ]; then
	pass "the environment changes while 4 threads read it: every read finds PATH, every name as last written ($out)"
else
	fail "environment changes against readers" "exit $rc: $(echo "$out" | head -n 3 | tr '\n' ' ')"
fi
# It can fail: glibc's setenv frees the array a reader walks (a crash in
# one of three runs at least; 6 of 6 crashed when measured).
crashed=0
for i in 1 2 3; do
	sh -c '"$0" setenv' "$lib/tests/envrace" >/dev/null 2>&1
	rc=$?
	[ "$rc" -gt 128 ] && crashed=$((crashed + 1))
done
if [ "$crashed" -ge 1 ]; then
	pass "the same with glibc's setenv crashes ($crashed of 3 runs killed by a signal)"
else
	fail "the envrace test would notice glibc's setenv" "0 of 3 runs crashed (last exit $rc)"
fi

# ---- programs that never touch CUDA pay nothing ----
out=$(LD_PRELOAD=$PRE "$lib/tests/nocuda" 2>"$work/nocuda.err")
if ! echo "$out" | grep -q '^libvgpu loaded'; then
	fail "no CUDA, no cost" "libvgpu.so was not loaded: $out"
elif echo "$out" | grep -qE 'socket:|/dev/vgpu'; then
	fail "no CUDA, no cost" "$(echo "$out" | grep -E 'socket:|/dev/vgpu' | tr '\n' ' ')"
elif ! echo "$out" | grep -q '^threads 1$'; then
	fail "no CUDA, no cost" "$(echo "$out" | grep threads)"
elif [ -s "$work/nocuda.err" ]; then
	fail "no CUDA, no cost" "said: $(head -c 200 "$work/nocuda.err")"
else
	pass "a program that never touches CUDA: no socket, no /dev/vgpu, no thread, no output"
fi

# ---- fork ----
out=$(LD_PRELOAD=$PRE VGPU_LOG=debug "$lib/tests/forkcuda" 2>"$work/fork.err")
regs=$(grep -c 'registering with vgpu.ko' "$work/fork.err")
rpids=$(grep 'registering with vgpu.ko' "$work/fork.err" | sed 's/libvgpu\[\([0-9]*\)\].*/\1/' | sort -u | wc -l)
warns=$(grep -c 'passing CUDA and NVML through' "$work/fork.err")
if [ "$out" = "$(printf 'parent ok (0)\nchild ok (0)')" ] && [ "$regs" = 2 ] &&
   [ "$rpids" = 2 ] && [ "$warns" = 1 ]; then
	pass "fork: the child drops the parent's state, registers itself and uses CUDA"
else
	fail "fork + CUDA in the child" "out: $(echo $out); $regs registrations by $rpids pids, $warns warnings"
fi

[ "$fails" -eq 0 ]
