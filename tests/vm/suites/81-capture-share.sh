#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 31
# vm-series: 6.12
# (Timed suites run one at a time, alone: on one kernel, since the kernel
# half of the shares they measure (the module's grants) is timed on every
# kernel by 65-sched-kernel.)
# vm-timing: yes
# vm-debug: off
# Graph replays share the GPU like launches (issue #14 part 1): a tenant
# replaying a captured graph (kernels, a memset, a copy, an allocation and
# its free) competes with a tenant launching kernels; simgpu's engine
# records the device time each cgroup got (the ground truth, as in
# 80-compute), and equal weights must give each half, within 2 points.
suite=capture-share
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
export LD_PRELOAD=/usr/lib/libvgpu.so
vgpuctl gpu probe >/dev/null

# The engine's busy time per cgroup and its clock (as 80-compute reads them).
snap() { simgpu-stat > /tmp/snap; }
busy() {
	awk -v c="/$1" '$1 == "cgroup" && $2 == c && $4 == 0 { v = $8 } END { print v + 0 }' /tmp/snap
}
pm() { echo "$(($1 / 10)).$(($1 % 10))%"; }

mkdir -p $cg/g $cg/k
for t in g k; do
	vgpuctl tenant del $t >/dev/null 2>&1
	vgpuctl tenant add $t cgroup $t >/dev/null
done

# share WHAT CMD...: run CMD in g against the launching tenant k for 13 s;
# g's share of the engine time over the last 10 s must be 50% +- 2 points.
share() {
	local what=$1 gp kp g0 k0 dg dk share d
	shift
	/tmp/in_cg k simgpu-client launch 2000000 count 1000000000 streams 2 >/dev/null 2>&1 &
	kp=$!
	/tmp/in_cg g "$@" > /tmp/g.out 2>&1 &
	gp=$!
	sleep 3
	snap
	g0=$(busy g)
	k0=$(busy k)
	sleep 10
	snap
	dg=$(($(busy g) - g0))
	dk=$(($(busy k) - k0))
	kill -9 $gp $kp 2>/dev/null
	wait $gp $kp 2>/dev/null
	share=$((dg * 1000 / (dg + dk > 0 ? dg + dk : 1)))
	d=$((share - 500))
	[ $d -lt 0 ] && d=$((-d))
	if [ $d -le 20 ]; then
		pass "$what: $(pm $share) of the GPU against a launching tenant (want 50.0% +- 2.0%)"
	else
		fail "$what" "got $(pm $share), want 50.0% +- 2.0%"
	fi
	sleep 0.5
	for t in g k; do
		vgpuctl tenant del $t >/dev/null 2>&1
		vgpuctl tenant add $t cgroup $t >/dev/null
	done
}

for m in global thread; do
	share "$m mode: replays of a captured graph (5 kernels of 2 ms)" \
		capture-client $m 2000000 5 4M 1000000 0 side 0
	grep -q '^end ok' /tmp/g.out ||
		fail "$m mode: the capture" "$(tr '\n' ' ' < /tmp/g.out | tail -c 200)"
done
# (A graph of one 2 ms kernel and plain launches of 2 ms kernels on one
# stream, measured the same way while this suite was written, gave 49.1-50.0%
# and 50.7-51.5%: 80-compute covers plain launches.)

vgpuctl tenant del g >/dev/null
vgpuctl tenant del k >/dev/null
suite_end
