#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 40
# vm-boot: shared
# vm-kernel: dmem
# The backstop in the kernel's dmem controller (Linux 6.14 and later), on
# the kernel tools/dmem-kernel builds with it (Debian builds none). The
# test module simgpu_dmem.ko stands for a GPU driver: one region per
# simulated GPU, named as NVIDIA's driver names its own
# (nvidia/PCI/vidmem), charged by simgpu for every allocation in the
# allocating process's cgroup (dmem = on). simgpu plays a driver without
# NVML's per-cgroup limits (memory_limits = off), so vgpuctl's backstop
# writes dmem.max and dmem.min (Documentation/vram.md). A process that
# skips libvgpu is then held by the kernel itself.
suite=dmem
. /tests/suite-lib.sh

unset LD_PRELOAD
cg=/sys/fs/cgroup
M=1048576
printf 'memory_limits = off\ndmem = on\n' > /etc/simgpu.conf

# region GPU: GPU's region name; dval CGROUP FILE GPU: its value there.
region() { echo "nvidia/0000:0$(($1 + 1)):00.0/vidmem"; }
dval() { awk -v r="$(region "$3")" '$1 == r { print $2 }' "$cg/$1/$2" 2>/dev/null; }
# alloc CGROUP ARGS...: simgpu-client in the cgroup, without libvgpu.
alloc() {
	local d=$1
	shift
	/tmp/in_cg "$d" simgpu-client "$@" 2>&1
}

check_out "the kernel has the dmem controller" dmem cat $cg/cgroup.controllers
# simgpu's GPUs (its shared state is made by the probe's NVML calls).
check_out "gpu probe adds simgpu's GPUs" "added gpu 1" vgpuctl gpu probe
ngpus=$(simgpu-stat | awk '$1 == "gpu"' | wc -l)
regions=""
for g in $(seq 0 $((ngpus - 1))); do
	total=$(simgpu-stat | awk -v g="$g" '$1 == "gpu" && $2 == g { print $6 }')
	regions="$regions${regions:+,}0000:0$((g + 1)):00.0=$total"
done
check "simgpu_dmem.ko registers $ngpus regions ($regions)" \
	insmod /lib/modules/"$(uname -r)"/extra/simgpu_dmem.ko regions="$regions"
check_out "dmem.capacity lists them as NVIDIA's driver names them" \
	"$(region 0) $((16 * 1024 * M))" cat $cg/dmem.capacity
echo +dmem > $cg/cgroup.subtree_control
check_out "gpu show: dmem holds tenants" "backstop dmem" vgpuctl gpu show 0

mkdir -p $cg/dm $cg/free
check "tenant add dm vram-max 64M" vgpuctl tenant add dm cgroup dm vram-max 64M
check_eq "dmem.max of /dm is 64M on GPU 0" $((64 * M)) "$(dval dm dmem.max 0)"
check_eq "... and on GPU 1" $((64 * M)) "$(dval dm dmem.max 1)"
check_eq "dmem.min of /dm is 0" 0 "$(dval dm dmem.min 0)"
check_out "tenant show reads it back" "backstop gpu 0 dmem max 64MiB min 0" vgpuctl tenant show dm
check_out "... in sync (json)" '"enforcement":"dmem","gpu":0,"max":67108864,"min":0,"in_sync":true' \
	sh -c "vgpuctl -j tenant show dm | tr -d ' \n'"

# --- the kernel holds a process that skips libvgpu -----------------------------
check_out "without libvgpu, 64M fit" "alloc $((32 * M)) ok" alloc dm alloc 32M count 2
check_fails "past dmem.max the kernel refuses: CUDA_ERROR_OUT_OF_MEMORY" \
	"alloc 4096 CUDA_ERROR_OUT_OF_MEMORY" alloc dm alloc 32M count 2 , alloc 4K
check_out "a cgroup without a limit is not held" "alloc $((256 * M)) ok" alloc free alloc 256M
check_eq "everything went back with the processes (dmem.current of /dm)" 0 \
	"$(dval dm dmem.current 0)"

# --- dmem.current agrees with vgpu's charge and simgpu's truth -----------------
LD_PRELOAD=/usr/lib/libvgpu.so /tmp/in_cg dm vram-client alloc 48M , hold 60000 \
	> /tmp/dm.out 2>&1 &
pid=$!
await "the client holds 48M" 300 grep -q '^alloc .* ok' /tmp/dm.out
check_eq "dmem.current is what simgpu holds for /dm" "$(truth /dm 0)" "$(dval dm dmem.current 0)"
check_eq "... and what vgpu charges as used (48M)" "$(usage dm 0 vram_current)" \
	"$(dval dm dmem.current 0)"
kill -9 $pid
wait $pid 2>/dev/null
check_eq "... all back after kill -9" 0 "$(dval dm dmem.current 0)"

# --- a container's cgroup below the tenant's ------------------------------------
mkdir -p $cg/dm/ctr
echo +dmem > $cg/dm/cgroup.subtree_control
check_eq "the container's own cgroup has no limit of its own" max "$(dval dm/ctr dmem.max 0)"
check_fails "... and is held by the tenant's 64M" "CUDA_ERROR_OUT_OF_MEMORY" \
	alloc dm/ctr alloc 100M
check_out "... up to it" "alloc $((60 * M)) ok" alloc dm/ctr alloc 60M

check "tenant set vram-max 128M vram-min 32M" vgpuctl tenant set dm vram-max 128M vram-min 32M
check_eq "dmem.max moved to 128M" $((128 * M)) "$(dval dm dmem.max 0)"
check_eq "dmem.min is 32M" $((32 * M)) "$(dval dm dmem.min 0)"
check_out "100M fit now, in the container" "alloc $((100 * M)) ok" alloc dm/ctr alloc 100M
check "tenant set vram-max none vram-min 0" vgpuctl tenant set dm vram-max none vram-min 0
check_eq "dmem.max is max again" max "$(dval dm dmem.max 0)"
check "tenant del dm" vgpuctl tenant del dm
check_eq "deleted: dmem.max cleared" max "$(dval dm dmem.max 1)"

# --- an ephemeral tenant's cgroup removed ---------------------------------------
# The backstop writes the tenant's own cgroup alone: its ancestors' dmem.min
# are never touched, so removing the cgroup leaves none behind. Measured:
# the parent's dmem.min before, while the tenant holds a reservation, and
# after the cgroup is gone; and the region's use at the parent.
mkdir -p $cg/pe $cg/pe/e1
echo +dmem > $cg/pe/cgroup.subtree_control
check "an ephemeral tenant with vram-min 32M" vgpuctl tenant add e1 cgroup pe/e1 ephemeral \
	vram-max 64M vram-min 32M
check_eq "its dmem.min is 32M" $((32 * M)) "$(dval pe/e1 dmem.min 0)"
check_eq "the parent's dmem.min is untouched (0)" 0 "$(dval pe dmem.min 0)"
check_out "a process of it allocates 16M" "alloc $((16 * M)) ok" alloc pe/e1 alloc 16M
rmdir $cg/pe/e1
await "the ephemeral tenant goes with its cgroup" 100 sh -c '! vgpuctl tenant show e1 >/dev/null 2>&1'
check_eq "the parent's dmem.min is still 0" 0 "$(dval pe dmem.min 0)"
check_eq "nothing is left charged under the parent" 0 "$(dval pe dmem.current 0)"
rmdir $cg/pe $cg/free $cg/dm/ctr $cg/dm 2>/dev/null

check "rmmod simgpu_dmem" rmmod simgpu_dmem
rm -f /etc/simgpu.conf
suite_end
