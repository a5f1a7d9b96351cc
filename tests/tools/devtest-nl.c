// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu-devtest's netlink side: raw generic netlink to vgpu.ko (no library
 * beyond libc), the vgpu family, and the steps that talk to it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "devtest.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

#define BUF_SIZE 65536

static int nl_fd = -1;
static uint16_t family;
static uint32_t nl_seq;
char devtest_errmsg[256];

struct msg {
	char buf[4096];
	struct nlmsghdr *nlh;
};

static void msg_init(struct msg *m, uint16_t type, uint16_t flags, uint8_t cmd)
{
	struct genlmsghdr *g;

	memset(m->buf, 0, sizeof(m->buf));
	m->nlh = (struct nlmsghdr *)m->buf;
	m->nlh->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	m->nlh->nlmsg_type = type;
	m->nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	m->nlh->nlmsg_seq = ++nl_seq;
	g = NLMSG_DATA(m->nlh);
	g->cmd = cmd;
	g->version = VGPU_FAMILY_VERSION;
}

static void msg_put(struct msg *m, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)(m->buf + NLMSG_ALIGN(m->nlh->nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	m->nlh->nlmsg_len = NLMSG_ALIGN(m->nlh->nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static int nl_open(void)
{
	int one = 1;

	if (nl_fd >= 0)
		return 0;
	nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl_fd < 0)
		return -errno;
	setsockopt(nl_fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl_fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	return 0;
}

typedef void (*reply_fn)(struct nlattr **tb, int max, void *arg);

/*
 * parse_attrs() keeps the last of repeated (multi-attr) attributes; the
 * callbacks that need them all walk the reply being handled, kept here.
 */
static void *cur_attrs;
static int cur_len;

/* Splits the attributes of [data, data + len) into tb[0..max]. */
static void parse_attrs(struct nlattr **tb, int max, void *data, int len)
{
	struct nlattr *a;

	memset(tb, 0, sizeof(*tb) * (max + 1));
	for (a = data; len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len), a = (void *)((char *)a + NLA_ALIGN(a->nla_len))) {
		int type = a->nla_type & NLA_TYPE_MASK;

		if (type <= max)
			tb[type] = a;
	}
}

#define ATTR_DATA(a) ((void *)((char *)(a) + NLA_HDRLEN))
#define ATTR_LEN(a) ((a)->nla_len - NLA_HDRLEN)

static uint32_t get_u32(const struct nlattr *a)
{
	uint32_t v;

	memcpy(&v, ATTR_DATA(a), sizeof(v));
	return v;
}

static uint64_t get_u64(const struct nlattr *a)
{
	uint64_t v;

	memcpy(&v, ATTR_DATA(a), sizeof(v));
	return v;
}

/*
 * Sends @m and reads until its ack or NLMSG_DONE, handing each reply's
 * attributes to @fn. Returns 0 or -errno with devtest_errmsg set from extack.
 */
static int nl_talk(struct msg *m, int max, reply_fn fn, void *arg)
{
	static char buf[BUF_SIZE];
	struct nlattr *tb[64];
	ssize_t n;

	devtest_errmsg[0] = 0;
	if (send(nl_fd, m->buf, m->nlh->nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		struct nlmsghdr *h;

		n = recv(nl_fd, buf, sizeof(buf), 0);
		if (n < 0)
			return -errno;
		for (h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != m->nlh->nlmsg_seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				if (e->error && (h->nlmsg_flags & NLM_F_ACK_TLVS)) {
					struct nlattr *at[NLMSGERR_ATTR_MAX + 1];
					size_t off = sizeof(*e);

					if (!(h->nlmsg_flags & NLM_F_CAPPED))
						off += e->msg.nlmsg_len - NLMSG_HDRLEN;
					parse_attrs(at, NLMSGERR_ATTR_MAX, (char *)e + off,
						    h->nlmsg_len - NLMSG_HDRLEN - off);
					if (at[NLMSGERR_ATTR_MSG])
						snprintf(devtest_errmsg, sizeof(devtest_errmsg), "%s",
							 (char *)ATTR_DATA(at[NLMSGERR_ATTR_MSG]));
				}
				return e->error;
			}
			if (fn && max < 64) {
				cur_attrs = (char *)NLMSG_DATA(h) + GENL_HDRLEN;
				cur_len = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
				parse_attrs(tb, max, cur_attrs, cur_len);
				fn(tb, max, arg);
			}
		}
	}
}

/* Walks every attribute of a reply (multi-attr nests included). */
static void for_each_attr(int type, void (*fn)(struct nlattr *a, void *arg), void *arg)
{
	struct nlattr *a = cur_attrs;
	int len = cur_len;

	for (; len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len), a = (void *)((char *)a + NLA_ALIGN(a->nla_len))) {
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			fn(a, arg);
	}
}

static void family_cb(struct nlattr **tb, int max, void *arg)
{
	(void)max;
	(void)arg;
	if (tb[CTRL_ATTR_FAMILY_ID])
		memcpy(&family, ATTR_DATA(tb[CTRL_ATTR_FAMILY_ID]), sizeof(family));
}

int devtest_nl_family(void)
{
	struct msg m;
	int err;

	err = nl_open();
	if (err || family)
		return err;
	msg_init(&m, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY);
	msg_put(&m, CTRL_ATTR_FAMILY_NAME, VGPU_FAMILY_NAME, sizeof(VGPU_FAMILY_NAME));
	err = nl_talk(&m, CTRL_ATTR_MAX, family_cb, NULL);
	if (!err && !family)
		err = -ENOENT;
	return err;
}

void devtest_nl_forget(void)
{
	nl_fd = -1;
	family = 0;
}

/* ---- steps ---- */

static void register_gpu_cb(struct nlattr *a, void *arg)
{
	struct nlattr *g[VGPU_A_PROC_GPU_MAX + 1];

	(void)arg;
	parse_attrs(g, VGPU_A_PROC_GPU_MAX, ATTR_DATA(a), ATTR_LEN(a));
	if (!g[VGPU_A_PROC_GPU_INDEX] || !g[VGPU_A_PROC_GPU_VRAM])
		return;
	printf("gpu index=%u vram=%" PRIu64, get_u32(g[VGPU_A_PROC_GPU_INDEX]),
	       get_u64(g[VGPU_A_PROC_GPU_VRAM]));
	if (g[VGPU_A_PROC_GPU_VRAM_MAX])
		printf(" vram_max=%" PRIu64, get_u64(g[VGPU_A_PROC_GPU_VRAM_MAX]));
	printf(" denied=%d", g[VGPU_A_PROC_GPU_DENIED] != NULL);
	if (g[VGPU_A_PROC_GPU_UUID])
		printf(" uuid=%s", (char *)ATTR_DATA(g[VGPU_A_PROC_GPU_UUID]));
	printf("\n");
}

/* GPUs the following proc-registers ask the module to choose (0: none). */
static uint32_t devtest_gpus_auto;

void devtest_set_gpus_auto(uint32_t n)
{
	devtest_gpus_auto = n;
}

/* " gpus=0x5" when the module chose GPUs for the process. */
static void print_chosen(struct nlattr **tb)
{
	if (tb[VGPU_A_PROC_GPUS])
		printf(" gpus=%#" PRIx64, get_u64(tb[VGPU_A_PROC_GPUS]));
}

static void register_cb(struct nlattr **tb, int max, void *arg)
{
	(void)max;
	if (arg)	/* quiet */
		return;
	printf("registered pid=%u", tb[VGPU_A_PROC_PID] ? get_u32(tb[VGPU_A_PROC_PID]) : 0);
	if (tb[VGPU_A_PROC_TENANT])
		printf(" tenant=%s tenant_id=%u", (char *)ATTR_DATA(tb[VGPU_A_PROC_TENANT]),
		       tb[VGPU_A_PROC_TENANT_ID] ? get_u32(tb[VGPU_A_PROC_TENANT_ID]) : 0);
	else
		printf(" tenant=-");
	if (tb[VGPU_A_PROC_DEFAULT_POLICY])
		printf(" policy=%s", get_u32(tb[VGPU_A_PROC_DEFAULT_POLICY]) ? "deny" : "allow");
	print_chosen(tb);
	printf(" page_registered=%u\n", devtest_page ? devtest_page->registered : 0);
	if (tb[VGPU_A_PROC_CPUS] || tb[VGPU_A_PROC_MEMS])
		printf("placement cpus=%s mems=%s\n",
		       tb[VGPU_A_PROC_CPUS] ? (char *)ATTR_DATA(tb[VGPU_A_PROC_CPUS]) : "-",
		       tb[VGPU_A_PROC_MEMS] ? (char *)ATTR_DATA(tb[VGPU_A_PROC_MEMS]) : "-");
	for_each_attr(VGPU_A_PROC_GPU, register_gpu_cb, NULL);
}

int devtest_step_register_fd(int fd, bool quiet)
{
	struct msg m;
	uint32_t v = fd;
	int err;

	err = devtest_nl_family();
	if (err)
		return err;
	msg_init(&m, family, 0, VGPU_CMD_PROC_REGISTER);
	msg_put(&m, VGPU_A_PROC_FD, &v, sizeof(v));
	if (devtest_gpus_auto)
		msg_put(&m, VGPU_A_PROC_GPUS_AUTO, &devtest_gpus_auto, sizeof(devtest_gpus_auto));
	return nl_talk(&m, VGPU_A_PROC_MAX, register_cb, quiet ? (void *)1 : NULL);
}

int devtest_step_register(bool quiet)
{
	int err = devtest_step_open();

	return err ? err : devtest_step_register_fd(devtest_dev_fd, quiet);
}

static void proc_gpu_cb(struct nlattr *a, void *arg)
{
	struct nlattr *g[VGPU_A_PROC_GPU_MAX + 1];

	(void)arg;
	parse_attrs(g, VGPU_A_PROC_GPU_MAX, ATTR_DATA(a), ATTR_LEN(a));
	if (!g[VGPU_A_PROC_GPU_INDEX] || !g[VGPU_A_PROC_GPU_VRAM_USED] ||
	    !g[VGPU_A_PROC_GPU_VRAM_BUDGET])
		return;
	printf(" gpu%u_used=%" PRIu64 " gpu%u_budget=%" PRIu64,
	       get_u32(g[VGPU_A_PROC_GPU_INDEX]), get_u64(g[VGPU_A_PROC_GPU_VRAM_USED]),
	       get_u32(g[VGPU_A_PROC_GPU_INDEX]), get_u64(g[VGPU_A_PROC_GPU_VRAM_BUDGET]));
}

static void procs_cb(struct nlattr **tb, int max, void *arg)
{
	(void)max;
	(void)arg;
	printf("proc pid=%u", tb[VGPU_A_PROC_PID] ? get_u32(tb[VGPU_A_PROC_PID]) : 0);
	printf(" tenant=%s", tb[VGPU_A_PROC_TENANT] ?
	       (char *)ATTR_DATA(tb[VGPU_A_PROC_TENANT]) : "-");
	print_chosen(tb);
	for_each_attr(VGPU_A_PROC_GPU, proc_gpu_cb, NULL);
	printf("\n");
}

static void usage_nest_cb(struct nlattr *a, void *arg)
{
	struct nlattr *u[VGPU_A_USAGE_MAX + 1];

	parse_attrs(u, VGPU_A_USAGE_MAX, ATTR_DATA(a), ATTR_LEN(a));
	if (!u[VGPU_A_USAGE_GPU] || !u[VGPU_A_USAGE_VRAM_CURRENT] || !u[VGPU_A_USAGE_VRAM_PEAK] ||
	    !u[VGPU_A_USAGE_VRAM_FAILURES] || !u[VGPU_A_USAGE_VRAM_BUDGET] ||
	    !u[VGPU_A_USAGE_VRAM_BYTE_SECONDS])
		return;
	printf("usage tenant=%s gpu=%u current=%" PRIu64 " peak=%" PRIu64 " failures=%" PRIu64
	       " budget=%" PRIu64 " byte_seconds=%" PRIu64, (const char *)arg,
	       get_u32(u[VGPU_A_USAGE_GPU]), get_u64(u[VGPU_A_USAGE_VRAM_CURRENT]),
	       get_u64(u[VGPU_A_USAGE_VRAM_PEAK]), get_u64(u[VGPU_A_USAGE_VRAM_FAILURES]),
	       get_u64(u[VGPU_A_USAGE_VRAM_BUDGET]), get_u64(u[VGPU_A_USAGE_VRAM_BYTE_SECONDS]));
	if (u[VGPU_A_USAGE_GPU_TIME_NS])
		printf(" gpu_time_ns=%" PRIu64, get_u64(u[VGPU_A_USAGE_GPU_TIME_NS]));
	if (u[VGPU_A_USAGE_THROTTLED_NS])
		printf(" throttled_ns=%" PRIu64, get_u64(u[VGPU_A_USAGE_THROTTLED_NS]));
	if (u[VGPU_A_USAGE_GRANTS])
		printf(" grants=%" PRIu64, get_u64(u[VGPU_A_USAGE_GRANTS]));
	printf("\n");
}

static void tenant_cb(struct nlattr **tb, int max, void *arg)
{
	const char *want = arg;
	const char *name;

	(void)max;
	if (!tb[VGPU_A_TENANT_NAME])
		return;
	name = ATTR_DATA(tb[VGPU_A_TENANT_NAME]);
	if (want && strcmp(want, name))
		return;
	printf("tenant name=%s\n", name);
	for_each_attr(VGPU_A_TENANT_USAGE, usage_nest_cb, (void *)name);
}

static void host_cb(struct nlattr **tb, int max, void *arg)
{
	struct vgpu_host_info *h = arg;

	(void)max;
	if (tb[VGPU_A_HOST_DEFAULT_POLICY])
		h->policy = get_u32(tb[VGPU_A_HOST_DEFAULT_POLICY]);
	if (tb[VGPU_A_HOST_PROCS])
		h->procs = get_u32(tb[VGPU_A_HOST_PROCS]);
}

int devtest_host_get(struct vgpu_host_info *h)
{
	struct msg m;
	int err = devtest_nl_family();

	if (err)
		return err;
	msg_init(&m, family, 0, VGPU_CMD_HOST_GET);
	return nl_talk(&m, VGPU_A_HOST_MAX, host_cb, h);
}

int devtest_step_host(void)
{
	struct vgpu_host_info h = { 0 };
	int err = devtest_host_get(&h);

	if (!err)
		printf("host default_policy=%s procs=%u\n", h.policy ? "deny" : "allow", h.procs);
	return err;
}

int devtest_step_host_set(const char *policy)
{
	uint32_t v;
	struct msg m;
	int err;

	if (!strcmp(policy, "allow"))
		v = VGPU_DEFAULT_POLICY_ALLOW;
	else if (!strcmp(policy, "deny"))
		v = VGPU_DEFAULT_POLICY_DENY;
	else
		return -EINVAL;
	err = devtest_nl_family();
	if (err)
		return err;
	msg_init(&m, family, 0, VGPU_CMD_HOST_SET);
	msg_put(&m, VGPU_A_HOST_DEFAULT_POLICY, &v, sizeof(v));
	return nl_talk(&m, VGPU_A_HOST_MAX, NULL, NULL);
}

int devtest_step_gpu_readd(uint32_t index, uint64_t vram)
{
	struct msg m;
	int err = devtest_nl_family();

	if (err)
		return err;
	msg_init(&m, family, 0, VGPU_CMD_GPU_DEL);
	msg_put(&m, VGPU_A_GPU_INDEX, &index, sizeof(index));
	err = nl_talk(&m, VGPU_A_GPU_MAX, NULL, NULL);
	if (err)
		return err;
	msg_init(&m, family, 0, VGPU_CMD_GPU_ADD);
	msg_put(&m, VGPU_A_GPU_INDEX, &index, sizeof(index));
	msg_put(&m, VGPU_A_GPU_VRAM, &vram, sizeof(vram));
	return nl_talk(&m, VGPU_A_GPU_MAX, NULL, NULL);
}

static int step_dump(uint8_t cmd, int max, reply_fn fn, void *arg)
{
	struct msg m;
	int err = devtest_nl_family();

	if (err)
		return err;
	msg_init(&m, family, NLM_F_DUMP, cmd);
	return nl_talk(&m, max, fn, arg);
}

int devtest_step_procs(void)
{
	return step_dump(VGPU_CMD_PROC_GET, VGPU_A_PROC_MAX, procs_cb, NULL);
}

int devtest_step_usage(const char *tenant)
{
	return step_dump(VGPU_CMD_TENANT_GET, VGPU_A_TENANT_MAX, tenant_cb, (void *)tenant);
}

/**
 * devtest_dump_quiet() - a dump whose replies are read and dropped
 * @cmd: VGPU_CMD_TENANT_GET or VGPU_CMD_PROC_GET
 *
 * Return: 0 or -errno.
 */
int devtest_dump_quiet(uint8_t cmd)
{
	return step_dump(cmd, 0, NULL, NULL);
}

int devtest_step_close_socket(void)
{
	if (nl_fd >= 0)
		close(nl_fd);
	nl_fd = -1;
	family = 0;
	return 0;
}
