/* SPDX-License-Identifier: GPL-2.0 */
/* Green contexts charged like contexts (greenctx.c). */
#ifndef VGPU_GREENCTX_H
#define VGPU_GREENCTX_H

/* A forked child forgets the parent's green contexts (init.c). */
void libvgpu_green_reset(void);

#endif
