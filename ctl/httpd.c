// SPDX-License-Identifier: GPL-2.0
/*
 * The HTTP server of vgpuctl metrics --listen (see httpd.h): what to
 * answer a request, and the listening socket. The serving is in
 * httpd_loop.c, a connection's exchange in httpd_conn.c.
 */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/socket.h>

#include "httpd.h"
#include "vgpuctl.h"

/**
 * vgpuctl_httpd_judge() - what to answer a request
 * @req: the bytes received
 * @len: how many
 * @complete: the header ends within them (an empty line)
 *
 * Return: 400 for a request with a NUL byte (decided at once, complete or
 * not: no HTTP header holds one), 431 for a request that did not end
 * within VGPU_HTTPD_REQ_MAX bytes, 400 for a malformed request line, 405
 * for a method other than GET, 404 for a path other than /metrics (a query
 * string is ignored), else 200.
 */
struct vgpuctl_httpd_verdict vgpuctl_httpd_judge(const char *req, size_t len, bool complete)
{
	const char *eol = memchr(req, '\n', len), *sp1, *sp2;
	size_t plen;

	if (memchr(req, '\0', len))
		return (struct vgpuctl_httpd_verdict){ 400, "NUL byte in the request" };
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
	/* A long queue: a burst of connections waits for accept() rather
	 * than being dropped into the client's 1 s SYN retry. */
	if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, SOMAXCONN)) {
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
