#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 26
# vm-boot: shared
# Tenants: life cycle, quotas, set/clear, nesting, output, validation.
suite=tenant
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
mkdir -p $cg/team-a $cg/team-b $cg/team-a/inner $cg/free
vgpuctl gpu add 0 vram 16G numa 0 >/dev/null
vgpuctl gpu add 1 vram 8G numa 1 >/dev/null

check "add with an absolute path and every quota" \
	vgpuctl tenant add team-a cgroup $cg/team-a vram-max 8G vram-min 1G \
	gpus 0-1 weight 70 compute-max 37.5% priority high cpus 0-1 mems 0
check "add with a relative path and no quota" vgpuctl tenant add team-b cgroup team-b
check "nested tenant inside team-a" vgpuctl tenant add inner cgroup team-a/inner weight 5
id_a=$(stat -c %i $cg/team-a)
# json_has WHAT JSON FRAGMENT...: every fragment appears in the JSON.
json_has() {
	local what=$1 j=$2 f
	shift 2
	for f in "$@"; do
		case $j in
		*"$f"*) ;;
		*) fail "$what" "no $f in $j"; return ;;
		esac
	done
	pass "$what"
}
j=$(vgpuctl -j tenant show team-a | tr -d ' \n')
json_has "json of a tenant with every quota" "$j" '[{"name":"team-a","id":' \
	'"cgroup":"/team-a",' "\"cgroup_id\":$id_a," '"cgroup_removed":false,' \
	'"vram_max":8589934592,' '"vram_min":1073741824,' '"gpus":[0,1],' '"weight":70,' \
	'"compute_max":3750,' '"priority":"high",' '"cpus":"0-1",' '"mems":"0"' \
	'"usage":[{"gpu":0,"vram_current":0,"vram_peak":0,'
check_eq "one object for one tenant" 1 "$(echo "$j" | grep -o '"name":' | wc -l)"
j=$(vgpuctl -j tenant show team-b | tr -d ' \n')
json_has "unset quotas are null" "$j" '"vram_max":null,' '"vram_min":null,' '"gpus":null,' \
	'"weight":null,' '"compute_max":null,' '"priority":null,' '"cpus":null,' '"mems":null'
check_out "plain show" "tenant team-a id" vgpuctl tenant show
check_out "plain show has the quotas" "vram-max 8GiB" vgpuctl tenant show team-a
n=$(vgpuctl -j tenant show | tr -d ' \n' | grep -o '"name":' | wc -l)
check_eq "dump lists three tenants" 3 "$n"

# set and clear
check "set weight and vram-max" vgpuctl tenant set team-b weight 30 vram-max 4G
check_out "set is visible" '"weight":30' sh -c "vgpuctl -j tenant show team-b | tr -d ' '"
check "clear vram-max with none" vgpuctl tenant set team-b vram-max none
check_out "cleared quota is null" '"vram_max":null' sh -c "vgpuctl -j tenant show team-b | tr -d ' '"
check_out "other quota kept" '"weight":30' sh -c "vgpuctl -j tenant show team-b | tr -d ' '"
check "priority low" vgpuctl tenant set team-b priority low
check_out "priority shown" '"priority":"low"' sh -c "vgpuctl -j tenant show team-b | tr -d ' '"

# preemption's quotas (issue 31): set, shown, refused out of range, cleared
j=$(vgpuctl -j tenant show team-b | tr -d ' \n')
json_has "unset preemption quotas: false and null" "$j" '"preemptible":false,' '"vram_wait_ns":null,'
check "preemptible on, vram-wait 30.5" vgpuctl tenant set team-b preemptible on vram-wait 30.5
j=$(vgpuctl -j tenant show team-b | tr -d ' \n')
json_has "json: preemptible, vram_wait_ns" "$j" '"preemptible":true,' '"vram_wait_ns":30500000000,' \
	'"priority":"low",'
check_out "plain: preemptible, vram-wait in seconds" "preemptible vram-wait 30.5s" \
	vgpuctl tenant show team-b
check_out "the module holds milliseconds" "35=30500" vgpu-nlsend tenant-get str:1=team-b
check "vram-wait 600 s, the maximum" vgpuctl tenant set team-b vram-wait 600
check_fails "vram-wait 600.001 refused by vgpuctl" \
	'Error: invalid WAIT "600.001" for vram-wait (0-600 seconds, at most 3 decimals).' \
	vgpuctl tenant set team-b vram-wait 600.001
check_errno "kernel: vram-wait 600001 ms (policy)" 34 "" tenant-set str:1=team-b u32:35=600001
check_errno "kernel: preemptible 2 (policy)" 34 "" tenant-set str:1=team-b u32:34=2
check_errno "kernel: vram-wait set and cleared" 22 "a quota is both set and cleared" \
	tenant-set str:1=team-b u32:35=5 u32:13=2048
check_out "refusals left vram-wait at 600 s" '"vram_wait_ns":600000000000' \
	sh -c "vgpuctl -j tenant show team-b | tr -d ' '"
check "preemptible off, vram-wait 0" vgpuctl tenant set team-b preemptible off vram-wait 0
j=$(vgpuctl -j tenant show team-b | tr -d ' \n')
json_has "off and 0 are values" "$j" '"preemptible":false,' '"vram_wait_ns":0,'
check "clear both with none" vgpuctl tenant set team-b preemptible none vram-wait none
j=$(vgpuctl -j tenant show team-b | tr -d ' \n')
json_has "cleared: false and null, the rest kept" "$j" '"preemptible":false,' \
	'"vram_wait_ns":null,' '"priority":"low",' '"weight":30,'
check "add with both" vgpuctl tenant add pre cgroup free preemptible on vram-wait 0.25
check_out "add: both shown" "preemptible vram-wait 0.25s" vgpuctl tenant show pre
check "del it" vgpuctl tenant del pre

# validation errors: message and nothing changed
check_fails "duplicate name" "Error: tenant name already exists." \
	vgpuctl tenant add team-a cgroup free
check_fails "cgroup already a tenant's" "Error: cgroup already belongs to a tenant." \
	vgpuctl tenant add other cgroup team-b
check_fails "cgroup not found" "Error: cgroup not found or not a cgroup v2 directory." \
	vgpuctl tenant add ghost cgroup does-not-exist
check_fails "cgroup path outside the mount" "Error: cgroup path must be under" \
	vgpuctl tenant add ghost cgroup /tmp
check_fails "the root cgroup cannot be a tenant" \
	"Error: the root cgroup cannot be a tenant: it holds every process." \
	vgpuctl tenant add everyone cgroup /sys/fs/cgroup/
check_fails "an empty cgroup path is refused" 'Error: invalid PATH "" for cgroup.' \
	vgpuctl tenant add everyone cgroup ""
for root in "" / //; do
	check_fails "the kernel refuses the path '$root' (the namespace's root)" \
		"root cgroup cannot be a tenant" vgpu-nlsend tenant-new str:1=everyone "str:3=$root"
done
check_fails "and the root by id" "root cgroup cannot be a tenant" \
	vgpu-nlsend tenant-new str:1=everyone u64:4=$(stat -c %i /sys/fs/cgroup)
check_fails "no tenant was made" "Error: unknown tenant." vgpuctl tenant show everyone
check_fails "vram-min above vram-max" "Error: vram-min is above vram-max." \
	vgpuctl tenant add x cgroup free vram-max 1G vram-min 2G
check_fails "vram-min above vram-max on set" "Error: vram-min is above vram-max." \
	vgpuctl tenant set team-a vram-min 9G
check_fails "unknown gpu in gpus" "Error: gpus names an unknown GPU." \
	vgpuctl tenant add x cgroup free gpus 0,3
check_fails "sum of vram-min above capacity" \
	"Error: sum of vram-min of tenants not preemptible exceeds a GPU's vram." \
	vgpuctl tenant add x cgroup free vram-min 8G gpus 1
check_fails "cpu not online" "Error: cpus names a CPU that is not online." \
	vgpuctl tenant add x cgroup free cpus 0-7
check_fails "node not online" "Error: mems names a node that is not online." \
	vgpuctl tenant add x cgroup free mems 3
check_fails "unknown tenant set" "Error: unknown tenant." vgpuctl tenant set nobody weight 1
check_fails "unknown tenant del" "Error: unknown tenant." vgpuctl tenant del nobody
check_fails "unknown tenant show" "Error: unknown tenant." vgpuctl tenant show nobody
check_fails "cli: weight 0" "Error:" vgpuctl tenant set team-b weight 0
check_fails "cli: compute-max 101%" "Error:" vgpuctl tenant set team-b compute-max 101%
check_fails "cli: bad priority" "Error:" vgpuctl tenant set team-b priority urgent
check_fails "cli: unknown key" "Error:" vgpuctl tenant set team-b colour blue
check_fails "cli: name with a space" "Error:" vgpuctl tenant add "a b" cgroup free
check_fails "gpu named by a tenant cannot go" "Error: GPU is named in a tenant's gpus." \
	vgpuctl gpu del 1
check_fails "gpu smaller than reserved vram-min" \
	"Error: vram is below the vram-min reserved by tenants not preemptible." \
	sh -c "vgpuctl tenant set team-b vram-min 2G && vgpuctl gpu add 2 vram 1G"
check_out "failed set left team-a as it was" '"vram_min":1073741824' \
	sh -c "vgpuctl -j tenant show team-a | tr -d ' '"
n=$(vgpuctl -j tenant show | tr -d ' \n' | grep -o '"name":' | wc -l)
check_eq "failed adds created nothing" 3 "$n"

# raw requests for the kernel's own checks
check_errno "kernel: name required" 22 "tenant name is required" tenant-new str:3=/free
check_errno "kernel: bad name" 22 "tenant name must be 1-63 printable characters without spaces" \
	tenant-new "str:1=a b" str:3=/free
check_errno "kernel: empty name" 22 "tenant name must be 1-63 printable characters without spaces" \
	tenant-new str:1= str:3=/free
check_errno "kernel: name too long (policy)" 22 "" \
	tenant-new str:1=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa str:3=/free
check_errno "kernel: cgroup required" 22 "tenant cgroup is required" tenant-new str:1=x
check_errno "kernel: both cgroup and id" 22 "give cgroup or cgroup-id, not both" \
	tenant-new str:1=x str:3=/free u64:4=$(stat -c %i $cg/free)
check_errno "kernel: cgroup id unknown" 2 "cgroup not found or not a cgroup v2 directory" \
	tenant-new str:1=x u64:4=123456789
check_errno "kernel: cgroup is a file" 2 "cgroup not found or not a cgroup v2 directory" \
	tenant-new str:1=x str:3=/free/cgroup.procs
check_errno "kernel: bad cpus" 22 "cpus is not a valid CPU list" tenant-new str:1=x str:3=/free str:11=zz
check_errno "kernel: empty cpus" 22 "cpus is not a valid CPU list" tenant-new str:1=x str:3=/free str:11=
check_errno "kernel: bad mems" 22 "mems is not a valid node list" tenant-new str:1=x str:3=/free str:12=0-
check_errno "kernel: weight 0 (policy)" 34 "" tenant-new str:1=x str:3=/free u32:8=0
check_errno "kernel: compute-max 10001 (policy)" 34 "" tenant-new str:1=x str:3=/free u32:9=10001
check_errno "kernel: priority 3 (policy)" 34 "" tenant-new str:1=x str:3=/free u32:10=3
check_errno "kernel: clear not allowed on new (strict)" 22 "" tenant-new str:1=x str:3=/free u32:13=1
check_errno "kernel: empty gpus mask" 22 "gpus names no GPU" tenant-new str:1=x str:3=/free u64:7=0
check_errno "kernel: set and clear the same quota" 22 "a quota is both set and cleared" \
	tenant-set str:1=team-b u32:8=5 u32:13=8
check_errno "kernel: clear with an unknown bit (policy)" 22 "" tenant-set str:1=team-b u32:13=4096
check "create by cgroup id" vgpu-nlsend tenant-new str:1=byid u64:4=$(stat -c %i $cg/free)
check_out "tenant made by id shows its path" '"cgroup":"/free"' sh -c "vgpuctl -j tenant show byid | tr -d ' '"

# delete
check "del nested tenant" vgpuctl tenant del inner
check "del byid" vgpuctl tenant del byid
check_fails "deleted tenant is gone" "Error: unknown tenant." vgpuctl tenant show inner
check "cgroup of a deleted tenant can be reused" vgpuctl tenant add inner2 cgroup team-a/inner
suite_end
