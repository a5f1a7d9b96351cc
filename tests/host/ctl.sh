#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of vgpuctl (no kernel module needed), run from the repo root:
# - tests/unit/test_parse.c, built and run normally (build/unit/) and under
#   AddressSanitizer + UBSan (build/asan/): suites "parse" and "parse-asan";
#   likewise tests/unit/test_parse_sched.c (placement, on/off, seconds) and
#   tests/unit/test_cpuset.c (the cpuset writer against a fake cgroup tree
#   in a temporary directory), tests/unit/test_meta.c (label keys and
#   values, times) and tests/unit/test_dmem.c (the dmem reader and writer,
#   against a fake tree likewise), tests/unit/test_memroom.c (the agent's
#   memory.max - memory.current, a fake tree likewise),
#   tests/unit/test_ckpt_plan.c (the agent's steps of a process),
#   tests/unit/test_batch.c (vgpuctl -b's lines, words and loop):
#   "parse_sched[-asan]", "cpuset[-asan]", "meta[-asan]", "dmem[-asan]",
#   "memroom[-asan]", "ckpt_plan[-asan]", "batch[-asan]";
# - tests/unit/test_print.c (replies built with libnl, printed by tenant
#   show, ps, show and top), the same way: suites "print" and "print-asan";
# - vgpuctl's and vgpu-nlsend's behaviour without the module (help, usage
#   errors, the privilege check, the module-not-loaded message, -b FILE,
#   gpu probe without NVML and against simgpu's NVML; the checks are in
#   tests/host/ctl-cli.bash), with the normal
#   build and with an ASan/UBSan build: suites "ctl" and "ctl-asan";
# - make install, and that the man page renders without warnings.
# Every check prints "PASS: suite: what" or "FAIL: suite: what: detail";
# a missing tool or a failed build is a FAIL. Exit status 1 if any FAIL.
suite=ctl
. "$(dirname "$0")/lib.bash"

pass() { echo "PASS: $1: $2"; }
fail() { echo "FAIL: $1: $2: $3"; failures=$((failures + 1)); }

CC=${CC:-cc}
WARN=(-std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror)
# shellcheck disable=SC2054 # one -fsanitize= argument
SAN=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# --- tools ------------------------------------------------------------------
tools_ok=1
for t in "$CC" make pkg-config; do
	if command -v "$t" > /dev/null; then
		pass ctl "build tool $t is installed"
	else
		fail ctl "build tool $t is installed" "not found"
		tools_ok=0
	fi
done
for p in libnl-genl-3.0 libcap; do
	if pkg-config --exists "$p" 2> /dev/null; then
		pass ctl "pkg-config finds $p"
	else
		fail ctl "pkg-config finds $p" "missing (apt-get install libnl-genl-3-dev libcap-dev)"
		tools_ok=0
	fi
done

# --- unit tests of the parsers ------------------------------------------------
# run_unit SUITE BINARY [NAME]: relay its lines ("PASS: NAME: ...") under
# SUITE; a crash or a non-zero exit without a FAIL line, or no check at
# all, is a FAIL of its own. NAME defaults to parse.
run_unit() {
	local suite=$1 bin=$2 name=${3:-parse} rc
	"$bin" > "$tmp/unit.out" 2> "$tmp/unit.err"
	rc=$?
	sed "s/^\(PASS\|FAIL\): $name: /\1: $suite: /" "$tmp/unit.out"
	failures=$((failures + $(grep -c '^FAIL: ' "$tmp/unit.out")))
	if ! grep -q '^PASS: ' "$tmp/unit.out"; then
		fail "$suite" "test_$name ran checks" "none ran: $(oneline "$tmp/unit.err")"
	elif [ "$rc" -ne 0 ] && ! grep -q '^FAIL: ' "$tmp/unit.out"; then
		fail "$suite" "test_$name exits cleanly" "status $rc: $(oneline "$tmp/unit.err")"
	else
		pass "$suite" "test_$name exits with status $rc and no sanitizer report"
	fi
	if [ -s "$tmp/unit.err" ]; then
		fail "$suite" "test_$name writes nothing on stderr" "$(oneline "$tmp/unit.err")"
	fi
}

mkdir -p build/unit build/asan
# srcs NAME: a list of ctl/sources.mk, as paths ("" and an error line on
# stderr when it has none).
srcs() { make -s --no-print-directory -C ctl -f sources.mk "list-$1"; }

# Each unit test, linked with its list in ctl/sources.mk (UNIT_NAME: the
# files it tests and those they call), normally and under ASan and UBSan.
# print and apply link the reply printers, hence libnl and libcap; the
# others libc alone (batch.c takes vgpuctl.h's exit statuses, hence
# libnl's include path for all).
for name in parse parse_sched cpuset meta dmem memroom ckpt_plan batch print apply; do
	libs=()
	# shellcheck disable=SC2207
	case $name in print|apply) libs=($(pkg-config --libs libnl-genl-3.0 libcap) -ldl) ;; esac
	# shellcheck disable=SC2207
	list=($(srcs "UNIT_$name" 2> "$tmp/srcs.err"))
	for mode in "$name" "$name-asan"; do
		cp "$tmp/srcs.err" "$tmp/cc.err"
		if [ "$mode" = "$name" ]; then
			flags=(-O2 -g) out=build/unit/test_$name what="with -Wall -Wextra -Werror"
		else
			flags=(-O1 -g "${SAN[@]}") out=build/asan/test_$name what="with ASan and UBSan"
		fi
		# shellcheck disable=SC2046
		if [ "$tools_ok" = 1 ] && [ "${#list[@]}" -gt 0 ] &&
		   "$CC" "${WARN[@]}" "${flags[@]}" $(pkg-config --cflags libnl-genl-3.0 libcap) \
			-I"${NVML_INC:-build/deps/cuda/include}" "tests/unit/test_$name.c" "${list[@]}" \
			-o "$out" "${libs[@]}" 2>> "$tmp/cc.err"; then
			pass "$mode" "test_$name builds $what"
			run_unit "$mode" "$out" "$name"
		else
			fail "$mode" "test_$name builds $what" "$(oneline "$tmp/cc.err")"
		fi
	done
done

# --- builds of vgpuctl and vgpu-nlsend ------------------------------------------
built=0
if [ "$tools_ok" = 1 ] && make -s -C ctl > "$tmp/make.out" 2>&1 &&
   [ -x ctl/vgpuctl ] && [ -x tests/tools/vgpu-nlsend ]; then
	pass ctl "make -C ctl builds vgpuctl and vgpu-nlsend"
	built=1
else
	fail ctl "make -C ctl builds vgpuctl and vgpu-nlsend" "$(oneline "$tmp/make.out")"
fi
asan_built=0
# shellcheck disable=SC2207
ctl_srcs=($(srcs VGPUCTL_SRCS)) nlsend_srcs=($(srcs VGPU_NLSEND_SRCS))
if [ "$tools_ok" = 1 ]; then
	mkdir -p build/asan/ctl
	# shellcheck disable=SC2046
	if "$CC" "${WARN[@]}" -O1 -g "${SAN[@]}" $(pkg-config --cflags libnl-genl-3.0 libcap jansson openssl libxcrypt) \
		-I"${NVML_INC:-build/deps/cuda/include}" \
		"${ctl_srcs[@]}" \
		-o build/asan/ctl/vgpuctl \
		$(pkg-config --libs libnl-genl-3.0 libcap jansson openssl libxcrypt) -pthread -ldl 2> "$tmp/cc.err" &&
	   "$CC" "${WARN[@]}" -O1 -g "${SAN[@]}" $(pkg-config --cflags libnl-genl-3.0) \
		tests/tools/vgpu-nlsend.c "${nlsend_srcs[@]}" -o build/asan/ctl/vgpu-nlsend \
		$(pkg-config --libs libnl-genl-3.0) 2>> "$tmp/cc.err"; then
		pass ctl-asan "vgpuctl and vgpu-nlsend build with ASan and UBSan"
		asan_built=1
	else
		fail ctl-asan "vgpuctl and vgpu-nlsend build with ASan and UBSan" "$(oneline "$tmp/cc.err")"
	fi
fi

# --- behaviour without the module ---------------------------------------------
# run BIN ARGS...: sets rc, and $tmp/out, $tmp/err.
run() {
	"$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
}

# expect_help SUITE ARGS...: exit 0, usage on stdout, nothing on stderr.
expect_help() {
	local suite=$1 what="help: vgpuctl ${*:3}"
	run "$2" "${@:3}"
	if [ "$rc" -ne 0 ]; then
		fail "$suite" "$what" "exit $rc: $(oneline "$tmp/err")"
	elif [[ $(head -n 1 "$tmp/out") != "Usage: vgpuctl"* ]]; then
		fail "$suite" "$what" "stdout: $(oneline "$tmp/out")"
	elif [ -s "$tmp/err" ]; then
		fail "$suite" "$what" "stderr: $(oneline "$tmp/err")"
	else
		pass "$suite" "$what"
	fi
}

cgmnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
cgmnt=${cgmnt:-/sys/fs/cgroup}
cgmnt=$(printf '%b' "${cgmnt//\\/\\0}")	# undo \040-style escapes
nomod="Error: the vgpu kernel module is not loaded (try: modprobe vgpu)."

# gpu probe without NVML, and against simgpu's NVML (tests/simgpu, built if
# needed; its own state file and an empty configuration, so 2 GPUs of
# 16 GiB on NUMA nodes 0 and 1 whatever the host's /etc/simgpu.conf says).
simgpu_env=()
if [ "$tools_ok" = 1 ] && { [ -f tests/simgpu/libnvidia-ml.so.1 ] ||
			    make -s -C tests/simgpu > "$tmp/simgpu.out" 2>&1; } &&
   [ -f tests/simgpu/libnvidia-ml.so.1 ]; then
	: > "$tmp/simgpu.conf"
	simgpu_env=(LD_LIBRARY_PATH="$top/tests/simgpu" SIMGPU_CONFIG="$tmp/simgpu.conf"
		    SIMGPU_STATE="$tmp/simgpu-state" SIMGPU_GPUS=2 SIMGPU_VRAM=16G)
	pass ctl "simgpu's NVML is built for gpu probe"
else
	fail ctl "simgpu's NVML is built for gpu probe" "$(oneline "$tmp/simgpu.out")"
fi

# probe_checks SUITE VGPUCTL
probe_checks() {
	local s=$1 v=$2 uuid='GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}' want
	if grep -q 'libnvidia-ml\.so\.1 ' <<< "$(/sbin/ldconfig -p 2> /dev/null)"; then
		echo "# note: this host has an NVML in the system's paths; gpu probe without NVML not run"
	else
		expect_error "$s" 1 'Error: NVML (libnvidia-ml.so.1) not found: no NVIDIA driver on this host.' \
			env LD_LIBRARY_PATH="$tmp/nowhere" "$v" gpu probe --dry-run
		expect_error "$s" 1 'Error: NVML (libnvidia-ml.so.1) not found: no NVIDIA driver on this host.' \
			env LD_LIBRARY_PATH="$tmp/nowhere" "$v" -j gpu probe -n
	fi
	[ "${#simgpu_env[@]}" -gt 0 ] || return 0
	[ -d /sys/module/vgpu ] && echo "# note: vgpu is loaded; gpu probe --dry-run compares with its inventory"
	run env "${simgpu_env[@]}" "$v" gpu probe --dry-run
	want="^would add gpu 0 uuid $uuid pci 0000:01:00\.0 vram 16GiB numa 0
would add gpu 1 uuid $uuid pci 0000:02:00\.0 vram 16GiB numa 1\$"
	if [ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ] && [ "$(wc -l < "$tmp/out")" -eq 2 ] &&
	   grep -Eq "$(sed -n 1p <<< "$want")" <(sed -n 1p "$tmp/out") &&
	   grep -Eq "$(sed -n 2p <<< "$want")" <(sed -n 2p "$tmp/out"); then
		pass "$s" "gpu probe --dry-run lists simgpu's 2 GPUs"
	else
		fail "$s" "gpu probe --dry-run lists simgpu's 2 GPUs" \
			"exit $rc: $(oneline "$tmp/out") $(oneline "$tmp/err")"
	fi
	run env "${simgpu_env[@]}" "$v" -j gpu probe --dry-run
	if [ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ] &&
	   grep -Eq "^\[\{\"index\":0,\"uuid\":\"$uuid\",\"pci\":\"0000:01:00\.0\",\"vram\":17179869184,\"numa\":0,\"nvlink\":null,\"state\":\"healthy\",\"reason\":null,\"status\":\"new\"\},\{\"index\":1,.*\"pci\":\"0000:02:00\.0\".*\"numa\":1,\"nvlink\":null,\"state\":\"healthy\",\"reason\":null,\"status\":\"new\"\}\]\$" "$tmp/out"; then
		pass "$s" "gpu probe -j --dry-run: one object per GPU"
	else
		fail "$s" "gpu probe -j --dry-run: one object per GPU" \
			"exit $rc: $(oneline "$tmp/out") $(oneline "$tmp/err")"
	fi
	# A dry run needs no privilege.
	if nocap true 2> /dev/null && ! [ -d /sys/module/vgpu ]; then
		run nocap env "${simgpu_env[@]}" "$v" gpu probe -n
		if [ "$rc" -eq 0 ] && [ "$(grep -c '^would add gpu ' "$tmp/out")" -eq 2 ]; then
			pass "$s" "gpu probe --dry-run without CAP_NET_ADMIN"
		else
			fail "$s" "gpu probe --dry-run without CAP_NET_ADMIN" "exit $rc: $(oneline "$tmp/err")"
		fi
	fi
	run env "${simgpu_env[@]}" SIMGPU_GPUS=0 "$v" gpu probe --dry-run
	if [ "$rc" -eq 0 ] && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ]; then
		pass "$s" "gpu probe --dry-run with no GPU prints nothing"
	else
		fail "$s" "gpu probe --dry-run with no GPU prints nothing" \
			"exit $rc: $(oneline "$tmp/out") $(oneline "$tmp/err")"
	fi
}

# nocap CMD...: run CMD without CAP_NET_ADMIN (the tests run as root).
nocap() {
	setpriv --inh-caps=-net_admin --bounding-set=-net_admin -- "$@"
}

# has_net_admin: this shell has CAP_NET_ADMIN (bit 12) effective.
has_net_admin() {
	local eff
	eff=$(awk '/^CapEff:/ { print $2 }' /proc/self/status)
	[ -n "$eff" ] && (( (16#$eff >> 12) & 1 ))
}

# expect_error SUITE STATUS MESSAGE BIN ARGS...: exit STATUS, nothing on
# stdout, and on stderr exactly one line, MESSAGE if given, else any
# "Error: ....". vgpu-nlsend follows its Error: line with its usage.
expect_error() {
	local suite=$1 want_rc=$2 msg=$3 bin=$4 what first
	shift 4
	what="exit $want_rc: $(basename "$bin") $*"
	[ -z "$msg" ] || what="$what: $msg"
	run "$bin" "$@"
	first=$(head -n 1 "$tmp/err")
	if [ "$rc" -ne "$want_rc" ]; then
		fail "$suite" "$what" "exit $rc: $(oneline "$tmp/err")"
	elif [ -s "$tmp/out" ]; then
		fail "$suite" "$what" "stdout not empty: $(oneline "$tmp/out")"
	elif [ "$(basename "$bin")" != vgpu-nlsend ] && [ "$(wc -l < "$tmp/err")" -ne 1 ]; then
		fail "$suite" "$what" "not one line on stderr: $(oneline "$tmp/err")"
	elif [ -n "$msg" ] && [ "$first" != "$msg" ]; then
		fail "$suite" "$what" "got: $(oneline "$tmp/err")"
	elif ! [[ $first =~ ^Error:\ .*\.$ || $first == "Usage: vgpu-nlsend"* ]]; then
		fail "$suite" "$what" "not an Error: line ending with a period: $(oneline "$tmp/err")"
	else
		pass "$suite" "$what"
	fi
}

# shellcheck source=tests/host/ctl-cli.bash
. tests/host/ctl-cli.bash
[ "$built" = 1 ] && cli_checks ctl ctl/vgpuctl tests/tools/vgpu-nlsend
[ "$asan_built" = 1 ] && cli_checks ctl-asan build/asan/ctl/vgpuctl build/asan/ctl/vgpu-nlsend

# shellcheck source=tests/host/ctl-containers.bash
. tests/host/ctl-containers.bash
[ "$built" = 1 ] && container_checks ctl ctl/vgpuctl
[ "$asan_built" = 1 ] && container_checks ctl-asan build/asan/ctl/vgpuctl

# --- install -------------------------------------------------------------------
if [ "$built" = 1 ]; then
	dest=$tmp/dest
	if make -s -C ctl install DESTDIR="$dest" PREFIX=/usr > "$tmp/make.out" 2>&1 &&
	   [ -x "$dest/usr/sbin/vgpuctl" ] && [ -f "$dest/usr/share/man/man8/vgpuctl.8" ]; then
		pass ctl "make install puts vgpuctl in sbin and vgpuctl.8 in man8"
	else
		fail ctl "make install puts vgpuctl in sbin and vgpuctl.8 in man8" \
			"$(oneline "$tmp/make.out") $(find "$dest" -type f 2> /dev/null | tr '\n' ' ')"
	fi
	# (not "ldd | grep -q": with pipefail, ldd's SIGPIPE would fail it)
	ldd ctl/vgpuctl > "$tmp/ldd.out" 2>&1
	if grep -q libnl-genl-3 "$tmp/ldd.out"; then
		pass ctl "vgpuctl is linked dynamically against libnl-genl-3"
	else
		fail ctl "vgpuctl is linked dynamically against libnl-genl-3" "$(oneline "$tmp/ldd.out")"
	fi
fi

# --- man page --------------------------------------------------------------------
if ! command -v groff > /dev/null; then
	fail ctl "man page renders" "groff not found (apt-get install groff-base)"
elif [ ! -f Documentation/vgpuctl.8 ]; then
	fail ctl "man page renders" "Documentation/vgpuctl.8 is missing"
else
	groff -man -Tutf8 -ww -z Documentation/vgpuctl.8 > "$tmp/groff.err" 2>&1
	if [ -s "$tmp/groff.err" ]; then
		fail ctl "man page renders without groff warnings" "$(oneline "$tmp/groff.err")"
	else
		pass ctl "man page renders without groff warnings"
	fi
	groff -man -Tutf8 Documentation/vgpuctl.8 2> /dev/null | col -b > "$tmp/man.txt" 2> /dev/null ||
		groff -man -Tascii -P-cbou Documentation/vgpuctl.8 > "$tmp/man.txt" 2> /dev/null
	missing=""
	for sec in NAME SYNOPSIS DESCRIPTION OPTIONS "OBJECTS AND COMMANDS" OUTPUT "EXIT STATUS" \
		   EXAMPLES "SEE ALSO"; do
		grep -q "^$sec\$" "$tmp/man.txt" || missing="$missing [$sec]"
	done
	for key in vram-max vram-min gpus weight compute-max priority cpus mems none \
		   cgroup_removed compute_max usage vram_current vram_peak vram_failures \
		   vram_budget vram_byte_seconds byte-seconds "gpu probe" dry-run \
		   libnvidia-ml.so.1 "vgpuctl ps" PID TENANT BUDGET "set default" allow deny \
		   '"procs"' '"default"' status "vgpuctl top" placement exclusive manual auto \
		   cpus_effective mems_effective cpus-effective mems-effective cpuset.cpus \
		   cpuset.mems cgroup.subtree_control gpu_time_ns throttled_ns grants gpu-time \
		   interval_s elapsed_s SHARE THROTTLED preemptible vram-wait vram_wait_ns; do
		grep -q -- "$key" "$tmp/man.txt" || missing="$missing $key"
	done
	if [ -z "$missing" ]; then
		pass ctl "man page has every section and names every key"
	else
		fail ctl "man page has every section and names every key" "missing:$missing"
	fi
fi

[ "$failures" -eq 0 ]
