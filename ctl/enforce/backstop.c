// SPDX-License-Identifier: GPL-2.0
/*
 * The backstop (backstop.h): what a tenant wants below libvgpu on each GPU,
 * setting it in the driver (NVML) or in the dmem controller, and when:
 * after tenant add, after a tenant set that names vram-max, vram-min or
 * gpus, after tenant del (cleared), after gpu add and gpu probe (every
 * tenant on the new GPU), and on "vgpuctl backstop sync" (everything).
 *
 * The module's change always stays done: the backstop is set after it,
 * and a failure to set it is reported (one line on stderr naming the
 * change, the GPU, the tenant, its cgroup and the driver's error, and the
 * same line to syslog at LOG_WARNING) with exit status 1. "backstop sync"
 * sets it again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "backstop.h"
#include "dmem.h"
#include "../lib/parse.h"
#include "../vgpuctl.h"

/* The cause of a failure (a dmem file's path and errno, or NVML's error). */
#define BS_ERR_LEN	(2 * VGPU_PATH_LEN_MAX + 256)
/* An error line: the change, the GPU, the tenant and cgroup, the cause. */
#define BS_LINE_LEN	(BS_ERR_LEN + 2 * VGPU_PATH_LEN_MAX + 256)

/**
 * vgpuctl_usage_backstop() - usage of the backstop object
 * @f: stdout for "help", stderr otherwise
 */
void vgpuctl_usage_backstop(FILE *f)
{
	fputs("Usage: vgpuctl backstop sync [NAME]\n"
	      "       vgpuctl backstop help\n"
	      "sync sets every tenant's (or NAME's) vram-max and vram-min in the driver\n"
	      "(NVML per-cgroup memory limits) or, without that, in the dmem cgroup\n"
	      "controller, on every GPU where either exists, and clears them where the\n"
	      "tenant has none. tenant add, set, replace and del and gpu add and probe do\n"
	      "the same for what they change; run sync after the module was loaded or\n"
	      "changed otherwise.\n", f);
}

/**
 * vgpuctl_backstop_want() - the limits a tenant wants on a GPU
 * @t: the tenant
 * @g: the GPU
 * @out: vram-max as the hard limit (at most the GPU's VRAM) and vram-min as
 *       the soft one, on a GPU the tenant may use; none on the others (the
 *       module holds no reservation there and refuses every charge)
 */
void vgpuctl_backstop_want(const struct vgpu_bs_tenant *t, const struct vgpu_bs_gpu *g,
			   struct vgpu_bs_limits *out)
{
	bool allowed = !t->has_gpus || (g->index < 64 && (t->gpus & (1ULL << g->index)));

	out->hard = VGPU_BS_NONE;
	out->soft = 0;
	if (!allowed)
		return;
	if (t->has_max)
		out->hard = g->vram && t->max > g->vram ? g->vram : t->max;
	if (t->has_min)
		out->soft = g->vram && t->min > g->vram ? g->vram : t->min;
	if (out->soft > out->hard)
		out->soft = out->hard;
}

static bool is_none(const struct vgpu_bs_limits *l)
{
	return !l->soft && l->hard == VGPU_BS_NONE;
}

static bool same(const struct vgpu_bs_limits *a, const struct vgpu_bs_limits *b)
{
	return a->soft == b->soft && a->hard == b->hard;
}

/* The directory of cgroup @cg under the mount @mnt. */
static void cgroup_dir(const char *mnt, const char *cg, char *out, size_t len)
{
	snprintf(out, len, "%s%s", mnt, strcmp(cg, "/") ? cg : "");
}

/* The dmem half of vgpuctl_backstop_apply(): no driver limits here. */
static int apply_dmem(const char *mnt, const struct vgpu_bs_tenant *t,
		      const struct vgpu_bs_gpu *g, const struct vgpu_bs_limits *want,
		      enum vgpu_bs_kind *kind, char *err, size_t errlen)
{
	char region[256];
	uint64_t min, max;
	int r;

	*kind = VGPU_BS_LIBRARY;
	if (vgpuctl_dmem_region(mnt, g->pci, region, sizeof(region)) != 1)
		return 0;
	*kind = VGPU_BS_DMEM;
	r = vgpuctl_dmem_get(mnt, t->cgroup, region, &min, &max);
	if (!r && min == want->soft && max == want->hard)
		return 0;
	if (r && is_none(want))
		return 0;	/* no dmem files: nothing is limited there */
	if (!strcmp(t->cgroup, "/")) {
		snprintf(err, errlen, "the root cgroup has no dmem.max");
		return -1;
	}
	return vgpuctl_dmem_set(mnt, t->cgroup, region, want->soft, want->hard, err, errlen) ?
	       -1 : 0;
}

/**
 * vgpuctl_backstop_apply() - set a tenant's limits on a GPU below libvgpu
 * @mnt: the cgroup2 mount
 * @t: the tenant
 * @g: the GPU
 * @want: the limits (vgpuctl_backstop_want(), or none to clear them)
 * @kind: what holds them: the driver when NVML has per-cgroup limits for
 *        the GPU, else dmem when the kernel has a dmem region for it, else
 *        nothing (libvgpu alone)
 * @err: on failure, the cause
 * @errlen: its size
 *
 * Nothing is written when the backstop already holds @want.
 *
 * Return: 0, or -1 with @err filled.
 */
int vgpuctl_backstop_apply(const char *mnt, const struct vgpu_bs_tenant *t,
			   const struct vgpu_bs_gpu *g, const struct vgpu_bs_limits *want,
			   enum vgpu_bs_kind *kind, char *err, size_t errlen)
{
	char dir[2 * VGPU_PATH_LEN_MAX + 2];
	const char *fail = NULL, *get_fail = NULL;
	struct vgpu_bs_limits cur;
	int r;

	cgroup_dir(mnt, t->cgroup, dir, sizeof(dir));
	r = vgpuctl_bs_nvml_get(g->uuid, dir, &cur, &get_fail);
	if (r == 1)
		return apply_dmem(mnt, t, g, want, kind, err, errlen);
	*kind = VGPU_BS_DRIVER;
	if (!r && same(&cur, want))
		return 0;
	if (r < 0 && is_none(want))
		return 0;	/* the driver holds nothing to clear that it can tell */
	r = vgpuctl_bs_nvml_set(g->uuid, dir, want, &fail);
	if (!r)
		return 0;
	snprintf(err, errlen, "%s", fail ? fail : get_fail ? get_fail :
		 "the driver no longer offers per-cgroup limits");
	return -1;
}

/* Report a backstop that was not set: stderr and syslog. */
static int report(const char *done, const struct vgpu_bs_tenant *t,
		  const struct vgpu_bs_gpu *g, enum vgpu_bs_kind kind, const char *cause)
{
	static char line[BS_LINE_LEN];
	char mnt[VGPU_PATH_LEN_MAX + 1] = "";

	vgpuctl_bs_mount(mnt, sizeof(mnt));
	snprintf(line, sizeof(line),
		 "%s; %s limit on GPU %u for tenant %s (cgroup %s%s) NOT set: %s",
		 done, kind == VGPU_BS_DMEM ? "dmem" : "driver", g->index, t->name, mnt,
		 strcmp(t->cgroup, "/") ? t->cgroup : "", cause);
	openlog("vgpuctl", LOG_PID, LOG_USER);
	syslog(LOG_WARNING, "%s", line);
	closelog();
	return vgpuctl_error("%s", line);
}

/* Apply what @t wants (or none, when @clear) on GPU @g; the exit status. */
static int apply_one(const char *mnt, const struct vgpu_bs_tenant *t,
		     const struct vgpu_bs_gpu *g, bool clear, const char *done)
{
	static char err[BS_ERR_LEN];
	struct vgpu_bs_limits want = { 0, VGPU_BS_NONE };
	enum vgpu_bs_kind kind;

	if (!g->present || t->removed)
		return VGPU_EXIT_OK;
	if (!clear)
		vgpuctl_backstop_want(t, g, &want);
	if (!vgpuctl_backstop_apply(mnt, t, g, &want, &kind, err, sizeof(err)))
		return VGPU_EXIT_OK;
	return report(done, t, g, kind, err);
}

/* Apply @t on every GPU of @inv; the exit status. */
static int apply_tenant(const struct vgpu_bs_tenant *t, const struct vgpu_bs_gpu *inv,
			bool clear, const char *done)
{
	char mnt[VGPU_PATH_LEN_MAX + 1];
	int ret = VGPU_EXIT_OK;
	unsigned int i;

	if (t->removed)
		return VGPU_EXIT_OK;
	if (vgpuctl_bs_mount(mnt, sizeof(mnt)))
		return vgpuctl_error("%s; cannot find the cgroup2 mount point to set its backstop",
				     done);
	for (i = 0; i < VGPU_GPU_MAX; i++)
		if (apply_one(mnt, t, &inv[i], clear, done))
			ret = VGPU_EXIT_ERR;
	return ret;
}

/* The module refused a read after the change was made. */
static int read_failed(struct vgpu_nl *nl, const char *done, int err)
{
	fprintf(stderr, "Error: %s; its backstop was not set: ", done);
	vgpuctl_nl_perror(nl, err);
	return VGPU_EXIT_ERR;
}

/**
 * vgpuctl_backstop_after() - a tenant's backstop after tenant add, set, del
 * @nl: the handle the change was sent on
 * @cmd: VGPU_CMD_TENANT_NEW, _SET or _DEL (which succeeded)
 * @name: the tenant
 * @seen: the quotas a set named (VGPU_QUOTA_*); nothing is done for a set
 *        that names none of vram-max, vram-min and gpus
 * @del: for a del, what vgpuctl_backstop_prepare_del() read (NULL: nothing)
 *
 * Return: the exit status, after printing any error.
 */
int vgpuctl_backstop_after(struct vgpu_nl *nl, uint8_t cmd, const char *name, uint32_t seen,
			   const struct vgpuctl_bs_del *del)
{
	char done[VGPU_NAME_LEN_MAX + 32];

	if (cmd == VGPU_CMD_TENANT_DEL)
		return vgpuctl_backstop_deleted(name, del);
	if (cmd == VGPU_CMD_TENANT_SET && !(seen & VGPU_BACKSTOP_QUOTAS))
		return VGPU_EXIT_OK;
	snprintf(done, sizeof(done), "tenant %s %s", name,
		 cmd == VGPU_CMD_TENANT_NEW ? "added" : "set");
	return vgpuctl_backstop_tenant(nl, name, done);
}

/**
 * vgpuctl_backstop_tenant() - set a tenant's backstop after a change
 * @nl: the handle the change was sent on
 * @name: the tenant (just added, or set)
 * @done: what was done, for messages ("tenant a set")
 *
 * Return: the exit status, after printing any error.
 */
int vgpuctl_backstop_tenant(struct vgpu_nl *nl, const char *name, const char *done)
{
	static struct vgpu_bs_gpu inv[VGPU_GPU_MAX];
	static struct vgpu_bs_tenant t;
	int err = vgpuctl_bs_tenant_read(nl, name, &t);

	if (!err)
		err = vgpuctl_bs_inventory(nl, inv);
	if (err)
		return read_failed(nl, done, err);
	return apply_tenant(&t, inv, false, done);
}

/**
 * vgpuctl_backstop_del_free() - free what a prepare step read
 * @del: from vgpuctl_backstop_prepare_del() or _prepare_gpu_del(), or NULL
 */
void vgpuctl_backstop_del_free(struct vgpuctl_bs_del *del)
{
	if (del)
		free(del->t);
	free(del);
}

/**
 * vgpuctl_backstop_prepare_del() - read a tenant before tenant del
 * @nl: an open handle
 * @name: the tenant
 *
 * A tenant that cannot be read is left to the delete to report: its
 * error is not kept on @nl.
 *
 * Return: the tenant and the inventory (vgpuctl_backstop_del_free() it),
 * or NULL when they could not be read.
 */
struct vgpuctl_bs_del *vgpuctl_backstop_prepare_del(struct vgpu_nl *nl, const char *name)
{
	struct vgpuctl_bs_del *del = calloc(1, sizeof(*del));

	if (del)
		del->t = calloc(1, sizeof(*del->t));
	if (del && del->t && !vgpuctl_bs_tenant_read(nl, name, del->t) &&
	    !vgpuctl_bs_inventory(nl, del->inv)) {
		del->n = 1;
	} else {
		vgpuctl_backstop_del_free(del);
		del = NULL;
	}
	vgpuctl_nl_clear_error(nl);
	return del;
}

/**
 * vgpuctl_backstop_deleted() - clear a deleted tenant's backstop
 * @name: the tenant
 * @del: what vgpuctl_backstop_prepare_del() read of it, or NULL
 *
 * Return: the exit status, after printing any error.
 */
int vgpuctl_backstop_deleted(const char *name, const struct vgpuctl_bs_del *del)
{
	char done[VGPU_NAME_LEN_MAX + 32];

	if (!del)
		return VGPU_EXIT_OK;
	snprintf(done, sizeof(done), "tenant %s deleted", name);
	return apply_tenant(del->t, del->inv, true, done);
}

/*
 * Apply every tenant of @t (@n of them) on GPU @g, or clear them all when
 * @clear. One tenant that fails does not stop the others. The exit status.
 */
static int apply_gpu(const struct vgpu_bs_tenant *t, unsigned int n,
		     const struct vgpu_bs_gpu *g, bool clear, const char *done)
{
	char mnt[VGPU_PATH_LEN_MAX + 1];
	int ret = VGPU_EXIT_OK;
	unsigned int i;

	if (!n)
		return VGPU_EXIT_OK;
	if (vgpuctl_bs_mount(mnt, sizeof(mnt)))
		return vgpuctl_error("%s; cannot find the cgroup2 mount point to set the backstop",
				     done);
	for (i = 0; i < n; i++)
		if (apply_one(mnt, &t[i], g, clear, done))
			ret = VGPU_EXIT_ERR;
	return ret;
}

/**
 * vgpuctl_backstop_gpu() - set every tenant's backstop on a GPU just added
 * @nl: the handle the change was sent on
 * @index: the GPU
 * @done: what was done, for messages ("gpu 1 added")
 *
 * Return: the exit status, after printing any error.
 */
int vgpuctl_backstop_gpu(struct vgpu_nl *nl, uint32_t index, const char *done)
{
	static struct vgpu_bs_gpu inv[VGPU_GPU_MAX];
	struct vgpu_bs_tenant *t = NULL;
	unsigned int n = 0;
	int err, ret;

	if (index >= VGPU_GPU_MAX)
		return VGPU_EXIT_OK;
	err = vgpuctl_bs_inventory(nl, inv);
	if (!err)
		err = vgpuctl_bs_tenants(nl, &t, &n);
	if (err)
		return read_failed(nl, done, err);
	ret = apply_gpu(t, n, &inv[index], false, done);
	free(t);
	return ret;
}

/**
 * vgpuctl_backstop_prepare_gpu_del() - read a GPU and the tenants before gpu del
 * @nl: an open handle
 * @index: the GPU
 *
 * Once the module has forgotten the GPU, its UUID and PCI address (which
 * name it to the driver and to dmem) are known only from this read. A GPU
 * that cannot be read is left to the delete to report: its error is not
 * kept on @nl.
 *
 * Return: the inventory and the tenants (vgpuctl_backstop_del_free() it),
 * or NULL when they could not be read or the GPU is not there.
 */
struct vgpuctl_bs_del *vgpuctl_backstop_prepare_gpu_del(struct vgpu_nl *nl, uint32_t index)
{
	struct vgpuctl_bs_del *del = calloc(1, sizeof(*del));

	if (del && !(index < VGPU_GPU_MAX && !vgpuctl_bs_inventory(nl, del->inv) &&
		     del->inv[index].present && !vgpuctl_bs_tenants(nl, &del->t, &del->n))) {
		vgpuctl_backstop_del_free(del);
		del = NULL;
	}
	vgpuctl_nl_clear_error(nl);
	return del;
}

/**
 * vgpuctl_backstop_gpu_deleted() - clear every tenant's backstop on a deleted GPU
 * @index: the GPU
 * @del: what vgpuctl_backstop_prepare_gpu_del() read, or NULL
 *
 * Return: the exit status, after printing any error.
 */
int vgpuctl_backstop_gpu_deleted(uint32_t index, const struct vgpuctl_bs_del *del)
{
	char done[32];

	if (!del)
		return VGPU_EXIT_OK;
	snprintf(done, sizeof(done), "gpu %u deleted", index);
	return apply_gpu(del->t, del->n, &del->inv[index], true, done);
}

/* "backstop sync [NAME]": every tenant (or NAME) on every GPU. */
static int backstop_sync(int argc, char **argv)
{
	static struct vgpu_bs_gpu inv[VGPU_GPU_MAX];
	struct vgpu_bs_tenant *t = NULL;
	unsigned int n = 0, i;
	struct vgpu_nl nl;
	int err, ret;

	if (argc > 1)
		return vgpuctl_usage_error("unexpected argument \"%s\" for backstop sync", argv[1]);
	if (argc > 0 && vgpuctl_parse_name(argv[0]))
		return vgpuctl_usage_error("invalid NAME \"%s\" for backstop sync (1-63 printable characters, no spaces)",
					   argv[0]);
	ret = vgpuctl_need_admin();
	if (!ret)
		ret = vgpuctl_open(&nl);
	if (ret)
		return ret;
	err = vgpuctl_bs_inventory(&nl, inv);
	if (!err && argc > 0) {
		t = calloc(1, sizeof(*t));
		err = t ? vgpuctl_bs_tenant_read(&nl, argv[0], t) : -ENOMEM;
		n = 1;
	} else if (!err) {
		err = vgpuctl_bs_tenants(&nl, &t, &n);
	}
	if (err) {
		vgpuctl_nl_perror(&nl, err);
		ret = VGPU_EXIT_ERR;
	}
	for (i = 0; !err && i < n; i++)
		if (apply_tenant(&t[i], inv, false, "backstop sync"))
			ret = VGPU_EXIT_ERR;
	free(t);
	vgpuctl_nl_close(&nl);
	return ret;
}

/**
 * vgpuctl_cmd_backstop() - dispatch "vgpuctl backstop COMMAND ..."
 * @argc: arguments after "backstop"
 * @argv: argv[0] is the command
 *
 * Return: the exit status.
 */
int vgpuctl_cmd_backstop(int argc, char **argv)
{
	if (argc < 1)
		return vgpuctl_usage_error("missing COMMAND for backstop; try \"vgpuctl backstop help\"");
	if (vgpuctl_is_help(argc, argv) || vgpuctl_is_help(argc - 1, argv + 1)) {
		vgpuctl_usage_backstop(stdout);
		return VGPU_EXIT_OK;
	}
	if (!strcmp(argv[0], "sync"))
		return backstop_sync(argc - 1, argv + 1);
	return vgpuctl_usage_error("unknown command \"%s\" for backstop; try \"vgpuctl backstop help\"",
				   argv[0]);
}
