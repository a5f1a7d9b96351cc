// SPDX-License-Identifier: GPL-2.0
/*
 * Graph memory, accounted the way the driver (and simgpu) uses it: a
 * memory-allocation node's address is fixed when the node is added, but
 * its memory is taken when a launch reaches it. So:
 *
 * - cuGraphAddMemAllocNode / cuGraphAddMemFreeNode only record the node
 *   (pointer, size rounded up to the 2 MiB chunk, GPU) in the graph's list;
 * - instantiation snapshots the list into the executable graph;
 * - cuGraphLaunch charges, before the real launch, every allocation node
 *   whose pointer is not held already (a launch refused for want of quota
 *   fails with CUDA_ERROR_OUT_OF_MEMORY and launches nothing); after the
 *   launch the pointers are held like cuMemAllocAsync memory, and the
 *   graph's free nodes give their pointers' charges back (when queued, as
 *   cuMemFreeAsync does);
 * - a held graph pointer is also given back by cuMemFree / cuMemFreeAsync
 *   (free.c) or with its context (ctx.c);
 * - destroying a graph or an executable graph frees nothing: memory still
 *   held stays charged until freed, as in the driver.
 *
 * Graphs built by stream capture or cuGraphAddNode are not seen.
 */
#include <stdlib.h>
#include <string.h>

#include "account.h"
#include "devmap.h"
#include "hooks.h"
#include "launchgate.h"
#include "ptrmap.h"
#include "register.h"

struct gop {
	uint64_t ptr;
	uint64_t bytes;
	int gpu;
	int alloc;		/* 1: allocation node, 0: free node */
};

struct gsnap {
	int refs;
	int n;
	struct gop op[];
};

struct grec {
	struct grec *next;
	void *key;		/* CUgraph or CUgraphExec */
	struct gsnap *s;	/* graph: grown as nodes are added */
	int cap;
};

static struct grec *vgpu_graphs, *vgpu_execs;
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

static void record(CUgraph g, const struct gop *op)
{
	struct grec **pp, *r;

	pthread_mutex_lock(&vgpu_graph_lk);
	pp = find(&vgpu_graphs, g);
	r = *pp;
	if (!r) {
		r = calloc(1, sizeof(*r));
		if (!r)
			goto out;
		r->key = g;
		r->next = vgpu_graphs;
		vgpu_graphs = r;
	}
	if (!r->s || r->s->n == r->cap) {
		int cap = r->cap ? r->cap * 2 : 8;
		struct gsnap *s = realloc(r->s, sizeof(*s) + (size_t)cap * sizeof(s->op[0]));

		if (!s)
			goto out;
		if (!r->s) {
			s->refs = 1;
			s->n = 0;
		}
		r->s = s;
		r->cap = cap;
	}
	r->s->op[r->s->n++] = *op;
out:
	pthread_mutex_unlock(&vgpu_graph_lk);
}

VGPU_EXPORT CUresult cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph,
					    const CUgraphNode *dependencies, size_t numDependencies,
					    CUDA_MEM_ALLOC_NODE_PARAMS *p)
{
	vgpu_pfn_cuGraphAddMemAllocNode real = REAL(cuGraphAddMemAllocNode);
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(phGraphNode, hGraph, dependencies, numDependencies, p);
	if (rc == CUDA_SUCCESS && p && vgpu_active() &&
	    p->poolProps.location.type == CU_MEM_LOCATION_TYPE_DEVICE) {
		struct gop op = {
			(uint64_t)p->dptr, VGPU_ROUND(p->bytesize, VGPU_CHUNK),
			libvgpu_dev_gpu(p->poolProps.location.id), 1,
		};

		record(hGraph, &op);
	}
	return rc;
}

VGPU_EXPORT CUresult cuGraphAddMemFreeNode(CUgraphNode *phGraphNode, CUgraph hGraph,
					   const CUgraphNode *dependencies, size_t numDependencies,
					   CUdeviceptr dptr)
{
	vgpu_pfn_cuGraphAddMemFreeNode real = REAL(cuGraphAddMemFreeNode);
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(phGraphNode, hGraph, dependencies, numDependencies, dptr);
	if (rc == CUDA_SUCCESS && vgpu_active()) {
		struct gop op = { (uint64_t)dptr, 0, -1, 0 };

		record(hGraph, &op);
	}
	return rc;
}

VGPU_EXPORT CUresult cuGraphDestroy(CUgraph hGraph)
{
	vgpu_pfn_cuGraphDestroy real = REAL(cuGraphDestroy);
	struct grec **pp, *r = NULL;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(hGraph);
	if (rc == CUDA_SUCCESS) {
		pthread_mutex_lock(&vgpu_graph_lk);
		pp = find(&vgpu_graphs, hGraph);
		r = *pp;
		if (r)
			*pp = r->next;
		pthread_mutex_unlock(&vgpu_graph_lk);
		if (r) {
			unref(r->s);
			free(r);
		}
	}
	return rc;
}

/* The executable graph exec was made from graph g: snapshot its nodes. */
static void instantiated(CUgraphExec exec, CUgraph g)
{
	struct grec *r, *e;

	e = calloc(1, sizeof(*e));
	if (!e)
		return;
	pthread_mutex_lock(&vgpu_graph_lk);
	r = *find(&vgpu_graphs, g);
	if (r && r->s) {
		size_t sz = sizeof(*r->s) + (size_t)r->s->n * sizeof(r->s->op[0]);

		e->s = malloc(sz);
		if (e->s) {
			memcpy(e->s, r->s, sz);
			e->s->refs = 1;
			e->key = exec;
			e->next = vgpu_execs;
			vgpu_execs = e;
			vgpu_nexecs++;
			e = NULL;
		}
	}
	pthread_mutex_unlock(&vgpu_graph_lk);
	free(e);
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
	return instantiate(REAL(cuGraphInstantiate), phGraphExec, hGraph, phErrorNode,
			   logBuffer, bufferSize);
}

VGPU_EXPORT CUresult cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph,
					   CUgraphNode *phErrorNode, char *logBuffer,
					   size_t bufferSize)
{
	return instantiate(REAL(cuGraphInstantiate_v2), phGraphExec, hGraph, phErrorNode,
			   logBuffer, bufferSize);
}

VGPU_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph,
						 unsigned long long flags)
{
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
	return inst_params(REAL(cuGraphInstantiateWithParams), phGraphExec, hGraph, p);
}

VGPU_EXPORT CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec, CUgraph hGraph,
						       CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
	return inst_params(REAL(cuGraphInstantiateWithParams_ptsz), phGraphExec, hGraph, p);
}
#endif

VGPU_EXPORT CUresult cuGraphExecDestroy(CUgraphExec hGraphExec)
{
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
	if (!__atomic_load_n(&vgpu_nexecs, __ATOMIC_RELAXED) || !vgpu_active()) {
		vgpu_launch_gate(st);
		return vgpu_launch_done(real(e, h));
	}
	pthread_mutex_lock(&vgpu_graph_lk);
	{
		struct grec *r = *find(&vgpu_execs, e);

		if (r) {
			s = r->s;
			__atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
		}
	}
	pthread_mutex_unlock(&vgpu_graph_lk);
	if (!s) {
		vgpu_launch_gate(st);
		return vgpu_launch_done(real(e, h));
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
	return launch(REAL(cuGraphLaunch), hGraphExec, hStream, 0);
}

VGPU_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream)
{
	return launch(REAL(cuGraphLaunch_ptsz), hGraphExec, hStream, 1);
}
