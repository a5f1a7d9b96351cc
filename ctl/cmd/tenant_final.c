// SPDX-License-Identifier: GPL-2.0
/*
 * vgpuctl tenant final: the final records of deleted tenants (show, ack),
 * read through final.c's API.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../obj/final.h"
#include "../lib/parse.h"
#include "../lib/print.h"
#include "../vgpuctl.h"

/**
 * vgpuctl_final_print() - print one final record
 * @f: the record
 *
 * Plain: "final-seq N tenant NAME id ... label k=v ..." and its usage
 * lines; JSON: one object with "labels" and "usage".
 */
static void final_print(const struct vgpuctl_final *f)
{
	uint32_t q = f->quota_set;
	const char *prio = vgpuctl_priority_name(f->priority);
	unsigned int i;

	vgpuctl_print_obj_open(NULL);
	vgpuctl_print_u64("final_seq", "final-seq", true, f->seq);
	vgpuctl_print_str("name", "tenant", f->name);
	vgpuctl_print_u64("id", "id", true, f->id);
	vgpuctl_print_str("cgroup", "cgroup", f->cgroup);
	vgpuctl_print_u64("cgroup_id", "cgroup_id", true, f->cgroup_id);
	vgpuctl_print_flag("ephemeral", "ephemeral", f->ephemeral);
	vgpuctl_print_time("created", "created", true, f->created);
	vgpuctl_print_time("deleted", "deleted", true, f->deleted);
	vgpuctl_print_reason(true, f->reason);
	vgpuctl_print_size("vram_max", "vram-max", q & VGPU_QUOTA_VRAM_MAX, f->vram_max);
	vgpuctl_print_size("vram_min", "vram-min", q & VGPU_QUOTA_VRAM_MIN, f->vram_min);
	vgpuctl_print_mask("gpus", "gpus", q & VGPU_QUOTA_GPUS, f->gpus);
	vgpuctl_print_u64("weight", "weight", q & VGPU_QUOTA_WEIGHT, f->weight);
	vgpuctl_print_pct("compute_max", "compute-max", q & VGPU_QUOTA_COMPUTE_MAX,
			  f->compute_max);
	if ((q & VGPU_QUOTA_PRIORITY) && !prio)
		vgpuctl_print_u64("priority", "priority", true, f->priority);
	else
		vgpuctl_print_str("priority", "priority",
				  q & VGPU_QUOTA_PRIORITY ? prio : NULL);
	vgpuctl_print_map_open("labels");
	for (i = 0; i < f->nlabels; i++)
		vgpuctl_print_label(f->labels[i].key, f->labels[i].value);
	vgpuctl_print_map_close();
	vgpuctl_print_arr_open("usage");
	for (i = 0; i < f->nusage; i++)
		vgpuctl_usage_print(&f->usage[i]);
	vgpuctl_print_arr_close();
	vgpuctl_print_obj_close();
}

static int final_show_one(struct nlmsghdr *nlh, void *arg)
{
	struct vgpuctl_final *f = malloc(sizeof(*f));
	int err;

	(void)arg;
	if (!f)
		return -ENOMEM;
	err = vgpuctl_final_parse(nlh, f);
	if (!err)
		final_print(f);
	free(f);
	return err;
}

static int final_ack(int argc, char **argv)
{
	unsigned long long seq;
	struct vgpu_nl nl;
	char *end;
	int ret, err;

	if (argc < 1)
		return vgpuctl_usage_error("missing SEQ for tenant final ack");
	if (argc > 1)
		return vgpuctl_usage_error("unexpected argument \"%s\" for tenant final ack",
					   argv[1]);
	errno = 0;
	seq = strtoull(argv[0], &end, 10);
	if (argv[0][0] < '0' || argv[0][0] > '9' || *end || errno)
		return vgpuctl_usage_error("invalid SEQ \"%s\" for tenant final ack (a final-seq)",
					   argv[0]);
	ret = vgpuctl_need_admin();
	if (!ret)
		ret = vgpuctl_open(&nl);
	if (ret)
		return ret;
	err = vgpuctl_final_ack(&nl, seq);
	if (err)
		vgpuctl_nl_perror(&nl, err);
	vgpuctl_nl_close(&nl);
	return err ? VGPU_EXIT_ERR : VGPU_EXIT_OK;
}

/**
 * vgpuctl_tenant_final() - "vgpuctl tenant final [show | ack SEQ]"
 * @argc: arguments after "final"
 * @argv: the command and its arguments; none means show
 *
 * Return: the exit status.
 */
int vgpuctl_tenant_final(int argc, char **argv)
{
	if (argc < 1 || !strcmp(argv[0], "show") || !strcmp(argv[0], "list")) {
		if (argc > 1)
			return vgpuctl_usage_error("unexpected argument \"%s\" for tenant final show",
						   argv[1]);
		return vgpuctl_show(VGPU_CMD_TENANT_FINAL_GET, true, NULL, NULL, final_show_one);
	}
	if (!strcmp(argv[0], "ack"))
		return final_ack(argc - 1, argv + 1);
	return vgpuctl_usage_error("unknown command \"%s\" for tenant final; try \"vgpuctl tenant help\"",
				   argv[0]);
}
