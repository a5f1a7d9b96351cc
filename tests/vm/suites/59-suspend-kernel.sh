#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 40
# vm-boot: shared
# Suspension, the module's half (issue 31; Documentation/suspend.md): the
# states, the agent's reports and what they do to the accounting, driven
# by hand: vgpu-nlsend sends what the agent would, and ckpt-ctl calls
# simgpu's checkpoint API as the agent would. A tenant that reserves all
# but 256M of GPU 0's 16G leaves the others 256M (the VM has 1G of RAM for
# the host copies); a low tenant holding 160M of it is suspended: its
# charges are parked, its reservation lapses and a high tenant gets 128M;
# its resume waits for room, then charges back before anything is
# restored, and its buffers come back whole.
suite=suspend-kernel
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
G=1073741824
M=1048576

# tenant_attr NAME ATTR: a tenant-get attribute's value ("" when absent)
tenant_attr() {
	vgpu-nlsend tenant-get "str:1=$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}
state_is() { [ "$(tenant_attr "$1" 29)" = "$2" ]; }
agent() { LD_PRELOAD= ckpt-ctl "$@"; }
# suspend_by_hand TENANT PID: what the agent does for a tenant of one
# process: asked, checkpointed, reported, settled (four checks)
suspend_by_hand() {
	check "suspend $1" vgpu-nlsend tenant-suspend "str:1=$1"
	check_out "$1: checkpointed" "state checkpointed" agent "$2" suspend 5000
	check "$1: reported" vgpu-nlsend proc-set "u32:1=$2" flag:13
	check "$1: settled" vgpu-nlsend tenant-settle "str:1=$1" u32:29=1
}

mkdir -p $cg/lo $cg/hi $cg/gone
check_out "gpu probe registers simgpu's GPUs" "gpu 1" vgpuctl gpu probe
mkdir -p $cg/big
check "tenant big reserves all but 256M" vgpuctl tenant add big cgroup big vram-min $((16 * G - 256 * M))
check "tenant lo: 256M, 32M reserved" vgpuctl tenant add lo cgroup lo vram-max 256M vram-min 32M
check "tenant hi: 256M" vgpuctl tenant add hi cgroup hi vram-max 256M
check_eq "a new tenant is running (state 0)" 0 "$(tenant_attr lo 29)"
check_errno "suspend without processes is refused" 22 "tenant has no registered processes" \
	tenant-suspend str:1=lo
check_errno "suspend of an unknown tenant" 2 "unknown tenant" tenant-suspend str:1=nosuch
check_errno "resume of a running tenant" 22 "tenant is running" tenant-resume str:1=lo
check_errno "settle with a state other than suspending or resuming" 22 \
	"state must be suspending or resuming" tenant-settle str:1=lo u32:29=0

ckpt_client lo lo alloc 64M , alloc 96M , touch /tmp/lo.ready , wait /tmp/lo.go , alloc 32M , sum
lo=$!
await "the low tenant's client holds 160M" 600 test -e /tmp/lo.ready
check_eq "lo is charged what simgpu holds" "$(truth /lo 0)" "$(usage lo 0 vram_current)"
check_fails "hi cannot have 128M beside lo's 160M" "CUDA_ERROR_OUT_OF_MEMORY" \
	env LD_PRELOAD=/usr/lib/libvgpu.so /tmp/in_cg hi vram-client alloc 128M
check_errno "proc-set suspended for a running tenant's process" 22 \
	"the process's tenant is not being suspended" proc-set u32:1=$lo flag:13
check_errno "proc-set of an unregistered pid" 3 "no registered process" proc-set u32:1=$$ flag:13
check_errno "settle of a running tenant changes nothing" 114 "tenant is not in that state" \
	tenant-settle str:1=lo u32:29=1

# --- suspend: asked, checkpointed, reported, settled
check "tenant-suspend lo" vgpu-nlsend tenant-suspend str:1=lo
check_eq "lo is suspending (1)" 1 "$(tenant_attr lo 29)"
check "a second suspend while suspending stands" vgpu-nlsend tenant-suspend str:1=lo
check_eq "still suspending" 1 "$(tenant_attr lo 29)"
check_errno "resume while suspending is refused" 16 "tenant is being suspended" \
	tenant-resume str:1=lo
check_out "the agent locks and checkpoints lo's process" "checkpoint CUDA_SUCCESS state checkpointed" \
	agent $lo suspend 5000
check_eq "simgpu holds nothing for lo now" 0 "$(truth /lo 0)"
check "proc-set: the agent reports it checkpointed" vgpu-nlsend proc-set u32:1=$lo flag:13
out=$(vgpu-nlsend -d proc-get)
case $out in
*"1=$lo "*"13=1"*) pass "proc-get marks the process suspended" ;;
*) fail "proc-get marks the process suspended" "$out" ;;
esac
parked=$(printf '%s\n' "$out" | grep "1=$lo " | tr ' ' '\n' | sed -n 's/^6\.8=//p')
check_eq "proc-get: its 160M are parked" $((160 * M)) "$parked"
check_eq "lo's charges are parked: nothing charged" 0 "$(usage lo 0 vram_current)"
check_eq "lo's unspent budget came back too" 0 "$(usage lo 0 vram_budget)"
check_eq "host-bytes: 160M" $((160 * M)) "$(tenant_attr lo 30)"
check "tenant-settle: suspended" vgpu-nlsend tenant-settle str:1=lo u32:29=1
check_eq "lo is suspended (2)" 2 "$(tenant_attr lo 29)"
check_errno "suspend of a suspended tenant" 114 "tenant is already suspended" tenant-suspend str:1=lo
check_errno "a late settle changes nothing" 114 "tenant is not in that state" \
	tenant-settle str:1=lo u32:29=1
check_errno "a suspended tenant cannot be deleted" 16 "tenant is suspended" tenant-del str:1=lo
check_errno "not even with force" 16 "tenant is suspended" tenant-del str:1=lo flag:21
check_errno "GPU 0 cannot be removed while lo's bytes are parked for it" 16 \
	"GPU has allocations (held, or parked by a suspended tenant)" gpu-del u32:1=0

# --- what lo held and reserved is free for hi
ckpt_client hi hi alloc 128M , touch /tmp/hi.ready , wait /tmp/hi.go
hi=$!
await "hi takes 128M while lo is suspended" 600 test -e /tmp/hi.ready
check_out "hi holds its 128M" "alloc 128M ok" cat /tmp/hi.out
# lo's charge waits while it is suspended: its client allocates now
touch /tmp/lo.go
sleep 1
check_eq "lo's allocation waits while suspended" "" "$(grep 'alloc 32M' /tmp/lo.out)"
check_eq "suspended-ns runs" 1 "$([ "$(tenant_attr lo 31)" -gt 0 ] && echo 1)"

# --- resume: no room while hi holds 128M; waits, then charges back first
check "tenant-resume lo" vgpu-nlsend tenant-resume str:1=lo
check_eq "without room, lo stays suspended" 2 "$(tenant_attr lo 29)"
out=$(vgpu-nlsend tenant-get str:1=lo)
case " $out " in
*" 32=1 "*) pass "resume-wait is set" ;;
*) fail "resume-wait is set" "$out" ;;
esac
check_eq "nothing was charged back" 0 "$(usage lo 0 vram_current)"
check_eq "nothing restored" 0 "$(truth /lo 0)"
check "a second resume while waiting is accepted" vgpu-nlsend tenant-resume str:1=lo
touch /tmp/hi.go
wait $hi
await "once hi is gone, lo resumes (3)" 300 state_is lo 3
check_eq "its 160M are charged back before the restore" $((160 * M)) "$(usage lo 0 vram_current)"
check_eq "host-bytes: 0" 0 "$(tenant_attr lo 30)"
check "a resume while resuming stands" vgpu-nlsend tenant-resume str:1=lo
check_errno "a suspend while resuming is refused" 16 "tenant is being resumed" tenant-suspend str:1=lo
check_out "the agent restores and unlocks" "unlock CUDA_SUCCESS state running" agent $lo resume
check "proc-set: the agent reports it running" vgpu-nlsend proc-set u32:1=$lo
check "tenant-settle: resumed" vgpu-nlsend tenant-settle str:1=lo u32:29=3 "str:33=resumed-by-hand"
check_eq "lo is running (0)" 0 "$(tenant_attr lo 29)"
check_eq "the reason is kept (vgpu-nlsend prints a space as \\x20)" "resumed-by-hand" "$(tenant_attr lo 33)"
wait $lo
rc=$?
check_eq "lo's client ends well" 0 "$rc"
check_out "its waiting allocation went through" "alloc 32M ok" cat /tmp/lo.out
check_out "its buffers came back whole" "sum 3 buffers" cat /tmp/lo.out
check_eq "everything is given back" 0 "$(usage lo 0 vram_current)"

# --- kill -9 of a suspended process gives everything back
check "tenant gone: 128M" vgpuctl tenant add gone cgroup gone vram-max 128M
ckpt_client g gone alloc 64M , touch /tmp/g.ready , wait /tmp/g.never
g=$!
await "gone's client holds 64M" 600 test -e /tmp/g.ready
suspend_by_hand gone $g
check_eq "gone holds 64M in host memory" $((64 * M)) "$(tenant_attr gone 30)"
kill -9 $g
wait $g 2>/dev/null
await "its registration ends" 300 sh -c "! vgpu-nlsend -d proc-get | grep -q '1=$g '"
check_eq "kill -9: host-bytes 0" 0 "$(tenant_attr gone 30)"
check_eq "kill -9: nothing charged" 0 "$(usage gone 0 vram_current)"
check_eq "kill -9: simgpu holds nothing" 0 "$(truth /gone 0)"
check_eq "the tenant stays suspended, with nothing to restore" 2 "$(tenant_attr gone 29)"
check "its resume needs no room" vgpu-nlsend tenant-resume str:1=gone
check_eq "resuming at once" 3 "$(tenant_attr gone 29)"
check "settled" vgpu-nlsend tenant-settle str:1=gone u32:29=3
check "then it can be deleted" vgpuctl tenant del gone

# --- a suspension in which nothing was checkpointed ends running
check "tenant gone again" vgpuctl tenant add gone cgroup gone
ckpt_client n gone alloc 16M , touch /tmp/n.ready , wait /tmp/n.go
n=$!
await "a client" 600 test -e /tmp/n.ready
check "suspend" vgpu-nlsend tenant-suspend str:1=gone
check "settle with nothing checkpointed" vgpu-nlsend tenant-settle str:1=gone u32:29=1 \
	"str:33=pid-$n:CUDA_ERROR_NOT_SUPPORTED"
check_eq "the tenant is running again" 0 "$(tenant_attr gone 29)"
check_eq "with the agent's reason" "pid-$n:CUDA_ERROR_NOT_SUPPORTED" "$(tenant_attr gone 33)"
touch /tmp/n.go
wait $n

# --- the module unloads with a tenant suspended and a resume waiting
ckpt_client m gone alloc 16M , touch /tmp/m.ready , wait /tmp/m.never
m=$!
await "another client" 600 test -e /tmp/m.ready
suspend_by_hand gone $m
check "vram-max of gone down to 1M: its 16M cannot come back" vgpuctl tenant set gone vram-max 1M
check "resume" vgpu-nlsend tenant-resume str:1=gone
check_eq "it waits for room" 2 "$(tenant_attr gone 29)"
kill -9 $m
wait $m 2>/dev/null
await "the client's registration ends" 300 sh -c "! vgpu-nlsend -d proc-get | grep -q '1=$m '"
check "rmmod with a tenant suspended" rmmod vgpu
check "insmod" insmod /lib/modules/$(uname -r)/extra/vgpu.ko
suite_end
