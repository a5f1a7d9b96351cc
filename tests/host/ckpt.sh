#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of simgpu's checkpoint API (cuCheckpointProcess*,
# Documentation/simgpu.md "Checkpoint and restore"): another process locks,
# checkpoints, restores and unlocks a simgpu process (tests/clients:
# ckpt-client the target, ckpt-ctl the operator). Run from the repository
# root. One line per check:
#   PASS: ckpt: <what>    or    FAIL: ckpt: <what>: <detail>
# Exit status: 0 when every check passed.
set -u

top=$(pwd)
sim=$top/tests/simgpu
cli=$top/tests/clients
work=$(mktemp -d /tmp/ckpt-test.XXXXXX)
fails=0
pids=()

cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

pass() { echo "PASS: ckpt: $1"; }
fail() { echo "FAIL: ckpt: $1: $2"; fails=$((fails + 1)); }
check() { # check WHAT DETAIL CONDITION...
	local what=$1 detail=$2
	shift 2
	if "$@"; then pass "$what"; else fail "$what" "$detail"; fi
}
wait_for() {
	local i
	for i in $(seq 200); do "$@" && return 0; sleep 0.05; done
	return 1
}
# await WHAT CONDITION...: a wait that gives up is a FAIL of its own.
await() {
	local what=$1
	shift
	wait_for "$@" || { fail "$what" "gave up after 10 s waiting for '$*'"; return 1; }
}

export SIMGPU_STATE=$work/state
export LD_LIBRARY_PATH=$sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset SIMGPU_GPUS SIMGPU_VRAM SIMGPU_SMS SIMGPU_CTX_VRAM SIMGPU_KERNEL_NS SIMGPU_PAUSE_IN
export SIMGPU_CONFIG=$work/simgpu.conf
U0=GPU-c0000000-0000-4000-8000-000000000000
U1=GPU-c1000000-0000-4000-8000-000000000000
U2=GPU-c2000000-0000-4000-8000-000000000000
cat > "$SIMGPU_CONFIG" <<EOF
gpus = 3
vram = 256M
gpu0.uuid = $U0
gpu1.uuid = $U1
gpu2.uuid = $U2
gpu2.sms = 66
EOF
C=$cli/ckpt-client
CTL=$cli/ckpt-ctl
STAT=$sim/simgpu-stat
M=$((1024 * 1024))

# ---- build ----
if make -s -C "$sim" > "$work/build.log" 2>&1 &&
	make -s -C "$cli" ckpt-client ckpt-ctl >> "$work/build.log" 2>&1 &&
	make -s -C "$top/bench" ckpt-bench >> "$work/build.log" 2>&1; then
	pass "build simgpu, ckpt-client, ckpt-ctl, ckpt-bench"
else
	fail "build" "$(tail -n 3 "$work/build.log" | tr '\n' ' ')"
	exit 1
fi

# ---- every driver entry point passes the gate ----
# An exported function (SG_API) of the driver's sources whose body does
# not begin with SG_GATE() would not block while its process is locked.
ungated() { # FILES...: "file:line name" of each ungated definition
	awk '
	/^SG_API / { head = $0; line = FNR; p = 1; next }
	p && /;[ \t]*$/ && !/^\{/ { p = 0; next }
	p && /^\{/ {
		p = 0
		body = $0
		if (body ~ /^\{[ \t]*\\?$/) { getline body }
		if (body !~ /SG_GATE\(\);/ && head !~ /cuCheckpoint/)
			print FILENAME ":" line " " head
	}' "$@"
}
drv=$(ls "$sim"/*.c | grep -v -e '/nvml' -e '/test_' -e '/stat.c' -e '/pidd.c')
bad=$(ungated $drv)
n=$(grep -h -c '^SG_API' $drv | awk '{ s += $1 } END { print s }')
check "every exported definition of the driver passes SG_GATE() first ($n SG_API lines; cuCheckpoint* excepted)" "$bad" \
	[ -z "$bad" ]
printf 'SG_API CUresult cuFoo(void)\n{\n\treturn 0;\n}\nSG_API CUresult cuBar(void)\n{ SG_GATE(); return 0; }\n' > "$work/gate.c"
bad=$(ungated "$work/gate.c")
check "the gate check names a function without the gate" "got '$bad'" \
	[ "$bad" = "$work/gate.c:1 SG_API CUresult cuFoo(void)" ]

# ---- helpers ----
gpu_used() { "$STAT" | awk -v g="$1" '$1 == "gpu" && $2 == g {print $4}'; }
# proc_field PID GPU FIELD: bytes or contexts of a live process
proc_field() {
	"$STAT" | awk -v p="$1" -v g="$2" -v f="$3" '$1 == "proc" && $2 == p && $4 == g && $6 == 1 {
		for (i = 7; i < NF; i += 2) if ($i == f) print $(i + 1) }'
}
# ctl PID STEP [ARGS]: one step; its line in $out ("lock CUDA_SUCCESS state locked ms 0.1")
ctl() { out=$("$CTL" "$@" 2>&1 | tail -n 1); }
rc_of() { echo "$out" | awk '{print $2}'; }
state_of() { echo "$out" | awk '{print $4}'; }
ms_of() { echo "$out" | awk '{print $6}'; }
# step WHAT PID STEP ARGS... -- WANT_RC WANT_STATE
step() {
	local what=$1 pid=$2
	shift 2
	local args=()
	while [ "$1" != "--" ]; do args+=("$1"); shift; done
	ctl "$pid" "${args[@]}"
	check "$what: ${args[0]} answers $2, state $3" "got '$out'" \
		[ "$(rc_of)" = "$2" -a "$(state_of)" = "$3" ]
}
# client NAME CMDS...: start ckpt-client, output in $work/NAME.out
client() {
	local name=$1
	shift
	: > "$work/$name.out"
	"$C" "$@" >> "$work/$name.out" 2>&1 &
	pids+=($!)
	cpid=$!
}
observer_free() { "$C" info | awk '$1 == "info" && $2 == "free" {print $3; exit}'; }
ticks() { cat "$work/ticks" 2>/dev/null || echo 0; }

# ---- states in order, data intact, memory given back and taken again ----
client a alloc 64M , pool 8M , vmm 4M , ticker "$work/ticks" , touch "$work/a.ready" , \
	wait "$work/a.go" , sum , touch "$work/a.summed" , wait "$work/a.end"
A=$cpid
await "a client holding 64M + 8M + 4M" test -e "$work/a.ready"
await "its ticker thread calls the driver" test "$(ticks)" -gt 0
held=$(proc_field $A 0 bytes)
free0=$(observer_free)
used0=$(gpu_used 0)
check "the client holds at least 76 MiB on GPU 0" "got $held" [ "${held:-0}" -ge $((76 * M)) ]
nv=$("$cli/nvml-procs" 2>&1)
check "running: NVML's compute list shows it" "pid $A: $nv" \
	eval 'echo "$nv" | grep -Eq "compute ([0-9]+,)*$A[, ]"'
step "running" $A state -- CUDA_SUCCESS running
ctl $A tid
tid=$(echo "$out" | awk '{print $8}')
check "cuCheckpointProcessGetRestoreThreadId names a thread of the process" "got '$out'" \
	test -n "$tid" -a -d "/proc/$A/task/$tid"
step "running" $A lock 5000 -- CUDA_SUCCESS locked
sleep 0.1
t1=$(ticks)
step "locked" $A checkpoint -- CUDA_SUCCESS checkpointed
free1=$(observer_free)
check "checkpointed: another process's cuMemGetInfo free rises by what it held ($held)" \
	"free $free0 -> $free1" [ "$((free1 - free0))" = "$held" ]
check "checkpointed: the GPU's used memory falls by it" "used $used0 -> $(gpu_used 0)" \
	[ "$(gpu_used 0)" = "$((used0 - held))" ]
check "checkpointed: the process holds no memory and no context on GPU 0" \
	"bytes $(proc_field $A 0 bytes) contexts $(proc_field $A 0 contexts)" \
	[ "$(proc_field $A 0 bytes)" = 0 -a "$(proc_field $A 0 contexts)" = 0 ]
nv=$("$cli/nvml-procs" 2>&1)
check "checkpointed: NVML's compute list leaves it out" "pid $A: $nv" \
	eval '! echo "$nv" | grep -Eq "compute ([0-9]+,)*$A[, ]"'
touch "$work/a.go"	# the main thread's next call is its read-back
sleep 0.5
t2=$(ticks)
# A call that was inside when the lock came may still write its count
# after t1 was read, on a loaded machine: one step; a ticker not blocked
# makes hundreds.
check "locked: another thread's calls block (ticker $t1 -> $t2 in 0.5 s)" "ticks moved" \
	[ "$((t2 - t1))" -le 1 ]
check "locked: the main thread's call blocks" "$(cat "$work/a.out")" \
	test ! -e "$work/a.summed"
step "checkpointed" $A restore -- CUDA_SUCCESS locked
check "restored: the GPU's used memory is back ($used0)" "got $(gpu_used 0)" \
	[ "$(gpu_used 0)" = "$used0" ]
check "restored: another process sees the free memory fall back" "got $(observer_free)" \
	[ "$(observer_free)" = "$free0" ]
check "restored: the process holds its memory again" "got $(proc_field $A 0 bytes)" \
	[ "$(proc_field $A 0 bytes)" = "$held" ]
step "restored" $A unlock -- CUDA_SUCCESS running
await "unlocked: the main thread's call returns" test -e "$work/a.summed"
check "data intact after restore: every buffer's checksum (cuMemAlloc, pool, VMM)" \
	"$(cat "$work/a.out")" grep -q "^sum 3 buffers $((76 * M)) bytes ok" "$work/a.out"
await "unlocked: the ticker thread runs again" test "$(ticks)" -gt "$t2"

# ---- wrong transitions and bad input ----
step "running" $A checkpoint -- CUDA_ERROR_ILLEGAL_STATE running
step "running" $A restore -- CUDA_ERROR_ILLEGAL_STATE running
step "running" $A unlock -- CUDA_ERROR_ILLEGAL_STATE running
step "running" $A lock -- CUDA_SUCCESS locked
step "locked" $A lock 100 -- CUDA_ERROR_ILLEGAL_STATE locked
step "locked" $A restore -- CUDA_ERROR_ILLEGAL_STATE locked
step "locked" $A checkpoint -- CUDA_SUCCESS checkpointed
step "checkpointed" $A checkpoint -- CUDA_ERROR_ILLEGAL_STATE checkpointed
step "checkpointed" $A unlock -- CUDA_ERROR_ILLEGAL_STATE checkpointed
step "checkpointed" $A lock -- CUDA_ERROR_ILLEGAL_STATE checkpointed
"$CTL" $A resume > /dev/null
sleep 30 &
nocuda=$!
pids+=($nocuda)
ctl $nocuda state
check "a process without CUDA: CUDA_ERROR_INVALID_VALUE" "got '$out'" \
	[ "$(rc_of)" = CUDA_ERROR_INVALID_VALUE ]
ctl 999999999 lock
check "an unknown pid: CUDA_ERROR_INVALID_VALUE" "got '$out'" \
	[ "$(rc_of)" = CUDA_ERROR_INVALID_VALUE ]
"$CTL" $A errors > "$work/errors.out" 2>&1
check "argument errors as documented (NULL outputs, reserved fields, pid 0 and -1)" \
	"$(grep -v 'got \(.*\) want \1$' "$work/errors.out" | tr '\n' ';')" \
	eval '[ "$(grep -c "got \(.*\) want \1$" "$work/errors.out")" = 8 ]'
if command -v setpriv > /dev/null; then
	chmod 755 "$work"
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$CTL" $A state 2>&1 | tail -n 1)
	check "a caller without rights over the process (nobody): CUDA_ERROR_OPERATING_SYSTEM" \
		"got '$out'" [ "$(rc_of)" = CUDA_ERROR_OPERATING_SYSTEM ]
	chmod 700 "$work"
else
	fail "rights" "setpriv missing: install util-linux"
fi

# ---- lock timeout: a call in progress that does not finish ----
client b alloc 8M , touch "$work/b.ready" , hold "$work/b.release" , \
	touch "$work/b.returned" , wait "$work/b.end"
B=$cpid
await "a client held inside cuMemPoolGetAttribute" test -e "$work/b.release.paused"
step "a call in progress" $B lock 300 -- CUDA_ERROR_NOT_READY running
check "the lock waited its timeout (300 ms) before giving up" "took $(ms_of) ms" \
	awk -v m="$(ms_of)" 'BEGIN { exit !(m >= 300) }'
# timeoutMs 0, "no timeout": the lock waits for the call however long.
: > "$work/lock0.out"
"$CTL" $B lock >> "$work/lock0.out" 2>&1 &
L=$!
pids+=($L)
sleep 0.5
step "while a lock without timeout waits, a state query" $B state -- CUDA_SUCCESS running
check "a lock without timeout is still waiting after 0.5 s" "$(cat "$work/lock0.out")" \
	kill -0 $L
touch "$work/b.release"
await "the held call returns" test -e "$work/b.returned"
wait $L
check "the lock without timeout succeeds once the call returned" "$(cat "$work/lock0.out")" \
	grep -q "^lock CUDA_SUCCESS state locked" "$work/lock0.out"
step "locked" $B unlock -- CUDA_SUCCESS running
step "the call returned" $B lock 300 -- CUDA_SUCCESS locked
step "locked" $B unlock -- CUDA_SUCCESS running

# ---- managed memory is refused, the process left locked and intact ----
client c alloc 8M , managed 4M , touch "$work/c.ready" , wait "$work/c.go" , sum , \
	wait "$work/c.end"
Cp=$cpid
await "a client with managed memory" test -e "$work/c.ready"
cheld=$(proc_field $Cp 0 bytes)
step "managed memory" $Cp lock -- CUDA_SUCCESS locked
step "managed memory" $Cp checkpoint -- CUDA_ERROR_NOT_SUPPORTED locked
check "refused: the process keeps its memory ($cheld)" "got $(proc_field $Cp 0 bytes)" \
	[ "$(proc_field $Cp 0 bytes)" = "$cheld" ]
step "refused" $Cp unlock -- CUDA_SUCCESS running
touch "$work/c.go"
await "refused: its data is intact" grep -q "^sum 2 buffers $((12 * M)) bytes ok" "$work/c.out"

# ---- IPC memory (an exported VMM allocation) is refused likewise ----
client i alloc 4M , share 2M , touch "$work/i.ready" , wait "$work/i.go" , sum , \
	wait "$work/i.end"
I=$cpid
await "a client with an exported VMM allocation" test -e "$work/i.ready"
step "IPC memory" $I lock -- CUDA_SUCCESS locked
step "IPC memory" $I checkpoint -- CUDA_ERROR_NOT_SUPPORTED locked
step "refused" $I unlock -- CUDA_SUCCESS running
touch "$work/i.go"
await "refused: its data is intact" grep -q "^sum 2 buffers $((6 * M)) bytes ok" "$work/i.out"
touch "$work/i.end" "$work/c.end"	# their room is needed below
wait $I $Cp 2>/dev/null

# ---- a restore without room fails whole, and succeeds once there is room ----
client d alloc 128M , touch "$work/d.ready" , wait "$work/d.go" , sum , wait "$work/d.end"
D=$cpid
await "a client holding 128M" test -e "$work/d.ready"
"$CTL" $D suspend > /dev/null
base=$(gpu_used 0)
# All the room but 64M: the 128M given back are taken.
fill=$(((256 * M - base) / M - 64))M
client e alloc $fill , touch "$work/e.ready" , wait "$work/e.end"
E=$cpid
await "another process takes all but 64M of the room" test -e "$work/e.ready"
check "the filler got its $fill (the checkpointed 128M were given back)" "$(cat "$work/e.out")" \
	grep -q "^alloc $fill ok" "$work/e.out"
full=$(gpu_used 0)
step "no room" $D restore -- CUDA_ERROR_OUT_OF_MEMORY checkpointed
check "no room: nothing half-restored (used stays $full)" "got $(gpu_used 0)" \
	[ "$(gpu_used 0)" = "$full" -a "$(proc_field $D 0 bytes)" = 0 ]
kill -9 $E
wait $E 2>/dev/null
step "room again" $D restore -- CUDA_SUCCESS locked
step "room again" $D unlock -- CUDA_SUCCESS running
touch "$work/d.go"
await "restored after a failed restore: data intact" \
	grep -q "^sum 1 buffers $((128 * M)) bytes ok" "$work/d.out"
check "GPU 0 holds the 128M again" "used $(gpu_used 0), base $base" \
	[ "$(gpu_used 0)" = "$((base + 128 * M))" ]

# ---- restore onto another GPU of the same type ----
client f alloc 32M , touch "$work/f.ready" , wait "$work/f.go" , sum , wait "$work/f.end"
F=$cpid
await "a client holding 32M on GPU 0" test -e "$work/f.ready"
check "the client got its 32M" "$(cat "$work/f.out")" grep -q "^alloc 32M ok" "$work/f.out"
u0=$(gpu_used 0)
u1=$(gpu_used 1)
"$CTL" $F suspend > /dev/null
step "onto GPU 2 (66 SMs, not the same type)" $F restore "$U0=$U2" -- \
	CUDA_ERROR_INVALID_VALUE checkpointed
step "pairs without the checkpointed GPU 0" $F restore "$U1=$U2" -- \
	CUDA_ERROR_INVALID_VALUE checkpointed
step "onto GPU 1" $F restore "$U0=$U1" -- CUDA_SUCCESS locked
check "moved: GPU 1 holds the 32M, GPU 0 gave them back" \
	"gpu0 $u0 -> $(gpu_used 0), gpu1 $u1 -> $(gpu_used 1)" \
	[ "$(gpu_used 1)" = "$((u1 + 32 * M))" -a "$(gpu_used 0)" = "$((u0 - 32 * M))" ]
"$CTL" $F unlock > /dev/null
touch "$work/f.go"
await "moved: data intact at the same addresses" \
	grep -q "^sum 1 buffers $((32 * M)) bytes ok" "$work/f.out"

# ---- kill -9 in every state gives everything back ----
for st in running locked checkpointed; do
	before=$(gpu_used 0)
	client k alloc 16M , touch "$work/k.$st" , wait "$work/k.never"
	K=$cpid
	await "kill -9 $st: a client holding 16M" test -e "$work/k.$st"
	case $st in
	locked) "$CTL" $K lock > /dev/null ;;
	checkpointed) "$CTL" $K suspend > /dev/null ;;
	esac
	ctl $K state
	check "kill -9 $st: reached" "got '$out'" [ "$(state_of)" = $st ]
	kill -9 $K
	wait $K 2>/dev/null
	await "kill -9 $st: GPU 0 back to $before" eval '[ "$(gpu_used 0)" = "$before" ]'
	check "kill -9 $st: its control socket is gone" "$(ls "$work")" \
		test ! -e "$work/simgpu-ckpt.$K.sock"
done

# ---- the other clients end cleanly ----
touch "$work/a.end" "$work/b.end" "$work/d.end" "$work/f.end"
for p in $A $B $D $F; do wait $p 2>/dev/null; done
check "every client ended and GPU memory is all free" "used $(gpu_used 0) $(gpu_used 1)" \
	[ "$(gpu_used 0)" = 0 -a "$(gpu_used 1)" = 0 ]

# ---- under ASan and UBSan: both sides of the channel, a whole cycle ----
asan=$(cc -print-file-name=libasan.so)
if ! make -s -C "$sim" asan/libcuda.so.1 > "$work/asan.log" 2>&1 || [ ! -e "$asan" ]; then
	fail "ASan/UBSan build of the driver" "$(tail -n 3 "$work/asan.log" | tr '\n' ' ') libasan: $asan"
else
	export ASAN_OPTIONS=detect_leaks=0
	san() { LD_PRELOAD=$asan LD_LIBRARY_PATH=$sim/asan "$@"; }
	: > "$work/s.out"
	LD_PRELOAD=$asan LD_LIBRARY_PATH=$sim/asan "$C" alloc 16M , pool 4M , vmm 2M , \
		managed 2M , touch "$work/s.ready" , wait "$work/s.go" , sum >> "$work/s.out" 2>&1 &
	S=$!
	pids+=($S)
	await "ASan: a client" test -e "$work/s.ready"
	{ san "$CTL" $S suspend; san "$CTL" $S unlock; san "$CTL" $S errors
	  san "$CTL" 999999999 state; } > "$work/sctl.out" 2>&1
	check "ASan: managed memory refused" "$(cat "$work/sctl.out")" \
		grep -q "^checkpoint CUDA_ERROR_NOT_SUPPORTED state locked" "$work/sctl.out"
	: > "$work/t.out"
	LD_PRELOAD=$asan LD_LIBRARY_PATH=$sim/asan "$C" alloc 16M , pool 4M , vmm 2M , \
		touch "$work/t.ready" , wait "$work/t.go" , sum >> "$work/t.out" 2>&1 &
	T=$!
	pids+=($T)
	await "ASan: a second client" test -e "$work/t.ready"
	check "ASan: the client runs the instrumented driver" "$(grep libcuda /proc/$T/maps | head -n 1)" \
		grep -q "$sim/asan/libcuda.so.1" /proc/$T/maps
	san "$CTL" $T suspend , resume >> "$work/sctl.out" 2>&1
	touch "$work/s.go" "$work/t.go"
	wait $S $T
	check "ASan: suspended, resumed, data intact" "$(cat "$work/t.out" "$work/sctl.out")" \
		grep -q "^sum 3 buffers $((22 * M)) bytes ok" "$work/t.out"
	check "ASan and UBSan: no report from either side" \
		"$(grep -h -m 3 -e Sanitizer -e 'runtime error' "$work/s.out" "$work/t.out" "$work/sctl.out")" \
		eval '! grep -q -e Sanitizer -e "runtime error" "$work/s.out" "$work/t.out" "$work/sctl.out"'
	unset ASAN_OPTIONS
fi

# ---- suspend and resume per GiB (bench/ckpt-bench, short) ----
if out=$(SIMGPU_VRAM=1G "$top/bench/ckpt-bench" 128 3 2> "$work/bench.err"); then
	sus=$(echo "$out" | awk '$1 == "suspend" {print $NF}')
	res=$(echo "$out" | awk '$1 == "resume" {print $NF}')
	check "ckpt-bench 128 MiB x 3: suspend $sus ms/GiB, resume $res ms/GiB" "$out" \
		test -n "$sus" -a -n "$res"
else
	fail "ckpt-bench 128 MiB x 3" "$out $(cat "$work/bench.err")"
fi

exit $((fails > 0))
