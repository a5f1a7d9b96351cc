// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu-devtest: drive /dev/vgpu and the process netlink commands of
 * vgpu.ko the way libvgpu does, one scripted step at a time, for the
 * kernel tests.
 *
 *   vgpu-devtest STEP...
 *
 * Steps run in order. A step that fails prints "STEP errno=NAME msg=TEXT"
 * (msg is the kernel's extended ack, or empty) and ends the program with
 * status 1, unless written "try STEP", which goes on. Sizes take the
 * binary suffixes K, M, G, T. Every line printed is "WORD key=value ...".
 *
 *   open                 open /dev/vgpu (O_CLOEXEC) and map its page
 *   register             (open if needed,) open a netlink socket
 *                        (SOCK_CLOEXEC) and send proc-register with the fd
 *   register-fd FD       send proc-register naming FD (error tests)
 *   charge GPU BYTES     VGPU_IOC_CHARGE
 *   release GPU BYTES    VGPU_IOC_RELEASE
 *   meminfo GPU          VGPU_IOC_MEMINFO
 *   alloc GPU BYTES      libvgpu's fast path: take BYTES from avail with a
 *                        compare-and-swap, CHARGE when short, add to used
 *   free GPU BYTES       used -= BYTES, avail += BYTES, release the
 *                        surplus over twice the last keep
 *   page [GPU]           print the page (all non-empty slots, or one)
 *   poke GPU avail|used|bound|synced VALUE
 *                        write a raw value into the page
 *   procs                proc-get dump
 *   host                 host-get
 *   host-set allow|deny  host-set
 *   usage                tenant-get dump: "tenant name=T", then one line per
 *                        usage nest
 *   usage-of TENANT      the same for one tenant
 *   new-socket           open another netlink socket, leaving the old open
 *   new-dev              open and map another /dev/vgpu, leaving the old open
 *   mmap-check           try the mappings the module must refuse (private,
 *                        two pages, offset 8192, executable, a writable gate)
 *   gate [GPU]           map the gate page (read-only, offset 4096) if not
 *                        yet, print it: "gate version=V", then one line
 *                        per GPU with a grant or a seq (or GPU's)
 *   gate-check           the gate cannot be written: mprotect(PROT_WRITE)
 *                        and a write through /proc/self/mem are refused
 *   wait GPU [DRAIN_NS]  VGPU_IOC_WAIT: "wait gpu=G waited_us=U granted=X"
 *   alarm MS             deliver SIGALRM (no SA_RESTART) in MS ms
 *   run GPU MS [GAP_US]  for MS ms, launch like libvgpu's gate: when the
 *                        gate is open count a launch in the page and sleep
 *                        GAP_US (default 500), else WAIT; prints launches,
 *                        waits and the time spent waiting
 *   close-socket         close the netlink socket
 *   close-dev            unmap and close /dev/vgpu
 *   hold [SECONDS]       start two threads (unless "threads" did) that sleep
 *                        too, print "holding pid=P" and sleep (default:
 *                        forever)
 *   threads N            start N threads that sleep forever
 *   placement            VGPU_IOC_PLACEMENT: "placement seq=S flags=F mems=L"
 *                        (L a node list, or -)
 *   wait-placement SECONDS  wait until the page's placement_seq moves, then
 *                        do "placement" (ETIMEDOUT when it does not)
 *   fork-hold SECONDS    fork a child that keeps every fd, tries a CHARGE
 *                        (prints "child charge errno=..."), then sleeps
 *   bench-register N     N rounds of open, mmap, register, close; prints
 *                        the latency of proc-register
 *   parallel N           N processes register at once and hold until all
 *                        have; prints latencies and the procs counts
 *   exec PROG [ARG...]   exec PROG with the rest of the arguments
 */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "../../uapi/vgpu.h"
#include "../../uapi/vgpu_dev.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

#define BUF_SIZE 65536

static int dev_fd = -1;
static struct vgpu_dev_page *page;
static const struct vgpu_dev_gate *gate;
static int nl_fd = -1;
static uint16_t family;
static uint32_t nl_seq;
static uint64_t last_keep[VGPU_DEV_GPUS];
static char errmsg[256];

/* ---- small helpers ---- */

static const char *errname(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EBADF: return "EBADF";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOSPC: return "ENOSPC";
	case ENOTTY: return "ENOTTY";
	case EAGAIN: return "EAGAIN";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EINTR: return "EINTR";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EIO: return "EIO";
	default: {
		static char buf[16];

		snprintf(buf, sizeof(buf), "E%d", e);
		return buf;
	}
	}
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long n;
	int shift = 0;

	errno = 0;
	n = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	case 'T': case 't': shift = 40; end++; break;
	}
	if (*end || (shift && n > (UINT64_MAX >> shift)))
		return -1;
	*v = (uint64_t)n << shift;
	return 0;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static _Atomic int64_t *slot_avail(uint32_t gpu)
{
	return (_Atomic int64_t *)&page->gpu[gpu].avail;
}

static _Atomic uint64_t *slot_used(uint32_t gpu)
{
	return (_Atomic uint64_t *)&page->gpu[gpu].used;
}

/* ---- netlink ---- */

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
 * attributes to @fn. Returns 0 or -errno with errmsg set from extack.
 */
static int nl_talk(struct msg *m, int max, reply_fn fn, void *arg)
{
	static char buf[BUF_SIZE];
	struct nlattr *tb[64];
	ssize_t n;

	errmsg[0] = 0;
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
						snprintf(errmsg, sizeof(errmsg), "%s",
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

static void family_cb(struct nlattr **tb, int max, void *arg)
{
	(void)max;
	(void)arg;
	if (tb[CTRL_ATTR_FAMILY_ID])
		memcpy(&family, ATTR_DATA(tb[CTRL_ATTR_FAMILY_ID]), sizeof(family));
}

static int nl_family(void)
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

/* ---- steps ---- */

static int step_open(void)
{
	void *p;

	if (dev_fd >= 0)
		return 0;
	dev_fd = open(VGPU_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (dev_fd < 0)
		return -errno;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, dev_fd, 0);
	if (p == MAP_FAILED) {
		int err = -errno;

		close(dev_fd);
		dev_fd = -1;
		return err;
	}
	page = p;
	return 0;
}

static void for_each_attr(int type, void (*fn)(struct nlattr *a, void *arg), void *arg);

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
	printf(" page_registered=%u\n", page ? page->registered : 0);
	if (tb[VGPU_A_PROC_CPUS] || tb[VGPU_A_PROC_MEMS])
		printf("placement cpus=%s mems=%s\n",
		       tb[VGPU_A_PROC_CPUS] ? (char *)ATTR_DATA(tb[VGPU_A_PROC_CPUS]) : "-",
		       tb[VGPU_A_PROC_MEMS] ? (char *)ATTR_DATA(tb[VGPU_A_PROC_MEMS]) : "-");
	for_each_attr(VGPU_A_PROC_GPU, register_gpu_cb, NULL);
}

static int step_register_fd(int fd, bool quiet)
{
	struct msg m;
	uint32_t v = fd;
	int err;

	err = nl_family();
	if (err)
		return err;
	msg_init(&m, family, 0, VGPU_CMD_PROC_REGISTER);
	msg_put(&m, VGPU_A_PROC_FD, &v, sizeof(v));
	return nl_talk(&m, VGPU_A_PROC_MAX, register_cb, quiet ? (void *)1 : NULL);
}

static int step_register(bool quiet)
{
	int err = step_open();

	return err ? err : step_register_fd(dev_fd, quiet);
}

static int check_gpu(uint32_t gpu)
{
	return gpu < VGPU_DEV_GPUS ? 0 : -EINVAL;
}

static int do_charge(uint32_t gpu, uint64_t bytes, struct vgpu_dev_charge *c)
{
	memset(c, 0, sizeof(*c));
	c->gpu = gpu;
	c->bytes = bytes;
	if (dev_fd < 0)
		return -EBADF;
	if (ioctl(dev_fd, VGPU_IOC_CHARGE, c))
		return -errno;
	if (gpu < VGPU_DEV_GPUS)
		last_keep[gpu] = c->keep;
	return 0;
}

static int do_release(uint32_t gpu, uint64_t bytes, struct vgpu_dev_charge *c)
{
	memset(c, 0, sizeof(*c));
	c->gpu = gpu;
	c->bytes = bytes;
	if (dev_fd < 0)
		return -EBADF;
	return ioctl(dev_fd, VGPU_IOC_RELEASE, c) ? -errno : 0;
}

static int64_t avail_of(uint32_t gpu)
{
	return gpu < VGPU_DEV_GPUS && page ? (int64_t)*slot_avail(gpu) : 0;
}

static uint64_t used_of(uint32_t gpu)
{
	return gpu < VGPU_DEV_GPUS && page ? (uint64_t)*slot_used(gpu) : 0;
}

static int step_charge(uint32_t gpu, uint64_t bytes)
{
	struct vgpu_dev_charge c;
	int err = do_charge(gpu, bytes, &c);

	if (!err)
		printf("charge gpu=%u bytes=%" PRIu64 " keep=%" PRIu64 " avail=%" PRId64 "\n",
		       gpu, bytes, (uint64_t)c.keep, avail_of(gpu));
	return err;
}

static int step_release(uint32_t gpu, uint64_t bytes)
{
	struct vgpu_dev_charge c;
	int err = do_release(gpu, bytes, &c);

	if (!err)
		printf("release gpu=%u bytes=%" PRIu64 " avail=%" PRId64 "\n",
		       gpu, (uint64_t)c.bytes, avail_of(gpu));
	return err;
}

static int step_meminfo(uint32_t gpu)
{
	struct vgpu_dev_meminfo mi = { .gpu = gpu };

	if (dev_fd < 0)
		return -EBADF;
	if (ioctl(dev_fd, VGPU_IOC_MEMINFO, &mi))
		return -errno;
	printf("meminfo gpu=%u capacity=%llu limit=%llu tenant_used=%llu room=%llu\n", gpu,
	       (unsigned long long)mi.capacity, (unsigned long long)mi.limit,
	       (unsigned long long)mi.tenant_used, (unsigned long long)mi.room);
	return 0;
}

static int step_alloc(uint32_t gpu, uint64_t bytes)
{
	struct vgpu_dev_charge c;
	int charged = 0, err;
	int64_t a;

	if (!page || check_gpu(gpu))
		return -EINVAL;
	for (;;) {
		a = *slot_avail(gpu);
		if (a >= 0 && (uint64_t)a >= bytes) {
			if (__atomic_compare_exchange_n((int64_t *)slot_avail(gpu), &a,
							a - (int64_t)bytes, false,
							__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
				break;
			continue;
		}
		if (charged++ > 8)
			return -EAGAIN;
		err = do_charge(gpu, bytes, &c);
		if (err)
			return err;
	}
	*slot_used(gpu) += bytes;
	printf("alloc gpu=%u bytes=%" PRIu64 " charges=%d keep=%" PRIu64 " avail=%" PRId64
	       " used=%" PRIu64 "\n", gpu, bytes, charged, last_keep[gpu], avail_of(gpu),
	       used_of(gpu));
	return 0;
}

static int step_free(uint32_t gpu, uint64_t bytes)
{
	struct vgpu_dev_charge c = { 0 };
	int64_t a;
	int err;

	if (!page || check_gpu(gpu) || used_of(gpu) < bytes)
		return -EINVAL;
	*slot_used(gpu) -= bytes;
	*slot_avail(gpu) += (int64_t)bytes;
	a = *slot_avail(gpu);
	if (a > 0 && (uint64_t)a > 2 * last_keep[gpu]) {
		err = do_release(gpu, (uint64_t)a - 2 * last_keep[gpu], &c);
		if (err)
			return err;
	}
	printf("free gpu=%u bytes=%" PRIu64 " released=%" PRIu64 " avail=%" PRId64
	       " used=%" PRIu64 "\n", gpu, bytes, (uint64_t)c.bytes, avail_of(gpu), used_of(gpu));
	return 0;
}

static int step_page(int gpu)
{
	uint32_t i;

	if (!page)
		return -EBADF;
	printf("page version=%u registered=%u\n", page->version, page->registered);
	for (i = 0; i < VGPU_DEV_GPUS; i++) {
		if (gpu >= 0 ? (int)i != gpu : (!avail_of(i) && !used_of(i)))
			continue;
		printf("slot gpu=%u avail=%" PRId64 " used=%" PRIu64 "\n", i, avail_of(i),
		       used_of(i));
	}
	return 0;
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

struct host_info {
	uint32_t policy, procs;
};

static void host_cb(struct nlattr **tb, int max, void *arg)
{
	struct host_info *h = arg;

	(void)max;
	if (tb[VGPU_A_HOST_DEFAULT_POLICY])
		h->policy = get_u32(tb[VGPU_A_HOST_DEFAULT_POLICY]);
	if (tb[VGPU_A_HOST_PROCS])
		h->procs = get_u32(tb[VGPU_A_HOST_PROCS]);
}

static int host_get(struct host_info *h)
{
	struct msg m;
	int err = nl_family();

	if (err)
		return err;
	msg_init(&m, family, 0, VGPU_CMD_HOST_GET);
	return nl_talk(&m, VGPU_A_HOST_MAX, host_cb, h);
}

static int step_host(void)
{
	struct host_info h = { 0 };
	int err = host_get(&h);

	if (!err)
		printf("host default_policy=%s procs=%u\n", h.policy ? "deny" : "allow", h.procs);
	return err;
}

static int step_host_set(const char *policy)
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
	err = nl_family();
	if (err)
		return err;
	msg_init(&m, family, 0, VGPU_CMD_HOST_SET);
	msg_put(&m, VGPU_A_HOST_DEFAULT_POLICY, &v, sizeof(v));
	return nl_talk(&m, VGPU_A_HOST_MAX, NULL, NULL);
}

static int step_dump(uint8_t cmd, int max, reply_fn fn, void *arg)
{
	struct msg m;
	int err = nl_family();

	if (err)
		return err;
	msg_init(&m, family, NLM_F_DUMP, cmd);
	return nl_talk(&m, max, fn, arg);
}

static int step_close_socket(void)
{
	if (nl_fd >= 0)
		close(nl_fd);
	nl_fd = -1;
	family = 0;
	return 0;
}

static int step_close_dev(void)
{
	if (gate)
		munmap((void *)gate, 4096);
	gate = NULL;
	if (page)
		munmap(page, 4096);
	page = NULL;
	if (dev_fd >= 0)
		close(dev_fd);
	dev_fd = -1;
	return 0;
}

static int step_mmap_check(void)
{
	static const struct {
		const char *name;
		size_t len;
		int prot, flags;
		off_t off;
	} bad[] = {
		{ "private", 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, 0 },
		{ "two_pages", 8192, PROT_READ | PROT_WRITE, MAP_SHARED, 0 },
		{ "offset", 4096, PROT_READ | PROT_WRITE, MAP_SHARED, 8192 },
		{ "exec", 4096, PROT_READ | PROT_EXEC, MAP_SHARED, 0 },
		{ "gate_write", 4096, PROT_READ | PROT_WRITE, MAP_SHARED, VGPU_DEV_GATE_OFFSET },
		{ "gate_exec", 4096, PROT_READ | PROT_EXEC, MAP_SHARED, VGPU_DEV_GATE_OFFSET },
		{ "gate_two_pages", 8192, PROT_READ, MAP_SHARED, VGPU_DEV_GATE_OFFSET },
	};
	unsigned int i, refused = 0;
	void *p;

	if (dev_fd < 0)
		return -EBADF;
	printf("mmap-check");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = mmap(NULL, bad[i].len, bad[i].prot, bad[i].flags, dev_fd, bad[i].off);
		if (p == MAP_FAILED) {
			printf(" %s=%s", bad[i].name, errname(errno));
			refused++;
		} else {
			printf(" %s=mapped", bad[i].name);
			munmap(p, bad[i].len);
		}
	}
	printf("\n");
	return refused == i ? 0 : -EINVAL;
}

static unsigned int nthreads;

static void *thread_sleep(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static int step_threads(unsigned long n)
{
	pthread_t t;
	int err;

	for (; n; n--) {
		err = pthread_create(&t, NULL, thread_sleep, NULL);
		if (err)
			return -err;
		pthread_detach(t);
		nthreads++;
	}
	return 0;
}

static int step_placement(void)
{
	struct vgpu_dev_placement pl;
	unsigned int i, n = 0;

	memset(&pl, 0, sizeof(pl));
	if (dev_fd < 0)
		return -EBADF;
	if (ioctl(dev_fd, VGPU_IOC_PLACEMENT, &pl))
		return -errno;
	printf("placement seq=%u flags=%u mems=", pl.seq, pl.flags);
	for (i = 0; i < sizeof(pl.mems) * 8; i++) {
		if (pl.mems[i / 64] & (1ULL << (i % 64)))
			printf("%s%u", n++ ? "," : "", i);
	}
	printf("%s\n", n ? "" : "-");
	return 0;
}

static int step_wait_placement(long secs)
{
	uint32_t seq;
	double end = now_us() + secs * 1e6;

	if (!page)
		return -EBADF;
	seq = __atomic_load_n(&page->placement_seq, __ATOMIC_ACQUIRE);
	while (__atomic_load_n(&page->placement_seq, __ATOMIC_ACQUIRE) == seq) {
		if (now_us() > end)
			return -ETIMEDOUT;
		usleep(20000);
	}
	return step_placement();
}

static int gate_map(void)
{
	void *p;

	if (gate)
		return 0;
	if (dev_fd < 0)
		return -EBADF;
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, dev_fd, VGPU_DEV_GATE_OFFSET);
	if (p == MAP_FAILED)
		return -errno;
	gate = p;
	return 0;
}

static uint32_t granted_of(uint32_t gpu)
{
	return __atomic_load_n(&gate->gpu[gpu].granted, __ATOMIC_ACQUIRE);
}

static int step_gate(int gpu)
{
	uint32_t i;
	int err = gate_map();

	if (err)
		return err;
	printf("gate version=%u\n", gate->version);
	for (i = 0; i < VGPU_DEV_GPUS; i++) {
		if (gpu >= 0 ? (int)i != gpu : (!gate->gpu[i].granted && !gate->gpu[i].seq))
			continue;
		printf("gate gpu=%u granted=%u seq=%u\n", i, granted_of(i), gate->gpu[i].seq);
	}
	return 0;
}

static int step_gate_check(void)
{
	int err = gate_map(), fd, mp, wr;
	uint32_t one = 1;

	if (err)
		return err;
	mp = mprotect((void *)gate, 4096, PROT_READ | PROT_WRITE) ? errno : 0;
	fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	wr = 0;
	if (fd >= 0) {
		if (pwrite(fd, &one, sizeof(one), (off_t)(uintptr_t)&gate->gpu[0].granted) < 0)
			wr = errno;
		close(fd);
	}
	printf("gate-check mprotect=%s proc_mem=%s\n", mp ? errname(mp) : "allowed",
	       wr ? errname(wr) : "written");
	return mp && wr ? 0 : -EINVAL;
}

static int do_wait(uint32_t gpu, uint64_t drain_ns, uint64_t *waited_ns)
{
	struct vgpu_dev_wait w = { .gpu = gpu, .drain_ns = drain_ns };

	if (dev_fd < 0)
		return -EBADF;
	if (ioctl(dev_fd, VGPU_IOC_WAIT, &w))
		return -errno;
	*waited_ns = w.waited_ns;
	return 0;
}

static int step_wait(uint32_t gpu, uint64_t drain_ns)
{
	uint64_t waited = 0;
	int err = gate_map();

	if (!err)
		err = do_wait(gpu, drain_ns, &waited);
	if (err)
		return err;
	printf("wait gpu=%u waited_us=%" PRIu64 " granted=%u seq=%u\n", gpu, waited / 1000,
	       gpu < VGPU_DEV_GPUS ? granted_of(gpu) : 0,
	       gpu < VGPU_DEV_GPUS ? gate->gpu[gpu].seq : 0);
	return 0;
}

static void on_alarm(int sig)
{
	(void)sig;
}

static int step_alarm(uint64_t ms)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct itimerval it = { .it_value = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000 } };

	if (sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &it, NULL))
		return -errno;
	return 0;
}

/* libvgpu's gate (libvgpu/gate.c) with a launch that sleeps GAP_US. */
static int step_run(uint32_t gpu, uint64_t ms, uint64_t gap_us)
{
	uint64_t launches = 0, waits = 0, waited = 0, w;
	double end = now_us() + ms * 1000.0, t0 = now_us();
	struct timespec gap = { (time_t)(gap_us / 1000000), (long)(gap_us % 1000000) * 1000 };
	int err = gate_map();

	if (err)
		return err;
	if (!page || check_gpu(gpu))
		return -EINVAL;
	while (now_us() < end) {
		if (!granted_of(gpu)) {
			err = do_wait(gpu, 0, &w);
			if (err == -EINTR)
				continue;
			if (err)
				return err;
			waits++;
			waited += w;
		}
		__atomic_fetch_add(&page->gpu[gpu].launches, 1, __ATOMIC_RELAXED);
		launches++;
		nanosleep(&gap, NULL);
	}
	printf("run gpu=%u ms=%.0f launches=%" PRIu64 " waits=%" PRIu64 " waited_ms=%" PRIu64
	       "\n", gpu, (now_us() - t0) / 1000, launches, waits, waited / 1000000);
	return 0;
}

static int step_hold(long secs)
{
	int err;

	if (!nthreads) {
		err = step_threads(2);
		if (err)
			return err;
	}
	printf("holding pid=%d\n", getpid());
	fflush(stdout);
	if (secs < 0)
		for (;;)
			pause();
	sleep(secs);
	return 0;
}

static int step_fork_hold(long secs)
{
	struct vgpu_dev_charge c;
	pid_t pid;
	int err;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid)
		return 0;
	err = do_charge(0, 4096, &c);
	printf("child charge errno=%s\n", err ? errname(-err) : "0");
	fflush(stdout);
	sleep(secs);
	_exit(0);
}

static int step_bench(long n)
{
	double t, sum = 0, max = 0;
	long i;
	int err;

	for (i = 0; i < n; i++) {
		err = step_open();
		if (err)
			return err;
		err = nl_family();
		if (err)
			return err;
		t = now_us();
		err = step_register_fd(dev_fd, true);
		t = now_us() - t;
		if (err)
			return err;
		sum += t;
		if (t > max)
			max = t;
		step_close_socket();
		step_close_dev();
	}
	printf("bench-register n=%ld avg_us=%.1f max_us=%.1f\n", n, n ? sum / n : 0, max);
	return 0;
}

static int step_parallel(long n)
{
	int res[2], go[2];
	struct host_info before = { 0 }, during = { 0 }, after = { 0 };
	double sum = 0, max = 0, t;
	long i, ok = 0;
	int err;

	err = host_get(&before);
	if (err)
		return err;
	if (pipe(res) || pipe(go))
		return -errno;
	fflush(stdout);
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return -errno;
		if (!pid) {
			char c;

			close(res[0]);
			close(go[1]);
			step_close_socket();
			dev_fd = -1;
			gate = NULL;
			page = NULL;
			err = step_open();
			if (!err)
				err = nl_family();
			t = now_us();
			if (!err)
				err = step_register_fd(dev_fd, true);
			t = now_us() - t;
			if (err)
				t = -1;
			if (write(res[1], &t, sizeof(t)) != sizeof(t))
				_exit(1);
			while (read(go[0], &c, 1) > 0)
				;
			_exit(0);
		}
	}
	close(res[1]);
	close(go[0]);
	for (i = 0; i < n && read(res[0], &t, sizeof(t)) == sizeof(t); i++) {
		if (t < 0)
			continue;
		ok++;
		sum += t;
		if (t > max)
			max = t;
	}
	host_get(&during);
	close(go[1]);
	close(res[0]);
	while (wait(NULL) > 0)
		;
	host_get(&after);
	printf("parallel n=%ld ok=%ld avg_us=%.1f max_us=%.1f procs_before=%u procs_during=%u"
	       " procs_after=%u\n", n, ok, ok ? sum / ok : 0, max, before.procs, during.procs,
	       after.procs);
	return ok == n ? 0 : -EAGAIN;
}

/* ---- main ---- */

static int usage(void)
{
	fputs("usage: vgpu-devtest STEP...  (see the source's header for the steps)\n", stderr);
	return 2;
}

#define NEED(k) do { if (i + (k) >= argc) return usage(); } while (0)

int main(int argc, char **argv)
{
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return usage();
	for (i = 1; i < argc; i++) {
		bool try = false;
		const char *step;
		uint64_t a = 0, b = 0;
		int err;

		if (!strcmp(argv[i], "try")) {
			try = true;
			NEED(1);
			i++;
		}
		step = argv[i];
		if (!strcmp(step, "open")) {
			err = step_open();
		} else if (!strcmp(step, "register")) {
			err = step_register(false);
		} else if (!strcmp(step, "register-fd")) {
			NEED(1);
			err = parse_u64(argv[++i], &a) ? -EINVAL : step_register_fd((int)a, false);
		} else if (!strcmp(step, "charge") || !strcmp(step, "release") ||
			   !strcmp(step, "alloc") || !strcmp(step, "free")) {
			NEED(2);
			if (parse_u64(argv[i + 1], &a) || parse_u64(argv[i + 2], &b))
				return usage();
			i += 2;
			if (!strcmp(step, "charge"))
				err = step_charge((uint32_t)a, b);
			else if (!strcmp(step, "release"))
				err = step_release((uint32_t)a, b);
			else if (!strcmp(step, "alloc"))
				err = step_alloc((uint32_t)a, b);
			else
				err = step_free((uint32_t)a, b);
		} else if (!strcmp(step, "meminfo")) {
			NEED(1);
			if (parse_u64(argv[++i], &a))
				return usage();
			err = step_meminfo((uint32_t)a);
		} else if (!strcmp(step, "page")) {
			int gpu = -1;

			if (i + 1 < argc && !parse_u64(argv[i + 1], &a)) {
				gpu = (int)a;
				i++;
			}
			err = step_page(gpu);
		} else if (!strcmp(step, "poke")) {
			NEED(3);
			if (parse_u64(argv[i + 1], &a) || parse_u64(argv[i + 3], &b) || !page ||
			    a >= VGPU_DEV_GPUS)
				return usage();
			if (!strcmp(argv[i + 2], "avail"))
				*slot_avail(a) = (int64_t)b;
			else if (!strcmp(argv[i + 2], "used"))
				*slot_used(a) = b;
			else if (!strcmp(argv[i + 2], "bound"))
				__atomic_store_n(&page->gpu[a].bound, b, __ATOMIC_RELAXED);
			else if (!strcmp(argv[i + 2], "synced"))
				__atomic_store_n(&page->gpu[a].synced, b, __ATOMIC_RELAXED);
			else
				return usage();
			i += 3;
			err = 0;
		} else if (!strcmp(step, "procs")) {
			err = step_dump(VGPU_CMD_PROC_GET, VGPU_A_PROC_MAX, procs_cb, NULL);
		} else if (!strcmp(step, "host")) {
			err = step_host();
		} else if (!strcmp(step, "host-set")) {
			NEED(1);
			err = step_host_set(argv[++i]);
		} else if (!strcmp(step, "usage")) {
			err = step_dump(VGPU_CMD_TENANT_GET, VGPU_A_TENANT_MAX, tenant_cb, NULL);
		} else if (!strcmp(step, "usage-of")) {
			NEED(1);
			i++;
			err = step_dump(VGPU_CMD_TENANT_GET, VGPU_A_TENANT_MAX, tenant_cb, argv[i]);
		} else if (!strcmp(step, "new-socket")) {
			nl_fd = -1;
			family = 0;
			err = nl_family();
		} else if (!strcmp(step, "new-dev")) {
			dev_fd = -1;
			page = NULL;
			gate = NULL;
			err = step_open();
		} else if (!strcmp(step, "gate")) {
			int gpu = -1;

			if (i + 1 < argc && !parse_u64(argv[i + 1], &a)) {
				gpu = (int)a;
				i++;
			}
			err = step_gate(gpu);
		} else if (!strcmp(step, "gate-check")) {
			err = step_gate_check();
		} else if (!strcmp(step, "wait")) {
			NEED(1);
			if (parse_u64(argv[++i], &a))
				return usage();
			if (i + 1 < argc && !parse_u64(argv[i + 1], &b))
				i++;
			else
				b = 0;
			err = step_wait((uint32_t)a, b);
		} else if (!strcmp(step, "alarm")) {
			NEED(1);
			if (parse_u64(argv[++i], &a))
				return usage();
			err = step_alarm(a);
		} else if (!strcmp(step, "run")) {
			NEED(2);
			if (parse_u64(argv[i + 1], &a) || parse_u64(argv[i + 2], &b))
				return usage();
			i += 2;
			{
				uint64_t gap = 500;

				if (i + 1 < argc && !parse_u64(argv[i + 1], &gap))
					i++;
				err = step_run((uint32_t)a, b, gap);
			}
		} else if (!strcmp(step, "mmap-check")) {
			err = step_mmap_check();
		} else if (!strcmp(step, "close-socket")) {
			err = step_close_socket();
		} else if (!strcmp(step, "close-dev")) {
			err = step_close_dev();
		} else if (!strcmp(step, "hold")) {
			long secs = -1;

			if (i + 1 < argc && !parse_u64(argv[i + 1], &a)) {
				secs = (long)a;
				i++;
			}
			err = step_hold(secs);
		} else if (!strcmp(step, "threads") || !strcmp(step, "wait-placement")) {
			NEED(1);
			if (parse_u64(argv[++i], &a))
				return usage();
			if (!strcmp(step, "threads"))
				err = step_threads((unsigned long)a);
			else
				err = step_wait_placement((long)a);
		} else if (!strcmp(step, "placement")) {
			err = step_placement();
		} else if (!strcmp(step, "fork-hold")) {
			NEED(1);
			if (parse_u64(argv[++i], &a))
				return usage();
			err = step_fork_hold((long)a);
		} else if (!strcmp(step, "bench-register") || !strcmp(step, "parallel")) {
			NEED(1);
			if (parse_u64(argv[i + 1], &a))
				return usage();
			i++;
			err = !strcmp(step, "parallel") ? step_parallel((long)a) : step_bench((long)a);
		} else if (!strcmp(step, "exec")) {
			NEED(1);
			fflush(stdout);
			execvp(argv[i + 1], argv + i + 1);
			err = -errno;
		} else {
			fprintf(stderr, "Error: unknown step \"%s\".\n", step);
			return usage();
		}
		if (err) {
			printf("%s errno=%s msg=%s\n", step, errname(-err), errmsg);
			errmsg[0] = 0;
			if (!try)
				return 1;
		}
	}
	return 0;
}
