# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The steps of tests/realgpu/run that need vgpu.ko, run against its
# stand-in (tests/realgpu/standin, Documentation/realgpu.md "The
# stand-in"): the run starts the daemon once (standin_start) and sets up,
# with vgpuctl through the interposer (or the daemon's own controls where
# vgpuctl cannot run: sd_setup_path), every GPU of the driver and two
# tenants: t16 (vram-max 16 GiB, every GPU) and t8 (vram-max 8 GiB, GPU 0
# only). A process is put in a tenant by VGPU_STANDIN_TENANT (an explicit
# mapping: the run makes no cgroups). Sourced by run: uses its result(),
# needs_driver() and RG_* variables.

RG_STANDIN_DIR=$top/tests/realgpu/standin
# (for the tests: REALGPU_STANDIN_BIN and _SO, another build of the
# daemon and the interposer, and REALGPU_STANDIN_PRELOAD, what is preloaded
# before the interposer: a sanitizer's runtime)
RG_STANDIN_BIN=${REALGPU_STANDIN_BIN:-$RG_STANDIN_DIR/vgpu-standin}
RG_STANDIN_SO=${REALGPU_STANDIN_SO:-$RG_STANDIN_DIR/libvgpu-standin.so}
RG_STANDIN_PRE=${REALGPU_STANDIN_PRELOAD:+$REALGPU_STANDIN_PRELOAD:}$RG_STANDIN_SO
RG_VGPUCTL=${REALGPU_VGPUCTL:-$top/ctl/vgpuctl}
GiB=$((1 << 30))

# ---------------------------------------------------------------- set-up
# sd_setup_path: how the tenants are set up, in RG_STANDIN_SETUP and why
# in RG_STANDIN_SETUP_WHY: "vgpuctl" (as on a host with the module:
# vgpuctl through the interposer) where the vgpuctl that came with the
# tree can run here, "vgpu-standin" (its probe and ctl tenant-add, which
# need only libc) where it cannot: a GPU host may lack vgpuctl's libraries
# (libnl-genl-3, libcap, jansson, OpenSSL), and nothing is installed.
# REALGPU_STANDIN_SETUP=ctl takes the second path anyway (the tests).
sd_setup_path() {
	local miss note=""
	RG_STANDIN_SETUP=vgpu-standin
	case ${REALGPU_STANDIN_SETUP:-} in
	"") ;;
	ctl)
		RG_STANDIN_SETUP_WHY="REALGPU_STANDIN_SETUP=ctl"
		export RG_STANDIN_SETUP RG_STANDIN_SETUP_WHY
		return ;;
	*) note="REALGPU_STANDIN_SETUP=$REALGPU_STANDIN_SETUP ignored (ctl is its one value); " ;;
	esac
	if [ ! -x "$RG_VGPUCTL" ]; then
		RG_STANDIN_SETUP_WHY="no $RG_VGPUCTL (make ctl)"
	elif command -v ldd > /dev/null; then
		miss=$(ldd "$RG_VGPUCTL" 2>&1 | grep -E 'not found|not a dynamic' | sed 's/^[[:space:]]*//' |
			sed 's/ => not found//' | head -n 4 | tr '\n' ' ') || true
		if [ -n "$miss" ]; then
			RG_STANDIN_SETUP_WHY="vgpuctl cannot run here (ldd: ${miss% })"
		else
			RG_STANDIN_SETUP=vgpuctl RG_STANDIN_SETUP_WHY="ldd finds all of vgpuctl's libraries"
		fi
	elif miss=$("$RG_VGPUCTL" --help 2>&1 > /dev/null | awk '/error while loading/ && !n++') && [ -n "$miss" ]; then
		RG_STANDIN_SETUP_WHY="vgpuctl cannot run here: $miss"
	else
		RG_STANDIN_SETUP=vgpuctl RG_STANDIN_SETUP_WHY="no ldd here, and vgpuctl --help loaded"
	fi
	RG_STANDIN_SETUP_WHY=$note$RG_STANDIN_SETUP_WHY
	export RG_STANDIN_SETUP RG_STANDIN_SETUP_WHY
}

# standin_start: the daemon and its tenants, before the steps; its
# socket in RG_STANDIN_SOCK (empty, with RG_STANDIN_WHY, when it could
# not start). REALGPU_STANDIN_BREAK=charge|view: a wrong stand-in, for
# the tests that must see the matching steps fail.
standin_start() {
	local d log=$RG_OUT/logs/standin-setup.log
	export RG_STANDIN_SOCK="" RG_STANDIN_WHY=""
	: > "$log"
	if [ "$RG_MODE" = none ]; then
		RG_STANDIN_WHY="no driver (see env)"
		return
	fi
	if [ ! -x "$RG_STANDIN_BIN" ] || [ ! -e "$RG_STANDIN_SO" ]; then
		RG_STANDIN_WHY="not built: $RG_STANDIN_BIN and $RG_STANDIN_SO (make -C tests/realgpu/standin)"
		return
	fi
	d=$(mktemp -d /tmp/vgpu-standin.XXXXXX)
	"$RG_STANDIN_BIN" serve "$d/sock" ${REALGPU_STANDIN_BREAK:+--break "$REALGPU_STANDIN_BREAK"} \
		>> "$log" 2>&1 &
	RG_STANDIN_PID=$!
	for _ in $(seq 50); do [ -S "$d/sock" ] && break; sleep 0.1; done
	if [ ! -S "$d/sock" ]; then
		RG_STANDIN_WHY="the daemon did not start: $(head -c 200 "$log")"
		return
	fi
	RG_STANDIN_SOCK=$d/sock
	sd_setup_path
	echo "set-up by $RG_STANDIN_SETUP: $RG_STANDIN_SETUP_WHY" >> "$log"
	if [ "$RG_STANDIN_SETUP" = vgpuctl ]; then
		# (tenant add says that the driver limits below libvgpu were not
		# set where the tenants' cgroups do not exist: the stand-in's
		# cgroups are never made, so those lines are expected; the
		# standin step decides)
		{ sd_ctl_vgpuctl gpu probe
		  sd_ctl_vgpuctl tenant add t16 cgroup "$(sd_cgroot)/vgpu-standin-t16" vram-max 16G
		  sd_ctl_vgpuctl tenant add t8 cgroup "$(sd_cgroot)/vgpu-standin-t8" vram-max 8G gpus 0
		} >> "$log" 2>&1 || true
	else
		{ "$RG_STANDIN_BIN" probe "$RG_STANDIN_SOCK"
		  sd_ctl tenant-add t16 $((16 * GiB)) all
		  sd_ctl tenant-add t8 $((8 * GiB)) 0
		} >> "$log" 2>&1 || true
	fi
}
standin_stop() {
	[ -z "${RG_STANDIN_PID:-}" ] || kill "$RG_STANDIN_PID" 2> /dev/null || true
	[ -z "${RG_STANDIN_SOCK:-}" ] || rm -rf "$(dirname "$RG_STANDIN_SOCK")"
}

# vgpuctl wants a tenant's cgroup under the cgroup2 mount.
sd_cgroot() { awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts | grep . || echo /sys/fs/cgroup; }
sd_ctl_vgpuctl() { VGPU_STANDIN_SOCK=$RG_STANDIN_SOCK LD_PRELOAD=$RG_STANDIN_PRE "$RG_VGPUCTL" "$@"; }
sd_ctl() { "$RG_STANDIN_BIN" ctl "$RG_STANDIN_SOCK" "$@"; }
# sd_as TENANT CMD...: CMD in the tenant, libvgpu over the stand-in
sd_as() {
	local t=$1
	shift
	# shellcheck disable=SC2046 # the words
	env $(sd_env "$t") "$@"
}
# sd_env TENANT: sd_as's environment as words, for "env $(sd_env T) CMD &"
# whose $! is CMD's pid (ld.so takes ':' between preloads). On simgpu,
# cuGetProcAddress answers with entry points of its own, as NVIDIA's
# driver does (SIMGPU_PROCADDR=distinct): a wrapper libvgpu fails to hand
# out is then missed, as it would be on a GPU.
sd_env() {
	echo "VGPU_STANDIN_SOCK=$RG_STANDIN_SOCK VGPU_STANDIN_TENANT=$1 LD_PRELOAD=$RG_STANDIN_PRE:$RG_LIBVGPU" \
		"${RG_PROCADDR_MODES:+SIMGPU_PROCADDR=distinct}"
}
sd_field() { # KEY WORDS...: the word after KEY
	local k=$1
	shift
	echo "$*" | tr ' ' '\n' | grep -A1 -x -- "$k" | sed -n 2p
}
standin_ready() { # ID: a WARN and false without the stand-in
	needs_driver "$1" || return 1
	[ -n "$RG_STANDIN_SOCK" ] && return 0
	result "$1" WARN missing="the stand-in" why="$RG_STANDIN_WHY"
	return 1
}
VRAM_CLIENT=$top/tests/clients/vram-client

# ---------------------------------------------------------------- steps
# The set-up took: both tenants, with their limits, on the driver's GPUs,
# as the daemon holds them (and as vgpuctl lists them where it set them
# up); which way they were set up is an INFO line.
step_standin() {
	local out t16 t8 gpus
	standin_ready standin || return 0
	result standin-setup INFO path="$RG_STANDIN_SETUP" why="$RG_STANDIN_SETUP_WHY"
	t16=$(sd_ctl tenant t16 2>&1) || true
	t8=$(sd_ctl tenant t8 2>&1) || true
	# shellcheck disable=SC2046 # the words
	gpus=$(sd_field gpus $(sd_ctl gpus 2>&1))
	out="$t16 / $t8"
	if [ "$RG_STANDIN_SETUP" = vgpuctl ]; then
		out+=" / vgpuctl: $(sd_ctl_vgpuctl tenant 2>&1 | tr '\n' ' ')"
	fi
	echo "$out"
	if ! grep -qx "ok tenant t16 id [0-9]* vram-max $((16 * GiB)) gpus all" <<< "$t16" ||
	   ! grep -qx "ok tenant t8 id [0-9]* vram-max $((8 * GiB)) gpus 0" <<< "$t8" ||
	   [ "${gpus:-0}" -lt 1 ]; then
		result standin FAIL gpus="${gpus:-unread}" why="tenants not set up: $out $(tail -n 3 "$RG_OUT/logs/standin-setup.log" | tr '\n' ' ')"
	elif [ "$RG_STANDIN_SETUP" = vgpuctl ] && { ! grep -q 'tenant t16 .* vram-max 16GiB' <<< "$out" ||
	     ! grep -q 'tenant t8 .* vram-max 8GiB gpus 0' <<< "$out"; }; then
		result standin FAIL why="vgpuctl lists the tenants otherwise: $out"
	else
		result standin PASS gpus="$gpus" tenants="t16 (16 GiB), t8 (8 GiB, GPU 0)" \
			mapping=VGPU_STANDIN_TENANT setup="$RG_STANDIN_SETUP"
	fi
}

# The words of N allocations of 1 GiB by PATH, for vram-client.
sd_allocs() { # PATH N
	local i s=""
	for i in $(seq "$2"); do s+="$1 1G , "; done
	echo "${s% , }"
}
# Allocation by every path stops with out-of-memory at the tenant's limit
# (each 1 GiB, one past the limit: exactly LIMIT of them succeed) while
# the device has room: a process outside every tenant reads the device's
# free memory while the tenant's process holds its limit.
step_standin-limit() {
	local d=$RG_OUT/standin-limit t lim p out ok oom dev_free held pid
	standin_ready standin-limit || return 0
	mkdir -p "$d"
	for t in t8 t16; do
		lim=${t#t}
		for p in alloc async vmm managed; do
			: > "$d/$t.$p"
			# shellcheck disable=SC2046 # the words
			env $(sd_env "$t") "$VRAM_CLIENT" $(sd_allocs "$p" $((lim + 1))) , hold 2000 >> "$d/$t.$p" 2>&1 &
			pid=$!
			for _ in $(seq 100); do
				[ "$(grep -c "^$p 1G " "$d/$t.$p")" -gt "$lim" ] && break
				kill -0 "$pid" 2> /dev/null || break
				sleep 0.1
			done
			dev_free=$(sd_field free $("$VRAM_CLIENT" nvml 2>&1 | grep '^nvml total'))
			wait "$pid" || true
			out=$(cat "$d/$t.$p")
			ok=$(echo "$out" | grep -c "^$p 1G ok") || true
			oom=$(echo "$out" | grep -c "^$p 1G CUDA_ERROR_OUT_OF_MEMORY") || true
			held=$(echo "$out" | sed -n "s/^hold .* ok$/held/p")
			if [ "$ok" != "$lim" ] || [ "$oom" != 1 ] || [ -z "$held" ]; then
				result standin-limit FAIL tenant="$t" path="$p" allocated_gib="$ok" \
					want_gib="$lim" out_of_memory="$oom" \
					why="$(echo "$out" | grep -v ' ok$' | head -n 2 | tr '\n' ' ')"
			elif [ -z "$dev_free" ] || [ "$dev_free" -lt "$GiB" ]; then
				result standin-limit FAIL tenant="$t" path="$p" device_free="${dev_free:-unread}" \
					why="the device had no room left: the limit was not what refused"
			else
				result standin-limit PASS tenant="$t" path="$p" allocated_gib="$ok" \
					refused=CUDA_ERROR_OUT_OF_MEMORY device_free_gib=$((dev_free / GiB))
			fi
		done
	done
}

# The views show the limit: cuMemGetInfo, cuDeviceTotalMem and NVML's
# memory info (and nvidia-smi where it is) give the tenant's vram-max.
step_standin-view() {
	local t lim out tot ntot smi
	standin_ready standin-view || return 0
	for t in t8 t16; do
		lim=$((${t#t} * GiB))
		out=$(sd_as "$t" "$VRAM_CLIENT" info , total , nvml 2>&1) || true
		echo "$t: $out"
		tot=$(sd_field total $(echo "$out" | grep '^info '))
		ntot=$(sd_field total $(echo "$out" | grep '^nvml '))
		if [ "$tot" = "$lim" ] && [ "$ntot" = "$lim" ] && grep -qx "total $lim ok" <<< "$out"; then
			result standin-view PASS tenant="$t" cuMemGetInfo_total="$tot" nvml_total="$ntot" want="$lim"
		else
			result standin-view FAIL tenant="$t" cuMemGetInfo_total="${tot:-unread}" \
				nvml_total="${ntot:-unread}" want="$lim" why="$(echo "$out" | head -n 3 | tr '\n' ' ')"
		fi
	done
	if ! command -v nvidia-smi > /dev/null || [ "$RG_MODE" != gpu ]; then
		result standin-view-smi WARN missing=nvidia-smi why="not applicable here: no NVIDIA driver's nvidia-smi"
		return
	fi
	smi=$(sd_as t8 nvidia-smi -i 0 --query-gpu=memory.total --format=csv,noheader,nounits 2>&1 | sed -n 1p)
	if [ "$smi" = 8192 ]; then
		result standin-view-smi PASS tenant=t8 memory_total_mib="$smi" want=8192
	else
		result standin-view-smi FAIL tenant=t8 memory_total_mib="$smi" want=8192
	fi
}

# NVML's process lists under a tenant show only its processes: t8 and t16
# each hold memory on GPU 0; t8's nvml-procs lists t8's, not t16's; a
# process outside every tenant lists both.
step_standin-procs() {
	local d=$RG_OUT/standin-procs p8 p16 in8 bare c8 cb
	standin_ready standin-procs || return 0
	mkdir -p "$d"
	: > "$d/t8.out"; : > "$d/t16.out"
	# shellcheck disable=SC2046 # the words
	env $(sd_env t8) "$VRAM_CLIENT" alloc 64M , hold 4000 >> "$d/t8.out" 2>&1 &
	p8=$!
	# shellcheck disable=SC2046
	env $(sd_env t16) "$VRAM_CLIENT" alloc 64M , hold 4000 >> "$d/t16.out" 2>&1 &
	p16=$!
	for _ in $(seq 30); do grep -q '^alloc' "$d/t8.out" && grep -q '^alloc' "$d/t16.out" && break; sleep 0.1; done
	in8=$(sd_as t8 "$top/tests/clients/nvml-procs" 2>&1) || true
	bare=$("$top/tests/clients/nvml-procs" 2>&1) || true
	wait "$p8" "$p16" || true
	echo "t8: $in8"; echo "bare: $bare"
	c8=$(sd_field compute $in8) cb=$(sd_field compute $bare)
	if [[ ",$cb," != *",$p8,"* ]] || [[ ",$cb," != *",$p16,"* ]]; then
		result standin-procs FAIL why="the clients were not listed bare (compute $cb; pids $p8 $p16): nothing to filter"
	elif [[ ",$c8," == *",$p8,"* ]] && [[ ",$c8," != *",$p16,"* ]]; then
		result standin-procs PASS tenant=t8 listed="$c8" bare="$cb" hidden="$p16"
	else
		result standin-procs FAIL tenant=t8 listed="$c8" want="$p8 and not $p16" bare="$cb"
	fi
}

# A GPU denied to the tenant (t8 has GPU 0 only) is invisible to CUDA
# and NVML; with one GPU there is none to deny.
step_standin-denied() {
	local n out cc nc
	standin_ready standin-denied || return 0
	# shellcheck disable=SC2046 # the words
	n=$(sd_field gpus $(sd_ctl gpus 2> /dev/null))
	if [ "${n:-0}" -lt 2 ]; then
		result standin-denied WARN gpus="$n" why="not applicable: one GPU, none to deny"
		return
	fi
	out=$(sd_as t8 "$top/tests/clients/view-client" list 2>&1) || true
	echo "$out"
	cc=$(sd_field count $(echo "$out" | grep '^cuda count'))
	nc=$(sd_field count $(echo "$out" | grep '^nvml count'))
	if [ "$cc" = 1 ] && [ "$nc" = 1 ]; then
		result standin-denied PASS tenant=t8 gpus="$n" cuda_count="$cc" nvml_count="$nc"
	else
		result standin-denied FAIL tenant=t8 gpus="$n" cuda_count="${cc:-unread}" \
			nvml_count="${nc:-unread}" want=1
	fi
}

# Launches stop while the tenant's grant is revoked and resume after: a
# client started revoked is seen waiting in VGPU_IOC_WAIT and unfinished
# after 1 s, then finishes with every launch done once granted.
step_standin-gate() {
	local d=$RG_OUT/standin-gate pid w1 alive out rc=0
	standin_ready standin-gate || return 0
	mkdir -p "$d"
	sd_ctl revoke t16 0 > /dev/null
	: > "$d/client.out"
	# shellcheck disable=SC2046 # the words
	env $(sd_env t16) "$RG_CLIENT" launch 1000 count 20 >> "$d/client.out" 2>&1 &
	pid=$!
	for _ in $(seq 50); do
		w1=$(sd_field waiting $(sd_ctl show t16 0))
		[ "${w1:-0}" -ge 1 ] && break
		sleep 0.1
	done
	sleep 1
	alive=no
	kill -0 "$pid" 2> /dev/null && alive=yes
	sd_ctl grant t16 0 > /dev/null
	for _ in $(seq 100); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
	if kill "$pid" 2> /dev/null; then
		rc="still running 10 s after the grant"
		wait "$pid" || true
	else
		wait "$pid" || rc=$?
	fi
	out=$(cat "$d/client.out")
	echo "$out"
	if [ "${w1:-0}" -lt 1 ] || [ "$alive" != yes ]; then
		result standin-gate FAIL waiting="${w1:-0}" alive_revoked="$alive" \
			why="launches did not stop while revoked"
	elif [ "$rc" != 0 ] || ! grep -q '^launch .* ok$' <<< "$out"; then
		result standin-gate FAIL exit="$rc" why="did not resume once granted: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
	else
		result standin-gate PASS waiting="$w1" alive_revoked_1s=yes resumed=yes
	fi
}

# A captured graph replays correctly while the grant flips every 5 ms
# (starting revoked, so the client waits once at least): the same lines
# as bare, and the grants it got.
step_standin-graph-flip() {
	local d=$RG_OUT/standin-graph-flip g0 g1 s='graph 100000 count 40 , launch 10000 count 50 , sync'
	standin_ready standin-graph-flip || return 0
	mkdir -p "$d"
	# shellcheck disable=SC2086 # the script is words
	"$RG_CLIENT" $s > "$d/bare" 2> "$d/bare.err" || true
	g0=$(sd_field grants $(sd_ctl show t16 0))
	sd_ctl flip t16 0 5 > /dev/null
	# shellcheck disable=SC2086
	sd_as t16 "$RG_CLIENT" $s > "$d/vgpu" 2> "$d/vgpu.err" || true
	sd_ctl grant t16 0 > /dev/null
	g1=$(sd_field grants $(sd_ctl show t16 0))
	if [ "$(grep -c ' ok$' "$d/bare")" != 3 ]; then
		result standin-graph-flip FAIL why="bare: $(head -n 2 "$d/bare" | tr '\n' ' ')"
	elif ! diff -q "$d/bare" "$d/vgpu" > /dev/null; then
		result standin-graph-flip FAIL why="$(diff "$d/bare" "$d/vgpu" | grep '^[<>]' | head -n 3 | tr '\n' ' ')"
	elif [ $((g1 - g0)) -lt 1 ]; then
		result standin-graph-flip FAIL grants=$((g1 - g0)) why="the grant never came back: nothing was checked"
	else
		result standin-graph-flip PASS replays=40 grants=$((g1 - g0)) flip_ms=5
	fi
}

# PyTorch until OutOfMemoryError at each tenant's limit (t16, t8), and
# the uncharged difference: the driver's use by the process (nvidia-smi,
# or NVML where there is none: simgpu) minus the stand-in's charge, read
# while the process holds what it got; "unread" when the driver's is not.
torch_oom_standin() { # ID [ALLOC_CONF]
	local id d t lim pid gib used by charged
	torch_ready "$1" || return 0
	id=$RG_TORCH_ID d=$RG_OUT/$RG_TORCH_ID
	standin_ready "$id" || return 0
	mkdir -p "$d"
	[ -z "${2:-}" ] || export PYTORCH_CUDA_ALLOC_CONF=$2
	for t in t16 t8; do
		lim=${t#t}
		: > "$d/$t.out"
		# shellcheck disable=SC2046 # the words
		env TORCH_CHECK_HOLD="${REALGPU_TORCH_HOLD:-5}" $(sd_env "$t") \
			python3 "$top/tests/realgpu/torch-check.py" oom >> "$d/$t.out" 2>> "$d/$t.err" &
		pid=$!
		for _ in $(seq 600); do grep -q . "$d/$t.out" && break; sleep 0.1; done
		# (|| true: a field not found is "unread" below, not the step's
		# end under set -e, which would lose the reason)
		charged=$(sd_field charged $(sd_ctl show "$t" 0)) || true
		if command -v nvidia-smi > /dev/null; then
			by=nvidia-smi
			used=$(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2> /dev/null |
				awk -F', *' -v p="$pid" '$1 == p { print $2 * 1048576 }') || true
		else
			by=nvml
			used=$(python3 "$top/tests/realgpu/nvml-used.py" "$pid" 2>> "$d/$t.err") || true
		fi
		wait "$pid" || true
		gib=$(sd_field oom_at_gib $(tr '=' ' ' < "$d/$t.out")) || true
		if [ -z "$gib" ] || [ "$gib" -gt "$lim" ] || [ "$gib" -lt $((lim - 2)) ]; then
			result "$id" FAIL "$RG_TORCH" tenant="$t" want="OutOfMemoryError at $((lim - 2))-$lim GiB" \
				why="$(head -c 300 "$d/$t.out") $(tail -c 300 "$d/$t.err")"
		else
			# (no figure where one side is unread: 0 minus a charge is no difference)
			result "$id" PASS "$RG_TORCH" tenant="$t" oom_at_gib="$gib" charged="${charged:-unread}" \
				driver_used="${used:-unread}" used_by="$by" \
				uncharged="$( [ -n "$used" ] && [ -n "$charged" ] && echo $((used - charged)) || echo unread)" \
				alloc_conf="${2:-default}"
		fi
	done
}
step_torch-oom-standin() { torch_oom_standin torch-oom-standin; }
step_torch-oom-expandable-standin() { torch_oom_standin torch-oom-expandable-standin expandable_segments:True; }
