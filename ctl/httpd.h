/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small HTTP/1.x server for vgpuctl metrics --listen: GET /metrics only,
 * every connection closed after its answer. One thread serves many
 * connections at once (Documentation/metrics.md, "The HTTP server"):
 *
 *   httpd.c        the request judge, the listening socket
 *   httpd_conn.c   a connection: reading its request, writing its answer
 *   httpd_table.c  the connections, oldest first, capped per peer and in
 *                  total; the oldest dropped when full
 *   httpd_loop.c   the epoll loop: accept, events, deadlines, signals
 *
 * A connection has VGPU_HTTPD_TIMEOUT_MS from its accept for its request
 * (at most VGPU_HTTPD_REQ_MAX bytes) and its answer, then it is closed.
 */
#ifndef VGPU_CTL_HTTPD_H
#define VGPU_CTL_HTTPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sys/socket.h>

#define VGPU_HTTPD_REQ_MAX	8192
#define VGPU_HTTPD_TIMEOUT_MS	5000
/* Connections at once from one peer: an IPv4 address, an IPv6 /64. */
#define VGPU_HTTPD_PEER_MAX	64
/* In total: the descriptor limit less VGPU_HTTPD_FD_SPARE, at most this. */
#define VGPU_HTTPD_CONN_MAX	4096
/* Descriptors kept for the rest: stdio, the sockets, a scrape's netlink. */
#define VGPU_HTTPD_FD_SPARE	32
/* Answers held for clients that do not take them: past this, the oldest dropped. */
#define VGPU_HTTPD_HELD_MAX	(64u << 20)
/* accept() paused this long when descriptors or memory run out. */
#define VGPU_HTTPD_BACKOFF_MS	100

/* Writes the body of GET /metrics to @f; 0, or < 0 for a 500 answer. */
typedef int (*vgpuctl_httpd_body_fn)(FILE *f, void *arg);

/* What the server answers a request (the status and why). */
struct vgpuctl_httpd_verdict {
	int status;		/* 200, 400, 404, 405, 431 */
	const char *reason;
};

struct vgpuctl_httpd_verdict vgpuctl_httpd_judge(const char *req, size_t len, bool complete);
int vgpuctl_httpd_listen(const char *addr, int *lfd);
int vgpuctl_httpd_serve(int lfd, int sfd, vgpuctl_httpd_body_fn fn, void *arg);

/* --- inside the server (httpd_*.c) --- */

struct vgpuctl_httpd_peer;

/* One connection. */
struct vgpuctl_httpd_conn {
	int fd;			/* non-blocking */
	bool writing;		/* its request judged, @head and @buf the answer */
	bool held;		/* its answer did not fit in the socket: counted */
	long long deadline;	/* CLOCK_MONOTONIC ms: closed then, answered or not */
	struct vgpuctl_httpd_peer *peer;
	struct vgpuctl_httpd_conn *prev, *next;		/* all, oldest first */
	struct vgpuctl_httpd_conn *peer_prev, *peer_next;	/* its peer's */
	char *buf;		/* the request so far (NUL-terminated), then the body */
	size_t len;		/* bytes in @buf */
	size_t sent;		/* of the answer: @head, then @buf */
	size_t hlen;
	char head[224];		/* the answer's status line and headers */
};

/* What a connection waits for next (httpd_conn.c). */
enum vgpuctl_httpd_step {
	VGPU_HTTPD_READ,	/* more of the request */
	VGPU_HTTPD_WRITE,	/* room to send the rest of the answer */
	VGPU_HTTPD_DONE,	/* nothing: close it */
};

enum vgpuctl_httpd_step vgpuctl_httpd_conn_read(struct vgpuctl_httpd_conn *c,
						vgpuctl_httpd_body_fn fn, void *arg);
enum vgpuctl_httpd_step vgpuctl_httpd_conn_write(struct vgpuctl_httpd_conn *c);

/*
 * The open connections: a list by accept time, which is also their
 * deadlines' order (each is accept + VGPU_HTTPD_TIMEOUT_MS), and per peer.
 */
struct vgpuctl_httpd_table {
	struct vgpuctl_httpd_conn *oldest, *newest;
	struct vgpuctl_httpd_peer **bucket;	/* hash of the peers */
	size_t nbucket;				/* a power of two */
	size_t count, max, peer_max;
	size_t held;				/* bytes of the answers held */
	uint64_t seed;				/* of the hash */
};

int vgpuctl_httpd_table_init(struct vgpuctl_httpd_table *t, size_t max, size_t peer_max);
void vgpuctl_httpd_table_fini(struct vgpuctl_httpd_table *t);
struct vgpuctl_httpd_conn *vgpuctl_httpd_table_open(struct vgpuctl_httpd_table *t, int fd,
						    const struct sockaddr_storage *sa,
						    long long deadline);
void vgpuctl_httpd_table_close(struct vgpuctl_httpd_table *t, struct vgpuctl_httpd_conn *c);
bool vgpuctl_httpd_table_drop(struct vgpuctl_httpd_table *t);
void vgpuctl_httpd_table_hold(struct vgpuctl_httpd_table *t, struct vgpuctl_httpd_conn *c);
void vgpuctl_httpd_table_trim(struct vgpuctl_httpd_table *t);

#endif /* VGPU_CTL_HTTPD_H */
