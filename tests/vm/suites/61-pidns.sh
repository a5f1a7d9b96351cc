#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 10
# vm-boot: shared
# Containers with their own pid namespace (issue 13, part 6): NVML (simgpu,
# like NVIDIA's) names processes by their host pid, so libvgpu must learn
# its host pid from the module to measure its contexts, and must translate
# NVML's process lists into the container's pids. And with their own
# cgroup namespace: the driver knows a process by its host cgroup.
suite=pidns
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
M=1048576
export LD_PRELOAD=/usr/lib/libvgpu.so
# Contexts take VRAM, so that one charged 0 shows.
export SIMGPU_CTX_VRAM=32M

# simgpu's stand-in for the driver's view of host pids (tests/simgpu/pidd.c).
simgpu-pidd > /tmp/pidd.log 2>&1 &
pidd=$!
for i in $(seq 1 100); do
	[ -S /dev/shm/simgpu-pidd.sock ] && break
	sleep 0.1
done

# The container: a shell as pid 1 of a new pid namespace with its own /proc,
# which starts a holder (48M and a context), lists NVML's processes (the
# lister has a context too), and waits for the holder.
cat > /tmp/container <<'EOS'
#!/bin/sh
vram-client alloc 48M , hold 600000 > /tmp/ns-hold 2>&1 &
h=$!
for i in $(seq 1 600); do
	grep -q '^holding' /tmp/ns-hold && break
	sleep 0.1
done
vram-client nvml > /tmp/ns-nvml 2>&1 &
l=$!
wait $l
echo "self $$ holder $h lister $l"
cat /tmp/ns-nvml
echo listed
wait $h
EOS
chmod +x /tmp/container

# ns_host_pid INNER: host pid of the only process whose NSpid ends in INNER
# (one level below the host).
ns_host_pid() {
	grep -l "^NSpid:[[:space:]]*[0-9][0-9]*[[:space:]][[:space:]]*$1\$" \
		/proc/[0-9]*/status 2>/dev/null |
		head -n 1 | cut -d/ -f3
}

mkdir -p $cg/a $cg/b
check_out "gpu probe registers simgpu's GPUs" "gpu 1" vgpuctl gpu probe
check "tenant a: 256M" vgpuctl tenant add a cgroup a vram-max 256M
check "tenant b" vgpuctl tenant add b cgroup b vram-max 256M
check "simgpu-pidd answers" test -S /dev/shm/simgpu-pidd.sock

# --- a process exiting normally inside a namespace: charged, then zero
out=$(/tmp/in_cg a unshare --pid --fork --mount-proc vram-client alloc 48M , alloc 48M , alloc 48M , info)
check_eq "three allocations in a namespace" 3 "$(printf '%s\n' "$out" | grep -c 'alloc 48M ok')"
check_eq "exit gives everything back" 0 "$(usage a 0 vram_current)"
check_eq "and simgpu holds nothing for a" 0 "$(truth /a 0)"

# --- a holder in a namespace, a holder of the same tenant on the host, and
# one of another tenant
bg_hold a /tmp/host-a vram-client alloc 16M , hold 600000 && ha=$!
bg_hold b /tmp/host-b vram-client alloc 16M , hold 600000 && hb=$!
/tmp/in_cg a unshare --pid --fork --mount-proc /tmp/container > /tmp/ns-out 2>&1 &
for i in $(seq 1 600); do
	grep -q '^listed' /tmp/ns-out && break
	sleep 0.1
done
inner=$(sed -n 's/^self 1 holder \([0-9]*\) .*/\1/p' /tmp/ns-out)
lister=$(sed -n 's/^self 1 holder [0-9]* lister \([0-9]*\)$/\1/p' /tmp/ns-out)
host=$(ns_host_pid "$inner")
check "the container's holder runs ($inner in, $host out)" test -n "$inner" -a -n "$host"
check "its pids differ inside and outside" test "$inner" != "$host"
check_eq "charged exactly what simgpu holds, context included" "$(truth /a 0)" \
	"$(usage a 0 vram_current)"
check_eq "which is two contexts and 64M" $((2 * 32 * M + 64 * M)) "$(usage a 0 vram_current)"
check_out "NVML inside lists the container's processes by their pids there, alone" \
	"procs 2 pids $inner,$lister ok" cat /tmp/ns-out
out=$(/tmp/in_cg a vram-client nvml)
pids=${out##*pids }
pids=",${pids%% *},"
case $out in
*"procs 3 pids "*) case $pids in
	*",$host,"*) case $pids in *",$ha,"*) pass "NVML on the host lists a's holders by host pid" ;;
		     *) fail "NVML on the host lists a's holders by host pid" "$out" ;; esac ;;
	*) fail "NVML on the host lists a's holders by host pid" "$out" ;;
	esac ;;
*) fail "NVML on the host lists a's holders by host pid" "$out" ;;
esac
check "vgpuctl ps on the host shows the host pid" sh -c "vgpuctl ps | grep -qw $host"
kill -9 "$host"
for i in $(seq 1 100); do
	grep -q '^listed' /tmp/ns-out && ! kill -0 "$host" 2>/dev/null && break
	sleep 0.1
done
check_eq "kill -9 in the namespace gives its share back" $((32 * M + 16 * M)) \
	"$(usage a 0 vram_current)"
check_eq "simgpu agrees" "$(truth /a 0)" "$(usage a 0 vram_current)"
kill -9 $ha $hb
wait $ha $hb 2>/dev/null
check_eq "all of a given back" 0 "$(usage a 0 vram_current)"

# --- a process in a cgroup namespace of its own (a pod's container: its
# /proc/self/cgroup says "/") is the driver's by its host cgroup, as
# NVIDIA's kernel driver sees the task: simgpu records it under /a and,
# without libvgpu, holds it to the driver limit vgpuctl set on a (the
# backstop, 256M): a context (32M) and 200M fit, 100M more does not.
bg_hold a /tmp/cgns env -u LD_PRELOAD cgroupns unshare --pid --fork --mount-proc \
	vram-client alloc 200M , alloc 100M , hold 600000 && hc=$!
check_out "in a cgroup namespace without libvgpu, 200M fit" "alloc 200M ok" cat /tmp/cgns
check_out "and 100M more is refused by the driver's limit on a" \
	"alloc 100M CUDA_ERROR_OUT_OF_MEMORY" cat /tmp/cgns
check_eq "simgpu counts it under a's host cgroup" $((32 * M + 200 * M)) "$(truth /a 0)"
[ -z "${hc:-}" ] || { kill -9 "$hc"; wait "$hc" 2>/dev/null; }
kill $pidd
suite_end
