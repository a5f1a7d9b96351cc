#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 9
# vm-series: 6.1
# (One kernel: it tests libvgpu's NVML views; the module's pid-namespace
# answers are 61-pidns's, on every kernel.)
# vm-boot: shared
# NVML's per-process views filtered (issue 14, part 5): two tenants each run
# a compute, a graphics and an MPS process on GPU 0 (simgpu's kinds,
# $SIMGPU_PROC_KIND); each tenant's graphics, MPS and compute lists and
# utilisation samples show only its own, and BAR1 follows its VRAM view.
# Issue 28, finding 6: NVML 12.4's nvmlDeviceGetRunningProcessDetailList
# (compute mode and every mode) and nvmlDeviceGetProcessesUtilizationInfo
# too, also inside a pid namespace (the container's pids).
suite=nvmlview
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
M=1048576
export LD_PRELOAD=/usr/lib/libvgpu.so

# start TENANT KIND OUT: a process of that kind that has run kernels and
# then sleeps; prints its pid.
start() {
	SIMGPU_PROC_KIND=$2 /tmp/in_cg "$1" simgpu-client launch 1000000 count 3 , sleep 600000 \
		> "$3" 2>&1 &
	echo $!
	for i in $(seq 1 600); do
		grep -q '^launch' "$3" && return 0
		sleep 0.1
	done
}

mkdir -p $cg/a $cg/b
check_out "gpu probe registers simgpu's GPUs" "gpu 1" vgpuctl gpu probe
check "tenant a: 128M" vgpuctl tenant add a cgroup a vram-max 128M
check "tenant b: 128M" vgpuctl tenant add b cgroup b vram-max 128M

ac=$(start a compute /tmp/ac) ag=$(start a graphics /tmp/ag) am=$(start a mps /tmp/am)
bc=$(start b compute /tmp/bc) bg=$(start b graphics /tmp/bg) bm=$(start b mps /tmp/bm)
check "six processes run kernels" grep -q 'launch.* ok' /tmp/ac /tmp/ag /tmp/am /tmp/bc /tmp/bg /tmp/bm

# Outside every tenant: the driver's lists, everyone.
out=$(nvml-procs)
check_out "the host sees both tenants' graphics processes" "graphics $ag,$bg " echo "$out"
check_out "and both MPS processes" "mps $am,$bm " echo "$out"
check_out "and six utilisation samples" "util $ac,$ag,$am,$bc,$bg,$bm " echo "$out"
check_out "and both compute processes in the detail list" "detail $ac,$bc " echo "$out"
check_out "and all six in the detail list's every-process mode" \
	"all $ac,$ag,$am,$bc,$bg,$bm " echo "$out"
check_out "and six samples from nvmlDeviceGetProcessesUtilizationInfo" \
	"util2 $ac,$ag,$am,$bc,$bg,$bm " echo "$out"
check_out "and the device's BAR1 (1M mapped per process)" \
	"bar1 total $((256 * M)) used $((6 * M)) " echo "$out"

for t in a b; do
	if [ $t = a ]; then c=$ac g=$ag m=$am; else c=$bc g=$bg m=$bm; fi
	out=$(/tmp/in_cg $t nvml-procs)
	check_out "$t: compute list, its own only" "compute $c graphics" echo "$out"
	check_out "$t: graphics list (_v3), its own only" "graphics $g mps" echo "$out"
	check_out "$t: MPS list (_v3), its own only" "mps $m graphics1" echo "$out"
	check_out "$t: graphics list (_v1), its own only" "graphics1 $g mps2" echo "$out"
	check_out "$t: MPS list (_v2), its own only" "mps2 $m util" echo "$out"
	check_out "$t: utilisation samples, its own only" "util $c,$g,$m detail" echo "$out"
	check_out "$t: detail list (compute), its own only" "detail $c all" echo "$out"
	check_out "$t: detail list (every process), its own only" "all $c,$g,$m util2" echo "$out"
	check_out "$t: nvmlDeviceGetProcessesUtilizationInfo, its own only" \
		"util2 $c,$g,$m bar1" echo "$out"
	check_out "$t: BAR1 clamped to its VRAM, none of others' use" \
		"bar1 total $((128 * M)) used 0 free $((128 * M))" echo "$out"
done

# A tenant with no process on the GPU: no samples, empty lists.
mkdir -p $cg/c
check "tenant c" vgpuctl tenant add c cgroup c vram-max 512M
check_out "c sees no process and no sample, and BAR1 up to the aperture" \
	"compute - graphics - mps - graphics1 - mps2 - util - detail - all - util2 - bar1 total $((256 * M)) used 0 " \
	/tmp/in_cg c nvml-procs

# Inside a pid namespace of tenant a: NVML reports host pids (simgpu-pidd
# stands in for the driver's view of them, as in 61-pidns); the two newer
# calls list the container's process by the pid the container knows, and
# none of a's processes on the host (the namespace cannot see them). The
# lister has no context, so it is in no list.
simgpu-pidd > /tmp/pidd.log 2>&1 &
pidd=$!
for i in $(seq 1 100); do
	[ -S /dev/shm/simgpu-pidd.sock ] && break
	sleep 0.1
done
cat > /tmp/container <<'EOS'
#!/bin/sh
simgpu-client launch 1000000 count 3 , sleep 600000 > /tmp/ns-run 2>&1 &
h=$!
for i in $(seq 1 600); do
	grep -q '^launch' /tmp/ns-run && break
	sleep 0.1
done
echo "holder $h"
nvml-procs
kill -9 $h
EOS
chmod +x /tmp/container
out=$(/tmp/in_cg a unshare --pid --fork --mount-proc /tmp/container 2>&1)
h=$(printf '%s\n' "$out" | sed -n 's/^holder \([0-9]*\)$/\1/p')
check "the container's process runs kernels (pid $h there)" test -n "$h"
check_out "in the namespace, the detail list (every process) is the container's one process, by its pid there" \
	"all $h util2" printf '%s\n' "$out"
check_out "in the namespace, nvmlDeviceGetProcessesUtilizationInfo likewise" \
	"util2 $h bar1" printf '%s\n' "$out"
kill $pidd

kill -9 $ac $ag $am $bc $bg $bm
wait 2>/dev/null
suite_end
