#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 8
# vm-series: 7.3
# (One kernel: it tests libvgpu's locks across fork.)
# vm-boot: shared
# A fork while another thread holds one of libvgpu's locks (issue 28,
# finding 5): the child's copy of the lock stayed held and the child hung
# at its first use of it. fork-lock (tests/clients/fork-lock.c) holds a
# thread inside libvgpu's pool lock, paused by simgpu inside
# cuMemPoolGetAttribute (SIMGPU_PAUSE_IN, simgpu.md), forks, and has the
# child allocate from its pool, which takes that lock. Before the fix the
# child was killed by its 10 s alarm, stuck in cuMemAllocFromPoolAsync;
# now it allocates, and everything is given back when both have exited.
suite=forklock
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
export LD_PRELOAD=/usr/lib/libvgpu.so

mkdir -p $cg/a /tmp/fl
check_out "gpu probe registers simgpu's GPUs" "gpu 1" vgpuctl gpu probe
check "tenant a: 256M" vgpuctl tenant add a cgroup a vram-max 256M

out=$(/tmp/in_cg a timeout 60 fork-lock /tmp/fl 2>&1) && rc=0 || rc=$?
check_out "the parent allocates from its default pool (charged, a pool record kept)" \
	"parent alloc ok" printf '%s\n' "$out"
check_out "a thread is paused inside cuMemPoolGetAttribute under libvgpu's pool lock" \
	"paused" printf '%s\n' "$out"
check_out "the child forked meanwhile allocates from its pool (it hung on the lock before)" \
	"child ok" printf '%s\n' "$out"
check_out "the thread goes on once released" "thread ok" printf '%s\n' "$out"
check_eq "fork-lock exits 0 (not 124: nothing hangs)" 0 "$rc"
check_eq "everything of a given back" 0 "$(usage a 0 vram_current)"
check_eq "and simgpu holds nothing for a" 0 "$(truth /a 0)"
suite_end
