# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The cost steps of tests/realgpu/run: what libvgpu costs, bare against
# preloaded, as INFO lines (figures, not judged): cuMemAlloc + cuMemFree
# pairs (cost-alloc), what a launch costs its caller with no module
# (cost-launch) and in the stand-in's tenant with the gate open
# (cost-launch-gated), the gate's fast path natively (cost-gate), and the
# driver calls libvgpu adds per 1000 launches, counted with CUPTI's
# driver-API callbacks (cost-calls). Sourced by run after standin-steps.sh:
# uses its result(), needs_driver(), the stand-in's sd_* and RG_*.

# cuMemAlloc + cuMemFree pairs of 1 MiB, bare and under libvgpu (no module:
# what libvgpu adds passing through).
step_cost-alloc() {
	local b v bm vm
	needs_driver cost-alloc || return 0
	b=$("$top/bench/vram-bench" pairs 2000 1048576 2>&1) || { result cost-alloc FAIL why="bare: $b"; return; }
	v=$(LD_PRELOAD=$RG_LIBVGPU "$top/bench/vram-bench" pairs 2000 1048576 2> /dev/null) ||
		{ result cost-alloc FAIL why="under libvgpu: $v"; return; }
	bm=$(echo "$b" | sed -n 's/.* median_ns \([0-9]*\) .*/\1/p')
	vm=$(echo "$v" | sed -n 's/.* median_ns \([0-9]*\) .*/\1/p')
	if [ -z "$bm" ] || [ -z "$vm" ]; then
		result cost-alloc FAIL why="unreadable: $b / $v"
	else
		result cost-alloc INFO pairs=2000 bare_median_ns="$bm" vgpu_median_ns="$vm" \
			added_ns=$((vm - bm)) note="no module: pass-through cost"
	fi
}

# What a cuLaunchKernel call costs its caller, bare and under libvgpu, for
# empty, 5 us and 1 ms kernels; fewer launches than the driver's queue
# holds, so the calls do not wait for the GPU. cost-launch: no module (the
# wrapper, its nesting test and an ungated pass); cost-launch-gated: in
# the stand-in's tenant t16, registered, its gate open (libvgpu's gated
# path: the grant read from the gate page, the launch counted).
cost_launch() { # ID ENV-WORDS...: the INFO lines, ENV-WORDS before vgpu's run
	local id=$1 ns n b v pre
	shift
	pre=("$@")
	for ns in 0 5000 1000000; do
		n=500
		[ "$ns" -lt 1000000 ] || n=200
		b=$("$top/bench/vram-bench" launches "$n" "$ns" 2>&1) ||
			{ result "$id" FAIL kernel_ns="$ns" why="bare: $b"; return; }
		v=$(env "${pre[@]}" "$top/bench/vram-bench" launches "$n" "$ns" 2> /dev/null) ||
			{ result "$id" FAIL kernel_ns="$ns" why="under libvgpu: $v"; return; }
		# "launches N ns NS median_ns M p90_ns P", twice
		# shellcheck disable=SC2086 # their words
		set -- $b $v
		if [ "$#" != 16 ] || [ "$5" != median_ns ] || [ "${13}" != median_ns ]; then
			result "$id" FAIL kernel_ns="$ns" why="unreadable: $b / $v"
			return
		fi
		result "$id" INFO kernel_ns="$ns" launches="$n" bare_median_ns="$6" \
			bare_p90_ns="$8" vgpu_median_ns="${14}" vgpu_p90_ns="${16}"
	done
}
step_cost-launch() {
	needs_driver cost-launch || return 0
	cost_launch cost-launch LD_PRELOAD="$RG_LIBVGPU"
}
step_cost-launch-gated() {
	local before after
	standin_ready cost-launch-gated || return 0
	# shellcheck disable=SC2046 # the words
	before=$(sd_field grants $(sd_ctl show t16 0))
	# shellcheck disable=SC2046 # the words
	cost_launch cost-launch-gated $(sd_env t16)
	after=$(sd_ctl show t16 0)
	# (a gate that was never open would have stopped the launches: the
	# tenant's state says it stayed granted, with no wait)
	echo "t16 on GPU 0 before: grants $before; after: $after"
}

# The launch gate's fast path, natively with the module and driver stubbed
# (bench/gate-bench, short): the same figure on every host.
step_cost-gate() {
	local out
	if ! out=$("$top/bench/gate-bench" 200000 2>&1); then
		result cost-gate FAIL why="$(echo "$out" | tail -n 2 | tr '\n' ' ')"
		return
	fi
	result cost-gate INFO added_median_ns="$(echo "$out" | awk '$1 == "added" { print $2 }')" \
		added_nomark_median_ns="$(echo "$out" | awk '$1 == "added-nomark" { print $2 }')" \
		note="stubbed driver and module, 200000 calls"
}

# ---------------------------------------------------------------- CUPTI
# cupti_libs: the libcupti.so.13 files to try, one a line, the host's
# first (its toolkit's or PyTorch's CUPTI, made for the host's driver
# release), then the one the tree carries (NVIDIA's nvidia-cuda-cupti
# wheel, tools/nvidia.lock, in build/deps/cuda/lib); REALGPU_CUPTI=FILE
# alone when set.
cupti_libs() {
	local d
	if [ -n "${REALGPU_CUPTI:-}" ]; then
		echo "$REALGPU_CUPTI"
		return
	fi
	{
		if command -v python3 > /dev/null; then
			python3 -c 'import site; print("\n".join(site.getsitepackages() + [site.getusersitepackages()]))' 2> /dev/null |
				while read -r d; do echo "$d/nvidia/cu13/lib/libcupti.so.13"; done
		fi
		for d in ${CUDA_HOME:-} /usr/local/cuda /usr/local/cuda-13.0 /usr/local/cuda-13; do
			echo "$d/extras/CUPTI/lib64/libcupti.so.13"
			echo "$d/lib64/libcupti.so.13"
		done
		ldconfig -p 2> /dev/null | awk '$1 == "libcupti.so.13" { print $NF }'
		echo "$RG_CUDA_INC/../lib/libcupti.so.13"
	} | while read -r d; do [ ! -e "$d" ] || readlink -f "$d"; done | awk '!seen[$0]++'
}

# cupti_added BARE VGPU NS N: "ADDED_PER_1000 TOP" from two cupti-count
# outputs: the calls under libvgpu minus the bare ones, per 1000 launches,
# and the three call ids most added ("name+count,...", per 1000).
cupti_added() {
	awk -v ns="$3" -v n="$4" '
		$1 == "call" && $3 == ns { c[$7] += (FILENAME == ARGV[1] ? -1 : 1) * $9 }
		END {
			for (k in c) { tot += c[k]; if (c[k] > 0) print c[k] * 1000 / n, k }
			printf "total %d\n", tot * 1000 / n
		}' "$1" "$2" | sort -k1,1nr | awk '
		$1 == "total" { tot = $2; next }
		k < 3 { top = top (k++ ? "," : "") sprintf("%s+%g", $2, $1) }
		END { print tot, (top == "" ? "none" : top) }'
}

# The driver calls libvgpu adds per 1000 launches of empty, 5 us and 1 ms
# kernels, bare against preloaded (no module) and against preloaded in
# the stand-in's tenant t16 (gated), counted by CUPTI's callbacks
# (cupti-count). CUPTI needs NVIDIA's driver: on simgpu it is not
# applicable (a WARN naming why, never PASS).
step_cost-calls() {
	local d=$RG_OUT/cost-calls cc=$top/tests/realgpu/cupti-count lib="" rc=0 ns under f got
	needs_driver cost-calls || return 0
	mkdir -p "$d"
	if [ ! -x "$cc" ]; then
		result cost-calls WARN missing=tests/realgpu/cupti-count \
			why="not built: it needs cupti.h (make deps: the nvidia-cuda-cupti wheel) and cc"
		return
	fi
	cupti_libs > "$d/libs"
	if [ -n "${REALGPU_CUPTI:-}" ] && [ ! -e "$REALGPU_CUPTI" ]; then
		result cost-calls WARN missing=libcupti.so.13 why="no CUPTI: REALGPU_CUPTI=$REALGPU_CUPTI does not exist"
		return
	elif [ ! -s "$d/libs" ]; then
		result cost-calls WARN missing=libcupti.so.13 \
			why="no CUPTI: none in python3 site-packages (nvidia/cu13/lib, as PyTorch installs it), /usr/local/cuda, ldconfig -p, nor build/deps/cuda/lib (make deps)"
		return
	fi
	# the first CUPTI that counts bare; what each refused with, kept
	while read -r f; do
		rc=0
		"$cc" "$f" 1000 0 5000 1000000 > "$d/bare" 2>> "$d/refused" || rc=$?
		[ "$rc" != 0 ] || { lib=$f; break; }
		echo "($f: exit $rc)" >> "$d/refused"
	done < "$d/libs"
	if [ "$RG_MODE" = simgpu ]; then
		result cost-calls WARN cupti="$(head -n 1 "$d/libs")" \
			why="not applicable: CUPTI needs NVIDIA's driver's private interfaces, which simgpu does not serve ($(tr '\n' ' ' < "$d/refused" | cut -c 1-200))"
		return
	fi
	if [ -z "$lib" ]; then
		result cost-calls WARN cupti="$(tr '\n' ' ' < "$d/libs")" \
			why="CUPTI did not count bare: $(tr '\n' ' ' < "$d/refused" | cut -c 1-300)"
		return
	fi
	LD_PRELOAD=$RG_LIBVGPU "$cc" "$lib" 1000 0 5000 1000000 > "$d/libvgpu" 2> "$d/libvgpu.err" ||
		{ result cost-calls FAIL cupti="$lib" why="counted bare, not under libvgpu: $(head -c 300 "$d/libvgpu.err")"; return; }
	under="libvgpu"
	if [ -n "$RG_STANDIN_SOCK" ]; then
		# shellcheck disable=SC2046 # the words
		if env $(sd_env t16) "$cc" "$lib" 1000 0 5000 1000000 > "$d/gated" 2> "$d/gated.err"; then
			under="libvgpu gated"
		else
			result cost-calls FAIL cupti="$lib" under=gated why="in t16: $(head -c 300 "$d/gated.err")"
		fi
	fi
	for f in $under; do
		for ns in 0 5000 1000000; do
			got=$(awk -v ns="$ns" '$1 == "count" && $3 == ns { print $7 }' "$d/bare")
			if [ "${got:-0}" -lt 1000 ]; then
				result cost-calls FAIL cupti="$lib" kernel_ns="$ns" bare_calls="${got:-none}" \
					why="CUPTI saw fewer driver calls than the 1000 launches: nothing counted"
				continue
			fi
			# shellcheck disable=SC2046 # two words
			set -- $(cupti_added "$d/bare" "$d/$f" "$ns" 1000)
			result cost-calls INFO kernel_ns="$ns" under="$f" launches=1000 bare_calls="$got" \
				added_per_1000="$1" top_added="$2" cupti_version="$(awk '$1 == "cupti" { print $3 }' "$d/bare")"
		done
	done
}
