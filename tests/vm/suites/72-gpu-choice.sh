#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 42
# vm-boot: shared
# Automatic GPU choice (gpus auto N) by the host's gpu-policy, and GPU
# health (issue #18 parts 2 and 3): the choices of a sequence of tenants
# under binpack and under spread against the tables below, NUMA and NVLink
# preference, reservations never oversubscribed, draining and unhealthy
# GPUs getting no new tenant, the events and what gpu show says.
# The VM has 2 NUMA nodes. Inventory: 4 GPUs of 16 GiB, 0-1 on node 0 and
# 2-3 on node 1; NVLink pairs 0-2 and 1-3 (across the nodes, so that an
# NVLink choice differs from the lowest indexes).
suite=gpu-choice
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
for g in 0 1 2 3; do
	vgpuctl gpu add $g vram 16G numa $((g / 2)) >/dev/null
done

# chosen NAME: the tenant's gpus as vgpuctl -j prints them ("1,3"), or "-"
chosen() {
	v=$(vgpuctl -j tenant show "$1" | tr -d ' \n' | sed -n 's/.*"gpus":\[\([0-9,]*\)\].*/\1/p')
	echo "${v:--}"
}
# gpu_json N: gpu show N as one line of JSON
gpu_json() { vgpuctl -j gpu show "$1" | tr -d '\n' | sed 's/  */ /g; s/" /"/g; s/ "/"/g'; }

# add_expect WHAT NAME WANT ARGS...: add tenant NAME (its own cgroup) with
# ARGS and check the GPUs chosen for it
add_expect() {
	what=$1 name=$2 want=$3
	shift 3
	mkdir -p $cg/"$name"
	if out=$(vgpuctl tenant add "$name" cgroup "$name" "$@" 2>&1); then
		check_eq "$what: $name gets GPUs $want" "$want" "$(chosen "$name")"
	else
		fail "$what: $name gets GPUs $want" "tenant add failed: $out"
	fi
}

# no_oversubscription WHAT NAME:VRAM_MIN_GIB...: the vram-min of the named
# tenants, summed over the GPUs each was actually given, fits every GPU.
no_oversubscription() {
	what=$1
	shift
	sums="0 0 0 0"
	for nm in "$@"; do
		n=${nm%%:*} gib=${nm#*:}
		for g in $(chosen "$n" | tr ',' ' '); do
			sums=$(echo "$sums" | awk -v g="$g" -v m="$gib" '{ $(g + 1) += m; print }')
		done
	done
	over=$(echo "$sums" | awk '{ for (i = 1; i <= NF; i++) if ($i > 16) print i - 1 }')
	check_eq "$what: no GPU has more vram-min than its 16 GiB (sums $sums)" "" "$over"
}

# --- the topology: NVLink set by the admin, kept symmetric ---
check "gpu 0 NVLinked to 2" vgpuctl gpu set 0 nvlink 2
check "gpu 1 NVLinked to 3" vgpuctl gpu set 1 nvlink 3
check_out "gpu show 2 has the link back to 0" '"nvlink":[0]' gpu_json 2
check_out "gpu show 3 has the link back to 1" '"nvlink":[1]' gpu_json 3
check_out "a GPU starts healthy" '"state":"healthy","reason":null' gpu_json 0
check_fails "nvlink to itself is refused" "Error: nvlink names the GPU itself." \
	vgpuctl gpu set 0 nvlink 0,2
check_fails "nvlink to an unknown GPU is refused" "Error: nvlink names an unknown GPU." \
	vgpuctl gpu set 0 nvlink 2,9
check_out "refused requests changed nothing" '"nvlink":[2]' gpu_json 0
vgpuctl gpu add 5 vram 1G >/dev/null
vgpuctl gpu set 5 nvlink 0,2 >/dev/null
check_out "a link added from the other end" '"nvlink":[2,5]' gpu_json 0
vgpuctl gpu del 5 >/dev/null
check_out "a deleted GPU's links go with it" '"nvlink":[2]' gpu_json 0
check_out "gpu-policy is binpack by default" "gpu-policy binpack" vgpuctl show

# --- binpack: the least free room that fits first (then the most weight,
# then the lowest index). Room = 16 GiB - the vram-min of the tenants there.
#   tenant  asks                     rooms before (0 1 2 3)  gets  why
#   b1      1, vram-min 10G          16 16 16 16             0     tie: lowest index
#   b2      1, vram-min 4G            6 16 16 16             0     least room that fits
#   b3      1, vram-min 4G            2 16 16 16             1     0 has no room; tie
#   b4      2, vram-min 8G            2 12 16 16             1,3   1 first, 3 its NVLink peer
#   b5      1, no vram-min            2  4 16  8             0     least room
#   b6      2, vram-min 6G, mems 1    2  4 16  8             2,3   node 1's GPUs, unlinked
#   b7      1, vram-min 12G           2  4 10  2             -     refused: no room
add_expect binpack b1 0 gpus auto 1 vram-min 10G
add_expect binpack b2 0 gpus auto 1 vram-min 4G
add_expect binpack b3 1 gpus auto 1 vram-min 4G
add_expect binpack b4 1,3 gpus auto 2 vram-min 8G
add_expect binpack b5 0 gpus auto 1
add_expect binpack b6 2,3 gpus auto 2 vram-min 6G mems 1
mkdir -p $cg/b7 $cg/b8 $cg/x
check_fails "binpack: b7 (vram-min 12G) is refused, nothing has room" \
	"Error: gpus-auto: too few healthy GPUs have room for the tenant's vram-min." \
	vgpuctl tenant add b7 cgroup b7 gpus auto 1 vram-min 12G
check_fails "more GPUs than the inventory are refused" \
	"Error: gpus-auto asks for more GPUs than the inventory has healthy." \
	vgpuctl tenant add b8 cgroup b8 gpus auto 5
check_fails "refused tenants were not created" "Error: unknown tenant." vgpuctl tenant show b7
no_oversubscription binpack b1:10 b2:4 b3:4 b4:8 b5:0 b6:6
check_out "tenant show gives the choice and the count" "gpus-auto 2" vgpuctl tenant show b4
check_out "json too" '"gpus":[1,3],"gpus_auto":2,' sh -c "vgpuctl -j tenant show b4 | tr -d ' \n'"
check_fails "a vram-min the choice cannot hold is refused" \
	"Error: sum of vram-min of tenants not preemptible exceeds a GPU's vram." vgpuctl tenant set b3 vram-min 13G
check_eq "and the choice stays" 1 "$(chosen b3)"
check "the admin names b5's GPUs" vgpuctl tenant set b5 gpus 2
check_eq "b5 has the named GPU" 2 "$(chosen b5)"
check_eq "and is no longer an automatic choice" 0 \
	"$(vgpuctl -j tenant show b5 | grep -c gpus_auto)"
check "asking again re-chooses" vgpuctl tenant set b5 gpus auto 1
check_eq "b5 is back on the fullest GPU" 0 "$(chosen b5)"
# raw netlink: attribute numbers (uapi/vgpu.h) tenant name 1, cgroup 3,
# gpus 7, clear 13, gpus-auto 28; quota bit gpus 4
check_errno "gpus and gpus-auto together are refused" 22 "give gpus or gpus-auto, not both" \
	tenant-new str:1=x str:3=/x u64:7=1 u32:28=1
check_errno "clearing gpus while asking gpus-auto is refused" 22 "a quota is both set and cleared" \
	tenant-set str:1=b5 u32:13=4 u32:28=1
check_errno "gpus-auto 0 is refused by the policy" 34 "" tenant-new str:1=x str:3=/x u32:28=0
for t in b1 b2 b3 b4 b5 b6; do vgpuctl tenant del $t >/dev/null; done

# --- spread: the most free room first (then the least weight, then the
# lowest index), with gpu 1 draining for s2 and s3.
#   tenant  asks                     rooms before (0 1 2 3)  gets  why
#   s1      1, vram-min 4G           16 16 16 16             0     tie: lowest index
#   (gpu 1 draining)
#   s2      1, vram-min 4G           12 -- 16 16             2     most room, 1 skipped
#   s3      1, vram-min 4G           12 -- 12 16             3
#   (gpu 1 healthy again)
#   s4      1, vram-min 4G           12 16 12 12             1
#   s5      2, vram-min 2G           12 12 12 12             0,2   tie; 0 and its peer 2
#   s6      2, vram-min 2G           10 12 10 12             1,3   most room, NVLinked
#   s7      1, mems 1                10 10 10 10             2     node 1 first; tie
check "gpu-policy spread" vgpuctl set gpu-policy spread
check_out "show says spread" "gpu-policy spread" vgpuctl show
add_expect spread s1 0 gpus auto 1 vram-min 4G

vgpuctl -j monitor > /tmp/mon.json 2>&1 &
mon=$!
monitor_ready $mon
check "gpu 1 set draining with a reason" vgpuctl gpu set 1 state draining reason "fan failure"
check_out "gpu show says why" '"state":"draining","reason":"fan failure"' gpu_json 1
check_out "plain gpu show too" "state draining reason" vgpuctl gpu show 1
add_expect "spread, gpu 1 draining" s2 2 gpus auto 1 vram-min 4G
add_expect "spread, gpu 1 draining" s3 3 gpus auto 1 vram-min 4G
check_fails "a gpus list adding the draining GPU is refused" \
	"Error: gpus names a GPU that is not healthy (gpu show says why)." \
	vgpuctl tenant add x cgroup x gpus 1
check_fails "gpus auto 4 with one GPU draining is refused" \
	"Error: gpus-auto asks for more GPUs than the inventory has healthy." \
	vgpuctl tenant add x cgroup x gpus auto 4
check "gpu 1 unhealthy" vgpuctl gpu set 1 state unhealthy reason "XID 79"
check_out "the new state replaces the reason" '"state":"unhealthy","reason":"XID 79"' gpu_json 1
# raw netlink: gpu index 1, state 8 (0 healthy), state-reason 9
check_errno "a healthy GPU has no reason" 22 "a healthy GPU has no state-reason" \
	gpu-set u32:1=1 u32:8=0 str:9=fine
check "gpu 1 healthy again" vgpuctl gpu set 1 state healthy
check_out "and its reason is gone" '"state":"healthy","reason":null' gpu_json 1
# until the monitor has printed the third change
await "the monitor prints 3 gpu-change events" 300 lines_at_least /tmp/mon.json gpu-change 3
kill $mon
wait $mon 2>/dev/null
m=$(tr -d ' ' < /tmp/mon.json)
for ev in '"event":"gpu-change","gpu":{"index":1' '"state":"draining","reason":"fanfailure"' \
	  '"state":"healthy","reason":null'; do
	case $m in *"$ev"*) pass "monitor shows $ev" ;; *) fail "monitor shows $ev" "$m" ;; esac
done
check_eq "3 gpu-change events, one per change" 3 "$(grep -c '"gpu-change"' /tmp/mon.json)"
# s1 and s3 are not on gpu 1: only tenants that may use it hear of it
check_eq "no tenant on gpu 1 yet: no tenant-change" 0 "$(grep -c '"tenant-change"' /tmp/mon.json)"

add_expect "spread, gpu 1 healthy" s4 1 gpus auto 1 vram-min 4G
add_expect spread s5 0,2 gpus auto 2 vram-min 2G
add_expect spread s6 1,3 gpus auto 2 vram-min 2G
add_expect "spread, NUMA" s7 2 gpus auto 1 mems 1
no_oversubscription spread s1:4 s2:4 s3:4 s4:4 s5:2 s6:2 s7:0

# --- a tenant on a GPU whose state changes hears of it; it stays there ---
vgpuctl -j monitor > /tmp/mon2.json 2>&1 &
mon=$!
monitor_ready $mon
vgpuctl gpu set 3 state draining reason "maintenance" >/dev/null
# until it has printed the GPU's change and the events of both its tenants
await "the monitor prints 3 events" 300 lines_at_least /tmp/mon2.json event 3
kill $mon
wait $mon 2>/dev/null
m=$(tr -d ' ' < /tmp/mon2.json)
for t in s3 s6; do
	case $m in
	*"\"event\":\"tenant-change\",\"tenant\":{\"name\":\"$t\""*) pass "tenant $t on gpu 3 sees an event" ;;
	*) fail "tenant $t on gpu 3 sees an event" "$m" ;;
	esac
done
check_eq "tenants elsewhere see none" 0 "$(grep -c '"name":"s[12457]"' /tmp/mon2.json)"
check_eq "s3 stays on the draining GPU" 3 "$(chosen s3)"
check "its tenants' other quotas can still change" vgpuctl tenant set s3 weight 50
# Rooms are all 10 GiB; weights placed: 0: 200, 1: 200, 2: 300, 3: 150 (s3
# now 50). Spread would take 3, the least weight; draining, it is skipped.
add_expect "spread, gpu 3 draining" s8 0 gpus auto 1 vram-min 1G

# --- gpu probe: NVLink peers and health from NVML (simgpu's topology) ---
# simgpu's GPUs alternate nodes (0 and 2 on node 0, 1 and 3 on node 1);
# NVLinks 0-2 and 1-3; GPU 3's row remapper reports a failure.
for t in s1 s2 s3 s4 s5 s6 s7 s8; do vgpuctl tenant del $t >/dev/null; done
for g in 0 1 2 3; do vgpuctl gpu del $g >/dev/null; done
cat > /tmp/topo.conf <<'EOC'
gpus = 4
gpu0.nvlink = 2
gpu1.nvlink = 3:2
gpu3.row_remap_failure = on
EOC
check_out "probe reports the failed row remapping" \
	"state unhealthy reason NVML: a row remapping failed (nvmlDeviceGetRemappedRows)" \
	env SIMGPU_CONFIG=/tmp/topo.conf vgpuctl gpu probe
check_out "probe set gpu 0's NVLink peer" '"nvlink":[2],"state":"healthy"' gpu_json 0
check_out "and gpu 1's" '"nvlink":[3],"state":"healthy"' gpu_json 1
check_out "gpu show says why gpu 3 is unhealthy" \
	'"nvlink":[1],"state":"unhealthy","reason":"NVML: a row remapping failed (nvmlDeviceGetRemappedRows)"' \
	gpu_json 3
check_out "a second probe changes nothing, and says why gpu 3 is unhealthy" \
	"gpu 3 already present state unhealthy reason NVML: a row remapping failed" \
	env SIMGPU_CONFIG=/tmp/topo.conf vgpuctl gpu probe
check_out "gpu 3 stays unhealthy" '"state":"unhealthy"' gpu_json 3
check "gpu-policy binpack" vgpuctl set gpu-policy binpack
#   tenant  asks                 rooms before (0 1 2 3)  gets  why
#   p1      2, vram-min 10G      16 16 16 --             0,2   tie; 0 and its probed peer 2
#   p2      2, vram-min 10G       6 16  6 --             -     only 1 has room, 3 unhealthy
add_expect "probed topology" p1 0,2 gpus auto 2 vram-min 10G
mkdir -p $cg/p2
check_fails "probed topology: p2 is refused, the unhealthy GPU is not counted" \
	"Error: gpus-auto: too few healthy GPUs have room for the tenant's vram-min." \
	vgpuctl tenant add p2 cgroup p2 gpus auto 2 vram-min 10G
suite_end
