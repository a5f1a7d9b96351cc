#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 13
# vm-boot: shared
# Module unload and reload with tenants present, removal of a tenant's
# cgroup directory, and the monitor's events.
suite=lifecycle
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
ko=/lib/modules/$(uname -r)/extra/vgpu.ko
mkdir -p $cg/a $cg/b $cg/gone

# monitor: every change is announced
vgpuctl -j monitor > /tmp/mon.json 2>&1 &
mon=$!
vgpuctl monitor > /tmp/mon.txt 2>&1 &
mon2=$!
monitor_ready $mon
monitor_ready $mon2
vgpuctl gpu add 0 vram 16G numa 0 >/dev/null
vgpuctl tenant add a cgroup a vram-max 1G >/dev/null
vgpuctl tenant set a weight 10 >/dev/null
vgpuctl tenant add b cgroup b >/dev/null
vgpuctl tenant del b >/dev/null
vgpuctl gpu add 1 vram 8G >/dev/null
vgpuctl gpu del 1 >/dev/null
# until both have printed the last event
await "monitor -j prints gpu-del" 300 has_text /tmp/mon.json gpu-del
await "monitor prints gpu-del" 300 has_text /tmp/mon.txt 'gpu-del'
kill $mon $mon2
wait $mon $mon2 2>/dev/null
m=$(tr -d ' ' < /tmp/mon.json)
for ev in '"event":"gpu-add","gpu":{"index":0' '"event":"tenant-new","tenant":{"name":"a"' \
	  '"event":"tenant-change","tenant":{"name":"a"' '"weight":10' \
	  '"event":"tenant-del","tenant":{"name":"b"' '"event":"gpu-del","gpu":{"index":1'; do
	case $m in *"$ev"*) pass "monitor -j shows $ev" ;; *) fail "monitor -j shows $ev" "$m" ;; esac
done
check_eq "monitor -j prints one line per event" 7 "$(wc -l < /tmp/mon.json)"
check_out "plain monitor names the event" "[tenant-change] tenant a" cat /tmp/mon.txt

# removal of a tenant's cgroup directory while the tenant exists
vgpuctl tenant add gone cgroup gone >/dev/null
check "rmdir of a tenant's cgroup succeeds" rmdir $cg/gone
check_out "the tenant stays, flagged" '"cgroup_removed":true' sh -c "vgpuctl -j tenant show gone | tr -d ' '"
check_out "plain output says so" "(cgroup removed)" vgpuctl tenant show gone
mkdir $cg/gone
check "a new directory of the same name can become a tenant" vgpuctl tenant add gone2 cgroup gone
check "the flagged tenant can be deleted" vgpuctl tenant del gone

# unload with tenants present, reload, and an empty table after
check "rmmod with tenants present" rmmod vgpu
check_fails "vgpuctl reports a missing module" \
	"Error: the vgpu kernel module is not loaded (try: modprobe vgpu)." vgpuctl tenant show
check "insmod again" insmod $ko
out=$(vgpuctl -j tenant show | tr -d ' \n')
check_eq "a fresh module has no tenants" "[]" "$out"
check "tenants can be created after reload" vgpuctl tenant add a cgroup a
for i in 1 2 3 4 5; do
	vgpuctl gpu add 0 vram 1G >/dev/null 2>&1
	vgpuctl tenant add r$i cgroup b >/dev/null 2>&1
	rmmod vgpu || break
	insmod $ko || break
done
check_out "five more unload/reload rounds" "vgpu" lsmod
suite_end
