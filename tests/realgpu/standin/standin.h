/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stand-in for vgpu.ko's interface (Documentation/realgpu.md, "The
 * stand-in"): what the interposer (preload.c) and the daemon (standind.c)
 * share. Every connection is a SOCK_SEQPACKET stream to the daemon's
 * socket ($VGPU_STANDIN_SOCK) whose first packet is a struct standin_hello
 * naming what the connection stands for:
 *
 * - STANDIN_DEV, an open /dev/vgpu: the daemon answers with a memfd of two
 *   pages (the struct vgpu_dev_page, then the gate) passed by SCM_RIGHTS,
 *   which the interposer maps in place of the device's; each ioctl is then
 *   one struct standin_ioc packet each way (the daemon answers a WAIT
 *   when the tenant is granted);
 * - STANDIN_NL, a generic netlink socket: netlink messages as the kernel
 *   would carry them, one request or reply batch a packet;
 * - STANDIN_CTL, the tests' controls (grants, dumps): text lines.
 */
#ifndef STANDIN_H
#define STANDIN_H

#include <stdint.h>

#define STANDIN_SOCK_ENV "VGPU_STANDIN_SOCK"
#define STANDIN_TENANT_ENV "VGPU_STANDIN_TENANT"
#define STANDIN_MAGIC 0x76675354u	/* "vgST" */

enum { STANDIN_DEV = 1, STANDIN_NL = 2, STANDIN_CTL = 3 };

struct standin_hello {
	uint32_t magic;
	uint32_t kind;
};

/* One ioctl: the request's number and its argument, both ways (the
 * answer's rc is 0 or -errno). The largest argument is the placement. The
 * daemon reads the argument in place as the uapi's structs, which hold
 * __u64s: it is aligned as they are (UBSan found a misaligned
 * struct vgpu_dev_wait in a connection's owed answer). */
struct standin_ioc {
	uint32_t req;
	int32_t rc;
	unsigned char arg[160] __attribute__((aligned(8)));
};

#endif
