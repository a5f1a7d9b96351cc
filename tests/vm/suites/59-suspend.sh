#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 60
# vm-boot: shared
# Suspension end to end (issue 31; Documentation/suspend.md): vgpuctl
# tenant suspend and resume, with vgpuctl agent calling simgpu's
# checkpoint API. A tenant that reserves all but 256M of GPU 0's 16G
# leaves the others 256M (the VM has 1G of RAM for the host copies). A low
# tenant holding 160M and computing is suspended: its work stops, its
# VRAM goes back to the GPU and a high tenant gets 128M; its resume waits
# for room, then its buffers come back whole and its work goes on. Then
# the agent killed and restarted in every phase, kill -9 of a suspended
# process, a process that cannot be checkpointed, and bad requests.
suite=suspend
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
M=1048576
G=1073741824


mkdir -p $cg/big $cg/lo $cg/hi $cg/other
check_out "gpu probe registers simgpu's GPUs" "gpu 1" vgpuctl gpu probe
check "tenant big reserves all but 256M" vgpuctl tenant add big cgroup big vram-min $((16 * G - 256 * M))
check "tenant lo: 256M" vgpuctl tenant add lo cgroup lo vram-max 256M
check "tenant hi: 256M" vgpuctl tenant add hi cgroup hi vram-max 256M

# --- bad requests
check_fails "suspend of an unknown tenant" "unknown tenant" vgpuctl tenant suspend nosuch
check_fails "suspend of a tenant without processes" "no registered processes" \
	vgpuctl tenant suspend lo
check_fails "resume of a running tenant" "running" vgpuctl tenant resume lo
check_fails "suspend without a name" "missing NAME" vgpuctl tenant suspend
check_fails "a bad wait" "wait" vgpuctl tenant suspend lo wait soon

agent_start
ckpt_client lo lo alloc 64M , alloc 96M , ticker /tmp/lo.ticks , touch /tmp/lo.ready , \
	wait /tmp/lo.go , sum
lo=$!
await "lo's client holds 160M and computes" 600 test -e /tmp/lo.ready
await "its ticker runs" 300 ticks_above /tmp/lo.ticks 10
check_fails "hi cannot have 128M beside lo's 160M" "CUDA_ERROR_OUT_OF_MEMORY" \
	env LD_PRELOAD=/usr/lib/libvgpu.so /tmp/in_cg hi vram-client alloc 128M

# --- suspend: the work stops, the VRAM goes back
check_out "vgpuctl tenant suspend lo" "tenant lo suspended: 1 process" vgpuctl tenant suspend lo
check_eq "state: suspended" suspended "$(tstate lo)"
check_eq "simgpu holds nothing for lo" 0 "$(truth /lo 0)"
check_eq "nothing charged to lo" 0 "$(usage lo 0 vram_current)"
check_out "tenant show: 160M in host memory" "host-bytes 160MiB" vgpuctl tenant show lo
check_out "metrics: lo's host bytes" "vgpu_tenant_host_bytes{tenant=\"lo\"} 167772160" vgpuctl metrics
check_out "metrics: lo is suspended" "vgpu_tenant_suspended{tenant=\"lo\",state=\"suspended\"} 1" vgpuctl metrics
check_out "top shows the state" "suspended" vgpuctl top -n 1
check "a usage record while lo is suspended" vgpuctl account -o /tmp/rec.jsonl -s /tmp/rec.state
rec=$(grep '"name":"lo"' /tmp/rec.jsonl | grep '"index":0' | tail -n 1)
case $rec in
*'"state":"suspended","host_bytes":167772160'*) pass "the record has the state and the host bytes" ;;
*) fail "the record has the state and the host bytes" "$rec" ;;
esac
check_out "ps marks the process" "$lo" vgpuctl ps
t0=$(ticks /tmp/lo.ticks)
sleep 0.5
check_eq "lo's work is stopped" "$t0" "$(ticks /tmp/lo.ticks)"
check_out "the agent says what it did" "checkpointed" cat /tmp/agent.log
check_fails "a second suspend" "already suspended" vgpuctl tenant suspend lo
check_fails "a suspended tenant is not deleted" "resume it first" vgpuctl tenant del lo force

ckpt_client hi hi alloc 128M , touch /tmp/hi.ready , wait /tmp/hi.go
hi=$!
await "hi takes 128M while lo is suspended" 600 test -e /tmp/hi.ready
check_out "hi holds its 128M" "alloc 128M ok" cat /tmp/hi.out

# --- resume waits for room, then everything comes back
out=$(vgpuctl tenant resume lo wait 1 2>&1) && rc=0 || rc=$?
check_eq "resume with too little room: exit 1 after its wait" 1 "$rc"
case $out in
*"waiting for room"*) pass "resume says it waits for room" ;;
*) fail "resume says it waits for room" "$out" ;;
esac
check_eq "still suspended, nothing restored" "suspended 0" "$(tstate lo) $(truth /lo 0)"
touch /tmp/hi.go
wait $hi
check_out "resume once hi is gone" "tenant lo resumed" vgpuctl tenant resume lo
check_eq "state: running" running "$(tstate lo)"
check_eq "lo is charged what simgpu holds again" "$(truth /lo 0)" "$(usage lo 0 vram_current)"
t0=$(ticks /tmp/lo.ticks)
await "lo's work goes on" 300 ticks_above /tmp/lo.ticks "$t0"
touch /tmp/lo.go
wait $lo
check_eq "lo's client ends well" 0 $?
check_out "its buffers came back whole" "sum 2 buffers 167772160 bytes ok" cat /tmp/lo.out

# --- the agent killed and restarted in every phase
ckpt_client p lo alloc 32M , touch /tmp/p.ready , wait /tmp/p.go , sum
p=$!
await "a client" 600 test -e /tmp/p.ready
agent_stop
check "suspend with no agent: asked" vgpuctl tenant suspend lo nowait
check_eq "it stays suspending" suspending "$(tstate lo)"
agent_start
await "a restarted agent carries it on" 300 tstate_is lo suspended
agent_stop
check "resume with no agent: asked" vgpuctl tenant resume lo nowait
check_eq "it stays resuming" resuming "$(tstate lo)"
agent_start
await "a restarted agent finishes the resume" 300 tstate_is lo running
# killed between the driver's step and its report: checkpointed, not parked
agent_stop
check "suspend asked again" vgpuctl tenant suspend lo nowait
check_out "the process checkpointed, not reported" "state checkpointed" \
	env LD_PRELOAD= ckpt-ctl $p suspend 5000
agent_start
await "the restarted agent reports it and settles" 300 tstate_is lo suspended
check_eq "its 32M are in host memory" $((32 * M)) \
	"$(vgpuctl -j tenant show lo | tr -d ' \n' | sed -n 's/.*"host_bytes":\([0-9]*\).*/\1/p')"
agent_stop
check "resume asked again" vgpuctl tenant resume lo nowait
check_out "restored, not unlocked" "state locked" env LD_PRELOAD= ckpt-ctl $p restore
agent_start
await "the restarted agent unlocks it and settles" 300 tstate_is lo running
touch /tmp/p.go
wait $p
check_eq "the client ends well" 0 $?
check_out "its buffer came back whole" "sum 1 buffers" cat /tmp/p.out

# --- kill -9 of a suspended process gives everything back
ckpt_client k lo alloc 32M , touch /tmp/k.ready , wait /tmp/k.never
k=$!
await "a client" 600 test -e /tmp/k.ready
check_out "suspended" "suspended" vgpuctl tenant suspend lo
kill -9 $k
wait $k 2>/dev/null
await "its registration ends" 300 sh -c "! vgpuctl ps | grep -qw $k"
check_eq "nothing in host memory, nothing charged, nothing held" "0 0" \
	"$(truth /lo 0) $(usage lo 0 vram_current)"
check_out "the tenant resumes with nothing to restore" "resumed" vgpuctl tenant resume lo

# --- kill -9 while suspending, and while resuming
ckpt_client k lo alloc 32M , touch /tmp/k2.ready , wait /tmp/k.never
k=$!
await "a client" 600 test -e /tmp/k2.ready
agent_stop
check "suspend with no agent" vgpuctl tenant suspend lo nowait
kill -9 $k
wait $k 2>/dev/null
agent_start
await "a suspension whose process died ends running" 300 tstate_is lo running
check_eq "nothing charged, nothing held" "0 0" "$(truth /lo 0) $(usage lo 0 vram_current)"
ckpt_client k lo alloc 32M , touch /tmp/k3.ready , wait /tmp/k.never
k=$!
await "a client" 600 test -e /tmp/k3.ready
check_out "suspended" "suspended" vgpuctl tenant suspend lo
agent_stop
check "resume with no agent: its 32M charged back" vgpuctl tenant resume lo nowait
check_eq "resuming, 32M charged" "resuming $((32 * M))" "$(tstate lo) $(usage lo 0 vram_current)"
kill -9 $k
wait $k 2>/dev/null
await "its registration ends" 300 sh -c "! vgpuctl ps | grep -qw $k"
check_eq "kill -9 while resuming gives the charge back" 0 "$(usage lo 0 vram_current)"
agent_start
await "the agent settles the resume" 300 tstate_is lo running

# --- the host copy is the tenant's own memory: a suspension that would
# not fit in its cgroup's memory.max is refused for that process
echo +memory > $cg/cgroup.subtree_control
mkdir -p $cg/tight
check "tenant tight" vgpuctl tenant add tight cgroup tight
ckpt_client t tight alloc 64M , touch /tmp/t.ready , wait /tmp/t.go , sum
t=$!
await "a client holding 64M" 600 test -e /tmp/t.ready
echo $(( $(cat $cg/tight/memory.current) + 8 * M )) > $cg/tight/memory.max
check_fails "a suspension beyond memory.max is refused, and says why" "host memory" \
	vgpuctl tenant suspend tight
check_eq "the tenant is running" running "$(tstate tight)"
echo max > $cg/tight/memory.max
touch /tmp/t.go
wait $t
check_eq "the process went on, its buffer whole" 0 $?

# --- a process that cannot be checkpointed is left running
check "tenant other" vgpuctl tenant add other cgroup other
ckpt_client s other share 2M , touch /tmp/s.ready , wait /tmp/s.go , sum
s=$!
await "a client that shares its memory" 600 test -e /tmp/s.ready
check_fails "its suspension ends running, and says why" "pid $s" vgpuctl tenant suspend other
check_eq "the tenant is running" running "$(tstate other)"
touch /tmp/s.go
wait $s
check_eq "the process went on" 0 $?

agent_stop
suite_end
