// SPDX-License-Identifier: GPL-2.0
/*
 * The listening socket of vgpuctl metrics --listen (httpd.h). Anyone who
 * can connect reads every tenant's metrics, so the default is the
 * loopback: "PORT" and ":PORT" listen on 127.0.0.1, and every address
 * only when named ("0.0.0.0:PORT", "[::]:PORT").
 *
 * "unix:PATH" listens on a Unix socket instead, whose permissions decide
 * who connects: it is created with mode 0600 (owner only) and then given
 * its group and mode (--socket-group, --socket-mode), so it is never
 * more open than asked, even for a moment. A socket left at PATH by a
 * server that is gone (connecting is refused) is removed first; a live
 * one, or anything at PATH that is not a socket, is refused. At the end
 * the socket is removed, if PATH is still the one bound.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "httpd.h"
#include "../vgpuctl.h"

/* Bind and listen on @fd; the socket (@fd closed on failure). */
static int bind_listen(int fd, const struct sockaddr *sa, socklen_t len, const char *name)
{
	int err;

	/* A long queue: a burst of connections waits for accept() rather
	 * than being dropped into the client's 1 s SYN retry. */
	if (fd < 0 || bind(fd, sa, len) || listen(fd, SOMAXCONN)) {
		err = errno;
		if (fd >= 0)
			close(fd);
		return vgpuctl_error("cannot listen on %s: %s", name, strerror(err));
	}
	return 0;
}

/* "PORT" or ":PORT" (the loopback), "ADDR:PORT", "[ADDR6]:PORT". */
static int listen_tcp(const char *addr, struct vgpuctl_httpd_listener *l)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };
	const char *colon = strrchr(addr, ':'), *h = addr, *port = colon ? colon + 1 : addr;
	size_t hlen = colon ? (size_t)(colon - addr) : 0;
	char host[64];
	struct addrinfo *ai;
	int one = 1, err, fd;

	if (!port[0] || strspn(port, "0123456789") != strlen(port) || strlen(port) > 5 ||
	    atoi(port) < 1 || atoi(port) > 65535)
		return vgpuctl_usage_error("invalid ADDR:PORT \"%s\" for --listen (e.g. 127.0.0.1:9400)",
					   addr);
	if (hlen >= 2 && h[0] == '[' && h[hlen - 1] == ']') {
		h++;
		hlen -= 2;
	}
	if (hlen >= sizeof(host))
		return vgpuctl_usage_error("invalid ADDR:PORT \"%s\" for --listen", addr);
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	err = getaddrinfo(hlen ? host : "127.0.0.1", port, &hints, &ai);
	if (err)
		return vgpuctl_usage_error("invalid ADDR:PORT \"%s\" for --listen: %s",
					   addr, gai_strerror(err));
	snprintf(l->name, sizeof(l->name), ai->ai_family == AF_INET6 ? "[%s]:%s" : "%s:%s",
		 hlen ? host : "127.0.0.1", port);
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	err = bind_listen(fd, ai->ai_addr, ai->ai_addrlen, l->name);
	freeaddrinfo(ai);
	if (!err)
		l->fd = fd;
	return err;
}

/* What is at @path: nothing, or a socket no server listens on (removed). */
static int clear_path(const char *path, const struct sockaddr_un *sa)
{
	struct stat st;
	int fd, err;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : vgpuctl_error("cannot listen on unix:%s: %s", path,
							    strerror(errno));
	if (!S_ISSOCK(st.st_mode))
		return vgpuctl_error("cannot listen on unix:%s: it exists and is not a socket (not removed)",
				     path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return vgpuctl_error("socket: %s", strerror(errno));
	err = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) ? errno : 0;
	close(fd);
	if (!err)
		return vgpuctl_error("cannot listen on unix:%s: a server is listening there", path);
	if (err != ECONNREFUSED)
		return vgpuctl_error("cannot listen on unix:%s: %s", path, strerror(err));
	if (unlink(path) && errno != ENOENT)
		return vgpuctl_error("cannot remove the stale socket %s: %s", path,
				     strerror(errno));
	return 0;
}

/* "unix:PATH": created 0600, then given its group and mode. */
static int listen_unix(const struct vgpuctl_httpd_where *w, struct vgpuctl_httpd_listener *l)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = w->addr + 5;
	struct stat st;
	mode_t old;
	int fd, err;

	if (!path[0] || strlen(path) >= sizeof(sa.sun_path))
		return vgpuctl_usage_error("invalid unix:PATH \"%s\" for --listen (a path of 1-%zu bytes)",
					   w->addr, sizeof(sa.sun_path) - 1);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	snprintf(l->name, sizeof(l->name), "unix:%s", path);
	err = clear_path(path, &sa);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	old = umask(0177);
	err = bind_listen(fd, (const struct sockaddr *)&sa, sizeof(sa), l->name);
	umask(old);
	if (err)
		return err;
	l->fd = fd;
	l->path = strdup(path);
	if (!l->path || lstat(path, &st)) {
		err = vgpuctl_error("cannot listen on %s: %s", l->name,
				    strerror(l->path ? errno : ENOMEM));
		vgpuctl_httpd_unlisten(l);
		return err;
	}
	l->dev = st.st_dev;
	l->ino = st.st_ino;
	if ((w->has_gid && chown(path, (uid_t)-1, (gid_t)w->gid)) || chmod(path, w->mode)) {
		err = vgpuctl_error("cannot give %s its group or mode: %s", path, strerror(errno));
		vgpuctl_httpd_unlisten(l);
		return err;
	}
	return 0;
}

/**
 * vgpuctl_httpd_listen() - open the listening socket
 * @w: where, and a Unix socket's group and mode
 * @l: out: the socket (close with vgpuctl_httpd_unlisten())
 *
 * Return: 0, VGPU_EXIT_USAGE for a bad address (with its error line), or
 * VGPU_EXIT_ERR when the socket cannot be made.
 */
int vgpuctl_httpd_listen(const struct vgpuctl_httpd_where *w, struct vgpuctl_httpd_listener *l)
{
	memset(l, 0, sizeof(*l));
	l->fd = -1;
	if (!strncmp(w->addr, "unix:", 5))
		return listen_unix(w, l);
	return listen_tcp(w->addr, l);
}

/**
 * vgpuctl_httpd_unlisten() - close the listening socket
 * @l: the socket; a Unix one is removed if its path is still the socket
 *     bound (not one another server put there since)
 */
void vgpuctl_httpd_unlisten(struct vgpuctl_httpd_listener *l)
{
	struct stat st;

	if (l->path && !lstat(l->path, &st) && S_ISSOCK(st.st_mode) &&
	    st.st_dev == l->dev && st.st_ino == l->ino)
		unlink(l->path);
	free(l->path);
	l->path = NULL;
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}
