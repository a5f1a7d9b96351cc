#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Suspension benchmarks inside the VM (run by bench/run; issue 31): the
# checkpoint API called bare (ckpt-ctl on a process, as cuda-checkpoint
# does) against vgpuctl tenant suspend/resume end to end (the module, the
# agent, the same driver calls) in the same boot, per size and per GiB;
# then what a high-priority allocation waits while a preemptible tenant
# is suspended for it, against the same allocation with room. The VM has
# 1 GiB of RAM for the host copies: sizes stay at 256 MiB and below.
# vm-debug: off
. /tests/suite-lib.sh
cg=/sys/fs/cgroup
M=1048576
G=1073741824
PRE=/usr/lib/libvgpu.so
ROUNDS=${ROUNDS:-3}

vgpuctl gpu probe > /dev/null
mkdir -p $cg/bare $cg/lo $cg/hi $cg/big
vgpuctl tenant add lo cgroup lo > /dev/null
vgpuctl agent lock-timeout 10000 2> /dev/null &
agent=$!
monitor_ready $agent

# ms since boot, to 10 ms
ms() { uptime_ms; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# ctl_ms OUTPUT STEP: the ms ckpt-ctl printed for STEP
ctl_ms() { printf '%s\n' "$1" | sed -n "s/^$2 .* ms \([0-9]*\).*/\1/p"; }
# start NAME CGROUP PRELOAD SIZE: a client holding SIZE, filled; $! its pid
start() {
	rm -f /tmp/$1.ready
	LD_PRELOAD=$3 /tmp/in_cg "$2" ckpt-client alloc "$4" , touch /tmp/$1.ready , \
		wait /tmp/$1.go > /tmp/$1.out 2>&1 &
	pid=$!
	while [ ! -e /tmp/$1.ready ]; do sleep 0.05; done
}
stop() { touch /tmp/$1.go; wait "$2"; rm -f /tmp/$1.go; }

echo "== suspend and resume: the checkpoint API bare (ckpt-ctl) and vgpuctl tenant suspend/resume (module + agent), median of $ROUNDS =="
printf '%-8s %-26s %10s %10s %12s %12s\n' size path suspend_ms resume_ms suspend_ms/GiB resume_ms/GiB
for mib in 64 128 256; do
	: > /tmp/bs; : > /tmp/br; : > /tmp/vs; : > /tmp/vr
	for r in $(seq "$ROUNDS"); do
		start b bare "" ${mib}M
		out=$(ckpt-ctl $pid suspend 10000)
		echo $(( $(ctl_ms "$out" lock) + $(ctl_ms "$out" checkpoint) )) >> /tmp/bs
		out=$(ckpt-ctl $pid resume)
		echo $(( $(ctl_ms "$out" restore) + $(ctl_ms "$out" unlock) )) >> /tmp/br
		stop b $pid
		start v lo $PRE ${mib}M
		t0=$(ms); vgpuctl tenant suspend lo > /dev/null; t1=$(ms)
		vgpuctl tenant resume lo > /dev/null; t2=$(ms)
		echo $((t1 - t0)) >> /tmp/vs
		echo $((t2 - t1)) >> /tmp/vr
		stop v $pid
	done
	for p in bare vgpu; do
		case $p in bare) s=$(median < /tmp/bs); r=$(median < /tmp/br) ;;
			   vgpu) s=$(median < /tmp/vs); r=$(median < /tmp/vr) ;; esac
		printf '%-8s %-26s %10s %10s %12s %12s\n' ${mib}M \
			"$([ $p = bare ] && echo 'bare (ckpt-ctl)' || echo 'vgpuctl + agent')" \
			"$s" "$r" $((s * 1024 / mib)) $((r * 1024 / mib))
	done
done

echo
echo "== a high-priority 128 MiB allocation: with room, and waiting while a preemptible tenant holding 192 MiB is suspended (median of $ROUNDS) =="
# All but 256 MiB of GPU 0 reserved: the two tenants share 256 MiB.
vgpuctl tenant add big cgroup big vram-min $((16 * G - 256 * M)) > /dev/null
vgpuctl tenant set lo vram-max 256M priority low preemptible on > /dev/null
vgpuctl tenant add hi cgroup hi vram-max 256M priority high vram-wait 60 > /dev/null
hialloc() { LD_PRELOAD=$PRE /tmp/in_cg hi vram-client alloc 128M > /dev/null; }
: > /tmp/room; : > /tmp/pre
for r in $(seq "$ROUNDS"); do
	t0=$(ms); hialloc; t1=$(ms)
	echo $((t1 - t0)) >> /tmp/room
	start v lo $PRE 192M
	t0=$(ms); hialloc; t1=$(ms)
	echo $((t1 - t0)) >> /tmp/pre
	await "lo resumes" 600 sh -c "vgpuctl -j tenant show lo | grep -q '\"state\": *\"running\"'"
	stop v $pid
done
room=$(median < /tmp/room); pre=$(median < /tmp/pre)
printf '%-44s %10s\n' path alloc_ms
printf '%-44s %10s\n' 'with room (a process: start, alloc, exit)' "$room"
printf '%-44s %10s\n' 'preempting 192 MiB (same, waiting)' "$pre"
printf '%-44s %10s\n' added "$((pre - room))"
kill $agent
