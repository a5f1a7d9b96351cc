/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What "vgpuctl tenant" (tenant.c) shares with the operations below it
 * (tenant_replace.c, tenant_send.c) and their other callers (apply.c,
 * flavour.c, hook_tenant.c): the parsed quotas and labels of a command
 * line (tenant_conf.c) and the helpers that check, resolve and send them.
 */
#ifndef VGPU_CTL_TENANT_H
#define VGPU_CTL_TENANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../uapi/vgpu.h"
#include "../lib/spec_gen.h"

#define NQUOTAS	VGPU_QUOTA_NBITS

/* Labels one command line may name: a full set, and as many removals. */
#define CONF_LABELS	(2 * VGPU_LABEL_MAX)

/* The quotas and labels of a tenant add, set or replace command line. */
struct tenant_conf {
	const char *cmd;	/* "tenant add", "tenant set", "tenant replace" */
	bool set;		/* tenant set: "none" clears, "label KEY=" removes */
	uint32_t seen;		/* quotas named (set or cleared) */
	uint32_t clear;		/* quotas given as "none" */
	uint64_t u64[NQUOTAS];	/* numeric values, by bit number */
	char list[NQUOTAS][VGPU_LIST_LEN_MAX + 1];	/* cpus, mems */
	uint32_t gpus_auto;	/* "gpus auto N": N, the module chooses; 0: not */
	bool ephemeral;		/* tenant add, replace */
	unsigned int nlabels;
	struct {
		char key[VGPU_LABEL_KEY_LEN_MAX + 1];
		char value[VGPU_LABEL_VALUE_LEN_MAX + 1];	/* "": remove */
	} labels[CONF_LABELS];
};
int vgpuctl_tenant_check_name(const char *name, const char *cmd);
int vgpuctl_tenant_conf_parse(struct tenant_conf *c, int argc, char **argv, const char **path);
int vgpuctl_tenant_conf_label(struct tenant_conf *c, const char *arg);
int vgpuctl_tenant_resolve_cgroup(const char *path, char *mnt, char *out);
int vgpuctl_tenant_send(uint8_t cmd, const char *name, const char *cgroup,
			const struct tenant_conf *c, bool force);
void vgpuctl_tenant_conf_clear_unnamed(struct tenant_conf *c);
struct nlattr;
void vgpuctl_tenant_conf_from_reply(struct tenant_conf *c, struct nlattr **tb);
bool vgpuctl_tenant_quota_same(const struct tenant_conf *a, const struct tenant_conf *b, size_t i);
struct nl_msg;
int vgpuctl_tenant_conf_put(struct nl_msg *msg, const struct tenant_conf *c);	/* tenant_conf.c */
int vgpuctl_tenant_replace(const char *name, const char *path, struct tenant_conf *c);	/* tenant_replace.c */
/* tenant_suspend.c: tenant-suspend or tenant-resume, and the wait (0: none). */
int vgpuctl_tenant_suspend(const char *name, bool resume, uint64_t wait_ns);

#endif
