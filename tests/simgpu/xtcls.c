// SPDX-License-Identifier: GPL-2.0
/*
 * Context-local storage (export table CONTEXT_LOCAL_STORAGE_INTERFACE_V0301,
 * slots 0-2, as ZLUDA's dark_api/src/lib.rs describes them): the runtime
 * keeps its state for a context under a key of its own. put(ctx, key,
 * value, dtor), delete(ctx, key), get(&value, ctx, key); a NULL context
 * is the current one. get of a key never put is CUDA_ERROR_INVALID_HANDLE
 * (ZLUDA's answer; the runtime then puts one). The destructor is called
 * with (ctx, key, value) when the context is destroyed or reset, which is
 * when the runtime's state for it ends.
 */
#include <stdlib.h>

#include "simgpu.h"
#include "exporttab.h"

struct sg_cls {
	struct sg_cls *next;
	struct CUctx_st *ctx;
	void *key, *value;
	void (*dtor)(CUcontext, void *, void *);
};

static struct sg_cls *sg_cls_all;
static pthread_mutex_t sg_cls_lk = PTHREAD_MUTEX_INITIALIZER;

static CUresult sg_cls_ctx(CUcontext in, struct CUctx_st **out)
{
	SG_INIT_CHECK();
	*out = in ? in : simgpu_ctx_current();
	if (!*out || !simgpu_ctx_valid(*out))
		return CUDA_ERROR_INVALID_CONTEXT;
	return CUDA_SUCCESS;
}

static struct sg_cls **sg_cls_find(struct CUctx_st *c, void *key)
{
	struct sg_cls **p;

	for (p = &sg_cls_all; *p; p = &(*p)->next)
		if ((*p)->ctx == c && (*p)->key == key)
			break;
	return p;
}

CUresult sg_xt_cls_put(CUcontext ctx, void *key, void *value,
		       void (*dtor)(CUcontext, void *, void *))
{
	struct CUctx_st *c = NULL;
	struct sg_cls **p;
	CUresult rc = sg_cls_ctx(ctx, &c);

	SG_XT_LOG("CONTEXT_LOCAL_STORAGE[0] put ctx %p key %p", (void *)ctx, key);
	if (rc)
		return rc;
	pthread_mutex_lock(&sg_cls_lk);
	p = sg_cls_find(c, key);
	if (!*p) {
		*p = calloc(1, sizeof(**p));
		if (!*p) {
			pthread_mutex_unlock(&sg_cls_lk);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		(*p)->ctx = c;
		(*p)->key = key;
	}
	(*p)->value = value;
	(*p)->dtor = dtor;
	pthread_mutex_unlock(&sg_cls_lk);
	return CUDA_SUCCESS;
}

CUresult sg_xt_cls_delete(CUcontext ctx, void *key)
{
	struct CUctx_st *c = NULL;
	struct sg_cls **p, *e = NULL;
	CUresult rc = sg_cls_ctx(ctx, &c);

	SG_XT_LOG("CONTEXT_LOCAL_STORAGE[1] delete ctx %p key %p", (void *)ctx, key);
	if (rc)
		return rc;
	pthread_mutex_lock(&sg_cls_lk);
	p = sg_cls_find(c, key);
	if (*p) {
		e = *p;
		*p = e->next;
	}
	pthread_mutex_unlock(&sg_cls_lk);
	free(e);
	return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult sg_xt_cls_get(void **value, CUcontext ctx, void *key)
{
	struct CUctx_st *c = NULL;
	struct sg_cls **p;
	CUresult rc = sg_cls_ctx(ctx, &c);

	SG_XT_LOG("CONTEXT_LOCAL_STORAGE[2] get ctx %p key %p", (void *)ctx, key);
	if (rc)
		return rc;
	if (!value)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&sg_cls_lk);
	p = sg_cls_find(c, key);
	if (*p)
		*value = (*p)->value;
	pthread_mutex_unlock(&sg_cls_lk);
	return *p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* The context ends: each entry's destructor, with no simgpu lock held
 * (it may call the driver). Not at process exit, when the runtime's own
 * state may be gone already. */
void sg_xt_cls_ctx_gone(struct CUctx_st *ctx)
{
	for (;;) {
		struct sg_cls **p, *e = NULL;

		pthread_mutex_lock(&sg_cls_lk);
		for (p = &sg_cls_all; *p; p = &(*p)->next)
			if ((*p)->ctx == ctx) {
				e = *p;
				*p = e->next;
				break;
			}
		pthread_mutex_unlock(&sg_cls_lk);
		if (!e)
			return;
		if (e->dtor && !simgpu_exiting) {
			SG_XT_LOG("CONTEXT_LOCAL_STORAGE destructor ctx %p key %p", (void *)ctx, e->key);
			e->dtor(ctx, e->key, e->value);
		}
		free(e);
	}
}
