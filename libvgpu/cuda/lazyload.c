// SPDX-License-Identifier: GPL-2.0
/*
 * Lazily loaded code reached through a library's kernels (issue 28).
 * A library is context-independent: NVIDIA's runtime loads every fat
 * binary with cuLibraryLoadData while no context is current, and with lazy
 * loading (the default) a kernel's code goes into a context's device
 * memory when the kernel is first used there (Driver API reference,
 * "Library Management"; Programming Guide, "Lazy Loading"): at a launch of
 * the CUkernel or at cuKernelGetFunction, where nothing was measured.
 *
 * So libvgpu keeps the kernels cuLibraryGetKernel handed out, each with
 * the contexts it was measured in, and the process's known contexts. A
 * kernel with a known context it was not measured in is "pending": its
 * hash slot's count in libvgpu_lazy_pend is non-zero, and a launch of any
 * handle in that slot leaves the fast path (one load) for
 * libvgpu_lazy_use: the kernel is loaded into the current context first
 * with cuKernelGetFunction, the growth of the process's use around it
 * charged to the library (ctxgrow.c), so a refusal fails the launch with
 * CUDA_ERROR_OUT_OF_MEMORY before the driver sees it. cuKernelGetFunction
 * called by the program is measured the same way.
 *
 * The lock is never held across a driver call; two threads may measure
 * the same first use (the second sees no growth).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lazyload.h"
#include "growth.h"
#include "../access/log.h"
#include "../access/nest.h"
#include "../logic/ptrmap.h"
#include "../policy/register.h"

#define LZ_IN 4		/* contexts remembered per kernel */
#define LZ_CTXS 16	/* known contexts */

struct lz_kernel {
	CUkernel k;
	CUlibrary lib;
	CUcontext in[LZ_IN];	/* measured in */
	unsigned int n;
	int pending;
	struct lz_kernel *next;
};

uint32_t libvgpu_lazy_pend[VGPU_LAZY_SLOTS];
static struct lz_kernel *lz_bucket[VGPU_LAZY_SLOTS];	/* under lz_lk */
static CUcontext lz_ctx[LZ_CTXS];			/* under lz_lk */
static pthread_mutex_t lz_lk = PTHREAD_MUTEX_INITIALIZER;

static struct lz_kernel *lz_find(const void *k)
{
	struct lz_kernel *e = lz_bucket[vgpu_lazy_slot(k)];

	while (e && (const void *)e->k != k)
		e = e->next;
	return e;
}

static int lz_in(const struct lz_kernel *e, CUcontext c)
{
	for (unsigned int i = 0; i < e->n; i++)
		if (e->in[i] == c)
			return 1;
	return 0;
}

/* Pending: a known context the kernel was not measured in. */
static void lz_update(struct lz_kernel *e)
{
	int p = 0;

	for (int i = 0; i < LZ_CTXS && !p; i++)
		p = lz_ctx[i] && !lz_in(e, lz_ctx[i]);
	if (p != e->pending)
		__atomic_fetch_add(&libvgpu_lazy_pend[vgpu_lazy_slot(e->k)], p ? 1u : -1u,
				   __ATOMIC_RELAXED);
	e->pending = p;
}

static void lz_mark(struct lz_kernel *e, CUcontext c)
{
	if (!c || lz_in(e, c))
		return;
	if (e->n < LZ_IN)
		e->in[e->n++] = c;
	else	/* the oldest is measured again if used (no growth then) */
		memmove(e->in, e->in + 1, sizeof(e->in[0]) * (LZ_IN - 1)), e->in[LZ_IN - 1] = c;
}

static void lz_each(void (*fn)(struct lz_kernel *))
{
	for (unsigned int s = 0; s < VGPU_LAZY_SLOTS; s++)
		for (struct lz_kernel *e = lz_bucket[s]; e; e = e->next)
			fn(e);
}

void libvgpu_lazy_kernel(CUkernel k, CUlibrary lib)
{
	struct lz_kernel *e;

	pthread_mutex_lock(&lz_lk);
	e = lz_find(k);
	if (e && e->lib != lib) {	/* the handle of an unloaded library's */
		e->lib = lib;
		e->n = 0;
	}
	if (!e && (e = calloc(1, sizeof(*e)))) {
		unsigned int s = vgpu_lazy_slot(k);

		*e = (struct lz_kernel){ .k = k, .lib = lib, .next = lz_bucket[s] };
		lz_bucket[s] = e;
	}
	if (e)
		lz_update(e);
	pthread_mutex_unlock(&lz_lk);
}

void libvgpu_lazy_ctx_note(CUcontext c)
{
	int i, free_at = -1;

	if (!c)
		return;
	pthread_mutex_lock(&lz_lk);
	for (i = 0; i < LZ_CTXS && lz_ctx[i] != c; i++)
		if (!lz_ctx[i] && free_at < 0)
			free_at = i;
	if (i == LZ_CTXS && free_at >= 0) {	/* new: every kernel pending */
		lz_ctx[free_at] = c;
		lz_each(lz_update);
	}
	pthread_mutex_unlock(&lz_lk);
}

static void lz_clear(struct lz_kernel *e)
{
	e->n = 0;
	lz_update(e);
}

static CUcontext lz_gone;	/* under lz_lk: for lz_forget */

static void lz_forget(struct lz_kernel *e)
{
	for (unsigned int i = 0; i < e->n; i++)
		if (e->in[i] == lz_gone) {
			e->in[i] = e->in[--e->n];
			break;
		}
	lz_update(e);
}

void libvgpu_lazy_ctx_gone(CUcontext c)
{
	pthread_mutex_lock(&lz_lk);
	for (int i = 0; i < LZ_CTXS; i++)
		if (lz_ctx[i] == c)
			lz_ctx[i] = NULL;
	lz_gone = c;
	lz_each(lz_forget);
	pthread_mutex_unlock(&lz_lk);
}

void libvgpu_lazy_unload(CUlibrary lib)
{
	pthread_mutex_lock(&lz_lk);
	for (unsigned int s = 0; s < VGPU_LAZY_SLOTS; s++) {
		for (struct lz_kernel **pp = &lz_bucket[s]; *pp;) {
			struct lz_kernel *e = *pp;

			if (e->lib != lib) {
				pp = &e->next;
				continue;
			}
			if (e->pending)
				__atomic_fetch_sub(&libvgpu_lazy_pend[s], 1, __ATOMIC_RELAXED);
			*pp = e->next;
			free(e);
		}
	}
	pthread_mutex_unlock(&lz_lk);
}

/* The kernel k is now measured in c. */
static void lz_loaded(const void *k, CUcontext c)
{
	struct lz_kernel *e;

	pthread_mutex_lock(&lz_lk);
	e = lz_find(k);
	if (e) {
		lz_mark(e, c);
		lz_update(e);
	}
	pthread_mutex_unlock(&lz_lk);
}

/* The library of kernel k as cuLibraryGetKernel gave it, else NULL. */
static CUlibrary lz_lib(const void *k, CUcontext c, int *measured)
{
	struct lz_kernel *e;
	CUlibrary lib = NULL;

	pthread_mutex_lock(&lz_lk);
	e = lz_find(k);
	if (e)
		lib = e->lib;
	*measured = e && lz_in(e, c);
	pthread_mutex_unlock(&lz_lk);
	return lib;
}

/* cuKernelGetFunction measured: the growth charged to lib. */
static CUresult lz_get_function(vgpu_pfn_cuKernelGetFunction real, CUfunction *pf,
				CUkernel k, CUlibrary lib)
{
	struct libvgpu_growth g;
	CUresult rc;

	libvgpu_grow_start(&g);
	rc = real(pf, k);
	if (!rc && lib && libvgpu_grow_end(&g, VGPU_K_MOD, (uint64_t)(uintptr_t)lib)) {
		libvgpu_log(VGPU_LOG_INFO, "loading a kernel into its context refused: over "
			    "the tenant's vram-max");
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	if (!rc && g.gpu >= 0)
		lz_loaded(k, g.ctx);
	return rc;
}

CUresult libvgpu_lazy_use(const void *f)
{
	vgpu_pfn_cuKernelGetFunction real = REAL(cuKernelGetFunction);
	vgpu_pfn_cuCtxGetCurrent cur = REAL(cuCtxGetCurrent);
	CUcontext c = NULL;
	CUfunction fn;
	CUlibrary lib;
	CUresult rc;
	int measured;

	if (!real || !cur || cur(&c) || !c)
		return CUDA_SUCCESS;
	lib = lz_lib(f, c, &measured);
	if (!lib || measured)
		return CUDA_SUCCESS;
	rc = lz_get_function(real, &fn, (CUkernel)(uintptr_t)f, lib);
	if (rc == CUDA_ERROR_OUT_OF_MEMORY)
		return rc;
	lz_loaded(f, c);	/* measured, or nothing to measure: not again */
	return CUDA_SUCCESS;
}

VGPU_EXPORT CUresult cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
	VGPU_PASS_NESTED(cuKernelGetFunction, (pFunc, kernel));
	vgpu_pfn_cuKernelGetFunction real = REAL(cuKernelGetFunction);
	vgpu_pfn_cuKernelGetLibrary getlib = REAL(cuKernelGetLibrary);
	CUlibrary lib;
	int measured;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!vgpu_active())
		return real(pFunc, kernel);
	lib = lz_lib(kernel, NULL, &measured);
	if (!lib && getlib && getlib(&lib, kernel))
		lib = NULL;
	return lz_get_function(real, pFunc, kernel, lib);
}

/* In a forked child (ctx.c's reset): the parent's contexts are not the
 * child's, and the lock may have been held. */
void libvgpu_lazy_reset(void)
{
	pthread_mutex_init(&lz_lk, NULL);
	memset(lz_ctx, 0, sizeof(lz_ctx));
	lz_each(lz_clear);
}
