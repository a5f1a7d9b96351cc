#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 50
# vm-boot: shared
# A refused charge costs the refused tenant (issue 33, item 3): what a
# charge that cannot fit makes the module do, judged by its counters
# (vram-failures, vram-scans), and that what fits after a look through
# the registrations (many of them: the look lets the lock go every few)
# still does. The time it costs others is bench/vm-refusal.sh's.
suite=vram-refusal
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
M=1048576
G=1073741824
mkdir -p $cg/r $cg/b $cg/o
vgpuctl gpu add 0 vram 16G >/dev/null
# b reserves 4G: r, without a vram-max, has 12G of room, its limit is 16G.
vgpuctl tenant add b cgroup b vram-min 4G gpus 0 >/dev/null
vgpuctl tenant add r cgroup r >/dev/null
vgpuctl tenant add o cgroup o >/dev/null

# nobody_in CGROUP ARGS...: vgpu-devtest ARGS as nobody inside the cgroup
nobody_in() {
	local d=$1
	shift
	sh -c "echo \$\$ > $cg/$d/cgroup.procs && exec su -s /bin/sh nobody -c 'vgpu-devtest $*'"
}
procs() { vgpu-devtest host | sed -n 's/.*procs=//p'; }
# delta NAME BEFORE AFTER: AFTER - BEFORE, absent counters as 0
delta() { echo $((${3:-0} - ${2:-0})); }

# Charges above every limit: 16 registrations x 63 rounds of 1T, then of
# 2G under a vram-max of 1G. Nothing can make them fit: no look.
for lim in none 1G; do
	vgpuctl tenant set r vram-max $lim >/dev/null
	want=1T
	[ $lim = none ] || want=2G
	read -r f0 s0 <<EOF
$(usage r 0 vram_failures vram_scans)
EOF
	out=$(nobody_in r hammer 0 $want 16 63)
	read -r f1 s1 <<EOF
$(usage r 0 vram_failures vram_scans)
EOF
	check_out "vram-max $lim: 1008 charges of $want refused" "calls=1008 ok=0 refused=1008" \
		echo "$out"
	check_eq "vram-max $lim: each counted as a failure" 1008 "$(delta f "$f0" "$f1")"
	check_eq "vram-max $lim: and none looked through the registrations" 0 \
		"$(delta s "$s0" "$s1")"
done
vgpuctl tenant set r vram-max none >/dev/null

# Charges that might fit (13G: under r's limit, over its room): the first
# looks, then r's charges on the GPU look again only 10 ms after one was
# refused. Whatever the emulator's speed, T ms hold at most T / 10 + 1
# looks (+1 for uptime's 10 ms steps).
read -r f0 s0 <<EOF
$(usage r 0 vram_failures vram_scans)
EOF
t0=$(uptime_ms)
out=$(nobody_in r hammer 0 13G 16 63)
t1=$(uptime_ms)
read -r f1 s1 <<EOF
$(usage r 0 vram_failures vram_scans)
EOF
n=$(delta s "$s0" "$s1")
bound=$(((t1 - t0) / 10 + 2))
check_out "1008 charges of 13G refused (12G of room)" "calls=1008 ok=0 refused=1008" echo "$out"
check_eq "each counted as a failure" 1008 "$(delta f "$f0" "$f1")"
if [ "$n" -ge 1 ] && [ "$n" -le "$bound" ]; then
	pass "looks: $n in $((t1 - t0)) ms (1 to $bound)"
else
	fail "looks at most every 10 ms" "$n looks in $((t1 - t0)) ms, want 1 to $bound"
fi

# Still fits: after the pause, a charge that fits once the budgets of
# 32 other registrations of r come back (four batches of the walk).
sleep 0.1
vgpuctl tenant set r vram-max 2G >/dev/null
bg_hold r /tmp/h1 vgpu-devtest hammer 0 2M 16 1 hold 60
h1=$!
bg_hold r /tmp/h2 vgpu-devtest hammer 0 2M 16 1 hold 60
h2=$!
bud=$(usage r 0 vram_budget)
[ "${bud:-0}" -gt $((G + G / 2)) ] && pass "32 registrations hold budgets ($bud bytes)" ||
	fail "32 registrations hold budgets" "budget $bud, want > 1.5G"
s0=$(usage r 0 vram_scans)
check_out "a charge that needs them all fits" "charge gpu=0 bytes=$((1900 * M))" \
	inside r register charge 0 1900M
check_eq "after one look" 1 "$(delta s "$s0" "$(usage r 0 vram_scans)")"
kill $h1 $h2
wait $h1 $h2 2>/dev/null

# A dead process's registration (its child keeps the socket and the
# file) is reaped by a charge that fits only without it.
vgpuctl tenant set r vram-max 1G >/dev/null
(inside r register alloc 0 900M fork-hold 5) > /tmp/fork.out
check_eq "its registration is not reaped yet" 1 "$(procs)"
check_out "a charge of 500M reaps it and fits" "charge gpu=0 bytes=$((500 * M))" \
	inside r register charge 0 500M
check_eq "and the dead one is gone" 0 "$(procs)"
sleep 5

# Others' budgets, over the whole GPU: o's 32 registrations hold budgets
# that r needs, r's own limit being no bound: they are taken back
# (GPU-wide, two passes of five batches).
vgpuctl tenant set r vram-max none >/dev/null
bg_hold o /tmp/h1 vgpu-devtest hammer 0 2M 16 1 hold 60
h1=$!
bg_hold o /tmp/h2 vgpu-devtest hammer 0 2M 16 1 hold 60
h2=$!
bud=$(usage o 0 vram_budget)
[ "${bud:-0}" -gt $((4 * G)) ] && pass "o's 32 registrations hold budgets ($bud bytes)" ||
	fail "o's 32 registrations hold budgets" "budget $bud, want > 4G"
check_out "r's charge that fits only with o's budgets takes them" \
	"charge gpu=0 bytes=$((12 * G - 64 * M))" inside r register charge 0 $((12 * G - 64 * M))
check_eq "o keeps what it holds, no budget" 0 "$(usage o 0 vram_budget)"
kill $h1 $h2
wait $h1 $h2 2>/dev/null

# Registrations that come and go while r's charges look through them (a
# walk goes on from a registration it holds a reference to, or starts
# again when that one ended): each charge of 512M under a vram-max of 1G
# fits only once the budget a sibling registration got comes back. The
# books balance once all are gone.
vgpuctl tenant set r vram-max 1G >/dev/null
( for i in $(seq 1 40); do (inside r register alloc 0 1M) > /dev/null 2>&1; done ) &
churn=$!
out=$(nobody_in r hammer 0 512M 16 60)
wait $churn
check_out "960 charges that fit after a look, beside registrations coming and going" \
	"calls=960" echo "$out"
check_out "none failed but for room" "other=0" echo "$out"
check_eq "nothing left charged once all are gone" "0 0" "$(usage r 0 vram_current vram_budget)"
vgpuctl tenant set r vram-max none >/dev/null

# A tenant deleted while one of its charges may be looking: nothing is
# left behind (slab debugging would see a use after free).
bg_hold r /tmp/h1 vgpu-devtest hammer 0 2M 16 1 hold 60
h1=$!
nobody_in r hammer 0 13G 16 200 > /dev/null &
a=$!
sleep 0.5
check "tenant del force while r is refused" vgpuctl tenant del r force
wait $a 2>/dev/null
kill $h1
wait $h1 2>/dev/null
check "the tenant can be made again" vgpuctl tenant add r cgroup r
suite_end
