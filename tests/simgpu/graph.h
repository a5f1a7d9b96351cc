/* SPDX-License-Identifier: GPL-2.0 */
/*
 * simgpu's graphs inside the library: the node and graph objects shared by
 * graph.c (building, instantiating, launching), graphnode.c (queries,
 * child graphs, cuGraphAddNode) and capture.c (stream capture builds a
 * graph from the operations submitted to capturing streams).
 */
#ifndef SIMGPU_GRAPH_H
#define SIMGPU_GRAPH_H

#include "simgpu.h"

enum sg_node_kind {
	SG_N_KERNEL, SG_N_ALLOC, SG_N_FREE, SG_N_SET, SG_N_HOST, SG_N_EMPTY,
	SG_N_COPY, SG_N_GRAPH,
};

struct CUgraphNode_st {
	uint32_t magic;
	enum sg_node_kind kind;
	struct CUgraphNode_st *next;
	uint64_t ns;			/* kernel */
	CUdeviceptr ptr;		/* alloc, free, set, copy: destination */
	const void *src;		/* copy */
	size_t size;			/* alloc: mapped; set: elements; copy: bytes */
	size_t asked;			/* alloc: bytes asked for */
	int dev;
	uint32_t val;			/* set */
	int elsize;
	CUhostFn fn;			/* host */
	void *arg;
	struct CUgraph_st *child;	/* graph: owned by the node */
};

struct CUgraph_st {
	uint32_t magic;
	struct CUgraphNode_st *head, *tail;
	size_t n;
	int owned;			/* moved into a parent's child node */
};

struct CUgraph_st *simgpu_graph_new(void);
/* Append a node built from proto (checked by the caller). */
CUresult simgpu_graph_append(struct CUgraph_st *g, const CUgraphNode *deps, size_t ndeps,
			     const struct CUgraphNode_st *proto, CUgraphNode *out);
/* An allocation node of bytes on dev: its address is fixed now. */
CUresult simgpu_graph_add_alloc(struct CUgraph_st *g, const CUgraphNode *deps, size_t ndeps,
				int dev, size_t bytes, CUgraphNode *out);
/* The graph's node from a stream operation (capture). */
CUresult simgpu_graph_add_op(struct CUgraph_st *g, const struct sg_op *op, int dev);
int simgpu_graph_has_mem(const struct CUgraph_st *g);
void simgpu_graph_free(struct CUgraph_st *g);

#endif
