#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 19
# vm-series: 6.12
# (One kernel: it tests NVIDIA's runtime through libvgpu.)
# vm-boot: shared
# NVIDIA's own CUDA runtime (libcudart 13.5, the pinned wheels', built
# into tests/clients/cudart-smoke-static and linked by
# cudart-smoke-shared) on simgpu through libvgpu, in a tenant with a
# vram-max (issue 28): cudaMemGetInfo shows the limit, cudaMalloc past it
# is the program's own cudaErrorMemoryAllocation, every other step
# (copies checked, a <<<>>> launch, stream capture and a graph launch,
# cudaDeviceReset) works, and everything is given back at exit. A tenant
# without a limit sees the whole GPU, as bare.
suite=cudart
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
M=1048576
export LD_PRELOAD=/usr/lib/libvgpu.so

mkdir -p $cg/rta $cg/rtb
check_out "gpu probe registers simgpu's GPUs" "gpu 1" vgpuctl gpu probe
check "tenant rta: vram-max 1G" vgpuctl tenant add rta cgroup rta vram-max 1G
check "tenant rtb: no limit" vgpuctl tenant add rtb cgroup rtb
total=$(simgpu-stat | awk '$1 == "gpu" && $2 == 0 { print $6 }')

for rt in static shared; do
	out=$(/tmp/in_cg rta cudart-smoke-$rt 2>&1) && rc=0 || rc=$?
	if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -qx "cudart_smoke ok"; then
		pass "$rt runtime in a 1G tenant: every step ok (copies checked, launch, capture, graph, reset)"
	else
		fail "$rt runtime in a 1G tenant: every step ok" \
			"exit $rc: $(printf '%s\n' "$out" | grep -v ' ok' | tr '\n' ' ' | cut -c1-400)"
	fi
	check_eq "$rt runtime: cudaMemGetInfo's total is the tenant's limit" "total $((1024 * M))" \
		"$(printf '%s\n' "$out" | sed -n 's/^mem free [0-9]* \(total [0-9]*\)$/\1/p')"
	check_eq "$rt runtime: cudaMalloc past the limit (2G) is cudaErrorMemoryAllocation" \
		"malloc-too-big ok $((2048 * M)) bytes: cudaErrorMemoryAllocation" \
		"$(printf '%s\n' "$out" | grep '^malloc-too-big')"
	check_eq "$rt runtime: the runtime's look-ups answer libvgpu's wrappers" 7 \
		"$(printf '%s\n' "$out" | grep -c '^entry .* in libvgpu.so as ')"
	check_eq "$rt runtime: everything given back at exit" 0 "$(usage rta 0 vram_current)"
	check_eq "$rt runtime: simgpu holds nothing for the tenant after exit" 0 "$(truth /rta 0)"

	# The runtime's primary context (asked through its private table,
	# retained through cuDevicePrimaryCtxRetain) is charged to the
	# tenant: with 64 MiB contexts, cudaMemGetInfo before any allocation
	# shows 960 MiB free of the 1 GiB limit.
	out=$(SIMGPU_CTX_VRAM=64M /tmp/in_cg rta cudart-smoke-$rt 2>&1) && rc=0 || rc=$?
	check_eq "$rt runtime: its context (64M) is charged to the tenant (exit $rc)" \
		"mem free $((960 * M)) total $((1024 * M))" "$(printf '%s\n' "$out" | grep '^mem free')"
	check_eq "$rt runtime: the context given back at exit" 0 "$(usage rta 0 vram_current)"

	# The runtime loads its fat binary with no context current; with
	# lazy loading the code goes into device memory at the kernel's
	# first launch in the context (simgpu: 64 MiB per library and
	# context). libvgpu charges it there: after the launch
	# cudaMemGetInfo shows 960 MiB free of the 1 GiB limit, less the
	# program's 64 KiB buffer.
	out=$(SIMGPU_MODULE_VRAM=64M /tmp/in_cg rta cudart-smoke-$rt 2>&1) && rc=0 || rc=$?
	check_eq "$rt runtime: the lazily loaded code (64M) is charged at the first launch (exit $rc)" \
		"mem after-launch free $((960 * M - 65536)) total $((1024 * M))" \
		"$(printf '%s\n' "$out" | grep '^mem after-launch')"
	check_eq "$rt runtime: the code given back at exit" 0 "$(usage rta 0 vram_current)"
	check_eq "$rt runtime: simgpu holds no code for the tenant after exit" 0 "$(truth /rta 0)"
	# Code that does not fit the tenant (2 GiB in a 1 GiB tenant): the
	# launch is refused, the program's own cudaErrorMemoryAllocation.
	out=$(SIMGPU_MODULE_VRAM=2G /tmp/in_cg rta cudart-smoke-$rt 2>&1) && rc=0 || rc=$?
	check_eq "$rt runtime: code over the limit fails the launch (exit $rc)" \
		"launch FAILED cudaGetLastError(): cudaErrorMemoryAllocation (2)" \
		"$(printf '%s\n' "$out" | grep '^launch ')"
	check_eq "$rt runtime: nothing charged after the refused code's exit" 0 \
		"$(usage rta 0 vram_current)"

	out=$(/tmp/in_cg rtb cudart-smoke-$rt 2>&1) && rc=0 || rc=$?
	check_eq "$rt runtime in a tenant without a limit: cudaMemGetInfo's total is the GPU's" \
		"total $total" "$(printf '%s\n' "$out" | sed -n 's/^mem free [0-9]* \(total [0-9]*\)$/\1/p')"
	check_eq "$rt runtime without a limit: every step ok (exit $rc)" "cudart_smoke ok" \
		"$(printf '%s\n' "$out" | tail -n 1)"
done

suite_end
