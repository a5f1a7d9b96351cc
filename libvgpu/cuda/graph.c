// SPDX-License-Identifier: GPL-2.0
/*
 * Graph memory, accounted the way the driver (and simgpu) uses it: a
 * memory-allocation node's address is fixed when the node is added, but
 * its memory is taken when a launch reaches it. So:
 *
 * - instantiation walks the graph (cuGraphGetNodes, cuGraphNodeGetType)
 *   and child graphs in it, whoever built them: cuGraphAddMemAllocNode,
 *   cuGraphAddNode(_v2), stream capture of cuMemAllocAsync /
 *   cuMemFreeAsync, a child graph moved into its parent; it keeps each
 *   allocation node (pointer, size rounded up to the 2 MiB chunk, GPU)
 *   and free node (pointer) with the executable graph;
 * - where the driver tells each device's graph reserve
 *   (cuDeviceGetGraphMemAttribute), cuGraphLaunch and cuGraphUpload charge
 *   the reserve's growth the allocation nodes may need before the real
 *   call (a refusal fails the call with CUDA_ERROR_OUT_OF_MEMORY, nothing
 *   launched) and follow the reserve after it (graphmem.c): freed graph
 *   memory stays charged until cuDeviceGraphMemTrim, as it stays reserved;
 * - otherwise cuGraphLaunch charges, before the real launch, every
 *   allocation node whose pointer is not held already (a launch refused
 *   for want of quota fails with CUDA_ERROR_OUT_OF_MEMORY and launches
 *   nothing); after the
 *   launch the pointers are held like cuMemAllocAsync memory, and the
 *   graph's free nodes give their pointers' charges back (when queued, as
 *   cuMemFreeAsync does);
 * - a held graph pointer is also given back by cuMemFree / cuMemFreeAsync
 *   (free.c) or with its context (ctx.c);
 * - destroying a graph or an executable graph frees nothing: memory still
 *   held stays charged until freed, as in the driver.
 *
 * A graph launch is gated like a kernel launch (launchgate.h): that is
 * where the device time of captured work is spent.
 */
#include <stdlib.h>
#include <string.h>

#include "../policy/account.h"
#include "../state/devmap.h"
#include "graph.h"
#include "../policy/graphmem.h"
#include "../access/hooks.h"
#include "../policy/launchgate.h"
#include "../access/log.h"
#include "../logic/ptrmap.h"
#include "../policy/register.h"
#include "../access/nest.h"

struct gop {
	uint64_t ptr;
	uint64_t bytes;
	int gpu;
	CUdevice dev;		/* allocation node: its device */
	int alloc;		/* 1: allocation node, 0: free node */
};

struct gsnap {
	int refs;
	int n;
	struct gop op[];
};

struct grec {
	struct grec *next;
	void *key;		/* CUgraphExec */
	struct gsnap *s;
};

static struct grec *vgpu_execs;
static int vgpu_nexecs;
static pthread_mutex_t vgpu_graph_lk = PTHREAD_MUTEX_INITIALIZER;

static struct grec **find(struct grec **head, void *key)
{
	struct grec **pp;

	for (pp = head; *pp && (*pp)->key != key; pp = &(*pp)->next)
		;
	return pp;
}

static void unref(struct gsnap *s)
{
	if (s && __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(s);
}

/* Depth of child graphs walked; deeper ones are not accounted. */
#define VGPU_GRAPH_DEPTH 8

static int push(struct gsnap **s, int *cap, const struct gop *op)
{
	if (!*s || (*s)->n == *cap) {
		int ncap = *cap ? *cap * 2 : 8;
		struct gsnap *t = realloc(*s, sizeof(*t) + (size_t)ncap * sizeof(t->op[0]));

		if (!t)
			return -1;
		if (!*s) {
			t->refs = 1;
			t->n = 0;
		}
		*s = t;
		*cap = ncap;
	}
	(*s)->op[(*s)->n++] = *op;
	return 0;
}

/* One node: an allocation or free node is kept, a child graph walked. */
static int walk(CUgraph g, struct gsnap **s, int *cap, int depth);
static int walk_node(CUgraphNode n, struct gsnap **s, int *cap, int depth)
{
	CUgraphNodeType t;
	CUDA_MEM_ALLOC_NODE_PARAMS p;
	struct gop op = { 0, 0, -1, -1, 0 };
	CUgraph child;

	if (REAL(cuGraphNodeGetType)(n, &t) != CUDA_SUCCESS)
		return 0;
	switch (t) {
	case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
		if (REAL(cuGraphMemAllocNodeGetParams)(n, &p) != CUDA_SUCCESS ||
		    p.poolProps.location.type != CU_MEM_LOCATION_TYPE_DEVICE)
			return 0;
		op = (struct gop){ (uint64_t)p.dptr, VGPU_ROUND(p.bytesize, VGPU_CHUNK),
				   libvgpu_dev_gpu(p.poolProps.location.id),
				   p.poolProps.location.id, 1 };
		return push(s, cap, &op);
	case CU_GRAPH_NODE_TYPE_MEM_FREE:
		if (REAL(cuGraphMemFreeNodeGetParams)(n, (CUdeviceptr *)&op.ptr) != CUDA_SUCCESS)
			return 0;
		return push(s, cap, &op);
	case CU_GRAPH_NODE_TYPE_GRAPH:
		if (REAL(cuGraphChildGraphNodeGetGraph)(n, &child) != CUDA_SUCCESS)
			return 0;
		return walk(child, s, cap, depth + 1);
	default:
		return 0;
	}
}

/* Append g's memory nodes to *s (grown, capacity *cap); -1: no memory. */
static int walk(CUgraph g, struct gsnap **s, int *cap, int depth)
{
	CUgraphNode *nodes;
	size_t n = 0;
	int rc = 0;

	if (depth > VGPU_GRAPH_DEPTH) {
		libvgpu_log(VGPU_LOG_WARN, "graph: child graphs nested deeper than %d are not "
			    "accounted", VGPU_GRAPH_DEPTH);
		return 0;
	}
	if (REAL(cuGraphGetNodes)(g, NULL, &n) != CUDA_SUCCESS || !n)
		return 0;
	nodes = calloc(n, sizeof(*nodes));
	if (!nodes)
		return -1;
	if (REAL(cuGraphGetNodes)(g, nodes, &n) == CUDA_SUCCESS)
		for (size_t i = 0; i < n && !rc; i++)
			rc = nodes[i] ? walk_node(nodes[i], s, cap, depth) : 0;
	free(nodes);
	return rc;
}

/* The executable graph exec was made from graph g: keep its memory
 * nodes, if it has any. */
static void instantiated(CUgraphExec exec, CUgraph g)
{
	struct gsnap *s = NULL;
	struct grec *e;
	int cap = 0;

	if (!vgpu_active() || !REAL(cuGraphGetNodes) || !REAL(cuGraphNodeGetType) ||
	    !REAL(cuGraphMemAllocNodeGetParams) || !REAL(cuGraphMemFreeNodeGetParams) ||
	    !REAL(cuGraphChildGraphNodeGetGraph)) {
		libvgpu_log(VGPU_LOG_DEBUG, "graph: not walked (inactive, or the driver lacks "
			    "the node queries)");
		return;
	}
	if (walk(g, &s, &cap, 0) < 0) {
		libvgpu_log(VGPU_LOG_WARN, "graph: out of memory walking graph %p: its "
			    "allocations are not charged", (void *)g);
		free(s);
		return;
	}
	if (!s)
		return;		/* no memory nodes */
	e = calloc(1, sizeof(*e));
	if (!e) {
		free(s);
		return;
	}
	e->s = s;
	e->key = exec;
	pthread_mutex_lock(&vgpu_graph_lk);
	e->next = vgpu_execs;
	vgpu_execs = e;
	vgpu_nexecs++;
	pthread_mutex_unlock(&vgpu_graph_lk);
}

/* cuGraphInstantiate and cuGraphInstantiate_v2, which take the same
 * arguments. */
static CUresult instantiate(vgpu_pfn_cuGraphInstantiate_v2 real, CUgraphExec *phGraphExec,
			    CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer,
			    size_t bufferSize)
{
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
	if (rc == CUDA_SUCCESS && phGraphExec)
		instantiated(*phGraphExec, hGraph);
	return rc;
}

VGPU_EXPORT CUresult cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph,
					CUgraphNode *phErrorNode, char *logBuffer, size_t bufferSize)
{
	VGPU_PASS_NESTED(cuGraphInstantiate, (phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize));
	return instantiate(REAL(cuGraphInstantiate), phGraphExec, hGraph, phErrorNode,
			   logBuffer, bufferSize);
}

VGPU_EXPORT CUresult cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph,
					   CUgraphNode *phErrorNode, char *logBuffer,
					   size_t bufferSize)
{
	VGPU_PASS_NESTED(cuGraphInstantiate_v2, (phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize));
	return instantiate(REAL(cuGraphInstantiate_v2), phGraphExec, hGraph, phErrorNode,
			   logBuffer, bufferSize);
}

VGPU_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph,
						 unsigned long long flags)
{
	VGPU_PASS_NESTED(cuGraphInstantiateWithFlags, (phGraphExec, hGraph, flags));
	vgpu_pfn_cuGraphInstantiateWithFlags real = REAL(cuGraphInstantiateWithFlags);
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(phGraphExec, hGraph, flags);
	if (rc == CUDA_SUCCESS && phGraphExec)
		instantiated(*phGraphExec, hGraph);
	return rc;
}

#if CUDA_VERSION >= 12000
static CUresult inst_params(vgpu_pfn_cuGraphInstantiateWithParams real, CUgraphExec *out,
			    CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(out, g, p);
	if (rc == CUDA_SUCCESS && out)
		instantiated(*out, g);
	return rc;
}

VGPU_EXPORT CUresult cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph,
						  CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
	VGPU_PASS_NESTED(cuGraphInstantiateWithParams, (phGraphExec, hGraph, p));
	return inst_params(REAL(cuGraphInstantiateWithParams), phGraphExec, hGraph, p);
}

VGPU_EXPORT CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec, CUgraph hGraph,
						       CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
	VGPU_PASS_NESTED(cuGraphInstantiateWithParams_ptsz, (phGraphExec, hGraph, p));
	return inst_params(REAL(cuGraphInstantiateWithParams_ptsz), phGraphExec, hGraph, p);
}
#endif

VGPU_EXPORT CUresult cuGraphExecDestroy(CUgraphExec hGraphExec)
{
	VGPU_PASS_NESTED(cuGraphExecDestroy, (hGraphExec));
	vgpu_pfn_cuGraphExecDestroy real = REAL(cuGraphExecDestroy);
	struct grec **pp, *r = NULL;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(hGraphExec);
	if (rc == CUDA_SUCCESS && __atomic_load_n(&vgpu_nexecs, __ATOMIC_RELAXED)) {
		pthread_mutex_lock(&vgpu_graph_lk);
		pp = find(&vgpu_execs, hGraphExec);
		r = *pp;
		if (r) {
			*pp = r->next;
			vgpu_nexecs--;
		}
		pthread_mutex_unlock(&vgpu_graph_lk);
		if (r) {
			unref(r->s);
			free(r);
		}
	}
	return rc;
}

/* The memory nodes kept for e (a reference), or NULL. */
static struct gsnap *snap_get(CUgraphExec e)
{
	struct gsnap *s = NULL;
	struct grec *r;

	if (!__atomic_load_n(&vgpu_nexecs, __ATOMIC_RELAXED))
		return NULL;
	pthread_mutex_lock(&vgpu_graph_lk);
	r = *find(&vgpu_execs, e);
	if (r) {
		s = r->s;
		__atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&vgpu_graph_lk);
	return s;
}

/* The charges follow the reserves of the devices need[] names (below
 * ndev). */
static void reserve_follow(const uint64_t *need, int ndev)
{
	for (int d = 0; d < ndev; d++)
		if (need[d])
			libvgpu_graphmem_reread(d);
}

/* Charge the growth of the graph reserves s's allocations may need
 * (graphmem.c); on a refusal, what was charged ahead is re-read away. */
static CUresult reserve_ahead(const struct gsnap *s, uint64_t *need)
{
	CUresult rc = CUDA_SUCCESS;
	int d;

	memset(need, 0, VGPU_GRAPHMEM_DEVS * sizeof(*need));
	for (int i = 0; i < s->n; i++)
		if (s->op[i].alloc && s->op[i].dev >= 0 && s->op[i].dev < VGPU_GRAPHMEM_DEVS)
			need[s->op[i].dev] += s->op[i].bytes;
	for (d = 0; d < VGPU_GRAPHMEM_DEVS && !rc; d++)
		rc = libvgpu_graphmem_ahead(d, need[d]);
	if (rc)
		reserve_follow(need, d);
	return rc;
}

/* A launch charged by the graph reserves. */
static CUresult launch_reserve(vgpu_pfn_cuGraphLaunch real, CUgraphExec e, CUstream h,
			       void *st, const struct gsnap *s)
{
	uint64_t need[VGPU_GRAPHMEM_DEVS];
	CUresult rc = reserve_ahead(s, need);

	if (rc)
		return rc;
	vgpu_launch_gate(st);	/* no lock held: it may sleep */
	rc = vgpu_launch_done(real(e, h));
	reserve_follow(need, VGPU_GRAPHMEM_DEVS);
	return rc;
}

static CUresult launch(vgpu_pfn_cuGraphLaunch real, CUgraphExec e, CUstream h, int ptsz)
{
	void *st = ptsz && !h ? (void *)CU_STREAM_PER_THREAD : (void *)h;
	struct vgpu_tx stack_tx[16], *tx = stack_tx;
	struct gsnap *s = NULL;
	CUcontext ctx = NULL;
	vgpu_pfn_cuCtxGetCurrent cur;
	CUresult rc = CUDA_SUCCESS;
	int i;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	/* Into a capturing stream: a child graph node, which runs (and
	 * allocates) when the graph captured is launched. */
	if (vgpu_capture_live() && libvgpu_capture_stream(st))
		return real(e, h);
	if (!__atomic_load_n(&vgpu_nexecs, __ATOMIC_RELAXED) || !vgpu_active()) {
		vgpu_launch_gate(st);
		return vgpu_launch_done(real(e, h));
	}
	s = snap_get(e);
	if (!s) {
		vgpu_launch_gate(st);
		return vgpu_launch_done(real(e, h));
	}
	if (libvgpu_graphmem_ready()) {
		rc = launch_reserve(real, e, h, st, s);
		unref(s);
		return rc;
	}
	if (s->n > 16 && !(tx = calloc((size_t)s->n, sizeof(*tx)))) {
		unref(s);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	cur = REAL(cuCtxGetCurrent);
	if (cur)
		cur(&ctx);
	/* Charge the allocations this launch will make. */
	for (i = 0; i < s->n; i++) {
		tx[i].gpu = -1;
		tx[i].bytes = 0;
		if (!s->op[i].alloc || libvgpu_ptrmap_get(VGPU_K_MEM, s->op[i].ptr, NULL))
			continue;
		rc = libvgpu_tx_begin(&tx[i], s->op[i].gpu, s->op[i].bytes);
		if (rc)
			break;
	}
	if (!rc) {
		vgpu_launch_gate(st);	/* no lock held: it may sleep */
		rc = vgpu_launch_done(real(e, h));
	}
	for (int j = 0; j < (rc ? i : s->n); j++) {
		if (rc)
			libvgpu_tx_abort(&tx[j]);
		else if (s->op[j].alloc)
			libvgpu_tx_commit(&tx[j], VGPU_K_MEM, s->op[j].ptr, ctx);
		else {
			struct vgpu_alloc a;

			if (libvgpu_ptrmap_take(VGPU_K_MEM, s->op[j].ptr, &a))
				libvgpu_release(&a);
		}
	}
	if (tx != stack_tx)
		free(tx);
	unref(s);
	return rc;
}

VGPU_EXPORT CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)
{
	VGPU_PASS_NESTED(cuGraphLaunch, (hGraphExec, hStream));
	return launch(REAL(cuGraphLaunch), hGraphExec, hStream, 0);
}

VGPU_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream)
{
	VGPU_PASS_NESTED(cuGraphLaunch_ptsz, (hGraphExec, hStream));
	return launch(REAL(cuGraphLaunch_ptsz), hGraphExec, hStream, 1);
}

/* cuGraphUpload maps the graph's memory ahead of its launch: charged like
 * a launch by the reserve's growth (nothing to do without the reserve). */
static CUresult upload(vgpu_pfn_cuGraphUpload real, CUgraphExec e, CUstream h)
{
	uint64_t need[VGPU_GRAPHMEM_DEVS];
	struct gsnap *s;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!vgpu_active() || !libvgpu_graphmem_ready() || !(s = snap_get(e)))
		return real(e, h);
	rc = reserve_ahead(s, need);
	if (!rc) {
		rc = real(e, h);
		reserve_follow(need, VGPU_GRAPHMEM_DEVS);
	}
	unref(s);
	return rc;
}

VGPU_EXPORT CUresult cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream)
{
	VGPU_PASS_NESTED(cuGraphUpload, (hGraphExec, hStream));
	return upload(REAL(cuGraphUpload), hGraphExec, hStream);
}

VGPU_EXPORT CUresult cuGraphUpload_ptsz(CUgraphExec hGraphExec, CUstream hStream)
{
	VGPU_PASS_NESTED(cuGraphUpload_ptsz, (hGraphExec, hStream));
	return upload(REAL(cuGraphUpload_ptsz), hGraphExec, hStream);
}

/* In a forked child (init.c): the executable graphs were the parent's. */
void libvgpu_graph_reset(void)
{
	struct grec *e = vgpu_execs, *next;

	pthread_mutex_init(&vgpu_graph_lk, NULL);
	for (; e; e = next) {
		next = e->next;
		unref(e->s);
		free(e);
	}
	vgpu_execs = NULL;
	__atomic_store_n(&vgpu_nexecs, 0, __ATOMIC_RELAXED);
}
