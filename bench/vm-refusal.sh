#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A tenant's charges beside another tenant's refused ones (issue 33,
# item 3), inside the VM (run by bench/run): tenant b's CHARGE+RELEASE
# round (vgpu-devtest bench-charge, pinned to CPU 0) alone, then beside
# tenant a's 8 unprivileged processes x 16 registrations (pinned to CPUs
# 1-3) that charge in a loop: first an O(1) call (the control: the same
# processes, CPUs and lock, no refusal), then refused charges of several
# kinds. Every row is from the same boot; compare it with the quiet and
# control rows. The VM is emulated (TCG, 4 vCPUs on the host's CPUs):
# absolute figures are slow and noisy.
# vm-debug: off
. /tests/suite-lib.sh	# /tmp/in_cg
cg=/sys/fs/cgroup
N=${N:-20000}
G=1073741824
vgpuctl gpu add 0 vram 16G >/dev/null
mkdir -p $cg/a $cg/b
vgpuctl tenant add a cgroup a >/dev/null
vgpuctl tenant add b cgroup b >/dev/null
# b holds 1 GiB (and a budget) all along: a's charges then find the GPU,
# not a's own limit, short, and may look at every registration on it.
/tmp/in_cg b vgpu-devtest register alloc 0 1G hold > /tmp/bhold 2>&1 &
bh=$!
sleep 1

field() { sed "s/^/ /" | sed -n "s/.* $1=\([0-9]*\).*/\1/p"; }

# victim: one bench-charge in b on CPU 0; prints its line
victim() {
	/tmp/in_cg b taskset -c 0 vgpu-devtest register bench-charge 0 2M "$N" |
		grep '^bench-charge'
}

# attack BYTES: 8 processes of a, as nobody, on CPUs 1-3, 16 registrations
# each, charging BYTES in a loop (0: the O(1) control); the victim runs
# once all have registered; then they stop and their calls are summed.
attack() {
	local i n pids jobs=
	rm -f /tmp/att.*
	for i in 1 2 3 4 5 6 7 8; do
		: > /tmp/att.$i
		/tmp/in_cg a taskset -c 1-3 su -s /bin/sh nobody -c \
			"exec vgpu-devtest hammer 0 $1 16 0" >> /tmp/att.$i 2>&1 &
		jobs="$jobs $!"
	done
	for i in $(seq 1 600); do
		n=$(cat /tmp/att.* | grep -c '^hammering')
		[ "$n" -ge 8 ] && break
		sleep 0.1
	done
	if [ "$n" -lt 8 ]; then
		echo "attackers did not start: $(cat /tmp/att.*)" >&2
	fi
	victim > /tmp/vic
	pids=$(cat /tmp/att.* | sed -n 's/^hammering.* pid=\([0-9]*\).*/\1/p')
	kill -TERM $pids $jobs 2>/dev/null
	wait $jobs 2>/dev/null
	calls=$(cat /tmp/att.* | field calls | awk '{ s += $1 } END { print s + 0 }')
	refused=$(cat /tmp/att.* | field refused | awk '{ s += $1 } END { print s + 0 }')
	ms=$(cat /tmp/att.* | field ms | sort -n | tail -n 1)
	cat /tmp/vic
}

# row NAME: the victim's last line against the quiet and control p99s
row() {
	local p50 p99 max
	p50=$(field p50_ns < /tmp/vic); p99=$(field p99_ns < /tmp/vic)
	max=$(field max_ns < /tmp/vic)
	printf '%-40s %9s %9s %10s %8s %8s %10s %8s\n' "$1" "$p50" "$p99" "$max" \
		"$(awk -v a="$p99" -v b="$q99" 'BEGIN { printf "%.2f", a / b }')" \
		"$(awk -v a="$p99" -v b="${c99:-$p99}" 'BEGIN { printf "%.2f", a / b }')" \
		"${calls:--}" "${refused:--}"
}

echo "== tenant b's CHARGE 2M + RELEASE round, $N rounds, beside tenant a's 8 processes x 16 registrations =="
printf '%-40s %9s %9s %10s %8s %8s %10s %8s\n' scenario p50_ns p99_ns max_ns p99/qt p99/ctl \
	a_calls a_refused
victim > /tmp/vic
q99=$(field p99_ns < /tmp/vic)
row "quiet (b alone)"
attack 0 > /dev/null
c99=$(field p99_ns < /tmp/vic)
row "control: a calls RELEASE 0 (O(1))"
attack 1T > /dev/null
row "a asks 1 TiB (no vram-max)"
vgpuctl tenant set a vram-max 1G >/dev/null
attack 1T > /dev/null
row "a asks 1 TiB (vram-max 1G)"
attack 512M > /dev/null
row "a asks 512M at its vram-max 1G"
vgpuctl tenant set a vram-max none >/dev/null
attack 15872M > /dev/null
row "a asks 15.5G, the GPU short (no vram-max)"
attack 0 > /dev/null
row "control again"
u=$(vgpuctl -j tenant show a | tr -d ' \n')
echo "a's usage on GPU 0: $(printf '%s\n' "$u" | grep -o '"vram_failures":[0-9]*\|"vram_scans":[0-9]*' | tr '\n' ' ')"
kill $bh 2>/dev/null
wait $bh 2>/dev/null
true
