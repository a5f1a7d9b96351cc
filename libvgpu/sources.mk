# SPDX-License-Identifier: GPL-2.0
#
# libvgpu's source files, listed once: libvgpu/Makefile builds libvgpu.so
# and its logic tests from these lists, bench/Makefile gate-bench, and
# tests/host/layers.sh and realgpu.sh read them with
#
#   make -s -C libvgpu -f sources.mk list-NAME     (paths from the top, sorted)
#
# A new file goes into LIBVGPU_SRCS (or LIBVGPU_LOGIC, if it is pure
# logic), and onto its line of the layering table in layers.h.

# Pure logic (no driver, no module): also built under ASan/UBSan with the
# logic tests (libvgpu/tests/test_logic.c).
LIBVGPU_LOGIC := charge.c ptrmap.c vmmref.c arraysize.c gate.c queue.c nodelist.c gpureq.c cvd.c

# Every file of libvgpu.so.
LIBVGPU_SRCS := log.c init.c hooks.c dlsym.c netlink.c register.c devmap.c account.c \
	realdl.c procaddr.c procmap.c alloc.c streamdev.c pools.c poolcharge.c graphmem.c ctxgrow.c \
	free.c vmm.c vmmfd.c array.c graph.c ctx.c greenctx.c ctxmap.c curctx.c gatedev.c \
	launch.c copy.c copyarray.c launchgate.c capture.c qevents.c sync.c synced.c placement.c \
	views.c nvml.c devview.c env.c nvmlview.c nvmllink.c $(LIBVGPU_LOGIC)

# What the logic tests link: the pure logic, and netlink.c's reply parser.
LIBVGPU_TEST_LOGIC := $(LIBVGPU_LOGIC) netlink.c

# The compute gate's fast path, as bench/gate-bench and realgpu.sh's
# ASan build of it link it.
LIBVGPU_GATE := gate.c queue.c

# A list, as paths from the top of the tree, each file once.
list-%:
	@$(if $(strip $($*)),echo $(addprefix libvgpu/,$(sort $($*))),echo "libvgpu/sources.mk: no list $*" >&2; exit 1)
