// SPDX-License-Identifier: GPL-2.0
/*
 * The slow path of the launch gate (gate.h): the tenant does not hold the
 * GPU. If the process submitted work to it since it last drained, it
 * drains first (ops->drain, timed) so that the module can hand the GPU to
 * the next tenant; then it sleeps in VGPU_IOC_WAIT until its tenant is
 * granted (EINTR: ask again), and the launch goes. No lock is held here:
 * other threads that meet the closed gate wait too, each in its own WAIT.
 * A WAIT that fails otherwise (ENOTTY from an older module, ESRCH once the
 * registration ended, ...) turns the gate off for that GPU: launches pass
 * through rather than block forever.
 */
#include <errno.h>

#include "clock.h"
#include "gate.h"

__thread struct libvgpu_gate_tls libvgpu_gate_tls __attribute__((tls_model("initial-exec")));

int libvgpu_gate_slow(struct vgpu_gate *gt, void *stream)
{
	const struct vgpu_dev_gate *gp = __atomic_load_n(&gt->gate, __ATOMIC_ACQUIRE);
	uint64_t *launches;
	int gpu, waited = 0;

	if (libvgpu_gate_tls.mark || !gp)
		return 0;	/* the fast path counted it (a mark is due), or no gate */
	gpu = __atomic_load_n(&gt->one_gpu, __ATOMIC_RELAXED);
	if (gpu < 0)
		gpu = gt->ops->gpu(gt->ctx, stream);
	if (gpu < 0 || gpu >= VGPU_DEV_GPUS)
		return 0;
	launches = (uint64_t *)&gt->page->gpu[gpu].launches;
	while (!__atomic_load_n(&gt->off[gpu], __ATOMIC_RELAXED) &&
	       !__atomic_load_n(&gp->gpu[gpu].granted, __ATOMIC_ACQUIRE)) {
		struct vgpu_dev_wait w = { .gpu = (uint32_t)gpu };
		uint64_t n = __atomic_load_n(launches, __ATOMIC_RELAXED);
		int rc;

		if (n != __atomic_load_n(&gt->seen[gpu], __ATOMIC_RELAXED)) {
			uint64_t t0 = libvgpu_mono_ns();

			gt->ops->drain(gt->ctx, gpu);
			w.drain_ns = libvgpu_mono_ns() - t0;
			__atomic_store_n(&gt->seen[gpu], n, __ATOMIC_RELAXED);
		}
		rc = gt->ops->wait(gt->ctx, &w);
		waited = 1;
		if (rc == -EINTR)
			continue;
		if (rc && !__atomic_exchange_n(&gt->off[gpu], 1, __ATOMIC_RELAXED))
			gt->ops->failed(gt->ctx, gpu, -rc);
		break;	/* granted (the module said so), or no gate any more */
	}
	__atomic_fetch_add(launches, 1, __ATOMIC_RELAXED);
	if (!__atomic_load_n(&gt->off[gpu], __ATOMIC_RELAXED) && vgpu_gate_note(gt, gpu, stream))
		libvgpu_gate_tls.mark = gpu + 1;
	return waited;
}
