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
run vgpuctl tenant del inference

echo
echo "== 7. Tenants sharing the simulated GPUs (simgpu is this VM's libcuda.so.1) =="
run vgpuctl gpu del 0
run vgpuctl gpu del 1
run vgpuctl gpu probe
run vgpuctl tenant add training cgroup training vram-max 8G weight 70
run vgpuctl tenant add inference cgroup inference vram-max 4G vram-min 2G weight 30 placement auto gpus 1
export LD_PRELOAD=/usr/lib/libvgpu.so
# as_tenant TENANT CMD...: run CMD in the tenant's cgroup, with libvgpu
# preloaded (a script, so that "as_tenant ... &" leaves CMD's pid in $!)
printf '#!/bin/sh\necho $$ > /sys/fs/cgroup/$1/cgroup.procs\nshift\nexec "$@"\n' > /tmp/as_tenant
chmod +x /tmp/as_tenant
as_tenant() { /tmp/as_tenant "$@"; }
echo
echo '# two processes of training hold 5G and 2G; a third asks for 2G more'
/tmp/as_tenant training vram-client alloc 5G , hold 30000 > /tmp/p1 &
p1=$!
/tmp/as_tenant training vram-client alloc 2G , hold 30000 > /tmp/p2 &
p2=$!
sleep 3
echo '# (in training) vram-client alloc 2G , alloc 1G , info'
as_tenant training vram-client alloc 2G , alloc 1G , info
echo '# (in training) nvidia-smi-style view through NVML'
as_tenant training vram-client nvml
run vgpuctl ps
run vgpuctl tenant show training
echo '# kill -9 of the 5G holder gives its memory back at once'
kill -9 $p1
sleep 1
run vgpuctl tenant show training
kill -9 $p2
sleep 0.5
echo
echo '# compute: both tenants keep GPU 0 busy (weights 70 and 30); top shows their shares'
run vgpuctl tenant set inference gpus none
/tmp/as_tenant training simgpu-client launch 2000000 count 100000 > /tmp/c1 2>&1 &
/tmp/as_tenant inference simgpu-client launch 2000000 count 100000 > /tmp/c2 2>&1 &
sleep 2
echo
echo '# vgpuctl top -n 2 -d 2'
vgpuctl top -n 2 -d 2 | cat
killall -9 simgpu-client 2>/dev/null
sleep 0.5
run vgpuctl tenant show inference

echo
echo "== The admin ends a registration, or a tenant with its processes =="
/tmp/as_tenant training vram-client alloc 1G , hold 600000 > /tmp/h 2>&1 &
holder=$!
for i in $(seq 1 100); do grep -q '^holding' /tmp/h && break; sleep 0.1; done
run vgpuctl ps
run vgpuctl tenant del training
run vgpuctl tenant del training force
run vgpuctl ps
kill $holder
echo
echo "== Preemption by memory: a high-priority job on a full GPU suspends a preemptible one =="
echo '# the agent calls the driver'"'"'s checkpoint API for the module (vgpu-agent.service on a host)'
LD_PRELOAD= vgpuctl agent 2> /tmp/agent.log &
agent=$!
sleep 0.5
echo '# a reservation keeps all but 512M of GPU 0, which batch and urgent share (the VM has 1G of RAM)'
mkdir -p /sys/fs/cgroup/reserved /sys/fs/cgroup/batch /sys/fs/cgroup/urgent
run vgpuctl tenant del inference
run vgpuctl tenant add reserved cgroup reserved vram-min 15872M gpus 0
run vgpuctl tenant add batch cgroup batch vram-max 512M gpus 0 priority low preemptible on
run vgpuctl tenant add urgent cgroup urgent vram-max 512M gpus 0 priority high vram-wait 30
echo '# batch fills 384M and computes'
/tmp/as_tenant batch ckpt-client alloc 384M , ticker /tmp/ticks , touch /tmp/batch.ready , wait /tmp/batch.go , sum > /tmp/batch 2>&1 &
batch=$!
for i in $(seq 1 100); do [ -e /tmp/batch.ready ] && break; sleep 0.1; done
echo '# (in urgent) vram-client alloc 256M: no room, so batch is suspended for it'
/tmp/as_tenant urgent vram-client alloc 256M , hold 600000 > /tmp/urgent 2>&1 &
urgent=$!
for i in $(seq 1 300); do grep -q '^holding' /tmp/urgent && break; sleep 0.1; done
cat /tmp/urgent
run vgpuctl tenant show batch
run vgpuctl ps
echo '# urgent ends: batch resumes by itself, its buffers intact'
kill $urgent
for i in $(seq 1 300); do vgpuctl -j tenant show batch | grep -q '"state": *"running"' && break; sleep 0.1; done
run vgpuctl tenant show batch
touch /tmp/batch.go
wait $batch
cat /tmp/batch
cat /tmp/agent.log
kill $agent
echo
echo "== demo done =="
