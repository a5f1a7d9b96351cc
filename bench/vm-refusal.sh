#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A tenant's charges beside another tenant's refused ones (issue 33,
# item 3), inside the VM (run by bench/run): tenant b's CHARGE+RELEASE
# round (vgpu-devtest bench-charge, pinned to CPU 0) alone, then beside
# tenant a's 8 unprivileged processes x 16 registrations (pinned to CPUs
# 1-3) that charge in a loop: an O(1) call (the control: the same
# processes, CPUs and lock, no refusal); 1 TiB, without and with a
# vram-max (refused); 512M at a vram-max of 1G (each fits only once the
# budget a sibling registration was given comes back: a look through a's
# 128 registrations every time); 15.5G on a GPU b fills (refused after a
# look through every registration); then the same processes reading in a
# loop what a tenant may read of itself, each read summing or listing
# every one of a's registrations: VGPU_IOC_MEMINFO, tenant-get, proc-get
# (vgpu-devtest hammer-read). Every row is from the same boot;
# compare it with the quiet and control rows. The VM is emulated (TCG, 4 vCPUs on the host's CPUs):
# absolute figures are slow and noisy: each scenario runs R times (3),
# the scenarios interleaved, and the medians are printed. KEYS (say
# "meminfo tenant_get") runs only those scenarios beside quiet and control.
# vm-debug: off
. /tests/suite-lib.sh	# /tmp/in_cg
cg=/sys/fs/cgroup
N=${N:-20000}
R=${R:-3}
KEYS=${KEYS:-}
P=${P:-8}	# a's processes (16 registrations each)
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

# attack BYTES: P processes of a (8), as nobody, on CPUs 1-3, 16 registrations
# each, charging BYTES in a loop (0: the O(1) control; meminfo, tenant-get
# or proc-get: that read instead); the victim runs once all have
# registered; then they stop and their calls are summed.
attack() {
	local i n pids jobs= cmd="hammer 0 $1 16 0"
	case $1 in
	meminfo|tenant-get|proc-get) cmd="hammer-read 0 $1 16 0" ;;
	esac
	rm -f /tmp/att.*
	for i in $(seq 1 "$P"); do
		: > /tmp/att.$i
		/tmp/in_cg a taskset -c 1-3 su -s /bin/sh nobody -c \
			"exec vgpu-devtest $cmd" >> /tmp/att.$i 2>&1 &
		jobs="$jobs $!"
	done
	for i in $(seq 1 600); do
		n=$(cat /tmp/att.* | grep -c '^hammering')
		[ "$n" -ge "$P" ] && break
		sleep 0.1
	done
	if [ "$n" -lt "$P" ]; then
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

# A scenario: KEY, its vram-max for a, what a's processes ask (- for
# none: b alone), its name.
scenarios="quiet none - b_alone
control none 0 control:_a_calls_RELEASE_0_(O(1))
t1 none 1T a_asks_1_TiB_(no_vram-max)
t1max 1G 1T a_asks_1_TiB_(vram-max_1G)
at_max 1G 512M a_asks_512M_at_its_vram-max_1G
gpu none 15872M a_asks_15.5G,_the_GPU_short
meminfo none meminfo a_reads_MEMINFO
tenant_get none tenant-get a_reads_tenant-get
proc_get none proc-get a_reads_proc-get"
if [ -n "$KEYS" ]; then
	scenarios=$(printf '%s\n' "$scenarios" | while read -r key rest; do
		case " quiet control $KEYS " in *" $key "*) echo "$key $rest" ;; esac
	done)
fi

# one SCENARIO LINE: run it, append "p50 p99 max calls refused" to /tmp/r.KEY
one() {
	set -- $1
	vgpuctl tenant set a vram-max $2 >/dev/null
	if [ "$3" = - ]; then
		victim > /tmp/vic
		calls=- refused=-
	else
		attack "$3" > /dev/null
	fi
	echo "$(field p50_ns < /tmp/vic) $(field p99_ns < /tmp/vic) $(field max_ns < /tmp/vic)" \
		"$calls $refused" >> /tmp/r.$1
}

# med FILE COLUMN: the median of a column
med() { awk -v c="$2" '{ print $c }' "$1" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

echo "== tenant b's CHARGE 2M + RELEASE round ($N rounds a run), alone and beside tenant a's $P processes x 16 registrations; $R runs of each, interleaved; medians =="
rm -f /tmp/r.*
r=0
while [ $r -lt "$R" ]; do
	printf '%s\n' "$scenarios" | while read -r line; do one "$line"; done
	r=$((r + 1))
done
q99=$(med /tmp/r.quiet 2)
c99=$(med /tmp/r.control 2)
printf '%-36s %8s %8s %9s %7s %7s %9s  %s\n' scenario p50_ns p99_ns max_ns p99/qt p99/ctl \
	a_calls "p99_ns of each run"
printf '%s\n' "$scenarios" | while read -r key lim ask name; do
	f=/tmp/r.$key
	p99=$(med $f 2)
	printf '%-36s %8s %8s %9s %7s %7s %9s  %s\n' "$(echo "$name" | tr _ ' ')" \
		"$(med $f 1)" "$p99" "$(med $f 3)" \
		"$(awk -v a="$p99" -v b="$q99" 'BEGIN { printf "%.2f", a / b }')" \
		"$(awk -v a="$p99" -v b="$c99" 'BEGIN { printf "%.2f", a / b }')" \
		"$(med $f 4)" "$(awk '{ printf "%s ", $2 }' $f)"
done
vgpuctl tenant set a vram-max none >/dev/null
u=$(vgpuctl -j tenant show a | tr -d ' \n')
echo "a's usage on GPU 0 after all runs: $(printf '%s\n' "$u" | grep -o '"vram_failures":[0-9]*\|"vram_scans":[0-9]*' | tr '\n' ' ')"
kill $bh 2>/dev/null
wait $bh 2>/dev/null
true
