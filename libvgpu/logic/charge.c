// SPDX-License-Identifier: GPL-2.0
/*
 * Charging without a system call per allocation. Each GPU slot of the
 * page holds avail, bytes already charged to the tenant that this process
 * may spend. An allocation compare-and-swaps avail down by its size (never
 * below 0), the driver allocates, and the size is added to used; a failed
 * allocation adds it back to avail. When avail is short, VGPU_IOC_CHARGE
 * asks the module for the size plus a budget; the module may refuse
 * (ENOMEM: the tenant's limit or the GPU's capacity) and may take unspent
 * budget back at any time (it exchanges avail with 0), which the
 * compare-and-swap tolerates. A free moves the size from used to avail,
 * and when avail exceeds twice the keep of the last CHARGE, the process
 * releases the surplus down to keep (VGPU_IOC_RELEASE).
 */
#include <errno.h>

#include "charge.h"

static int64_t *avail_of(struct vgpu_charger *c, int gpu)
{
	return (int64_t *)&c->page->gpu[gpu].avail;
}

static uint64_t *used_of(struct vgpu_charger *c, int gpu)
{
	return (uint64_t *)&c->page->gpu[gpu].used;
}

/* Take bytes from avail if it holds them. */
static int take(int64_t *avail, uint64_t bytes)
{
	int64_t a = __atomic_load_n(avail, __ATOMIC_RELAXED);

	while (a >= 0 && (uint64_t)a >= bytes)
		if (__atomic_compare_exchange_n(avail, &a, a - (int64_t)bytes, 1,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return 1;
	return 0;
}

int libvgpu_charge(struct vgpu_charger *c, int gpu, uint64_t bytes)
{
	int64_t *avail = avail_of(c, gpu);

	if (!bytes)
		return 0;
	if (bytes > (uint64_t)INT64_MAX)
		return -ENOMEM;
	for (int i = 0; i < VGPU_CHARGE_TRIES; i++) {
		struct vgpu_dev_charge req = { .gpu = (uint32_t)gpu, .bytes = bytes };
		int rc;

		if (take(avail, bytes))
			return 0;
		rc = c->ioctl(c->ctx, VGPU_IOC_CHARGE, &req);
		if (rc == -EINTR)
			continue;
		if (rc)
			return rc;
		__atomic_store_n(&c->keep[gpu], req.keep, __ATOMIC_RELAXED);
		/* The module added at least bytes to avail; another thread (or
		 * the module taking budget back) may beat us to it: retry. */
	}
	return -ENOMEM;
}

int libvgpu_charge_short(struct vgpu_charger *c, int gpu, uint64_t bytes)
{
	int64_t a = __atomic_load_n(avail_of(c, gpu), __ATOMIC_RELAXED);

	return bytes && bytes <= (uint64_t)INT64_MAX && (a < 0 || (uint64_t)a < bytes);
}

void libvgpu_charge_commit(struct vgpu_charger *c, int gpu, uint64_t bytes)
{
	if (bytes)
		__atomic_add_fetch(used_of(c, gpu), bytes, __ATOMIC_RELEASE);
}

void libvgpu_charge_cancel(struct vgpu_charger *c, int gpu, uint64_t bytes)
{
	if (bytes)
		__atomic_add_fetch(avail_of(c, gpu), (int64_t)bytes, __ATOMIC_RELEASE);
}

void libvgpu_uncharge(struct vgpu_charger *c, int gpu, uint64_t bytes)
{
	uint64_t *used = used_of(c, gpu), u, keep;
	int64_t a;

	if (!bytes)
		return;
	/* used never wraps, even if the module dropped our charges. */
	u = __atomic_load_n(used, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(used, &u, u >= bytes ? u - bytes : 0, 1,
					    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		;
	a = __atomic_add_fetch(avail_of(c, gpu), (int64_t)bytes, __ATOMIC_ACQ_REL);
	keep = __atomic_load_n(&c->keep[gpu], __ATOMIC_RELAXED);
	if (a > 0 && (uint64_t)a > 2 * keep) {
		struct vgpu_dev_charge req = {
			.gpu = (uint32_t)gpu, .bytes = (uint64_t)a - keep,
		};

		/* Best effort: a failure leaves the budget with us, where
		 * the module can still take it back. */
		(void)c->ioctl(c->ctx, VGPU_IOC_RELEASE, &req);
	}
}
