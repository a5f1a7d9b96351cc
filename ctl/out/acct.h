/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpuctl account's pieces: the state of the collector (acct_state.c: the
 * counters last recorded per module instance, tenant id and GPU, kept in
 * a text file) and the records of one cycle (acct_record.c: what the
 * snapshot adds to that state, as JSON Lines). Both are pure, so that
 * tests/unit/test_account.c checks them without a module; account.c does
 * the files, the module and the order that loses and repeats nothing.
 */
#ifndef VGPU_CTL_ACCT_H
#define VGPU_CTL_ACCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../obj/snap.h"

#define VGPU_ACCT_SCHEMA	1

/* The counters a record carries the deltas of. */
struct vgpu_acct_ctr {
	uint64_t gpu_time_ns, throttled_ns, grants;
	uint64_t vram_byte_seconds, vram_reserved_byte_seconds;
	uint64_t vram_failures, vram_overdrafts, vram_scans;
	uint64_t suspended_ns;	/* the tenant's (suspension), the same on each GPU */
	bool no_scans;	/* vram_scans unknown (a state line of an older vgpuctl) */
	bool no_suspended;	/* suspended_ns unknown (likewise) */
};

/* The last recorded state of a tenant on a GPU. */
struct vgpu_acct_entry {
	uint32_t tenant, gpu;
	uint64_t end_ns;	/* end of its last window, ns since the epoch */
	uint64_t created;	/* the tenant's creation, 0 when unknown */
	struct vgpu_acct_ctr c;
	char name[VGPU_NAME_LEN_MAX + 1];
	char uuid[VGPU_UUID_LEN + 1];	/* "" when unknown */
};

/* Records appended but maybe not completely (see account.c). */
struct vgpu_acct_pending {
	bool set;
	uint64_t offset, len, dev, ino;
};

struct vgpu_acct_state {
	bool has_instance;
	uint64_t instance;	/* the module instance the entries belong to */
	uint64_t cycle;		/* cycles recorded */
	uint64_t final_seq;	/* final records of the instance recorded up to */
	struct vgpu_acct_pending pending;
	struct vgpu_acct_entry *v;
	size_t n, cap;
};

/* acct_state.c */
int vgpuctl_acct_state_parse(const char *text, struct vgpu_acct_state *st,
			     char *why, size_t whylen);
char *vgpuctl_acct_state_format(const struct vgpu_acct_state *st, size_t *len);
struct vgpu_acct_entry *vgpuctl_acct_state_find(const struct vgpu_acct_state *st,
						uint32_t tenant, uint32_t gpu);
struct vgpu_acct_entry *vgpuctl_acct_state_add(struct vgpu_acct_state *st);
void vgpuctl_acct_state_del(struct vgpu_acct_state *st, struct vgpu_acct_entry *e);
void vgpuctl_acct_state_free(struct vgpu_acct_state *st);

/* acct_record.c */
int vgpuctl_acct_cycle(const struct vgpu_snap *s, const char *host,
		       const struct vgpu_acct_state *old, struct vgpu_acct_state *st,
		       FILE *out, size_t *records);

#endif /* VGPU_CTL_ACCT_H */
