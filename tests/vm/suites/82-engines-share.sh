#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 29
# vm-series: 6.12
# (Timed suites run one at a time, alone: on one kernel, since the kernel
# half of the shares they measure (the module's grants) is timed on every
# kernel by 65-sched-kernel.)
# vm-timing: yes
# Shares of the GPU beyond kernels on the current context (issue #14),
# measured against simgpu's engine (the ground truth, simgpu-stat) as in
# 80-compute.sh: a compute-max cap holds for launches on a second GPU's
# stream with no context current, and a tenant that only copies shares the
# GPU with a kernel tenant by weight.
# vm-debug: off
suite=engines-share
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
export LD_PRELOAD=/usr/lib/libvgpu.so
vgpuctl gpu probe >/dev/null
mkdir -p $cg/x $cg/y

# snap: one simgpu-stat snapshot in /tmp/snap.
snap() { simgpu-stat > /tmp/snap; }
# busy CGROUP GPU: device ns of the cgroup's work on GPU (last snapshot).
busy() {
	awk -v c="/$1" -v g="$2" '$1 == "cgroup" && $2 == c && $4 == g { v = $8 } END { print v + 0 }' \
		/tmp/snap
}
# now_ns GPU: simgpu's clock (CLOCK_MONOTONIC, the module's too).
now_ns() { awk -v g="$1" '$1 == "gpu" && $2 == g { print $14 }' /tmp/snap; }

# pm N: per mille as a percentage with one decimal.
pm() { echo "$(($1 / 10)).$(($1 % 10))%"; }

# within WHAT GOT WANT TOL (per mille)
within() {
	local d=$(($2 - $3))
	[ $d -lt 0 ] && d=$((-d))
	if [ $d -le $4 ]; then
		pass "$1: $(pm $2) (want $(pm $3) +- $(pm $4))"
	else
		fail "$1" "got $(pm $2), want $(pm $3) +- $(pm $4)"
	fi
}

# sleep_until GPU NS: sleep until simgpu's clock reads NS.
sleep_until() {
	local ms
	snap
	ms=$(( ($2 - $(now_ns "$1")) / 1000000 ))
	[ "$ms" -gt 0 ] && sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
}

fresh() {
	killall -9 simgpu-client engine-client 2>/dev/null
	sleep 0.5
	for t in x y; do
		vgpuctl tenant del $t >/dev/null 2>&1
		vgpuctl tenant add $t cgroup $t >/dev/null
	done
}

# --- compute-max 20% on GPU 1's stream with no current context: N whole
# 500 ms periods from a fifth of a period before one starts (80-compute's
# measure_periods).
fresh
period=$(cat /sys/module/vgpu/parameters/period_us)
echo 500000 > /sys/module/vgpu/parameters/period_us
vgpuctl tenant set x compute-max 20% >/dev/null
/tmp/in_cg x engine-client xstream 2000000 1000000000 1 >/dev/null 2>&1 &
sleep 2
p=500000000
snap
t=$(( ($(now_ns 1) / p + 1) * p - p / 5 ))
sleep_until 1 $t
snap
t0=$(now_ns 1)
b0=$(busy x 1)
sleep_until 1 $((t + 20 * p))
snap
util=$(( ($(busy x 1) - b0) * 1000 / ($(now_ns 1) - t0) ))
within "compute-max 20% on GPU 1's stream with no current context (500 ms periods, 10 s)" \
	"$util" 200 20
echo "$period" > /sys/module/vgpu/parameters/period_us

# --- a copy-only tenant (64 KiB copies, 2 ms each at 32 MiB/s) against a
# kernel tenant (2 ms kernels), weights 30/70, 10 s. Small copies: simgpu
# moves a copy's bytes inside its device time, and a 1 MiB move (about 1 ms
# in the VM, sometimes past the 2 ms) left the engine idle in the copy
# tenant's grants (Documentation/simgpu.md).
fresh
vgpuctl tenant set x weight 30 >/dev/null
vgpuctl tenant set y weight 70 >/dev/null
SIMGPU_COPY_BW=32M /tmp/in_cg x engine-client copy 64K 1000000000 >/dev/null 2>&1 &
/tmp/in_cg y simgpu-client launch 2000000 count 1000000000 streams 2 >/dev/null 2>&1 &
sleep 2
snap
bx=$(busy x 0)
by=$(busy y 0)
sleep 10
snap
dx=$(($(busy x 0) - bx))
dy=$(($(busy y 0) - by))
tot=$((dx + dy > 0 ? dx + dy : 1))
within "copies against kernels, weights 30/70: the copy tenant" $((dx * 1000 / tot)) 300 20
within "copies against kernels, weights 30/70: the kernel tenant" $((dy * 1000 / tot)) 700 20
killall -9 simgpu-client engine-client 2>/dev/null

suite_end
