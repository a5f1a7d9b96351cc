/* SPDX-License-Identifier: GPL-2.0 */
/* The private export tables (exporttab.c) and what they serve (xtslots.c). */
#ifndef SIMGPU_EXPORTTAB_H
#define SIMGPU_EXPORTTAB_H

#include <stdint.h>
#include <stdio.h>

#include "simgpu.h"

#define SG_XT_TABLES 16		/* known tables and spare rows for traces */

struct sg_xt_def {
	const char *name;
	unsigned char id[16];	/* the UUID's bytes, as CUuuid holds them */
	int nslots;		/* pointers in the table, slot 0 included */
	int sized;		/* slot 0 holds the table's size in bytes */
	void *const *slots;	/* nslots modelled slots (NULL: traps) */
};

/* sg_xt_defs' rows (xtslots.c), in order. */
enum sg_xt_table {
	SG_XT_CUDART, SG_XT_TOOLS_TLS, SG_XT_HOOKS, SG_XT_CLS, SG_XT_BYPASS,
	SG_XT_HEAP, SG_XT_DEVEXT, SG_XT_INTEGRITY, SG_XT_CHECKS, SG_XT_TOOLS_CTX,
};

extern const struct sg_xt_def sg_xt_defs[];
extern const int sg_xt_ndefs;
extern int sg_xt_trace;

/* The table as served (for the integrity check's addresses). */
void *const *sg_xt_table(enum sg_xt_table t);

/* The modelled slots. */
void sg_xt_md2(const void *p, size_t len, unsigned char out[16]);
CUresult sg_xt_integrity(uint32_t version, uint64_t seconds, uint64_t out[2]);
CUresult sg_xt_cls_put(CUcontext ctx, void *key, void *value,
		       void (*dtor)(CUcontext, void *, void *));
CUresult sg_xt_cls_delete(CUcontext ctx, void *key);
CUresult sg_xt_cls_get(void **value, CUcontext ctx, void *key);
void sg_xt_cls_ctx_gone(struct CUctx_st *ctx);
extern void *const sg_xt_cudart_slots[13], *const sg_xt_hooks_slots[7],
	*const sg_xt_cls_slots[4], *const sg_xt_integrity_slots[3], *const sg_xt_checks_slots[4],
	*const sg_xt_tls_slots[4], *const sg_xt_tctx_slots[95];

/* Log a call to a modelled slot under SIMGPU_TRACE_EXPORT. */
#define SG_XT_LOG(name, ...) \
	do { if (sg_xt_trace) fprintf(stderr, "simgpu: export " name "\n", ##__VA_ARGS__); } while (0)

#endif
