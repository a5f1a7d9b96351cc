# SPDX-License-Identifier: GPL-2.0
# Sourced by the suites that run inside the VM: one line per check,
# "PASS: suite: what" or "FAIL: suite: what: detail", which tests/run counts.

suite=${suite:-$(basename "$0" .sh)}
failures=0

# /tmp/in_cg CGROUP CMD...: run CMD inside the cgroup (CGROUP relative to
# /sys/fs/cgroup). An executable, not a shell function, so that
# "/tmp/in_cg ... &" leaves the command's own pid in $!.
cat > /tmp/in_cg <<'EOS'
#!/bin/sh
echo $$ > /sys/fs/cgroup/$1/cgroup.procs || exit 125
shift
exec "$@"
EOS
chmod +x /tmp/in_cg

# inside CGROUP STEPS...: run vgpu-devtest inside the cgroup, as this
# process (always called in a subshell, so $! of "inside ... &" is
# vgpu-devtest)
inside() {
	d=$1
	shift
	exec sh -c "echo \$\$ > /sys/fs/cgroup/$d/cgroup.procs && exec vgpu-devtest $*"
}

# uptime_ms: milliseconds since boot (to 10 ms), to time a span.
uptime_ms() { awk '{ split($1, t, "."); print t[1] * 1000 + t[2] * 10 }' /proc/uptime; }

# field KEY LINE-PREFIX OUTPUT: value of KEY= in the first line starting
# with PREFIX
field() {
	printf '%s\n' "$3" | grep "^$2" | head -n 1 | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# VRAM helpers (60-vram, 61-vram-pidns).
# bg_hold CGROUP OUT CMD...: start a holder in the background ($! is its
# pid) and wait (up to 60 s) until it says "holding"; a holder that never
# does is a FAIL of its own (and returns 1).
bg_hold() {
	local dir=$1 out=$2 i
	shift 2
	# Emptied here, not by the background job's own redirection, which may
	# come late: a loaded run read the previous holder's "holding" in a
	# reused file and checked before this holder had done anything.
	: > "$out"
	/tmp/in_cg "$dir" "$@" >> "$out" 2>&1 &
	for i in $(seq 1 600); do
		grep -q '^holding' "$out" && return 0
		sleep 0.1
	done
	fail "a holder in $dir starts" "gave up after 60 s: $(cat "$out")"
	return 1
}

# usage TENANT GPU FIELD...: numbers from one vgpuctl -j tenant show, one
# per FIELD, space-separated (a field it lacks prints nothing).
usage() {
	local obj f v out=
	obj=$(vgpuctl -j tenant show "$1" | tr -d ' \n' |
		sed -n "s/.*{\"gpu\":$2,\([^}]*\)}.*/\1/p")
	shift 2
	for f; do
		v=$(printf '%s\n' "$obj" | sed -n "s/.*\"$f\":\([0-9]*\).*/\1/p")
		out=$out${out:+${v:+ }}$v
	done
	printf '%s\n' "$out"
}

# sim_cgroup CGROUP GPU COLUMN: a number of simgpu-stat's line for the
# cgroup on GPU ("cgroup PATH gpu G bytes B busy_ns N kernels K"), 0 if none.
sim_cgroup() {
	simgpu-stat | awk -v c="$1" -v g="$2" -v f="$3" \
		'$1 == "cgroup" && $2 == c && $4 == g { v = $f } END { print v + 0 }'
}
# truth CGROUP GPU: bytes simgpu's shared state holds for the cgroup.
truth() { sim_cgroup "$1" "$2" 6; }
# gpu_busy CGROUP GPU: ns of GPU time simgpu has run the cgroup's work.
gpu_busy() { sim_cgroup "$1" "$2" 8; }
# busier CGROUP GPU NS: simgpu has run more than NS of the cgroup's work.
busier() { [ "$(gpu_busy "$1" "$2")" -gt "$3" ]; }
# await_launching CGROUP GPU: until the cgroup's work runs on GPU (a
# background launcher has started, holds the GPU and launches), 30 s at
# most.
await_launching() {
	local b0
	b0=$(gpu_busy "$1" "$2")
	await "$1 launches on GPU $2" 300 busier "$1" "$2" "$b0"
}

# await WHAT TENTHS CMD...: poll CMD every 0.1 s, TENTHS times at most,
# until it succeeds. A wait that gives up is a FAIL of its own, named WHAT
# (and returns 1): the checks after it would run on a state that never came.
await() {
	local what=$1 n=$2 i=0
	shift 2
	while ! "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -ge "$n" ]; then
			fail "$what" "gave up after $((n / 10)).$((n % 10)) s waiting for '$*'"
			return 1
		fi
		sleep 0.1
	done
}

# Waiting for a background process, not sleeping for it: a run on a
# loaded machine (a CI run whose suites took 3 to 5 times their usual
# time) starts a process, or delivers an event, later than any fixed sleep.

# listening PID: PID has a netlink socket in a multicast group (for
# vgpuctl monitor: it has joined vgpu's events and hears what follows).
# /proc/net/netlink's Groups column shows the first 32 groups; the vgpu
# family's is among them on these kernels (9 on 6.1).
listening() {
	local ino
	for ino in $(ls -l /proc/"$1"/fd 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p'); do
		awk -v i="$ino" 'NR > 1 && $10 == i && $4 != "00000000" { f = 1 } END { exit !f }' \
			/proc/net/netlink && return 0
	done
	return 1
}
# monitor_ready PID: until the monitor PID listens (30 s at most).
monitor_ready() { await "vgpuctl monitor (pid $1) listens" 300 listening "$1"; }

# in_cgroup PID CGROUP: PID is in CGROUP (relative to /sys/fs/cgroup):
# /tmp/in_cg, started in the background, has moved itself there.
in_cgroup() { grep -qx "0::/$2" /proc/"$1"/cgroup 2>/dev/null; }
# await_cgroup PID CGROUP: until it is (30 s at most).
await_cgroup() { await "process $1 is in cgroup $2" 300 in_cgroup "$1" "$2"; }

# exited PID: PID has exited (gone, or a zombie: its files are closed)
exited() { ! kill -0 "$1" 2>/dev/null || grep -q '^State:.*Z' /proc/"$1"/status 2>/dev/null; }

# lines_at_least FILE TEXT N: N lines of FILE or more hold TEXT
lines_at_least() { [ "$(grep -cF -- "$2" "$1" 2>/dev/null)" -ge "$3" ]; }

# has_text FILE TEXT: FILE holds TEXT (a fixed string)
has_text() { grep -qF -- "$2" "$1" 2>/dev/null; }

# Suspension helpers (59-suspend*, bench/vm-suspend.sh).
# ckpt_client NAME CGROUP CMDS...: ckpt-client with libvgpu in the
# background ($! its pid), output in /tmp/NAME.out
ckpt_client() {
	local name=$1 dir=$2
	shift 2
	: > /tmp/$name.out
	LD_PRELOAD=/usr/lib/libvgpu.so /tmp/in_cg "$dir" ckpt-client "$@" > /tmp/$name.out 2>&1 &
}
# agent_start: vgpuctl agent in the background ($agent), log in
# /tmp/agent.log, once it listens to the module's events; agent_stop: kill -9
agent_start() {
	: > /tmp/agent.log
	vgpuctl agent lock-timeout 5000 2>> /tmp/agent.log &
	agent=$!
	monitor_ready $agent
}
agent_stop() { kill -9 $agent; wait $agent 2>/dev/null; }
# tstate NAME: the tenant's state as vgpuctl -j tenant show says it
tstate() {
	vgpuctl -j tenant show "$1" | tr -d ' \n' | sed -n 's/.*"state":"\([a-z]*\)".*/\1/p'
}
tstate_is() { [ "$(tstate "$1")" = "$2" ]; }
# ticks FILE: the count a ckpt-client ticker wrote; ticks_above FILE N
ticks() { cat "$1" 2>/dev/null || echo 0; }
ticks_above() { [ "$(ticks "$1")" -gt "$2" ]; }

pass() { echo "PASS: $suite: $1"; }
fail() { echo "FAIL: $suite: $1: $2"; failures=$((failures + 1)); }

# check WHAT CMD... : the command must succeed.
check() {
	local what=$1 out
	shift
	if out=$("$@" 2>&1); then
		pass "$what"
	else
		fail "$what" "exit $? from '$*': $(echo "$out" | tail -n 3 | tr '\n' ' ')"
	fi
}

# check_fails WHAT EXPECTED_MESSAGE CMD... : the command must fail and
# print a line containing EXPECTED_MESSAGE.
check_fails() {
	local what=$1 msg=$2 out rc
	shift 2
	out=$("$@" 2>&1) && rc=0 || rc=$?
	if [ "$rc" -eq 0 ]; then
		fail "$what" "'$*' succeeded: $(echo "$out" | head -n 2 | tr '\n' ' ')"
	elif ! printf '%s\n' "$out" | grep -qF -- "$msg"; then
		fail "$what" "expected '$msg', got: $(echo "$out" | head -n 3 | tr '\n' ' ')"
	else
		pass "$what"
	fi
}

# check_out WHAT EXPECTED CMD... : the command must succeed and its output
# contain EXPECTED (a fixed string).
check_out() {
	local what=$1 want=$2 out rc
	shift 2
	out=$("$@" 2>&1) && rc=0 || rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "$what" "exit $rc from '$*': $(echo "$out" | head -n 3 | tr '\n' ' ')"
	elif ! printf '%s\n' "$out" | grep -qF -- "$want"; then
		fail "$what" "expected '$want' in: $(echo "$out" | head -n 5 | tr '\n' ' ')"
	else
		pass "$what"
	fi
}

# check_eq WHAT EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected '$2', got '$3'"
	fi
}

# The nlsend raw tool's errno for a request: check_errno WHAT ERRNO MSG ARGS...
check_errno() {
	local what=$1 want=$2 msg=$3 out
	shift 3
	out=$(vgpu-nlsend "$@" 2>&1) || true
	case $out in
	*"errno=$want "*"msg=$msg"*) pass "$what" ;;
	*) fail "$what" "expected errno=$want msg=$msg, got: $(echo "$out" | head -n 2 | tr '\n' ' ')" ;;
	esac
}

suite_end() {
	[ "$failures" -eq 0 ]
}
