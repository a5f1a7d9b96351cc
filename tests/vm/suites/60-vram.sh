#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 169
# vm-boot: shared
# Per-tenant VRAM limits, end to end: processes of two tenants in sibling
# cgroups allocate through libvgpu (preloaded) on simgpu, loading the driver
# the way NVIDIA's runtime does; the module holds limits and accounting.
suite=vram
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
G=1073741824
M=1048576
export LD_PRELOAD=/usr/lib/libvgpu.so

in_cg() { /tmp/in_cg "$@"; }

mkdir -p $cg/a $cg/b $cg/c $cg/outside
check_out "gpu probe registers simgpu's GPUs" "gpu 1" vgpuctl gpu probe
check "tenant a: 8G" vgpuctl tenant add a cgroup a vram-max 8G
check "tenant b: 4G" vgpuctl tenant add b cgroup b vram-max 4G

# --- a limit shared by all the processes of a tenant
bg_hold a /tmp/h1 vram-client alloc 5G , hold 600000 && h1=$!
check_eq "the tenant holds 5G" $((5 * G)) "$(usage a 0 vram_current)"
check_fails "a second process of a cannot take 4G more" "alloc 4G CUDA_ERROR_OUT_OF_MEMORY" \
	in_cg a vram-client alloc 4G
check_out "but can take 3G" "alloc 3G ok" in_cg a vram-client alloc 3G
check_out "tenant b is untouched: 4G" "alloc 4G ok" in_cg b vram-client alloc 4G
check_fails "and limited too" "alloc 1 CUDA_ERROR_OUT_OF_MEMORY" in_cg b vram-client alloc 4G , alloc 1
kill -9 $h1
wait $h1 2>/dev/null
check_eq "kill -9 gives the 5G back at once" 0 "$(usage a 0 vram_current)"
check_eq "and its budget" 0 "$(usage a 0 vram_budget)"

# --- the allocation that crosses the limit fails, the next that fits succeeds
f0=$(usage a 0 vram_failures)
out=$(in_cg a vram-client alloc 3G , alloc 3G , alloc 3G , alloc 2G , alloc 1 , info)
case $out in
*"alloc 3G ok"*"alloc 3G ok"*"alloc 3G CUDA_ERROR_OUT_OF_MEMORY"*"alloc 2G ok"*"alloc 1 CUDA_ERROR_OUT_OF_MEMORY"*"info free 0 total 8589934592 ok"*)
	pass "crossing fails, the next that fits succeeds, then nothing" ;;
*) fail "crossing fails, the next that fits succeeds, then nothing" "$out" ;;
esac
check_eq "failures are counted" $((f0 + 2)) "$(usage a 0 vram_failures)"
check_eq "peak is the limit" $((8 * G)) "$(usage a 0 vram_peak)"

# --- every allocation path is charged: each would succeed if it escaped
check "tenant c: 64M" vgpuctl tenant add c cgroup c vram-max 64M
for p in "alloc 48M" "pitch 4096 12288" "managed 48M" "async 48M" "frompool 48M" \
	 "vmm 48M" "array 2048 1536 0" "mipmap 2048 1536 1" "graphalloc 48M"; do
	name=${p%% *}
	bg_hold c /tmp/hp vram-client $p , hold 600000 && hp=$!
	cur=$(usage c 0 vram_current)
	check_eq "$name: charged exactly what the driver holds" "$(truth /c 0)" "$cur"
	check_eq "$name: 48M charged" $((48 * M)) "$cur"
	check_fails "$name: a second 48M by the same path is refused" "CUDA_ERROR_OUT_OF_MEMORY" \
		in_cg c vram-client $p
	kill -9 $hp
	wait $hp 2>/dev/null
	check_eq "$name: uncharged on exit" 0 "$(usage c 0 vram_current)"
	out=$(in_cg c vram-client $p , freeall , $p , freeall , $p , freeall)
	case $out in
	*CUDA_ERROR*) fail "$name: freeing uncharges (three rounds)" "$out" ;;
	*) pass "$name: freeing uncharges (three rounds)" ;;
	esac
done
# --- stream-ordered memory is charged on the stream's or the pool's device,
# not the current context's (issue 13, part 2)
out=$(in_cg c vram-client stream 0 , nocur , async 48M , async 48M , async 48M)
case $out in
*"async 48M ok"*"async 48M CUDA_ERROR_OUT_OF_MEMORY"*"async 48M CUDA_ERROR_OUT_OF_MEMORY"*)
	pass "cuMemAllocAsync without a current context: the second and third 48M refused" ;;
*) fail "cuMemAllocAsync without a current context: the second and third 48M refused" "$out" ;;
esac
bg_hold c /tmp/hs vram-client stream 0 , nocur , async 48M , hold 600000 && hs=$!
check_eq "no current context: charged what simgpu holds" "$(truth /c 0)" "$(usage c 0 vram_current)"
check_eq "no current context: 48M" $((48 * M)) "$(usage c 0 vram_current)"
kill -9 $hs
wait $hs 2>/dev/null
for p in "stream 1 , async 48M" "devpool 1 48M" "defpool 1 48M"; do
	bg_hold c /tmp/hs vram-client $p , hold 600000 && hs=$!
	check_eq "$p with GPU 0 current: charged on GPU 1" $((48 * M)) "$(usage c 1 vram_current)"
	check_eq "$p: as simgpu holds on GPU 1" "$(truth /c 1)" "$(usage c 1 vram_current)"
	check_eq "$p: nothing on GPU 0" 0 "$(usage c 0 vram_current)"
	kill -9 $hs
	wait $hs 2>/dev/null
	out=$(in_cg c vram-client $p , freeall , hold 1 , $p , freeall , $p , freeall)
	case $out in
	*CUDA_ERROR*) fail "$p: freeing uncharges GPU 1 (three rounds)" "$out" ;;
	*) pass "$p: freeing uncharges GPU 1 (three rounds)" ;;
	esac
done
bg_hold c /tmp/hs vram-client hostpool 48M , hostpool 48M , hold 600000 && hs=$!
case $(cat /tmp/hs) in
*"hostpool 48M ok"*"hostpool 48M ok"*) pass "a host pool's memory is not VRAM: 2 x 48M under 64M" ;;
*) fail "a host pool's memory is not VRAM: 2 x 48M under 64M" "$(cat /tmp/hs)" ;;
esac
check_eq "host pool: nothing charged on GPU 0" 0 "$(usage c 0 vram_current)"
check_eq "host pool: nothing charged on GPU 1" 0 "$(usage c 1 vram_current)"
check_eq "host pool: simgpu holds nothing either" 0 "$(truth /c 0)"
kill -9 $hs
wait $hs 2>/dev/null
check_eq "mipmap levels are summed" "allocated" \
	"$(in_cg c vram-client mipmap 1024 1024 2 , hold 1 >/dev/null && echo allocated)"
out=$(in_cg c env SIMGPU_CTX_VRAM=32M vram-client ctx , ctx)
case $out in
*"ctx ok"*"ctx CUDA_ERROR_OUT_OF_MEMORY"*) pass "context creation is charged what it takes" ;;
*) fail "context creation is charged what it takes" "$out" ;;
esac
check_out "host allocations are not charged" "alloc 48M ok" in_cg c vram-client alloc 48M

# --- vram-min is guaranteed against a greedy neighbour
check "tenant b reserves 6G" vgpuctl tenant set b vram-min 6G vram-max 6G
check "tenant a may take anything" vgpuctl tenant set a vram-max none
bg_hold a /tmp/greedy vram-client fill 1G , hold 600000 && greedy=$!
check_out "the greedy tenant stops at capacity less the reservation" "fill 10 x 1073741824" cat /tmp/greedy
check_out "the reserved 6G are there for b" "alloc 6G ok" in_cg b vram-client alloc 6G
kill -9 $greedy
wait $greedy 2>/dev/null

# --- views inside a tenant: total = limit, used = the tenant's usage
vgpuctl tenant set a vram-max 8G >/dev/null
bg_hold a /tmp/h2 vram-client alloc 2G , hold 600000 && h2=$!
bg_hold b /tmp/h3 vram-client alloc 1G , hold 600000 && h3=$!
check_out "cuMemGetInfo" "info free $((6 * G)) total $((8 * G))" in_cg a vram-client info
check_out "cuDeviceTotalMem" "total $((8 * G))" in_cg a vram-client total
check_out "nvmlDeviceGetMemoryInfo and _v2" \
	"nvml total $((8 * G)) used $((2 * G)) free $((6 * G)) v2 total $((8 * G)) used $((2 * G)) free $((6 * G))" \
	in_cg a vram-client nvml
out=$(in_cg a vram-client nvml)
# The pids as a list, matched whole: a pid matched as a substring of the
# output was found in a byte count (8589934592) and failed the check.
pids=",$(printf '%s\n' "$out" | sed -n 's/.*pids \([0-9,]*\).*/\1/p'),"
case $pids in
*",$h2,"*) case $pids in *",$h3,"*) fail "nvml lists only the tenant's processes" "$out" ;;
	   *) pass "nvml lists only the tenant's processes" ;; esac ;;
*) fail "nvml lists only the tenant's processes" "$out" ;;
esac
j=$(vgpuctl -j ps | tr -d ' \n')
case $j in
*"{\"pid\":$h2,\"tenant\":\"a\",\"gpu\":0,\"vram\":$((2 * G)),"*) pass "ps shows pid, tenant, gpu, bytes" ;;
*) fail "ps shows pid, tenant, gpu, bytes" "$j" ;;
esac
check_out "ps plain" "$h3" vgpuctl ps
kill -9 $h2 $h3
wait $h2 $h3 2>/dev/null

# --- the host default for processes outside every tenant
check_out "outside every tenant, allowed by default" "alloc 1G ok" in_cg outside vram-client alloc 1G
check "set default deny" vgpuctl set default deny
check_out "show says deny" "default deny" vgpuctl show
check_fails "outside every tenant, denied" "init CUDA_ERROR_NO_DEVICE" \
	in_cg outside vram-client alloc 1G
check "set default allow" vgpuctl set default allow

# --- fork: a child that uses CUDA registers itself; exec ends a registration
bg_hold a /tmp/f vram-client alloc 1G , fork , alloc 512M , hold 600000 && fp=$!
child=$(sed -n 's/^fork child \([0-9]*\) ok$/\1/p' /tmp/f)
j=$(vgpuctl -j ps | tr -d ' \n')
case $j in
*"{\"pid\":$fp,\"tenant\":\"a\",\"gpu\":0,\"vram\":$G,"*"{\"pid\":$child,\"tenant\":\"a\",\"gpu\":0,\"vram\":$((512 * M)),"*)
	pass "a forked child registers itself and is charged apart" ;;
*) fail "a forked child registers itself and is charged apart" "parent $fp child $child: $j" ;;
esac
kill -9 $child
# until the child has exited (a zombie of the parent, which does not reap
# it, or gone): its files, and so its registration, are closed by then
await "the killed child exits" 300 exited $child
check_eq "the child's death leaves the parent's charge" $G "$(usage a 0 vram_current)"
kill -9 $fp
wait $fp 2>/dev/null
bg_hold a /tmp/e vram-client alloc 1G , exec sh -c "echo holding; sleep 600" && ep=$!
check_eq "exec ends the registration and its charges" 0 "$(usage a 0 vram_current)"
kill $ep
wait $ep 2>/dev/null
check_out "the module sees no process left" "procs 0" vgpuctl show

# --- 500 kill -9 at random points while allocating leave nothing charged
i=0
while [ $i -lt 100 ]; do
	for k in 1 2 3 4 5; do
		/tmp/in_cg a vram-client stress 2 5 64M >/dev/null 2>&1 &
		eval "p$k=\$!"
	done
	sleep 0.$((RANDOM % 9 + 1)) 2>/dev/null || usleep $((i % 7 * 50000 + 20000))
	kill -9 $p1 $p2 $p3 $p4 $p5 2>/dev/null
	wait 2>/dev/null
	i=$((i + 1))
done
sleep 0.5
check_eq "500 kill -9 rounds leave zero bytes charged" 0 "$(usage a 0 vram_current)"
check_eq "and zero budget" 0 "$(usage a 0 vram_budget)"
check_eq "simgpu agrees" 0 "$(truth /a 0)"

# --- 16 threads x 4 processes of random alloc/free for 30 s
for k in 1 2 3 4; do
	bg_hold a /tmp/s$k vram-client stress 16 30 16M , hold 600000 &
done
wait
sleep 0.2
check_eq "after the stress the kernel's count equals simgpu's ground truth" \
	"$(truth /a 0)" "$(usage a 0 vram_current)"
check_eq "libvgpu's pages were never taken for overdrawn" 0 "$(usage a 0 vram_overdrafts)"
killall -9 vram-client
suite_end
