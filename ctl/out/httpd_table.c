// SPDX-License-Identifier: GPL-2.0
/*
 * The HTTP server's open connections (httpd.h), capped per peer and in
 * total. When a new connection finds its peer at its cap, that peer's
 * oldest connection is dropped for it; when it finds the table full, the
 * oldest of all. Either way, one still reading its request goes before
 * one writing its answer. Dropping rather than refusing (503) is what
 * keeps a scraper answered beside a flood: its connection is the newest,
 * done within a round trip, while the flood's wait idle for their
 * deadline; to push it out, a flood would have to open the whole table's
 * worth of connections within that round trip. The cap per peer keeps one
 * client (an address; an IPv6 /64, what one host is usually given) from
 * pushing out everyone else's connections in turn; on a Unix socket a
 * peer is a user (SO_PEERCRED).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "httpd.h"

/* The connections of one peer. */
struct vgpuctl_httpd_peer {
	unsigned char key[16];
	size_t count;
	struct vgpuctl_httpd_conn *oldest, *newest;
	struct vgpuctl_httpd_peer *next;	/* in its bucket */
};

/* How far a victim is looked for among the oldest, past those writing. */
#define VICTIM_SCAN	64

/*
 * @sa's peer: an IPv4 address (mapped into IPv6 or not), an IPv6 /64; on
 * a Unix socket, the user of the process that connected (@fd's).
 */
static void peer_key(const struct sockaddr_storage *sa, int fd, unsigned char key[16])
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
	struct ucred cred;
	socklen_t len = sizeof(cred);

	memset(key, 0, 16);
	if (sa->ss_family == AF_UNIX) {
		key[0] = 0xff;		/* (no IPv6 /64 a Unix socket meets) */
		if (!getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
			memcpy(key + 1, &cred.uid, sizeof(cred.uid));
	} else if (sa->ss_family == AF_INET) {
		key[10] = key[11] = 0xff;	/* as ::ffff:a.b.c.d */
		memcpy(key + 12, &s4->sin_addr, 4);
	} else if (sa->ss_family == AF_INET6) {
		memcpy(key, &s6->sin6_addr, IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr) ? 16 : 8);
	}
}

/* FNV-1a, seeded: the table's bound keeps even a crafted collision cheap. */
static size_t peer_hash(const struct vgpuctl_httpd_table *t, const unsigned char key[16])
{
	uint64_t h = 0xcbf29ce484222325ULL ^ t->seed;
	int i;

	for (i = 0; i < 16; i++)
		h = (h ^ key[i]) * 0x100000001b3ULL;
	return (size_t)(h ^ (h >> 32)) & (t->nbucket - 1);
}

static struct vgpuctl_httpd_peer *peer_find(const struct vgpuctl_httpd_table *t,
					    const unsigned char key[16])
{
	struct vgpuctl_httpd_peer *p = t->bucket[peer_hash(t, key)];

	while (p && memcmp(p->key, key, 16))
		p = p->next;
	return p;
}

static struct vgpuctl_httpd_peer *peer_add(struct vgpuctl_httpd_table *t,
					   const unsigned char key[16])
{
	struct vgpuctl_httpd_peer *p = calloc(1, sizeof(*p));
	size_t h = peer_hash(t, key);

	if (!p)
		return NULL;
	memcpy(p->key, key, 16);
	p->next = t->bucket[h];
	t->bucket[h] = p;
	return p;
}

static void peer_del(struct vgpuctl_httpd_table *t, struct vgpuctl_httpd_peer *p)
{
	struct vgpuctl_httpd_peer **pp = &t->bucket[peer_hash(t, p->key)];

	while (*pp != p)
		pp = &(*pp)->next;
	*pp = p->next;
	free(p);
}

/**
 * vgpuctl_httpd_table_init() - an empty table
 * @t: the table
 * @max: connections at most
 * @peer_max: of them from one peer at most
 *
 * Return: 0, or -1 when out of memory.
 */
int vgpuctl_httpd_table_init(struct vgpuctl_httpd_table *t, size_t max, size_t peer_max)
{
	memset(t, 0, sizeof(*t));
	t->max = max ? max : 1;
	t->peer_max = peer_max ? peer_max : 1;
	for (t->nbucket = 16; t->nbucket < t->max; t->nbucket *= 2)
		;
	t->bucket = calloc(t->nbucket, sizeof(*t->bucket));
	if (getrandom(&t->seed, sizeof(t->seed), GRND_NONBLOCK) != sizeof(t->seed))
		t->seed = (uint64_t)(uintptr_t)t->bucket;	/* unseeded: still correct */
	return t->bucket ? 0 : -1;
}

/**
 * vgpuctl_httpd_table_fini() - close every connection and free @t
 * @t: the table
 */
void vgpuctl_httpd_table_fini(struct vgpuctl_httpd_table *t)
{
	while (t->oldest)
		vgpuctl_httpd_table_close(t, t->oldest);
	free(t->bucket);
	t->bucket = NULL;
}

/**
 * vgpuctl_httpd_table_close() - close @c and forget it
 * @t: the table
 * @c: one of its connections (freed)
 *
 * Its descriptor closed, it leaves the epoll set too.
 */
void vgpuctl_httpd_table_close(struct vgpuctl_httpd_table *t, struct vgpuctl_httpd_conn *c)
{
	struct vgpuctl_httpd_peer *p = c->peer;

	*(c->prev ? &c->prev->next : &t->oldest) = c->next;
	*(c->next ? &c->next->prev : &t->newest) = c->prev;
	*(c->peer_prev ? &c->peer_prev->peer_next : &p->oldest) = c->peer_next;
	*(c->peer_next ? &c->peer_next->peer_prev : &p->newest) = c->peer_prev;
	t->count--;
	if (c->held)
		t->held -= c->len;
	if (!--p->count)
		peer_del(t, p);
	vgpuctl_httpd_conn_release(c);
	free(c);
}

/* The first of @c and those after it (in @peer's order or all) still reading. */
static struct vgpuctl_httpd_conn *pick(struct vgpuctl_httpd_conn *c, bool peer)
{
	struct vgpuctl_httpd_conn *first = c;
	int n;

	for (n = 0; c && n < VICTIM_SCAN; n++, c = peer ? c->peer_next : c->next)
		if (c->phase != VGPU_HTTPD_ANSWER)
			return c;
	return first;
}

/**
 * vgpuctl_httpd_table_drop() - close the oldest connection, one reading first
 * @t: the table
 *
 * For accept() out of descriptors (EMFILE).
 *
 * Return: whether there was one.
 */
bool vgpuctl_httpd_table_drop(struct vgpuctl_httpd_table *t)
{
	struct vgpuctl_httpd_conn *c = pick(t->oldest, false);

	if (c)
		vgpuctl_httpd_table_close(t, c);
	return c;
}

/**
 * vgpuctl_httpd_table_hold() - count @c's answer among those held
 * @t: the table
 * @c: a connection whose answer did not fit in its socket
 */
void vgpuctl_httpd_table_hold(struct vgpuctl_httpd_table *t, struct vgpuctl_httpd_conn *c)
{
	c->held = true;
	t->held += c->len;
}

/**
 * vgpuctl_httpd_table_trim() - drop the oldest held answers past VGPU_HTTPD_HELD_MAX
 * @t: the table
 *
 * A client that asks and never reads would otherwise have each of its
 * connections hold an answer (the metrics of every tenant) until its
 * deadline. The newest one held is kept, however large.
 */
void vgpuctl_httpd_table_trim(struct vgpuctl_httpd_table *t)
{
	struct vgpuctl_httpd_conn *c, *next;

	for (c = t->oldest; c && t->held > VGPU_HTTPD_HELD_MAX; c = next) {
		next = c->next;
		if (c->held && c->len < t->held)	/* not the only one */
			vgpuctl_httpd_table_close(t, c);
	}
}

/**
 * vgpuctl_httpd_table_open() - a new connection, room made for it
 * @t: the table
 * @fd: its socket (non-blocking)
 * @sa: its peer's address
 * @deadline: when it is closed, answered or not (later than any before)
 *
 * Its peer's oldest connection is closed when the peer is at its cap, the
 * oldest of all when the table is full.
 *
 * Return: the connection, or NULL when out of memory (@fd left open).
 */
struct vgpuctl_httpd_conn *vgpuctl_httpd_table_open(struct vgpuctl_httpd_table *t, int fd,
						    const struct sockaddr_storage *sa,
						    long long deadline)
{
	struct vgpuctl_httpd_conn *c;
	struct vgpuctl_httpd_peer *p;
	unsigned char key[16];

	peer_key(sa, fd, key);
	for (;;) {
		/* (found again: closing its last connection frees a peer) */
		p = peer_find(t, key);
		if (p && p->count >= t->peer_max)
			vgpuctl_httpd_table_close(t, pick(p->oldest, true));
		else if (t->count >= t->max)
			vgpuctl_httpd_table_close(t, pick(t->oldest, false));
		else
			break;
	}
	c = calloc(1, sizeof(*c));
	if (!c || (!p && !(p = peer_add(t, key)))) {
		free(c);
		return NULL;
	}
	c->fd = fd;
	c->deadline = deadline;
	c->peer = p;
	c->prev = t->newest;
	*(t->newest ? &t->newest->next : &t->oldest) = c;
	t->newest = c;
	c->peer_prev = p->newest;
	*(p->newest ? &p->newest->peer_next : &p->oldest) = c;
	p->newest = c;
	p->count++;
	t->count++;
	return c;
}
