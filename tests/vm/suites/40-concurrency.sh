#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 50
# vm-boot: shared
# 16 writers at once: every request answered, the table consistent.
suite=concurrency
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
for g in 0 1 2 3; do vgpuctl gpu add $g vram 16G >/dev/null; done
for w in $(seq 1 16); do mkdir -p $cg/w$w; done

writer() {
	local w=$1 i errs=0
	for i in $(seq 1 10); do
		vgpuctl tenant add t$w cgroup w$w vram-max ${i}G weight $i >/dev/null 2>&1 || errs=$((errs + 1))
		vgpuctl tenant set t$w vram-min 64M gpus $((i % 4)) >/dev/null 2>&1 || errs=$((errs + 1))
		vgpuctl -j tenant show >/dev/null 2>&1 || errs=$((errs + 1))
		vgpuctl gpu show >/dev/null 2>&1 || errs=$((errs + 1))
		vgpuctl tenant del t$w >/dev/null 2>&1 || errs=$((errs + 1))
	done
	vgpuctl tenant add t$w cgroup w$w vram-min 512M weight $w >/dev/null 2>&1 || errs=$((errs + 1))
	echo $errs > /tmp/errs.$w
}
for w in $(seq 1 16); do writer $w & done
wait
total=0
for w in $(seq 1 16); do total=$((total + $(cat /tmp/errs.$w))); done
check_eq "16 writers x 51 requests, no error" 0 "$total"
n=$(vgpuctl -j tenant show | tr -d ' \n' | grep -o '"name":' | wc -l)
check_eq "16 tenants in the end" 16 "$n"
ok=1
for w in $(seq 1 16); do
	vgpuctl -j tenant show t$w | tr -d ' ' | grep -q "\"weight\":$w," || ok=0
done
check_eq "each tenant holds its writer's last values" 1 $ok
# 16 x 512M = 8G of vram-min on every GPU: a 17th 9G reservation must fail
mkdir -p $cg/extra
check_fails "reservations still add up after the storm" "Error: sum of vram-min of tenants not preemptible exceeds a GPU's vram." \
	vgpuctl tenant add extra cgroup extra vram-min 9G
# racing creators of one name: exactly one wins
for i in $(seq 1 8); do (vgpuctl tenant add race cgroup extra >/dev/null 2>&1 && echo won >> /tmp/race) & done
wait
check_eq "one of 8 racing creators wins" 1 "$(wc -l < /tmp/race)"
suite_end
