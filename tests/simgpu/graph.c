// SPDX-License-Identifier: GPL-2.0
/*
 * Graphs: kernel, memory-allocation, memory-free, memset, memcpy (from
 * stream capture), host, empty and child-graph nodes. A launch queues the
 * nodes on the stream in the order they were added (a valid topological
 * order, since dependencies must exist first), a child graph's in place.
 * An allocation node's address is fixed when the node is added; its VRAM
 * is charged when a launch reaches it and returned by a free node,
 * cuMemFree/cuMemFreeAsync, or the context's end.
 */
#include <stdlib.h>
#include <string.h>

#include "graph.h"

SG_API CUresult cuGraphCreate(CUgraph *phGraph, unsigned int flags)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!phGraph || flags)
		return CUDA_ERROR_INVALID_VALUE;
	*phGraph = simgpu_graph_new();
	return *phGraph ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

struct CUgraph_st *simgpu_graph_new(void)
{
	struct CUgraph_st *g = calloc(1, sizeof(*g));

	if (g)
		g->magic = SG_GRAPH_MAGIC;
	return g;
}

CUresult simgpu_graph_append(struct CUgraph_st *g, const CUgraphNode *deps, size_t ndeps,
			     const struct CUgraphNode_st *proto, CUgraphNode *out)
{
	struct CUgraphNode_st *n;

	SG_INIT_CHECK();
	if (!g || g->magic != SG_GRAPH_MAGIC || g->owned || (ndeps && !deps))
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < ndeps; i++)
		if (!deps[i] || deps[i]->magic != SG_NODE_MAGIC)
			return CUDA_ERROR_INVALID_VALUE;
	n = malloc(sizeof(*n));
	if (!n)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*n = *proto;
	n->magic = SG_NODE_MAGIC;
	n->next = NULL;
	if (g->tail)
		g->tail->next = n;
	else
		g->head = n;
	g->tail = n;
	g->n++;
	if (out)
		*out = n;
	return CUDA_SUCCESS;
}

static CUresult add(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps,
		    const struct CUgraphNode_st *proto)
{
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	return simgpu_graph_append(g, deps, ndeps, proto, out);
}

static CUresult add_kernel(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps,
			   const struct sg_kparams *kp)
{
	struct CUgraphNode_st proto = { .kind = SG_N_KERNEL };

	SG_INIT_CHECK();
	if (simgpu_func_check(kp->func))
		return CUDA_ERROR_INVALID_VALUE;
	proto.ns = simgpu_kernel_ns(kp->func, kp->params, kp->extra);
	proto.kp = *kp;
	if (!proto.kp.ctx)
		proto.kp.ctx = simgpu_ctx_current();
	return add(out, g, deps, ndeps, &proto);
}

SG_API CUresult cuGraphAddKernelNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
				     size_t ndeps, const CUDA_KERNEL_NODE_PARAMS_v1 *p)
{
	SG_GATE();
	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	return add_kernel(out, g, deps, ndeps, &SG_KPARAMS(p, p->func, NULL));
}

#if CUDA_VERSION >= 12000
SG_API CUresult cuGraphAddKernelNode_v2(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
					size_t ndeps, const CUDA_KERNEL_NODE_PARAMS *p)
{
	SG_GATE();
	CUfunction f;

	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	f = p->func ? p->func : (CUfunction)(void *)p->kern;
	return add_kernel(out, g, deps, ndeps, &SG_KPARAMS(p, f, p->func ? NULL : p->ctx));
}
#endif

CUresult simgpu_graph_add_alloc(struct CUgraph_st *g, const CUgraphNode *deps, size_t ndeps,
				int dev, size_t bytes, CUgraphNode *out)
{
	struct CUgraphNode_st proto = { .kind = SG_N_ALLOC, .dev = dev, .asked = bytes };
	struct sg_range r = { 0 };
	CUresult rc;
	void *m;

	SG_INIT_CHECK();
	if (!bytes || simgpu_check_dev(dev))
		return CUDA_ERROR_INVALID_VALUE;
	proto.size = SG_ROUND(bytes, SG_GRANULARITY);
	m = simgpu_map(proto.size, SG_GRANULARITY, 0);
	if (!m)
		return CUDA_ERROR_OUT_OF_MEMORY;
	r.base = (uintptr_t)m;
	r.size = bytes;
	r.mapsize = proto.size;
	r.kind = SG_MEM_GRAPH;
	r.dev = dev;
	r.ctx = simgpu_ctx_current();
	if (!simgpu_range_add(&r)) {
		simgpu_unmap(m, proto.size);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	proto.ptr = (CUdeviceptr)r.base;
	rc = simgpu_graph_append(g, deps, ndeps, &proto, out);
	if (rc) {
		pthread_mutex_lock(&simgpu_lk);
		struct sg_range *rr = simgpu_range_find(r.base, 1);

		if (rr)
			simgpu_range_del(rr);
		pthread_mutex_unlock(&simgpu_lk);
		simgpu_unmap(m, proto.size);
	}
	return rc;
}

SG_API CUresult cuGraphAddMemAllocNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
				       size_t ndeps, CUDA_MEM_ALLOC_NODE_PARAMS *p)
{
	SG_GATE();
	CUresult rc;

	SG_INIT_CHECK();
	if (!out || !p || p->poolProps.location.type != CU_MEM_LOCATION_TYPE_DEVICE)
		return CUDA_ERROR_INVALID_VALUE;
	rc = simgpu_graph_add_alloc(g, deps, ndeps, p->poolProps.location.id, p->bytesize, out);
	if (!rc)
		p->dptr = (*out)->ptr;
	return rc;
}

SG_API CUresult cuGraphAddMemFreeNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
				      size_t ndeps, CUdeviceptr dptr)
{
	SG_GATE();
	struct CUgraphNode_st proto = { .kind = SG_N_FREE, .ptr = dptr };

	return add(out, g, deps, ndeps, &proto);
}

SG_API CUresult cuGraphAddMemsetNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
				     size_t ndeps, const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx)
{
	SG_GATE();
	struct CUgraphNode_st proto = { .kind = SG_N_SET };

	(void)ctx;
	if (!p || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) ||
	    p->height > 1)
		return CUDA_ERROR_INVALID_VALUE;
	proto.ptr = p->dst;
	proto.val = p->value;
	proto.elsize = (int)p->elementSize;
	proto.size = p->width;
	return add(out, g, deps, ndeps, &proto);
}

SG_API CUresult cuGraphAddHostNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
				   size_t ndeps, const CUDA_HOST_NODE_PARAMS *p)
{
	SG_GATE();
	struct CUgraphNode_st proto = { .kind = SG_N_HOST };

	if (!p || !p->fn)
		return CUDA_ERROR_INVALID_VALUE;
	proto.fn = p->fn;
	proto.arg = p->userData;
	return add(out, g, deps, ndeps, &proto);
}

SG_API CUresult cuGraphAddEmptyNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps)
{
	SG_GATE();
	struct CUgraphNode_st proto = { .kind = SG_N_EMPTY };

	return add(out, g, deps, ndeps, &proto);
}

/* Allocation nodes whose memory is not held give back their address. */
static void drop_alloc(struct CUgraphNode_st *n)
{
	struct sg_range *r;
	int unmap = 0;

	pthread_mutex_lock(&simgpu_lk);
	r = simgpu_range_find((uintptr_t)n->ptr, 1);
	if (r && r->kind == SG_MEM_GRAPH && !r->charged) {
		simgpu_range_del(r);
		unmap = 1;
	}
	pthread_mutex_unlock(&simgpu_lk);
	if (unmap)
		simgpu_unmap((void *)(uintptr_t)n->ptr, n->size);
}

/* Nodes stay allocated: an instantiated exec may still use them. */
void simgpu_graph_free(struct CUgraph_st *g)
{
	for (struct CUgraphNode_st *n = g->head; n; n = n->next) {
		if (n->kind == SG_N_ALLOC)
			drop_alloc(n);
		else if (n->kind == SG_N_GRAPH)
			simgpu_graph_free(n->child);
	}
	g->magic = 0;
}

SG_API CUresult cuGraphDestroy(CUgraph g)
{
	SG_GATE();
	SG_INIT_CHECK();
	/* A graph moved into a parent is the parent's to destroy. */
	if (!g || g->magic != SG_GRAPH_MAGIC || g->owned)
		return CUDA_ERROR_INVALID_VALUE;
	simgpu_graph_free(g);
	return CUDA_SUCCESS;
}

static CUresult instantiate(CUgraphExec *out, CUgraph g)
{
	struct CUgraphExec_st *e;

	SG_INIT_CHECK();
	if (!out || !g || g->magic != SG_GRAPH_MAGIC)
		return CUDA_ERROR_INVALID_VALUE;
	e = calloc(1, sizeof(*e));
	if (!e)
		return CUDA_ERROR_OUT_OF_MEMORY;
	e->magic = SG_EXEC_MAGIC;
	e->graph = g;
	*out = e;
	return CUDA_SUCCESS;
}

SG_API CUresult cuGraphInstantiateWithFlags(CUgraphExec *out, CUgraph g, unsigned long long flags)
{
	SG_GATE();
	(void)flags;
	return instantiate(out, g);
}

SG_API CUresult cuGraphInstantiate(CUgraphExec *out, CUgraph g, CUgraphNode *errNode,
				   char *log, size_t logSize)
{
	SG_GATE();
	if (errNode)
		*errNode = NULL;
	if (log && logSize)
		log[0] = 0;
	return instantiate(out, g);
}

SG_API CUresult cuGraphInstantiate_v2(CUgraphExec *out, CUgraph g, CUgraphNode *errNode,
				      char *log, size_t logSize)
{
	SG_GATE();
	return cuGraphInstantiate(out, g, errNode, log, logSize);
}

#if CUDA_VERSION >= 12000
static CUresult inst_params(CUgraphExec *out, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
	CUresult rc = instantiate(out, g);

	if (p) {
		p->result_out = rc ? CUDA_GRAPH_INSTANTIATE_ERROR : CUDA_GRAPH_INSTANTIATE_SUCCESS;
		p->hErrNode_out = NULL;
	}
	return rc;
}

SG_API CUresult cuGraphInstantiateWithParams(CUgraphExec *out, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
	SG_GATE();
	return inst_params(out, g, p);
}

SG_API CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *out, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
	SG_GATE();
	return inst_params(out, g, p);
}
#endif

SG_API CUresult cuGraphExecDestroy(CUgraphExec e)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!e || e->magic != SG_EXEC_MAGIC)
		return CUDA_ERROR_INVALID_VALUE;
	e->magic = 0;
	simgpu_exec_kerns_free(e);
	free(e);
	return CUDA_SUCCESS;
}

/* An allocation node: take its VRAM from the device's graph reserve
 * (graphmem.c) now unless it is still held. */
static CUresult charge_alloc(struct CUgraphNode_st *n)
{
	struct sg_range *r;
	int need;
	CUresult rc;

	pthread_mutex_lock(&simgpu_lk);
	r = simgpu_range_find((uintptr_t)n->ptr, 1);
	need = r && r->kind == SG_MEM_GRAPH && !r->charged;
	pthread_mutex_unlock(&simgpu_lk);
	if (!need)
		return r ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	rc = simgpu_graphmem_take(n->dev, n->size);
	if (rc)
		return rc;
	pthread_mutex_lock(&simgpu_lk);
	r = simgpu_range_find((uintptr_t)n->ptr, 1);
	if (r)
		r->charged = n->size;
	pthread_mutex_unlock(&simgpu_lk);
	if (!r)
		simgpu_graphmem_put(n->dev, n->size);
	return CUDA_SUCCESS;
}

/* A node's operation on the stream, or NULL with *rc set (or 0: none). */
static struct sg_op *node_op(const struct CUgraphExec_st *e, const struct CUgraphNode_st *n,
			     CUresult *rc)
{
	struct sg_op *op = NULL;

	*rc = CUDA_SUCCESS;
	switch (n->kind) {
	case SG_N_KERNEL:
		if ((op = simgpu_op_new(SG_OP_KERNEL)))
			op->ns = simgpu_exec_kernel_ns(e, n);
		break;
	case SG_N_ALLOC:
		*rc = charge_alloc((struct CUgraphNode_st *)n);
		return NULL;
	case SG_N_FREE:
		if ((op = simgpu_op_new(SG_OP_POOL_FREE)))
			op->ptr = n->ptr;
		break;
	case SG_N_SET:
		if ((op = simgpu_op_new(SG_OP_SET))) {
			op->dst = (void *)(uintptr_t)n->ptr;
			op->val = n->val;
			op->elsize = n->elsize;
			op->n = n->size;
		}
		break;
	case SG_N_COPY:
		if ((op = simgpu_op_new(SG_OP_COPY))) {
			op->dst = (void *)(uintptr_t)n->ptr;
			op->src = n->src;
			op->n = n->size;
		}
		break;
	case SG_N_HOST:
		if ((op = simgpu_op_new(SG_OP_HOST))) {
			op->fn = n->fn;
			op->arg = n->arg;
		}
		break;
	case SG_N_EMPTY:
	case SG_N_GRAPH:
		return NULL;
	}
	if (!op)
		*rc = CUDA_ERROR_OUT_OF_MEMORY;
	return op;
}

/* Queue g's nodes on s in order, a child graph's in its place. */
static CUresult submit_graph(struct CUstream_st *s, const struct CUgraphExec_st *e,
			     const struct CUgraph_st *g)
{
	CUresult rc = CUDA_SUCCESS;

	for (struct CUgraphNode_st *n = g->head; n && !rc; n = n->next) {
		struct sg_op *op;

		if (n->kind == SG_N_GRAPH) {
			rc = submit_graph(s, e, n->child);
			continue;
		}
		op = node_op(e, n, &rc);
		if (op)
			rc = simgpu_stream_submit(s, op);
	}
	return rc;
}

static CUresult graph_launch(CUgraphExec e, CUstream h, int ptds)
{
	struct CUstream_st *s;
	CUresult rc = simgpu_stream_resolve(h, ptds, &s);

	if (rc)
		return rc;
	if (!e || e->magic != SG_EXEC_MAGIC)
		return CUDA_ERROR_INVALID_VALUE;
	return submit_graph(s, e, e->graph);
}

SG_API CUresult cuGraphLaunch(CUgraphExec e, CUstream h)
{
	SG_GATE();
	return graph_launch(e, h, 0);
}

SG_API CUresult cuGraphLaunch_ptsz(CUgraphExec e, CUstream h)
{
	SG_GATE();
	return graph_launch(e, h, 1);
}

/* Bytes of g's allocation nodes not held now, per device, into need[]. */
static void upload_need(const struct CUgraph_st *g, uint64_t *need)
{
	for (struct CUgraphNode_st *n = g->head; n; n = n->next) {
		struct sg_range *r;

		if (n->kind == SG_N_GRAPH) {
			upload_need(n->child, need);
			continue;
		}
		if (n->kind != SG_N_ALLOC || n->dev < 0 || n->dev >= SG_MAX_GPUS)
			continue;
		pthread_mutex_lock(&simgpu_lk);
		r = simgpu_range_find((uintptr_t)n->ptr, 1);
		if (r && r->kind == SG_MEM_GRAPH && !r->charged)
			need[n->dev] += n->size;
		pthread_mutex_unlock(&simgpu_lk);
	}
}

/* cuGraphUpload maps the physical memory the graph's allocations need
 * ahead of its launch (CUDA Programming Guide, "Graph Memory Nodes",
 * "Performance Considerations"): the device's graph reserve grows now, and
 * the launch then finds it there. */
static CUresult graph_upload(CUgraphExec e, CUstream h, int ptds)
{
	uint64_t need[SG_MAX_GPUS] = { 0 };
	struct CUstream_st *s;
	CUresult rc = simgpu_stream_resolve(h, ptds, &s);

	if (rc)
		return rc;
	if (!e || e->magic != SG_EXEC_MAGIC)
		return CUDA_ERROR_INVALID_VALUE;
	upload_need(e->graph, need);
	for (int d = 0; d < SG_MAX_GPUS && !rc; d++)
		if (need[d])
			rc = simgpu_graphmem_reserve(d, need[d]);
	return rc;
}

SG_API CUresult cuGraphUpload(CUgraphExec e, CUstream h)
{
	SG_GATE();
	return graph_upload(e, h, 0);
}

SG_API CUresult cuGraphUpload_ptsz(CUgraphExec e, CUstream h)
{
	SG_GATE();
	return graph_upload(e, h, 1);
}
