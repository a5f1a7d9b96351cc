// SPDX-License-Identifier: GPL-2.0
/*
 * The enforcement in force below libvgpu, read from the truth at show
 * time (backstop.h): NVML's per-cgroup limits and the dmem controller's
 * files, not anything vgpuctl remembers.
 *
 *   gpu show     "backstop driver", "backstop dmem" or "backstop none
 *                (library only)": what can hold a tenant on the GPU;
 *   tenant show  one line per GPU of the inventory, after the usage lines:
 *                "backstop gpu 0 driver max 64MiB min 0B", or "backstop
 *                gpu 1 none (library only)", with "(out of sync: run
 *                vgpuctl backstop sync)" when it differs from what the
 *                module holds.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "backstop.h"
#include "dmem.h"
#include "../lib/print.h"
#include "../vgpuctl.h"

/** vgpuctl_backstop_name() - "driver", "dmem" or "none". */
const char *vgpuctl_backstop_name(enum vgpu_bs_kind k)
{
	return k == VGPU_BS_DRIVER ? "driver" : k == VGPU_BS_DMEM ? "dmem" : "none";
}

/* The directory of this process's own cgroup, to ask NVML about. */
static void own_cgroup(char *out, size_t len)
{
	char mnt[VGPU_PATH_LEN_MAX + 1], line[VGPU_PATH_LEN_MAX + 8];
	FILE *f;

	if (vgpuctl_bs_mount(mnt, sizeof(mnt)))
		snprintf(mnt, sizeof(mnt), "/sys/fs/cgroup");
	snprintf(out, len, "%s", mnt);
	f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line + 3, "/"))
			snprintf(out, len, "%s%s", mnt, line + 3);
		break;
	}
	fclose(f);
}

/**
 * vgpuctl_backstop_kind() - what can hold a tenant on a GPU below libvgpu
 * @g: the GPU
 *
 * Return: VGPU_BS_DRIVER when NVML has per-cgroup limits for it (asked for
 * this process's own cgroup), else VGPU_BS_DMEM when the kernel has a dmem
 * region for it, else VGPU_BS_LIBRARY.
 */
enum vgpu_bs_kind vgpuctl_backstop_kind(const struct vgpu_bs_gpu *g)
{
	char dir[2 * VGPU_PATH_LEN_MAX + 16], mnt[VGPU_PATH_LEN_MAX + 1], region[256];
	struct vgpu_bs_limits l;
	const char *fail = NULL;

	own_cgroup(dir, sizeof(dir));
	if (vgpuctl_bs_nvml_get(g->uuid, dir, &l, &fail) != 1)
		return VGPU_BS_DRIVER;
	if (!vgpuctl_bs_mount(mnt, sizeof(mnt)) &&
	    vgpuctl_dmem_region(mnt, g->pci, region, sizeof(region)) == 1)
		return VGPU_BS_DMEM;
	return VGPU_BS_LIBRARY;
}

/* Plain "none (library only)", JSON "none". */
static void print_kind(enum vgpu_bs_kind k)
{
	if (vgpuctl_print_json() || k != VGPU_BS_LIBRARY)
		vgpuctl_print_str("enforcement", NULL, vgpuctl_backstop_name(k));
	else
		vgpuctl_print_str("enforcement", NULL, "none (library only)");
}

/**
 * vgpuctl_backstop_print_gpu() - the backstop member of a gpu show line
 * @tb: the GPU's attributes (vgpuctl_gpu_parse())
 */
void vgpuctl_backstop_print_gpu(struct nlattr **tb)
{
	struct vgpu_bs_gpu g = { .present = true };
	enum vgpu_bs_kind k;

	if (tb[VGPU_A_GPU_UUID])
		snprintf(g.uuid, sizeof(g.uuid), "%s", nla_get_string(tb[VGPU_A_GPU_UUID]));
	if (tb[VGPU_A_GPU_PCI])
		snprintf(g.pci, sizeof(g.pci), "%s", nla_get_string(tb[VGPU_A_GPU_PCI]));
	k = vgpuctl_backstop_kind(&g);
	if (vgpuctl_print_json() || k != VGPU_BS_LIBRARY)
		vgpuctl_print_str("backstop", "backstop", vgpuctl_backstop_name(k));
	else
		vgpuctl_print_str("backstop", "backstop", "none (library only)");
}

/**
 * vgpuctl_backstop_show_prepare() - read the inventory before tenant show
 * @s: filled, for vgpuctl_backstop_print_tenant()
 *
 * On a handle of its own: the show's replies come while its dump runs.
 * Without it (no module, say) tenant show prints no backstop lines.
 */
void vgpuctl_backstop_show_prepare(struct vgpuctl_bs_show *s)
{
	struct vgpu_nl nl;

	s->ok = false;
	if (vgpuctl_bs_mount(s->mnt, sizeof(s->mnt)) || vgpuctl_nl_open(&nl))
		return;
	s->ok = !vgpuctl_bs_inventory(&nl, s->inv);
	vgpuctl_nl_close(&nl);
}

/*
 * What holds @t on @g now (@got), and whether some mechanism could. A
 * driver that has per-cgroup limits but fails to say which are in force
 * sets *@fail: that is shown, not taken for "none".
 */
static enum vgpu_bs_kind in_force(const char *mnt, const struct vgpu_bs_tenant *t,
				  const struct vgpu_bs_gpu *g, struct vgpu_bs_limits *got, bool *can,
				  const char **fail)
{
	char dir[2 * VGPU_PATH_LEN_MAX + 2], region[256];
	uint64_t min, max;
	int r;

	got->soft = 0;
	got->hard = VGPU_BS_NONE;
	*fail = NULL;
	snprintf(dir, sizeof(dir), "%s%s", mnt, strcmp(t->cgroup, "/") ? t->cgroup : "");
	r = vgpuctl_bs_nvml_get(g->uuid, dir, got, fail);
	*can = r != 1;
	if (r < 0) {
		if (!*fail)
			*fail = "the driver did not say";
		return VGPU_BS_DRIVER;
	}
	*fail = NULL;
	if (r == 0 && (got->soft || got->hard != VGPU_BS_NONE))
		return VGPU_BS_DRIVER;
	if (r != 1 || vgpuctl_dmem_region(mnt, g->pci, region, sizeof(region)) != 1)
		return VGPU_BS_LIBRARY;
	*can = true;
	if (vgpuctl_dmem_get(mnt, t->cgroup, region, &min, &max) ||
	    (!min && max == VGPU_BS_NONE))
		return VGPU_BS_LIBRARY;
	got->soft = min;
	got->hard = max;
	return VGPU_BS_DMEM;
}

static void print_one(const char *mnt, const struct vgpu_bs_tenant *t, const struct vgpu_bs_gpu *g)
{
	struct vgpu_bs_limits want, got;
	const char *fail;
	enum vgpu_bs_kind k;
	bool can, sync;

	vgpuctl_backstop_want(t, g, &want);
	k = in_force(mnt, t, g, &got, &can, &fail);
	if (fail) {
		vgpuctl_print_sub_open("    backstop ");
		if (vgpuctl_print_json())
			print_kind(k);
		vgpuctl_print_u64("gpu", "gpu", true, g->index);
		if (!vgpuctl_print_json())
			print_kind(k);
		vgpuctl_print_str("error", "unreadable:", fail);
		vgpuctl_print_sub_close();
		return;
	}
	if (!can)
		want = got;	/* nothing below libvgpu: none is all there is */
	sync = want.soft == got.soft && want.hard == got.hard;
	vgpuctl_print_sub_open("    backstop ");
	if (vgpuctl_print_json())
		print_kind(k);
	vgpuctl_print_u64("gpu", "gpu", true, g->index);
	if (!vgpuctl_print_json())
		print_kind(k);
	if (k != VGPU_BS_LIBRARY || vgpuctl_print_json()) {
		vgpuctl_print_size("max", "max", got.hard != VGPU_BS_NONE, got.hard);
		vgpuctl_print_size("min", "min", true, got.soft);
	}
	if (vgpuctl_print_json())
		vgpuctl_print_flag("in_sync", NULL, sync);
	else if (!sync)
		vgpuctl_print_flag(NULL, "(out of sync: run vgpuctl backstop sync)", true);
	vgpuctl_print_sub_close();
}

/**
 * vgpuctl_backstop_print_tenant() - the backstop lines of a tenant
 * @s: what vgpuctl_backstop_show_prepare() read
 * @tb: its attributes (vgpuctl_tenant_parse())
 *
 * Plain: one line per GPU of the inventory; JSON: the "backstop" array.
 * Nothing when vgpuctl_backstop_show_prepare() could not read the
 * inventory, or the tenant's cgroup was removed.
 */
void vgpuctl_backstop_print_tenant(const struct vgpuctl_bs_show *s, struct nlattr **tb)
{
	struct vgpu_bs_tenant t;
	unsigned int i;

	if (!s->ok)
		return;
	vgpuctl_bs_tenant_from(tb, &t);
	if (t.removed)
		return;
	vgpuctl_print_arr_open("backstop");
	for (i = 0; i < VGPU_GPU_MAX; i++)
		if (s->inv[i].present)
			print_one(s->mnt, &t, &s->inv[i]);
	vgpuctl_print_arr_close();
}
