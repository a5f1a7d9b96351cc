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
#   against a fake tree likewise), tests/unit/test_batch.c (vgpuctl -b's
#   lines, words and loop): "parse_sched[-asan]", "cpuset[-asan]",
#   "meta[-asan]", "dmem[-asan]", "batch[-asan]";
# - tests/unit/test_print.c (replies built with libnl, printed by tenant
#   show, ps, show and top), the same way: suites "print" and "print-asan";
# - vgpuctl's and vgpu-nlsend's behaviour without the module (help, usage
#   errors, the privilege check, the module-not-loaded message, -b FILE,
#   gpu probe without NVML and against simgpu's NVML), with the normal
#   build and with an ASan/UBSan build: suites "ctl" and "ctl-asan";
# - make install, and that the man page renders without warnings.
# Every check prints "PASS: suite: what" or "FAIL: suite: what: detail";
# a missing tool or a failed build is a FAIL. Exit status 1 if any FAIL.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pass() { echo "PASS: $1: $2"; }
fail() { echo "FAIL: $1: $2: $3"; failures=$((failures + 1)); }
oneline() { head -c 400 "$1" | tr '\n' '|'; }

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
if [ "$tools_ok" = 1 ] &&
   "$CC" "${WARN[@]}" -O2 -g tests/unit/test_parse.c ctl/parse.c ctl/parse_id.c ctl/parse_cgroup.c \
	-o build/unit/test_parse 2> "$tmp/cc.err"; then
	pass parse "test_parse builds with -Wall -Wextra -Werror"
	run_unit parse build/unit/test_parse
else
	fail parse "test_parse builds with -Wall -Wextra -Werror" "$(oneline "$tmp/cc.err")"
fi
if [ "$tools_ok" = 1 ] &&
   "$CC" "${WARN[@]}" -O1 -g "${SAN[@]}" tests/unit/test_parse.c ctl/parse.c ctl/parse_id.c ctl/parse_cgroup.c \
	-o build/asan/test_parse 2> "$tmp/cc.err"; then
	pass parse-asan "test_parse builds with ASan and UBSan"
	run_unit parse-asan build/asan/test_parse
else
	fail parse-asan "test_parse builds with ASan and UBSan" "$(oneline "$tmp/cc.err")"
fi

# The other libc-only unit tests: NAME and the ctl/ file it tests.
# (batch.c takes vgpuctl.h's exit statuses, hence libnl's include path.)
for unit in parse_sched:ctl/parse_sched.c cpuset:ctl/cpuset.c meta:ctl/parse_meta.c \
	    dmem:ctl/dmem.c batch:ctl/batch.c; do
	name=${unit%%:*} src=${unit#*:}
	for mode in "$name" "$name-asan"; do
		if [ "$mode" = "$name" ]; then
			flags=(-O2 -g) out=build/unit/test_$name what="with -Wall -Wextra -Werror"
		else
			flags=(-O1 -g "${SAN[@]}") out=build/asan/test_$name what="with ASan and UBSan"
		fi
		# shellcheck disable=SC2046
		if [ "$tools_ok" = 1 ] &&
		   "$CC" "${WARN[@]}" "${flags[@]}" $(pkg-config --cflags libnl-genl-3.0) \
			"tests/unit/test_$name.c" "$src" \
			-o "$out" 2> "$tmp/cc.err"; then
			pass "$mode" "test_$name builds $what"
			run_unit "$mode" "$out" "$name"
		else
			fail "$mode" "test_$name builds $what" "$(oneline "$tmp/cc.err")"
		fi
	done
done

# test_print links the reply printers, hence libnl and libcap.
PRINT_SRCS=(tests/unit/test_print.c ctl/tenant.c ctl/tenant_replace.c ctl/tenant_print.c ctl/tenant_final.c
	    ctl/final.c ctl/placement.c ctl/cpuset.c ctl/print.c ctl/json.c ctl/parse.c
	    ctl/parse_id.c ctl/parse_cgroup.c ctl/parse_sched.c ctl/parse_meta.c
	    ctl/util.c ctl/nl.c ctl/backstop.c ctl/backstop_read.c ctl/backstop_show.c
	    ctl/backstop_nvml.c ctl/dmem.c ctl/gpu.c ctl/probe.c)
for mode in print print-asan; do
	if [ "$mode" = print ]; then
		flags=(-O2 -g) out=build/unit/test_print what="with -Wall -Wextra -Werror"
	else
		flags=(-O1 -g "${SAN[@]}") out=build/asan/test_print what="with ASan and UBSan"
	fi
	# shellcheck disable=SC2046
	if [ "$tools_ok" = 1 ] &&
	   "$CC" "${WARN[@]}" "${flags[@]}" $(pkg-config --cflags libnl-genl-3.0 libcap) \
		-I"${NVML_INC:-build/deps/nvml/usr/include}" "${PRINT_SRCS[@]}" -o "$out" \
		$(pkg-config --libs libnl-genl-3.0 libcap) -ldl 2> "$tmp/cc.err"; then
		pass "$mode" "test_print builds $what"
		run_unit "$mode" "$out" print
	else
		fail "$mode" "test_print builds $what" "$(oneline "$tmp/cc.err")"
	fi
done

# test_apply: apply's reader and diff, with the parsers they reuse.
APPLY_SRCS=(tests/unit/test_apply.c ctl/apply_load.c ctl/apply_diff.c ctl/conf.c ctl/flavour.c
	    ctl/host.c "${PRINT_SRCS[@]:1}")
for mode in apply apply-asan; do
	if [ "$mode" = apply ]; then
		flags=(-O2 -g) out=build/unit/test_apply what="with -Wall -Wextra -Werror"
	else
		flags=(-O1 -g "${SAN[@]}") out=build/asan/test_apply what="with ASan and UBSan"
	fi
	# shellcheck disable=SC2046
	if [ "$tools_ok" = 1 ] &&
	   "$CC" "${WARN[@]}" "${flags[@]}" $(pkg-config --cflags libnl-genl-3.0 libcap) \
		-I"${NVML_INC:-build/deps/nvml/usr/include}" "${APPLY_SRCS[@]}" -o "$out" \
		$(pkg-config --libs libnl-genl-3.0 libcap) -ldl 2> "$tmp/cc.err"; then
		pass "$mode" "test_apply builds $what"
		run_unit "$mode" "$out" apply
	else
		fail "$mode" "test_apply builds $what" "$(oneline "$tmp/cc.err")"
	fi
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
if [ "$tools_ok" = 1 ]; then
	mkdir -p build/asan/ctl
	# shellcheck disable=SC2046
	if "$CC" "${WARN[@]}" -O1 -g "${SAN[@]}" $(pkg-config --cflags libnl-genl-3.0 libcap jansson) \
		-I"${NVML_INC:-build/deps/nvml/usr/include}" \
		ctl/main.c ctl/batch.c ctl/util.c ctl/nl.c ctl/parse.c ctl/parse_id.c ctl/parse_cgroup.c \
		ctl/parse_sched.c ctl/parse_meta.c ctl/json.c ctl/print.c ctl/gpu.c ctl/probe.c \
		ctl/tenant.c ctl/tenant_replace.c ctl/tenant_print.c ctl/tenant_final.c ctl/final.c \
		ctl/placement.c ctl/cpuset.c ctl/backstop.c ctl/backstop_read.c ctl/backstop_show.c \
		ctl/backstop_nvml.c ctl/dmem.c ctl/proc.c ctl/host.c ctl/monitor.c ctl/top.c \
		ctl/snap.c ctl/prom.c ctl/httpd.c ctl/file.c ctl/metrics.c ctl/acct_state.c \
		ctl/acct_record.c ctl/account.c \
		ctl/conf.c ctl/flavour.c ctl/cdi.c ctl/apply.c ctl/apply_load.c ctl/apply_diff.c ctl/oci.c ctl/cgpath.c ctl/hook.c ctl/hook_tenant.c \
		-o build/asan/ctl/vgpuctl \
		$(pkg-config --libs libnl-genl-3.0 libcap jansson) -ldl 2> "$tmp/cc.err" &&
	   "$CC" "${WARN[@]}" -O1 -g "${SAN[@]}" $(pkg-config --cflags libnl-genl-3.0) \
		tests/tools/vgpu-nlsend.c ctl/nl.c -o build/asan/ctl/vgpu-nlsend \
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

cli_checks() {
	local s=$1 v=$2 n=$3
	expect_help "$s" "$v" help
	expect_help "$s" "$v" -h
	expect_help "$s" "$v" --help
	expect_help "$s" "$v" gpu help
	expect_help "$s" "$v" backstop help
	expect_help "$s" "$v" backstop sync help
	expect_help "$s" "$v" g help
	expect_help "$s" "$v" gpu add help
	expect_help "$s" "$v" tenant help
	expect_help "$s" "$v" t help
	expect_help "$s" "$v" tenant set help
	expect_help "$s" "$v" monitor help
	expect_help "$s" "$v" gpu probe help
	expect_help "$s" "$v" ps help
	expect_help "$s" "$v" show help
	expect_help "$s" "$v" set help
	expect_help "$s" "$v" -j set -h
	expect_help "$s" "$v" top help
	expect_help "$s" "$v" to -h
	expect_help "$s" "$v" -j top --help
	run "$v" help
	local o
	for o in "vgpuctl gpu probe" "vgpuctl ps" "vgpuctl show" "vgpuctl set default" \
		 "vgpuctl set monitor-group" "vgpuctl tenant replace" "vgpuctl tenant final ack SEQ" \
		 "label KEY=VALUE" "[ephemeral]" \
		 "vgpuctl top [-d SECONDS] [-n ITERATIONS]" "placement { manual | auto }" \
		 "exclusive { on | off }"; do
		if grep -qF -- "$o" "$tmp/out"; then pass "$s" "help names $o"
		else fail "$s" "help names $o" "$(oneline "$tmp/out")"; fi
	done
	expect_help "$s" "$v" -j tenant help
	run "$v" -V
	if [ "$rc" -eq 0 ] && grep -q '^vgpuctl ' "$tmp/out"; then
		pass "$s" "vgpuctl -V prints the version"
	else
		fail "$s" "vgpuctl -V prints the version" "exit $rc: $(oneline "$tmp/out")"
	fi

	expect_error "$s" 2 'Error: missing OBJECT; try "vgpuctl help".' "$v"
	expect_error "$s" 2 'Error: unknown object "frob"; try "vgpuctl help".' "$v" frob
	expect_error "$s" 2 'Error: unknown option "-x"; try "vgpuctl help".' "$v" -x gpu show
	expect_error "$s" 2 'Error: unknown option "--frob"; try "vgpuctl help".' "$v" --frob gpu
	expect_error "$s" 2 'Error: unknown command "frob" for gpu; try "vgpuctl gpu help".' "$v" gpu frob
	expect_error "$s" 2 'Error: unknown command "frob" for tenant; try "vgpuctl tenant help".' "$v" tenant frob
	expect_error "$s" 2 'Error: missing INDEX for gpu add.' "$v" gpu add
	expect_error "$s" 2 'Error: invalid INDEX "64" for gpu add (0-63).' "$v" gpu add 64 vram 1G
	expect_error "$s" 2 'Error: invalid INDEX "-1" for gpu add (0-63).' "$v" gpu add -1 vram 1G
	expect_error "$s" 2 'Error: vram is required.' "$v" gpu add 0
	expect_error "$s" 2 'Error: vram is required.' "$v" gpu add 0 numa 0
	expect_error "$s" 2 'Error: invalid SIZE "8X" for vram.' "$v" gpu add 0 vram 8X
	expect_error "$s" 2 'Error: invalid SIZE "16777216T" for vram.' "$v" gpu add 0 vram 16777216T
	expect_error "$s" 2 'Error: missing value for vram.' "$v" gpu add 0 vram
	expect_error "$s" 2 'Error: duplicate key "vram" for gpu add.' "$v" gpu add 0 vram 1G vram 2G
	expect_error "$s" 2 'Error: invalid UUID "GPU-1" for uuid.' "$v" gpu add 0 vram 1G uuid GPU-1
	expect_error "$s" 2 'Error: invalid BUSID "3b:00.0" for pci.' "$v" gpu add 0 vram 1G pci 3b:00.0
	expect_error "$s" 2 'Error: invalid NODE "-2" for numa (-1 to 1023).' "$v" gpu add 0 vram 1G numa -2
	expect_error "$s" 2 'Error: unknown key "colour" for gpu add.' "$v" gpu add 0 vram 1G colour red
	expect_error "$s" 2 'Error: missing INDEX for gpu del.' "$v" gpu del
	expect_error "$s" 2 'Error: invalid INDEX "x" for gpu del (0-63).' "$v" gpu del x
	expect_error "$s" 2 'Error: unexpected argument "2" for gpu del.' "$v" gpu del 1 2
	expect_error "$s" 2 'Error: invalid INDEX "64" for gpu show (0-63).' "$v" gpu show 64
	expect_error "$s" 2 'Error: unexpected argument "2" for gpu show.' "$v" gpu list 1 2

	expect_error "$s" 2 'Error: missing COMMAND for backstop; try "vgpuctl backstop help".' "$v" backstop
	expect_error "$s" 2 'Error: unknown command "frob" for backstop; try "vgpuctl backstop help".' \
		"$v" backstop frob
	expect_error "$s" 2 'Error: unexpected argument "b" for backstop sync.' "$v" backstop sync a b
	expect_error "$s" 2 'Error: invalid NAME "a b" for backstop sync (1-63 printable characters, no spaces).' \
		"$v" backstop sync "a b"

	expect_error "$s" 2 'Error: missing NAME for tenant add.' "$v" tenant add
	expect_error "$s" 2 'Error: cgroup is required.' "$v" tenant add a
	expect_error "$s" 2 'Error: cgroup is required.' "$v" tenant add a weight 5
	expect_error "$s" 2 'Error: invalid SIZE "8X" for vram-max.' "$v" tenant add a cgroup a vram-max 8X
	expect_error "$s" 2 'Error: unknown key "foo" for tenant add.' "$v" tenant add a cgroup a foo 1
	expect_error "$s" 2 'Error: missing value for weight.' "$v" tenant add a cgroup a weight
	expect_error "$s" 2 'Error: missing value for cgroup.' "$v" tenant add a cgroup
	expect_error "$s" 2 'Error: duplicate key "cgroup" for tenant add.' "$v" tenant add a cgroup a cgroup b
	expect_error "$s" 2 'Error: duplicate key "weight" for tenant add.' "$v" tenant add a cgroup a weight 1 weight 2
	expect_error "$s" 2 "Error: cgroup path must be under $cgmnt." "$v" tenant add a cgroup /tmp
	expect_error "$s" 2 "Error: cgroup path must be under $cgmnt." "$v" tenant add a cgroup ../x
	expect_error "$s" 2 'Error: invalid NAME "a b" for tenant add (1-63 printable characters, no spaces).' \
		"$v" tenant add "a b" cgroup a
	expect_error "$s" 2 "" "$v" tenant add "$(printf 'x%.0s' $(seq 64))" cgroup a
	expect_error "$s" 2 'Error: invalid N "0" for weight (1-10000).' "$v" tenant add a cgroup a weight 0
	expect_error "$s" 2 'Error: invalid N "10001" for weight (1-10000).' "$v" tenant add a cgroup a weight 10001
	expect_error "$s" 2 'Error: invalid PCT "101%" for compute-max (0-100, at most 2 decimals).' \
		"$v" tenant add a cgroup a compute-max 101%
	expect_error "$s" 2 'Error: invalid PCT "37.125" for compute-max (0-100, at most 2 decimals).' \
		"$v" tenant add a cgroup a compute-max 37.125
	expect_error "$s" 2 'Error: invalid PRIORITY "urgent" for priority (low, normal or high).' \
		"$v" tenant add a cgroup a priority urgent
	expect_error "$s" 2 'Error: invalid LIST "64" for gpus.' "$v" tenant add a cgroup a gpus 64
	expect_error "$s" 2 'Error: invalid LIST "3-1" for cpus.' "$v" tenant add a cgroup a cpus 3-1
	expect_error "$s" 2 'Error: invalid LIST "" for mems.' "$v" tenant add a cgroup a mems ""
	expect_error "$s" 2 'Error: invalid SIZE "none" for vram-max.' "$v" tenant add a cgroup a vram-max none
	expect_error "$s" 2 'Error: missing NAME for tenant set.' "$v" tenant set
	expect_error "$s" 2 'Error: tenant set needs at least one QUOTA VALUE or label.' "$v" tenant set a
	# labels, ephemeral, replace, final records, the monitor group
	local badkey='Error: invalid label "%s" (KEY=VALUE, KEY: 1-63 letters, digits and ._/- starting with a letter or digit).'
	local k64 l17 l33 i
	k64=$(printf 'k%.0s' $(seq 64))
	# shellcheck disable=SC2059
	for l in team -x=1 "a b=1" =v "$k64=v" "a:b=c"; do
		expect_error "$s" 2 "$(printf "$badkey" "$l")" "$v" tenant add a cgroup a label "$l"
	done
	expect_error "$s" 2 'Error: invalid VALUE in label "k=a	b" (at most 255 printable ASCII characters).' \
		"$v" tenant add a cgroup a label "k=a	b"
	expect_error "$s" 2 "Error: invalid VALUE in label \"k=$(printf 'v%.0s' $(seq 256))\" (at most 255 printable ASCII characters)." \
		"$v" tenant set a label "k=$(printf 'v%.0s' $(seq 256))"
	expect_error "$s" 2 'Error: label "k=" has no value ("label KEY=" removes a label in tenant set).' \
		"$v" tenant add a cgroup a label k=
	expect_error "$s" 2 'Error: duplicate label "k" for tenant add.' "$v" tenant add a cgroup a label k=1 label k=2
	expect_error "$s" 2 'Error: duplicate label "k" for tenant set.' "$v" tenant set a label k=1 label k=
	expect_error "$s" 2 'Error: missing value for label.' "$v" tenant set a label
	l17="" l33=""
	for i in $(seq 17); do l17="$l17 label k$i=v"; done
	for i in $(seq 33); do l33="$l33 label k$i="; done
	# shellcheck disable=SC2086
	expect_error "$s" 2 'Error: too many labels for tenant add (at most 16).' "$v" tenant add a cgroup a $l17
	# shellcheck disable=SC2086
	expect_error "$s" 2 'Error: too many labels for tenant set (at most 32).' "$v" tenant set a $l33
	expect_error "$s" 2 'Error: duplicate key "ephemeral" for tenant add.' "$v" tenant add a cgroup a ephemeral ephemeral
	expect_error "$s" 2 'Error: unknown key "ephemeral" for tenant set.' "$v" tenant set a ephemeral
	expect_error "$s" 2 'Error: missing NAME for tenant replace.' "$v" tenant replace
	expect_error "$s" 2 'Error: cgroup is required.' "$v" tenant replace a weight 5
	expect_error "$s" 2 'Error: unknown key "none" for tenant replace.' "$v" tenant replace a cgroup a none 1
	expect_error "$s" 2 'Error: missing SEQ for tenant final ack.' "$v" tenant final ack
	for i in x -1 1x "" 18446744073709551616; do
		expect_error "$s" 2 "Error: invalid SEQ \"$i\" for tenant final ack (a final-seq)." \
			"$v" tenant final ack "$i"
	done
	expect_error "$s" 2 'Error: unexpected argument "2" for tenant final ack.' "$v" tenant final ack 1 2
	expect_error "$s" 2 'Error: unexpected argument "x" for tenant final show.' "$v" tenant final show x
	expect_error "$s" 2 'Error: unknown command "frob" for tenant final; try "vgpuctl tenant help".' \
		"$v" tenant final frob
	expect_error "$s" 2 'Error: missing value for monitor-group.' "$v" set monitor-group
	expect_error "$s" 2 'Error: invalid GROUP "no-such-group-x" for monitor-group (a group name or number, or none).' \
		"$v" set monitor-group no-such-group-x
	expect_error "$s" 2 'Error: invalid GROUP "4294967295" for monitor-group (a group name or number, or none).' \
		"$v" host set monitor-group 4294967295
	expect_error "$s" 2 'Error: duplicate key "monitor-group" for set.' "$v" set monitor-group 1 monitor-group 2
	expect_error "$s" 2 'Error: unknown command "frob" for host; try "vgpuctl host help".' "$v" host frob
	expect_error "$s" 2 'Error: unexpected argument "x" for show.' "$v" host show x
	expect_error "$s" 2 'Error: unknown key "cgroup" for tenant set.' "$v" tenant set a cgroup b
	expect_error "$s" 2 'Error: duplicate key "weight" for tenant set.' "$v" tenant set a weight none weight 2
	expect_error "$s" 2 'Error: missing value for mems.' "$v" tenant set a weight 2 mems
	expect_error "$s" 2 'Error: invalid SIZE "-1G" for vram-min.' "$v" tenant set a vram-min -1G
	expect_error "$s" 2 'Error: missing NAME for tenant del.' "$v" tenant del
	expect_error "$s" 2 'Error: unexpected argument "b" for tenant del.' "$v" tenant del a b
	expect_error "$s" 2 'Error: unexpected argument "b" for tenant show.' "$v" tenant show a b
	expect_error "$s" 2 'Error: unexpected argument "x" for monitor.' "$v" monitor x
	expect_error "$s" 2 'Error: unexpected argument "x" for ps.' "$v" ps x
	expect_error "$s" 2 'Error: unexpected argument "all" for ps.' "$v" -j ps all
	expect_error "$s" 2 'Error: unexpected argument "x" for show.' "$v" show x
	expect_error "$s" 2 'Error: missing KEY for set; try "vgpuctl set help".' "$v" set
	expect_error "$s" 2 'Error: unknown key "policy" for set.' "$v" set policy deny
	expect_error "$s" 2 'Error: missing value for default.' "$v" set default
	expect_error "$s" 2 'Error: invalid POLICY "maybe" for default (allow or deny).' "$v" set default maybe
	expect_error "$s" 2 'Error: invalid POLICY "Deny" for default (allow or deny).' "$v" set default Deny
	expect_error "$s" 2 'Error: duplicate key "default" for set.' "$v" set default allow default deny
	expect_error "$s" 2 'Error: unknown key "x" for set.' "$v" set default allow x
	expect_error "$s" 2 'Error: unexpected argument "x" for gpu probe.' "$v" gpu probe x
	expect_error "$s" 2 'Error: unexpected argument "--dry-run" for gpu probe.' "$v" gpu probe --dry-run --dry-run
	expect_error "$s" 2 'Error: unexpected argument "x" for gpu probe.' nocap "$v" gpu probe x

	# Placement keys (issue #6).
	expect_error "$s" 2 'Error: invalid PLACEMENT "fixed" for placement (manual or auto).' \
		"$v" tenant add a cgroup a placement fixed
	expect_error "$s" 2 'Error: invalid PLACEMENT "Auto" for placement (manual or auto).' \
		"$v" tenant set a placement Auto
	expect_error "$s" 2 'Error: invalid PLACEMENT "none" for placement (manual or auto).' \
		"$v" tenant add a cgroup a placement none
	expect_error "$s" 2 'Error: invalid VALUE "yes" for exclusive (on or off).' \
		"$v" tenant add a cgroup a exclusive yes
	expect_error "$s" 2 'Error: invalid VALUE "1" for exclusive (on or off).' \
		"$v" tenant set a exclusive 1
	expect_error "$s" 2 'Error: invalid VALUE "none" for exclusive (on or off).' \
		"$v" tenant add a cgroup a exclusive none
	expect_error "$s" 2 'Error: missing value for exclusive.' "$v" tenant set a placement auto exclusive
	expect_error "$s" 2 'Error: duplicate key "placement" for tenant set.' \
		"$v" tenant set a placement auto placement none
	expect_error "$s" 2 'Error: duplicate key "exclusive" for tenant add.' \
		"$v" tenant add a cgroup a exclusive on exclusive off
	expect_error "$s" 2 'Error: unknown key "cpus-effective" for tenant set.' \
		"$v" tenant set a cpus-effective 0
	expect_error "$s" 2 'Error: invalid PLACEMENT "x" for placement (manual or auto).' \
		nocap "$v" tenant set a placement x

	# top (issue #5): usage errors exit 2 before anything is opened.
	expect_error "$s" 2 'Error: unexpected argument "x" for top.' "$v" top x
	expect_error "$s" 2 'Error: unexpected argument "-j" for top.' "$v" top -j
	expect_error "$s" 2 'Error: missing value for -d.' "$v" top -d
	expect_error "$s" 2 'Error: missing value for -n.' "$v" top -d 1 -n
	expect_error "$s" 2 'Error: duplicate option "-d" for top.' "$v" top -d 1 -d 2
	expect_error "$s" 2 'Error: duplicate option "--iterations" for top.' "$v" top -n 1 --iterations 2
	local d
	for d in 0 0.0 -1 1.2345 .5 1. 1s 86401 abc ""; do
		expect_error "$s" 2 "Error: invalid SECONDS \"$d\" for -d (0.001-86400, at most 3 decimals)." \
			"$v" top -d "$d"
	done
	expect_error "$s" 2 'Error: invalid SECONDS "0" for --delay (0.001-86400, at most 3 decimals).' \
		"$v" top --delay 0
	for d in 0 -1 x 4294967296 1.5; do
		expect_error "$s" 2 "Error: invalid ITERATIONS \"$d\" for -n (1-4294967295)." "$v" top -n "$d"
	done
	probe_checks "$s" "$v"
	batch_checks "$s" "$v"

	if [ -d /sys/module/vgpu ]; then
		echo "# note: vgpu is loaded on this host; module-not-loaded checks replaced"
		run "$v" gpu show
		if [ "$rc" -eq 0 ]; then pass "$s" "gpu show with the module loaded"
		else fail "$s" "gpu show with the module loaded" "exit $rc: $(oneline "$tmp/err")"; fi
	else
		expect_error "$s" 1 "$nomod" "$v" gpu show
		expect_error "$s" 1 "$nomod" "$v" gpu show 3
		expect_error "$s" 1 "$nomod" "$v" -j gpu show
		expect_error "$s" 1 "$nomod" "$v" -p tenant show
		expect_error "$s" 1 "$nomod" "$v" tenant list team-a
		expect_error "$s" 1 "$nomod" "$v" monitor
		expect_error "$s" 1 "$nomod" "$v" m
		expect_error "$s" 1 "$nomod" "$v" ps
		expect_error "$s" 1 "$nomod" "$v" -j ps
		expect_error "$s" 1 "$nomod" "$v" show
		expect_error "$s" 1 "$nomod" "$v" -p show
		expect_error "$s" 1 "$nomod" "$v" top -n 2 -d 0.2
		expect_error "$s" 1 "$nomod" "$v" -j top -n 1 -d 0.001
		expect_error "$s" 1 "$nomod" "$v" to
		if has_net_admin; then
			expect_error "$s" 1 "$nomod" "$v" set default deny
			if [ "${#simgpu_env[@]}" -gt 0 ]; then
				expect_error "$s" 1 "$nomod" env "${simgpu_env[@]}" "$v" gpu probe
			fi
			expect_error "$s" 1 "$nomod" "$v" gpu add 0 vram 1G
			expect_error "$s" 1 "$nomod" "$v" tenant add a cgroup a vram-max 1.5G gpus 0-1 cpus 0-3,8
			expect_error "$s" 1 "$nomod" "$v" tenant set a vram-max none weight 5
			expect_error "$s" 1 "$nomod" "$v" tenant add a cgroup a placement auto exclusive on
			expect_error "$s" 1 "$nomod" "$v" tenant set a placement none exclusive off cpus none
			expect_error "$s" 1 "$nomod" "$v" tenant del a
		fi
		expect_error "$s" 1 "$nomod" "$n" gpu-get
		expect_error "$s" 1 "$nomod" "$n" -d tenant-get
		expect_error "$s" 1 "$nomod" "$n" -d proc-get
		expect_error "$s" 1 "$nomod" "$n" host-get
		expect_error "$s" 1 "$nomod" "$n" host-set u32:1=1
		expect_error "$s" 1 "$nomod" "$n" proc-register u32:4=3
	fi

	# Without CAP_NET_ADMIN a mutation is refused before anything is sent
	# (tested by dropping the capability, since the tests run as root).
	if nocap true 2> /dev/null; then
		local msg="Error: this command needs CAP_NET_ADMIN (run it as root)."
		expect_error "$s" 1 "$msg" nocap "$v" gpu add 0 vram 1G
		expect_error "$s" 1 "$msg" nocap "$v" gpu del 0
		expect_error "$s" 1 "$msg" nocap "$v" tenant add a cgroup a
		expect_error "$s" 1 "$msg" nocap "$v" tenant set a weight 3
		expect_error "$s" 1 "$msg" nocap "$v" tenant set a placement auto exclusive on
		[ -d /sys/module/vgpu ] || expect_error "$s" 1 "$nomod" nocap "$v" top -n 1
		expect_error "$s" 1 "$msg" nocap "$v" tenant del a
		expect_error "$s" 1 "$msg" nocap "$v" set default deny
		expect_error "$s" 1 "$msg" nocap "$v" gpu probe
		[ -d /sys/module/vgpu ] || expect_error "$s" 1 "$nomod" nocap "$v" ps
		[ -d /sys/module/vgpu ] || expect_error "$s" 1 "$nomod" nocap "$v" show
		expect_error "$s" 2 'Error: missing value for default.' nocap "$v" set default
		[ -d /sys/module/vgpu ] || expect_error "$s" 1 "$nomod" nocap "$v" gpu show
		expect_error "$s" 2 'Error: vram is required.' nocap "$v" gpu add 0
	else
		echo "# note: cannot drop CAP_NET_ADMIN here (setpriv); privilege checks not run"
	fi

	expect_error "$s" 2 "" "$n"
	expect_error "$s" 2 "" "$n" frob
	expect_error "$s" 2 "" "$n" gpu-get u32:1
	expect_error "$s" 2 "" "$n" gpu-get x32:1=1
	expect_error "$s" 2 "" "$n" gpu-get u32:1=4294967296
	expect_error "$s" 2 "" "$n" gpu-get bin:1=abc
}

# expect_batch SUITE WHAT WANT_RC USAGES ERR CMD...: CMD exits WANT_RC, prints
# USAGES "Usage: vgpuctl" lines (the help lines that ran) and stderr is
# exactly ERR (lines joined by "|", "" for nothing).
expect_batch() {
	local suite=$1 what=$2 want_rc=$3 usages=$4 err=$5 got
	shift 5
	run "$@"
	got=$(grep -c '^Usage: vgpuctl' "$tmp/out")
	if [ "$rc" -ne "$want_rc" ]; then
		fail "$suite" "$what" "exit $rc: $(oneline "$tmp/err")"
	elif [ "$got" -ne "$usages" ]; then
		fail "$suite" "$what" "$got help texts printed, not $usages"
	elif [ "$(tr '\n' '|' < "$tmp/err" | sed 's/|$//')" != "$err" ]; then
		fail "$suite" "$what" "stderr: $(oneline "$tmp/err")"
	else
		pass "$suite" "$what"
	fi
}

# batch_checks SUITE VGPUCTL: vgpuctl -b FILE without the module (lines of
# help and of usage errors; tests/unit/test_batch.c has the splitting).
batch_checks() {
	local s=$1 v=$2 f=$tmp/batch
	expect_error "$s" 2 'Error: missing FILE for -b.' "$v" -b
	expect_error "$s" 2 'Error: missing FILE for -b.' "$v" -j --batch
	expect_error "$s" 1 'Error: cannot open batch file /nonexistent/b: No such file or directory.' \
		"$v" -b /nonexistent/b
	expect_error "$s" 2 'Error: unexpected argument "gpu" after -b FILE.' "$v" -b /dev/null gpu
	expect_error "$s" 2 'Error: --force goes with -b FILE.' "$v" --force gpu show
	expect_batch "$s" "-b of an empty file succeeds, printing nothing" 0 0 "" "$v" -b /dev/null
	printf '# set-up\n\nps help\n  gpu help   # the GPUs\ntenant \\\n  help\n' > "$f"
	expect_batch "$s" "-b runs every line, skipping comments and blank lines" 0 3 "" "$v" -b "$f"
	printf 'ps help\n\nfrob\ngpu help\n' > "$f"
	expect_batch "$s" "-b stops at the first failing line with its status, naming FILE:LINE" 2 1 \
		"Error: unknown object \"frob\"; try \"vgpuctl help\".|Error: $f:3: the command failed (exit status 2)." \
		"$v" -b "$f"
	expect_batch "$s" "--force -b runs the lines after a failing one" 2 2 \
		"Error: unknown object \"frob\"; try \"vgpuctl help\".|Error: $f:3: the command failed (exit status 2)." \
		"$v" --force -b "$f"
	printf 'ps help\ntenant add "a b" cgroup x\nshow help\n' > "$f"
	expect_batch "$s" "-b - reads standard input; a quoted word is one argument" 2 1 \
		'Error: invalid NAME "a b" for tenant add (1-63 printable characters, no spaces).|Error: -:2: the command failed (exit status 2).' \
		sh -c '"$1" -b - < "$2"' sh "$v" "$f"
	printf 'ps help\ngpu add 0 vram "1G\nshow help\n' > "$f"
	expect_batch "$s" "-b refuses an unclosed quote, naming its line" 2 1 \
		"Error: $f:2: a quote is not closed." "$v" -b "$f"
	printf -- '-j gpu show\n' > "$f"
	expect_batch "$s" "-b refuses an option on a line" 2 0 \
		"Error: $f:1: option \"-j\" on a line: options go before -b." "$v" -b "$f"
	if [ ! -d /sys/module/vgpu ]; then
		printf 'gpu help\ngpu show\n' > "$f"
		expect_batch "$s" "-b: a line the module would answer fails with status 1" 1 1 \
			"$nomod|Error: $f:2: the command failed (exit status 1)." "$v" -j -b "$f"
		# Each line parses afresh: nothing of the line before is left.
		printf 'tenant add a cgroup a weight 5\ntenant replace b cgroup b weight 5\n%s\n%s\n' \
			'tenant add c cgroup c weight 5 label k=v' 'tenant set c weight 5' > "$f"
		expect_batch "$s" "--force -b: each tenant line is checked on its own" 1 0 \
			"$nomod|Error: $f:1: the command failed (exit status 1).|$nomod|Error: $f:2: the command failed (exit status 1).|$nomod|Error: $f:3: the command failed (exit status 1).|$nomod|Error: $f:4: the command failed (exit status 1)." \
			"$v" --force -b "$f"
	fi
}

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
	if /sbin/ldconfig -p 2> /dev/null | grep -q 'libnvidia-ml\.so\.1 '; then
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
	   grep -Eq "^\[\{\"index\":0,\"uuid\":\"$uuid\",\"pci\":\"0000:01:00\.0\",\"vram\":17179869184,\"numa\":0,\"status\":\"new\"\},\{\"index\":1,.*\"pci\":\"0000:02:00\.0\".*\"numa\":1,\"status\":\"new\"\}\]\$" "$tmp/out"; then
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
		   interval_s elapsed_s SHARE THROTTLED; do
		grep -q -- "$key" "$tmp/man.txt" || missing="$missing $key"
	done
	if [ -z "$missing" ]; then
		pass ctl "man page has every section and names every key"
	else
		fail ctl "man page has every section and names every key" "missing:$missing"
	fi
fi

[ "$failures" -eq 0 ]
