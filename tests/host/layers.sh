#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The module's layering (suite "layers"): tests/tools/layer-check reads
# the calls between vgpu.ko's source files from its objects (built for the
# first kernel tools/kernels names, by tools/kmod-build, which rebuilds
# only what changed) and fails on a cycle or on a call up the table at
# the top of kmod/vgpu.h. Then the same objects against a copy of that
# table with the bottom line (the pure policy) moved to the top must fail,
# naming the calls that now go up. vgpuctl's objects (make ctl) are held
# to the table at the top of ctl/vgpuctl.h the same way, and its folders
# (ctl/cmd/, ..., ctl/lib/) to holding consecutive lines of it, with the
# same negative run (its bottom line, netlink, moved to the top), and each of
# its unit tests and fuzz harnesses links exactly the files it uses
# (tests/tools/unit-links against its list in ctl/sources.mk; negative
# run: a file too many); libvgpu's objects (make libvgpu) to the table
# in libvgpu/layers.h, and its folders (libvgpu/start/, ...,
# libvgpu/access/) to holding consecutive lines of it, with the same
# negative run (its bottom line's log.c moved to the top) and one for the
# folders (a line of logic/ moved below access/). Every check prints "PASS: layers: what" or
# "FAIL: layers: what: detail".
suite=layers
. "$(dirname "$0")/lib.bash"

kver=$(tools/kernels | awk 'NR == 1 { print $1 }')
if ! KVER=$kver tools/kmod-build > "$tmp/build" 2>&1; then
	fail "vgpu.ko builds for $kver" "$(tail -n 5 "$tmp/build" | tr '\n' '|')"
	exit 1
fi
dir=build/kmod/$kver/kmod
objs=()
# vgpu-y's words, over its continuation lines.
for o in $(awk '/^vgpu-y :=/ { on = 1 } on { for (i = 1; i <= NF; i++) if ($i ~ /\.o$/) print $i }
	on && !/\\$/ { on = 0 }' kmod/Kbuild); do
	objs+=("$dir/$o")
done
if [ "${#objs[@]}" -lt 30 ]; then
	fail "kmod/Kbuild lists vgpu.ko's objects" "${#objs[@]} found"
	exit 1
fi

if tests/tools/layer-check --table kmod/vgpu.h "${objs[@]}" > "$tmp/out" 2>&1; then
	pass "no cycle and no call up kmod/vgpu.h's table ($(cat "$tmp/out"), $kver's objects)"
else
	fail "no cycle and no call up kmod/vgpu.h's table" "$(oneline "$tmp/out")"
fi

# libvgpu: its objects (libvgpu/sources.mk's list, as make builds them)
# against the table in libvgpu/layers.h, each folder's lines together;
# then against a copy with the bottom line (the driver and kernel access,
# log.c's, of access/) at the top, and against one with a line of logic/
# (nodelist.c's) moved below access/'s, which splits logic/.
lib_objs=()
for s in $(make -s --no-print-directory -C libvgpu -f sources.mk list-LIBVGPU_SRCS); do
	[ -f "${s%.c}.o" ] && lib_objs+=("${s%.c}.o")
done
lib_n=$(make -s --no-print-directory -C libvgpu -f sources.mk list-LIBVGPU_SRCS | wc -w)
if [ "${#lib_objs[@]}" -lt 20 ] || [ "${#lib_objs[@]}" -ne "$lib_n" ]; then
	fail "no cycle and no call up libvgpu/layers.h's table" "its objects are not built (make libvgpu)"
else
	if tests/tools/layer-check --table libvgpu/layers.h "${lib_objs[@]}" > "$tmp/out" 2>&1; then
		pass "no cycle and no call up libvgpu/layers.h's table ($(cat "$tmp/out"))"
	else
		fail "no cycle and no call up libvgpu/layers.h's table" "$(oneline "$tmp/out")"
	fi
	bottom=$(grep -m1 '^ \*   [a-z]*\.c .*log\.c ' libvgpu/layers.h)
	awk -v b="$bottom" '$0 == b { next } /^ \*   init\.c / { print b } { print }' \
		libvgpu/layers.h > "$tmp/layers.h"
	if tests/tools/layer-check --table "$tmp/layers.h" "${lib_objs[@]}" > "$tmp/out" 2>&1; then
		fail "a call up libvgpu's table is found" "nothing found with the log at the top"
	elif grep -q '^up: account.c calls log.c' "$tmp/out"; then
		pass "a call up libvgpu's table is found ($(grep -c '^up: ' "$tmp/out") with the log at the top)"
	else
		fail "a call up libvgpu's table is found" "$(oneline "$tmp/out")"
	fi
	logic=$(grep -m1 '^ \*   nodelist\.c ' libvgpu/layers.h)
	awk -v l="$logic" -v b="$bottom" '$0 == l { next } { print } $0 == b { print l }' \
		libvgpu/layers.h > "$tmp/layers.h"
	if tests/tools/layer-check --table "$tmp/layers.h" "${lib_objs[@]}" > "$tmp/out" 2>&1; then
		fail "a folder split in libvgpu's table is found" "nothing found with nodelist.c's line below access/"
	elif grep -q '^folder: nodelist\.c (logic/) comes after access/' "$tmp/out"; then
		pass "a folder split in libvgpu's table is found ($(grep -c '^folder: ' "$tmp/out") with nodelist.c's line below access/'s: logic/)"
	else
		fail "a folder split in libvgpu's table is found" "$(oneline "$tmp/out")"
	fi
fi

# vgpuctl: its objects (ctl/sources.mk's list, as make builds them)
# against ctl/vgpuctl.h's table, each folder's lines together; then
# against a copy with the bottom line (nl.c, of lib/) at the top.
srcs() { make -s --no-print-directory -C ctl -f sources.mk "list-$1"; }
ctl_objs=()
for s in $(srcs VGPUCTL_SRCS); do
	[ -f "${s%.c}.o" ] && ctl_objs+=("${s%.c}.o")
done
if [ "${#ctl_objs[@]}" -lt 40 ] || [ "${#ctl_objs[@]}" -ne "$(srcs VGPUCTL_SRCS | wc -w)" ]; then
	fail "no cycle and no call up ctl/vgpuctl.h's table" "its objects are not built (make ctl)"
else
	if tests/tools/layer-check --table ctl/vgpuctl.h "${ctl_objs[@]}" > "$tmp/out" 2>&1; then
		pass "no cycle and no call up ctl/vgpuctl.h's table ($(cat "$tmp/out"))"
	else
		fail "no cycle and no call up ctl/vgpuctl.h's table" "$(oneline "$tmp/out")"
	fi
	awk '/^ \*   nl\.c / { next } /^ \*   main\.c / { print " *   nl.c file.c  moved" } { print }' \
		ctl/vgpuctl.h > "$tmp/vgpuctl.h"
	if tests/tools/layer-check --table "$tmp/vgpuctl.h" "${ctl_objs[@]}" > "$tmp/out" 2>&1; then
		fail "a call up vgpuctl's table is found" "nothing found with netlink at the top"
	elif grep -q '^up: util.c calls nl.c' "$tmp/out" && grep -q '^folder: ' "$tmp/out"; then
		pass "a call up vgpuctl's table is found ($(grep -c '^up: ' "$tmp/out") with netlink at the top; $(grep -c '^folder: ' "$tmp/out") folder split, lib/)"
	else
		fail "a call up vgpuctl's table is found" "$(oneline "$tmp/out")"
	fi
fi

# lists KIND [EXTRA]: each unit test (KIND UNIT) or fuzz harness (FUZZ)
# of vgpuctl compiled alone, and tests/tools/unit-links run over them
# against their lists KIND_NAME in ctl/sources.mk (with EXTRA added to
# the first, for the negative run); its lines in $tmp/links, how many
# lists in $n.
lists() {
	local kind=$1 extra=${2:-} name src args=()
	n=0
	for name in $(make -s --no-print-directory -C ctl -f sources.mk "names-$1_"); do
		src=tests/unit/test_$name.c
		[ "$kind" = FUZZ ] && src=tests/fuzz/fuzz_$name.c
		# shellcheck disable=SC2046
		cc -std=c11 -D_GNU_SOURCE -c $(pkg-config --cflags libnl-genl-3.0 libcap jansson) \
			-I"${NVML_INC:-build/deps/cuda/include}" -o "$tmp/$kind-$name.o" "$src" \
			> "$tmp/links" 2>&1 || return 1
		args+=("$tmp/$kind-$name.o=$(srcs "$1_$name" | sed 's|ctl/[a-z]*/||g') $extra")
		extra="" n=$((n + 1))
	done
	tests/tools/unit-links "${args[@]}" -- "${ctl_objs[@]}" > "$tmp/links" 2>&1
}

# Each unit test and fuzz harness of vgpuctl links exactly the files it
# uses, and those below them: its list in ctl/sources.mk.
if [ "${#ctl_objs[@]}" -ge 40 ]; then
	for kind in UNIT FUZZ; do
		what="vgpuctl's $([ $kind = UNIT ] && echo unit tests || echo fuzz harnesses) link exactly what they use (ctl/sources.mk's ${kind}_*)"
		if ! lists $kind; then
			fail "$what" "$(grep -v ': ok: ' "$tmp/links" | sed "s|$tmp/||" | oneline /dev/stdin)"
		elif [ "$n" -lt 5 ]; then
			fail "$what" "only $n lists found"
		else
			pass "$what: $n lists"
		fi
	done
	# The negative run: a file nothing in the first unit test needs.
	if lists UNIT tenant.c; then
		fail "a list with a file too many is found" "nothing found with tenant.c added"
	elif grep -q ': extra: tenant.c' "$tmp/links"; then
		pass "a list with a file too many is found ($(grep ': extra: ' "$tmp/links" | sed "s|$tmp/||; s| (.*||"))"
	else
		fail "a list with a file too many is found" "$(oneline "$tmp/links")"
	fi
fi

# The negative run: the policy's line moved to the top of the table.
awk '/^ \*   policy_vram\.c/ { next } /^ \*   main\.c/ { print " *   policy_vram.c policy_sched.c  moved"; } { print }' \
	kmod/vgpu.h > "$tmp/vgpu.h"
if tests/tools/layer-check --table "$tmp/vgpu.h" "${objs[@]}" > "$tmp/out" 2>&1; then
	fail "a call up the table is found" "nothing found with the policy at the top"
elif grep -q '^up: acct_charge.c calls policy_vram.c' "$tmp/out"; then
	pass "a call up the table is found ($(grep -c '^up: ' "$tmp/out") with the policy at the top)"
else
	fail "a call up the table is found" "$(oneline "$tmp/out")"
fi

[ "$failures" -eq 0 ]
