/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process busy on a GPU without launching (synced.c): the page's
 * bound and synced counters around waits for the process's own work.
 */
#ifndef VGPU_SYNCED_H
#define VGPU_SYNCED_H

#include <stdint.h>

#include "../access/hooks.h"

/* Around a wait for the process's own work (sync.c): begin counts the
 * thread in the page's bound and returns the GPU (-1: none) with its
 * launch count; end uncounts it and, after a successful whole-context
 * synchronisation (whole), raises the page's synced to that count. */
int libvgpu_sync_begin(uint64_t *launches);
void libvgpu_sync_end(int gpu, uint64_t launches, int whole, CUresult rc);
/* The first launches launches on gpu are complete: raise synced. */
void libvgpu_sync_complete(int gpu, uint64_t launches);

#endif
