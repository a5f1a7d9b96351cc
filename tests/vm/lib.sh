# SPDX-License-Identifier: GPL-2.0
# Host-side helpers shared by tests/vm/run and tests/run: which kernel to
# boot, how to build the initramfs, how to boot it.

vm_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# The kernel the VM boots (vm_kernel_vmlinuz) and the module is built
# for (build/kmod/RELEASE/): KVER's, or KDIR's, or tools/kdir's default.
vm_kernel_release() {
	"$vm_top/tools/kdir" --release
}

# vm_kernel_vmlinuz RELEASE: RELEASE's compressed image,
# /boot/vmlinuz-RELEASE, else the one tools/kernel-fetch unpacked in
# build/kernels/RELEASE/boot/; with neither, one line on stderr naming
# what to do, and status 1.
vm_kernel_vmlinuz() {
	local f
	for f in "/boot/vmlinuz-$1" "$vm_top/build/kernels/$1/boot/vmlinuz-$1"; do
		[ -r "$f" ] && { echo "$f"; return 0; }
	done
	echo "Error: no image for kernel $1: install linux-image-$1, or fetch its series (tools/kernel-fetch SERIES)." >&2
	return 1
}

# vm_install ROOT FILE DEST: install FILE in the tree ROOT as DEST, with the
# shared libraries it needs (its ldd closure) at their own paths.
vm_install() {
	local root=$1 f=$2 dest=$3 lib
	install -D -m 0755 "$f" "$root$dest"
	ldd "$f" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p' |
	while read -r lib; do
		lib=$(realpath -s "$lib")
		[ -e "$root$lib" ] || install -D -m 0755 "$(realpath "$lib")" "$root$lib"
	done
}

# vm_build_initramfs OUT SCRIPT [EXTRA_DIR]
# The VM's root: busybox, glibc, the module under /lib/modules, vgpuctl and
# the test tools on PATH, libvgpu.so under /usr/lib, simgpu installed as the
# system's libcuda.so.1 / libnvidia-ml.so.1, SCRIPT as /vgpu-script and
# EXTRA_DIR at /extra.
vm_build_initramfs() {
	local out=$1 script=$2 extra=${3:-} rel root f
	rel=$(vm_kernel_release) || return 1
	root=$(mktemp -d)
	chmod 0755 "$root"
	mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,run,root,usr/bin,usr/sbin}
	mkdir -p "$root/usr/lib/x86_64-linux-gnu" "$root/usr/lib64"
	ln -s usr/lib "$root/lib"
	ln -s usr/lib64 "$root/lib64"
	install -m 0755 /bin/busybox "$root/bin/busybox"
	install -D -m 0644 "$vm_top/build/kmod/$rel/kmod/vgpu.ko" \
		"$root/lib/modules/$rel/extra/vgpu.ko"
	# The dmem test module, on a kernel with the controller (kmod-build).
	f=$vm_top/build/kmod/$rel/kmod-dmem/simgpu_dmem.ko
	[ ! -f "$f" ] || install -m 0644 "$f" "$root/lib/modules/$rel/extra/simgpu_dmem.ko"
	install -m 0755 "$vm_top/tests/vm/init" "$root/init"
	install -m 0755 "$script" "$root/vgpu-script"
	# Programs and their libraries, where an installation puts them.
	vm_install "$root" /usr/bin/env /usr/bin/env
	vm_install "$root" "$vm_top/ctl/vgpuctl" /usr/sbin/vgpuctl
	vm_install "$root" "$vm_top/tests/tools/vgpu-nlsend" /usr/bin/vgpu-nlsend
	# The /dev/vgpu test client and vm-drain (tests/tools/Makefile; up to date in a second).
	make -s -C "$vm_top/tests/tools" >&2
	vm_install "$root" "$vm_top/tests/tools/vgpu-devtest" /usr/bin/vgpu-devtest
	vm_install "$root" "$vm_top/tests/tools/vm-drain" /usr/bin/vm-drain
	vm_install "$root" "$vm_top/tests/tools/cgroupns" /usr/bin/cgroupns
	vm_install "$root" "$vm_top/libvgpu/libvgpu.so" /usr/lib/libvgpu.so
	# simgpu as the system's driver, found without any environment.
	for f in libcuda.so.1 libnvidia-ml.so.1; do
		vm_install "$root" "$vm_top/tests/simgpu/$f" "/usr/lib/x86_64-linux-gnu/$f"
		ln -sf "$f" "$root/usr/lib/x86_64-linux-gnu/${f%.1}"
	done
	vm_install "$root" "$vm_top/tests/simgpu/simgpu-stat" /usr/bin/simgpu-stat
	vm_install "$root" "$vm_top/tests/simgpu/simgpu-pidd" /usr/bin/simgpu-pidd
	for f in "$vm_top"/tests/clients/*; do
		[ -f "$f" ] && [ -x "$f" ] || continue
		vm_install "$root" "$f" "/usr/bin/$(basename "$f")"
	done
	# Programs a suite names in a "# vm-tools: NAME..." header line (container
	# runtimes, tests/tools/cdi-apply), for that suite's boot only.
	for f in $(sed -n 's/^# vm-tools: //p' "$script"); do
		if [ -x "$vm_top/tests/tools/$f" ]; then
			vm_install "$root" "$vm_top/tests/tools/$f" "/usr/bin/$f"
		elif f=$(command -v "$f"); then
			vm_install "$root" "$f" "$f"
		fi
	done
	# The suites' own helpers travel with them.
	mkdir -p "$root/tests"
	cp "$vm_top"/tests/vm/suite-lib.sh "$root/tests/"
	# A suite's own files: the directory beside it with its name
	# (tests/vm/suites/79-torch/), at /tests/NAME.
	f=${script%.sh}
	[ ! -d "$f" ] || cp -a "$f" "$root/tests/$(basename "$f")"
	if [ -n "$extra" ]; then
		mkdir -p "$root/extra"
		cp -a "$extra/." "$root/extra/"
	fi
	# A suite's disk ("# vm-disk: NAME", vm_disk_image): the modules
	# that read it, for init to load before it mounts the disk.
	# "# vm-modules: NAME..." adds the kernel's own modules a suite needs
	# (the k8s node's dummy network interface), loaded the same way.
	if [ -n "$(vm_header "$script" vm-disk)" ]; then
		vm_disk_modules "$root" "$rel" "$(vm_header "$script" vm-modules)" ||
			{ rm -rf "$root"; return 1; }
		vm_header "$script" vm-disk > "$root/etc/vgpu-disk-name"
	fi
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' \
		> "$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
	(cd "$root" && find . | cpio -o -H newc --quiet) > "$out"
	rm -rf "$root"
}

# vm_header SCRIPT KEY: the value of the script's "# KEY: VALUE" line
# (among its first 20), empty if none.
vm_header() {
	head -n 20 "$1" | sed -n "s/^# $2: \(.*\)\$/\1/p" | head -n 1
}

# vm_kernel_modules RELEASE: RELEASE's module directory: the host's
# /lib/modules/RELEASE, else the one tools/kernel-fetch unpacked (for a
# fetched kernel, the few modules a disk needs, fetched the first time:
# tools/kernel-fetch --disk-modules).
vm_kernel_modules() {
	local d
	d=$vm_top/build/kernels/$1
	if [ ! -r "/lib/modules/$1/modules.dep" ] && [ -d "$d" ] &&
		[ ! -r "$d/usr/lib/modules/$1/.disk-modules" ]; then
		"$vm_top/tools/kernel-fetch" --disk-modules "$1" >&2 || return 1
	fi
	for d in "/lib/modules/$1" "$d/usr/lib/modules/$1"; do
		[ -r "$d/modules.dep" ] && { echo "$d"; return 0; }
	done
	echo "Error: no modules for kernel $1 (the disk needs virtio_blk and ext4): install linux-image-$1, or fetch its series again (tools/kernel-fetch SERIES)." >&2
	return 1
}

# vm_disk_modules ROOT RELEASE [MODULES]: the modules a virtio disk with
# ext4 needs (virtio_pci, virtio_blk, ext4, then MODULES, and what
# modules.dep says they need), in
# the tree ROOT under /lib/modules/RELEASE/disk/, uncompressed (busybox's
# insmod reads plain .ko files), and their load order in ROOT/etc/vgpu-disk,
# one path a line, for init. One built into the kernel is left out.
vm_disk_modules() {
	local root=$1 rel=$2 more=${3:-} dir m opt dep f out order=()
	dir=$(vm_kernel_modules "$rel") || return 1
	mkdir -p "$root/lib/modules/$rel/disk" "$root/etc"
	# crc32c_generic ("?": where there is one): ext4 asks the crypto API
	# for crc32c at mount up to 6.14 (6.1: "EXT4-fs (vda): Cannot load
	# crc32c driver." without it); later kernels use the library.
	for m in virtio_pci virtio_blk crc32c_generic? ext4 $more; do
		opt=${m%\?}
		if [ "$opt" = "$m" ]; then opt=""; else m=$opt; fi
		dep=$(grep -E "/$m\.ko(\.xz|\.zst|\.gz)?:" "$dir/modules.dep" | head -n 1)
		if [ -z "$dep" ]; then
			[ -z "$opt" ] || continue
			grep -qE "/$m\.ko\$" "$dir/modules.builtin" && continue
			echo "Error: kernel $rel has no module $m (modules.dep)." >&2
			return 1
		fi
		# modules.dep: the module, then what it needs, the last first to
		# load.
		for f in $(echo "${dep#*:}" | tr ' ' '\n' | tac) "${dep%%:*}"; do
			[ -n "$f" ] || continue
			out=/lib/modules/$rel/disk/$(basename "$f" | sed 's/\.\(xz\|zst\|gz\)$//')
			[[ " ${order[*]} " == *" $out "* ]] && continue
			case $f in
			*.xz) xz -dc "$dir/$f" ;;
			*.zst) zstd -dcq "$dir/$f" ;;
			*.gz) gzip -dc "$dir/$f" ;;
			*) cat "$dir/$f" ;;
			esac > "$root$out" || { echo "Error: could not unpack $dir/$f." >&2; return 1; }
			order+=("$out")
		done
	done
	printf '%s\n' "${order[@]}" > "$root/etc/vgpu-disk"
}

# vm_disk_image SCRIPT: the disk the script's header asks for ("# vm-disk:
# torch": tools/torch-deps builds it, or finds it built; "k8s":
# tools/k8s-deps), its path on
# stdout; nothing without such a line. A disk that cannot be had is one
# line on stderr and status 1.
vm_disk_image() {
	local name
	name=$(vm_header "$1" vm-disk)
	case $name in
	'') return 0 ;;
	torch) "$vm_top/tools/torch-deps" --image ;;
	k8s) "$vm_top/tools/k8s-deps" --image ;;
	*) echo "Error: $1 asks for an unknown disk, $name." >&2; return 1 ;;
	esac
}

# Slab and page debugging: a use-after-free or an overrun then corrupts
# poison or a red zone that the kernel reports (and the run fails) instead
# of passing silently. On unless VGPU_VM_DEBUG=0 (tests/vm/run sets it for
# a script that measures time: the debugging slows launch-bound tenants).
vm_debug_append() {
	[ "${VGPU_VM_DEBUG:-1}" = 0 ] || echo "slub_debug=FZPU page_poison=1 init_on_free=1"
}

# vm_kernel_image RELEASE: the file qemu boots for RELEASE. Debian's
# kernels are built with CONFIG_PVH, so their uncompressed image (an ELF
# with the PVH entry note) boots directly: no real-mode set-up, no
# decompression under emulation, about 3 s less a boot for 6.1 (xz). The
# image is unpacked once from vmlinuz (vm_kernel_vmlinuz) into build/vm/ (a
# compressed stream after the bzImage's set-up code, as the kernel's
# scripts/extract-vmlinux finds it); if that fails, the bzImage itself.
vm_kernel_image() {
	local rel=$1 src out tmp magic dec off
	src=$(vm_kernel_vmlinuz "$rel") || return 1
	out=$vm_top/build/vm/vmlinux-$rel
	if [ -s "$out" ] && [ "$out" -nt "$src" ]; then
		echo "$out"
		return 0
	fi
	mkdir -p "$vm_top/build/vm"
	tmp=$(mktemp "$out.XXXXXX")
	for magic in '\xfd7zXZ\x00:xz -dc' '\x28\xb5\x2f\xfd:zstd -dcq' '\x1f\x8b\x08:gzip -dc'; do
		dec=${magic#*:}
		command -v "${dec%% *}" > /dev/null || continue
		for off in $(LC_ALL=C grep -aboP "${magic%%:*}" "$src" 2> /dev/null |
			     cut -d: -f1 | head -n 4); do
			tail -c +$((off + 1)) "$src" | $dec > "$tmp" 2> /dev/null
			# XEN_ELFNOTE_PHYS32_ENTRY (18): the PVH entry point.
			if grep -q '(0x00000012)' <<< "$(readelf -n "$tmp" 2> /dev/null)"; then
				mv "$tmp" "$out"
				echo "$out"
				return 0
			fi
		done
	done
	rm -f "$tmp"
	echo "$src"
}

# vm_timer_append: " no_timer_check watchdog_thresh=60", for every kernel. At boot the
# kernel checks that the IO-APIC routes the 8254 timer by waiting for a
# few ticks; under emulation on a loaded host the ticks come late and the
# check hangs or panics ("IO-APIC + timer doesn't work!"): the dmem kernel
# panicked 1 boot in 2 on a loaded machine, and Debian's 6.1 hung after
# "..MP-BIOS bug: 8254 timer not connected to IO-APIC" with two busy
# loops beside the VM. The guest's timer is the local APIC's either way.
# And " watchdog_thresh=60" (the most; Debian's is 10): the soft-lockup
# detector reports a CPU that ran no thread of its own for twice that,
# which under emulation is also a vCPU the host did not run: an idle-class
# VM beside the normal-class host suites had two such reports at once, 24
# and 25 s, in a fresh run of make check (79-torch, 2026-11-29, every
# check passing). A CPU stuck for two minutes is still reported.
vm_timer_append() {
	echo " no_timer_check watchdog_thresh=60"
}

# vm_boot INITRAMFS CONSOLE_LOG
# Boots Debian's kernel under TCG with two NUMA nodes (CPUs 0-1 on node 0,
# 2-3 on node 1). The script's output comes on the second serial port
# (stdout here); kernel messages go to CONSOLE_LOG. The kernel's crypto
# self-tests are off (cryptomgr.notests=1): they test Debian's kernel, not
# vgpu, and one of them (a cryptomgr_test thread) was seen stuck under
# emulation for 104 s ("soft lockup - CPU#3 stuck", a 6.1 boot that never
# reached init).
vm_boot() {
	local initrd=$1 console=$2 rel kernel mem cpus disk
	rel=$(vm_kernel_release) || return 1
	kernel=$(vm_kernel_image "$rel") || return 1
	: > "$console"
	# VGPU_VM_MEM MiB (default 1024), half on each node; VGPU_VM_DISK, a
	# disk image the guest reads (/dev/vda), read-only: VMs side by side
	# share it.
	mem=${VGPU_VM_MEM:-1024}
	# VGPU_VM_CPUS: 4 (default) or 2, half on each node.
	cpus=${VGPU_VM_CPUS:-4}
	case $cpus in 2 | 4) ;; *)
		echo "Error: VGPU_VM_CPUS is $cpus: 2 or 4." >&2
		return 1 ;;
	esac
	disk=()
	[ -z "${VGPU_VM_DISK:-}" ] ||
		disk=(-drive "file=$VGPU_VM_DISK,if=virtio,format=raw,readonly=on")
	timeout --foreground -k 5 "${VGPU_VM_TIMEOUT:-600}" \
	qemu-system-x86_64 -nodefaults -display none -no-reboot \
		-m "$mem" -smp "$cpus,sockets=2,cores=$((cpus / 2)),threads=1" \
		-object memory-backend-ram,id=m0,size=$((mem / 2))M \
		-object memory-backend-ram,id=m1,size=$((mem - mem / 2))M \
		"${disk[@]}" \
		-numa node,nodeid=0,cpus=0-$((cpus / 2 - 1)),memdev=m0 \
		-numa node,nodeid=1,cpus=$((cpus / 2))-$((cpus - 1)),memdev=m1 \
		-kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 rdinit=/init panic=-1 loglevel=4 quiet cryptomgr.notests=1 $(vm_debug_append)$(vm_timer_append)" \
		-serial "file:$console" -serial stdio &
	vm_boot_watch $! "$console"
}

# vm_fair_server_panic CONSOLE_LOG: the run ended in the panic of a defect
# of Debian's 6.12 under emulation (Documentation/kernels.md): a warning
# in the fair server's deadline timer (at hrtimer_forward from
# dl_task_timer, or start_dl_timer from update_curr_dl_se) made a panic
# by panic_on_warn, with no frame of vgpu's in the trace.
vm_fair_server_panic() {
	local trace
	trace=$(sed -n '/^VGPU-VM-START/,$p' "$1" | tr -d '\r' |
		sed -n '/Kernel panic - not syncing: kernel: panic_on_warn set/,/Kernel Offset\|end Kernel panic/p')
	[ -n "$trace" ] &&
		grep -qE 'RIP: 0010:(hrtimer_forward|start_dl_timer)\+' <<< "$trace" &&
		grep -qE '(dl_task_timer|update_curr_dl_se)\+' <<< "$trace" &&
		! grep -qiE 'vgpu|simgpu' <<< "$trace"
}

# vm_boot_watch PID CONSOLE_LOG: wait for the VM (timeout's PID); one that
# has not reached init (VGPU-VM-START on its console) within
# VGPU_VM_BOOT_TIMEOUT seconds (default 120; a boot takes 5-7 s, under
# load 30) is stopped: a Debian 6.1 boot under emulation was seen to hang
# before init until the VM's whole time-out (600 s) ran out, once in a
# full run. Its console is kept in build/vm/ for a look. The exit status
# is timeout's.
vm_boot_watch() {
	local pid=$1 console=$2 i limit=$((${VGPU_VM_BOOT_TIMEOUT:-120} * 2)) keep
	for ((i = 0; i < limit; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		grep -q '^VGPU-VM-START' "$console" 2>/dev/null && break
		sleep 0.5
	done
	if [ "$i" -ge "$limit" ] && kill -0 "$pid" 2>/dev/null; then
		keep=$vm_top/build/vm/stalled-boot-$(date +%Y%m%d-%H%M%S)-$$.log
		cp "$console" "$keep" 2>/dev/null
		echo "note: no init after ${VGPU_VM_BOOT_TIMEOUT:-120} s of booting: VM stopped (its console: $keep, last line: $(tail -n 1 "$console" | tr -d '\r' | cut -c1-120))" >&2
		kill "$pid" 2>/dev/null	# timeout passes it on to qemu
	fi
	wait "$pid"
}
