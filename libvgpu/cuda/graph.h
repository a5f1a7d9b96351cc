/* SPDX-License-Identifier: GPL-2.0 */
/* Executable graphs' allocation and free nodes (graph.c). */
#ifndef VGPU_GRAPH_H
#define VGPU_GRAPH_H

/* A forked child forgets the parent's executable graphs (init.c). */
void libvgpu_graph_reset(void);

#endif
