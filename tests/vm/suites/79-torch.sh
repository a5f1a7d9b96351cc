#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 320
# vm-disk: torch
# vm-memory: 2048
# vm-timeout: 1500
# vm-series: 6.12
# (On one kernel, Debian 13's 6.12: what it tests is userspace against
# the module's interface, which the other suites test on every kernel;
# it took 378-435 s a kernel in a full run.)
# Real PyTorch (torch 2.15.0+cu132, tools/torch.lock, NVIDIA's CUDA 13.2
# runtime in its wheels) through libvgpu on simgpu, with vgpu.ko deciding
# (issue 28). PyTorch and the python3.11 it runs on come on a read-only
# disk (tools/torch-deps, "# vm-disk: torch"), at /opt/torch; the steps
# are tests/vm/suites/79-torch/torchvm.py's, one process each:
#  - limited (tenant tl, vram-max 1G, compute-max 50, kernels of 5 ms):
#    mem_get_info and get_device_properties show the limit; vLLM's
#    profiling sequence (free memory around a forward pass, reserved
#    bytes, empty_cache) agrees with the charge; tensors of 64 MiB until
#    torch.cuda.OutOfMemoryError; a graph captured in each capture mode
#    (global, thread_local, relaxed) and replayed 20 times runs its
#    kernels on simgpu, and compute-max throttles them (they are gated);
#  - expandable (tenant te, 1G): the same OOM with
#    PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True;
#  - spawn (tenant tm, 1G): two torch.multiprocessing.spawn workers of
#    400 MiB each share the limit (the second's 400 MiB more is an OOM);
#    SIGKILL of one gives its memory back;
#  - view (tenant tu without a limit, and bare, without libvgpu, side by
#    side): the GPU's whole VRAM seen, 2 GiB held.
# Wherever a step holds memory, the module's charge must equal what simgpu
# holds for the cgroup (its per-cgroup truth) to the byte, and everything
# is given back when the process ends. Each step's time is printed
# ("# time ..."): import torch alone takes most of a minute under TCG.
suite=torch
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
M=1048576
py=/opt/torch/venv/bin/python
tv=/tests/79-torch/torchvm.py

if [ ! -x $py ]; then
	fail "PyTorch's disk is mounted at /opt/torch" \
		"no $py: $(cat /run/vgpu-disk.err 2>/dev/null | tr '\n' ' ')"
	suite_end
fi

# The probe torchvm.py runs at each point of comparison: the module's
# charge ("-" without a tenant), simgpu's bytes and kernels for the
# cgroup, into /tmp/probe.TENANT.LABEL.
cat > /tmp/torch-probe <<'EOS'
#!/bin/sh
suite=probe
. /tests/suite-lib.sh
c=$(usage "$TORCHVM_TENANT" 0 vram_current 2>/dev/null)
th=$(usage "$TORCHVM_TENANT" 0 throttled_ns 2>/dev/null)
echo "${c:--} $(truth "/$TORCHVM_TENANT" 0) $(sim_cgroup "/$TORCHVM_TENANT" 0 10) ${th:--}" \
	> "/tmp/probe.$TORCHVM_TENANT.$1"
EOS
chmod +x /tmp/torch-probe

# run TENANT [ENV=VALUE...] STEP [ARGS]: torchvm.py STEP in cgroup TENANT
# with libvgpu (bare: in cgroup bare, without), output in /tmp/TENANT.out,
# its time printed; status torchvm.py's.
run() {
	local t=$1 t0 rc pre=LD_PRELOAD=/usr/lib/libvgpu.so
	shift
	[ "$t" != bare ] || pre=TORCHVM_BARE=1
	t0=$(uptime_ms)
	env TORCHVM_PROBE=/tmp/torch-probe TORCHVM_TENANT=$t $pre \
		/tmp/in_cg "$t" env "$@" > /tmp/$t.out 2>&1 </dev/null && rc=0 || rc=$?
	echo "# time $t $* $(( ($(uptime_ms) - t0) / 1000 )) s (exit $rc): $(sed -n 's/^time //p' /tmp/$t.out | tr '\n' ',')"
	return $rc
}
# got TENANT KEY: the words after KEY on its output's first line KEY
got() { sed -n "s/^$2 //p" /tmp/$1.out | head -n 1; }
# probe TENANT LABEL FIELD: 1 the module's charge, 2 simgpu's bytes, 3
# simgpu's kernels, 4 the module's throttled ns, at LABEL
probe() { awk -v f="$3" '{ print $f }' "/tmp/probe.$1.$2" 2>/dev/null; }
# step_ok TENANT STEP RC: the step ran to its end
step_ok() {
	if [ "$3" = 0 ] && grep -qx "done $2" /tmp/$1.out; then
		pass "$2 ($1): ran to its end"
	else
		fail "$2 ($1): ran to its end" \
			"exit $3: $(grep -v -e '^time ' -e Warning -e _conversion_method /tmp/$1.out | tail -n 8 | tr '\n' ' ' | cut -c1-600)"
	fi
}
# charged TENANT LABEL: at LABEL, the module's charge equals simgpu's bytes
charged() {
	local c s
	c=$(probe "$1" "$2" 1) s=$(probe "$1" "$2" 2)
	if [ -n "$c" ] && [ "$c" = "$s" ]; then
		pass "$1 at $2: the module charges what simgpu holds ($((c / M)) MiB)"
	else
		fail "$1 at $2: the module charges what simgpu holds" "module '$c', simgpu '$s'"
	fi
}
# released TENANT: after its processes ended, nothing charged, nothing held
released() {
	check_eq "$1: nothing charged after exit" 0 "$(usage "$1" 0 vram_current)"
	check_eq "$1: simgpu holds nothing for the cgroup after exit" 0 "$(truth "/$1" 0)"
}
# between WHAT LOW VALUE HIGH: LOW <= VALUE <= HIGH
between() {
	if [ -n "$3" ] && [ "$2" -le "$3" ] && [ "$3" -le "$4" ]; then
		pass "$1 ($3)"
	else
		fail "$1" "'$3' not within [$2, $4]"
	fi
}
# oom_checks TENANT LABEL: 64 MiB tensors until torch's OOM, within the
# 1G limit, charged as simgpu holds, given back by empty_cache.
oom_checks() {
	set -- "$1" "$2" $(got "$1" oom)
	check_eq "$2: 64 MiB tensors end in torch.cuda.OutOfMemoryError" OutOfMemoryError "${3:-}"
	between "$2: MiB allocated before the OOM" 768 "${4:-}" 1024
	between "$2: charged at the OOM, at most the limit" $((768 * M)) "$(probe "$1" at-oom 1)" "$G"
	charged "$1" at-oom
	between "$2: empty_cache gives the tensors back" 0 "$(probe "$1" after-oom 1)" $((256 * M))
	charged "$1" after-oom
}

# The least memory the VM had available, sampled each second.
( low=999999; while :; do
	a=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
	[ "$a" -ge "$low" ] || { low=$a; echo "$low" > /tmp/memlow; }
	sleep 1
done ) &
sampler=$!

check_out "gpu probe registers simgpu's GPU" "gpu 1" vgpuctl gpu probe
mkdir -p $cg/tl $cg/te $cg/tm $cg/tu $cg/bare
check "tenant tl: vram-max 1G, compute-max 50" \
	vgpuctl tenant add tl cgroup tl vram-max 1G compute-max 50
check "tenant te: vram-max 1G" vgpuctl tenant add te cgroup te vram-max 1G
check "tenant tm: vram-max 1G" vgpuctl tenant add tm cgroup tm vram-max 1G
check "tenant tu: no limit" vgpuctl tenant add tu cgroup tu
total=$(simgpu-stat | awk '$1 == "gpu" && $2 == 0 { print $6 }')
G=$((1024 * M))

# limited: the view, vLLM's profiling, a held tensor, OOM, graphs. Its
# kernels take 5 ms each, so that 20 replays (120 kernels) run longer
# than compute-max 50 allows in a 100 ms period. Each library's code takes
# 2 MiB of the context at its kernels' first launch there (simgpu's lazy
# loading, SIMGPU_MODULE_VRAM): the charge must follow it.
run tl SIMGPU_KERNEL_NS=5000000 SIMGPU_MODULE_VRAM=2M $py $tv limited && rc=0 || rc=$?
step_ok tl limited $rc
set -- $(got tl view)
check_eq "limited: mem_get_info's total is the limit" "$G" "${2:-}"
between "limited: mem_get_info's free is within the limit" 1 "${1:-}" "$G"
check_eq "limited: get_device_properties(0).total_memory is the limit" "$G" "$(got tl props)"
# vLLM: total, free before and after a forward pass, reserved before and
# after; what the view says is used is what the module charges, and
# holds torch's reserved bytes (the rest: the context, cuBLAS's own).
set -- $(got tl profile)
check_eq "profile: the forward pass (two nn.Linear, cuBLAS) ran" True "${6:-}"
check_eq "profile: total is the limit" "$G" "${1:-}"
check_eq "profile: used (total - free) after the pass is the module's charge" \
	"$(probe tl profile 1)" "$((${1:-0} - ${3:-0}))"
between "profile: torch's reserved bytes are within what is used" 1 "${5:-}" "$((${1:-0} - ${3:-0}))"
between "profile: free fell by at least what torch reserved for the pass" \
	"$((${5:-0} - ${4:-0}))" "$((${2:-0} - ${3:-0}))" "$G"
charged tl profile
f1=${3:-0}
set -- $(got tl profile-after)
between "profile: empty_cache gives free memory back" $((f1 + 1)) "${1:-}" "$G"
check_eq "profile: used after empty_cache is the module's charge" \
	"$(probe tl profile-after 1)" "$((G - ${1:-0}))"
charged tl profile-after
between "limited: a 256 MiB tensor is charged" $((256 * M)) "$(probe tl held256 1)" "$G"
charged tl held256
oom_checks tl limited
for mode in global thread_local relaxed; do
	check_eq "graph ($mode): captured and replayed 20 times" 20 \
		"$(sed -n "s/^graph replayed $mode //p" /tmp/tl.out)"
	k0=$(probe tl graph-before-$mode 3) k1=$(probe tl graph-after-$mode 3)
	between "graph ($mode): the replays ran kernels on simgpu (kernels counted)" 20 "$((${k1:-0} - ${k0:-0}))" 1000000
done
# The replays pass the gate: compute-max 50 throttles them. Not each
# mode's alone: the first burst of graph launches of a process is queued
# whole before the queue bound has measured a mark (its 20 replays, 600 ms
# of kernels, ran unthrottled in every order tried, the module carrying
# the debt), and the bursts after it wait (about 350 ms each).
t0=$(probe tl graph-before-global 4) t1=$(probe tl graph-after-relaxed 4)
between "graphs: the replays were gated: compute-max 50 throttled them (ms)" 1 \
	"$(( (${t1:-0} - ${t0:-0}) / 1000000 ))" 1000000
check_eq "limited: a copy to the GPU and back is the same" True "$(got tl copy-roundtrip)"
released tl

# expandable: the OOM with expandable segments (cuMemCreate and cuMemMap).
run te PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True $py $tv expandable && rc=0 || rc=$?
step_ok te expandable $rc
check_eq "expandable: the allocator's setting reached torch" expandable_segments:True "$(got te alloc-conf)"
charged te held256
oom_checks te expandable
released te

# spawn: two processes, one limit, one killed.
run tm $py $tv spawn 400 && rc=0 || rc=$?
step_ok tm spawn $rc
check_eq "spawn: both workers started" 2 "$(grep -c '^worker ' /tmp/tm.out)"
both=$(probe tm spawn-both 1)
between "spawn: both workers' 400 MiB charged to the one tenant" $((800 * M)) "$both" "$G"
charged tm spawn-both
check_eq "spawn: the second worker's 400 MiB more is past the shared limit" OutOfMemoryError "$(got tm more)"
check_eq "spawn: the killed worker ended by SIGKILL" -9 "$(got tm killed)"
between "spawn: SIGKILL of one gives its memory back" $((400 * M)) "$(probe tm spawn-killed 1)" $((${both:-0} - 400 * M))
charged tm spawn-killed
check_eq "spawn: nothing charged once both are gone" 0 "$(probe tm spawn-gone 1)"
check_eq "spawn: simgpu holds nothing once both are gone" 0 "$(probe tm spawn-gone 2)"
released tm

# view: no limit, and bare, side by side.
run tu $py $tv view > /tmp/tu.time &
pu=$!
run bare $py $tv view && rb=0 || rb=$?
wait $pu && ru=0 || ru=$?
cat /tmp/tu.time
step_ok tu view $ru
step_ok bare view $rb
for t in tu bare; do
	set -- $(got $t view)
	check_eq "view ($t): mem_get_info's total is the GPU's" "$total" "${2:-}"
	check_eq "view ($t): get_device_properties(0).total_memory is the GPU's" "$total" "$(got $t props)"
	between "view ($t): 2 GiB held, past the other tenants' limit" $((2048 * M)) "$(probe $t held2g 2)" "$total"
done
charged tu held2g
check_eq "view (bare): no tenant, so no charge" - "$(probe bare held2g 1)"
released tu

kill $sampler
echo "# lowest MemAvailable: $(cat /tmp/memlow) MiB of $(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo); largest python (RSS, MiB, itself and children): $(grep -h '^maxrss-mib' /tmp/*.out | cut -d' ' -f2- | tr '\n' ',')"
suite_end
