// SPDX-License-Identifier: GPL-2.0
/*
 * The HTTP server's loop (httpd.h): one thread, epoll over the listening
 * socket, the stop signals' signalfd, the password checker's eventfd and
 * every connection, each a non-blocking state machine (httpd_conn.c)
 * waiting for its socket to be readable, writable, or for its password
 * check, so a slow or silent client holds only its own connection. The
 * nearest deadline is the oldest connection's (httpd_table.c), the wait's
 * timeout. accept() is never fatal: out of descriptors or memory, it
 * pauses VGPU_HTTPD_BACKOFF_MS (EMFILE first drops the oldest connection),
 * and errors of one connection are passed over.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "httpd.h"
#include "../vgpuctl.h"

#define EVENTS		64	/* a wait's events at most */
#define ACCEPTS		64	/* accept() calls a round at most: the others get their turn */
#define REPORT_MS	10000	/* the same accept() error said at most this often */

struct loop {
	int ep, lfd;
	bool listening;			/* @lfd in the epoll set */
	long long resume;		/* when accept() pauses: until then */
	struct vgpuctl_httpd_table t;
	const struct vgpuctl_httpd_server *srv;
	int said_err;			/* the accept() error said last, and when */
	long long said_at;
};

/* epoll's data of the descriptors that are not connections. */
static char listen_tag, signal_tag, check_tag;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The soft RLIMIT_NOFILE raised to the hard one (a service's soft limit is
 * often 1024), and the total cap sized from it: the limit less the spare
 * descriptors, at most VGPU_HTTPD_CONN_MAX.
 */
static size_t conn_max(void)
{
	struct rlimit rl;
	rlim_t n;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return VGPU_HTTPD_PEER_MAX;
	if (rl.rlim_cur < rl.rlim_max) {
		struct rlimit want = { rl.rlim_max, rl.rlim_max };

		/* (unlimited is refused: past fs.nr_open; what is needed then) */
		if (want.rlim_cur == RLIM_INFINITY)
			want.rlim_cur = VGPU_HTTPD_CONN_MAX + VGPU_HTTPD_FD_SPARE;
		if (!setrlimit(RLIMIT_NOFILE, &want))
			rl = want;
	}
	n = rl.rlim_cur > 2 * VGPU_HTTPD_FD_SPARE ? rl.rlim_cur - VGPU_HTTPD_FD_SPARE
						  : rl.rlim_cur / 2;
	return n < 1 ? 1 : n > VGPU_HTTPD_CONN_MAX ? VGPU_HTTPD_CONN_MAX : (size_t)n;
}

/* Stop accepting for VGPU_HTTPD_BACKOFF_MS: the connections go on. */
static void pause_accept(struct loop *l)
{
	if (l->listening && !epoll_ctl(l->ep, EPOLL_CTL_DEL, l->lfd, NULL))
		l->listening = false;
	l->resume = now_ms() + VGPU_HTTPD_BACKOFF_MS;
}

/* A failed accept(); whether to call it again at once. */
static bool accept_failed(struct loop *l, int e)
{
	long long now;

	switch (e) {
	case EAGAIN:
		return false;		/* none left */
	case EINTR:
	case ECONNABORTED:
	case EPROTO: case ENETDOWN: case ENOPROTOOPT: case EHOSTDOWN:
	case ENONET: case EHOSTUNREACH: case EOPNOTSUPP: case ENETUNREACH:
	case EPERM:			/* a firewall's */
		return true;		/* that connection's own: the next one */
	}
	now = now_ms();
	if (e != l->said_err || now - l->said_at >= REPORT_MS) {
		fprintf(stderr, "Warning: accept: %s; %s.\n", strerror(e),
			e == EMFILE && l->t.count ? "the oldest connection dropped" :
			"accepting paused briefly");
		l->said_err = e;
		l->said_at = now;
	}
	if (e == EMFILE && vgpuctl_httpd_table_drop(&l->t))
		return true;		/* its descriptor is free now */
	/* ENFILE, ENOBUFS, ENOMEM, or what should not happen: not a spin */
	pause_accept(l);
	return false;
}

/* Accept what is pending, at most ACCEPTS. */
static void accept_some(struct loop *l)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct vgpuctl_httpd_conn *c;
	struct sockaddr_storage sa;
	socklen_t salen;
	int i, fd;

	for (i = 0; i < ACCEPTS && l->listening; i++) {
		salen = sizeof(sa);
		fd = accept4(l->lfd, (struct sockaddr *)&sa, &salen, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (!accept_failed(l, errno))
				return;
			continue;
		}
		c = vgpuctl_httpd_table_open(&l->t, fd, &sa, now_ms() + VGPU_HTTPD_TIMEOUT_MS);
		if (!c) {
			close(fd);
			accept_failed(l, ENOMEM);
			return;
		}
		if (vgpuctl_httpd_conn_init(c, l->srv)) {
			vgpuctl_httpd_table_close(&l->t, c);
			accept_failed(l, ENOMEM);
			return;
		}
		c->events = EPOLLIN;
		ev.data.ptr = c;
		if (epoll_ctl(l->ep, EPOLL_CTL_ADD, fd, &ev)) {
			int e = errno;

			vgpuctl_httpd_table_close(&l->t, c);
			accept_failed(l, e);
			return;
		}
	}
}

/* @c's next step @s: what epoll waits for on it, its answer held, or its end. */
static void settle(struct loop *l, struct vgpuctl_httpd_conn *c, enum vgpuctl_httpd_step s)
{
	struct epoll_event ev = { .data.ptr = c };

	if (s != VGPU_HTTPD_DONE) {
		/* (waiting for its check: nothing, but a hang-up or error still comes) */
		ev.events = s == VGPU_HTTPD_READ ? EPOLLIN : s == VGPU_HTTPD_WRITE ? EPOLLOUT : 0;
		if (ev.events != c->events && epoll_ctl(l->ep, EPOLL_CTL_MOD, c->fd, &ev))
			s = VGPU_HTTPD_DONE;
		else
			c->events = ev.events;
	}
	if (s == VGPU_HTTPD_DONE)
		vgpuctl_httpd_table_close(&l->t, c);
	else if (s == VGPU_HTTPD_WRITE && c->phase == VGPU_HTTPD_ANSWER && !c->held)
		vgpuctl_httpd_table_hold(&l->t, c);
}

/* An event of @c. */
static void on_conn(struct loop *l, struct vgpuctl_httpd_conn *c)
{
	settle(l, c, vgpuctl_httpd_conn_step(c, l->srv));
}

/* A password check done (vgpuctl_httpd_auth_collect()). */
static void on_checked(struct vgpuctl_httpd_conn *c, bool ok, void *arg)
{
	struct loop *l = arg;

	settle(l, c, vgpuctl_httpd_conn_checked(c, l->srv, ok));
}

/* Close the connections past their deadline; ms until the next wake-up, or -1. */
static int expire(struct loop *l)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &listen_tag };
	long long now = now_ms(), next = -1;

	while (l->t.oldest && l->t.oldest->deadline <= now)
		vgpuctl_httpd_table_close(&l->t, l->t.oldest);	/* 408 is not sent */
	if (!l->listening && l->resume <= now) {
		if (!epoll_ctl(l->ep, EPOLL_CTL_ADD, l->lfd, &ev))
			l->listening = true;
		else
			l->resume = now + VGPU_HTTPD_BACKOFF_MS;
	}
	if (l->t.oldest)
		next = l->t.oldest->deadline - now;
	if (!l->listening && (next < 0 || l->resume - now < next))
		next = l->resume - now;
	return (int)next;
}

/* Serve until a stop signal; the exit status. */
static int run(struct loop *l)
{
	struct epoll_event ev[EVENTS];
	bool incoming, stop, checked;
	int i, n;

	for (;;) {
		n = epoll_wait(l->ep, ev, EVENTS, expire(l));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return vgpuctl_error("epoll_wait: %s", strerror(errno));
		}
		incoming = stop = checked = false;
		for (i = 0; i < n; i++) {
			if (ev[i].data.ptr == &signal_tag)
				stop = true;
			else if (ev[i].data.ptr == &listen_tag)
				incoming = true;
			else if (ev[i].data.ptr == &check_tag)
				checked = true;
			else
				on_conn(l, ev[i].data.ptr);
		}
		if (stop)
			return VGPU_EXIT_OK;
		/* After the connections' events: these close some, whose
		 * events in this batch would have been freed under them. */
		if (checked)
			vgpuctl_httpd_auth_collect(l->srv->auth, on_checked, l);
		vgpuctl_httpd_table_trim(&l->t);
		if (incoming)
			accept_some(l);
	}
}

/**
 * vgpuctl_httpd_serve() - answer connections until a stop signal
 * @lfd: the listening socket
 * @sfd: the signalfd of vgpuctl_stop_signals()
 * @srv: what is served (the metrics), over what (TLS or not), to whom
 *       (basic authentication or not)
 *
 * Return: VGPU_EXIT_OK after SIGINT or SIGTERM, else VGPU_EXIT_ERR.
 */
int vgpuctl_httpd_serve(int lfd, int sfd, const struct vgpuctl_httpd_server *srv)
{
	struct loop l = { .lfd = lfd, .listening = true, .srv = srv };
	struct epoll_event el = { .events = EPOLLIN, .data.ptr = &listen_tag };
	struct epoll_event es = { .events = EPOLLIN, .data.ptr = &signal_tag };
	struct epoll_event ec = { .events = EPOLLIN, .data.ptr = &check_tag };
	int ret;

	signal(SIGPIPE, SIG_IGN);
	/* accept() until none is left, never waiting there */
	if (fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK))
		return vgpuctl_error("fcntl: %s", strerror(errno));
	if (vgpuctl_httpd_table_init(&l.t, conn_max(), VGPU_HTTPD_PEER_MAX))
		return vgpuctl_error("%s", strerror(ENOMEM));
	l.ep = epoll_create1(EPOLL_CLOEXEC);
	if (l.ep < 0 || epoll_ctl(l.ep, EPOLL_CTL_ADD, lfd, &el) ||
	    epoll_ctl(l.ep, EPOLL_CTL_ADD, sfd, &es) ||
	    (srv->auth && epoll_ctl(l.ep, EPOLL_CTL_ADD, vgpuctl_httpd_auth_fd(srv->auth), &ec)))
		ret = vgpuctl_error("epoll: %s", strerror(errno));
	else
		ret = run(&l);
	vgpuctl_httpd_table_fini(&l.t);
	if (l.ep >= 0)
		close(l.ep);
	return ret;
}
