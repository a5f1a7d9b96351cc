// SPDX-License-Identifier: GPL-2.0
/*
 * vgpuctl apply [--dry-run] [--prune] [FILE...]: load and check the
 * configuration files (conf.c, apply_load.c), read what the module holds,
 * and make only the changes that differ (apply_diff.c), through the same
 * senders as gpu add, set and tenant add/set/del, so that placement and
 * the backstop follow as they do for those.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "apply.h"
#include "../lib/parse.h"
#include "../obj/snap.h"

#define APPLY_CONF	"/etc/vgpu/vgpu.conf"
#define APPLY_CONF_DIR	"/etc/vgpu/conf.d"

/**
 * vgpuctl_usage_apply() - usage of apply
 * @f: stdout for "help", stderr otherwise
 */
void vgpuctl_usage_apply(FILE *f)
{
	fputs("Usage: vgpuctl apply [--dry-run] [--prune] [FILE...]\n"
	      "       vgpuctl apply help\n"
	      "Checks every line of the configuration files (default " APPLY_CONF " and\n"
	      APPLY_CONF_DIR "/*.conf) and, when all are good, changes only what the\n"
	      "module holds differently: GPUs (gpu probe, or gpu INDEX vram SIZE ...), host\n"
	      "settings (host default POLICY, host monitor-group GROUP) and tenants (tenant\n"
	      "NAME cgroup PATH ..., as tenant add: added, or set to exactly the quotas and\n"
	      "labels of the file). Each change is printed in vgpuctl's words.\n"
	      "--dry-run: print the changes, make none. --prune: also delete the tenants\n"
	      "the files do not name, but never one with registered processes.\n", f);
}

/* One tenant of a tenant-get dump into @arg, an apply_state. */
static int have_tenant(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[VGPU_A_TENANT_MAX + 1], *a, *ltb[VGPU_A_LABEL_MAX + 1];
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct apply_state *h = arg;
	struct apply_tenant *t, *more;
	int rem;

	if (vgpuctl_tenant_parse(nlh, tb) || !tb[VGPU_A_TENANT_NAME])
		return -EPROTO;
	more = realloc(h->tenants, (h->ntenants + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	h->tenants = more;
	t = &more[h->ntenants++];
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", nla_get_string(tb[VGPU_A_TENANT_NAME]));
	if (tb[VGPU_A_TENANT_CGROUP])
		snprintf(t->cgroup, sizeof(t->cgroup), "%s", nla_get_string(tb[VGPU_A_TENANT_CGROUP]));
	if (tb[VGPU_A_TENANT_ID])
		t->id = nla_get_u32(tb[VGPU_A_TENANT_ID]);
	vgpuctl_tenant_conf_from_reply(&t->q, tb);
	t->q.ephemeral = tb[VGPU_A_TENANT_EPHEMERAL];
	nla_for_each_attr(a, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0), rem) {
		if (nla_type(a) != VGPU_A_TENANT_LABEL || t->q.nlabels == VGPU_LABEL_MAX ||
		    nla_parse_nested(ltb, VGPU_A_LABEL_MAX, a, NULL) < 0 ||
		    !ltb[VGPU_A_LABEL_KEY] || !ltb[VGPU_A_LABEL_VALUE])
			continue;
		snprintf(t->q.labels[t->q.nlabels].key, sizeof(t->q.labels[0].key), "%s",
			 (char *)nla_data(ltb[VGPU_A_LABEL_KEY]));
		snprintf(t->q.labels[t->q.nlabels++].value, sizeof(t->q.labels[0].value), "%s",
			 (char *)nla_data(ltb[VGPU_A_LABEL_VALUE]));
	}
	return 0;
}

/*
 * A proc-get reply: one more registered process for its tenant (whether
 * or not it has used a GPU yet: tenant del refuses either).
 */
static int have_proc(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *a = nla_find(genlmsg_attrdata(nlmsg_data(nlh), 0),
				    genlmsg_attrlen(nlmsg_data(nlh), 0), VGPU_A_PROC_TENANT_ID);
	struct apply_state *h = arg;
	size_t i;

	if (!a || nla_len(a) < 4)
		return 0;	/* outside every tenant */
	for (i = 0; i < h->ntenants; i++)
		if (h->tenants[i].id == nla_get_u32(a))
			h->tenants[i].procs++;
	return 0;
}

/* The host and GPUs of @s into @h. */
static int have_from_snap(const struct vgpu_snap *s, struct apply_state *h)
{
	size_t i;

	h->has_policy = s->host.has_policy;
	h->policy = s->host.policy;
	h->has_gid = s->host.has_monitor_gid;
	h->gid = s->host.monitor_gid;
	h->gpus = calloc(s->ngpus ? s->ngpus : 1, sizeof(*h->gpus));
	if (!h->gpus)
		return -ENOMEM;
	for (i = 0; i < s->ngpus; i++) {
		h->gpus[i].g.index = s->gpus[i].index;
		h->gpus[i].g.vram = s->gpus[i].vram;
	}
	h->ngpus = s->ngpus;
	return 0;
}

/* What the module holds, into @h (zeroed first). */
static int read_have(struct apply_state *h)
{
	struct vgpu_snap s = { 0 };
	struct vgpu_nl nl;
	struct nl_msg *msg;
	int ret, err;

	memset(h, 0, sizeof(*h));
	ret = vgpuctl_open(&nl);
	if (ret)
		return ret;
	msg = vgpuctl_nl_msg(&nl, VGPU_CMD_TENANT_GET, true);
	err = msg ? vgpuctl_nl_request(&nl, msg, have_tenant, h) : -ENOMEM;
	if (!err) {
		msg = vgpuctl_nl_msg(&nl, VGPU_CMD_PROC_GET, true);
		err = msg ? vgpuctl_nl_request(&nl, msg, have_proc, h) : -ENOMEM;
	}
	if (!err)
		err = vgpuctl_snap_take(&nl, &s, VGPU_SNAP_GPUS);
	if (!err)
		err = have_from_snap(&s, h);
	if (err) {
		vgpuctl_nl_perror(&nl, err);
		vgpuctl_apply_state_free(h);
	}
	vgpuctl_snap_free(&s);
	vgpuctl_nl_close(&nl);
	return err ? VGPU_EXIT_ERR : 0;
}

/* Make one change, through the command's own sender. */
static int make_change(const struct apply_change *ch, const struct apply_state *want)
{
	switch (ch->kind) {
	case APPLY_HOST: {
		struct vgpuctl_host_conf h = {
			.has_policy = ch->policy, .policy = want->policy,
			.has_gid = ch->gid, .gid = want->gid,
		};

		return vgpuctl_host_set(&h);
	}
	case APPLY_GPU_ADD:
		return vgpuctl_gpu_add_send(&ch->gpu->g);
	case APPLY_TENANT_DEL:
		return vgpuctl_tenant_send(VGPU_CMD_TENANT_DEL, ch->t->name, NULL, NULL, false);
	case APPLY_TENANT_ADD:
		return vgpuctl_tenant_send(VGPU_CMD_TENANT_NEW, ch->t->name, ch->t->cgroup,
					   &ch->t->q, false);
	case APPLY_TENANT_SET:
		return vgpuctl_tenant_send(VGPU_CMD_TENANT_SET, ch->t->name, NULL, &ch->set, false);
	case APPLY_KEEP:
		break;
	}
	return 0;
}

/* Print, and unless @dry make, each change; stop at the first that fails. */
static int run_plan(const struct apply_plan *p, const struct apply_state *want, bool dry)
{
	size_t i, changes = 0;
	int ret;

	for (i = 0; i < p->n; i++) {
		printf("%s\n", p->c[i].words);
		fflush(stdout);
		if (p->c[i].kind == APPLY_KEEP)
			continue;
		changes++;
		if (dry)
			continue;
		ret = make_change(&p->c[i], want);
		if (ret)
			return ret;
	}
	if (!changes)
		printf("# nothing to change: the module holds what the files say\n");
	return 0;
}

/* Load and check the files: @files, or the default ones. */
static int load(struct vgpuctl_conf *conf, struct apply_state *want, int nfiles, char **files)
{
	char mnt[VGPU_PATH_LEN_MAX + 1];
	int ret;

	if (vgpuctl_cgroup_mount("/proc/self/mounts", mnt, sizeof(mnt)) < 0)
		return vgpuctl_error("cannot find the cgroup2 mount point");
	ret = nfiles ? vgpuctl_conf_load_files(conf, files, (size_t)nfiles)
		     : vgpuctl_conf_load(conf, APPLY_CONF, APPLY_CONF_DIR);
	if (ret)
		return ret;
	ret = vgpuctl_apply_load(conf, mnt, want);
	if (ret) {
		vgpuctl_conf_free(conf);
		fprintf(stderr, "apply: nothing was changed\n");
	}
	return ret;
}

/**
 * vgpuctl_cmd_apply() - vgpuctl apply [--dry-run] [--prune] [FILE...]
 * @argc: arguments after "apply"
 * @argv: the options, then the files
 *
 * Return: the exit status.
 */
int vgpuctl_cmd_apply(int argc, char **argv)
{
	struct vgpuctl_conf conf;
	struct apply_state want, have;
	struct apply_plan plan;
	bool dry = false, prune = false;
	int ret;

	if (vgpuctl_is_help(argc, argv)) {
		vgpuctl_usage_apply(stdout);
		return VGPU_EXIT_OK;
	}
	for (; argc > 0 && argv[0][0] == '-' && argv[0][1]; argc--, argv++) {
		if (!strcmp(argv[0], "--dry-run") || !strcmp(argv[0], "-n"))
			dry = true;
		else if (!strcmp(argv[0], "--prune"))
			prune = true;
		else
			return vgpuctl_usage_error("unknown option \"%s\" for apply", argv[0]);
	}
	ret = load(&conf, &want, argc, argv);
	if (ret)
		return ret;
	if (!dry)
		ret = vgpuctl_need_admin();
	/* gpu probe adds only the GPUs the module lacks: first, so tenants may use them. */
	if (!ret && want.probe) {
		char *probe_dry[] = { "--dry-run", NULL };

		ret = vgpuctl_gpu_probe(dry, probe_dry);
	}
	if (!ret)
		ret = read_have(&have);
	if (!ret) {
		ret = vgpuctl_apply_diff(&want, &have, prune, &plan);
		if (ret)
			fprintf(stderr, "apply: nothing was changed\n");
		else
			ret = run_plan(&plan, &want, dry);
		vgpuctl_apply_plan_free(&plan);
		vgpuctl_apply_state_free(&have);
	}
	vgpuctl_apply_state_free(&want);
	vgpuctl_conf_free(&conf);
	return ret;
}
