#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 23
# vm-boot: shared
# The kernel half of CPU and NUMA placement (issue #6), driven with raw
# netlink (vgpu-nlsend) and vgpu-devtest inside the VM: validation, auto
# and exclusive placement, effective attributes, re-derivation when the
# inventory changes, and the pinning of registered processes' threads.
# The VM has 4 CPUs in 2 nodes: CPUs 0-1 on node 0, 2-3 on node 1.
suite=placement-kernel
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
mkdir -p $cg/a $cg/b $cg/c $cg/d

# Attribute numbers (uapi/vgpu.h): tenant name 1, cgroup 3, gpus 7 (u64
# mask), cpus 11, mems 12, clear 13, placement 17, exclusive 18,
# cpus-effective 19, mems-effective 20. Quota bits: gpus 4, cpus 64,
# placement 256, exclusive 512.

# attr N NAME: value of attribute N in tenant-get NAME's reply, or "-"
attr() {
	v=$(vgpu-nlsend tenant-get str:1="$2" | tr ' ' '\n' | sed -n "s/^$1=//p")
	echo "${v:--}"
}
# eff NAME: "cpus-effective mems-effective" of a tenant
eff() { echo "$(attr 19 "$1") $(attr 20 "$1")"; }
# affinity PID: the distinct Cpus_allowed_list of the process's threads
affinity() {
	for f in /proc/"$1"/task/*/status; do
		sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$f"
	done | sort -u | tr '\n' ' ' | sed 's/ $//'
}
nthreads() { ls /proc/"$1"/task | wc -l; }
# has_threads PID N: the process has N threads or more
has_threads() { [ "$(nthreads "$1")" -ge "$2" ]; }
# wait_threads PID N: until the process has N threads (30 s at most: a
# loaded run starts processes several times slower)
wait_threads() { await "process $1 has $2 threads" 300 has_threads "$1" "$2"; }
# wait_for FILE TEXT: until FILE contains TEXT (30 s at most)
wait_for() { await "$1 says $2" 300 grep -qF -- "$2" "$1"; }

vgpuctl gpu add 0 vram 16G numa 0 >/dev/null
vgpuctl gpu add 1 vram 16G numa 1 >/dev/null
vgpuctl gpu add 2 vram 16G >/dev/null
for t in a b c; do
	vgpuctl tenant add $t cgroup $t >/dev/null
done

# --- validation: refused requests change nothing ---
check_errno "auto with cpus" 22 "placement auto replaces cpus and mems" \
	tenant-set str:1=a u32:17=1 str:11=0
check_errno "auto with mems" 22 "placement auto replaces cpus and mems" \
	tenant-set str:1=a u32:17=1 str:12=0
check_errno "exclusive without cpus" 22 "exclusive placement needs cpus or placement auto" \
	tenant-set str:1=a u32:18=1
check_errno "auto on a GPU without a node" 22 "auto placement needs GPUs with a NUMA node" \
	tenant-set str:1=a u32:17=1 u64:7=4
check_eq "refused requests changed nothing" "- - - -" \
	"$(attr 17 a) $(attr 18 a) $(eff a)"
check_errno "tenant-new: auto with mems" 22 "placement auto replaces cpus and mems" \
	tenant-new str:1=d str:3=/d u32:17=1 str:12=1
check_errno "tenant-new: auto without a node" 22 "auto placement needs GPUs with a NUMA node" \
	tenant-new str:1=d str:3=/d u32:17=1 u64:7=4
check_errno "refused tenant-new created nothing" 2 "unknown tenant" tenant-get str:1=d

# --- manual ---
check "manual cpus and mems" vgpu-nlsend tenant-set str:1=a str:11=1,3 str:12=1
check_eq "manual: effective = cpus and mems" "1,3 1" "$(eff a)"
check "clear cpus and mems" vgpu-nlsend tenant-set str:1=a u32:13=192
check_eq "unrestricted: no effective attributes" "- -" "$(eff a)"

# --- auto ---
check "auto on GPU 0" vgpu-nlsend tenant-set str:1=a u32:17=1 u64:7=1
check_eq "auto on GPU 0: node 0's CPUs and memory" "1 0-1 0" "$(attr 17 a) $(eff a)"
check "auto on GPU 1" vgpu-nlsend tenant-set str:1=a u64:7=2
check_eq "changing gpus re-derives: node 1" "2-3 1" "$(eff a)"
check "auto on every GPU (gpus unset)" vgpu-nlsend tenant-set str:1=a u32:13=4
check_eq "every GPU: both nodes, GPU 2 has none" "0-3 0-1" "$(eff a)"
check_errno "cpus on an auto tenant" 22 "placement auto replaces cpus and mems" \
	tenant-set str:1=a str:11=0
check "back to manual" vgpu-nlsend tenant-set str:1=a u32:17=0
check_eq "placement manual shown when set" "0 - -" "$(attr 17 a) $(eff a)"

# --- exclusive ---
check "a: exclusive auto on GPU 0" vgpu-nlsend tenant-set str:1=a u32:17=1 u64:7=1 u32:18=1
check_eq "a takes node 0's free CPUs" "1 0-1 0" "$(attr 18 a) $(eff a)"
check_errno "b: exclusive auto on GPU 0, none left" 28 \
	"no free CPUs near the tenant's GPUs for an exclusive placement" \
	tenant-set str:1=b u32:17=1 u64:7=1 u32:18=1
check_errno "b: exclusive cpus overlapping a's" 16 \
	"cpus overlap another tenant's exclusive placement" \
	tenant-set str:1=b str:11=1-2 u32:18=1
check "b: exclusive cpus 2-3" vgpu-nlsend tenant-set str:1=b str:11=2-3 u32:18=1
check_eq "b: effective cpus 2-3" "2-3 -" "$(eff b)"
check_errno "c: exclusive auto on both nodes, all taken" 28 \
	"no free CPUs near the tenant's GPUs for an exclusive placement" \
	tenant-set str:1=c u32:17=1 u32:18=1
check "c: shared auto on both nodes" vgpu-nlsend tenant-set str:1=c u32:17=1
check_eq "non-exclusive tenants may share exclusive CPUs" "0-3 0-1" "$(eff c)"
check "b: exclusive cleared" vgpu-nlsend tenant-set str:1=b u32:13=512
check "c: exclusive auto now finds node 1 free" vgpu-nlsend tenant-set str:1=c u32:18=1
check_eq "c: the CPUs no exclusive tenant has" "2-3 0-1" "$(eff c)"
check_errno "b: exclusive again overlaps c" 16 "cpus overlap another tenant's exclusive placement" \
	tenant-set str:1=b u32:18=1

# --- the inventory changes auto placements ---
check_errno "gpu-del would leave c no free CPU" 28 \
	"no free CPUs near a tenant's GPUs for its exclusive placement" gpu-del u32:1=1
check_eq "refused gpu-del changed nothing" "2-3 0-1" "$(eff c)"
check "a: exclusive cleared" vgpu-nlsend tenant-set str:1=a u32:13=512
check "c: weight only" vgpu-nlsend tenant-set str:1=c u32:8=200
check_eq "an unrelated change keeps c's CPUs" "2-3 0-1" "$(eff c)"
check "c: exclusive set again" vgpu-nlsend tenant-set str:1=c u32:18=1
check_eq "re-derived: c takes the CPUs a freed" "0-3 0-1" "$(eff c)"
check "c: exclusive cleared" vgpu-nlsend tenant-set str:1=c u32:13=512
check "gpu-del 1" vgpu-nlsend gpu-del u32:1=1
check_eq "c re-derived without GPU 1" "0-1 0" "$(eff c)"
check "gpu-add 1 numa 1" vgpuctl gpu add 1 vram 16G numa 1
check_eq "c re-derived with GPU 1" "0-3 0-1" "$(eff c)"
check "a: placement, exclusive and gpus cleared" vgpu-nlsend tenant-set str:1=a u32:13=772
check "gpu-del 1 again" vgpu-nlsend gpu-del u32:1=1
check_errno "gpu-del of c's last GPU with a node" 16 \
	"a tenant with auto placement would have no GPU with a NUMA node" gpu-del u32:1=0
check_eq "c keeps node 0" "0-1 0" "$(eff c)"
vgpuctl gpu add 1 vram 16G numa 1 >/dev/null
vgpu-nlsend tenant-set str:1=c u32:13=256 >/dev/null
vgpu-nlsend tenant-set str:1=b u32:13=64 >/dev/null

# --- registration: reply, VGPU_IOC_PLACEMENT ---
vgpu-nlsend tenant-set str:1=a u32:17=1 u64:7=1 >/dev/null
out=$(inside a register placement)
check_out "proc-register reply carries the placement" "placement cpus=0-1 mems=0" echo "$out"
check_out "VGPU_IOC_PLACEMENT: node 0" "placement seq=0 flags=1 mems=0" echo "$out"
out=$(inside b register placement)
check_out "unrestricted tenant: no mems" "placement seq=0 flags=0 mems=-" echo "$out"
case $out in
*"placement cpus="*) fail "unrestricted tenant: reply without cpus and mems" "$out" ;;
*) pass "unrestricted tenant: reply without cpus and mems" ;;
esac
check_out "outside tenants: no mems" "placement seq=0 flags=0 mems=-" vgpu-devtest register placement
check_out "VGPU_IOC_PLACEMENT before registering" "placement errno=ESRCH" \
	vgpu-devtest open try placement

# --- pinning of registered processes, every thread ---
inside a threads 2 register hold > /tmp/p1 &
p1=$!
inside a register threads 2 wait-placement 30 hold > /tmp/p2 &
p2=$!
inside b register hold > /tmp/p3 &
p3=$!
wait_for /tmp/p1 holding
wait_threads $p2 3
wait_for /tmp/p3 holding
check_eq "threads started before registering: 3" 3 "$(nthreads $p1)"
check_eq "pinned at registration, every thread" "0-1" "$(affinity $p1)"
check_eq "threads started after registering: 3" 3 "$(nthreads $p2)"
check_eq "threads started after registering inherit it" "0-1" "$(affinity $p2)"
check_eq "hold starts two threads" 3 "$(nthreads $p3)"
check_eq "unrestricted tenant: affinity untouched" "0-3" "$(affinity $p3)"

check "a: auto on GPU 1" vgpu-nlsend tenant-set str:1=a u64:7=2
check_eq "the change reaches the running process" "2-3" "$(affinity $p1)"
check_eq "and the other" "2-3" "$(affinity $p2)"
wait_for /tmp/p2 "placement seq="
check_out "placement_seq moved; VGPU_IOC_PLACEMENT gives node 1" \
	"placement seq=1 flags=1 mems=1" cat /tmp/p2
check "a: manual cpus 3" vgpu-nlsend tenant-set str:1=a u32:17=0 str:11=3
check_eq "manual cpus reach the process" "3" "$(affinity $p1)"
check "a: exclusive on cpus 3" vgpu-nlsend tenant-set str:1=a u32:18=1
check_eq "exclusive alone changes no CPU" "3" "$(affinity $p1)"
check "b: cpus 1" vgpu-nlsend tenant-set str:1=b str:11=1
check_eq "b's process pinned by the change" "1" "$(affinity $p3)"
check "a: placement cleared" vgpu-nlsend tenant-set str:1=a u32:13=832
check_eq "clearing restores every CPU" "0-3" "$(affinity $p1)"
check_eq "on every thread of every process" "0-3" "$(affinity $p2)"
vgpu-nlsend tenant-set str:1=a str:12=1 > /dev/null
out=$(inside a register placement)
check_out "mems only: no cpus in the reply" "placement cpus=- mems=1" echo "$out"
check_eq "mems only: affinity untouched" "0-3" "$(affinity $p1)"

kill $p1 $p2 $p3
wait $p1 $p2 $p3 2>/dev/null
sleep 0.2
check "tenant-del after the processes left" vgpu-nlsend tenant-del str:1=a

# a process in a cgroup below its tenant's, whose own cpuset is narrower
# (a container's), is not pinned out of it (set_cpus_allowed_ptr ignores
# cpusets: it had every CPU of the placement, issue 12)
echo +cpuset > $cg/cgroup.subtree_control
mkdir -p $cg/e/job
echo +cpuset > $cg/e/cgroup.subtree_control
echo 2 > $cg/e/job/cpuset.cpus
check "e: a tenant on cpus 2-3" vgpu-nlsend tenant-new str:1=e str:3=/e str:11=2-3
inside e/job register hold > /tmp/p4 &
p4=$!
wait_for /tmp/p4 holding
check_eq "below the tenant's cgroup: its own cpuset holds" "2" "$(affinity $p4)"
check "e: cpus 3" vgpu-nlsend tenant-set str:1=e str:11=3
check_eq "a placement change leaves it within its cpuset" "2" "$(affinity $p4)"
kill $p4
wait $p4 2>/dev/null

suite_end
