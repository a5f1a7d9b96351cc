#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 7
# vm-series: 6.1
# (One kernel: it tests libvgpu's look-up of driver entry points.)
# vm-boot: shared
# A driver whose cuGetProcAddress answers are not its exports (issue 14,
# part 6): simgpu with SIMGPU_PROCADDR=distinct answers jump stubs, as a
# driver with internal entry points would. libvgpu's self-check notices,
# says so once, and maps look-ups by name: a client that reaches the
# driver like NVIDIA's runtime is still charged, limited and gated.
suite=procaddr
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
M=1048576
export LD_PRELOAD=/usr/lib/libvgpu.so SIMGPU_PROCADDR=distinct

in_cg() { /tmp/in_cg "$@"; }

mkdir -p $cg/pa $cg/pb
check_out "gpu probe registers simgpu's GPUs" "gpu 1" vgpuctl gpu probe
check "tenant pa: 1G" vgpuctl tenant add pa cgroup pa vram-max 1G
check "tenant pb: compute-max 0" vgpuctl tenant add pb cgroup pb compute-max 0

# The mode is on: an unhooked name answers an anonymous stub, a hooked
# one libvgpu's wrapper of the right variant; the self-check said so once.
out=$(in_cg pa simgpu-client lookup cuStreamQuery 2000 0 , lookup cuMemAlloc 3020 0 , \
	lookup cuLaunchKernel 4000 2 2>&1)
case $out in
*"lookup cuStreamQuery 2000 0 -> 0x"*"lookup cuMemAlloc 3020 0 -> cuMemAlloc_v2"*"lookup cuLaunchKernel 4000 2 -> cuLaunchKernel_ptsz"*)
	pass "unhooked look-ups give simgpu's distinct entry points, hooked ones libvgpu's wrappers" ;;
*) fail "distinct entry points and wrappers" "$(echo "$out" | tr '\n' ' ')" ;;
esac
check_eq "libvgpu says once that it maps look-ups by name" 1 \
	"$(echo "$out" | grep -c 'mapping look-ups by name')"

# VRAM: charged and limited through the runtime's way in.
bg_hold pa /tmp/pa1 vram-client alloc 512M , hold 600000 && h1=$!
check_eq "an allocation is charged" $((512 * M)) "$(usage pa 0 vram_current)"
check_eq "charged exactly what the driver holds" "$(truth /pa 0)" "$(usage pa 0 vram_current)"
check_fails "the limit holds" "alloc 768M CUDA_ERROR_OUT_OF_MEMORY" in_cg pa vram-client alloc 768M
kill -9 $h1
wait $h1 2>/dev/null
check_eq "kill -9 gives it back" 0 "$(usage pa 0 vram_current)"

# Compute: launches pass the gate (grants), and compute-max 0 holds them.
g0=$(usage pa 0 grants)
check_out "kernels launch" "ok" in_cg pa simgpu-client launch 100000 count 20
g1=$(usage pa 0 grants)
if [ "${g1:-0}" -gt "${g0:-0}" ]; then
	pass "the launches were granted by the module ($g0 -> $g1 grants)"
else
	fail "the launches were granted by the module" "grants $g0 -> $g1"
fi
rc=0
timeout 3 /tmp/in_cg pb simgpu-client launch 100000 count 5 >/tmp/pb.out 2>&1 || rc=$?
# timeout's status when it stopped the client: 124 (coreutils) or 143
# (busybox: killed by SIGTERM).
if { [ "$rc" -eq 124 ] || [ "$rc" -eq 143 ]; } && ! grep -q '^launch.* ok' /tmp/pb.out; then
	pass "compute-max 0: the launch waits at the gate"
else
	fail "compute-max 0: the launch waits at the gate" "exit $rc: $(tr '\n' ' ' </tmp/pb.out)"
fi
suite_end
