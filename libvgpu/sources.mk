# SPDX-License-Identifier: GPL-2.0
#
# libvgpu's source files, listed once, as paths in libvgpu/ (a folder per
# layer of layers.h's table: start/, cuda/, nvml/, interpose/, policy/,
# state/, logic/, access/): libvgpu/Makefile builds libvgpu.so
# and its logic tests from these lists, bench/Makefile gate-bench, and
# tests/host/layers.sh and realgpu.sh read them with
#
#   make -s -C libvgpu -f sources.mk list-NAME     (paths from the top, sorted)
#
# A new file goes into its layer's folder, into LIBVGPU_SRCS (or
# LIBVGPU_LOGIC, if it is pure logic, in logic/), and onto its line of the
# layering table in layers.h.

# Pure logic (no driver, no module): also built under ASan/UBSan with the
# logic tests (libvgpu/tests/test_logic.c).
LIBVGPU_LOGIC := logic/charge.c logic/ptrmap.c logic/vmmref.c logic/arraysize.c logic/gate.c \
	logic/queue.c logic/nodelist.c logic/gpureq.c logic/cvd.c

# Every file of libvgpu.so (in the order they have always been linked: it
# orders the constructors, init.c's and devmap.c's).
LIBVGPU_SRCS := access/log.c start/init.c access/hooks.c interpose/dlsym.c \
	access/netlink.c policy/register.c state/devmap.c policy/account.c access/realdl.c \
	interpose/procaddr.c access/procmap.c cuda/alloc.c state/streamdev.c cuda/pools.c \
	policy/poolcharge.c policy/graphmem.c cuda/ctxgrow.c cuda/lazyload.c cuda/growth.c cuda/free.c cuda/vmm.c \
	policy/vmmfd.c cuda/array.c cuda/graph.c cuda/ctx.c cuda/greenctx.c state/ctxmap.c \
	cuda/curctx.c state/gatedev.c cuda/launch.c cuda/copy.c cuda/copyarray.c \
	policy/launchgate.c state/capture.c state/qevents.c cuda/sync.c state/synced.c \
	policy/placement.c nvml/views.c nvml/nvml.c policy/devview.c access/env.c \
	nvml/nvmlview.c nvml/nvmllink.c $(LIBVGPU_LOGIC)

# What the logic tests link: the pure logic, and netlink.c's reply parser.
LIBVGPU_TEST_LOGIC := $(LIBVGPU_LOGIC) access/netlink.c

# The compute gate's fast path, as bench/gate-bench and realgpu.sh's
# ASan build of it link it.
LIBVGPU_GATE := logic/gate.c logic/queue.c

# A list, as paths from the top of the tree, each file once.
list-%:
	@$(if $(strip $($*)),echo $(addprefix libvgpu/,$(sort $($*))),echo "libvgpu/sources.mk: no list $*" >&2; exit 1)
