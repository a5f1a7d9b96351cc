/* SPDX-License-Identifier: GPL-2.0 */
/* cuGetProcAddress's wrappers and their self-check (procaddr.c). */
#ifndef VGPU_PROCADDR_H
#define VGPU_PROCADDR_H

/* A forked child re-initialises the look-ups' state (init.c). */
void libvgpu_procaddr_reset(void);

#endif
