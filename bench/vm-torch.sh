#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# PyTorch's costs inside the VM (run by bench/run; issue 28): "import
# torch", its first CUDA call (NVIDIA's runtime starting, the context) and
# a loop of small ops, bare (no libvgpu, a cgroup of no tenant) against
# libvgpu under vgpu.ko (a tenant with vram-max), in the same boot,
# alternating, median of ROUNDS. The VM is emulated: compare the rows with
# each other, not with hardware. The first import reads PyTorch's disk
# and is not counted.
# vm-disk: torch
# vm-memory: 2048
# vm-debug: off
# vm-timeout: 1500
. /tests/suite-lib.sh
cg=/sys/fs/cgroup
py=/opt/torch/venv/bin/python
b=/tests/vm-torch/bench.py
ROUNDS=${ROUNDS:-3}
N=${N:-2000}

vgpuctl gpu probe > /dev/null
mkdir -p $cg/bare $cg/t
vgpuctl tenant add t cgroup t vram-max 4G > /dev/null
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# one PATH: a run of bench.py; its line appended to /tmp/PATH
one() {
	case $1 in
	bare) /tmp/in_cg bare $py $b "$N" ;;
	vgpu) LD_PRELOAD=/usr/lib/libvgpu.so /tmp/in_cg t $py $b "$N" ;;
	esac 2> /tmp/$1.err | grep '^import_ms ' >> /tmp/$1 ||
		{ echo "bench: $1 failed: $(tail -n 3 /tmp/$1.err)"; exit 1; }
}
: > /tmp/bare
one bare
: > /tmp/bare; : > /tmp/vgpu
for r in $(seq "$ROUNDS"); do
	one bare
	one vgpu
done
echo "== PyTorch 2.15: import, first CUDA call, $N small ops (median of $ROUNDS, the VM under TCG) =="
printf '%-6s %10s %10s %8s\n' path import_ms init_ms op_us
for p in bare vgpu; do
	printf '%-6s %10s %10s %8s\n' $p \
		"$(awk '{ print $2 }' /tmp/$p | median)" \
		"$(awk '{ print $4 }' /tmp/$p | median)" \
		"$(awk '{ print $6 }' /tmp/$p | median)"
done
