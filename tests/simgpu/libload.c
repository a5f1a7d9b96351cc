// SPDX-License-Identifier: GPL-2.0
/*
 * A library's code per context (module.c has the model and its sources):
 * a library is context-independent, and lazily its code goes into a
 * context at the first use of one of its kernels there; each (library,
 * context) takes SIMGPU_MODULE_VRAM of that context's device, once, given
 * back at cuLibraryUnload or with the context.
 */
#include <stdlib.h>

#include "simgpu.h"

/* Load a library's code into ctx, once per context. */
CUresult simgpu_lib_charge(struct CUmod_st *m, struct CUctx_st *ctx)
{
	struct sg_libload *ld;
	CUresult rc = CUDA_SUCCESS;

	if (!ctx || !simgpu_cfg.module_vram)
		return CUDA_SUCCESS;
	pthread_mutex_lock(&m->lk);
	if (!m->ctx)
		m->ctx = ctx;
	for (ld = m->loads; ld && ld->ctx != ctx; ld = ld->next)
		;
	if (!ld) {
		ld = calloc(1, sizeof(*ld));
		rc = ld ? simgpu_charge(ctx->dev, simgpu_cfg.module_vram)
			: CUDA_ERROR_OUT_OF_MEMORY;
		if (!rc) {
			*ld = (struct sg_libload){ ctx, ctx->dev, simgpu_cfg.module_vram, m->loads };
			m->loads = ld;
		} else {
			free(ld);
		}
	}
	pthread_mutex_unlock(&m->lk);
	return rc;
}

/* Give back a library's loads into ctx (NULL: every context). */
void simgpu_lib_uncharge(struct CUmod_st *m, struct CUctx_st *ctx)
{
	struct sg_libload *gone = NULL, **pp;

	pthread_mutex_lock(&m->lk);
	for (pp = &m->loads; *pp;) {
		struct sg_libload *ld = *pp;

		if (ctx && ld->ctx != ctx) {
			pp = &ld->next;
			continue;
		}
		*pp = ld->next;
		ld->next = gone;
		gone = ld;
	}
	pthread_mutex_unlock(&m->lk);
	while (gone) {
		struct sg_libload *n = gone->next;

		simgpu_uncharge(gone->dev, gone->bytes);
		free(gone);
		gone = n;
	}
}
