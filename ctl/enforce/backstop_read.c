// SPDX-License-Identifier: GPL-2.0
/*
 * What the backstop reads from vgpu.ko (backstop.h): the GPU inventory
 * (index, UUID, PCI bus id, VRAM) and the tenants' cgroups, vram-max,
 * vram-min and gpus, through gpu-get and tenant-get on an open handle.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "backstop.h"
#include "../lib/parse.h"
#include "../vgpuctl.h"

/* Tries of a dump interrupted by concurrent changes. */
#define BS_DUMP_TRIES	5

static void copy_str(char *dst, size_t size, struct nlattr *a)
{
	snprintf(dst, size, "%s", a ? nla_get_string(a) : "");
}

static int gpu_one(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[VGPU_A_GPU_MAX + 1];
	struct vgpu_bs_gpu *inv = arg, *g;
	uint32_t i;

	if (vgpuctl_gpu_parse(nlh, tb) || !tb[VGPU_A_GPU_INDEX])
		return -EPROTO;
	i = nla_get_u32(tb[VGPU_A_GPU_INDEX]);
	if (i >= VGPU_GPU_MAX)
		return -EPROTO;
	g = &inv[i];
	memset(g, 0, sizeof(*g));
	g->present = true;
	g->index = i;
	copy_str(g->uuid, sizeof(g->uuid), tb[VGPU_A_GPU_UUID]);
	copy_str(g->pci, sizeof(g->pci), tb[VGPU_A_GPU_PCI]);
	g->vram = tb[VGPU_A_GPU_VRAM] ? nla_get_u64(tb[VGPU_A_GPU_VRAM]) : 0;
	return 0;
}

/**
 * vgpuctl_bs_inventory() - read the GPU inventory
 * @nl: an open handle
 * @inv: VGPU_GPU_MAX slots, by index
 *
 * Return: 0 or a negative errno.
 */
int vgpuctl_bs_inventory(struct vgpu_nl *nl, struct vgpu_bs_gpu *inv)
{
	struct nl_msg *msg;
	int err = -EINTR, try;

	for (try = 0; err == -EINTR && try < BS_DUMP_TRIES; try++) {
		memset(inv, 0, VGPU_GPU_MAX * sizeof(*inv));
		msg = vgpuctl_nl_msg(nl, VGPU_CMD_GPU_GET, true);
		if (!msg)
			return -ENOMEM;
		err = vgpuctl_nl_request(nl, msg, gpu_one, inv);
	}
	return err;
}

/**
 * vgpuctl_bs_tenant_from() - what the backstop needs of a parsed tenant
 * @tb: the attributes of a tenant-get reply (vgpuctl_tenant_parse())
 * @t: filled
 */
void vgpuctl_bs_tenant_from(struct nlattr **tb, struct vgpu_bs_tenant *t)
{
	memset(t, 0, sizeof(*t));
	copy_str(t->name, sizeof(t->name), tb[VGPU_A_TENANT_NAME]);
	copy_str(t->cgroup, sizeof(t->cgroup), tb[VGPU_A_TENANT_CGROUP]);
	t->removed = tb[VGPU_A_TENANT_CGROUP_REMOVED];
	t->has_max = tb[VGPU_A_TENANT_VRAM_MAX];
	t->max = t->has_max ? nla_get_u64(tb[VGPU_A_TENANT_VRAM_MAX]) : 0;
	t->has_min = tb[VGPU_A_TENANT_VRAM_MIN];
	t->min = t->has_min ? nla_get_u64(tb[VGPU_A_TENANT_VRAM_MIN]) : 0;
	t->has_gpus = tb[VGPU_A_TENANT_GPUS];
	t->gpus = t->has_gpus ? nla_get_u64(tb[VGPU_A_TENANT_GPUS]) : 0;
}

struct tenant_list {
	struct vgpu_bs_tenant *v;
	unsigned int n, cap;
};

static int tenant_one(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[VGPU_A_TENANT_MAX + 1];
	struct tenant_list *l = arg;

	if (vgpuctl_tenant_parse(nlh, tb))
		return -EPROTO;
	if (l->n == l->cap) {
		unsigned int cap = l->cap ? 2 * l->cap : 16;
		struct vgpu_bs_tenant *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	vgpuctl_bs_tenant_from(tb, &l->v[l->n++]);
	return 0;
}

/**
 * vgpuctl_bs_tenant_read() - read one tenant
 * @nl: an open handle
 * @name: the tenant
 * @t: filled
 *
 * Return: 0 or a negative errno (the handle holds the kernel's message).
 */
int vgpuctl_bs_tenant_read(struct vgpu_nl *nl, const char *name, struct vgpu_bs_tenant *t)
{
	struct tenant_list l = { 0 };
	int err;

	err = vgpuctl_nl_tenant_get(nl, name, tenant_one, &l);
	if (!err && l.n != 1)
		err = -EPROTO;
	if (!err)
		*t = l.v[0];
	free(l.v);
	return err;
}

/**
 * vgpuctl_bs_tenants() - read every tenant
 * @nl: an open handle
 * @out: an array the caller frees
 * @n: its length
 *
 * Return: 0 or a negative errno.
 */
int vgpuctl_bs_tenants(struct vgpu_nl *nl, struct vgpu_bs_tenant **out, unsigned int *n)
{
	struct tenant_list l = { 0 };
	struct nl_msg *msg;
	int err = -EINTR, try;

	for (try = 0; err == -EINTR && try < BS_DUMP_TRIES; try++) {
		l.n = 0;
		msg = vgpuctl_nl_msg(nl, VGPU_CMD_TENANT_GET, true);
		if (!msg) {
			err = -ENOMEM;
			break;
		}
		err = vgpuctl_nl_request(nl, msg, tenant_one, &l);
	}
	if (err) {
		free(l.v);
		return err;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}

/**
 * vgpuctl_bs_mount() - the cgroup2 mount point
 * @mnt: filled ("/sys/fs/cgroup")
 * @len: its size
 *
 * Return: 0, or -1 when there is none.
 */
int vgpuctl_bs_mount(char *mnt, size_t len)
{
	return vgpuctl_cgroup_mount("/proc/self/mounts", mnt, len) < 0 ? -1 : 0;
}
