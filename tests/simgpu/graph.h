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
	struct sg_kparams kp;		/* kernel */
};

struct CUgraph_st {
	uint32_t magic;
	struct CUgraphNode_st *head, *tail;
	size_t n;
	int owned;			/* moved into a parent's child node */
};

/* cuGraphExecKernelNodeSetParams' values for one kernel node of an
 * instantiated graph (graphkern.c): they replace the node's there. */
struct sg_exec_kern {
	struct sg_exec_kern *next;
	const struct CUgraphNode_st *node;
	uint64_t ns;
	struct sg_kparams kp;
};

struct CUgraphExec_st {
	uint32_t magic;
	struct CUgraph_st *graph;
	struct sg_exec_kern *kerns;
};

/* The exec's kernel time for node n: its own if set, else the node's. */
uint64_t simgpu_exec_kernel_ns(const struct CUgraphExec_st *e, const struct CUgraphNode_st *n);
void simgpu_exec_kerns_free(struct CUgraphExec_st *e);

/* A CUDA_KERNEL_NODE_PARAMS(_v1) p as simgpu keeps it. */
#define SG_KPARAMS(p, f, c) ((struct sg_kparams){ .func = (f), \
	.grid = { (p)->gridDimX, (p)->gridDimY, (p)->gridDimZ }, \
	.block = { (p)->blockDimX, (p)->blockDimY, (p)->blockDimZ }, \
	.shmem = (p)->sharedMemBytes, .params = (p)->kernelParams, .extra = (p)->extra, \
	.ctx = (c) })

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
