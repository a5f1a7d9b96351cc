// SPDX-License-Identifier: GPL-2.0
/*
 * Mapping a cuGetProcAddress look-up to a HOOK row by name, for a driver
 * whose answers are not the addresses of its exports (procaddr.c uses it
 * when its start-up self-check finds so). Nothing here is a second table:
 *
 *  - the hooked variants of a name are the HOOK rows whose base is that
 *    name (hooks.def lists them in the order NVIDIA introduced them);
 *  - the newest variant is the one cuda.h's public macros rename the name
 *    to (#define cuMemAlloc cuMemAlloc_v2), which is why this file, unlike
 *    every other one, includes cuda.h WITHOUT __CUDA_API_VERSION_INTERNAL;
 *  - the API versions at which a name's ABI changed are those of the
 *    PFN_<name>_v<version> typedefs of cudaTypedefs.h, extracted by the
 *    Makefile into procver.inc.
 *
 * The k-th version of a name selects its k-th variant. A rename to another
 * function (cuGraphInstantiate -> cuGraphInstantiateWithFlags) has no
 * version in the headers: the driver's own answer for the target's name
 * tells whether that is what it gave. The per-thread-stream flag then
 * picks the variant's _ptsz/_ptds row when there is one. A look-up at a
 * version newer than the headers maps only if the driver gives what it
 * gives at theirs: a newer variant is one no row wraps.
 */
#include <stdio.h>
#include <string.h>

#include <cuda.h>
#include <nvml.h>	/* hooks.def's NVML 12.4+ rows are keyed on it */

#include "procmap.h"

#define VGPU_STR2(x) #x
#define VGPU_STR(x) VGPU_STR2(x)

struct vgpu_procrow {
	const char *name;	/* exported symbol; NULL: NEED row */
	const char *base;	/* name asked of cuGetProcAddress */
	const char *newest;	/* base after cuda.h's public macros */
};

/* Indexed like libvgpu_hooks (NEED rows keep their slots). NV rows never
 * match: cuGetProcAddress answers only driver names. */
static const struct vgpu_procrow vgpu_procrows[] = {
#define VGPU_ROW_CU(sym) sym
#define VGPU_ROW_NV(sym) NULL
#define HOOK(lib, sym, base, ret, params) \
	{ VGPU_ROW_##lib(#sym), #base, VGPU_STR(base) },
#define NEED(lib, sym, ret, params) { NULL, NULL, NULL },
#include "../hooks.def"
};
#define VGPU_NROWS ((int)(sizeof(vgpu_procrows) / sizeof(vgpu_procrows[0])))

struct vgpu_procver {
	const char *name;
	int version;
};

/* { "cuMemAlloc", 2000 }, { "cuMemAlloc", 3020 }, ...: sorted by name,
 * then version, without the _ptsz/_ptds typedefs. */
static const struct vgpu_procver vgpu_procvers[] = {
#include "procver.inc"
};
#define VGPU_NVERS ((int)(sizeof(vgpu_procvers) / sizeof(vgpu_procvers[0])))

static int row_named(const char *name)
{
	for (int i = 0; i < VGPU_NROWS; i++)
		if (vgpu_procrows[i].name && !strcmp(vgpu_procrows[i].name, name))
			return i;
	return -1;
}

static int is_pt(const char *name)
{
	size_t n = strlen(name);

	return n > 5 && (!strcmp(name + n - 5, "_ptsz") || !strcmp(name + n - 5, "_ptds"));
}

/* The per-thread-stream row of variant row v, or v. */
static int pt_row(int v)
{
	char pt[128];

	for (int i = 0; i < 2; i++) {
		int r;

		snprintf(pt, sizeof(pt), "%s%s", vgpu_procrows[v].name, i ? "_ptds" : "_ptsz");
		r = row_named(pt);
		if (r >= 0)
			return r;
	}
	return v;
}

/* How many ABI versions name has, and how many of them are <= version. */
static int versions(const char *name, int version, int *upto)
{
	int n = 0;

	*upto = 0;
	for (int i = 0; i < VGPU_NVERS; i++) {
		if (strcmp(vgpu_procvers[i].name, name))
			continue;
		n++;
		if (vgpu_procvers[i].version <= version)
			(*upto)++;
	}
	return n;
}

int libvgpu_procmap_find(const char *name, int version, unsigned long long flags,
			 void *answer, vgpu_procmap_ask ask, void *ctx)
{
	int vars[16], nvar = 0, nver, upto, v = -1;
	const char *newest = NULL;

	if (!name)
		return -1;
	for (int i = 0; i < VGPU_NROWS && nvar < 16; i++) {
		const struct vgpu_procrow *r = &vgpu_procrows[i];

		if (!r->name || strcmp(r->base, name))
			continue;
		newest = r->newest;
		if (!is_pt(r->name))
			vars[nvar++] = i;
	}
	if (!newest)
		return -1;		/* not a hooked name */
	/* Asked at a version newer than these headers, the driver may answer
	 * a variant they do not know; only its answer at their version tells
	 * it did not (SIMGPU_PROCADDR_NEWER). */
	if (version > CUDA_VERSION && ask(name, CUDA_VERSION, flags, ctx) != answer)
		return VGPU_PROCMAP_UNMAPPED;
	if (strcmp(newest, name) && row_named(newest) >= 0 &&
	    strcmp(vgpu_procrows[row_named(newest)].base, name)) {
		/* Renamed to another function: did the driver give that? */
		void *t = ask(newest, version, flags, ctx);

		if (t && t == answer)
			v = row_named(newest);
	}
	if (v < 0) {
		nver = versions(name, version, &upto);
		if (nver != nvar || upto < 1)
			return VGPU_PROCMAP_UNMAPPED;	/* headers and hooks.def disagree */
		v = vars[upto - 1];
	}
	if (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)
		v = pt_row(v);
	return v;
}
