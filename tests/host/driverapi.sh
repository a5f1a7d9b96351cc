#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The driver functions cuBLASLt takes from simgpu's libcuda.so.1 itself,
# tested directly against the CUDA Driver API reference (the same text is
# in cuda.h; Documentation/simgpu.md, "Pointers, peers, the JIT linker,
# kernel nodes"): tests/clients/driver-api-client checks pointer
# attributes, peer access, the JIT linker and kernel node parameters, one
# line per documented behaviour, on three GPUs (0 and 1 below one PCIe
# switch, 2 on another host bridge and NUMA node). Run from the
# repository root. One line per check:
#   PASS: driverapi: <what>    or    FAIL: driverapi: <what>: <detail>
# Exit status: 0 when every check passed.
suite=driverapi
. "$(dirname "$0")/lib.bash"
sim=$top/tests/simgpu
cli=$top/tests/clients

unset SIMGPU_GPUS SIMGPU_VRAM SIMGPU_SMS SIMGPU_CTX_VRAM SIMGPU_KERNEL_NS SIMGPU_TRACE_EXPORT \
	SIMGPU_TRACE_PROCADDR SIMGPU_PROCADDR SIMGPU_SELFCALL LD_PRELOAD CUDA_VISIBLE_DEVICES
export SIMGPU_STATE=$tmp/state
export SIMGPU_CONFIG=$tmp/simgpu.conf
export LD_LIBRARY_PATH=$sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cat >"$SIMGPU_CONFIG" <<'EOF'
gpus = 3
gpu0.numa = 0
gpu1.numa = 0
gpu2.numa = 1
gpu0.pci_path = 0/1
gpu1.pci_path = 0/1
EOF

# ---- build ----
if ! make -s -C "$sim" >"$tmp/build.log" 2>&1 ||
	! make -s -C "$cli" driver-api-client >>"$tmp/build.log" 2>&1; then
	fail "build simgpu and driver-api-client" "$(oneline "$tmp/build.log")"
	exit 1
fi
pass "build simgpu and driver-api-client"

# ---- the client's checks ----
# Each "ok WHAT" or "bad WHAT: DETAIL" line is one check; the last line,
# "done OK BAD", shows it ran to the end. Fewer checks than expected is a
# failure too: a check that silently stopped running cannot fail.
expected=61

# run_client LABEL [VAR=VALUE...]: the client's checks, named LABEL: WHAT
# when LABEL is not empty, with the environment given.
run_client() {
	local label=$1 line what last n rc

	shift
	rm -rf "$tmp/in" && mkdir -p "$tmp/in"
	env "$@" timeout 120 "$cli/driver-api-client" "$tmp/in" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok "*) pass "$label${line#ok }" ;;
		"bad "*) what=${line#bad }; fail "$label${what%: *}" "${what##*: }" ;;
		esac
	done <"$tmp/out"
	last=$(tail -n 1 "$tmp/out")
	n=$(grep -c '^\(ok\|bad\) ' "$tmp/out")
	check "${label}driver-api-client ran every check to the end (exit 0, $expected checks)" \
		"exit $rc, $n checks, last line '$last', stderr $(oneline "$tmp/err" 200)" \
		test "$rc" -eq 0 -a "$n" -eq "$expected" -a "$last" = "done $expected 0"
}
run_client ""

# ---- the same against the driver built with ASan and UBSan ----
asan=$(cc -print-file-name=libasan.so)
if ! make -s -C "$sim" asan/libcuda.so.1 >"$tmp/asan.log" 2>&1 || [ ! -e "$asan" ]; then
	fail "ASan/UBSan build of the driver" "$(oneline "$tmp/asan.log") libasan: $asan"
else
	run_client "ASan: " LD_PRELOAD="$asan" LD_LIBRARY_PATH="$sim/asan:$LD_LIBRARY_PATH" \
		ASAN_OPTIONS=detect_leaks=0
	check "ASan and UBSan: no report from the driver" "$(grep -m 3 -e Sanitizer -e 'runtime error' "$tmp/err")" \
		eval '! grep -q -e Sanitizer -e "runtime error" "$tmp/err"'
fi

[ "$failures" -eq 0 ]
