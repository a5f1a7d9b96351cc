// SPDX-License-Identifier: GPL-2.0
/*
 * Raw generic netlink, just enough for libvgpu: no libnl, so that the
 * preload stays light. Requests are built by hand, replies walked with the
 * NLMSG_ and NLA_ macros. A receive timeout bounds every exchange.
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <stdlib.h>

#include "netlink.h"

#define VGPU_NL_BUF 16384

struct vgpu_nl_req {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char attrs[128];
};

static uint32_t vgpu_nl_seq;

int libvgpu_nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 5 };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

static void req_init(struct vgpu_nl_req *r, uint16_t type, uint16_t flags, uint8_t cmd,
		     uint8_t version)
{
	memset(r, 0, sizeof(*r));
	r->n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->n.nlmsg_type = type;
	r->n.nlmsg_flags = NLM_F_REQUEST | flags;
	r->n.nlmsg_seq = __atomic_add_fetch(&vgpu_nl_seq, 1, __ATOMIC_RELAXED);
	r->g.cmd = cmd;
	r->g.version = version;
}

static void req_put(struct vgpu_nl_req *r, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)&r->n + NLMSG_ALIGN(r->n.nlmsg_len));

	a->nla_type = type;
	a->nla_len = (uint16_t)NLA_HDRLEN + (uint16_t)len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->n.nlmsg_len = NLMSG_ALIGN(r->n.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static int req_send(int fd, struct vgpu_nl_req *r)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (sendto(fd, r, r->n.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return 0;
}

/*
 * Receive the answer to seq: cb is called for each data message; returns
 * 0 at the end (one reply for a do, NLMSG_DONE for a dump) or -errno.
 */
static int req_recv(int fd, uint32_t seq, int dump,
		    int (*cb)(const struct nlmsghdr *, void *), void *arg)
{
	char *buf = malloc(VGPU_NL_BUF);
	int rc = -EIO;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n = recv(fd, buf, VGPU_NL_BUF, 0);
		struct nlmsghdr *h;
		size_t left;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		left = (size_t)n;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_seq != seq)
				continue;	/* a stale answer to an earlier request */
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				rc = e->error;
				goto out;
			}
			if (h->nlmsg_type == NLMSG_DONE) {
				rc = 0;
				goto out;
			}
			rc = cb(h, arg);
			if (rc || !dump)
				goto out;
		}
	}
out:
	free(buf);
	return rc;
}

/* Walk the attributes of a genl message or of a nest. */
#define for_each_attr(a, start, len, left) \
	for ((a) = (const struct nlattr *)(start), (left) = (int)(len); \
	     (left) >= (int)NLA_HDRLEN && (a)->nla_len >= NLA_HDRLEN && (a)->nla_len <= (left); \
	     (left) -= NLA_ALIGN((a)->nla_len), \
	     (a) = (const struct nlattr *)((const char *)(a) + NLA_ALIGN((a)->nla_len)))

#define ATTR_TYPE(a) ((a)->nla_type & NLA_TYPE_MASK)
#define ATTR_DATA(a) ((const char *)(a) + NLA_HDRLEN)
#define ATTR_LEN(a) ((size_t)(a)->nla_len - NLA_HDRLEN)

static uint32_t attr_u32(const struct nlattr *a)
{
	uint32_t v = 0;

	memcpy(&v, ATTR_DATA(a), ATTR_LEN(a) < 4 ? ATTR_LEN(a) : 4);
	return v;
}

static uint64_t attr_u64(const struct nlattr *a)
{
	uint64_t v = 0;

	if (ATTR_LEN(a) >= 8)
		memcpy(&v, ATTR_DATA(a), 8);
	else
		v = attr_u32(a);
	return v;
}

static void attr_str(const struct nlattr *a, char *out, size_t size)
{
	size_t n = ATTR_LEN(a) < size - 1 ? ATTR_LEN(a) : size - 1;

	memcpy(out, ATTR_DATA(a), n);
	out[n] = 0;
}

static int family_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *a;
	int left;

	for_each_attr(a, (const char *)NLMSG_DATA(h) + GENL_HDRLEN,
		      h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), left)
		if (ATTR_TYPE(a) == CTRL_ATTR_FAMILY_ID) {
			uint16_t id;

			memcpy(&id, ATTR_DATA(a), sizeof(id));
			*(uint16_t *)arg = id;
			return 0;
		}
	return -ENOENT;
}

int libvgpu_nl_family(int fd, uint16_t *family)
{
	struct vgpu_nl_req r;
	int rc;

	req_init(&r, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, 1);
	req_put(&r, CTRL_ATTR_FAMILY_NAME, VGPU_FAMILY_NAME, sizeof(VGPU_FAMILY_NAME));
	rc = req_send(fd, &r);
	if (!rc)
		rc = req_recv(fd, r.n.nlmsg_seq, 0, family_cb, family);
	return rc;
}

static void parse_gpu(const struct nlattr *nest, struct vgpu_reg_gpu *g)
{
	const struct nlattr *a;
	int left;

	memset(g, 0, sizeof(*g));
	g->vram_max = UINT64_MAX;
	for_each_attr(a, ATTR_DATA(nest), ATTR_LEN(nest), left) {
		switch (ATTR_TYPE(a)) {
		case VGPU_A_PROC_GPU_INDEX: g->index = attr_u32(a); break;
		case VGPU_A_PROC_GPU_UUID: attr_str(a, g->uuid, sizeof(g->uuid)); break;
		case VGPU_A_PROC_GPU_VRAM: g->vram = attr_u64(a); break;
		case VGPU_A_PROC_GPU_VRAM_MAX: g->vram_max = attr_u64(a); break;
		case VGPU_A_PROC_GPU_DENIED: g->denied = 1; break;
		default: break;
		}
	}
}

int libvgpu_nl_parse_reg(const void *attrs, size_t len, struct vgpu_reg *out)
{
	const struct nlattr *a;
	int left;

	memset(out, 0, sizeof(*out));
	for_each_attr(a, attrs, len, left) {
		switch (ATTR_TYPE(a)) {
		case VGPU_A_PROC_PID: out->pid = attr_u32(a); break;
		case VGPU_A_PROC_HOST_PID: out->host_pid = attr_u32(a); break;
		case VGPU_A_PROC_TENANT:
			attr_str(a, out->tenant, sizeof(out->tenant));
			out->in_tenant = 1;
			break;
		case VGPU_A_PROC_TENANT_ID: out->tenant_id = attr_u32(a); break;
		case VGPU_A_PROC_DEFAULT_POLICY: out->policy = attr_u32(a); break;
		case VGPU_A_PROC_MEMS:
			attr_str(a, out->mems, sizeof(out->mems));
			out->has_mems = 1;
			break;
		case VGPU_A_PROC_CPUS:
			attr_str(a, out->cpus, sizeof(out->cpus));
			out->has_cpus = 1;
			break;
		case VGPU_A_PROC_GPUS:
			if (ATTR_LEN(a) >= sizeof(out->gpus)) {
				out->gpus = attr_u64(a);
				out->has_gpus = 1;
			}
			break;
		case VGPU_A_PROC_GPU:
			if (out->ngpu < VGPU_GPU_MAX) {
				parse_gpu(a, &out->gpu[out->ngpu]);
				if (out->gpu[out->ngpu].index < VGPU_GPU_MAX)
					out->ngpu++;
			}
			break;
		default: break;
		}
	}
	if (!out->host_pid)
		out->host_pid = out->pid;
	return 0;
}

static int reg_cb(const struct nlmsghdr *h, void *arg)
{
	return libvgpu_nl_parse_reg((const char *)NLMSG_DATA(h) + GENL_HDRLEN,
				    h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), arg);
}

int libvgpu_nl_register(int fd, uint16_t family, int devfd, uint32_t gpus_auto,
			struct vgpu_reg *out)
{
	struct vgpu_nl_req r;
	uint32_t v = (uint32_t)devfd;
	int rc;

	req_init(&r, family, 0, VGPU_CMD_PROC_REGISTER, VGPU_FAMILY_VERSION);
	req_put(&r, VGPU_A_PROC_FD, &v, sizeof(v));
	if (gpus_auto)
		req_put(&r, VGPU_A_PROC_GPUS_AUTO, &gpus_auto, sizeof(gpus_auto));
	rc = req_send(fd, &r);
	if (!rc)
		rc = req_recv(fd, r.n.nlmsg_seq, 0, reg_cb, out);
	return rc;
}

struct pids_arg {
	uint32_t tenant_id;
	struct vgpu_nl_pid *pids;
	int max, n;
};

static int pids_cb(const struct nlmsghdr *h, void *arg)
{
	struct pids_arg *p = arg;
	const struct nlattr *a;
	uint32_t pid = 0, host = 0, tid = 0;
	int left, has_tid = 0;

	for_each_attr(a, (const char *)NLMSG_DATA(h) + GENL_HDRLEN,
		      h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), left) {
		if (ATTR_TYPE(a) == VGPU_A_PROC_PID)
			pid = attr_u32(a);
		else if (ATTR_TYPE(a) == VGPU_A_PROC_HOST_PID)
			host = attr_u32(a);
		else if (ATTR_TYPE(a) == VGPU_A_PROC_TENANT_ID) {
			tid = attr_u32(a);
			has_tid = 1;
		}
	}
	if (has_tid && tid == p->tenant_id && pid && p->n < p->max) {
		p->pids[p->n].pid = pid;
		p->pids[p->n++].host = host ? host : pid;
	}
	return 0;
}

int libvgpu_nl_tenant_pids(int fd, uint16_t family, uint32_t tenant_id,
			   struct vgpu_nl_pid *pids, int max)
{
	struct pids_arg p = { tenant_id, pids, max, 0 };
	struct vgpu_nl_req r;
	int rc;

	req_init(&r, family, NLM_F_DUMP, VGPU_CMD_PROC_GET, VGPU_FAMILY_VERSION);
	rc = req_send(fd, &r);
	if (!rc)
		rc = req_recv(fd, r.n.nlmsg_seq, 1, pids_cb, &p);
	return rc ? rc : p.n;
}
