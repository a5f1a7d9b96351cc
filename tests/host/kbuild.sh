#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of how vgpu.ko is built for a chosen kernel (suite "kbuild"):
# - KVER and KDIR choose the kernel (tools/kdir); bad input (a KVER with no
#   headers, one that is not a release, a KDIR that is no kernel tree, a
#   kernel outside 6.1-7.3) fails with one line naming the problem (and
#   VGPU_ANY_KERNEL=1, the way past the range) and leaves no build
#   directory behind;
# - tools/kernels lists the kernels make check tests, and names the
#   packages of a series that has none;
# - make dkms-install copies what DKMS needs, and DKMS (Debian's dkms, with
#   private trees) builds vgpu.ko from that copy alone for the oldest
#   and the newest tested kernel (Debian 12's DKMS and trixie's), refuses
#   a kernel outside the range, and its BUILD_EXCLUSIVE_KERNEL agrees
#   with tools/kdir's range.
# Every check prints "PASS: kbuild: what" or "FAIL: kbuild: what: detail".
suite=kbuild
. "$(dirname "$0")/lib.bash"

# refused WHAT WANT CMD...: CMD fails, its stderr has exactly one "Error:"
# line and it contains WANT, and no build/kmod directory appeared.
refused() {
	local what=$1 want=$2 before after
	shift 2
	before=$(ls build/kmod 2>/dev/null)
	if "$@" > "$tmp/out" 2> "$tmp/err"; then
		fail "$what" "succeeded: $(oneline "$tmp/out")"
	elif [ "$(grep -c '^Error: ' "$tmp/err")" -ne 1 ]; then
		fail "$what" "wanted one Error: line, got: $(oneline "$tmp/err")"
	elif ! grep -q "^Error: .*$want" "$tmp/err"; then
		fail "$what" "wanted '$want' in: $(oneline "$tmp/err")"
	else
		after=$(ls build/kmod 2>/dev/null)
		if [ "$before" = "$after" ]; then
			pass "$what"
		else
			fail "$what" "left a build directory: $before -> $after"
		fi
	fi
}

# fake_kdir DIR RELEASE: a tree that looks like a kernel's headers.
fake_kdir() {
	mkdir -p "$1/include/generated"
	: > "$1/Makefile"
	echo "#define UTS_RELEASE \"$2\"" > "$1/include/generated/utsrelease.h"
}

# --- choosing the kernel -------------------------------------------------------
refused "make KVER= with no headers names the package to install" \
	"install linux-headers-6.7.0-99-amd64" make -s KVER=6.7.0-99-amd64 module
refused "make check KVER= with no headers stops before building" \
	"install linux-headers-6.7.0-99-amd64" make -s KVER=6.7.0-99-amd64 check
refused "a KVER that is not a release is refused" "is not a kernel release" \
	make -s KVER=../../etc module
refused "a KDIR that is no kernel tree is refused" "is not a kernel build directory" \
	make -s KDIR="$tmp/nowhere" module
fake_kdir "$tmp/k74" 7.4.0-1-amd64
refused "a 7.4 kernel is outside the range, and the way past it is named" \
	"7.4.0-1-amd64 is outside vgpu's supported range 6.1 to 7.3 .*VGPU_ANY_KERNEL=1" \
	make -s KDIR="$tmp/k74" module
if out=$(VGPU_ANY_KERNEL=1 KDIR="$tmp/k74" tools/kdir --release 2>&1) && [ "$out" = 7.4.0-1-amd64 ]; then
	pass "VGPU_ANY_KERNEL=1 takes a 7.4 kernel"
else
	fail "VGPU_ANY_KERNEL=1 takes a 7.4 kernel" "$out"
fi
fake_kdir "$tmp/k510" 5.10.0-30-amd64
refused "a 5.10 kernel is outside the range" "outside vgpu's supported range" \
	make -s KDIR="$tmp/k510" module
fake_kdir "$tmp/k610" 6.10.0-1-amd64
if out=$(KDIR="$tmp/k610" tools/kdir --release 2>&1) && [ "$out" = 6.10.0-1-amd64 ]; then
	pass "6.10, between the tested kernels, is in the range"
else
	fail "6.10, between the tested kernels, is in the range" "$out"
fi
fake_kdir "$tmp/k613" 6.13.0-1-amd64
if out=$(KDIR="$tmp/k613" tools/kdir --release 2>&1) && [ "$out" = 6.13.0-1-amd64 ]; then
	pass "6.13, which Debian never shipped, is in the range"
else
	fail "6.13, which Debian never shipped, is in the range" "$out"
fi

# A kernel built by a compiler neither the host nor the build root has.
fake_kdir "$tmp/kcc" 7.3.0-99-amd64
echo 'CONFIG_CC_VERSION_TEXT="x86_64-linux-gnu-gcc-99 (Debian 99.1.0-1) 99.1.0"' > "$tmp/kcc/.config"
if [ -x build/chroot/trixie/usr/bin/make ]; then
	refused "a kernel built by a compiler nobody has is refused" \
		"built by x86_64-linux-gnu-gcc-99 .*; neither the host nor the trixie build root" \
		make -s KDIR="$tmp/kcc" module
fi
# The build root: a mirror that cannot be reached (a closed loopback
# port), with the leftovers of a making interrupted halfway, is one line,
# and leaves neither a root nor its temporary directory.
if [ "$(id -u)" -eq 0 ] && command -v mmdebstrap > /dev/null; then
	mkdir -p "$tmp/croot.tmp.half/usr/bin"
	VGPU_CHROOT=$tmp/croot VGPU_CHROOT_MIRROR=http://127.0.0.1:9/debian \
		tools/kchroot make > "$tmp/out" 2> "$tmp/err"
	rc=$?
	what="a build root that cannot be made is one line, and nothing is left"
	if [ "$rc" -eq 0 ] || [ "$(grep -c . "$tmp/err")" -ne 2 ] ||
	   [ "$(grep -c '^Error: mmdebstrap trixie failed' "$tmp/err")" -ne 1 ]; then
		fail "$what" "status $rc: $(oneline "$tmp/err")"
	elif ls -d "$tmp"/croot "$tmp"/croot.tmp.* > /dev/null 2>&1; then
		fail "$what" "left: $(ls -d "$tmp"/croot*)"
	else
		pass "$what"
	fi
fi

# tools/kernel-fetch: a series Debian does not have, and one that is no
# series, are one line each.
refused "fetching a series Debian does not have is one line" \
	"trixie-backports has no Linux 9.9 kernel" tools/kernel-fetch 9.9
refused "fetching what is no series is one line" "is not a kernel series" \
	tools/kernel-fetch ../x

# make check KVER=... tests that kernel alone; otherwise every series,
# 6.1, 6.12 and the newest fully, the others' smoke suites.
# Debian's kernels (the dmem kernel, tools/dmem-kernel, apart).
kernels=$(tools/kernels 2>&1 | sed 's/ smoke$//' | grep -v -e ' dmem$' -e '^missing dmem ')
dmem=$(tools/kernels 2>&1 | sed -n 's/ dmem$//p; /^missing dmem /p')
if [ -n "${KVER:-}${KDIR:-}" ]; then
	want=$(tools/kdir --release 2>&1)
	[ "$kernels" = "$want" ] && ok=1 || ok=0
	what="KVER/KDIR ($want) is the one kernel make check tests"
else
	full=$(tools/kernels 2>&1 | grep -v -e ' smoke$' -e ' dmem$' -e '^missing ')
	[ "$(echo "$full" | grep -c -E '^(6\.(1|12)|7\.3)\.')" -eq 3 ] &&
		[ "$(echo "$kernels" | grep -c -v '^missing ')" -eq 10 ] && ok=1 || ok=0
	what="make check tests ten kernels, 6.1, 6.12 and 7.3 with every suite: $(echo "$kernels" | tr '\n' ' ')"
fi
[ "$ok" = 1 ] && pass "$what" || fail "$what" "tools/kernels: $kernels"
if [ -z "${KVER:-}${KDIR:-}" ]; then
	case $dmem in
	*-vgpu-dmem) pass "the dmem kernel is listed last, for the dmem suites ($dmem)" ;;
	*) fail "the dmem kernel is listed last, for the dmem suites" "tools/kernels: $dmem" ;;
	esac
fi
first=$(echo "$kernels" | head -n 1)
if [ "$(KVER=$first KDIR='' tools/kernels)" = "$first" ]; then
	pass "KVER=$first alone names that kernel alone"
else
	fail "KVER=$first alone names that kernel alone" "got: $(KVER=$first tools/kernels 2>&1)"
fi
if out=$(KVER= KDIR= VGPU_TEST_DMEM=0 VGPU_TEST_SERIES="6.5:linux-image-6.5-amd64,linux-headers-6.5-amd64" tools/kernels) ||
   [ "$out" != "missing 6.5 linux-image-6.5-amd64 linux-headers-6.5-amd64" ]; then
	fail "a series with no kernel installed names its packages" "got: $out"
else
	pass "a series with no kernel installed names its packages"
fi
if out=$(KVER= KDIR= VGPU_TEST_DMEM=0 VGPU_TEST_SERIES="6.15:fetch:smoke" tools/kernels) ||
   [ "$out" != "missing 6.15 fetch" ]; then
	fail "a series to fetch that is not fetched says so" "got: $out"
else
	pass "a series to fetch that is not fetched says so"
fi

# --- DKMS ------------------------------------------------------------------------
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
if make -s dkms-install DESTDIR="$tmp/root" > "$tmp/out" 2>&1; then
	pass "make dkms-install copies the sources"
else
	fail "make dkms-install copies the sources" "$(oneline "$tmp/out")"
fi
src=$tmp/root/usr/src/vgpu-$version
missing=""
for f in dkms.conf Kbuild kmod/Kbuild kmod/nl_gen.c kmod/nl_gen.h kmod/compat.h \
	 uapi/vgpu.h uapi/vgpu_dev.h $(cd kmod && ls ./*.c | sed 's|^\./|kmod/|'); do
	[ -f "$src/$f" ] || missing="$missing $f"
done
if [ -z "$missing" ]; then
	pass "the DKMS tree has every source, the generated netlink code included"
else
	fail "the DKMS tree has every source, the generated netlink code included" "missing:$missing"
fi

if ! command -v dkms > /dev/null; then
	fail "dkms is installed" "not found (apt-get install dkms, or make deps)"
else
	mkdir -p "$tmp/dkms"
	# Private trees; sign_file: no key is made under /var/lib/dkms.
	dk() { sign_file=/nonexistent dkms "$@" --sourcetree "$tmp/root/usr/src" --dkmstree "$tmp/dkms"; }
	dk add -m vgpu -v "$version" > "$tmp/out" 2>&1 ||
		fail "dkms add" "$(oneline "$tmp/out")"
	# The trixie kernels' own case (a Debian 13 host): DKMS with the
	# kernel's compiler, gcc-14, which Debian 12 lacks: trixie's DKMS in
	# the trixie build root (tools/kchroot), on a copy of the DKMS tree
	# inside this tree, where the root sees it.
	troot=""
	# The oldest kernel (Debian 12's DKMS, on the host) and the newest
	# (trixie's, in its root): the two DKMS versions, at the two ends of
	# the range. Every kernel's own build of vgpu.ko is make check's
	# (tools/kmod-build, before its VMs boot); this checks the package.
	dkms_kernels=$(echo "$kernels" | grep -v '^missing ' | sed -n '1p; $p' | uniq)
	for rel in $dkms_kernels; do
		kd=$(KVER=$rel tools/kdir 2>/dev/null) || continue
		kcc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$kd/.config")
		if [ "$("${kcc%% *}" --version 2>/dev/null | head -n 1)" = "$kcc" ]; then
			where=host
			dk build -m vgpu -v "$version" -k "$rel" --kernelsourcedir "$kd" > "$tmp/out" 2>&1
			rc=$?
			ko=$(ls "$tmp/dkms/vgpu/$version/$rel"/*/module/vgpu.ko* 2>/dev/null | head -n 1)
		elif [ "$(id -u)" -ne 0 ]; then
			echo "note: kbuild: no dkms build for $rel: the host lacks its compiler, $kcc, and the trixie root needs root"
			continue
		else
			where="trixie root"
			if [ -z "$troot" ]; then
				troot=$(mktemp -d "$top/build/kbuild-dkms.XXXXXX")
				trap 'rm -rf "$tmp" "$troot"' EXIT
				make -s dkms-install DESTDIR="$troot/root" > /dev/null 2>&1
				mkdir -p "$troot/dkms"
			fi
			tools/kchroot run "$kd" sh -c 'd=$0
				sign_file=/nonexistent dkms add -m vgpu -v "$1" \
					--sourcetree "$d/root/usr/src" --dkmstree "$d/dkms" > /dev/null 2>&1 || true
				exec env sign_file=/nonexistent dkms build -m vgpu -v "$1" -k "$2" \
					--kernelsourcedir "$3" --sourcetree "$d/root/usr/src" --dkmstree "$d/dkms"' \
				"$troot" "$version" "$rel" "$kd" > "$tmp/out" 2>&1
			rc=$?
			ko=$(find "$troot/dkms/vgpu/$version/$rel" -name 'vgpu.ko*' -path '*/module/*' 2>/dev/null | head -n 1)
		fi
		if [ "$rc" -ne 0 ]; then
			fail "dkms builds vgpu.ko for $rel ($where)" "$(tail -n 5 "$tmp/out" | tr '\n' '|')"
			continue
		fi
		magic=$(modinfo -F vermagic "$ko" 2>/dev/null)
		if [ "${magic%% *}" = "$rel" ]; then
			pass "dkms builds vgpu.ko for $rel ($where, vermagic $rel)"
		else
			fail "dkms builds vgpu.ko for $rel ($where)" "module '$ko' vermagic '$magic'"
		fi
	done
	fake=$tmp/lib/7.4.0-1-amd64
	fake_kdir "$fake" 7.4.0-1-amd64
	dk build -m vgpu -v "$version" -k 7.4.0-1-amd64 --kernelsourcedir "$fake" \
		> "$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ] && grep -q 'BUILD_EXCLUSIVE' "$tmp/out"; then
		pass "dkms refuses a 7.4 kernel (BUILD_EXCLUSIVE_KERNEL, status $rc)"
	else
		fail "dkms refuses a 7.4 kernel" "status $rc: $(oneline "$tmp/out")"
	fi
fi

# The regular expression DKMS uses against tools/kdir's range.
re=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' dkms.conf)
wrong=""
for rel in 6.0.9 6.1.0-56-amd64 6.3.1 6.9.0 6.10.2 6.12.117+deb12-amd64 6.13.0 6.20.1 \
	   5.15.0-91-generic 7.0.0 16.1.0 6.19.14+deb13-amd64 7.3.4+deb13-amd64 7.4.0 \
	   7.10.1 8.0.0 6.100.0 17.0.0; do
	fake_kdir "$tmp/r" "$rel"
	KDIR=$tmp/r tools/kdir > /dev/null 2>&1 && want=yes || want=no
	[[ $rel =~ $re ]] && got=yes || got=no
	[ "$want" = "$got" ] || wrong="$wrong $rel(kdir:$want,dkms:$got)"
done
if [ -z "$wrong" ]; then
	pass "dkms.conf's BUILD_EXCLUSIVE_KERNEL and tools/kdir agree on 18 releases"
else
	fail "dkms.conf's BUILD_EXCLUSIVE_KERNEL and tools/kdir agree" "$wrong"
fi

# Kernel-doc: every documented structure and function of the module and
# its uapi headers describes each member and parameter (the kernel's own
# scripts/kernel-doc, from Debian's linux-kbuild package of the host).
kdoc=$(ls /usr/lib/linux-kbuild-*/scripts/kernel-doc 2>/dev/null | sort -V | tail -n 1)
if [ -z "$kdoc" ]; then
	fail "kernel-doc is clean" "no /usr/lib/linux-kbuild-*/scripts/kernel-doc (make deps installs it)"
elif "$kdoc" -none kmod/*.c kmod/*.h uapi/*.h > "$tmp/kdoc" 2>&1 && ! [ -s "$tmp/kdoc" ]; then
	pass "kernel-doc is clean on kmod/ and uapi/ ($(ls kmod/*.[ch] uapi/*.h | wc -l) files)"
else
	fail "kernel-doc is clean on kmod/ and uapi/" "$(grep -c . "$tmp/kdoc") warnings: $(oneline "$tmp/kdoc")"
fi

[ "$failures" -eq 0 ]
