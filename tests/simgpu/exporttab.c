// SPDX-License-Identifier: GPL-2.0
/*
 * cuGetExportTable: the private tables NVIDIA's runtime (libcudart) asks
 * the driver for. NVIDIA documents none of them; their UUIDs, slots and
 * what each slot does follow public reverse-engineering (ZLUDA's "dark
 * API", Documentation/simgpu.md, "Private export tables") and what a
 * runtime program was seen to call here (SIMGPU_TRACE_EXPORT).
 *
 * A table is an array of pointers; most begin with their own size in
 * bytes. Every slot simgpu does not model is a trap of its own that names
 * the table and the slot and aborts: a runtime that reaches one would
 * otherwise go on with a silently wrong answer.
 *
 * SIMGPU_TRACE_EXPORT=1 logs each table asked for and each modelled slot
 * called, on stderr; SIMGPU_TRACE_EXPORT=trap also serves each unknown
 * UUID as a table of traps, to find what a program uses of it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simgpu.h"
#include "exporttab.h"

#define SG_XT_SLOTS 100		/* trap slots per table */

/* One distinct trap per (table, slot), so a trace names both: slots 0-9,
 * then decades 1-9 (d##0 .. d##9). */
#define SG_XT_TRAP(t, s) \
	static void sg_xt_trap_##t##_##s(void) { sg_xt_trapped(t, s); }
#define SG_XT_DEC(X, t, d) X(t, d##0) X(t, d##1) X(t, d##2) X(t, d##3) X(t, d##4) \
	X(t, d##5) X(t, d##6) X(t, d##7) X(t, d##8) X(t, d##9)
#define SG_XT_ALL(X, t) X(t, 0) X(t, 1) X(t, 2) X(t, 3) X(t, 4) X(t, 5) X(t, 6) \
	X(t, 7) X(t, 8) X(t, 9) SG_XT_DEC(X, t, 1) SG_XT_DEC(X, t, 2) SG_XT_DEC(X, t, 3) \
	SG_XT_DEC(X, t, 4) SG_XT_DEC(X, t, 5) SG_XT_DEC(X, t, 6) SG_XT_DEC(X, t, 7) \
	SG_XT_DEC(X, t, 8) SG_XT_DEC(X, t, 9)
#define SG_XT_PTR(t, s) sg_xt_trap_##t##_##s,
#define SG_XT_ROW(t) { SG_XT_ALL(SG_XT_PTR, t) }

static void sg_xt_trapped(int t, int s);

SG_XT_ALL(SG_XT_TRAP, 0) SG_XT_ALL(SG_XT_TRAP, 1) SG_XT_ALL(SG_XT_TRAP, 2)
SG_XT_ALL(SG_XT_TRAP, 3) SG_XT_ALL(SG_XT_TRAP, 4) SG_XT_ALL(SG_XT_TRAP, 5)
SG_XT_ALL(SG_XT_TRAP, 6) SG_XT_ALL(SG_XT_TRAP, 7) SG_XT_ALL(SG_XT_TRAP, 8)
SG_XT_ALL(SG_XT_TRAP, 9) SG_XT_ALL(SG_XT_TRAP, 10) SG_XT_ALL(SG_XT_TRAP, 11)
SG_XT_ALL(SG_XT_TRAP, 12) SG_XT_ALL(SG_XT_TRAP, 13) SG_XT_ALL(SG_XT_TRAP, 14)
SG_XT_ALL(SG_XT_TRAP, 15)

typedef void (*sg_xt_fn)(void);
static const sg_xt_fn sg_xt_traps[SG_XT_TABLES][SG_XT_SLOTS] = {
	SG_XT_ROW(0), SG_XT_ROW(1), SG_XT_ROW(2), SG_XT_ROW(3), SG_XT_ROW(4),
	SG_XT_ROW(5), SG_XT_ROW(6), SG_XT_ROW(7), SG_XT_ROW(8), SG_XT_ROW(9),
	SG_XT_ROW(10), SG_XT_ROW(11), SG_XT_ROW(12), SG_XT_ROW(13), SG_XT_ROW(14),
	SG_XT_ROW(15),
};

/* Tables served, filled once (slot 0 is data in most). */
static void *sg_xt_tab[SG_XT_TABLES][SG_XT_SLOTS];
static CUuuid sg_xt_unknown_ids[SG_XT_TABLES];
static int sg_xt_nunknown;
static pthread_mutex_t sg_xt_lk = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t sg_xt_once = PTHREAD_ONCE_INIT;
int sg_xt_trace;		/* 0 off, 1 log, 2 log and serve unknown tables */

static const char *sg_xt_name(int t)
{
	if (t < sg_xt_ndefs)
		return sg_xt_defs[t].name;
	return "unknown";
}

static void sg_xt_uuid_str(const CUuuid *id, char *buf)
{
	const unsigned char *b = (const unsigned char *)id->bytes;

	for (int i = 0; i < 16; i++)
		sprintf(buf + 2 * i, "%02x", b[i]);
}

static void sg_xt_trapped(int t, int s)
{
	char u[33] = "";

	if (t >= sg_xt_ndefs)	/* a spare row: name its UUID */
		sg_xt_uuid_str(&sg_xt_unknown_ids[t - sg_xt_ndefs], u);
	fprintf(stderr, "simgpu: private export table %s%s%s (%d) slot %d called: "
		"not simulated (Documentation/simgpu.md, \"Private export tables\")\n",
		sg_xt_name(t), *u ? " " : "", u, t, s);
	fflush(stderr);
	abort();
}

static void sg_xt_init(void)
{
	const char *v = getenv("SIMGPU_TRACE_EXPORT");

	if (v && !strcmp(v, "trap"))
		sg_xt_trace = 2;
	else if (v && *v && strcmp(v, "0"))
		sg_xt_trace = 1;
	for (int t = 0; t < SG_XT_TABLES; t++) {
		const struct sg_xt_def *d = t < sg_xt_ndefs ? &sg_xt_defs[t] : NULL;
		int n = d ? d->nslots : SG_XT_SLOTS;

		for (int s = 0; s < SG_XT_SLOTS; s++)
			sg_xt_tab[t][s] = (void *)sg_xt_traps[t][s];
		if (!d || d->sized)
			sg_xt_tab[t][0] = (void *)(uintptr_t)(n * sizeof(void *));
		if (!d)
			continue;
		for (int s = 0; s < n; s++)
			if (d->slots && d->slots[s])
				sg_xt_tab[t][s] = d->slots[s];
	}
}

/* The table for an unknown UUID in trap mode: one of the spare rows. */
static int sg_xt_unknown(const CUuuid *id)
{
	int t = -1;

	pthread_mutex_lock(&sg_xt_lk);
	for (int i = 0; i < sg_xt_nunknown; i++)
		if (!memcmp(&sg_xt_unknown_ids[i], id, sizeof(*id)))
			t = sg_xt_ndefs + i;
	if (t < 0 && sg_xt_ndefs + sg_xt_nunknown < SG_XT_TABLES) {
		sg_xt_unknown_ids[sg_xt_nunknown] = *id;
		t = sg_xt_ndefs + sg_xt_nunknown++;
	}
	pthread_mutex_unlock(&sg_xt_lk);
	return t;
}

void *const *sg_xt_table(enum sg_xt_table t)
{
	pthread_once(&sg_xt_once, sg_xt_init);
	return sg_xt_tab[t];
}

SG_API CUresult cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
{
	SG_GATE();
	char u[33];
	int t;

	if (!ppExportTable || !pExportTableId)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_once(&sg_xt_once, sg_xt_init);
	*ppExportTable = NULL;
	for (t = 0; t < sg_xt_ndefs; t++)
		if (!memcmp(sg_xt_defs[t].id, pExportTableId->bytes, 16))
			break;
	sg_xt_uuid_str(pExportTableId, u);
	if (t == sg_xt_ndefs)
		t = sg_xt_trace == 2 ? sg_xt_unknown(pExportTableId) : -1;
	if (t < 0) {
		if (sg_xt_trace)
			fprintf(stderr, "simgpu: export table %s: unknown, not served\n", u);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (sg_xt_trace)
		fprintf(stderr, "simgpu: export table %s: %s (%d)\n", u, sg_xt_name(t), t);
	*ppExportTable = sg_xt_tab[t];
	return CUDA_SUCCESS;
}
