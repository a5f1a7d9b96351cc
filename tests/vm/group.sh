#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Several VM suites in one boot (tests/run: those whose header says
# "# vm-boot: shared"): each suite copied to /extra/suites runs in turn,
# its lines between "VGPU-SUITE-BEGIN NAME" and "VGPU-SUITE-END NAME RC
# SECONDS", and between two suites the VM is put back as a boot leaves
# it: every process but init and this one killed, the cgroups removed,
# vgpu.ko unloaded and loaded again, /tmp, /dev/shm and /run empty, /root
# empty, /etc as it was (suites write /etc/simgpu.conf). A boot costs 5-7
# s of emulation; the suites that share one take none of each other's
# state with them.

# The kernel log says which suite ran when it complained.
mark() { echo "vgpu-test: $1" > /dev/kmsg 2>/dev/null; }

reset_vm() {
	local p pid i d left
	for p in /proc/[0-9]*; do
		pid=${p#/proc/}
		[ "$pid" = 1 ] || [ "$pid" = $$ ] || kill -9 "$pid" 2>/dev/null
	done
	# The cgroups, deepest first, once their killed processes are gone.
	for i in $(seq 1 50); do
		left=$(find /sys/fs/cgroup -mindepth 1 -type d | sort -r)
		[ -n "$left" ] || break
		for d in $left; do rmdir "$d" 2>/dev/null; done
		sleep 0.1
	done
	for i in $(seq 1 50); do
		rmmod vgpu 2>/dev/null && break
		sleep 0.1
	done
	# 90-dmem's simgpu_dmem.ko, loaded with its regions: gone too.
	rmmod simgpu_dmem 2>/dev/null
	if grep -q '^vgpu ' /proc/modules; then
		reset_err="vgpu.ko could not be unloaded: $(rmmod vgpu 2>&1)"
		return
	fi
	[ -z "$left" ] || left=$(find /sys/fs/cgroup -mindepth 1 -type d)
	[ -z "$left" ] || reset_err="cgroups left: $(echo $left)"
	modprobe vgpu 2>/dev/null || insmod /lib/modules/"$(uname -r)"/extra/vgpu.ko
	cd /
	# Mounted as init mounts them.
	for d in /tmp /dev/shm /run; do
		umount "$d" 2>/dev/null
	done
	mount -t tmpfs -o mode=1777 tmpfs /dev/shm
	mount -t tmpfs -o mode=1777 tmpfs /tmp
	mount -t tmpfs tmpfs /run
	rm -rf /root /etc && mkdir -m 0700 /root && cp -a /.etc-boot /etc
	cd /root
	# Free memory in large blocks again, as after a boot: a suite's
	# leftover fragmentation made 75-placement's 64 MiB move to another
	# NUMA node take 25 s instead of 1 (4 KiB pages, not huge ones).
	echo 3 > /proc/sys/vm/drop_caches
	echo 1 > /proc/sys/vm/compact_memory
}

now_s() { awk '{ print int($1) }' /proc/uptime; }

cp -a /etc /.etc-boot
first=1 reset_err=""
for s in /extra/suites/*.sh; do
	name=$(basename "$s" .sh)
	[ "$first" = 1 ] || reset_vm
	first=0
	mark "suite $name"
	echo "VGPU-SUITE-BEGIN $name"
	if [ -n "$reset_err" ]; then
		echo "FAIL: $name: the VM was not put back before it: $reset_err"
		echo "VGPU-SUITE-END $name 1 0"
		continue
	fi
	t0=$(now_s)
	HOME=/root sh "$s" < /dev/null 2>&1
	rc=$?
	echo "VGPU-SUITE-END $name $rc $(($(now_s) - t0))"
done
