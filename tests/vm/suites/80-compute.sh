#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 123
# vm-series: 6.12 7.3
# (Timed suites run one at a time, alone: on the two kernels whose
# hrtimer set-up differs, kmod/compat.h's branches (6.1 takes 6.12's);
# the module's grants are timed on every kernel by 65-sched-kernel.)
# vm-timing: yes
# Compute time-slicing end to end (issue #5): tenants' processes launch
# simgpu_spin kernels through libvgpu's gate; simgpu's engine, which runs
# one kernel at a time, records the device time each cgroup really got
# (the ground truth, read with simgpu-stat, whose clock also times the
# windows). Each check prints its figures; bench/run reprints them as a
# table (met/missed).
# vm-debug: off
# (slab debugging slows every system call: a tenant of 10 us kernels got
# 33% of its own throughput with it, 52% without; rates are measured bare)
suite=compute
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
export LD_PRELOAD=/usr/lib/libvgpu.so
vgpuctl gpu probe >/dev/null

# snap: one simgpu-stat snapshot in /tmp/snap.
snap() { simgpu-stat > /tmp/snap; }
# busy CGROUP: device ns the cgroup's kernels ran on GPU 0 (last snapshot).
busy() {
	awk -v c="/$1" '$1 == "cgroup" && $2 == c && $4 == 0 { v = $8 } END { print v + 0 }' /tmp/snap
}
# gpu_field N: field N of GPU 0's line (8 busy_ns, 14 now_ns, 16 max_idle_ns).
gpu_field() { awk -v f="$1" '$1 == "gpu" && $2 == 0 { print $f }' /tmp/snap; }

# load CGROUP NS [ARGS...]: a process in CGROUP that keeps GPU 0 busy
# with NS-long kernels on 2 streams (simgpu-client launch options after).
load() {
	local c=$1 ns=$2
	shift 2
	/tmp/in_cg "$c" simgpu-client launch "$ns" count 1000000000 streams 2 "$@" \
		>/dev/null 2>&1 &
}

# measure SECONDS CG...: share_CG (per mille of the engine time the
# listed cgroups got), util_CG (per mille of the wall time) and util_all
# (per mille of the wall time the engine was busy), over SECONDS.
measure() {
	local secs=$1 c t0 t1 g0 g1 total=0
	shift
	snap
	t0=$(gpu_field 14)
	g0=$(gpu_field 8)
	for c in "$@"; do eval "b0_$c=$(busy "$c")"; done
	sleep "$secs"
	snap
	t1=$(gpu_field 14)
	g1=$(gpu_field 8)
	for c in "$@"; do
		eval "d_$c=\$(( \$(busy $c) - b0_$c ))"
		eval "total=\$((total + d_$c))"
	done
	for c in "$@"; do
		eval "share_$c=\$(( d_$c * 1000 / (total > 0 ? total : 1) ))"
		eval "util_$c=\$(( d_$c * 1000 / (t1 - t0) ))"
	done
	util_all=$(( (g1 - g0) * 1000 / (t1 - t0) ))
}

# sleep_until NS: sleep until simgpu's clock (CLOCK_MONOTONIC, the
# module's too) reads NS.
sleep_until() {
	local ms
	snap
	ms=$(( ($1 - $(gpu_field 14)) / 1000000 ))
	[ "$ms" -gt 0 ] && sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
}

# measure_periods N PERIOD_US CG: util_CG over N whole compute-max periods
# (aligned on the monotonic clock, as the module's are), from a fifth of a
# period before a period starts: a capped tenant is then waiting for its
# next budget, so the window holds exactly N budgets' worth of its work.
measure_periods() {
	local n=$1 p=$(($2 * 1000)) c=$3 t b0 t0
	snap
	t=$(( ($(gpu_field 14) / p + 1) * p - p / 5 ))
	sleep_until $t
	snap
	t0=$(gpu_field 14)
	b0=$(busy "$c")
	sleep_until $((t + n * p))
	snap
	eval "util_$c=\$(( (\$(busy $c) - b0) * 1000 / (\$(gpu_field 14) - t0) ))"
}

# pm N: per mille as a percentage with one decimal.
pm() { echo "$(($1 / 10)).$(($1 % 10))%"; }

# within WHAT GOT WANT TOL (per mille)
within() {
	local d=$(($2 - $3))
	[ $d -lt 0 ] && d=$((-d))
	if [ $d -le $4 ]; then
		pass "$1: $(pm $2) (want $(pm $3) +- $(pm $4))"
	else
		fail "$1" "got $(pm $2), want $(pm $3) +- $(pm $4)"
	fi
}

# at_least WHAT GOT MIN (per mille)
at_least() {
	if [ "$2" -ge "$3" ]; then
		pass "$1: $(pm $2) (want >= $(pm $3))"
	else
		fail "$1" "got $(pm $2), want >= $(pm $3)"
	fi
}

# idle_at_most WHAT MAX_MS: the longest the engine stood idle since the
# last simgpu-stat reset (the hand-over under test).
idle_at_most() {
	local ms
	snap
	ms=$(( $(gpu_field 16) / 1000000 ))
	if [ "$ms" -le "$2" ]; then
		pass "$1: GPU idle at most $ms ms (want <= $2 ms)"
	else
		fail "$1" "GPU idle for $ms ms (want <= $2 ms)"
	fi
}

# grant_state TENANT: its grants and throttled time on GPU 0, as the
# module counts them (nothing when vgpuctl shows no usage there).
grant_state() {
	# shellcheck disable=SC2046 # two numbers, split on purpose
	set -- $(usage "$1" 0 grants throttled_ns)
	[ $# -ne 2 ] || echo "grants $1 throttled_ns $2"
}

# holds_throughout WHAT SECONDS CG [OTHER]: over SECONDS (measure's
# window), CG held GPU 0 without a break (its grants and throttled time
# did not move: no hand-over, no wait) and OTHER ran nothing on it. Its
# use of the GPU is printed, not judged: under emulation a lone tenant
# that holds the GPU all along kept it 91-98% busy over 2 s windows (its
# launching thread stalls when the emulated CPUs take turns on the
# host's), which says nothing about the scheduler.
holds_throughout() {
	local what=$1 secs=$2 c=$3 o=${4:-} before after used ran=0
	before=$(grant_state "$c")
	measure "$secs" "$c" $o
	after=$(grant_state "$c")
	eval "used=\$util_$c"
	[ -z "$o" ] || eval "ran=\$d_$o"
	case $before in
	"grants "[0-9]*" throttled_ns "[0-9]*) ;;
	*) fail "$what" "no usage of $c on GPU 0: $before"; return ;;
	esac
	if [ "$before" = "$after" ] && [ "$ran" -eq 0 ]; then
		pass "$what: $c held the GPU for $secs s without a break ($after; it kept it $(pm "$used") busy)"
	else
		fail "$what" "$c: $before before, $after after; ${o:-no other}: $ran ns of kernels"
	fi
}

# wait_done FILE: until the client's result line is in FILE (30 s at most).
wait_done() {
	local i
	for i in $(seq 1 300); do
		grep -q ' ok$' "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# Fresh tenants for each scenario, so that one's virtual time and budget
# do not carry into the next (Documentation/compute.md).
fresh() {
	killall -9 simgpu-client 2>/dev/null
	sleep 0.5
	for t in x y z; do
		vgpuctl tenant del $t >/dev/null 2>&1
		vgpuctl tenant add $t cgroup $t >/dev/null
	done
}
mkdir -p $cg/x $cg/y $cg/z

# --- weighted shares under full contention for 10 s, within 2 points
shares() {
	local label=$1 wx=$2 wy=$3 wz=$4 tot
	fresh
	vgpuctl tenant set x weight "$wx" >/dev/null
	vgpuctl tenant set y weight "$wy" >/dev/null
	load x 2000000
	load y 2000000
	if [ "$wz" = - ]; then
		sleep 2
		measure 10 x y
		tot=$((wx + wy))
	else
		vgpuctl tenant set z weight "$wz" >/dev/null
		load z 2000000
		sleep 2
		measure 10 x y z
		tot=$((wx + wy + wz))
	fi
	within "$label: x" "$share_x" $((wx * 1000 / tot)) 20
	within "$label: y" "$share_y" $((wy * 1000 / tot)) 20
	[ "$wz" = - ] || within "$label: z" "$share_z" $((wz * 1000 / tot)) 20
	# Work conservation: hand-overs cost little device time.
	at_least "$label: GPU busy" "$util_all" 850
}
shares "weights 10/90" 10 90 -
shares "weights 30/70" 30 70 -
shares "weights 50/30/20" 50 30 20

# --- kernels of very different lengths: x cycles through 10 us, 100 us,
# 1 ms and 10 ms kernels, y runs 50 ms ones; equal weights.
fresh
load x 10000 decades 4
load y 50000000
sleep 2
measure 10 x y
within "10 us to 10 ms kernels against 50 ms kernels, equal weights: x" "$share_x" 500 20
within "10 us to 10 ms kernels against 50 ms kernels, equal weights: y" "$share_y" 500 20

# --- only 10 us kernels against 50 ms ones. Under emulation a process
# cannot submit 10 us kernels fast enough to fill the GPU (alone it keeps
# it 2-3 % busy), so the share of engine time says little; what the
# weights promise is the time: x still gets about half of its own
# throughput alone. Its rate alone is bound by the emulated CPUs and
# drifts by up to 2x within seconds (1,900 to 3,500 kernels a second
# unpinned, 5,600 to 12,400 pinned to one CPU, in consecutive windows of
# one process), so alone and contended are measured in alternation, 5
# times 1 s each: y's cgroup frozen (its waiting thread leaves the WAIT
# on the freezer's signal, so y has no demand) and thawed. Measured
# 41-64 % this way; checked: at least 30 %, where it got 0 % before the
# queue bound and 28 % before the scheduler's fixes. The freezer may stop
# y while it holds simgpu's shared state lock (a process-shared mutex):
# x's engine and simgpu-stat then wait until y thaws, and the suite hung
# (on 7.3, 2 runs of 3, cut off at 600 s). So y counts as frozen only
# once simgpu-stat answers; else it is thawed and frozen again.
y_freeze() {
	local i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		echo 1 > $cg/y/cgroup.freeze
		sleep 0.3
		timeout 2 simgpu-stat >/dev/null 2>&1 && return 0
		echo 0 > $cg/y/cgroup.freeze
		sleep 0.1
	done
	fail "y frozen without simgpu's state lock" "held in 10 tries of 10"
	return 1
}
fresh
load x 10000
load y 50000000
sleep 2
alone=0
both=0
for i in 1 2 3 4 5; do
	y_freeze || break
	measure 1 x
	alone=$((alone + util_x))
	echo 0 > $cg/y/cgroup.freeze
	sleep 0.3
	measure 1 x y
	both=$((both + util_x))
done
at_least "10 us kernels against 50 ms kernels: x's throughput, of its own alone ($(pm $((alone / 5))) of the GPU)" \
	$((both * 1000 / (alone > 0 ? alone : 1))) 300

# --- a lone tenant with weight 30 keeps the whole GPU
fresh
vgpuctl tenant set x weight 30 >/dev/null
load x 2000000
sleep 2
holds_throughout "lone tenant with weight 30 keeps the GPU" 10 x

# --- a tenant that goes idle (finished its work, process still alive)
# leaves the GPU to the other within a period
fresh
/tmp/in_cg x simgpu-client launch 2000000 count 600 streams 2 , sleep 100000 >/tmp/x.out 2>&1 &
load y 2000000
sleep 1
simgpu-stat reset
if wait_done /tmp/x.out; then
	sleep 0.5
	idle_at_most "an idle tenant's share goes to the other" 100
	holds_throughout "an idle tenant's share goes to the other" 2 y x
else
	fail "an idle tenant's share goes to the other" "x never finished: $(cat /tmp/x.out)"
fi

# --- compute-max 40% alone stays at 40%. Each period the capped tenant
# stops and starts again; under emulation that costs about 2 ms of idle
# device time a time (tens of us on hardware), 2 points of a 100 ms
# period, so the check runs with 500 ms periods (bench/run measures the
# default too).
# cap PERIOD_US: compute-max 40% alone with that period.
cap() {
	local period
	fresh
	period=$(cat /sys/module/vgpu/parameters/period_us)
	echo "$1" > /sys/module/vgpu/parameters/period_us
	vgpuctl tenant set x compute-max 40% >/dev/null
	load x 2000000
	sleep 2
	measure_periods $((10000000 / $1)) "$1" x
	within "compute-max 40% alone ($(($1 / 1000)) ms periods, 10 s)" "$util_x" 400 20
	echo "$period" > /sys/module/vgpu/parameters/period_us
}
cap 500000

# --- priority: high gets the GPU while it has work, low resumes after
fresh
vgpuctl tenant set x priority low >/dev/null
vgpuctl tenant set y priority high >/dev/null
load x 2000000
sleep 1
# y: 6 s of work, measured from its second to its fourth.
/tmp/in_cg y simgpu-client launch 2000000 count 3000 streams 2 , sleep 100000 >/tmp/y.out 2>&1 &
sleep 1
measure 3 x y
at_least "high priority gets the GPU while it has work" "$share_y" 950
simgpu-stat reset
if wait_done /tmp/y.out; then
	sleep 0.5
	idle_at_most "low priority resumes within a period after high's work" 100
else
	fail "low priority resumes within a period after high's work" "y never finished: $(cat /tmp/y.out)"
fi

# --- a killed holder frees its grant at once
fresh
load x 2000000
xp=$!
sleep 1
load y 2000000
sleep 1
simgpu-stat reset
kill -9 $xp
sleep 1
idle_at_most "a killed tenant's grant goes to the other at once" 50
holds_throughout "a killed tenant's grant goes to the other" 1 y x

# --- the counters
j=$(vgpuctl -j tenant show y | tr -d ' \n')
case $j in
*'"gpu_time_ns":'[1-9]*'"throttled_ns":'[1-9]*'"grants":'[1-9]*)
	pass "gpu_time_ns, throttled_ns and grants are reported" ;;
*) fail "gpu_time_ns, throttled_ns and grants are reported" "$j" ;;
esac
killall -9 simgpu-client 2>/dev/null

suite_end
