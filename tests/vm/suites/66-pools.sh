#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 31
# vm-series: 7.3
# (One kernel: it tests libvgpu's accounting of stream-ordered pools and
# context memory.)
# vm-boot: shared
# Stream-ordered pools charged by what they reserve (issue 13, part 3): at
# every step of a pool client (pool-client, paused between steps) the
# tenant's charge equals what simgpu holds for the cgroup, which is what
# the pool reserves: small allocations share the pool's chunks, freed
# memory stays charged while the pool caches it, and trimming or a
# synchronisation above the release threshold gives it back.
# Then context memory that grows (part 5): modules and libraries loaded
# (lazily or eagerly), cuCtxSetLimit.
suite=pools
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
M=1048576
export LD_PRELOAD=/usr/lib/libvgpu.so

in_cg() { /tmp/in_cg "$@"; }

# step N: wait (up to 60 s) until the client in /tmp/pc pauses at /tmp/pN,
# having done the steps before.
step() {
	for i in $(seq 1 600); do
		grep -q "^pausing /tmp/p$1\$" /tmp/pc && return 0
		sleep 0.1
	done
	echo "client did not reach step $1: $(cat /tmp/pc)"
	return 1
}
go() { touch /tmp/p$1; }
# reserved: the pool's RESERVED_MEM_CURRENT the client printed last.
reserved() { sed -n 's/^reserved \([0-9]*\) used.*/\1/p' /tmp/pc | tail -n 1; }
# same WHAT GPU BYTES: charged on GPU = simgpu's truth = BYTES.
same() {
	check_eq "$1: charged what simgpu holds" "$(truth /c "$2")" "$(usage c "$2" vram_current)"
	check_eq "$1: $(($3 / M))M" "$3" "$(usage c "$2" vram_current)"
}

mkdir -p $cg/c
check_out "gpu probe registers simgpu's GPUs" "gpu 1" vgpuctl gpu probe
check "tenant c: 64M" vgpuctl tenant add c cgroup c vram-max 64M
rm -f /tmp/p[0-9]*

# --- 32 allocations of 4 KiB share one chunk of the default pool
: > /tmp/pc	# not the stale file of the last client
/tmp/in_cg c pool-client alloc 4K 32 , reserved , pause /tmp/p1 , free , reserved , \
	pause /tmp/p2 , sync , reserved , pause /tmp/p3 , alloc 4K 4096 , reserved , \
	pause /tmp/p4 > /tmp/pc 2>&1 &
pc=$!
step 1
check_out "32 x 4K under 64M succeed" "alloc 4K 32 ok" cat /tmp/pc
check_eq "32 x 4K: the pool reserves one 2M chunk" $((2 * M)) "$(reserved)"
same "32 x 4K" 0 $((2 * M))
go 1; step 2
same "freed, not synchronised: the pool keeps its chunk" 0 $((2 * M))
go 2; step 3
check_eq "synchronised: the pool released to its threshold (0)" 0 "$(reserved)"
same "synchronised" 0 0
go 3; step 4
check_out "4096 x 4K (16M) under 64M succeed" "alloc 4K 4096 ok" cat /tmp/pc
same "4096 x 4K" 0 "$(reserved)"
check_eq "4096 x 4K: 16M reserved" $((16 * M)) "$(reserved)"
kill -9 $pc
wait $pc 2>/dev/null
check_eq "kill -9: nothing charged" 0 "$(usage c 0 vram_current)"
check_eq "kill -9: simgpu holds nothing" 0 "$(truth /c 0)"
rm -f /tmp/p[0-9]*

# --- with a context of its own (32M): the pool's chunk on top of it
: > /tmp/pc	# not the stale file of the last client
/tmp/in_cg c env SIMGPU_CTX_VRAM=32M pool-client alloc 4K 32 , pause /tmp/p1 > /tmp/pc 2>&1 &
pc=$!
step 1
same "32 x 4K beside a 32M context" 0 $((34 * M))
kill -9 $pc
wait $pc 2>/dev/null
check_eq "kill -9: the context and the pool uncharged" 0 "$(usage c 0 vram_current)"
rm -f /tmp/p[0-9]*

# --- cached memory is charged until trimmed; what it takes is refused to
# another process of the tenant
: > /tmp/pc	# not the stale file of the last client
/tmp/in_cg c pool-client threshold 64M , alloc 4K 32 , alloc 40M , free , sync , reserved , \
	pause /tmp/p1 , trim 2M , reserved , pause /tmp/p2 , trim 0 , reserved , \
	pause /tmp/p3 > /tmp/pc 2>&1 &
pc=$!
step 1
check_eq "threshold 64M: 42M stay reserved after free and sync" $((42 * M)) "$(reserved)"
same "cached after free" 0 $((42 * M))
check_fails "the cached 42M leave no room for 24M more in the tenant" \
	"alloc 24M CUDA_ERROR_OUT_OF_MEMORY" in_cg c pool-client alloc 24M
check_eq "the refused allocation charged nothing" $((42 * M)) "$(usage c 0 vram_current)"
go 1; step 2
check_eq "trim to 2M: the 40M chunk goes" $((2 * M)) "$(reserved)"
same "trimmed to 2M" 0 $((2 * M))
check_out "now 24M fit" "alloc 24M ok" in_cg c pool-client alloc 24M
go 2; step 3
same "trimmed to 0" 0 0
kill $pc
wait $pc 2>/dev/null
rm -f /tmp/p[0-9]*

# --- a pool's own allocations past the limit: refused, nothing kept
out=$(in_cg c pool-client pool 0 , threshold 64M , alloc 40M , alloc 30M , reserved)
case $out in
*"alloc 40M ok"*"alloc 30M CUDA_ERROR_OUT_OF_MEMORY"*"reserved 41943040 "*)
	pass "a created pool: 40M, then 30M refused, the pool still reserves 40M" ;;
*) fail "a created pool: 40M, then 30M refused, the pool still reserves 40M" "$out" ;;
esac

# --- a pool created on GPU 1 is charged to GPU 1, from GPU 0's context
: > /tmp/pc	# not the stale file of the last client
/tmp/in_cg c pool-client pool 1 , alloc 4K 3 , alloc 8M , reserved , pause /tmp/p1 , \
	free , sync , destroy , pause /tmp/p2 > /tmp/pc 2>&1 &
pc=$!
step 1
same "a pool on GPU 1" 1 $((10 * M))
check_eq "a pool on GPU 1: nothing on GPU 0" 0 "$(usage c 0 vram_current)"
go 1; step 2
same "the pool on GPU 1 destroyed" 1 0
kill $pc
wait $pc 2>/dev/null
rm -f /tmp/p[0-9]*

# --- cuDeviceSetMemPool: cuMemAllocAsync follows the device's current pool
: > /tmp/pc	# not the stale file of the last client
/tmp/in_cg c pool-client pool 0 , threshold 64M , setpool , default , alloc 1M 3 , free , \
	sync , reserved , pause /tmp/p1 > /tmp/pc 2>&1 &
pc=$!
step 1
check_eq "a pool set current: its threshold keeps 4M after sync" $((4 * M)) "$(reserved)"
same "cuMemAllocAsync from the pool set current" 0 $((4 * M))
kill -9 $pc
wait $pc 2>/dev/null
check_eq "kill -9 with cached memory: nothing charged" 0 "$(usage c 0 vram_current)"
check_eq "kill -9 with cached memory: simgpu holds nothing" 0 "$(truth /c 0)"
rm -f /tmp/p[0-9]*

# --- a host pool holds no VRAM
: > /tmp/pc	# not the stale file of the last client
/tmp/in_cg c pool-client hostpool , alloc 48M 2 , pause /tmp/p1 > /tmp/pc 2>&1 &
pc=$!
step 1
check_out "a host pool: 2 x 48M under 64M" "alloc 48M 2 ok" cat /tmp/pc
same "a host pool on GPU 0" 0 0
same "a host pool on GPU 1" 1 0
kill $pc
wait $pc 2>/dev/null
rm -f /tmp/p[0-9]*

# --- exit with memory in use and cached
out=$(in_cg c pool-client threshold 64M , alloc 4K 100 , alloc 20M , free , alloc 1M 2)
case $out in
*"alloc 1M 2 ok"*) pass "a client exits holding pool memory" ;;
*) fail "a client exits holding pool memory" "$out" ;;
esac
check_eq "after exit: nothing charged" 0 "$(usage c 0 vram_current)"
check_eq "after exit: simgpu holds nothing" 0 "$(truth /c 0)"
check_eq "and no budget kept" 0 "$(usage c 0 vram_budget)"
rm -f /tmp/p[0-9]*

# --- context memory that grows: each module takes 6M once loaded
: > /tmp/pc	# not the stale file of the last client
/tmp/in_cg c env SIMGPU_MODULE_VRAM=6M pool-client module , pause /tmp/p1 , function k , \
	pause /tmp/p2 , function k2 , unload , pause /tmp/p3 , library , function x , \
	pause /tmp/p4 , limit heap 24M , pause /tmp/p5 , limit heap 8M , pause /tmp/p6 , \
	module , function k , limit fifo 9M , pause /tmp/p7 > /tmp/pc 2>&1 &
pc=$!
step 1
same "lazy loading: a module loaded, no kernel asked" 0 0
go 1; step 2
same "lazy loading: its first kernel loads it" 0 $((6 * M))
go 2; step 3
check_out "a second kernel, then unload" "unload ok" cat /tmp/pc
same "unloaded" 0 0
go 3; step 4
same "a library's first kernel" 0 $((6 * M))
go 4; step 5
same "cuCtxSetLimit heap 24M: 16M over the default" 0 $((22 * M))
go 5; step 6
same "heap back to 8M" 0 $((6 * M))
go 6; step 7
same "a module and a printf FIFO of 9M more" 0 $((20 * M))
kill -9 $pc
wait $pc 2>/dev/null
check_eq "kill -9: loaded modules and limits uncharged" 0 "$(usage c 0 vram_current)"
check_eq "kill -9: simgpu holds nothing" 0 "$(truth /c 0)"
rm -f /tmp/p[0-9]*

: > /tmp/pc	# not the stale file of the last client
/tmp/in_cg c env SIMGPU_MODULE_VRAM=6M CUDA_MODULE_LOADING=EAGER pool-client module , \
	pause /tmp/p1 > /tmp/pc 2>&1 &
pc=$!
step 1
same "eager loading: charged at load" 0 $((6 * M))
kill $pc
wait $pc 2>/dev/null
rm -f /tmp/p[0-9]*

# --- growth past the limit is refused and undone
: > /tmp/pc	# not the stale file of the last client
/tmp/in_cg c env SIMGPU_MODULE_VRAM=80M CUDA_MODULE_LOADING=EAGER pool-client module , \
	limit heap 100M , limit stack 2048 , pause /tmp/p1 > /tmp/pc 2>&1 &
pc=$!
step 1
check_out "an 80M module under 64M is refused" "module CUDA_ERROR_OUT_OF_MEMORY" cat /tmp/pc
check_out "a 100M heap is refused" "limit heap 100M CUDA_ERROR_OUT_OF_MEMORY" cat /tmp/pc
check_out "a stack of 2048 per thread (264M more) is refused" \
	"limit stack 2048 CUDA_ERROR_OUT_OF_MEMORY" cat /tmp/pc
same "refused growth: unloaded and set back" 0 0
kill $pc
wait $pc 2>/dev/null
suite_end
