#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 160
# vm-series: 7.3
# (One kernel: it tests libvgpu's gating of work beyond kernels; the
# module's gate is 67-capture's on every kernel and 65-sched-kernel's and
# 80-compute's, timed, on 6.1, 6.12 and 7.3.)
# vm-boot: shared
# The compute gate beyond kernels on the current context (issue #14):
# launches on another device's stream with no context current, copies
# (1D, 2D, 3D, peer, batch, with CUDA arrays, 3D batch, with attributes,
# fabric), 2D memsets, prefetches (single and batch), stream memory
# operations, the deprecated launches (cuLaunch, cuLaunchGrid(Async),
# multi-device cooperative, which waits until all its gates are open at
# once), and one thread driving two GPUs whose work depends on each
# other. A closed gate is made by a high-priority tenant (y) with work on
# the GPU: the low-priority tenant (x) must then make no progress there,
# and finish once y's work is done. simgpu's engine records the device
# time each cgroup got (simgpu-stat), copies included (bytes / copy_bw).
suite=engines
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
export LD_PRELOAD=/usr/lib/libvgpu.so
vgpuctl gpu probe >/dev/null
mkdir -p $cg/x $cg/y
vgpuctl tenant add x cgroup x >/dev/null
vgpuctl tenant add y cgroup y >/dev/null
vgpuctl tenant set x priority low >/dev/null
vgpuctl tenant set y priority high >/dev/null

# wait_line FILE SECONDS: until FILE has a result line (" ok" or an
# error); 0 if it came.
wait_line() {
	local i
	for i in $(seq 1 $(($2 * 10))); do
		grep -q '^[a-z]* ' "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# y_takes GPU NS: y starts one NS-long kernel on GPU, synchronising on it
# (busy, so it keeps its grant), its pid in $y; waits up to 5 s for y to
# be granted the GPU: 0 if it was.
y_takes() {
	local g i n
	g=$(usage y "$1" grants)
	/tmp/in_cg y simgpu-client device "$1" , launch "$2" count 1 >/dev/null 2>&1 &
	y=$!
	for i in $(seq 1 50); do
		n=$(usage y "$1" grants)
		# (no usage yet on a GPU y never used: no number at all)
		[ "${n:-0}" -gt "${g:-0}" ] && return 0
		sleep 0.1
	done
	return 1
}

# stalls WHAT GPU CMD...: x runs CMD (an engine-client command) while y
# keeps GPU busy for 3 s with 2 ms kernels; over y's second second x's
# work must take under 2% of the GPU (the gate is closed to it), and x's
# command must finish ok after y's work.
stalls() {
	local what=$1 gpu=$2 b0 b1 out=/tmp/x.out
	shift 2
	rm -f $out
	/tmp/in_cg y simgpu-client device "$gpu" , launch 2000000 count 1500 streams 2 \
		>/tmp/y.out 2>&1 &
	# y's 3 s start when its first kernel runs, which a loaded run
	# reached over a second after starting it
	await_launching /y "$gpu"
	/tmp/in_cg x engine-client "$@" >$out 2>&1 &
	sleep 1
	b0=$(gpu_busy /x "$gpu")
	sleep 1
	b1=$(gpu_busy /x "$gpu")
	if [ $((b1 - b0)) -lt 20000000 ]; then
		pass "$what: stalls while the gate is closed ($((b1 - b0)) ns in 1 s)"
	else
		fail "$what: stalls while the gate is closed" "$((b1 - b0)) ns of GPU $gpu in 1 s"
	fi
	if wait_line $out 60 && grep -q ' ok$' $out; then
		pass "$what: finishes once the gate opens ($(gpu_busy /x "$gpu") ns on GPU $gpu)"
	else
		fail "$what: finishes once the gate opens" "$(cat $out)"
	fi
	wait
}

# --- a stream of GPU 1, no current context: gated on GPU 1, not GPU 0
stalls "kernels on GPU 1's stream with no current context" 1 xstream 2000000 400 1
# --- copies pass the gate: 1 MiB device-to-device copies, 2 ms each at
# 512 MiB/s (small, so that the emulated CPU's memmove is no bottleneck)
export SIMGPU_COPY_BW=512M
stalls "a copy-only tenant" 0 copy 1M 400
# --- pitched (2D, 3D) copies and memsets, peer and batch copies and
# prefetches likewise (1 MiB each, 2 ms): engine-client checks the data
# they moved
stalls "a 2D-copy-only tenant" 0 work 2d 1M 400
stalls "a 3D-copy-only tenant" 0 work 3d 1M 400
stalls "a peer-copy-only tenant" 0 work peer 1M 400
stalls "a batch-copy-only tenant" 0 work batch 1M 400
stalls "a 2D-memset-only tenant" 0 work memset2d 1M 400
stalls "a prefetch-only tenant" 0 work prefetch 1M 400
# copies with CUDA arrays (asynchronous; synchronous on the current
# context's GPU), 3D batch copies and batch prefetches likewise
stalls "an array-copy-only tenant" 0 work array 1M 400
stalls "a synchronous-array-copy-only tenant" 0 work arraysync 1M 400
stalls "a 3D-batch-copy-only tenant" 0 work batch3d 1M 400
stalls "a batch-prefetch-only tenant" 0 work prefetchbatch 1M 400
stalls "a discard-and-prefetch-only tenant" 0 work discardprefetch 1M 400
# copies with attributes (one 1D, one 3D op at a time) and fabric copies
# between pointers (CUDA 13.2 and 13.5)
stalls "a copy-with-attributes-only tenant" 0 work copyattr 1M 400
stalls "a 3D-copy-with-attributes-only tenant" 0 work copy3dattr 1M 400
stalls "a fabric-copy-only tenant" 0 work fabric 1M 400
unset SIMGPU_COPY_BW

# --- the deprecated launches (2 ms kernels): cuLaunch and cuLaunchGrid
# on the current context's NULL stream, cuLaunchGridAsync on a stream, a
# multi-device cooperative launch on GPUs 0 and 1 (GPU 0's gate closed)
stalls "a cuLaunch-only tenant" 0 work launch 2000000 400
stalls "a cuLaunchGrid-only tenant" 0 work launchgrid 2000000 400
stalls "a cuLaunchGridAsync-only tenant" 0 work launchgridasync 2000000 400
stalls "a multi-device-cooperative-launch-only tenant" 0 work multidevice 2000000 400

# --- stream memory operations take next to no device time: a closed gate
# shows as none of x's calls returning. x sets up (its memset passes the
# gate: "[set up]") and waits; y (high priority) then holds the GPU with one 4 s
# kernel, synchronising on it (busy, so its grant is never given up, by
# any load's timing); x's go comes once y holds the grant: while y's
# kernel runs, x must not have one call back ("[issued N]"), and once it
# ends x must finish.
memops() {
	local what=$1 i granted=0 alive
	shift
	rm -f /tmp/x.out /tmp/go
	ENGINE_GO=/tmp/go /tmp/in_cg x engine-client "$@" >/tmp/x.out 2>&1 &
	for i in $(seq 1 50); do
		grep -qx '\[set up\]' /tmp/x.out 2>/dev/null && break
		sleep 0.1
	done
	y_takes 0 4000000000 && granted=1
	touch /tmp/go
	sleep 1
	# x's lines, then whether y still holds: y alive after the copy was
	# alive (and its 4 s kernel running) while x's calls were looked at.
	# In a stalled VM y's kernel may end first and x's calls rightly go.
	cp /tmp/x.out /tmp/x.seen 2>/dev/null || : > /tmp/x.seen
	alive=0
	! kill -0 $y 2>/dev/null || alive=1
	if ! grep -qx '\[set up\]' /tmp/x.seen; then
		fail "$what: stalls while the gate is closed" "not set up in 5 s: $(cat /tmp/x.seen)"
	elif [ "$granted" = 0 ]; then
		fail "$what: stalls while the gate is closed" "y was not granted GPU 0 in 5 s"
	elif [ "$alive" = 0 ]; then
		fail "$what: stalls while the gate is closed" \
			"y's 4 s kernel ended before the check (the VM stalled)"
	elif grep -qE '^(\[issued |[a-z]* )' /tmp/x.seen; then
		fail "$what: stalls while the gate is closed" \
			"calls returned: $(grep -c '^\[issued ' /tmp/x.seen), $(tail -n 1 /tmp/x.seen)"
	else
		pass "$what: stalls while the gate is closed (no call returned in 1 s)"
	fi
	if wait_line /tmp/x.out 60 && grep -q ' ok$' /tmp/x.out; then
		pass "$what: finishes once the gate opens"
	else
		fail "$what: finishes once the gate opens" "$(cat /tmp/x.out)"
	fi
	wait
}
memops "a stream-write-value-only tenant" work writevalue 0 20
memops "a stream-batch-memop-only tenant" work batchmemop 0 20

# --- one thread, two GPUs, cross-device waits, closed and reopened gate.
# Marks are asked to wait for the newest launch (VGPU_QUEUE_US=1000 with
# 5 ms kernels): without the bounded wait of a thread on several GPUs,
# the mark after a launch on GPU 0 waits for work that runs only after
# the thread's next launch on GPU 1. y holds both GPUs (one long kernel
# each) before x starts; x waits at GPU 0's gate; y's GPU 0 process is
# ended; x launches there and meets GPU 1's gate still closed, which y
# holds 1 s more. The script sets the order (y's work of fixed lengths,
# 2.4 s on GPU 1 and 0.6 s on GPU 0, had ended on GPU 0 before a loaded
# x started: "throttled 0" there).
rm -f /tmp/x.out
vgpuctl tenant del x >/dev/null
vgpuctl tenant add x cgroup x >/dev/null
vgpuctl tenant set x priority low >/dev/null
pp="one thread on two GPUs with cross-device waits completes under a closed and reopened gate"
# x_throttled GPU: x has been throttled on GPU (throttled_ns runs while it waits).
x_throttled() { [ "$(usage x "$1" throttled_ns)" -gt 0 ] 2>/dev/null; }
if ! y_takes 1 60000000000; then
	fail "$pp" "y was not granted GPU 1 in 5 s"
elif y1=$y; ! y_takes 0 60000000000; then
	fail "$pp" "y was not granted GPU 0 in 5 s"
else
	y0=$y
	VGPU_QUEUE_US=1000 /tmp/in_cg x engine-client pingpong 5000000 40 >/tmp/x.out 2>&1 &
	await "x waits at GPU 0's closed gate" 300 x_throttled 0 && sleep 0.5
	kill -9 $y0
	await "x waits at GPU 1's closed gate, GPU 0 open" 300 x_throttled 1 && sleep 1
	kill -9 $y1
	if wait_line /tmp/x.out 60 && grep -q ' ok$' /tmp/x.out; then
		pass "$pp"
	else
		fail "$pp" "$(cat /tmp/x.out)"
	fi
	for g in 0 1; do
		check_gate=$(usage x $g throttled_ns)
		case $check_gate in
		""|0) fail "x waited at GPU $g's closed gate" "throttled '$check_gate' ns" ;;
		*) pass "x waited at GPU $g's closed gate (throttled $((check_gate / 1000000)) ms)" ;;
		esac
	done
fi
kill -9 $(jobs -p) 2>/dev/null
wait

# --- a multi-device cooperative launch goes only with both gates open at
# once: y holds GPU 1 (one long kernel, synchronised on); x's launch passes
# GPU 0's gate and waits at GPU 1's; y then takes GPU 0 too. y's GPU 1
# process is ended: GPU 1 opens while GPU 0's gate is closed, and x must
# wait there (2 s, until y's GPU 0 process is ended too), not launch with
# it closed. The script sets the order: with a 4 s kernel on GPU 1, a
# loaded run saw it end before y had been granted GPU 0 (y_takes polls for
# up to 5 s), and the check could not be made.
rm -f /tmp/x.out
# ms of x's throttled time on GPU 0.
x_throttled_ms() {
	local t
	t=$(usage x 0 throttled_ns)
	echo $((${t:-0} / 1000000))
}
md="a multi-device cooperative launch waits for both gates open at once"
if ! y_takes 1 60000000000; then
	fail "$md" "y was not granted GPU 1 in 5 s"
else
	y1=$y
	/tmp/in_cg x engine-client work multidevice 2000000 1 >/tmp/x.out 2>&1 &
	sleep 1
	if ! y_takes 0 60000000000; then
		fail "$md" "y was not granted GPU 0 in 5 s"
	elif grep -q '^[a-z]* ' /tmp/x.out; then
		fail "$md" "x launched while y held GPU 1: $(cat /tmp/x.out)"
	else
		y0=$y
		t0=$(x_throttled_ms)
		kill -9 $y1
		sleep 2
		if grep -q '^[a-z]* ' /tmp/x.out; then
			fail "$md" "x launched with GPU 0's gate closed: $(cat /tmp/x.out)"
		else
			kill -9 $y0
			if wait_line /tmp/x.out 60 && grep -q ' ok$' /tmp/x.out; then
				t1=$(x_throttled_ms)
				if [ $((t1 - t0)) -ge 1000 ]; then
					pass "$md (GPU 0 closed when GPU 1 opened: waited $((t1 - t0)) ms there)"
				else
					fail "$md" "x launched with GPU 0's gate closed: waited $((t1 - t0)) ms there"
				fi
			else
				fail "$md" "x did not finish once both gates opened: $(cat /tmp/x.out)"
			fi
		fi
	fi
fi
kill -9 $(jobs -p) 2>/dev/null
wait

suite_end
