/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The charging protocol on the page shared with vgpu.ko (uapi/vgpu_dev.h):
 * budget in avail spent with a compare-and-swap, VGPU_IOC_CHARGE when it
 * is short, used raised once the driver allocated, surplus released.
 * Pure logic: the ioctl is a function pointer, so tests drive it.
 */
#ifndef VGPU_CHARGE_H
#define VGPU_CHARGE_H

#include <stdint.h>

#include "../../uapi/vgpu_dev.h"

/* Requests to the module before a short budget counts as a refusal. */
#define VGPU_CHARGE_TRIES 8

struct vgpu_charger {
	struct vgpu_dev_page *page;
	/* ioctl(fd, req, arg): 0 or -errno */
	int (*ioctl)(void *ctx, unsigned long req, void *arg);
	void *ctx;
	uint64_t keep[VGPU_DEV_GPUS];	/* last CHARGE's keep, per GPU */
};

/* Take bytes from the GPU's budget, asking the module for more when short:
 * 0, -ENOMEM (refused: the tenant or the GPU is full) or another -errno. */
int libvgpu_charge(struct vgpu_charger *c, int gpu, uint64_t bytes);
/* libvgpu_charge() of bytes would ask the module (avail is short now). */
int libvgpu_charge_short(struct vgpu_charger *c, int gpu, uint64_t bytes);
/* The allocation succeeded: the process now holds bytes. */
void libvgpu_charge_commit(struct vgpu_charger *c, int gpu, uint64_t bytes);
/* The allocation failed: the bytes go back to the budget. */
void libvgpu_charge_cancel(struct vgpu_charger *c, int gpu, uint64_t bytes);
/* Freed: held bytes go back to the budget, surplus back to the module. */
void libvgpu_uncharge(struct vgpu_charger *c, int gpu, uint64_t bytes);

#endif
