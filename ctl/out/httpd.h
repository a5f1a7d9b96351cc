/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small HTTP/1.x server for vgpuctl metrics --listen: GET /metrics only,
 * every connection closed after its answer, optionally over TLS and behind
 * basic authentication (webconf.h). One thread serves many connections at
 * once (Documentation/metrics.md, "The HTTP server"):
 *
 *   httpd.c         the request judge, the credentials of a request
 *   httpd_listen.c  the listening socket: TCP (loopback by default) or Unix
 *   httpd_conn.c    a connection: its handshake, reading its request,
 *                   writing its answer
 *   httpd_tls.c     TLS (OpenSSL): the context from the web configuration,
 *                   a connection's non-blocking handshake and records
 *   httpd_auth.c    basic authentication: bcrypt checked by a thread of
 *                   its own, the credentials accepted remembered
 *   httpd_table.c   the connections, oldest first, capped per peer and in
 *                   total; the oldest dropped when full
 *   httpd_loop.c    the epoll loop: accept, events, deadlines, signals
 *
 * A connection has VGPU_HTTPD_TIMEOUT_MS from its accept for its TLS
 * handshake, its request (at most VGPU_HTTPD_REQ_MAX bytes), its password
 * check and its answer, then it is closed.
 */
#ifndef VGPU_CTL_HTTPD_H
#define VGPU_CTL_HTTPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sys/socket.h>
#include <sys/types.h>

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

/* Password checks waiting for the checker thread at most: past it, 503. */
#define VGPU_HTTPD_CHECKS_MAX	32

/* Writes the body of GET /metrics to @f; 0, or < 0 for a 500 answer. */
typedef int (*vgpuctl_httpd_body_fn)(FILE *f, void *arg);

/* What the server answers a request (the status and why). */
struct vgpuctl_httpd_verdict {
	int status;		/* 200, 400, 401, 404, 405, 431, 500, 503 */
	const char *reason;
};

struct vgpuctl_httpd_verdict vgpuctl_httpd_judge(const char *req, size_t len, bool complete);
int vgpuctl_httpd_basic(const char *req, char *out, size_t size, size_t *user_len);

struct ssl_ctx_st;
struct ssl_st;
struct vgpuctl_httpd_auth;
struct vgpuctl_webconf;

/* What is served, and to whom. */
struct vgpuctl_httpd_server {
	vgpuctl_httpd_body_fn fn;
	void *arg;
	struct ssl_ctx_st *tls;			/* NULL: plain HTTP */
	struct vgpuctl_httpd_auth *auth;	/* NULL: no authentication */
};

/* Where to listen (--listen and the socket's options). */
struct vgpuctl_httpd_where {
	const char *addr;	/* PORT, :PORT, ADDR:PORT, [ADDR6]:PORT or unix:PATH */
	unsigned int mode;	/* a Unix socket's permissions */
	bool has_gid;
	uint32_t gid;		/* a Unix socket's group */
};

/* The listening socket. */
struct vgpuctl_httpd_listener {
	int fd;
	char *path;		/* a Unix socket's, removed at the end */
	unsigned long long dev, ino;	/* what was bound there */
	char name[160];		/* where, as said at the start */
};

int vgpuctl_httpd_listen(const struct vgpuctl_httpd_where *w, struct vgpuctl_httpd_listener *l);
void vgpuctl_httpd_unlisten(struct vgpuctl_httpd_listener *l);
int vgpuctl_httpd_serve(int lfd, int sfd, const struct vgpuctl_httpd_server *srv);

/* TLS (httpd_tls.c). */
int vgpuctl_httpd_tls_ctx(const struct vgpuctl_webconf *wc, struct ssl_ctx_st **ctx);
void vgpuctl_httpd_tls_ctx_free(struct ssl_ctx_st *ctx);

/* Basic authentication (httpd_auth.c). */
int vgpuctl_httpd_auth_start(const struct vgpuctl_webconf *wc, struct vgpuctl_httpd_auth **a);
void vgpuctl_httpd_auth_stop(struct vgpuctl_httpd_auth *a);

/* --- inside the server (httpd_*.c) --- */

struct vgpuctl_httpd_peer;
struct vgpuctl_httpd_check;

/* Where a connection is. */
enum vgpuctl_httpd_phase {
	VGPU_HTTPD_HANDSHAKE,	/* TLS: its handshake */
	VGPU_HTTPD_REQUEST,	/* reading its request */
	VGPU_HTTPD_CHECKING,	/* its password with the checker thread */
	VGPU_HTTPD_ANSWER,	/* writing its answer (@head and @buf) */
};

/* One connection. */
struct vgpuctl_httpd_conn {
	int fd;			/* non-blocking */
	enum vgpuctl_httpd_phase phase;
	bool held;		/* its answer did not fit in the socket: counted */
	uint32_t events;	/* what epoll waits for on it now */
	long long deadline;	/* CLOCK_MONOTONIC ms: closed then, answered or not */
	struct ssl_st *tls;	/* NULL: plain */
	struct vgpuctl_httpd_check *check;	/* while CHECKING */
	struct vgpuctl_httpd_verdict verdict;	/* while CHECKING: the answer if allowed */
	struct vgpuctl_httpd_peer *peer;
	struct vgpuctl_httpd_conn *prev, *next;		/* all, oldest first */
	struct vgpuctl_httpd_conn *peer_prev, *peer_next;	/* its peer's */
	char *buf;		/* the request so far (NUL-terminated), then the body */
	size_t len;		/* bytes in @buf */
	size_t sent;		/* of the answer: @head, then @buf */
	size_t hlen;
	char head[288];		/* the answer's status line and headers */
};

/* What a connection waits for next. */
enum vgpuctl_httpd_step {
	VGPU_HTTPD_READ,	/* its socket readable */
	VGPU_HTTPD_WRITE,	/* its socket writable */
	VGPU_HTTPD_WAIT,	/* the checker thread (nothing of its socket) */
	VGPU_HTTPD_DONE,	/* nothing: close it */
};

/* httpd_conn.c */
int vgpuctl_httpd_conn_init(struct vgpuctl_httpd_conn *c, const struct vgpuctl_httpd_server *srv);
enum vgpuctl_httpd_step vgpuctl_httpd_conn_step(struct vgpuctl_httpd_conn *c,
						const struct vgpuctl_httpd_server *srv);
enum vgpuctl_httpd_step vgpuctl_httpd_conn_checked(struct vgpuctl_httpd_conn *c,
						   const struct vgpuctl_httpd_server *srv,
						   bool ok);
void vgpuctl_httpd_conn_release(struct vgpuctl_httpd_conn *c);

/* httpd_tls.c: a connection's TLS; < 0 with *@again set: not yet. */
int vgpuctl_httpd_tls_open(struct vgpuctl_httpd_conn *c, struct ssl_ctx_st *ctx);
int vgpuctl_httpd_tls_accept(struct vgpuctl_httpd_conn *c, enum vgpuctl_httpd_step *again);
ssize_t vgpuctl_httpd_tls_recv(struct vgpuctl_httpd_conn *c, void *buf, size_t n,
			       enum vgpuctl_httpd_step *again);
ssize_t vgpuctl_httpd_tls_send(struct vgpuctl_httpd_conn *c, const void *buf, size_t n,
			       enum vgpuctl_httpd_step *again);
void vgpuctl_httpd_tls_end(struct vgpuctl_httpd_conn *c);
void vgpuctl_httpd_tls_free(struct vgpuctl_httpd_conn *c);

/* httpd_auth.c: a request's credentials checked. */
enum vgpuctl_httpd_allow {
	VGPU_HTTPD_ALLOWED,
	VGPU_HTTPD_REFUSED,
	VGPU_HTTPD_PENDING,	/* with the checker thread: @c->check set */
	VGPU_HTTPD_BUSY,	/* VGPU_HTTPD_CHECKS_MAX checks already wait */
};
typedef void (*vgpuctl_httpd_checked_fn)(struct vgpuctl_httpd_conn *c, bool ok, void *arg);
enum vgpuctl_httpd_allow vgpuctl_httpd_auth_check(struct vgpuctl_httpd_auth *a,
						  struct vgpuctl_httpd_conn *c);
int vgpuctl_httpd_auth_fd(const struct vgpuctl_httpd_auth *a);
void vgpuctl_httpd_auth_collect(struct vgpuctl_httpd_auth *a, vgpuctl_httpd_checked_fn fn,
				void *arg);
void vgpuctl_httpd_auth_detach(struct vgpuctl_httpd_conn *c);

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
