// SPDX-License-Identifier: GPL-2.0
/*
 * libvgpu's lifecycle, in one file, above every unit:
 *
 * - Load. Preloaded into every process of a host (LD_PRELOAD or
 *   /etc/ld.so.preload), libvgpu must cost nothing in programs that never
 *   touch CUDA: the constructor reads the log level and installs the fork
 *   handler (no system call, no file, no socket, no thread).
 * - Start. Registration with vgpu.ko (register.c) waits for the first CUDA
 *   or NVML call: any wrapper asks libvgpu_ensure(); cuInit, normally the
 *   first, also sets CUDA_VISIBLE_DEVICES to the tenant's device view once,
 *   before the driver reads it (devview.c).
 * - Fork. A forked child starts with one thread, the one that called fork,
 *   and a copy of everything else: a lock another thread of the parent held
 *   at that moment stays held in the child forever, and the child would
 *   hang at its first use of it (issue 28, finding 5). So the child's
 *   handler re-initialises every lock, condition and state of libvgpu's
 *   that the parent's other threads may have been inside. Each unit owns
 *   its reset (its state, its lock); this file only calls them all
 *   (Documentation/libvgpu.md, "Source layout" and "Registration").
 *
 * What the child forgets besides the locks: the parent's registration
 * (socket, descriptor, pages) and everything charged under it
 * (allocations, VMM references and descriptors, pools, graph reserves,
 * executable graphs, contexts, primary and green), since the parent's
 * driver state is not the child's (NVIDIA's driver does not let a child
 * use a context its parent made) and the child registers, and is charged,
 * anew; the gate's state and the queue bound's (their per-GPU locks and
 * condition variables with them), the captures (begun by the parent's
 * threads), the device map and the memory placement. It keeps what
 * describes the libraries, not the process: the real functions found,
 * the self-check's finished answer, whether NVML answers.
 *
 * Per-thread state of the parent's other threads is gone with them; the
 * forking thread's own is reset where it depends on the parent's
 * registration (the gate's mark, the placement's generation; the context
 * cache by its generation). realdl.c's pthread_once needs nothing: glibc
 * lets a child run again a once the parent was running when it forked
 * (its once word carries the fork generation).
 */
#include <pthread.h>

#include "../state/capture.h"
#include "../cuda/ctx.h"
#include "../state/devmap.h"
#include "../state/gatedev.h"
#include "../cuda/graph.h"
#include "../policy/graphmem.h"
#include "../cuda/greenctx.h"
#include "../access/hooks.h"
#include "../access/log.h"
#include "../access/nest.h"
#include "../policy/placement.h"
#include "../policy/poolcharge.h"
#include "../interpose/procaddr.h"
#include "../logic/ptrmap.h"
#include "../policy/register.h"
#include "../policy/vmmfd.h"
#include "../logic/vmmref.h"

__attribute__((visibility("default"))) const char vgpu_version[] = "0.2";

static void libvgpu_atfork_child(void)
{
	/* The registration first: undoing it resets the gate (gatedev.c),
	 * the queue bound and the context map (ctxmap.c) too. */
	libvgpu_register_reset();
	libvgpu_gate_reset();
	libvgpu_hooks_reset();
	libvgpu_procaddr_reset();
	libvgpu_ptrmap_reset();
	libvgpu_vref_reset();
	libvgpu_vfd_reset();
	libvgpu_devmap_reset();
	libvgpu_placement_reset();
	libvgpu_poolcharge_reset();
	libvgpu_graphmem_reset();
	libvgpu_graph_reset();
	libvgpu_ctx_reset();
	libvgpu_green_reset();
	libvgpu_capture_reset();
}

__attribute__((constructor)) static void libvgpu_init(void)
{
	libvgpu_log_init();
	pthread_atfork(NULL, NULL, libvgpu_atfork_child);
	libvgpu_log(VGPU_LOG_DEBUG, "loaded (version %s)", vgpu_version);
}

VGPU_EXPORT CUresult cuInit(unsigned int Flags)
{
	VGPU_PASS_NESTED(cuInit, (Flags));
	vgpu_pfn_cuInit real = REAL(cuInit);

	if (!real)
		return CUDA_ERROR_NO_DEVICE;
	if (libvgpu_ensure() == VGPU_ST_DENIED)
		return CUDA_ERROR_NO_DEVICE;
	libvgpu_register_cuda_env();
	return real(Flags);
}
