// SPDX-License-Identifier: GPL-2.0
/*
 * One connection of the HTTP server (httpd.h): a small state machine that
 * never blocks. Reading, it takes what has come of the request, at most
 * VGPU_HTTPD_REQ_MAX bytes; once the request is decided (its header ended,
 * it grew too long, or it holds a NUL byte) the answer is built, the body
 * of a 200 from the module, once, and writing sends what the socket takes.
 * A client that goes away is a failed recv() or send() (MSG_NOSIGNAL).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/socket.h>
#include <sys/uio.h>

#include "httpd.h"
#include "prom.h"

static const char *status_text(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 431: return "Request Header Fields Too Large";
	default: return "Internal Server Error";
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
			 blen, status == 405 ? "Allow: GET\r\n" : "");

	c->hlen = n < (int)sizeof(c->head) ? (size_t)n : sizeof(c->head) - 1;
	c->buf = body;
	c->len = blen;
	c->sent = 0;
	c->writing = true;
}

/* Answer @v, the metrics for a 200; then send what the socket takes. */
static enum vgpuctl_httpd_step answer(struct vgpuctl_httpd_conn *c,
				      struct vgpuctl_httpd_verdict v,
				      vgpuctl_httpd_body_fn fn, void *arg)
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
		err = !f || fn(f, arg) < 0;
		if (f && fclose(f))
			err = 1;
		if (!err) {
			set_answer(c, 200, body, blen);
			return vgpuctl_httpd_conn_write(c);
		}
		free(body);
		v = (struct vgpuctl_httpd_verdict){ 500, "cannot read the vgpu module" };
	}
	n = asprintf(&body, "%s\n", v.reason);
	if (n < 0)
		return VGPU_HTTPD_DONE;
	set_answer(c, v.status, body, (size_t)n);
	return vgpuctl_httpd_conn_write(c);
}

/* Whether the header ends within @len bytes of @buf, @old of them seen before. */
static bool header_ends(const char *buf, size_t old, size_t len)
{
	size_t from = old > 3 ? old - 3 : 0;	/* an end split across reads */

	return memmem(buf + from, len - from, "\r\n\r\n", 4) ||
	       memmem(buf + from, len - from, "\n\n", 2);
}

/**
 * vgpuctl_httpd_conn_read() - take what has come of @c's request
 * @c: a connection still reading (!@c->writing)
 * @fn: writes the metrics, once the request asks for them
 * @arg: its argument
 *
 * Once the request is decided, its answer is built and sent as far as the
 * socket takes it.
 *
 * Return: what @c waits for next; VGPU_HTTPD_DONE for a client that went
 * away or closed before its request ended (nothing to answer), or one
 * whose answer is sent.
 */
enum vgpuctl_httpd_step vgpuctl_httpd_conn_read(struct vgpuctl_httpd_conn *c,
						vgpuctl_httpd_body_fn fn, void *arg)
{
	char in[VGPU_HTTPD_REQ_MAX];
	bool complete, nul;
	ssize_t r;
	char *p;

	r = recv(c->fd, in, VGPU_HTTPD_REQ_MAX - c->len, MSG_DONTWAIT);
	if (r < 0)
		return errno == EAGAIN || errno == EINTR ? VGPU_HTTPD_READ : VGPU_HTTPD_DONE;
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
	if (!complete && !nul && c->len < VGPU_HTTPD_REQ_MAX)
		return VGPU_HTTPD_READ;
	return answer(c, vgpuctl_httpd_judge(c->buf, c->len, complete), fn, arg);
}

/**
 * vgpuctl_httpd_conn_write() - send what the socket takes of @c's answer
 * @c: a connection writing (@c->writing)
 *
 * Return: VGPU_HTTPD_WRITE while some is left, else VGPU_HTTPD_DONE (sent,
 * or the client went away).
 */
enum vgpuctl_httpd_step vgpuctl_httpd_conn_write(struct vgpuctl_httpd_conn *c)
{
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
		r = sendmsg(c->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return VGPU_HTTPD_WRITE;
		if (r <= 0)
			return VGPU_HTTPD_DONE;
		c->sent += (size_t)r;
	}
	return VGPU_HTTPD_DONE;
}
