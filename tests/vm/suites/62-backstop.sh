#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 28
# vm-series: 6.1
# (One kernel: it tests vgpuctl and simgpu's NVML limits; dmem is
# 90-dmem's.)
# vm-boot: shared
# The backstop below libvgpu: vgpuctl sets a tenant's vram-max and
# vram-min in the driver (simgpu's NVML per-cgroup memory limits), and
# simgpu's allocator holds a process that never loads libvgpu to them;
# with simgpu playing an older driver (memory_limits = off) or without
# NVML at all, nothing is set and show says library only. No dmem
# controller here (Debian 12's kernels predate it).
suite=backstop
. /tests/suite-lib.sh

unset LD_PRELOAD
cg=/sys/fs/cgroup
M=1048576
nvml=/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1
syslogd -O /tmp/messages
await "syslogd listens on /dev/log" 300 test -S /dev/log

# limit CGROUP GPU: simgpu's own record of the driver limit ("soft S hard H").
limit() {
	simgpu-stat | awk -v c="$1" -v g="$2" \
		'$1 == "limit" && $2 == c && $4 == g { print "soft " $6 " hard " $8 }'
}
# alloc CGROUP SIZE...: allocate in the cgroup without libvgpu.
alloc() {
	local d=$1
	shift
	/tmp/in_cg "$d" simgpu-client "$@" 2>&1
}

check_out "gpu probe adds simgpu's GPUs" "added gpu 1" vgpuctl gpu probe
check_eq "no dmem controller on this kernel" "" "$(ls $cg/dmem.capacity 2>/dev/null)"
check_out "gpu show: the driver holds tenants" "backstop driver" vgpuctl gpu show 0
check_out "gpu show json" '"backstop":"driver"' sh -c "vgpuctl -j gpu show 1 | tr -d ' \n'"

mkdir -p $cg/bs $cg/bs2 $cg/free
check "tenant add bs vram-max 64M" vgpuctl tenant add bs cgroup bs vram-max 64M
check_eq "the driver holds 64M for /bs on GPU 0" "soft 0 hard $((64 * M))" "$(limit /bs 0)"
check_eq "and on GPU 1" "soft 0 hard $((64 * M))" "$(limit /bs 1)"
check_out "tenant show says so" "backstop gpu 0 driver max 64MiB min 0" vgpuctl tenant show bs
check_out "tenant show json" '"enforcement":"driver","gpu":1,"max":67108864,"min":0,"in_sync":true' \
	sh -c "vgpuctl -j tenant show bs | tr -d ' \n'"

check_out "without libvgpu, 64M fit" "alloc $((32 * M)) ok" alloc bs alloc 32M count 2
check_fails "past 64M the driver refuses" "alloc 4096 CUDA_ERROR_OUT_OF_MEMORY" \
	alloc bs alloc 32M count 2 , alloc 4K
check_out "a cgroup without a limit is not held" "alloc $((256 * M)) ok" alloc free alloc 256M

check "tenant set vram-max 128M vram-min 32M" vgpuctl tenant set bs vram-max 128M vram-min 32M
check_eq "the driver limit moved" "soft $((32 * M)) hard $((128 * M))" "$(limit /bs 0)"
check_out "100M fit now" "alloc $((100 * M)) ok" alloc bs alloc 100M
check_fails "129M do not" "CUDA_ERROR_OUT_OF_MEMORY" alloc bs alloc 129M

check "tenant set gpus 1" vgpuctl tenant set bs gpus 1
check_eq "GPU 0 is not the tenant's: no driver limit there" "" "$(limit /bs 0)"
check_eq "GPU 1 keeps it" "soft $((32 * M)) hard $((128 * M))" "$(limit /bs 1)"
check "tenant set gpus none" vgpuctl tenant set bs gpus none
check_eq "GPU 0 has it again" "soft $((32 * M)) hard $((128 * M))" "$(limit /bs 0)"
check "tenant set weight leaves it" vgpuctl tenant set bs weight 50
check_eq "unchanged" "soft $((32 * M)) hard $((128 * M))" "$(limit /bs 0)"

# Changed behind vgpuctl's back (as nvidia-smi memory-limits could).
check "the driver limit changed behind vgpuctl" nvml-limit set 0 $cg/bs 0 $((256 * M))
check_out "tenant show: out of sync" "backstop gpu 0 driver max 256MiB min 0 (out of sync: run vgpuctl backstop sync)" \
	vgpuctl tenant show bs
check "backstop sync" vgpuctl backstop sync
check_eq "sync put it back" "soft $((32 * M)) hard $((128 * M))" "$(limit /bs 0)"
check_fails "backstop sync of an unknown tenant" "Error: unknown tenant." vgpuctl backstop sync nosuch
check_fails "backstop with a bad command" 'Error: unknown command "frob" for backstop' vgpuctl backstop frob

# A driver that refuses: simgpu's table of limits is full (64 entries).
i=0
while [ $i -lt 63 ]; do
	mkdir -p $cg/fill$i
	nvml-limit set 0 $cg/fill$i 0 $M || break
	i=$((i + 1))
done
check_eq "simgpu's table of limits filled" 63 "$i"
check_fails "tenant add when the driver refuses: exit 1, GPU, cgroup and NVML's error" \
	"Error: tenant bs2 added; driver limit on GPU 0 for tenant bs2 (cgroup $cg/bs2) NOT set: nvmlDeviceSetMemoryLimits_v1: Insufficient Resources" \
	vgpuctl tenant add bs2 cgroup bs2 vram-max 64M
check_out "the module's change stays" "tenant bs2 id" vgpuctl tenant show bs2
check_out "tenant show: out of sync" "backstop gpu 0 none (library only) (out of sync: run vgpuctl backstop sync)" \
	vgpuctl tenant show bs2
# syslogd writes what it receives when it next runs: wait for it
await "syslogd writes the failure" 300 has_text /tmp/messages "NOT set: nvmlDeviceSetMemoryLimits_v1"
check_out "the failure is in syslog" "NOT set: nvmlDeviceSetMemoryLimits_v1" cat /tmp/messages
check_fails "backstop sync fails too" "for tenant bs2 (cgroup $cg/bs2) NOT set" vgpuctl backstop sync
i=0
while [ $i -lt 63 ]; do
	nvml-limit set 0 $cg/fill$i 0 max
	i=$((i + 1))
done
check "backstop sync once the driver takes it" vgpuctl backstop sync
check_eq "bs2 is held now" "soft 0 hard $((64 * M))" "$(limit /bs2 0)"

# gpu del clears every tenant's limits on the GPU; probe sets them again.
check "gpu del 1" vgpuctl gpu del 1
check_eq "no tenant keeps a driver limit on GPU 1" "" "$(limit /bs 1)$(limit /bs2 1)"
check_eq "GPU 0 keeps them" "soft $((32 * M)) hard $((128 * M))" "$(limit /bs 0)"
check_out "gpu probe adds GPU 1 again" "added gpu 1" vgpuctl gpu probe
check_eq "and sets every tenant's limit on it" \
	"soft $((32 * M)) hard $((128 * M)) soft 0 hard $((64 * M))" "$(limit /bs 1) $(limit /bs2 1)"

# Removing a cgroup removes its driver limits (a cgroup made again at the
# same path starts without any).
mkdir -p $cg/gone
check "a driver limit on a cgroup" nvml-limit set 0 $cg/gone 0 $((64 * M))
check_fails "holds" "CUDA_ERROR_OUT_OF_MEMORY" alloc gone alloc 100M
rmdir $cg/gone
mkdir $cg/gone
check_out "the cgroup made again has none" "soft 0 hard max" nvml-limit get 0 $cg/gone
check_out "and is not held" "alloc $((100 * M)) ok" alloc gone alloc 100M

check "tenant del bs" vgpuctl tenant del bs
check_eq "its driver limits are gone" "" "$(limit /bs 0)$(limit /bs 1)"
check_out "a process in its cgroup is no longer held" "alloc $((200 * M)) ok" alloc bs alloc 200M
check "tenant del bs2" vgpuctl tenant del bs2

# An older driver: the functions answer NVML_ERROR_NOT_SUPPORTED.
echo "memory_limits = off" > /etc/simgpu.conf
check_out "gpu show: library only" "backstop none (library only)" vgpuctl gpu show 0
check "tenant add without a driver backstop succeeds" vgpuctl tenant add bs cgroup bs vram-max 64M
check_eq "nothing is set in the driver" "" "$(simgpu-stat | grep '^limit')"
check_out "a process without libvgpu is not held" "alloc $((100 * M)) ok" alloc bs alloc 100M
check_out "tenant show: library only" "backstop gpu 0 none (library only)" vgpuctl tenant show bs
check_out "tenant show json" '"enforcement":"none","gpu":0,"max":null,"min":0,"in_sync":true' \
	sh -c "vgpuctl -j tenant show bs | tr -d ' \n'"
check "tenant set without a driver backstop" vgpuctl tenant set bs vram-max 32M
check "backstop sync without a driver backstop" vgpuctl backstop sync
rm -f /etc/simgpu.conf

# No NVML on the host at all.
mv $nvml /tmp/nvml.so.1
check_out "no NVML: gpu show says library only" "backstop none (library only)" vgpuctl gpu show 1
check "no NVML: tenant del" vgpuctl tenant del bs
mv /tmp/nvml.so.1 $nvml

suite_end
