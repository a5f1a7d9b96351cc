// SPDX-License-Identifier: GPL-2.0
/*
 * One connection of the HTTP server (httpd.h): a small state machine that
 * never blocks. Over TLS it first goes through its handshake
 * (httpd_tls.c). Reading, it takes what has come of the request, at most
 * VGPU_HTTPD_REQ_MAX bytes; once the request is decided (its header ended,
 * it grew too long, or it holds a NUL byte) it is judged, and with basic
 * authentication a well-formed request's credentials are checked
 * (httpd_auth.c: at once for credentials accepted before, else by the
 * checker thread while the connection waits). Then the answer is built,
 * the body of a 200 from the module, once, and writing sends what the
 * socket takes. A client that goes away is a failed recv() or send()
 * (MSG_NOSIGNAL), or a failed TLS record.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/socket.h>
#include <sys/uio.h>

#include "httpd.h"
#include "prom.h"

static const char *status_text(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 431: return "Request Header Fields Too Large";
	case 503: return "Service Unavailable";
	default: return "Internal Server Error";
	}
}

/* An answer's own header line, if any. */
static const char *extra_header(int status)
{
	switch (status) {
	case 401: return "WWW-Authenticate: Basic realm=\"vgpu\", charset=\"UTF-8\"\r\n";
	case 405: return "Allow: GET\r\n";
	case 503: return "Retry-After: 1\r\n";
	default: return "";
	}
}

/* @c's answer: its head, and @body (malloc'ed, taken over) as it is. */
static void set_answer(struct vgpuctl_httpd_conn *c, int status, char *body, size_t blen)
{
	int n = snprintf(c->head, sizeof(c->head),
			 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			 "%sConnection: close\r\n\r\n",
			 status, status_text(status),
			 status == 200 ? VGPU_PROM_CONTENT_TYPE : "text/plain; charset=utf-8",
			 blen, extra_header(status));

	c->hlen = n < (int)sizeof(c->head) ? (size_t)n : sizeof(c->head) - 1;
	c->buf = body;
	c->len = blen;
	c->sent = 0;
	c->phase = VGPU_HTTPD_ANSWER;
}

static enum vgpuctl_httpd_step write_answer(struct vgpuctl_httpd_conn *c);

/* Answer @v, the metrics for a 200; then send what the socket takes. */
static enum vgpuctl_httpd_step answer(struct vgpuctl_httpd_conn *c,
				      struct vgpuctl_httpd_verdict v,
				      const struct vgpuctl_httpd_server *srv)
{
	char *body = NULL;
	size_t blen = 0;
	FILE *f;
	int err, n;

	free(c->buf);
	c->buf = NULL;
	c->len = 0;
	if (v.status == 200) {
		/* (the body is sent from the stream's own buffer: not copied) */
		f = open_memstream(&body, &blen);
		err = !f || srv->fn(f, srv->arg) < 0;
		if (f && fclose(f))
			err = 1;
		if (!err) {
			set_answer(c, 200, body, blen);
			return write_answer(c);
		}
		free(body);
		v = (struct vgpuctl_httpd_verdict){ 500, "cannot read the vgpu module" };
	}
	n = asprintf(&body, "%s\n", v.reason);
	if (n < 0)
		return VGPU_HTTPD_DONE;
	set_answer(c, v.status, body, (size_t)n);
	return write_answer(c);
}

static const struct vgpuctl_httpd_verdict unauthorized = { 401, "credentials needed" };
static const struct vgpuctl_httpd_verdict busy = { 503, "too many password checks waiting" };

/* The answer to a judged request: with authentication, once allowed. */
static enum vgpuctl_httpd_step decide(struct vgpuctl_httpd_conn *c,
				      struct vgpuctl_httpd_verdict v,
				      const struct vgpuctl_httpd_server *srv)
{
	if (!srv->auth || v.status == 400 || v.status == 431)
		return answer(c, v, srv);
	switch (vgpuctl_httpd_auth_check(srv->auth, c)) {
	case VGPU_HTTPD_ALLOWED:
		return answer(c, v, srv);
	case VGPU_HTTPD_PENDING:
		c->verdict = v;
		c->phase = VGPU_HTTPD_CHECKING;
		return VGPU_HTTPD_WAIT;
	case VGPU_HTTPD_BUSY:
		return answer(c, busy, srv);
	default:
		return answer(c, unauthorized, srv);
	}
}

/* Whether the header ends within @len bytes of @buf, @old of them seen before. */
static bool header_ends(const char *buf, size_t old, size_t len)
{
	size_t from = old > 3 ? old - 3 : 0;	/* an end split across reads */

	return memmem(buf + from, len - from, "\r\n\r\n", 4) ||
	       memmem(buf + from, len - from, "\n\n", 2);
}

/* Bytes of the request from @c: > 0, -1 when none yet (*@again), 0: gone. */
static ssize_t take(struct vgpuctl_httpd_conn *c, char *buf, size_t n,
		    enum vgpuctl_httpd_step *again)
{
	ssize_t r;

	if (c->tls)
		return vgpuctl_httpd_tls_recv(c, buf, n, again);
	r = recv(c->fd, buf, n, MSG_DONTWAIT);
	if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
		*again = VGPU_HTTPD_READ;
		return -1;
	}
	return r < 0 ? 0 : r;
}

/*
 * Take what has come of @c's request (all of it: TLS may hold some that
 * the socket no longer shows); once it is decided, its answer. DONE for a
 * client that went away or closed before its request ended.
 */
static enum vgpuctl_httpd_step read_request(struct vgpuctl_httpd_conn *c,
					    const struct vgpuctl_httpd_server *srv)
{
	enum vgpuctl_httpd_step again = VGPU_HTTPD_READ;
	char in[VGPU_HTTPD_REQ_MAX];
	bool complete, nul;
	ssize_t r;
	char *p;

	for (;;) {
		r = take(c, in, VGPU_HTTPD_REQ_MAX - c->len, &again);
		if (r < 0)
			return again;
		if (r == 0)
			return VGPU_HTTPD_DONE;
		/* Grown by what came: a silent or slow client holds little memory. */
		p = realloc(c->buf, c->len + (size_t)r + 1);
		if (!p)
			return VGPU_HTTPD_DONE;
		memcpy(p + c->len, in, (size_t)r);
		c->buf = p;
		c->len += (size_t)r;
		p[c->len] = '\0';
		complete = header_ends(p, c->len - (size_t)r, c->len);
		nul = memchr(in, '\0', (size_t)r);
		if (complete || nul || c->len >= VGPU_HTTPD_REQ_MAX)
			return decide(c, vgpuctl_httpd_judge(c->buf, c->len, complete), srv);
	}
}

/* Send what the socket takes of @c's answer: WRITE while some is left. */
static enum vgpuctl_httpd_step write_answer(struct vgpuctl_httpd_conn *c)
{
	enum vgpuctl_httpd_step again = VGPU_HTTPD_WRITE;
	struct iovec iov[2];
	struct msghdr m = { .msg_iov = iov };
	size_t off;
	ssize_t r;

	while (c->sent < c->hlen + c->len) {
		m.msg_iovlen = 0;
		if (c->sent < c->hlen)
			iov[m.msg_iovlen++] = (struct iovec){ c->head + c->sent, c->hlen - c->sent };
		off = c->sent > c->hlen ? c->sent - c->hlen : 0;
		if (off < c->len)
			iov[m.msg_iovlen++] = (struct iovec){ c->buf + off, c->len - off };
		if (c->tls) {
			/* (one record at a time; the same bytes again after a wait) */
			r = vgpuctl_httpd_tls_send(c, iov[0].iov_base, iov[0].iov_len, &again);
			if (r < 0)
				return again;
		} else {
			r = sendmsg(c->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0 && errno == EAGAIN)
				return VGPU_HTTPD_WRITE;
		}
		if (r <= 0)
			return VGPU_HTTPD_DONE;
		c->sent += (size_t)r;
	}
	if (c->tls)
		vgpuctl_httpd_tls_end(c);
	return VGPU_HTTPD_DONE;
}

/**
 * vgpuctl_httpd_conn_init() - a new connection's first phase
 * @c: the connection, just accepted
 * @srv: the server: over TLS, its handshake comes first
 *
 * Return: 0, or -1 when out of memory.
 */
int vgpuctl_httpd_conn_init(struct vgpuctl_httpd_conn *c, const struct vgpuctl_httpd_server *srv)
{
	c->phase = srv->tls ? VGPU_HTTPD_HANDSHAKE : VGPU_HTTPD_REQUEST;
	return srv->tls ? vgpuctl_httpd_tls_open(c, srv->tls) : 0;
}

/**
 * vgpuctl_httpd_conn_step() - go on with @c, its socket ready
 * @c: the connection
 * @srv: what is served, and to whom
 *
 * A handshake done, the request is read; a request decided, its answer
 * is built and sent as far as the socket takes it.
 *
 * Return: what @c waits for next; VGPU_HTTPD_DONE for a client that went
 * away, failed its handshake or closed before its request ended (nothing
 * to answer), one whose socket failed while its password was checked, or
 * one whose answer is sent.
 */
enum vgpuctl_httpd_step vgpuctl_httpd_conn_step(struct vgpuctl_httpd_conn *c,
						const struct vgpuctl_httpd_server *srv)
{
	enum vgpuctl_httpd_step again = VGPU_HTTPD_READ;
	int r;

	switch (c->phase) {
	case VGPU_HTTPD_HANDSHAKE:
		r = vgpuctl_httpd_tls_accept(c, &again);
		if (r <= 0)
			return r < 0 ? again : VGPU_HTTPD_DONE;
		c->phase = VGPU_HTTPD_REQUEST;
		/* (the request may have come with the handshake's end) */
		return read_request(c, srv);
	case VGPU_HTTPD_REQUEST:
		return read_request(c, srv);
	case VGPU_HTTPD_ANSWER:
		return write_answer(c);
	default:
		return VGPU_HTTPD_DONE;	/* checking: the socket hung up or failed */
	}
}

/**
 * vgpuctl_httpd_conn_checked() - answer @c, its password checked
 * @c: a connection that was VGPU_HTTPD_CHECKING
 * @srv: what is served
 * @ok: the credentials are right
 *
 * Return: what @c waits for next.
 */
enum vgpuctl_httpd_step vgpuctl_httpd_conn_checked(struct vgpuctl_httpd_conn *c,
						   const struct vgpuctl_httpd_server *srv,
						   bool ok)
{
	return answer(c, ok ? c->verdict : unauthorized, srv);
}

/**
 * vgpuctl_httpd_conn_release() - what @c holds, let go
 * @c: the connection: its check forgotten, its TLS freed, its socket
 *     closed, its buffer freed (@c itself is the table's)
 */
void vgpuctl_httpd_conn_release(struct vgpuctl_httpd_conn *c)
{
	vgpuctl_httpd_auth_detach(c);
	if (c->tls)
		vgpuctl_httpd_tls_free(c);
	close(c->fd);
	free(c->buf);
	c->buf = NULL;
}
