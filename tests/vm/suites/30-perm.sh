#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 10
# vm-boot: shared
# Unprivileged callers: refused for every mutation, and confined to their
# own tenant (the nearest registered ancestor of their cgroup) for reads.
suite=perm
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
mkdir -p $cg/team-a/job $cg/team-b $cg/outside
vgpuctl gpu add 0 vram 16G >/dev/null
vgpuctl tenant add team-a cgroup team-a vram-max 4G >/dev/null
vgpuctl tenant add team-b cgroup team-b vram-max 2G >/dev/null

# as_user CGROUP CMD: run CMD as nobody inside CGROUP.
as_user() {
	local dir=$1
	shift
	sh -c "echo \$\$ > $cg/$dir/cgroup.procs && exec su -s /bin/sh nobody -c '$*'"
}

check_fails "unprivileged gpu add is refused before sending" \
	"Error: this command needs CAP_NET_ADMIN (run it as root)." \
	as_user team-a vgpuctl gpu add 3 vram 1G
check_fails "unprivileged tenant set is refused before sending" \
	"Error: this command needs CAP_NET_ADMIN (run it as root)." \
	as_user team-a vgpuctl tenant set team-a vram-max 8G
check_fails "unprivileged tenant del is refused" "CAP_NET_ADMIN" \
	as_user team-a vgpuctl tenant del team-b
# The kernel refuses even a client that skips the check.
for cmd in "gpu-add u32:1=3 u64:4=1024" "gpu-del u32:1=0" "tenant-new str:1=x str:3=/outside" \
	   "tenant-set str:1=team-a u32:8=1" "tenant-del str:1=team-b"; do
	out=$(as_user team-a vgpu-nlsend $cmd 2>&1)
	case $out in
	*"errno=1 "*) pass "kernel refuses unprivileged ${cmd%% *}" ;;
	*) fail "kernel refuses unprivileged ${cmd%% *}" "$out" ;;
	esac
done
# Root in a user namespace holds CAP_NET_ADMIN there, not in the host's.
check_fails "container root is refused by the kernel, with the reason" \
	"Error: Operation not permitted: vgpu changes need CAP_NET_ADMIN in the host's initial user namespace." \
	unshare -U -r vgpuctl gpu add 3 vram 1G
check_out "nothing changed" '"vram_max":4294967296' sh -c "vgpuctl -j tenant show team-a | tr -d ' '"

# Reads: own tenant only, from the tenant's cgroup and from below it.
out=$(as_user team-a vgpuctl -j tenant show | tr -d ' \n')
case $out in
"[{\"name\":\"team-a\""*) case $out in *team-b*) fail "member sees only its tenant" "$out" ;; *) pass "member sees only its tenant" ;; esac ;;
*) fail "member sees only its tenant" "$out" ;;
esac
out=$(as_user team-a/job vgpuctl -j tenant show | tr -d ' \n')
case $out in
*'"name":"team-a"'*) pass "a process in a sub-cgroup belongs to the nearest tenant" ;;
*) fail "a process in a sub-cgroup belongs to the nearest tenant" "$out" ;;
esac
check_fails "member cannot read another tenant" "Error: unknown tenant." \
	as_user team-a vgpuctl tenant show team-b
check_out "member reads its own tenant by name" "tenant team-a" as_user team-a vgpuctl tenant show team-a
out=$(as_user outside vgpuctl -j tenant show | tr -d ' \n')
check_eq "a process outside every tenant sees none" "[]" "$out"
check_out "the inventory is readable by anyone" "gpu 0" as_user outside vgpuctl gpu show
out=$(as_user team-a vgpuctl -j show | tr -d ' \n')
check_out "host settings are readable by anyone" '"default":"allow"' echo "$out"
check_out "but not the host-wide process count" '"procs":null' echo "$out"
check_out "which root reads" '"procs":0' sh -c "vgpuctl -j show | tr -d ' \n'"
# Refused, it ends at once; one that is not is ended after 30 s (a fixed
# second was too short for a loaded run to start it).
out=$(as_user team-a timeout 30 vgpuctl monitor 2>&1)
case $out in
*Error:*) pass "unprivileged monitor is refused with a message" ;;
*) fail "unprivileged monitor is refused with a message" "$out" ;;
esac
suite_end
