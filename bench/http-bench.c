// SPDX-License-Identifier: GPL-2.0
/*
 * http-bench: the latency of a scrape of vgpuctl metrics --listen, alone
 * and beside idle connections, on the loopback. Without the module the
 * server answers vgpu_up 0, so this is the server's own cost (accept,
 * read, judge, the body from a failed netlink open, write, close), not
 * the module's.
 *
 * A scrape is a new connection, GET /metrics, the answer read to its
 * close, timed from socket() to the close, one at a time. First SECONDS
 * of them back to back with no other client ("bare"), then IDLE
 * connections are opened and left silent, spread over 127.0.0.2 and up,
 * 50 an address (within the server's 64 per peer), kept open (the server
 * closes each at its 5 s deadline: it is opened again within 100 ms, as
 * a flood would), and SECONDS more ("beside N idle"). Each
 * row: p50, p99 and the worst of the scrapes answered 200, and how many
 * of how many were; one not answered within 10 s counts as unanswered.
 *
 *   http-bench PORT [IDLE [SECONDS]]    default 1000 idle, 12 s a row
 *
 * Exit 1 when a row had a scrape not answered 200 (or none at all): the
 * target is every scrape answered. tests/host/benches.sh runs it short.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>

#define PER_ADDR	50
#define SCRAPE_MS	10000

static int port;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A non-blocking socket from 127.0.0.@host connecting to the server, or -1. */
static int connect_from(int host)
{
	struct sockaddr_in src = { .sin_family = AF_INET }, dst = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	src.sin_addr.s_addr = htonl(0x7f000000u | (unsigned int)host);
	dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	dst.sin_port = htons((unsigned short)port);
	if (bind(fd, (struct sockaddr *)&src, sizeof(src)) ||
	    (connect(fd, (struct sockaddr *)&dst, sizeof(dst)) && errno != EINPROGRESS)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Wait for @ev on @fd until @end; whether it came. */
static bool wait_for(int fd, short ev, double end)
{
	struct pollfd p = { .fd = fd, .events = ev };
	double left;

	while ((left = end - now_ms()) > 0) {
		int r = poll(&p, 1, (int)left + 1);

		if (r > 0)
			return true;
		if (r < 0 && errno != EINTR)
			return false;
	}
	return false;
}

/* One scrape; its time in ms, or -1 when it was not answered 200. */
static double scrape(void)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: bench\r\n\r\n";
	double t0 = now_ms(), end = t0 + SCRAPE_MS;
	char buf[65536], head[16] = "";
	size_t got = 0;
	int fd = connect_from(1), err = 0;
	socklen_t elen = sizeof(err);
	ssize_t r;

	if (fd < 0)
		return -1;
	if (!wait_for(fd, POLLOUT, end) ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) || err ||
	    send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) != (ssize_t)sizeof(req) - 1)
		goto fail;
	for (;;) {
		if (!wait_for(fd, POLLIN, end))
			goto fail;
		r = recv(fd, buf, sizeof(buf), 0);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		if (got < sizeof(head) - 1) {
			size_t n = (size_t)r < sizeof(head) - 1 - got ? (size_t)r : sizeof(head) - 1 - got;

			memcpy(head + got, buf, n);
		}
		got += (size_t)r;
	}
	close(fd);
	return strncmp(head, "HTTP/1.1 200 ", 13) ? -1 : now_ms() - t0;
fail:
	close(fd);
	return -1;
}

/* The idle connections: each one open, those the server closed opened again. */
static int keep_idle(int *fd, int n)
{
	int i, reopened = 0;
	char c;

	for (i = 0; i < n; i++) {
		if (fd[i] >= 0) {
			ssize_t r = recv(fd[i], &c, 1, MSG_DONTWAIT);

			if (r < 0 && (errno == EAGAIN || errno == ENOTCONN || errno == EINPROGRESS))
				continue;	/* open (or still connecting) */
			close(fd[i]);
			reopened++;
		}
		fd[i] = connect_from(2 + i / PER_ADDR);
	}
	return reopened;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Scrapes for @secs s (the idle ones, if any, kept open); its row of the
 * table. Whether every scrape was answered (and there was one). */
static bool row(const char *name, int secs, int *idle, int nidle)
{
	double *t = NULL, end = now_ms() + secs * 1e3, ms, checked = 0;
	size_t ok = 0, cap = 0;
	int n = 0, reopened = 0;

	while (now_ms() < end) {
		/* (every 100 ms: the closed ones are opened again, the timing
		 * of the scrapes left to the server) */
		if (nidle && now_ms() - checked >= 100) {
			reopened += keep_idle(idle, nidle);
			checked = now_ms();
		}
		ms = scrape();
		n++;
		if (ms < 0)
			continue;
		if (ok == cap) {
			cap = cap ? 2 * cap : 4096;
			t = realloc(t, cap * sizeof(*t));
			if (!t)
				exit(1);
		}
		t[ok++] = ms;
	}
	qsort(t, ok, sizeof(*t), cmp);
	if (ok)
		printf("%-18s %8.3f %8.3f %8.3f %8zu/%d", name, t[ok / 2],
		       t[(size_t)((double)(ok - 1) * 0.99)], t[ok - 1], ok, n);
	else
		printf("%-18s %8s %8s %8s %8d/%d", name, "-", "-", "-", 0, n);
	if (nidle)
		printf("  (%d idle closed by the server at their deadline, opened again)", reopened);
	printf("\n");
	free(t);
	return ok > 0 && ok == (size_t)n;
}

int main(int argc, char **argv)
{
	int nidle = argc > 2 ? atoi(argv[2]) : 1000, secs = argc > 3 ? atoi(argv[3]) : 12;
	struct rlimit rl;
	char name[32];
	int *idle, i, open = 0, bad = 0;

	port = argc > 1 ? atoi(argv[1]) : 0;
	if (port < 1 || port > 65535 || nidle < 0 || secs < 1) {
		fprintf(stderr, "usage: http-bench PORT [IDLE [SECONDS]]\n");
		return 2;
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	idle = malloc(sizeof(*idle) * (size_t)(nidle ? nidle : 1));
	if (!idle)
		return 1;
	for (i = 0; i < nidle; i++)
		idle[i] = -1;
	/* (the server may still be starting) */
	for (i = 0; i < 50 && scrape() < 0; i++)
		usleep(100000);
	printf("scrapes of GET /metrics on 127.0.0.1:%d, one at a time, %d s a row (ms)\n",
	       port, secs);
	printf("%-18s %8s %8s %8s %10s\n", "", "p50", "p99", "max", "answered");
	bad |= !row("bare", secs, NULL, 0);
	keep_idle(idle, nidle);
	for (i = 0; i < nidle; i++)
		open += idle[i] >= 0 && wait_for(idle[i], POLLOUT, now_ms() + 5000);
	if (open < nidle)
		printf("(only %d of %d idle connections were opened)\n", open, nidle);
	snprintf(name, sizeof(name), "beside %d idle", nidle);
	bad |= !row(name, secs, idle, nidle);
	for (i = 0; i < nidle; i++)
		if (idle[i] >= 0)
			close(idle[i]);
	free(idle);
	if (bad)
		fprintf(stderr, "http-bench: a scrape was not answered\n");
	return bad;
}
