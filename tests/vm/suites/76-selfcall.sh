#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 8
# vm-series: 7.3
# (One kernel: it tests libvgpu against a driver that calls its own exports.)
# vm-boot: shared
# A driver that calls its own exports through the dynamic linker, as a
# library built without -Bsymbolic does (issue 28): simgpu with
# SIMGPU_SELFCALL=plt, where cuGetProcAddress calls cuGetProcAddress_v2,
# cuCtxCreate_v2 calls cuCtxCreate_v4 and cuMemAllocAsync calls
# cuMemAllocFromPoolAsync, each landing in libvgpu's exported wrapper
# again. The runtime's first look-up must not hang (it did: libvgpu's
# self-check waited on its own pthread_once), and each operation is
# charged once, not twice: the tenant's charge equals simgpu's truth.
suite=selfcall
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
M=1048576
export LD_PRELOAD=/usr/lib/libvgpu.so SIMGPU_SELFCALL=plt

in_cg() { /tmp/in_cg "$@"; }

mkdir -p $cg/sa $cg/sb
check_out "gpu probe registers simgpu's GPUs" "gpu 1" vgpuctl gpu probe
check "tenant sa: 1G" vgpuctl tenant add sa cgroup sa vram-max 1G
check "tenant sb: compute-max 0" vgpuctl tenant add sb cgroup sb compute-max 0

# The runtime's way in: cuGetProcAddress_v2 first, libvgpu's self-check
# asking the driver's cuGetProcAddress, which calls back into libvgpu.
rc=0
out=$(timeout 30 /tmp/in_cg sa simgpu-client lookup cuMemAlloc 3020 0 , \
	lookup cuLaunchKernel 4000 2 , lookup cuStreamQuery 2000 0 2>&1) || rc=$?
case $out in
*"lookup cuMemAlloc 3020 0 -> cuMemAlloc_v2"*"lookup cuLaunchKernel 4000 2 -> cuLaunchKernel_ptsz"*"lookup cuStreamQuery 2000 0 -> cuStreamQuery"*)
	pass "the first look-ups answer (no hang) with libvgpu's wrappers for hooked names" ;;
*) fail "the first look-ups answer with wrappers" "exit $rc (124: hung): $(echo "$out" | tr '\n' ' ')" ;;
esac

# A context made through cuCtxCreate_v2, which the driver makes through
# cuCtxCreate_v4: charged once what it took.
: > /tmp/sa1
/tmp/in_cg sa env SIMGPU_CTX_VRAM=32M vram-client ctxv2 , alloc 64M , hold 600000 \
	>/tmp/sa1 2>&1 &
h1=$!
await "the ctxv2 holder starts" 600 grep -q '^holding' /tmp/sa1
check_eq "a context made through its _v2 form and an allocation: charged what the driver holds" \
	"$(truth /sa 0)" "$(usage sa 0 vram_current)"
kill -9 $h1
wait $h1 2>/dev/null
await "kill -9 gives the context back" 100 test "$(usage sa 0 vram_current)" = 0

# Stream-ordered allocations, which the driver makes from the current
# pool through cuMemAllocFromPoolAsync: charged once, and the limit holds.
bg_hold sa /tmp/sa2 vram-client async 256M , async 128M , hold 600000 && h2=$!
check_eq "stream-ordered allocations: charged what the driver's pool holds" \
	"$(truth /sa 0)" "$(usage sa 0 vram_current)"
check_fails "the limit holds for a stream-ordered allocation" "async 768M CUDA_ERROR_OUT_OF_MEMORY" \
	in_cg sa vram-client async 768M
kill -9 $h2
wait $h2 2>/dev/null
await "kill -9 gives the pool's memory back" 100 test "$(usage sa 0 vram_current)" = 0

# NVML through libvgpu (nvmlInit_v2 calls nvmlInitWithFlags through the
# dynamic linker in every simgpu mode): the tenant's view.
out=$(in_cg sa vram-client nvml 2>&1)
case $out in
*"nvml "*"total $((1024 * M))"*) pass "NVML answers with the tenant's view (total 1G)" ;;
*) fail "NVML answers with the tenant's view" "$(echo "$out" | tr '\n' ' ')" ;;
esac

# The gate still holds launches: compute-max 0 waits.
rc=0
timeout 3 /tmp/in_cg sb simgpu-client launch 100000 count 5 >/tmp/sb.out 2>&1 || rc=$?
if { [ "$rc" -eq 124 ] || [ "$rc" -eq 143 ]; } && ! grep -q '^launch.* ok' /tmp/sb.out; then
	pass "compute-max 0: the launch waits at the gate"
else
	fail "compute-max 0: the launch waits at the gate" "exit $rc: $(tr '\n' ' ' </tmp/sb.out)"
fi
suite_end
