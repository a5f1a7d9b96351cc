// SPDX-License-Identifier: GPL-2.0
/*
 * The "vgpu" generic netlink family as the stand-in serves it: the
 * controller's family look-up, and the operations libvgpu (proc-register,
 * proc-get) and vgpuctl's set-up commands (gpu-add/del/get, tenant-new/
 * set/del/get, host-get) use, with the attributes of the spec
 * (Documentation/netlink/specs/vgpu.yaml, through uapi/vgpu.h). Anything
 * else is refused with EOPNOTSUPP, which vgpuctl names. A request with
 * NLM_F_ACK gets its acknowledgement after any reply, as the kernel does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "standind.h"

#define STANDIN_FAMILY_ID 0x3f	/* any id above the controller's */
#define STANDIN_NL_OUT 8192

struct nl_out {
	int fd;
	const struct nlmsghdr *req;
	char buf[STANDIN_NL_OUT];
	size_t len;		/* bytes queued */
	struct nlmsghdr *cur;	/* the message being built */
	struct nlattr *nest;
};

static void out_flush(struct nl_out *o)
{
	if (o->len)
		send(o->fd, o->buf, o->len, MSG_NOSIGNAL | MSG_DONTWAIT);
	o->len = 0;
}

/* A new message in the batch (flushed first if it may not fit). */
static void msg_start(struct nl_out *o, uint16_t type, uint16_t flags, uint8_t cmd)
{
	struct genlmsghdr *g;

	if (o->len > STANDIN_NL_OUT / 2)
		out_flush(o);
	o->cur = (struct nlmsghdr *)(o->buf + o->len);
	memset(o->cur, 0, NLMSG_LENGTH(GENL_HDRLEN));
	o->cur->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	o->cur->nlmsg_type = type;
	o->cur->nlmsg_flags = flags;
	o->cur->nlmsg_seq = o->req->nlmsg_seq;
	o->cur->nlmsg_pid = o->req->nlmsg_pid;
	g = NLMSG_DATA(o->cur);
	g->cmd = cmd;
	g->version = VGPU_FAMILY_VERSION;
}

static void msg_end(struct nl_out *o)
{
	o->len += NLMSG_ALIGN(o->cur->nlmsg_len);
}

static void put(struct nl_out *o, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)o->cur + NLMSG_ALIGN(o->cur->nlmsg_len));

	if (o->len + NLMSG_ALIGN(o->cur->nlmsg_len) + NLA_HDRLEN + NLA_ALIGN(len) > STANDIN_NL_OUT)
		return;	/* a batch never holds this much: the half-full flush */
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	if (len)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	o->cur->nlmsg_len = NLMSG_ALIGN(o->cur->nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void put_u32(struct nl_out *o, uint16_t type, uint32_t v) { put(o, type, &v, 4); }
static void put_u64(struct nl_out *o, uint16_t type, uint64_t v) { put(o, type, &v, 8); }
static void put_str(struct nl_out *o, uint16_t type, const char *s) { put(o, type, s, strlen(s) + 1); }

static void nest_start(struct nl_out *o, uint16_t type)
{
	o->nest = (struct nlattr *)((char *)o->cur + NLMSG_ALIGN(o->cur->nlmsg_len));
	put(o, type | NLA_F_NESTED, NULL, 0);
}

static void nest_end(struct nl_out *o)
{
	o->nest->nla_len = (uint16_t)((char *)o->cur + o->cur->nlmsg_len - (char *)o->nest);
}

/* NLMSG_ERROR: an error, or (0) the acknowledgement. */
static void put_error(struct nl_out *o, int err)
{
	struct nlmsgerr *e;

	if (o->len > STANDIN_NL_OUT / 2)
		out_flush(o);
	o->cur = (struct nlmsghdr *)(o->buf + o->len);
	memset(o->cur, 0, NLMSG_LENGTH(sizeof(*e)));
	o->cur->nlmsg_len = NLMSG_LENGTH(sizeof(*e));
	o->cur->nlmsg_type = NLMSG_ERROR;
	o->cur->nlmsg_flags = NLM_F_CAPPED;	/* the request's header only */
	o->cur->nlmsg_seq = o->req->nlmsg_seq;
	o->cur->nlmsg_pid = o->req->nlmsg_pid;
	e = NLMSG_DATA(o->cur);
	e->error = err;
	e->msg = *o->req;
	msg_end(o);
}

static void put_done(struct nl_out *o)
{
	msg_start(o, NLMSG_DONE, NLM_F_MULTI, 0);
	put(o, 0, NULL, 0);	/* the kernel's int of 0 */
	o->cur->nlmsg_len = NLMSG_LENGTH(4);
	msg_end(o);
}

/* ------------------------------------------------------------ requests */

#define STANDIN_ATTRS 64

/* The request's attributes by type (the last of each; NULL when absent). */
static void parse(const struct nlmsghdr *h, const struct nlattr *tb[STANDIN_ATTRS])
{
	const struct nlattr *a = (const struct nlattr *)((const char *)NLMSG_DATA(h) + GENL_HDRLEN);
	int left = (int)h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);

	memset(tb, 0, sizeof(*tb) * STANDIN_ATTRS);
	for (; left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= left;
	     left -= NLA_ALIGN(a->nla_len), a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len)))
		if ((a->nla_type & NLA_TYPE_MASK) < STANDIN_ATTRS)
			tb[a->nla_type & NLA_TYPE_MASK] = a;
}

static const void *data(const struct nlattr *a) { return (const char *)a + NLA_HDRLEN; }
static size_t alen(const struct nlattr *a) { return a->nla_len - NLA_HDRLEN; }

static uint64_t get_u(const struct nlattr *a)
{
	uint64_t v = 0;
	uint32_t w = 0;

	if (alen(a) >= 8)
		memcpy(&v, data(a), 8);
	else if (alen(a) >= 4)
		memcpy(&w, data(a), 4), v = w;
	return v;
}

/* A string attribute into out; -EINVAL when it does not fit or lacks its 0. */
static int get_str(const struct nlattr *a, char *out, size_t size)
{
	size_t n = alen(a);

	if (!n || ((const char *)data(a))[n - 1] || n > size)
		return -EINVAL;
	memcpy(out, data(a), n);
	return 0;
}

static void family(struct nl_out *o)
{
	uint16_t id = STANDIN_FAMILY_ID;

	msg_start(o, GENL_ID_CTRL, 0, CTRL_CMD_NEWFAMILY);
	put(o, CTRL_ATTR_FAMILY_ID, &id, sizeof(id));
	put_str(o, CTRL_ATTR_FAMILY_NAME, VGPU_FAMILY_NAME);
	put_u32(o, CTRL_ATTR_VERSION, VGPU_FAMILY_VERSION);
	put_u32(o, CTRL_ATTR_HDRSIZE, 0);
	put_u32(o, CTRL_ATTR_MAXATTR, STANDIN_ATTRS - 1);
	nest_start(o, CTRL_ATTR_MCAST_GROUPS);
	{
		struct nlattr *grp = (struct nlattr *)((char *)o->cur + NLMSG_ALIGN(o->cur->nlmsg_len));

		put(o, 1 | NLA_F_NESTED, NULL, 0);
		put_u32(o, CTRL_ATTR_MCAST_GRP_ID, 1);
		put_str(o, CTRL_ATTR_MCAST_GRP_NAME, VGPU_MCGRP_MONITOR);
		grp->nla_len = (uint16_t)((char *)o->cur + o->cur->nlmsg_len - (char *)grp);
	}
	nest_end(o);
	msg_end(o);
}

static int ctrl(struct nl_out *o, const struct nlmsghdr *h)
{
	const struct nlattr *tb[STANDIN_ATTRS];
	char name[32];

	if (((const struct genlmsghdr *)NLMSG_DATA(h))->cmd != CTRL_CMD_GETFAMILY)
		return -EOPNOTSUPP;
	parse(h, tb);
	if (!tb[CTRL_ATTR_FAMILY_NAME] || get_str(tb[CTRL_ATTR_FAMILY_NAME], name, sizeof(name)) ||
	    strcmp(name, VGPU_FAMILY_NAME))
		return -ENOENT;
	family(o);
	return 0;
}

/* ------------------------------------------------------------ the family */

static void gpu_msg(struct standin *s, struct nl_out *o, int i, uint16_t flags)
{
	const struct standin_gpu *g = &s->gpu[i];

	msg_start(o, STANDIN_FAMILY_ID, flags, VGPU_CMD_GPU_GET);
	put_u32(o, VGPU_A_GPU_INDEX, (uint32_t)i);
	if (g->uuid[0])
		put_str(o, VGPU_A_GPU_UUID, g->uuid);
	if (g->pci[0])
		put_str(o, VGPU_A_GPU_PCI, g->pci);
	put_u64(o, VGPU_A_GPU_VRAM, g->vram);
	put(o, VGPU_A_GPU_NUMA, &g->numa, 4);
	msg_end(o);
}

static int gpu_op(struct standin *s, struct nl_out *o, uint8_t cmd, const struct nlattr **tb,
		  int dump)
{
	uint64_t i = tb[VGPU_A_GPU_INDEX] ? get_u(tb[VGPU_A_GPU_INDEX]) : VGPU_DEV_GPUS;
	struct standin_gpu *g;

	if (cmd == VGPU_CMD_GPU_GET && dump) {
		for (int k = 0; k < VGPU_DEV_GPUS; k++)
			if (s->gpu[k].present)
				gpu_msg(s, o, k, NLM_F_MULTI);
		put_done(o);
		return 0;
	}
	if (i >= VGPU_DEV_GPUS)
		return -EINVAL;
	g = &s->gpu[i];
	if (cmd == VGPU_CMD_GPU_GET) {
		if (!g->present)
			return -ENODEV;
		gpu_msg(s, o, (int)i, 0);
	} else if (cmd == VGPU_CMD_GPU_DEL) {
		if (!g->present)
			return -ENODEV;
		memset(g, 0, sizeof(*g));
	} else {	/* add */
		char uuid[sizeof(g->uuid)] = "", pci[sizeof(g->pci)] = "";

		if (!tb[VGPU_A_GPU_VRAM] ||
		    (tb[VGPU_A_GPU_UUID] && get_str(tb[VGPU_A_GPU_UUID], uuid, sizeof(uuid))) ||
		    (tb[VGPU_A_GPU_PCI] && get_str(tb[VGPU_A_GPU_PCI], pci, sizeof(pci))))
			return -EINVAL;
		return standin_gpu_add(s, (int)i, get_u(tb[VGPU_A_GPU_VRAM]), uuid, pci,
				       tb[VGPU_A_GPU_NUMA] ? (int32_t)get_u(tb[VGPU_A_GPU_NUMA]) : -1);
	}
	return 0;
}

static void tenant_msg(struct standin *s, struct nl_out *o, const struct standin_tenant *t,
		       uint16_t flags)
{
	msg_start(o, STANDIN_FAMILY_ID, flags, VGPU_CMD_TENANT_GET);
	put_str(o, VGPU_A_TENANT_NAME, t->name);
	put_u32(o, VGPU_A_TENANT_ID, t->id);
	put_str(o, VGPU_A_TENANT_CGROUP, t->cgroup);
	if (t->vram_max != UINT64_MAX)
		put_u64(o, VGPU_A_TENANT_VRAM_MAX, t->vram_max);
	if (t->gpus != UINT64_MAX)
		put_u64(o, VGPU_A_TENANT_GPUS, t->gpus);
	for (int g = 0; g < VGPU_DEV_GPUS; g++) {
		if (!s->gpu[g].present)
			continue;
		nest_start(o, VGPU_A_TENANT_USAGE);
		put_u32(o, VGPU_A_USAGE_GPU, (uint32_t)g);
		put_u64(o, VGPU_A_USAGE_VRAM_CURRENT, standin_tenant_used(s, t->id, g));
		put_u64(o, VGPU_A_USAGE_VRAM_BUDGET,
			standin_tenant_charged(s, t->id, g) - standin_tenant_used(s, t->id, g));
		put_u64(o, VGPU_A_USAGE_VRAM_FAILURES, t->failures[g]);
		put_u64(o, VGPU_A_USAGE_GRANTS, t->grants[g]);
		nest_end(o);
	}
	msg_end(o);
}

/* vram-max and gpus of tenant-new and tenant-set (the other quotas: not
 * stood in for, Documentation/realgpu.md). */
static int tenant_quotas(struct standin_tenant *t, const struct nlattr **tb)
{
	uint64_t clear = tb[VGPU_A_TENANT_CLEAR] ? get_u(tb[VGPU_A_TENANT_CLEAR]) : 0;

	if (clear & VGPU_QUOTA_VRAM_MAX)
		t->vram_max = UINT64_MAX;
	if (clear & VGPU_QUOTA_GPUS)
		t->gpus = UINT64_MAX;
	if (tb[VGPU_A_TENANT_VRAM_MAX])
		t->vram_max = get_u(tb[VGPU_A_TENANT_VRAM_MAX]);
	if (tb[VGPU_A_TENANT_GPUS])
		t->gpus = get_u(tb[VGPU_A_TENANT_GPUS]);
	return 0;
}

static int tenant_new(struct standin *s, const struct nlattr **tb, const char *name)
{
	char cgroup[STANDIN_PATH];
	struct standin_tenant *t;
	int err;

	if (!tb[VGPU_A_TENANT_CGROUP] || get_str(tb[VGPU_A_TENANT_CGROUP], cgroup, sizeof(cgroup)))
		return -EINVAL;
	t = standin_tenant_new(s, name, cgroup, &err);
	if (!t)
		return err;
	tenant_quotas(t, tb);
	return 0;
}

static int tenant_op(struct standin *s, struct nl_out *o, uint8_t cmd, const struct nlattr **tb,
		     int dump)
{
	char name[STANDIN_NAME];
	struct standin_tenant *t;

	if (cmd == VGPU_CMD_TENANT_GET && dump) {
		for (int i = 0; i < STANDIN_TENANTS; i++)
			if (s->tenant[i].present)
				tenant_msg(s, o, &s->tenant[i], NLM_F_MULTI);
		put_done(o);
		return 0;
	}
	if (!tb[VGPU_A_TENANT_NAME] || get_str(tb[VGPU_A_TENANT_NAME], name, sizeof(name)))
		return -EINVAL;
	if (cmd == VGPU_CMD_TENANT_NEW)
		return tenant_new(s, tb, name);
	t = standin_tenant_by_name(s, name);
	if (!t)
		return -ENOENT;
	if (cmd == VGPU_CMD_TENANT_GET)
		tenant_msg(s, o, t, 0);
	else if (cmd == VGPU_CMD_TENANT_SET)
		return tenant_quotas(t, tb);
	else	/* del: its processes find themselves outside every tenant */
		memset(t, 0, sizeof(*t));
	return 0;
}

/* One process's attributes: a registration's reply, or a proc-get line. */
static void proc_msg(struct standin *s, struct nl_out *o, const struct standin_conn *c,
		     uint8_t cmd, uint16_t flags)
{
	const struct standin_tenant *t = standin_tenant_by_id(s, c->tenant);

	msg_start(o, STANDIN_FAMILY_ID, flags, cmd);
	put_u32(o, VGPU_A_PROC_PID, (uint32_t)c->pid);
	put_u32(o, VGPU_A_PROC_HOST_PID, (uint32_t)c->pid);
	if (t) {
		put_str(o, VGPU_A_PROC_TENANT, t->name);
		put_u32(o, VGPU_A_PROC_TENANT_ID, t->id);
	}
	put_u32(o, VGPU_A_PROC_DEFAULT_POLICY, VGPU_DEFAULT_POLICY_ALLOW);
	for (int g = 0; g < VGPU_DEV_GPUS; g++) {
		if (!s->gpu[g].present)
			continue;
		nest_start(o, VGPU_A_PROC_GPU);
		put_u32(o, VGPU_A_PROC_GPU_INDEX, (uint32_t)g);
		put_str(o, VGPU_A_PROC_GPU_UUID, s->gpu[g].uuid);
		put_u64(o, VGPU_A_PROC_GPU_VRAM, s->gpu[g].vram);
		if (t && t->vram_max != UINT64_MAX)
			put_u64(o, VGPU_A_PROC_GPU_VRAM_MAX, t->vram_max);
		if (!standin_gpu_mask_ok(t, g))
			put(o, VGPU_A_PROC_GPU_DENIED, NULL, 0);
		put_u64(o, VGPU_A_PROC_GPU_VRAM_USED, c->page->gpu[g].used);
		nest_end(o);
	}
	msg_end(o);
}

/* proc-register: the caller's /dev/vgpu is the device connection of the
 * same process that is not registered yet (the stand-in cannot resolve a
 * descriptor of another process; one open device per process). */
static int proc_register(struct standin *s, struct standin_conn *nl, struct nl_out *o,
			 const struct nlattr **tb)
{
	struct standin_conn *dev = NULL;

	if (!tb[VGPU_A_PROC_FD])
		return -EINVAL;
	if (tb[VGPU_A_PROC_GPUS_AUTO])
		return -EOPNOTSUPP;	/* VGPU_GPUS=auto:N: not stood in for */
	for (int i = 0; i < STANDIN_CONNS; i++)
		if (s->conn[i].fd >= 0 && s->conn[i].kind == STANDIN_DEV &&
		    s->conn[i].pid == nl->pid && !s->conn[i].registered)
			dev = &s->conn[i];
	if (!dev)
		return -EBADF;
	standin_register(s, dev);
	proc_msg(s, o, dev, VGPU_CMD_PROC_REGISTER, 0);
	return 0;
}

static void proc_dump(struct standin *s, struct nl_out *o)
{
	for (int i = 0; i < STANDIN_CONNS; i++)
		if (s->conn[i].fd >= 0 && s->conn[i].kind == STANDIN_DEV && s->conn[i].registered)
			proc_msg(s, o, &s->conn[i], VGPU_CMD_PROC_GET, NLM_F_MULTI);
	put_done(o);
}

static void host_get(struct standin *s, struct nl_out *o)
{
	uint32_t procs = 0;

	for (int i = 0; i < STANDIN_CONNS; i++)
		procs += s->conn[i].fd >= 0 && s->conn[i].kind == STANDIN_DEV && s->conn[i].registered;
	msg_start(o, STANDIN_FAMILY_ID, 0, VGPU_CMD_HOST_GET);
	put_u32(o, VGPU_A_HOST_DEFAULT_POLICY, VGPU_DEFAULT_POLICY_ALLOW);
	put_u32(o, VGPU_A_HOST_PROCS, procs);
	msg_end(o);
}

static int family_op(struct standin *s, struct standin_conn *c, struct nl_out *o,
		     const struct nlmsghdr *h)
{
	const struct genlmsghdr *g = NLMSG_DATA(h);
	const struct nlattr *tb[STANDIN_ATTRS];
	int dump = (h->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;

	parse(h, tb);
	switch (g->cmd) {
	case VGPU_CMD_GPU_ADD:
	case VGPU_CMD_GPU_DEL:
	case VGPU_CMD_GPU_GET:
		return gpu_op(s, o, g->cmd, tb, dump);
	case VGPU_CMD_TENANT_NEW:
	case VGPU_CMD_TENANT_SET:
	case VGPU_CMD_TENANT_DEL:
	case VGPU_CMD_TENANT_GET:
		return tenant_op(s, o, g->cmd, tb, dump);
	case VGPU_CMD_PROC_REGISTER:
		return proc_register(s, c, o, tb);
	case VGPU_CMD_PROC_GET:
		if (!dump)
			return -EOPNOTSUPP;
		proc_dump(s, o);
		return 0;
	case VGPU_CMD_HOST_GET:
		host_get(s, o);
		return 0;
	case VGPU_CMD_GPU_SET:
		return 0;	/* NVLink peers and health: not stood in for (vgpuctl gpu probe sends it) */
	default:
		/* named, so that a run's log says what a client missed */
		fprintf(stderr, "vgpu-standin: generic netlink command %u not stood in for\n", g->cmd);
		return -EOPNOTSUPP;
	}
}

void standin_nl_packet(struct standin *s, struct standin_conn *c, const void *buf, size_t len)
{
	static struct nl_out o;
	const struct nlmsghdr *h;
	size_t left = len;

	o.fd = c->fd;
	o.len = 0;
	for (h = buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
		int err = -EOPNOTSUPP;

		if (!(h->nlmsg_flags & NLM_F_REQUEST) || h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
			continue;
		o.req = h;
		if (h->nlmsg_type == GENL_ID_CTRL)
			err = ctrl(&o, h);
		else if (h->nlmsg_type == STANDIN_FAMILY_ID)
			err = family_op(s, c, &o, h);
		/* a dump ends with its NLMSG_DONE, never an acknowledgement */
		/* Each in its own packet, as the kernel's skbs: libnl stops
		 * reading a packet at a reply, then waits for the ack. */
		out_flush(&o);
		if (err || ((h->nlmsg_flags & NLM_F_ACK) && (h->nlmsg_flags & NLM_F_DUMP) != NLM_F_DUMP))
			put_error(&o, err);
		out_flush(&o);
	}
	out_flush(&o);
}
