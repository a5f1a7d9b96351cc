#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 16
# vm-series: 6.12
# (One kernel: it tests libvgpu's charges for green contexts.)
# vm-boot: shared
# Green contexts (issue 13, part 5): cuGreenCtxCreate is charged what it
# took, like a context, on the GPU it was created on; what is allocated
# while its context is current is charged to that GPU; cuGreenCtxDestroy,
# exit and kill -9 give everything back; a green context over the limit is
# refused and undone. At each step (greenctx-client, paused between steps)
# the tenant's charge equals what simgpu holds for its cgroup. Contexts
# take SIMGPU_CTX_VRAM=32M each here, green ones included.
suite=greenctx
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
M=1048576
export LD_PRELOAD=/usr/lib/libvgpu.so

# step N: wait (up to 60 s) until the client in /tmp/pc pauses at /tmp/pN.
step() {
	for i in $(seq 1 600); do
		grep -q "^pausing /tmp/p$1\$" /tmp/pc && return 0
		sleep 0.1
	done
	echo "client did not reach step $1: $(cat /tmp/pc)"
	return 1
}
go() { touch /tmp/p$1; }
# same TENANT WHAT GPU BYTES: charged on GPU = simgpu's truth = BYTES.
same() {
	check_eq "$2: charged what simgpu holds" "$(truth /$1 "$3")" "$(usage $1 "$3" vram_current)"
	check_eq "$2: $(($4 / M))M" "$4" "$(usage $1 "$3" vram_current)"
}

mkdir -p $cg/c $cg/d
check_out "gpu probe registers simgpu's GPUs" "gpu 1" vgpuctl gpu probe
check "tenant c: 256M" vgpuctl tenant add c cgroup c vram-max 256M
check "tenant d: 48M" vgpuctl tenant add d cgroup d vram-max 48M
rm -f /tmp/p[0-9]*

# --- beside the primary context: create, allocate and launch in it, destroy
: > /tmp/pc	# not the stale file of the last client
/tmp/in_cg c env SIMGPU_CTX_VRAM=32M greenctx-client primary 0 , pause /tmp/p1 , \
	green 0 16 , pause /tmp/p2 , current , alloc 8M , stream , launch , pause /tmp/p3 , \
	destroy , pause /tmp/p4 > /tmp/pc 2>&1 &
pc=$!
step 1
same c "the primary context" 0 $((32 * M))
go 1; step 2
check_out "cuGreenCtxCreate succeeds under 256M" "green 0 16 ok" cat /tmp/pc
same c "a green context: 32M of its own" 0 $((64 * M))
go 2; step 3
check_out "a kernel launches on its stream" "launch ok" cat /tmp/pc
same c "8M allocated in the green context" 0 $((72 * M))
go 3; step 4
check_out "cuGreenCtxDestroy succeeds" "destroy ok" cat /tmp/pc
same c "destroyed: it and its allocation given back" 0 $((32 * M))
go 4
wait $pc 2>/dev/null
check_eq "after exit: nothing charged" 0 "$(usage c 0 vram_current)"
check_eq "after exit: simgpu holds nothing" 0 "$(truth /c 0)"
rm -f /tmp/p[0-9]*

# --- on GPU 1 without a primary context first: it retains one (charged
# once), allocations in it are GPU 1's
: > /tmp/pc	# not the stale file of the last client
/tmp/in_cg c env SIMGPU_CTX_VRAM=32M greenctx-client green 1 8 , current , alloc 4M , \
	pause /tmp/p1 , destroy , pause /tmp/p2 > /tmp/pc 2>&1 &
pc=$!
step 1
same c "GPU 1: its primary, the green context and 4M in it" 1 $((68 * M))
same c "GPU 0 untouched" 0 0
go 1; step 2
same c "GPU 1: destroyed, the primary context released with it" 1 0
go 2
wait $pc 2>/dev/null
rm -f /tmp/p[0-9]*

# --- kill -9 with a green context and an allocation in it
: > /tmp/pc	# not the stale file of the last client
/tmp/in_cg c env SIMGPU_CTX_VRAM=32M greenctx-client green 0 16 , current , alloc 8M , \
	pause /tmp/p1 > /tmp/pc 2>&1 &
pc=$!
step 1
same c "a green context alone" 0 $((72 * M))
kill -9 $pc
wait $pc 2>/dev/null
check_eq "kill -9: nothing charged" 0 "$(usage c 0 vram_current)"
check_eq "kill -9: simgpu holds nothing" 0 "$(truth /c 0)"
rm -f /tmp/p[0-9]*

# --- over the limit: 48M hold the primary context (32M), not a green one.
# simgpu enforces no limit of its own here (SIMGPU_MEMORY_LIMITS=off: no
# backstop), so the refusal is libvgpu's, after the real call.
: > /tmp/pc	# not the stale file of the last client
/tmp/in_cg d env SIMGPU_MEMORY_LIMITS=off SIMGPU_CTX_VRAM=32M greenctx-client green 0 16 , pause /tmp/p1 , \
	primary 0 , green 0 16 , pause /tmp/p2 > /tmp/pc 2>&1 &
pc=$!
step 1
check_out "a green context over 48M is refused" "green 0 16 CUDA_ERROR_OUT_OF_MEMORY" cat /tmp/pc
same d "refused: destroyed, its primary context released" 0 0
go 1; step 2
check_out "the primary context alone fits" "primary 0 ok" cat /tmp/pc
check_eq "a green context beside it is refused too" 2 \
	"$(grep -c '^green 0 16 CUDA_ERROR_OUT_OF_MEMORY$' /tmp/pc)"
same d "refused beside the primary context: that one stays" 0 $((32 * M))
go 2
wait $pc 2>/dev/null
check_eq "after exit: nothing charged to d" 0 "$(usage d 0 vram_current)"
check_eq "after exit: simgpu holds nothing for d" 0 "$(truth /d 0)"
suite_end
