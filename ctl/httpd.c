// SPDX-License-Identifier: GPL-2.0
/*
 * The HTTP server of vgpuctl metrics --listen (see httpd.h). A client has
 * VGPU_HTTPD_TIMEOUT_MS to send its request and as long to take the
 * answer; one that sends nothing, or too much, is answered (408 is not
 * sent: the connection is closed) or refused and the server goes on.
 * SIGPIPE is ignored: a client that goes away is a failed send().
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/socket.h>

#include "httpd.h"
#include "prom.h"
#include "vgpuctl.h"

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

/**
 * vgpuctl_httpd_judge() - what to answer a request
 * @req: the bytes received
 * @len: how many
 * @complete: the header ends within them (an empty line)
 *
 * Return: 200 for GET /metrics (a query string is ignored), 405 for
 * another method, 404 for another path, 431 for a request that did not
 * end within VGPU_HTTPD_REQ_MAX bytes, 400 for a malformed request line.
 */
struct vgpuctl_httpd_verdict vgpuctl_httpd_judge(const char *req, size_t len, bool complete)
{
	const char *eol = memchr(req, '\n', len), *sp1, *sp2;
	size_t plen;

	if (!complete)
		return (struct vgpuctl_httpd_verdict){ 431, "request over 8192 bytes" };
	sp1 = eol ? memchr(req, ' ', (size_t)(eol - req)) : NULL;
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1)) : NULL;
	if (!sp2 || sp1 == req || sp2 == sp1 + 1 || (size_t)(eol - sp2) < 9 ||
	    strncmp(sp2 + 1, "HTTP/1.", 7))
		return (struct vgpuctl_httpd_verdict){ 400, "malformed request line" };
	if (sp1 - req != 3 || strncmp(req, "GET", 3))
		return (struct vgpuctl_httpd_verdict){ 405, "only GET is served" };
	plen = strcspn(sp1 + 1, "? ");
	if (plen != 8 || strncmp(sp1 + 1, "/metrics", 8))
		return (struct vgpuctl_httpd_verdict){ 404, "only /metrics is served" };
	return (struct vgpuctl_httpd_verdict){ 200, "" };
}

/**
 * vgpuctl_httpd_listen() - open the listening socket
 * @addr: "ADDR:PORT", "[ADDR6]:PORT" or ":PORT" (every address)
 * @lfd: out: the socket
 *
 * Return: 0, VGPU_EXIT_USAGE for a bad address (with its error line), or
 * VGPU_EXIT_ERR when the socket cannot be bound.
 */
int vgpuctl_httpd_listen(const char *addr, int *lfd)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV };
	char host[64];
	const char *colon = strrchr(addr, ':'), *h = addr;
	size_t hlen;
	struct addrinfo *ai;
	int one = 1, err, fd;

	if (!colon || !colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1) ||
	    atoi(colon + 1) < 1 || atoi(colon + 1) > 65535 || strlen(colon + 1) > 5)
		return vgpuctl_usage_error("invalid ADDR:PORT \"%s\" for --listen (e.g. 127.0.0.1:9400)",
					   addr);
	hlen = (size_t)(colon - addr);
	if (hlen >= 2 && h[0] == '[' && h[hlen - 1] == ']') {
		h++;
		hlen -= 2;
	}
	if (hlen >= sizeof(host))
		return vgpuctl_usage_error("invalid ADDR:PORT \"%s\" for --listen", addr);
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	err = getaddrinfo(hlen ? host : NULL, colon + 1, &hints, &ai);
	if (err)
		return vgpuctl_usage_error("invalid ADDR:PORT \"%s\" for --listen: %s",
					   addr, gai_strerror(err));
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 16)) {
		err = errno;
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return vgpuctl_error("cannot listen on %s: %s", addr, strerror(err));
	}
	freeaddrinfo(ai);
	*lfd = fd;
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for @events on @fd until @deadline; 1 ready, 0 timed out, < 0 error. */
static int wait_fd(int fd, short events, long long deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	long long left;
	int r;

	for (;;) {
		left = deadline - now_ms();
		if (left <= 0)
			return 0;
		r = poll(&p, 1, (int)left);
		if (r >= 0 || errno != EINTR)
			return r > 0 ? 1 : r;
	}
}

/* Read the request head into @buf; its length, or -1 (closed, timed out). */
static ssize_t read_request(int fd, char *buf, long long deadline, bool *complete)
{
	size_t len = 0;
	ssize_t r;

	*complete = false;
	while (len < VGPU_HTTPD_REQ_MAX) {
		if (wait_fd(fd, POLLIN, deadline) != 1)
			return -1;
		r = recv(fd, buf + len, VGPU_HTTPD_REQ_MAX - len, MSG_DONTWAIT);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			return -1;
		len += (size_t)r;
		buf[len] = '\0';
		if (strstr(buf, "\r\n\r\n") || strstr(buf, "\n\n")) {
			*complete = true;
			break;
		}
	}
	return (ssize_t)len;
}

static int send_all(int fd, const char *p, size_t len, long long deadline)
{
	ssize_t r;

	while (len) {
		if (wait_fd(fd, POLLOUT, deadline) != 1)
			return -1;
		r = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			return -1;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

/* The answer: status line, headers, body (the reason for an error). */
static void answer(int fd, int status, const char *body, size_t blen, long long deadline)
{
	char head[256];
	int n;

	n = snprintf(head, sizeof(head),
		     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		     "%sConnection: close\r\n\r\n",
		     status, status_text(status),
		     status == 200 ? VGPU_PROM_CONTENT_TYPE : "text/plain; charset=utf-8",
		     blen, status == 405 ? "Allow: GET\r\n" : "");
	if (send_all(fd, head, (size_t)n, deadline) == 0)
		send_all(fd, body, blen, deadline);
}

/* One connection, from its request to its close. */
static void serve_one(int fd, vgpuctl_httpd_body_fn fn, void *arg)
{
	long long deadline = now_ms() + VGPU_HTTPD_TIMEOUT_MS;
	char req[VGPU_HTTPD_REQ_MAX + 1], msg[64];
	struct vgpuctl_httpd_verdict v;
	bool complete;
	ssize_t len = read_request(fd, req, deadline, &complete);
	char *body = NULL;
	size_t blen = 0;
	FILE *f;

	if (len < 0)
		return;		/* silent, closed or timed out: nothing to answer */
	v = vgpuctl_httpd_judge(req, (size_t)len, complete);
	deadline = now_ms() + VGPU_HTTPD_TIMEOUT_MS;
	if (v.status != 200) {
		int n = snprintf(msg, sizeof(msg), "%s\n", v.reason);

		answer(fd, v.status, msg, (size_t)n, deadline);
		return;
	}
	f = open_memstream(&body, &blen);
	if (!f || fn(f, arg) < 0) {
		if (f)
			fclose(f);
		free(body);
		answer(fd, 500, "cannot read the vgpu module\n", 28, deadline);
		return;
	}
	fclose(f);
	answer(fd, 200, body, blen, deadline);
	free(body);
}

/**
 * vgpuctl_httpd_serve() - answer connections until a stop signal
 * @lfd: the listening socket
 * @sfd: the signalfd of vgpuctl_stop_signals()
 * @fn: writes the metrics
 * @arg: its argument
 *
 * Return: VGPU_EXIT_OK after SIGINT or SIGTERM, else VGPU_EXIT_ERR.
 */
int vgpuctl_httpd_serve(int lfd, int sfd, vgpuctl_httpd_body_fn fn, void *arg)
{
	struct pollfd p[2] = { { .fd = lfd, .events = POLLIN }, { .fd = sfd, .events = POLLIN } };
	int fd;

	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return vgpuctl_error("poll: %s", strerror(errno));
		}
		if (p[1].revents)
			return VGPU_EXIT_OK;
		if (!(p[0].revents & POLLIN))
			continue;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			int e = errno;

			if (e == EMFILE || e == ENFILE)
				usleep(100000);	/* until a descriptor is free */
			if (e == EINTR || e == ECONNABORTED || e == EAGAIN ||
			    e == EMFILE || e == ENFILE)
				continue;
			return vgpuctl_error("accept: %s", strerror(e));
		}
		serve_one(fd, fn, arg);
		close(fd);
	}
}
