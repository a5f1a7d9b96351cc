// SPDX-License-Identifier: GPL-2.0
/*
 * libvgpu-standin.so: preloaded before libvgpu (and alone under vgpuctl),
 * it redirects what libvgpu and vgpuctl do with vgpu.ko to the stand-in
 * daemon (standin.h), so that the libvgpu users install runs unchanged on
 * a host that cannot load the module:
 *
 * - open("/dev/vgpu") connects to the daemon and returns that socket; its
 *   mmap maps the daemon's memfd instead, its ioctls are sent over it;
 * - socket(AF_NETLINK, ..., NETLINK_GENERIC) returns a connection to the
 *   daemon, which speaks generic netlink; bind, getsockname and the
 *   netlink socket options are answered here, and receives get a kernel's
 *   source address (libnl checks it).
 *
 * Everything else goes to the kernel untouched. The real calls are made
 * with syscall(): dlsym(RTLD_NEXT) would go through libvgpu's own dlsym.
 * Without $VGPU_STANDIN_SOCK nothing is redirected.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "../../../uapi/vgpu_dev.h"
#include "standin.h"

#define STANDIN_FDS 4096
#define STANDIN_EXPORT __attribute__((visibility("default")))

/* Per descriptor: what it stands for (0: nothing of ours). */
static struct {
	int kind;
	int memfd;		/* STANDIN_DEV: the daemon's pages */
	uint32_t port;		/* STANDIN_NL: the port bound (getsockname) */
} standin_fd[STANDIN_FDS];

static int standin_ours(int fd, int kind)
{
	return fd >= 0 && fd < STANDIN_FDS && standin_fd[fd].kind == kind;
}

/* A connection to the daemon announcing kind; the descriptor or -1. */
static int standin_connect(int kind, int cloexec)
{
	const char *path = getenv(STANDIN_SOCK_ENV);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct standin_hello h = { STANDIN_MAGIC, (uint32_t)kind };
	int fd, e;

	if (!path || strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENOENT;
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = (int)syscall(SYS_socket, AF_UNIX, SOCK_SEQPACKET | (cloexec ? SOCK_CLOEXEC : 0), 0);
	if (fd < 0)
		return -1;
	if (fd >= STANDIN_FDS) {
		e = EMFILE;
		goto fail;
	}
	if (syscall(SYS_connect, fd, &sa, sizeof(sa)) < 0 ||
	    syscall(SYS_sendto, fd, &h, sizeof(h), MSG_NOSIGNAL, NULL, 0) != (long)sizeof(h)) {
		e = errno;
		goto fail;
	}
	return fd;
fail:
	syscall(SYS_close, fd);
	errno = e;
	return -1;
}

/* The daemon's answer to a device's hello: its memfd. */
static int standin_recv_memfd(int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))], b;
	struct iovec iov = { &b, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	int memfd;

	if (syscall(SYS_recvmsg, fd, &m, MSG_CMSG_CLOEXEC) < 1)
		return -1;
	c = CMSG_FIRSTHDR(&m);
	if (!c || c->cmsg_type != SCM_RIGHTS || b != 'y') {
		errno = b == 'n' ? ENODEV : EPROTO;
		return -1;
	}
	memcpy(&memfd, CMSG_DATA(c), sizeof(memfd));
	return memfd;
}

static int standin_open_dev(int flags)
{
	int fd = standin_connect(STANDIN_DEV, flags & O_CLOEXEC), memfd, e;

	if (fd < 0)
		return -1;
	memfd = standin_recv_memfd(fd);
	if (memfd < 0) {
		e = errno;
		syscall(SYS_close, fd);
		errno = e;
		return -1;
	}
	standin_fd[fd].memfd = memfd;
	standin_fd[fd].kind = STANDIN_DEV;
	return fd;
}

STANDIN_EXPORT int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (!strcmp(path, VGPU_DEV_PATH) && getenv(STANDIN_SOCK_ENV))
		return standin_open_dev(flags);
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

/* The same under the names a build with _FILE_OFFSET_BITS=64 or
 * _FORTIFY_SOURCE calls (a libvgpu built so would bypass open otherwise;
 * Python's os.open, which the sanitizer check uses, is one). */
STANDIN_EXPORT int open64(const char *path, int flags, ...) __attribute__((alias("open")));

STANDIN_EXPORT int __open_2(const char *path, int flags)
{
	return open(path, flags);
}

STANDIN_EXPORT int __open64_2(const char *path, int flags)
{
	return open(path, flags);
}

STANDIN_EXPORT int close(int fd)
{
	if (fd >= 0 && fd < STANDIN_FDS && standin_fd[fd].kind) {
		if (standin_fd[fd].kind == STANDIN_DEV)
			syscall(SYS_close, standin_fd[fd].memfd);
		memset(&standin_fd[fd], 0, sizeof(standin_fd[fd]));
	}
	return (int)syscall(SYS_close, fd);
}

STANDIN_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (standin_ours(fd, STANDIN_DEV)) {
		if (off != 0 && off != VGPU_DEV_GATE_OFFSET) {
			errno = EINVAL;
			return MAP_FAILED;
		}
		fd = standin_fd[fd].memfd;
	}
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

STANDIN_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
	__attribute__((alias("mmap")));

/* One ioctl of /dev/vgpu, asked of the daemon. */
static int standin_dev_ioctl(int fd, unsigned long req, void *arg)
{
	struct standin_ioc m = { .req = (uint32_t)req };
	size_t sz = _IOC_SIZE(req);
	long n;

	if (_IOC_TYPE(req) != VGPU_IOC_MAGIC || sz > sizeof(m.arg)) {
		errno = ENOTTY;
		return -1;
	}
	memcpy(m.arg, arg, sz);
	if (syscall(SYS_sendto, fd, &m, sizeof(m), MSG_NOSIGNAL, NULL, 0) != (long)sizeof(m))
		return -1;
	do
		n = syscall(SYS_recvfrom, fd, &m, sizeof(m), 0, NULL, NULL);
	while (n < 0 && errno == EINTR);	/* an answer is owed: wait for it */
	if (n != (long)sizeof(m)) {
		errno = n == 0 ? ENODEV : errno;
		return -1;
	}
	memcpy(arg, m.arg, sz);
	if (m.rc) {
		errno = -m.rc;
		return -1;
	}
	return 0;
}

STANDIN_EXPORT int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (standin_ours(fd, STANDIN_DEV))
		return standin_dev_ioctl(fd, req, arg);
	return (int)syscall(SYS_ioctl, fd, req, arg);
}

STANDIN_EXPORT int socket(int domain, int type, int proto)
{
	int fd;

	if (domain != AF_NETLINK || proto != NETLINK_GENERIC || !getenv(STANDIN_SOCK_ENV))
		return (int)syscall(SYS_socket, domain, type, proto);
	fd = standin_connect(STANDIN_NL, type & SOCK_CLOEXEC);
	if (fd >= 0)
		standin_fd[fd].kind = STANDIN_NL;
	return fd;
}

STANDIN_EXPORT int bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	if (!standin_ours(fd, STANDIN_NL))
		return (int)syscall(SYS_bind, fd, sa, len);
	if (len < sizeof(struct sockaddr_nl) || sa->sa_family != AF_NETLINK) {
		errno = EINVAL;
		return -1;
	}
	/* port 0: the kernel picks one; the process id, as it does first */
	standin_fd[fd].port = ((const struct sockaddr_nl *)sa)->nl_pid;
	if (!standin_fd[fd].port)
		standin_fd[fd].port = (uint32_t)getpid();
	return 0;
}

static void standin_kernel_addr(void *addr, socklen_t *len, uint32_t port)
{
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK, .nl_pid = port };

	if (!addr || !len)
		return;
	memcpy(addr, &nl, *len < sizeof(nl) ? *len : sizeof(nl));
	*len = sizeof(nl);
}

STANDIN_EXPORT int getsockname(int fd, struct sockaddr *sa, socklen_t *len)
{
	if (!standin_ours(fd, STANDIN_NL))
		return (int)syscall(SYS_getsockname, fd, sa, len);
	standin_kernel_addr(sa, len, standin_fd[fd].port);
	return 0;
}

/* Netlink's own options (extended acks and the like) mean nothing here. */
STANDIN_EXPORT int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	if (standin_ours(fd, STANDIN_NL) && level == SOL_NETLINK)
		return 0;
	return (int)syscall(SYS_setsockopt, fd, level, name, val, len);
}

STANDIN_EXPORT int getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	if (standin_ours(fd, STANDIN_NL) && level == SOL_NETLINK) {
		if (val && len && *len >= sizeof(int))
			memset(val, 0, sizeof(int));
		return 0;
	}
	return (int)syscall(SYS_getsockopt, fd, level, name, val, len);
}

STANDIN_EXPORT ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
	ssize_t n = syscall(SYS_recvmsg, fd, m, flags);

	if (n >= 0 && standin_ours(fd, STANDIN_NL))
		standin_kernel_addr(m->msg_name, &m->msg_namelen, 0);
	return n;
}

STANDIN_EXPORT ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *sa,
				socklen_t *alen)
{
	ssize_t n = syscall(SYS_recvfrom, fd, buf, len, flags, sa, alen);

	if (n >= 0 && standin_ours(fd, STANDIN_NL))
		standin_kernel_addr(sa, alen, 0);
	return n;
}
