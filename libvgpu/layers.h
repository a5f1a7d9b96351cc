/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libvgpu's layering, file by file (nothing includes this header: it is
 * the one written table, which tests/host/layers.sh holds the objects
 * to with tests/tools/layer-check; Documentation/libvgpu.md, "Source
 * layout", explains the layers). Each layer is a folder of libvgpu/,
 * named on its heading, with its files' headers beside them; hooks.def,
 * this table and the build's lists (Makefile, sources.mk) stay at the top.
 *
 * Layering: a file calls only files on its own line's right or on lower
 * lines; nothing calls up. A function's address taken is not a call
 * (hooks.def's table of wrappers, the gate's ops, pthread_atfork's
 * handler). A wrapper file a lower file calls says so on its line. The
 * folders hold the lines in order, each folder's together, so a folder's
 * files call only their own folder's and those below.
 *
 * Top to bottom:
 * start/: start and fork
 *   init.c                     the lifecycle: the constructor, cuInit
 *                              (registration's start), the forked
 *                              child's reset of every unit (above them all)
 * cuda/: CUDA wrappers (exported, hooks.def's rows; engine.h: the engine
 * wrappers' two shapes)
 *   alloc.c free.c vmm.c array.c graph.c  memory, VMM, arrays, graphs
 *   ctxgrow.c greenctx.c ctx.c curctx.c  contexts: growth measured, green
 *                              contexts, primary and created, the current
 *   pools.c launch.c copy.c copyarray.c sync.c  pools; launches, copies,
 *                              memsets; synchronisation
 *   lazyload.c growth.c        a library's kernel loaded at its first use
 *                              in a context; the process's use of a
 *                              device and its growth across a call
 * nvml/: NVML wrappers
 *   nvml.c nvmlview.c nvmllink.c  memory and processes; the device view's
 *                              count and handles; NVLink and topology
 *   views.c                    what a tenant sees of memory (cuMemGetInfo,
 *                              cuDeviceTotalMem), asked by nvml.c too
 * interpose/: interposition
 *   procaddr.c dlsym.c         cuGetProcAddress; dlsym and dlvsym
 * policy/: what the wrappers ask: registration, charging, placement
 *   launchgate.c               a launch's slow path: registration on first
 *                              use, the gate, the queue bound's mark
 *   graphmem.c poolcharge.c    the device's graph memory reserve
 *                              (cuDeviceGraphMemTrim too); stream-ordered
 *                              pools charged by their reservation
 *   vmmfd.c account.c          VMM handles as file descriptors; charging
 *                              transactions
 *   register.c                 registration with vgpu.ko (every unit asks
 *                              libvgpu_ensure())
 *   devview.c placement.c      the tenant's device view; memory placement
 * state/: gate and context state (state.h: the process-wide state)
 *   gatedev.c                  the gate's ops: drain, WAIT, GPU look-up
 *   streamdev.c                a stream's device (and cuStreamDestroy,
 *                              which forgets it)
 *   qevents.c capture.c        the queue bound's driver calls; stream
 *                              captures (and their begin and end wrappers)
 *   synced.c ctxmap.c devmap.c  the page's bound and synced; contexts to
 *                              GPUs; CUDA devices to inventory GPUs
 * logic/: pure logic (host-tested; clock.h, inline, too)
 *   gate.c queue.c charge.c ptrmap.c vmmref.c  the gate, the queue bound,
 *                              charges, pointers, VMM references
 *   nodelist.c gpureq.c cvd.c arraysize.c  node lists, VGPU_GPUS,
 *                              CUDA_VISIBLE_DEVICES, array sizes
 * access/: driver and kernel access
 *   procmap.c hooks.c realdl.c env.c netlink.c log.c  cuGetProcAddress by
 *                              name; the real functions (nest.h: the
 *                              guard); the C library's dlsym; the
 *                              environment; netlink; the log
 *
 * (This comment is the whole header.)
 */
#ifndef VGPU_LAYERS_H
#define VGPU_LAYERS_H
#endif
