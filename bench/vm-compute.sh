#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Compute benchmark (bench/run): share error and reclaim for the scenarios
# of issue 5. Tenants' processes launch kernels through libvgpu's gate on
# simgpu; simgpu's engine, which runs one kernel at a time, records the
# device time each cgroup really got (the ground truth). Each line says
# whether the issue's target was met under this emulated VM; these are
# measurements, not tests (the scheduler's own checks are in
# tests/vm/suites/65-sched-kernel.sh).
pass() { echo "met     $1"; }
fail() { echo "missed  $1: $2"; }
suite_end() { :; }
echo "== compute shares and reclaim (ground truth: simgpu's engine) =="

cg=/sys/fs/cgroup
export LD_PRELOAD=/usr/lib/libvgpu.so
vgpuctl gpu probe >/dev/null

cat > /tmp/in_cg <<'EOS'
#!/bin/sh
echo $$ > /sys/fs/cgroup/$1/cgroup.procs || exit 125
shift
exec "$@"
EOS
chmod +x /tmp/in_cg

# busy CGROUP: device ns simgpu's engine ran the cgroup's kernels on GPU 0.
busy() {
	simgpu-stat | awk -v c="/$1" '$1 == "cgroup" && $2 == c && $4 == 0 { v = $8 } END { print v + 0 }'
}
# now_ms: uptime in ms.
now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

# load CGROUP NS: a process that keeps GPU 0 busy with NS-long kernels.
load() {
	/tmp/in_cg "$1" simgpu-client launch "$2" count 1000000000 streams 2 >/dev/null 2>&1 &
}

# measure SECONDS CG...: sets share_CG (percent of the engine's busy time,
# one decimal as tenths) and util_CG (percent of wall time, tenths).
measure() {
	local secs=$1 c t0 t1 total=0
	shift
	for c in "$@"; do eval "b0_$c=$(busy $c)"; done
	t0=$(now_ms)
	sleep "$secs"
	t1=$(now_ms)
	for c in "$@"; do
		eval "d_$c=\$(( \$(busy $c) - b0_$c ))"
		eval "total=\$((total + d_$c))"
	done
	for c in "$@"; do
		eval "share_$c=\$(( d_$c * 1000 / (total > 0 ? total : 1) ))"
		eval "util_$c=\$(( d_$c / 1000 / (t1 - t0) ))"
	done
}

# within WHAT TENTHS WANT_TENTHS TOL_TENTHS
within() {
	local d=$(($2 - $3))
	[ $d -lt 0 ] && d=$((-d))
	if [ $d -le $4 ]; then
		pass "$1 ($(($2 / 10)).$(($2 % 10))%, want $(($3 / 10)).$(($3 % 10))% +- $(($4 / 10)).$(($4 % 10)))"
	else
		fail "$1" "got $(($2 / 10)).$(($2 % 10))%, want $(($3 / 10)).$(($3 % 10))% +- $(($4 / 10)).$(($4 % 10))"
	fi
}

# Fresh tenants for each scenario: a tenant's virtual time carries over
# from the scenarios before it (see Documentation/compute.md).
stop_all() {
	killall -9 simgpu-client 2>/dev/null
	sleep 0.5
	for t in x y z; do
		vgpuctl tenant del $t >/dev/null 2>&1
		vgpuctl tenant add $t cgroup $t >/dev/null
	done
}

# tenants x, y, z in their own cgroups
mkdir -p $cg/x $cg/y $cg/z
stop_all

# --- weighted shares under full contention for 10 s
shares() {
	local label=$1 wx=$2 wy=$3 wz=$4
	vgpuctl tenant set x weight $wx >/dev/null
	vgpuctl tenant set y weight $wy >/dev/null
	load x 2000000
	load y 2000000
	if [ "$wz" != - ]; then
		vgpuctl tenant set z weight $wz >/dev/null
		load z 2000000
	fi
	sleep 2
	if [ "$wz" = - ]; then
		measure 10 x y
		tot=$((wx + wy))
		within "$label: x" $share_x $((wx * 1000 / tot)) 20
		within "$label: y" $share_y $((wy * 1000 / tot)) 20
	else
		measure 10 x y z
		tot=$((wx + wy + wz))
		within "$label: x" $share_x $((wx * 1000 / tot)) 20
		within "$label: y" $share_y $((wy * 1000 / tot)) 20
		within "$label: z" $share_z $((wz * 1000 / tot)) 20
	fi
	stop_all
}
shares "weights 10/90" 10 90 -
shares "weights 30/70" 30 70 -
shares "weights 50/30/20" 50 30 20

# --- kernels of very different lengths: 10 us against 50 ms, 50/50
vgpuctl tenant set x weight 100 >/dev/null
vgpuctl tenant set y weight 100 >/dev/null
load x 10000
load y 50000000
sleep 2
measure 10 x y
within "10 us kernels against 50 ms kernels, equal weights: x" $share_x 500 20
stop_all

# --- a lone tenant with weight 30 gets the whole GPU
vgpuctl tenant set x weight 30 >/dev/null
load x 2000000
sleep 2
measure 10 x
if [ $util_x -ge 950 ]; then pass "lone tenant with weight 30 uses $((util_x / 10))% of the GPU"
else fail "lone tenant with weight 30 uses the GPU" "$((util_x / 10)).$((util_x % 10))%"; fi

# --- a tenant that goes idle leaves its share to the other within a period
stop_all
vgpuctl tenant set x weight 100 >/dev/null
load x 2000000
xp=$!
load y 2000000
sleep 2
kill -STOP $xp
sleep 0.3
measure 5 y
if [ $util_y -ge 900 ]; then pass "an idle tenant's share goes to the other ($((util_y / 10))%)"
else fail "an idle tenant's share goes to the other" "$((util_y / 10)).$((util_y % 10))%"; fi
kill -9 $xp
stop_all

# --- compute-max 40% alone stays at 40%
vgpuctl tenant set x compute-max 40% >/dev/null
load x 2000000
sleep 2
measure 10 x
within "compute-max 40% alone" $util_x 400 20
stop_all
vgpuctl tenant set x compute-max none >/dev/null

# --- priority: high gets the GPU while it has work, low resumes after
vgpuctl tenant set x priority low >/dev/null
vgpuctl tenant set y priority high >/dev/null
load x 2000000
sleep 1
load y 2000000
yp=$!
sleep 1
measure 5 x y
if [ $share_y -ge 950 ]; then pass "high priority gets $((share_y / 10))% while it has work"
else fail "high priority gets the GPU while it has work" "$((share_y / 10)).$((share_y % 10))%"; fi
kill -9 $yp
sleep 0.1
measure 1 x
if [ $util_x -ge 800 ]; then pass "low priority resumes within a period ($((util_x / 10))% of the next second)"
else fail "low priority resumes within a period" "$((util_x / 10)).$((util_x % 10))%"; fi
stop_all

# --- a killed holder frees its grant at once
vgpuctl tenant set x priority normal >/dev/null
vgpuctl tenant set y priority normal >/dev/null
load x 2000000
xp=$!
load y 2000000
sleep 2
kill -9 $xp
sleep 0.1
measure 2 y
if [ $util_y -ge 900 ]; then pass "a killed tenant's grant goes to the other at once ($((util_y / 10))%)"
else fail "a killed tenant's grant goes to the other at once" "$((util_y / 10)).$((util_y % 10))%"; fi
# --- counters
j=$(vgpuctl -j tenant show x | tr -d ' \n')
case $j in
*'"gpu_time_ns":'[1-9]*'"grants":'[1-9]*) pass "gpu_time_ns, throttled_ns and grants are reported" ;;
*) fail "gpu_time_ns, throttled_ns and grants are reported" "$j" ;;
esac
stop_all

suite_end
