#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# VRAM benchmarks inside the VM (run by bench/run): bare driver against
# libvgpu in the same boot. Figures are printed as a table.
# vm-debug: off
cg=/sys/fs/cgroup
B=/extra/vram-bench
PRE=/usr/lib/libvgpu.so
N=${N:-20000}
vgpuctl gpu probe >/dev/null
mkdir -p $cg/t
vgpuctl tenant add t cgroup t vram-max 12G
echo $$ > $cg/t/cgroup.procs

field() { sed "s/^/ /" | sed -n "s/.* $1 \([0-9]*\).*/\1/p"; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

echo "== alloc+free pairs of 1 MiB, one process, $N pairs =="
bare=$($B pairs $N 1048576)
vg=$(LD_PRELOAD=$PRE $B pairs $N 1048576)
bm=$(echo "$bare" | field median_ns); bp=$(echo "$bare" | field p99_ns)
vm=$(echo "$vg" | field median_ns); vp=$(echo "$vg" | field p99_ns)
printf '%-28s %10s %10s\n' path median_ns p99_ns
printf '%-28s %10s %10s\n' bare "$bm" "$bp"
printf '%-28s %10s %10s\n' libvgpu "$vm" "$vp"
printf '%-28s %10s %10s\n' added "$((vm - bm))" "$((vp - bp))"

echo
echo "== cuMemCreate+cuMemMap+cuMemUnmap+cuMemRelease rounds of 2 MiB, one process, $N rounds =="
bare=$($B vmmpairs $N 2097152)
vg=$(LD_PRELOAD=$PRE $B vmmpairs $N 2097152)
bm=$(echo "$bare" | field median_ns); bp=$(echo "$bare" | field p99_ns)
vm=$(echo "$vg" | field median_ns); vp=$(echo "$vg" | field p99_ns)
printf '%-28s %10s %10s\n' path median_ns p99_ns
printf '%-28s %10s %10s\n' bare "$bm" "$bp"
printf '%-28s %10s %10s\n' libvgpu "$vm" "$vp"
printf '%-28s %10s %10s\n' added "$((vm - bm))" "$((vp - bp))"

echo
echo "== 8 processes of one tenant allocating at once, $N pairs each =="
for mode in bare libvgpu; do
	rm -f /tmp/r.*
	for i in 1 2 3 4 5 6 7 8; do
		if [ $mode = bare ]; then $B pairs $N 1048576 > /tmp/r.$i &
		else LD_PRELOAD=$PRE $B pairs $N 1048576 > /tmp/r.$i & fi
	done
	wait
	m=$(cat /tmp/r.* | field median_ns | median)
	p=$(cat /tmp/r.* | field p99_ns | sort -n | tail -n 1)
	eval "${mode}_m=$m ${mode}_p=$p"
done
printf '%-28s %10s %10s\n' path median_ns worst_p99_ns
printf '%-28s %10s %10s\n' "bare x8" "$bare_m" "$bare_p"
printf '%-28s %10s %10s\n' "libvgpu x8" "$libvgpu_m" "$libvgpu_p"
printf '%-28s %10s %10s\n' added "$((libvgpu_m - bare_m))" "$((libvgpu_p - bare_p))"

echo
echo "== registration: cuInit, median of 31 starts =="
b=$(for i in $(seq 1 31); do $B init; done | field init_ns | median)
v=$(for i in $(seq 1 31); do LD_PRELOAD=$PRE $B init; done | field init_ns | median)
printf '%-28s %10s\n' path init_ns
printf '%-28s %10s\n' bare "$b"
printf '%-28s %10s\n' libvgpu "$v"
printf '%-28s %10s\n' added "$((v - b))"

echo
echo "== a program that never touches CUDA: fork+exec+exit of env -i, mean of 200 =="
b=$($B spawn 200 /usr/bin/env -i | field spawn_ns)
v=$(LD_PRELOAD=$PRE $B spawn 200 /usr/bin/env -i | field spawn_ns)
printf '%-28s %10s\n' path ns_per_run
printf '%-28s %10s\n' bare "$b"
printf '%-28s %10s\n' libvgpu "$v"
printf '%-28s %10s\n' added "$((v - b))"
fds=$(LD_PRELOAD=$PRE ls -l /proc/self/fd | grep -c -e vgpu -e socket)
echo "descriptors it opened for vgpu: $fds"

echo
echo "== 300 processes starting at once =="
t0=$($B now)
for i in $(seq 1 300); do LD_PRELOAD=$PRE $B hold 30000 & done
n=0
while :; do
	n=$(vgpuctl -j show | sed -n 's/.*"procs": *\([0-9]*\).*/\1/p')
	t1=$($B now)
	[ "$n" -ge 300 ] && break
	[ $(((t1 - t0) / 1000000)) -gt 60000 ] && break
done
echo "registered $n of 300 in $(((t1 - t0) / 1000000)) ms"
kill $(jobs -p) 2>/dev/null
wait
