#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 60
# vm-boot: shared
# The reads a tenant may make of itself that sum or list its registrations
# (VGPU_IOC_MEMINFO, tenant-get, proc-get) walk them a few at a time,
# letting vgpu_acct_lock go between (issue 33, item 3: a read must cost
# the reader, not everyone). What they report still adds up: after many
# allocations, frees and kills (more registrations than one batch), the
# three agree with each other and with what the processes hold, also
# after the reads ran in loops beside the kills. A tenant deleted by force
# while its processes loop MEMINFO goes, and nothing is left. The time the
# reads cost others is bench/vm-refusal.sh's.
suite=vram-walk
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
M=1048576
mkdir -p $cg/w $cg/d
vgpuctl gpu add 0 vram 16G >/dev/null
check "tenant w" vgpuctl tenant add w cgroup w
p0=$(vgpu-devtest host | sed -n 's/.*procs=//p')

# sums: "MEMINFO proc-get tenant-get": w's use on GPU 0 as MEMINFO's
# tenant_used (of a new registration, which holds nothing), the sum of
# proc-get's gpu0_used over w's processes, tenant-get's vram_current.
sums() {
	local mi pg tg
	mi=$(/tmp/in_cg w vgpu-devtest register meminfo 0 | sed -n 's/.*tenant_used=\([0-9]*\).*/\1/p')
	pg=$(vgpu-devtest procs | grep ' tenant=w' | tr ' ' '\n' |
		awk -F= '$1 == "gpu0_used" { s += $2 } END { print s + 0 }')
	tg=$(usage w 0 vram_current)
	echo "${mi:-none} $pg ${tg:-0}"
}

# start I: holder I in w allocates 8*I MiB and frees 3*I MiB; adds what
# it keeps to $want and its pid to $pids.
want=0
pids=
start() {
	bg_hold w /tmp/w.$1 vgpu-devtest register alloc 0 $((8 * $1))M free 0 $((3 * $1))M hold
	eval "h$1=$!"
	want=$((want + 5 * $1 * M))
	pids="$pids $1"
}
# kill_one I: kill -9 holder I; takes what it kept off $want.
kill_one() {
	eval "kill -9 \$h$1; wait \$h$1 2>/dev/null"
	want=$((want - 5 * $1 * M))
	pids=$(echo "$pids" | tr ' ' '\n' | grep -vx "$1" | tr '\n' ' ')
}

for i in $(seq 1 20); do start "$i"; done
check_eq "20 holders: MEMINFO, proc-get and tenant-get say what they keep" \
	"$want $want $want" "$(sums)"
for i in 3 6 9 12 15 18; do kill_one "$i"; done
for i in $(seq 21 26); do start "$i"; done
check_eq "6 killed, 6 more: the three still agree" "$want $want $want" "$(sums)"

# Reads in loops (as nobody, 4 processes x 16 registrations of w), beside
# more kills and new holders.
rm -f /tmp/rd.*
k=0
for what in meminfo meminfo tenant-get proc-get; do
	k=$((k + 1))
	: > /tmp/rd.$k
	/tmp/in_cg w su -s /bin/sh nobody -c "exec vgpu-devtest hammer-read 0 $what 16 0" \
		>> /tmp/rd.$k 2>&1 &
done
await "the readers start" 600 sh -c '[ "$(cat /tmp/rd.* | grep -c "^hammering")" -ge 4 ]'
for i in 1 2 4 5 7 8 10 11; do kill_one "$i"; done
for i in $(seq 27 34); do start "$i"; done
rpids=$(cat /tmp/rd.* | sed -n 's/^hammering.* pid=\([0-9]*\).*/\1/p')
kill -TERM $rpids 2>/dev/null
await "the readers stop" 600 sh -c '[ "$(cat /tmp/rd.* | grep -c "^hammer ")" -ge 4 ]'
reads=$(cat /tmp/rd.* | sed -n 's/^hammer .* calls=\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
check_eq "MEMINFO in loops beside the kills never failed (2 readers)" 2 \
	"$(cat /tmp/rd.1 /tmp/rd.2 | grep '^hammer ' | grep -c ' other=0 ')"
check_eq "after $reads reads beside 8 kills and 8 new holders, the three agree" \
	"$want $want $want" "$(sums)"

for i in $pids; do kill_one "$i"; done
check_eq "every holder gone: nothing is counted" "0 0 0" "$(sums)"

# A tenant deleted by force while 4 processes x 16 registrations of it
# loop MEMINFO: the deletion waits for no walk longer than a batch.
check "tenant d" vgpuctl tenant add d cgroup d
rm -f /tmp/dd.*
for k in 1 2 3 4; do
	: > /tmp/dd.$k
	/tmp/in_cg d su -s /bin/sh nobody -c "exec vgpu-devtest hammer-read 0 meminfo 16 0" \
		>> /tmp/dd.$k 2>&1 &
done
await "d's readers start" 600 sh -c '[ "$(cat /tmp/dd.* | grep -c "^hammering")" -ge 4 ]'
t0=$(uptime_ms)
check "tenant del d force, its processes looping MEMINFO" timeout 20 vgpuctl tenant del d force
echo "info: $suite: the forced deletion took $(($(uptime_ms) - t0)) ms"
dpids=$(cat /tmp/dd.* | sed -n 's/^hammering.* pid=\([0-9]*\).*/\1/p')
kill -TERM $dpids 2>/dev/null
await "d's readers stop" 600 sh -c '[ "$(cat /tmp/dd.* | grep -c "^hammer ")" -ge 4 ]'
wait 2>/dev/null
check_eq "no registration is left" "$p0" "$(vgpu-devtest host | sed -n 's/.*procs=//p')"
suite_end
