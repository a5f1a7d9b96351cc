#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo: what an admin does on a GPU host, in a VM with vgpu.ko loaded.
# Each command is printed before it runs.
run() {
	echo
	echo "# $*"
	"$@"
}

echo "== vgpu demo: Debian $(uname -r), vgpu.ko loaded =="
lsmod | grep '^vgpu'
echo "NUMA nodes online: $(cat /sys/devices/system/node/online)"

echo
echo "== 1. Declare the host's GPUs =="
run vgpuctl gpu add 0 vram 16G uuid GPU-5d2c3a1e-0000-4000-8000-000000000000 pci 0000:01:00.0 numa 0
run vgpuctl gpu add 1 vram 16G uuid GPU-5d2c3a1e-0000-4000-8000-000000000001 pci 0000:02:00.0 numa 1
run vgpuctl gpu show

echo
echo "== 2. Tenants are cgroup v2 directories (a pod, a container, a slice) =="
vgpuctl -j monitor > /tmp/events &
mon=$!
sleep 0.5
run mkdir -p /sys/fs/cgroup/training /sys/fs/cgroup/inference
run vgpuctl tenant add training cgroup training vram-max 12G gpus 0-1 weight 70 priority normal cpus 0-1 mems 0
run vgpuctl tenant add inference cgroup /sys/fs/cgroup/inference vram-max 4G vram-min 2G weight 30 compute-max 50% priority high cpus 2-3 mems 1
run vgpuctl tenant show
run vgpuctl -j -p tenant show inference

echo
echo "== 3. Change and clear quotas =="
run vgpuctl tenant set training vram-max 10G weight 60
run vgpuctl tenant set inference compute-max none
run vgpuctl tenant show

echo
echo "== 4. Mistakes are refused with a reason, and change nothing =="
run vgpuctl tenant add batch cgroup batch
run vgpuctl tenant set training vram-max none vram-min 15G
run vgpuctl tenant set training vram-min 8G vram-max 6G
run vgpuctl gpu del 1
run vgpuctl tenant set training weight 0

echo
echo "== 5. A tenant's own view: an unprivileged process sees only its tenant =="
echo '# (as user nobody, inside /sys/fs/cgroup/inference) vgpuctl tenant show'
sh -c 'echo $$ > /sys/fs/cgroup/inference/cgroup.procs && exec su -s /bin/sh nobody -c "vgpuctl tenant show; vgpuctl tenant set inference vram-max 16G"'

echo
echo "== 6. What the monitor saw =="
kill $mon
cat /tmp/events
run vgpuctl tenant del training
run vgpuctl tenant show
echo
echo "== demo done =="
