// SPDX-License-Identifier: GPL-2.0
/*
 * The slow side of a launch: registration on first use, the gate's slow
 * path (gate.c: find the GPU, drain, wait) and, after the thread's M-th
 * launch, the queue bound's mark (queue.c). The fast path is inlined in
 * the wrappers (launchgate.h).
 */
#include "../state/ctxmap.h"
#include "launchgate.h"
#include "placement.h"
#include "../state/qevents.h"
#include "register.h"

void libvgpu_launch_slow(void *stream)
{
	if (__atomic_load_n(&libvgpu_proc.state, __ATOMIC_ACQUIRE) == VGPU_ST_UNSET)
		libvgpu_ensure();	/* a launch before any other hooked call */
	/* A thread that waited at the closed gate is on a slow path: the
	 * time to notice a placement change and rebind its memory policy
	 * (placement.c), which threads that rarely allocate need. */
	if (libvgpu_gate_slow(&libvgpu_gate, stream))
		libvgpu_placement_sync();
}

/* A launch on a stream with no context current (the stream's context
 * runs it): make one of the GPU's contexts current for the mark, whose
 * events are the current context's (qevents.c), with the real functions
 * (curctx.c does not see it); 1 if pushed. */
static int push_gpu_ctx(int g)
{
	vgpu_pfn_cuCtxGetCurrent get = REAL(cuCtxGetCurrent);
	vgpu_pfn_cuCtxPushCurrent_v2 push = REAL(cuCtxPushCurrent_v2);
	CUcontext cur = NULL, c;

	if (!get || !push || !REAL(cuCtxPopCurrent_v2) || get(&cur) || cur)
		return 0;
	return libvgpu_gpu_ctxs(g, &c, 1) == 1 && push(c) == CUDA_SUCCESS;
}

/* After the thread's M-th launch (rc: the driver's answer): mark the
 * streams of its last M launches. */
void libvgpu_launch_mark(CUresult rc)
{
	const struct vgpu_dev_gate *gp = __atomic_load_n(&libvgpu_gate.gate, __ATOMIC_ACQUIRE);
	unsigned int m = __atomic_load_n(&libvgpu_gate.mark_mask, __ATOMIC_RELAXED) + 1;
	int g = libvgpu_gate_tls.mark - 1;
	void *win[VGPU_MARK_MAX];
	CUcontext popped;
	unsigned int m2;
	int pushed;

	libvgpu_gate_tls.mark = 0;
	/* Marks go on while captures are live (capture.c, qevents.c). */
	if (rc != CUDA_SUCCESS || !gp || !m || m > VGPU_MARK_MAX || g < 0 || g >= VGPU_DEV_GPUS)
		return;
	for (unsigned int i = 0; i < m; i++)
		win[i] = libvgpu_gate_tls.win[(libvgpu_gate_tls.n - 1 - i) & (VGPU_MARK_MAX - 1)];
	/* The module must not take this thread's wait for an idle holder. A
	 * thread that changed GPU within its last VGPU_CROSS_LAUNCHES launches
	 * waits a bounded time (queue.h: no self-deadlock). */
	libvgpu_queue_cross = vgpu_gate_cross();
	__atomic_fetch_add(&libvgpu_gate.page->gpu[g].bound, 1, __ATOMIC_RELAXED);
	pushed = push_gpu_ctx(g);
	m2 = (unsigned int)libvgpu_queue_mark(&libvgpu_queue, g,
					      __atomic_load_n(&gp->gpu[g].seq, __ATOMIC_RELAXED),
					      win, (int)m);
	if (pushed)
		REAL(cuCtxPopCurrent_v2)(&popped);
	__atomic_fetch_sub(&libvgpu_gate.page->gpu[g].bound, 1, __ATOMIC_RELAXED);
	if (m2 != m && m2 >= 1 && m2 <= VGPU_MARK_MAX)
		__atomic_store_n(&libvgpu_gate.mark_mask, m2 - 1, __ATOMIC_RELAXED);
}
