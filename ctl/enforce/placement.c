// SPDX-License-Identifier: GPL-2.0
/*
 * Enforcement of a tenant's placement for processes that never load
 * libvgpu: after a tenant add or tenant set that changes what decides its
 * CPUs and nodes (cpus, mems, placement, exclusive, gpus), vgpuctl reads
 * the tenant back and writes its cpus-effective and mems-effective to its
 * cgroup's cpuset files (cpuset.c). Nothing is half-applied: when the
 * cgroup cannot be written, the module is given back the tenant's previous
 * values (tenant set ... or, after tenant add, tenant del).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "cpuset.h"
#include "../lib/parse.h"
#include "../lib/spec_gen.h"
#include "../vgpuctl.h"

/* Quota bits of the request, in enum vgpu_quota order (spec_gen.h). */
#define NQUOTA_BITS	VGPU_QUOTA_NBITS

/* What vgpuctl keeps of a tenant-get reply. */
struct snap {
	bool found;
	bool removed;				/* cgroup-removed */
	char cgroup[VGPU_PATH_LEN_MAX + 1];
	char cpus[VGPU_LIST_LEN_MAX + 1];	/* cpus-effective, "" if absent */
	char mems[VGPU_LIST_LEN_MAX + 1];	/* mems-effective, "" if absent */
	uint32_t present;			/* quotas set, VGPU_QUOTA_* */
	/* Their attributes as received, by bit number. */
	uint16_t len[NQUOTA_BITS];
	unsigned char data[NQUOTA_BITS][VGPU_LIST_LEN_MAX + 1];
};

/* The tenant before a tenant set, to give it back on failure. */
struct vgpuctl_placement_before {
	struct snap s;
};

static void copy_str(char *dst, size_t size, struct nlattr *a)
{
	snprintf(dst, size, "%s", a ? nla_get_string(a) : "");
}

static int snap_one(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[VGPU_A_TENANT_MAX + 1], *a;
	struct snap *s = arg;
	unsigned int b;

	if (vgpuctl_tenant_parse(nlh, tb))
		return -EPROTO;
	memset(s, 0, sizeof(*s));
	s->found = true;
	s->removed = tb[VGPU_A_TENANT_CGROUP_REMOVED];
	copy_str(s->cgroup, sizeof(s->cgroup), tb[VGPU_A_TENANT_CGROUP]);
	copy_str(s->cpus, sizeof(s->cpus), tb[VGPU_A_TENANT_CPUS_EFFECTIVE]);
	copy_str(s->mems, sizeof(s->mems), tb[VGPU_A_TENANT_MEMS_EFFECTIVE]);
	for (b = 0; b < NQUOTA_BITS; b++) {
		int attr = vgpu_spec_quotas[b].attr;

		a = attr ? tb[attr] : NULL;
		if (!a || nla_len(a) < 0 || (size_t)nla_len(a) > sizeof(s->data[b]))
			continue;
		s->present |= 1U << b;
		s->len[b] = (uint16_t)nla_len(a);
		memcpy(s->data[b], nla_data(a), (size_t)nla_len(a));
	}
	return 0;
}

/* tenant-get NAME into @s; 0 or a negative errno (reported by the caller). */
static int snap_read(struct vgpu_nl *nl, const char *name, struct snap *s)
{
	int err;

	s->found = false;
	err = vgpuctl_nl_tenant_get(nl, name, snap_one, s);
	if (!err && !s->found)
		err = -EPROTO;
	return err;
}

/**
 * vgpuctl_placement_prepare() - read a tenant before a tenant set
 * @nl: an open handle
 * @name: the tenant
 * @seen: the quotas the command names (VGPU_QUOTA_*)
 *
 * @out: the tenant as it was, for vgpuctl_placement_sync(), which gives
 *       it back if the cgroup cannot be written (free() it); NULL when
 *       @seen names none of VGPU_PLACEMENT_QUOTAS
 *
 * Return: 0, or VGPU_EXIT_ERR after printing why.
 */
int vgpuctl_placement_prepare(struct vgpu_nl *nl, const char *name, uint32_t seen,
			      struct vgpuctl_placement_before **out)
{
	struct vgpuctl_placement_before *b;
	int err;

	*out = NULL;
	if (!(seen & VGPU_PLACEMENT_QUOTAS))
		return 0;
	b = malloc(sizeof(*b));
	if (!b)
		return vgpuctl_error("%s", strerror(ENOMEM));
	err = snap_read(nl, name, &b->s);
	if (err) {
		free(b);
		vgpuctl_nl_perror(nl, err);
		return VGPU_EXIT_ERR;
	}
	*out = b;
	return 0;
}

/*
 * Give the module back the tenant as it was (@before; an add is deleted
 * again); 0 or a negative errno.
 */
static int restore(struct vgpu_nl *nl, const char *name, bool added, uint32_t seen,
		   const struct snap *before)
{
	struct nl_msg *msg;
	uint32_t clear = 0;
	unsigned int b;
	int err = 0;

	msg = vgpuctl_nl_msg(nl, added ? VGPU_CMD_TENANT_DEL : VGPU_CMD_TENANT_SET, false);
	if (!msg)
		return -ENOMEM;
	err = nla_put_string(msg, VGPU_A_TENANT_NAME, name);
	for (b = 0; b < NQUOTA_BITS && !added && !err; b++) {
		if (!(seen & (1U << b)))
			continue;
		if (before && (before->present & (1U << b)))
			err = nla_put(msg, vgpu_spec_quotas[b].attr, before->len[b],
				      before->data[b]);
		else
			clear |= 1U << b;
	}
	if (!err && clear)
		err = nla_put_u32(msg, VGPU_A_TENANT_CLEAR, clear);
	if (err < 0) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return vgpuctl_nl_request(nl, msg, NULL, NULL);
}

/* After a failure: undo the change in the module, or say it could not be. */
static int fail_and_restore(struct vgpu_nl *nl, const char *name, bool added, uint32_t seen,
			    const struct snap *before)
{
	int err = restore(nl, name, added, seen, before);

	if (err) {
		const char *m = nl->msg[0] ? nl->msg : strerror(-err);

		fprintf(stderr, added ?
			"Error: cannot delete tenant %s again, it stays added: %s%s\n" :
			"Error: cannot give tenant %s its previous quotas back, the change stays: %s%s\n",
			name, m, m[0] && m[strlen(m) - 1] == '.' ? "" : ".");
	}
	return VGPU_EXIT_ERR;
}

/**
 * vgpuctl_placement_sync() - write a changed tenant's placement to its cgroup
 * @nl: the handle the change was sent on
 * @name: the tenant
 * @added: the change was a tenant add (undone by tenant del)
 * @seen: the quotas the command named; nothing is done unless one of
 *        VGPU_PLACEMENT_QUOTAS is among them
 * @before: what vgpuctl_placement_prepare() read before a set
 *
 * A tenant whose cgroup was removed, or that is the root cgroup, is
 * skipped with a warning. When the cgroup cannot be written, the module
 * is given back the values read by vgpuctl_placement_prepare() (or the tenant
 * is deleted after an add) and the cpuset files are left as they were.
 *
 * Return: the exit status, after printing any error.
 */
int vgpuctl_placement_sync(struct vgpu_nl *nl, const char *name, bool added, uint32_t seen,
			   const struct vgpuctl_placement_before *before)
{
	static struct snap now;
	const struct snap *was = before ? &before->s : NULL;
	char mnt[VGPU_PATH_LEN_MAX + 1], err[2 * VGPU_PATH_LEN_MAX + 128];
	int r;

	if (!(seen & VGPU_PLACEMENT_QUOTAS))
		return VGPU_EXIT_OK;
	r = snap_read(nl, name, &now);
	if (r) {
		vgpuctl_nl_perror(nl, r);
		return fail_and_restore(nl, name, added, seen, was);
	}
	if (now.removed) {
		fprintf(stderr, "Warning: the cgroup of tenant %s was removed; its cpuset was not written.\n",
			name);
		return VGPU_EXIT_OK;
	}
	if (vgpuctl_cgroup_mount("/proc/self/mounts", mnt, sizeof(mnt)) < 0) {
		vgpuctl_error("cannot find the cgroup2 mount point");
		return fail_and_restore(nl, name, added, seen, was);
	}
	r = vgpuctl_cpuset_apply(mnt, now.cgroup, now.cpus, now.mems, err, sizeof(err));
	if (r == VGPU_CPUSET_GONE) {
		fprintf(stderr, "Warning: the cgroup of tenant %s was removed; its cpuset was not written.\n",
			name);
	} else if (r == VGPU_CPUSET_ROOT && (now.cpus[0] || now.mems[0])) {
		fprintf(stderr, "Warning: tenant %s is the root cgroup, which has no cpuset files; "
			"its CPUs and nodes are not enforced there.\n", name);
	} else if (r < 0) {
		vgpuctl_error("%s", err);
		return fail_and_restore(nl, name, added, seen, was);
	}
	return VGPU_EXIT_OK;
}
