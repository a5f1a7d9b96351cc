/* SPDX-License-Identifier: GPL-2.0 */
/* A forked child's reset of libvgpu's state (atfork.c). */
#ifndef VGPU_ATFORK_H
#define VGPU_ATFORK_H

/* Install the child's handler (the constructor, init.c). */
void libvgpu_atfork_install(void);

#endif
