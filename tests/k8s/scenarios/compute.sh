#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-timing: yes
# tests/k8s/run tests/k8s/scenarios/compute.sh: compute shares under
# contention, in pods. Two pods claiming 30 % and 70 % of the GPU's time
# keep it busy with 2 ms kernels through libvgpu: over 10 s each gets its
# claim's share of the engine's time within 2 points, the tolerance of
# the compute suite (tests/vm/suites/80-compute.sh), and the GPU stays
# busy. A pod whose claim asks for a cap (computeCap) alone on the GPU
# gets its claimed 40 % and no more, within the same 2 points.
# The ground truth is simgpu's engine (simgpu-stat): the device time each
# pod's cgroups ran.
set -eu
scenario=compute
# shellcheck source=tests/k8s/node/scenario-lib.sh
. "$VGPU_K8S_LIB"

# load NAME COMPUTE [CONFIG]: a pod claiming 1Gi and COMPUTE percent that
# keeps the GPU busy with 2 ms kernels on 2 streams, as 80-compute's load
# does.
load() {
	claim_pod "$1" 1Gi "$2" "${3:-}" \
		'["simgpu-client", "launch", "2000000", "count", "1000000000", "streams", "2"]'
}

# ready POD...: the pods run (or the test stops: nothing can be measured),
# and uid_POD is each one's UID (busy).
ready() {
	runs "pods $* run" "$@" || exit 1
	for p in "$@"; do
		eval "uid_$p=$(pod_uid "$p")"
	done
}

# snap: one simgpu-stat snapshot in /tmp/snap.
snap() { simgpu-stat >/tmp/snap; }
# gpu_field N: field N of GPU 0's line (8 busy_ns, 14 now_ns).
gpu_field() { awk -v f="$1" '$1 == "gpu" && $2 == 0 { print $f }' /tmp/snap; }
# busy POD: device ns the pod's processes ran on GPU 0 (last snapshot):
# simgpu's engine time of the cgroups below the pod's (pod<UID>: the
# kubelet's cgroupfs driver; simgpu knows a process in a container by its
# host cgroup, as NVIDIA's driver does).
busy() {
	local pod
	eval "pod=pod\${uid_$1:?}"
	awk -v pod="$pod" '$1 == "cgroup" && $4 == 0 && index($2, pod) { s += $8 } END { print s + 0 }' /tmp/snap
}

# measure SECONDS POD...: share_POD (per mille of the engine time the
# pods got), util_POD (per mille of the wall time) and util_all (per
# mille of the wall time the engine was busy), over SECONDS of simgpu's
# clock.
measure() {
	local secs=$1 p t0 t1 g0 g1 total=0
	shift
	snap
	t0=$(gpu_field 14) g0=$(gpu_field 8)
	for p in "$@"; do eval "b0_$p=$(busy "$p")"; done
	sleep "$secs"
	snap
	t1=$(gpu_field 14) g1=$(gpu_field 8)
	for p in "$@"; do
		eval "d_$p=\$(( \$(busy $p) - b0_$p ))"
		eval "total=\$((total + d_$p))"
	done
	for p in "$@"; do
		eval "share_$p=\$(( d_$p * 1000 / (total > 0 ? total : 1) ))"
		eval "util_$p=\$(( d_$p * 1000 / (t1 - t0) ))"
	done
	util_all=$(((g1 - g0) * 1000 / (t1 - t0)))
}

# pm N: per mille as a percentage with one decimal.
pm() { echo "$(($1 / 10)).$(($1 % 10))%"; }
# within WHAT GOT WANT TOL (per mille)
within() {
	local d=$(($2 - $3))
	[ $d -lt 0 ] && d=$((-d))
	if [ $d -le "$4" ]; then
		ok "$1: $(pm "$2") (want $(pm "$3") +- $(pm "$4"))"
	else
		bad "$1: got $(pm "$2"), want $(pm "$3") +- $(pm "$4")"
	fi
}

# Both pods' processes have started launching: simgpu has seen each.
started() {
	snap
	for p in "$@"; do [ "$(busy "$p")" -gt 0 ] || return 1; done
}
wait_started() {
	local i=0
	while [ $i -lt 60 ] && ! started "$@"; do
		sleep 1
		i=$((i + 1))
	done
	started "$@" || { bad "pods $*: no kernel ran in 60 s"; simgpu-stat; exit 1; }
}

{ load p30 30; load p70 70; } | kubectl apply -f -
ready p30 p70
vgpuctl tenant list
wait_started p30 p70
sleep 2
measure 10 p30 p70
echo "p30 ${d_p30} ns, p70 ${d_p70} ns, engine busy $(pm "$util_all")"
within "pods claiming 30 % and 70 % under contention, 10 s: the 30 % pod" "$share_p30" 300 20
within "pods claiming 30 % and 70 % under contention, 10 s: the 70 % pod" "$share_p70" 700 20
# Work conservation, as 80-compute asks: hand-overs cost little.
if [ "$util_all" -ge 850 ]; then
	ok "the GPU stays busy under the two pods: $(pm "$util_all") (want >= 85.0%)"
else
	bad "the GPU is busy $(pm "$util_all") under the two pods, want >= 85.0%"
fi
kubectl delete pod p30 p70 --wait=true --timeout=120s

# A capped claim alone: compute-max is its claim. Each period the capped
# tenant stops and starts again, which under emulation costs about 2 ms
# of idle device time a time; 80-compute therefore measures the cap with
# 500 ms periods, and so does this (whole periods, aligned as the
# module's are, from a fifth of a period before one starts).
period=$(cat /sys/module/vgpu/parameters/period_us)
echo 500000 >/sys/module/vgpu/parameters/period_us
load cap40 40 '{"apiVersion": "gpu.vgpu.io/v1alpha1", "kind": "GpuConfig", "computeCap": true}' |
	kubectl apply -f -
ready cap40
vgpuctl tenant list
wait_started cap40
sleep 2
p=500000000
snap
t=$((($(gpu_field 14) / p + 1) * p - p / 5))
sleep_until() {
	snap
	ms=$((($1 - $(gpu_field 14)) / 1000000))
	[ "$ms" -le 0 ] || sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
}
sleep_until "$t"
snap
t0=$(gpu_field 14) b0=$(busy cap40)
sleep_until $((t + 20 * p))
snap
util_cap=$((($(busy cap40) - b0) * 1000 / ($(gpu_field 14) - t0)))
within "a pod claiming 40 % with computeCap, alone, 10 s of 500 ms periods" "$util_cap" 400 20
echo "$period" >/sys/module/vgpu/parameters/period_us
kubectl delete pod cap40 --wait=true --timeout=120s
[ "$fails" = 0 ]
