// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu-standin: the stand-in for vgpu.ko's interface on a host that cannot
 * load the module (Documentation/realgpu.md, "The stand-in").
 *
 *   vgpu-standin serve SOCKET [--break charge|view]
 *   vgpu-standin ctl SOCKET WORDS...    (ctl.c's controls)
 *   vgpu-standin probe SOCKET           (probe.c: NVML's GPUs, added)
 *
 * serve listens on SOCKET (a SOCK_SEQPACKET unix socket) for what
 * libvgpu-standin.so redirects (standin.h) and holds the GPUs, tenants,
 * processes, charges and grants (acct.c) behind the generic netlink
 * family (nl.c), one thread and poll(). --break makes it wrong on
 * purpose, for the tests that must see a step fail: "charge" applies no
 * limit, "view" reports none.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "standind.h"

#define STANDIN_PKT 65536

static struct standin standin_state;
static volatile sig_atomic_t standin_stop;

static void standin_on_signal(int sig)
{
	(void)sig;
	standin_stop = 1;
}

static int standin_listen(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "vgpu-standin: socket path too long (%zu bytes, at most %zu): %s\n",
			strlen(path), sizeof(sa.sun_path) - 1, path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	unlink(path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 64)) {
		fprintf(stderr, "vgpu-standin: cannot listen on %s: %s\n", path, strerror(errno));
		return -1;
	}
	return fd;
}

static void conn_close(struct standin *s, struct standin_conn *c)
{
	if (c->kind == STANDIN_DEV) {
		standin_unregister(s, c);
		munmap(c->page, 2 * 4096);
	}
	close(c->fd);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

static void conn_accept(struct standin *s, int lfd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	for (int i = 0; i < STANDIN_CONNS; i++) {
		struct standin_conn *c = &s->conn[i];

		if (c->fd >= 0)
			continue;
		memset(c, 0, sizeof(*c));
		c->fd = fd;
		if (!getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len))
			c->pid = cr.pid;
		return;
	}
	fprintf(stderr, "vgpu-standin: more than %d connections: one refused\n", STANDIN_CONNS);
	close(fd);
}

/* A device: its two pages in a memfd, mapped here and handed over. */
static int dev_hello(struct standin_conn *c)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, y = 'y';
	struct iovec iov = { &y, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	int mfd = memfd_create("vgpu-standin", MFD_CLOEXEC);
	void *p;

	if (mfd < 0 || ftruncate(mfd, 2 * 4096))
		goto fail;
	p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (p == MAP_FAILED)
		goto fail;
	c->page = p;
	c->gate = (struct vgpu_dev_gate *)((char *)p + VGPU_DEV_GATE_OFFSET);
	c->page->version = VGPU_DEV_PAGE_VERSION;
	c->gate->version = VGPU_DEV_PAGE_VERSION;
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &mfd, sizeof(int));
	if (sendmsg(c->fd, &m, MSG_NOSIGNAL) != 1)
		goto fail;
	close(mfd);
	return 0;
fail:
	fprintf(stderr, "vgpu-standin: a device for pid %d: %s\n", (int)c->pid, strerror(errno));
	if (mfd >= 0)
		close(mfd);
	send(c->fd, "n", 1, MSG_NOSIGNAL);
	return -1;
}

static int hello(struct standin_conn *c, const char *buf, ssize_t n)
{
	struct standin_hello h;

	if (n != (ssize_t)sizeof(h))
		return -1;
	memcpy(&h, buf, sizeof(h));
	if (h.magic != STANDIN_MAGIC || h.kind < STANDIN_DEV || h.kind > STANDIN_CTL)
		return -1;
	c->kind = (int)h.kind;
	return h.kind == STANDIN_DEV ? dev_hello(c) : 0;
}

/* Answer the waits whose tenant now holds their GPU. */
static void answer_waits(struct standin *s)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	for (int i = 0; i < STANDIN_CONNS; i++) {
		struct standin_conn *c = &s->conn[i];
		struct vgpu_dev_wait *w = (struct vgpu_dev_wait *)c->wait.arg;
		struct standin_tenant *t;

		if (c->fd < 0 || !c->waiting)
			continue;
		t = standin_tenant_by_id(s, c->tenant);
		if (t && t->revoked[w->gpu])
			continue;
		w->waited_ns = (uint64_t)(now.tv_sec - c->wait_t0.tv_sec) * 1000000000ull +
			       (uint64_t)(now.tv_nsec - c->wait_t0.tv_nsec);
		c->waiting = 0;
		send(c->fd, &c->wait, sizeof(c->wait), MSG_NOSIGNAL | MSG_DONTWAIT);
	}
}

static void conn_packet(struct standin *s, struct standin_conn *c, char *buf, ssize_t n)
{
	struct standin_ioc m;

	if (!c->kind) {
		if (hello(c, buf, n))
			conn_close(s, c);
		return;
	}
	if (c->kind == STANDIN_NL) {
		standin_nl_packet(s, c, buf, (size_t)n);
	} else if (c->kind == STANDIN_CTL) {
		buf[n] = 0;
		standin_ctl_line(s, c, buf);
		answer_waits(s);	/* a grant may have come */
	} else if (n == (ssize_t)sizeof(m) && !c->waiting) {
		memcpy(&m, buf, sizeof(m));
		if (standin_ioctl(s, c, &m)) {
			c->wait = m;
			c->waiting = 1;
			clock_gettime(CLOCK_MONOTONIC, &c->wait_t0);
		} else {
			send(c->fd, &m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT);
		}
	} else {
		conn_close(s, c);	/* not the protocol: as a closed device */
	}
}

static void serve_once(struct standin *s, int lfd, char *buf)
{
	struct pollfd pf[STANDIN_CONNS + 1];
	int map[STANDIN_CONNS + 1], n = 0, timeout;

	if (standin_flip_due(s, &timeout))
		answer_waits(s);
	pf[n] = (struct pollfd){ .fd = lfd, .events = POLLIN };
	map[n++] = -1;
	for (int i = 0; i < STANDIN_CONNS; i++)
		if (s->conn[i].fd >= 0) {
			pf[n] = (struct pollfd){ .fd = s->conn[i].fd, .events = POLLIN };
			map[n++] = i;
		}
	if (poll(pf, (nfds_t)n, timeout) <= 0)
		return;
	for (int k = 0; k < n; k++) {
		struct standin_conn *c;
		ssize_t len;

		if (!pf[k].revents)
			continue;
		if (map[k] < 0) {
			conn_accept(s, lfd);
			continue;
		}
		c = &s->conn[map[k]];
		len = recv(c->fd, buf, STANDIN_PKT - 1, MSG_DONTWAIT);
		if (len > 0)
			conn_packet(s, c, buf, len);
		else if (len == 0 || (errno != EAGAIN && errno != EINTR))
			conn_close(s, c);
	}
}

static int serve(const char *path, const char *brk)
{
	static char buf[STANDIN_PKT];
	struct standin *s = &standin_state;
	int lfd;

	if (brk && strcmp(brk, "charge") && strcmp(brk, "view")) {
		fprintf(stderr, "vgpu-standin: --break takes charge or view, not \"%s\"\n", brk);
		return 2;
	}
	s->brk = !brk ? STANDIN_BREAK_NONE :
		 !strcmp(brk, "charge") ? STANDIN_BREAK_CHARGE : STANDIN_BREAK_VIEW;
	for (int i = 0; i < STANDIN_CONNS; i++)
		s->conn[i].fd = -1;
	lfd = standin_listen(path);
	if (lfd < 0)
		return 1;
	signal(SIGTERM, standin_on_signal);
	signal(SIGINT, standin_on_signal);
	signal(SIGPIPE, SIG_IGN);
	while (!standin_stop)
		serve_once(s, lfd, buf);
	unlink(path);
	return 0;
}

/* One control line to the daemon at @path, its answer in @ans; 0 when it
 * is "ok ...", 1 on "error: ...", -1 (said on stderr) without an answer. */
int standin_ctl_ask(const char *path, const char *line, char *ans, size_t size)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct standin_hello h = { STANDIN_MAGIC, STANDIN_CTL };
	ssize_t n = -1;
	int fd;

	ans[0] = 0;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "vgpu-standin: socket path too long: %s\n", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    send(fd, &h, sizeof(h), 0) != sizeof(h) || send(fd, line, strlen(line), 0) < 0 ||
	    (n = recv(fd, ans, size - 1, 0)) <= 0) {
		fprintf(stderr, "vgpu-standin: no answer from %s: %s\n", path,
			n == 0 ? "connection closed" : strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	ans[n] = 0;
	return strncmp(ans, "ok", 2) != 0;
}

/* One control line, its answer printed; exit 1 on "error: ...". */
static int ctl(const char *path, int argc, char **argv)
{
	char line[512] = "", ans[512];
	int rc;

	for (int i = 0; i < argc; i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%s", i ? " " : "", argv[i]);
	rc = standin_ctl_ask(path, line, ans, sizeof(ans));
	if (rc < 0)
		return 1;
	printf("%s\n", ans);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "serve") &&
	    (argc == 3 || (argc == 5 && !strcmp(argv[3], "--break"))))
		return serve(argv[2], argc == 5 ? argv[4] : NULL);
	if (argc >= 4 && !strcmp(argv[1], "ctl"))
		return ctl(argv[2], argc - 3, argv + 3);
	if (argc == 3 && !strcmp(argv[1], "probe"))
		return standin_probe(argv[2]);
	fprintf(stderr, "usage: vgpu-standin serve SOCKET [--break charge|view]\n"
		"       vgpu-standin ctl SOCKET grant|revoke|show TENANT GPU | flip TENANT GPU MS\n"
		"       vgpu-standin ctl SOCKET gpu-add INDEX VRAM UUID | gpus\n"
		"       vgpu-standin ctl SOCKET tenant-add NAME VRAM-MAX|none all|INDEX,... | tenant NAME\n"
		"       vgpu-standin probe SOCKET   (gpu-add for each GPU NVML lists)\n");
	return 2;
}
