// SPDX-License-Identifier: GPL-2.0
/*
 * Graph nodes seen from outside: the node list and each node's type
 * (cuGraphGetNodes, cuGraphNodeGetType), the parameters of memory nodes,
 * child-graph nodes (cloned, or moved into the parent with cuGraphAddNode
 * and CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE: a child holding memory nodes
 * must be moved, CUDA_CHILD_GRAPH_NODE_PARAMS in cuda.h), cuGraphAddNode
 * for the node types simgpu models, and the nodes stream capture adds.
 */
#include <stdlib.h>
#include <string.h>

#include "graph.h"

static int node_ok(CUgraphNode n)
{
	return n && n->magic == SG_NODE_MAGIC;
}

SG_API CUresult cuGraphGetNodes(CUgraph g, CUgraphNode *nodes, size_t *num)
{
	SG_GATE();
	size_t i = 0;

	SG_INIT_CHECK();
	if (!g || g->magic != SG_GRAPH_MAGIC || !num)
		return CUDA_ERROR_INVALID_VALUE;
	if (nodes) {
		struct CUgraphNode_st *n = g->head;

		for (; i < *num; i++) {
			nodes[i] = n;
			if (n)
				n = n->next;
		}
	}
	*num = g->n;
	return CUDA_SUCCESS;
}

SG_API CUresult cuGraphNodeGetType(CUgraphNode n, CUgraphNodeType *type)
{
	SG_GATE();
	static const CUgraphNodeType types[] = {
		[SG_N_KERNEL] = CU_GRAPH_NODE_TYPE_KERNEL,
		[SG_N_ALLOC] = CU_GRAPH_NODE_TYPE_MEM_ALLOC,
		[SG_N_FREE] = CU_GRAPH_NODE_TYPE_MEM_FREE,
		[SG_N_SET] = CU_GRAPH_NODE_TYPE_MEMSET,
		[SG_N_HOST] = CU_GRAPH_NODE_TYPE_HOST,
		[SG_N_EMPTY] = CU_GRAPH_NODE_TYPE_EMPTY,
		[SG_N_COPY] = CU_GRAPH_NODE_TYPE_MEMCPY,
		[SG_N_GRAPH] = CU_GRAPH_NODE_TYPE_GRAPH,
	};

	SG_INIT_CHECK();
	if (!node_ok(n) || !type)
		return CUDA_ERROR_INVALID_VALUE;
	*type = types[n->kind];
	return CUDA_SUCCESS;
}

SG_API CUresult cuGraphMemAllocNodeGetParams(CUgraphNode n, CUDA_MEM_ALLOC_NODE_PARAMS *p)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!node_ok(n) || n->kind != SG_N_ALLOC || !p)
		return CUDA_ERROR_INVALID_VALUE;
	memset(p, 0, sizeof(*p));
	p->poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	p->poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p->poolProps.location.id = n->dev;
	p->bytesize = n->asked;
	p->dptr = n->ptr;
	return CUDA_SUCCESS;
}

SG_API CUresult cuGraphMemFreeNodeGetParams(CUgraphNode n, CUdeviceptr *dptr)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!node_ok(n) || n->kind != SG_N_FREE || !dptr)
		return CUDA_ERROR_INVALID_VALUE;
	*dptr = n->ptr;
	return CUDA_SUCCESS;
}

int simgpu_graph_has_mem(const struct CUgraph_st *g)
{
	for (const struct CUgraphNode_st *n = g->head; n; n = n->next)
		if (n->kind == SG_N_ALLOC || n->kind == SG_N_FREE ||
		    (n->kind == SG_N_GRAPH && simgpu_graph_has_mem(n->child)))
			return 1;
	return 0;
}

/* A copy of g (which has no memory nodes: their addresses are unique). */
static struct CUgraph_st *graph_clone(const struct CUgraph_st *g)
{
	struct CUgraph_st *c = simgpu_graph_new();

	for (const struct CUgraphNode_st *n = g->head; c && n; n = n->next) {
		struct CUgraphNode_st proto = *n;

		if (n->kind == SG_N_GRAPH && !(proto.child = graph_clone(n->child)))
			return NULL;	/* what was copied leaks, as nodes do */
		if (simgpu_graph_append(c, NULL, 0, &proto, NULL))
			return NULL;
	}
	return c;
}

static CUresult add_child(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps,
			  CUgraph child, int move)
{
	struct CUgraphNode_st proto = { .kind = SG_N_GRAPH };
	CUresult rc;

	SG_INIT_CHECK();
	if (!out || !child || child->magic != SG_GRAPH_MAGIC || child->owned || child == g)
		return CUDA_ERROR_INVALID_VALUE;
	if (!move && simgpu_graph_has_mem(child))
		return CUDA_ERROR_INVALID_VALUE;	/* must be moved */
	proto.child = move ? child : graph_clone(child);
	if (!proto.child)
		return CUDA_ERROR_OUT_OF_MEMORY;
	rc = simgpu_graph_append(g, deps, ndeps, &proto, out);
	if (!rc && move)
		child->owned = 1;
	return rc;
}

SG_API CUresult cuGraphAddChildGraphNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
					 size_t ndeps, CUgraph child)
{
	SG_GATE();
	return add_child(out, g, deps, ndeps, child, 0);
}

SG_API CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode n, CUgraph *child)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!node_ok(n) || n->kind != SG_N_GRAPH || !child)
		return CUDA_ERROR_INVALID_VALUE;
	*child = n->child;
	return CUDA_SUCCESS;
}

#if CUDA_VERSION >= 12040
/* The node types simgpu models through cuGraphAddNode: memory allocation
 * and free, child graphs, empty; others are CUDA_ERROR_NOT_SUPPORTED,
 * one of the function's documented results. */
static CUresult add_node(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps,
			 CUgraphNodeParams *p)
{
	struct CUgraphNode_st proto = { .kind = SG_N_EMPTY };
	CUresult rc;

	SG_INIT_CHECK();
	if (!out || !p)
		return CUDA_ERROR_INVALID_VALUE;
	switch (p->type) {
	case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
		if (p->alloc.poolProps.location.type != CU_MEM_LOCATION_TYPE_DEVICE)
			return CUDA_ERROR_INVALID_VALUE;
		rc = simgpu_graph_add_alloc(g, deps, ndeps, p->alloc.poolProps.location.id,
					    p->alloc.bytesize, out);
		if (!rc)
			p->alloc.dptr = (*out)->ptr;
		return rc;
	case CU_GRAPH_NODE_TYPE_MEM_FREE:
		proto.kind = SG_N_FREE;
		proto.ptr = p->free.dptr;
		break;
	case CU_GRAPH_NODE_TYPE_GRAPH:
		if (p->graph.ownership > CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE)
			return CUDA_ERROR_INVALID_VALUE;
		return add_child(out, g, deps, ndeps, p->graph.graph,
				 p->graph.ownership == CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE);
	case CU_GRAPH_NODE_TYPE_EMPTY:
		break;
	default:
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	return simgpu_graph_append(g, deps, ndeps, &proto, out);
}

SG_API CUresult cuGraphAddNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
			       size_t ndeps, CUgraphNodeParams *p)
{
	SG_GATE();
	return add_node(out, g, deps, ndeps, p);
}

SG_API CUresult cuGraphAddNode_v2(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
				  const CUgraphEdgeData *edges, size_t ndeps,
				  CUgraphNodeParams *p);
SG_API CUresult cuGraphAddNode_v2(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
				  const CUgraphEdgeData *edges, size_t ndeps,
				  CUgraphNodeParams *p)
{
	SG_GATE();
	(void)edges;	/* edge data orders nothing in a graph run in node order */
	return add_node(out, g, deps, ndeps, p);
}
#endif

/* Stream capture: the node for an operation submitted to a capturing
 * stream on device dev. */
CUresult simgpu_graph_add_op(struct CUgraph_st *g, const struct sg_op *op, int dev)
{
	struct CUgraphNode_st proto = { .dev = dev };

	/* simgpu's copy and memset nodes are 1D, of 1 to 4 byte elements */
	if (op->rows > 1 || op->slices > 1 || op->elsize == 8)
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	switch (op->kind) {
	case SG_OP_KERNEL:
		proto.kind = SG_N_KERNEL;
		proto.ns = op->ns;
		proto.kp = op->kp;
		break;
	case SG_OP_COPY:
		proto.kind = SG_N_COPY;
		proto.ptr = (CUdeviceptr)(uintptr_t)op->dst;
		proto.src = op->src;
		proto.size = op->n;
		break;
	case SG_OP_SET:
		proto.kind = SG_N_SET;
		proto.ptr = (CUdeviceptr)(uintptr_t)op->dst;
		proto.val = op->val;
		proto.elsize = op->elsize;
		proto.size = op->n;
		break;
	case SG_OP_HOST:
		proto.kind = SG_N_HOST;
		proto.fn = op->fn;
		proto.arg = op->arg;
		break;
	case SG_OP_POOL_FREE:
		proto.kind = SG_N_FREE;
		proto.ptr = op->ptr;
		break;
	default:
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	}
	return simgpu_graph_append(g, NULL, 0, &proto, NULL);
}
