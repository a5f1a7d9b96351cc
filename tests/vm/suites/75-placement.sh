#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 27
# CPU and NUMA placement end to end, with vgpuctl (which writes the tenant
# cgroup's cpuset), the module (which pins registered processes) and
# libvgpu. The VM has CPUs 0-1 on node 0 and 2-3 on node 1; simgpu's GPU 0
# sits on node 0 and GPU 1 on node 1.
suite=placement
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
check_out "gpu probe takes the NUMA nodes" "numa 1" vgpuctl gpu probe
check_out "GPU 1 is on node 1" "gpu 1 uuid" sh -c "vgpuctl gpu show 1 | grep 'numa 1'"

# allowed PID KEY: the KEY list of every thread of PID, distinct values.
allowed() {
	cat /proc/$1/task/*/status | sed -n "s/^$2:[[:space:]]*//p" | sort -u | tr '\n' ' ' | sed 's/ $//'
}
# wait_holding FILE
wait_holding() {
	local i
	for i in $(seq 1 300); do
		grep -q '^holding' "$1" && return 0
		sleep 0.1
	done
	return 1
}

mkdir -p $cg/ta $cg/tb
check "tenant ta with manual cpus 2-3 mems 1" \
	vgpuctl tenant add ta cgroup ta gpus 0 cpus 2-3 mems 1
check_eq "vgpuctl wrote cpuset.cpus" "2-3" "$(cat $cg/ta/cpuset.cpus)"
check_eq "vgpuctl wrote cpuset.mems" "1" "$(cat $cg/ta/cpuset.mems)"

# a registered process with several threads, and one that never loads libvgpu
/tmp/in_cg ta env LD_PRELOAD=/usr/lib/libvgpu.so vram-client stress 4 1 1M , hold 600000 > /tmp/reg 2>&1 &
reg=$!
/tmp/in_cg ta sleep 600 &
plain=$!
wait_holding /tmp/reg || fail "registered process started" "$(cat /tmp/reg)"
check_eq "registered process: every thread on CPUs 2-3" "2-3" "$(allowed $reg Cpus_allowed_list)"
check_eq "registered process: memory on node 1" "1" "$(allowed $reg Mems_allowed_list)"
check_eq "a process without libvgpu is confined too" "2-3" "$(allowed $plain Cpus_allowed_list)"
check_eq "and its memory" "1" "$(allowed $plain Mems_allowed_list)"

check "change to cpus 0-1 mems 0" vgpuctl tenant set ta cpus 0-1 mems 0
check_eq "the change reaches the running registered process" "0-1" "$(allowed $reg Cpus_allowed_list)"
check_eq "and its memory nodes" "0" "$(allowed $reg Mems_allowed_list)"
check_eq "and the process without libvgpu" "0-1" "$(allowed $plain Cpus_allowed_list)"

# auto: the GPUs' node
check "placement auto (cpus and mems cleared)" vgpuctl tenant set ta cpus none mems none placement auto
check_out "auto picks GPU 0's node" '"cpus_effective":"0-1","mems_effective":"0"' \
	sh -c "vgpuctl -j tenant show ta | tr -d ' \n'"
check "tenant tb on GPU 1, auto" vgpuctl tenant add tb cgroup tb gpus 1 placement auto
check_eq "auto on GPU 1's node writes cpuset.cpus 2-3" "2-3" "$(cat $cg/tb/cpuset.cpus)"
check_eq "and cpuset.mems 1" "1" "$(cat $cg/tb/cpuset.mems)"
check "move ta to GPU 1" vgpuctl tenant set ta gpus 1
check_eq "auto follows the tenant's GPUs" "2-3" "$(allowed $reg Cpus_allowed_list)"

# exclusive
check "tb exclusive" vgpuctl tenant set tb exclusive on
check_fails "a second exclusive tenant on the same node is refused" \
	"Error: no free CPUs near the tenant's GPUs for an exclusive placement." \
	vgpuctl tenant set ta exclusive on
check_out "the refused change left ta as it was" '"exclusive":false' \
	sh -c "vgpuctl -j tenant show ta | tr -d ' \n'"

# invalid input is refused with its message and leaves the previous policy
before=$(cat $cg/ta/cpuset.cpus)
check_fails "offline CPU" "Error: cpus names a CPU that is not online." \
	vgpuctl tenant set ta placement manual cpus 0-9
check_fails "auto with explicit cpus" "Error: placement auto replaces cpus and mems." \
	vgpuctl tenant set ta cpus 1
check_fails "bad node list" "Error:" vgpuctl tenant set ta placement manual mems 0-x
check_eq "the cpuset is as it was" "$before" "$(cat $cg/ta/cpuset.cpus)"
check_eq "the running process is where it was" "2-3" "$(allowed $reg Cpus_allowed_list)"

# clearing the placement frees everything again
check "clear the placement" vgpuctl tenant set ta placement none
check_eq "registered process back on every CPU" "0-3" "$(allowed $reg Cpus_allowed_list)"
kill -9 $reg $plain 2>/dev/null
wait 2>/dev/null
suite_end
