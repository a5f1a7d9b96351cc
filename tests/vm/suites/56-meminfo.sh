#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 15
# vm-boot: shared
# What a tenant learns of a GPU's memory (issue 33, item 4): its own limit
# and use, and whether the GPU is full for it; nothing of the others'
# use. Tenant pa (vram-max 12G, more than the others leave it) and the
# unlimited tenant pu each hold 1G of simgpu's 16G GPU 0. What they are
# told (VGPU_IOC_MEMINFO, cuMemGetInfo, NVML) does not move when tenant pb
# takes 3G, nor when a process outside every tenant takes 2G; when pb then
# fills the GPU they are told only that it is full (free = their own
# unspent budget); when the GPU has room again, the first views come back.
suite=meminfo
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
G=1073741824
export LD_PRELOAD=/usr/lib/libvgpu.so

mkdir -p $cg/pa $cg/pb $cg/pu $cg/outside
check_out "gpu probe registers simgpu's GPUs" "gpu 1" vgpuctl gpu probe
check "tenant pa: vram-max 12G" vgpuctl tenant add pa cgroup pa vram-max 12G
check "tenant pb: no limit" vgpuctl tenant add pb cgroup pb
check "tenant pu: no limit" vgpuctl tenant add pu cgroup pu

# view TENANT: what a new process of the tenant is told of GPU 0, on one
# line: the MEMINFO ioctl, cuMemGetInfo, NVML's memory info (without the
# process list, which holds the reader's own pid).
view() {
	printf '%s | %s\n' "$(inside "$1" register meminfo 0 | grep '^meminfo')" \
		"$(/tmp/in_cg "$1" vram-client info , nvml 2>&1 | sed 's/ procs .*//' | tr '\n' ' ')"
}

bg_hold pa /tmp/mi-a vram-client alloc 1G , hold 600000 && ha=$!
bg_hold pu /tmp/mi-u vram-client alloc 1G , hold 600000 && hu=$!
a0=$(view pa)
u0=$(view pu)
check_out "pa is told its limit and its use" \
	"capacity=$((16 * G)) limit=$((12 * G)) tenant_used=$G room=$((12 * G))" echo "$a0"
check_out "pa: cuMemGetInfo says its limit less its use" \
	"info free $((11 * G)) total $((12 * G)) ok" echo "$a0"
check_out "pa: NVML says the same" "nvml total $((12 * G)) used $G free $((11 * G))" echo "$a0"
check_out "pu (unlimited) is told the capacity as its room" \
	"limit=18446744073709551615 tenant_used=$G room=$((16 * G))" echo "$u0"
check_out "pu: cuMemGetInfo says the capacity less its own use" \
	"info free $((15 * G)) total $((16 * G)) ok" echo "$u0"
check_out "pu: NVML says the same" "nvml total $((16 * G)) used $G free $((15 * G))" echo "$u0"

bg_hold pb /tmp/mi-b vram-client alloc 3G , hold 600000 && hb=$!
check_eq "pa's view does not move when pb takes 3G" "$a0" "$(view pa)"
check_eq "pu's view does not move when pb takes 3G" "$u0" "$(view pu)"
bg_hold outside /tmp/mi-o vram-client alloc 2G , hold 600000 && ho=$!
check_eq "nor when a process outside every tenant takes 2G (pa)" "$a0" "$(view pa)"
check_eq "nor when a process outside every tenant takes 2G (pu)" "$u0" "$(view pu)"
check_out "a process outside every tenant is told its own use and the capacity, not the tenants'" \
	"limit=18446744073709551615 tenant_used=0 room=$((16 * G))" \
	/tmp/in_cg outside vgpu-devtest register meminfo 0

# pb fills the GPU (1G at a time, then 2M: every charge and budget is a
# multiple of 2M, so nothing is left), taking the others' unspent budgets.
bg_hold pb /tmp/mi-f vram-client fill 1G , fill 2M , hold 600000 && hf=$!
check_out "pb fills the GPU" "fill " cat /tmp/mi-f
# What every registered process holds or may spend on GPU 0 (its budget).
held=$(vgpu-devtest procs | tr ' ' '\n' |
	awk -F= '$1 == "gpu0_used" || $1 == "gpu0_budget" { s += $2 } END { print s + 0 }')
check_eq "GPU 0 is full: every byte is held or someone's budget" "$((16 * G))" "$held"
# full TENANT: the view a full GPU gives: room = what the tenant holds
# (its use and its unspent budget), free = that budget.
full() {
	local b
	b=$(usage "$1" 0 vram_budget)
	b=${b:-0}
	printf '%s\n' "$2" | sed -e "s/room=[0-9]*/room=$((G + b))/" \
		-e "s/info free [0-9]*/info free $b/" -e "s/ free [0-9]* v2/ free $b v2/" \
		-e "s/\( v2 .*\) free [0-9]*/\1 free $b/"
}
check_eq "pa is told only that the GPU is full (free: its own budget)" \
	"$(full pa "$a0")" "$(view pa)"
check_eq "pu is told only that the GPU is full" "$(full pu "$u0")" "$(view pu)"

# Room again: pa and pu are told what they were at first.
kill -9 $hb
wait $hb 2>/dev/null
check_eq "pa's first view is back once pb frees 3G" "$a0" "$(view pa)"
check_eq "pu's first view is back" "$u0" "$(view pu)"

kill -9 $ha $hu $ho $hf
wait 2>/dev/null
suite_end
