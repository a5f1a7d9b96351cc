// SPDX-License-Identifier: GPL-2.0
/*
 * Basic authentication for the HTTP server (httpd.h): the users and
 * bcrypt hashes of the web configuration's basic_auth_users, a password
 * checked with libxcrypt's crypt_rn().
 *
 * A bcrypt check is slow by design (cost 10: tens of milliseconds). Done
 * in the loop, it would stall every other connection, and a client
 * sending wrong passwords could keep the loop busy. So the checks run one
 * after the other on a thread of their own while the loop goes on; the
 * connection waits for its result (VGPU_HTTPD_CHECKING) within its
 * deadline. At most VGPU_HTTPD_CHECKS_MAX wait; past that a request is
 * answered 503 at once.
 *
 * Credentials once accepted are remembered per user, as an HMAC-SHA256
 * under a key drawn at start (never the password): a scraper costs one
 * bcrypt check for the server's life, and its later scrapes are answered
 * at once, never waiting behind others' checks. A user that does not
 * exist is checked against the first user's hash all the same, so the
 * time of an answer does not tell which users exist.
 */
#include <crypt.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sys/eventfd.h>
#include <sys/random.h>

#include "httpd.h"
#include "../vgpuctl.h"
#include "webconf.h"

#define DIGEST	32	/* HMAC-SHA256 */

/* A password check, from the loop to the checker thread and back. */
struct vgpuctl_httpd_check {
	struct vgpuctl_httpd_conn *c;	/* the loop's: NULL once the connection is gone */
	int user;			/* its index; -1: no such user */
	bool ok;			/* the checker's verdict */
	unsigned char digest[DIGEST];	/* of USER:PASSWORD */
	char *pass;
	struct vgpuctl_httpd_check *next;
};

struct vgpuctl_httpd_auth {
	const struct vgpuctl_webconf *wc;
	unsigned char key[DIGEST];		/* of the digests */
	unsigned char (*known)[DIGEST];		/* per user: the credentials accepted */
	bool *has_known;
	size_t pending;				/* the loop's: given, not yet collected */
	int efd;				/* an eventfd: checks done */
	pthread_t thread;
	pthread_mutex_t mu;			/* over what follows */
	pthread_cond_t cv;
	struct vgpuctl_httpd_check *todo, **todo_tail, *done;
	bool stop;
};

static void check_free(struct vgpuctl_httpd_check *k)
{
	if (k->pass) {
		explicit_bzero(k->pass, strlen(k->pass));
		free(k->pass);
	}
	free(k);
}

/* The checker thread: each check against its user's hash, in turn. */
static void *checker(void *arg)
{
	struct vgpuctl_httpd_auth *a = arg;
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	struct vgpuctl_httpd_check *k;
	const char *hash, *out;
	uint64_t one = 1;
	ssize_t wrote;

	pthread_mutex_lock(&a->mu);
	for (;;) {
		while (!a->todo && !a->stop)
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->stop)
			break;
		k = a->todo;
		a->todo = k->next;
		if (!a->todo)
			a->todo_tail = &a->todo;
		pthread_mutex_unlock(&a->mu);
		hash = a->wc->users[k->user >= 0 ? k->user : 0].hash;
		out = cd ? crypt_rn(k->pass, hash, cd, sizeof(*cd)) : NULL;
		k->ok = k->user >= 0 && out && strlen(out) == strlen(hash) &&
			!CRYPTO_memcmp(out, hash, strlen(hash));
		pthread_mutex_lock(&a->mu);
		k->next = a->done;
		a->done = k;
		/* (a failure: the counter is at its maximum, the loop will look) */
		wrote = write(a->efd, &one, sizeof(one));
		(void)wrote;
	}
	pthread_mutex_unlock(&a->mu);
	if (cd) {
		explicit_bzero(cd, sizeof(*cd));
		free(cd);
	}
	return NULL;
}

/* The checker thread started with every signal blocked (the loop takes them). */
static int start_thread(struct vgpuctl_httpd_auth *a)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&a->thread, NULL, checker, a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

/**
 * vgpuctl_httpd_auth_start() - basic authentication for the users of @wc
 * @wc: the web configuration (kept: it must outlive the authentication)
 * @a: out: the authentication, or NULL when @wc has no users
 *
 * Return: 0, or VGPU_EXIT_ERR after an error line.
 */
int vgpuctl_httpd_auth_start(const struct vgpuctl_webconf *wc, struct vgpuctl_httpd_auth **a)
{
	struct vgpuctl_httpd_auth *n;
	int err;

	*a = NULL;
	if (!wc->nusers)
		return 0;
	n = calloc(1, sizeof(*n));
	if (!n)
		return vgpuctl_error("%s", strerror(ENOMEM));
	n->wc = wc;
	n->todo_tail = &n->todo;
	n->known = calloc(wc->nusers, sizeof(*n->known));
	n->has_known = calloc(wc->nusers, sizeof(*n->has_known));
	n->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (getrandom(n->key, sizeof(n->key), 0) != (ssize_t)sizeof(n->key) &&
	    RAND_bytes(n->key, sizeof(n->key)) != 1)
		err = EIO;
	else if (!n->known || !n->has_known)
		err = ENOMEM;
	else if (n->efd < 0)
		err = errno;
	else if (pthread_mutex_init(&n->mu, NULL) || pthread_cond_init(&n->cv, NULL))
		err = ENOMEM;
	else
		err = start_thread(n);
	if (err) {
		if (n->efd >= 0)
			close(n->efd);
		free(n->known);
		free(n->has_known);
		free(n);
		return vgpuctl_error("basic authentication: %s", strerror(err));
	}
	*a = n;
	return 0;
}

/**
 * vgpuctl_httpd_auth_stop() - stop the checker thread and free @a
 * @a: the authentication, or NULL
 *
 * Waits for the check under way, if any. Every connection must be closed
 * (detached) first.
 */
void vgpuctl_httpd_auth_stop(struct vgpuctl_httpd_auth *a)
{
	struct vgpuctl_httpd_check *k, *next;

	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	a->stop = true;
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->thread, NULL);
	for (k = a->todo; k; k = next) {
		next = k->next;
		check_free(k);
	}
	for (k = a->done; k; k = next) {
		next = k->next;
		check_free(k);
	}
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
	close(a->efd);
	explicit_bzero(a->key, sizeof(a->key));
	free(a->known);
	free(a->has_known);
	free(a);
}

/** vgpuctl_httpd_auth_fd() - readable when checks are done (for the loop's epoll). */
int vgpuctl_httpd_auth_fd(const struct vgpuctl_httpd_auth *a)
{
	return a->efd;
}

/* The index of the user @name (@len bytes), or -1. */
static int find_user(const struct vgpuctl_webconf *wc, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < wc->nusers; i++)
		if (strlen(wc->users[i].name) == len && !memcmp(wc->users[i].name, name, len))
			return (int)i;
	return -1;
}

/* Hand @k to the checker thread. */
static void submit(struct vgpuctl_httpd_auth *a, struct vgpuctl_httpd_check *k)
{
	pthread_mutex_lock(&a->mu);
	*a->todo_tail = k;
	a->todo_tail = &k->next;
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
	a->pending++;
}

/**
 * vgpuctl_httpd_auth_check() - whether @c's request may be answered
 * @a: the authentication
 * @c: a connection whose request is complete (@c->buf)
 *
 * Return: VGPU_HTTPD_ALLOWED for credentials accepted before;
 * VGPU_HTTPD_REFUSED for a request without credentials (or malformed
 * ones); VGPU_HTTPD_BUSY when VGPU_HTTPD_CHECKS_MAX checks wait already;
 * else VGPU_HTTPD_PENDING, the check given to the checker thread and
 * @c->check set (its result comes through vgpuctl_httpd_auth_collect()).
 */
enum vgpuctl_httpd_allow vgpuctl_httpd_auth_check(struct vgpuctl_httpd_auth *a,
						  struct vgpuctl_httpd_conn *c)
{
	char creds[VGPU_HTTPD_REQ_MAX];
	unsigned char d[DIGEST];
	struct vgpuctl_httpd_check *k;
	enum vgpuctl_httpd_allow r = VGPU_HTTPD_REFUSED;
	size_t ulen;
	int user;

	if (vgpuctl_httpd_basic(c->buf, creds, sizeof(creds), &ulen))
		return VGPU_HTTPD_REFUSED;
	user = find_user(a->wc, creds, ulen);
	if (!HMAC(EVP_sha256(), a->key, sizeof(a->key), (unsigned char *)creds, strlen(creds),
		  d, NULL))
		goto out;
	if (user >= 0 && a->has_known[user] && !CRYPTO_memcmp(d, a->known[user], DIGEST)) {
		r = VGPU_HTTPD_ALLOWED;
		goto out;
	}
	r = VGPU_HTTPD_BUSY;
	if (a->pending >= VGPU_HTTPD_CHECKS_MAX)
		goto out;
	k = calloc(1, sizeof(*k));
	if (!k || !(k->pass = strdup(creds + ulen + 1))) {
		free(k);
		goto out;
	}
	k->c = c;
	k->user = user;
	memcpy(k->digest, d, DIGEST);
	c->check = k;
	submit(a, k);
	r = VGPU_HTTPD_PENDING;
out:
	explicit_bzero(creds, sizeof(creds));
	return r;
}

/**
 * vgpuctl_httpd_auth_collect() - the results of the checks done
 * @a: the authentication
 * @fn: called with each connection still waiting and its verdict
 *      (@c->check cleared first: @fn may close it)
 * @arg: its argument
 *
 * Credentials accepted are remembered for their user.
 */
void vgpuctl_httpd_auth_collect(struct vgpuctl_httpd_auth *a, vgpuctl_httpd_checked_fn fn,
				void *arg)
{
	struct vgpuctl_httpd_check *k, *next;
	uint64_t n;
	ssize_t got;

	/* (EAGAIN: an earlier round took them) */
	got = read(a->efd, &n, sizeof(n));
	(void)got;
	pthread_mutex_lock(&a->mu);
	k = a->done;
	a->done = NULL;
	pthread_mutex_unlock(&a->mu);
	for (; k; k = next) {
		next = k->next;
		a->pending--;
		if (k->ok) {
			memcpy(a->known[k->user], k->digest, DIGEST);
			a->has_known[k->user] = true;
		}
		if (k->c) {
			k->c->check = NULL;
			fn(k->c, k->ok, arg);
		}
		check_free(k);
	}
}

/**
 * vgpuctl_httpd_auth_detach() - forget @c's check: its connection closes
 * @c: the connection
 *
 * The check goes on; its result is dropped when collected.
 */
void vgpuctl_httpd_auth_detach(struct vgpuctl_httpd_conn *c)
{
	if (c->check) {
		c->check->c = NULL;
		c->check = NULL;
	}
}
