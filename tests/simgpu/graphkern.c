// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel node parameters: cuGraphKernelNodeGetParams and
 * cuGraphExecKernelNodeSetParams (CUDA Driver API reference, "Graph
 * Management"), in their CUDA 10 (CUDA_KERNEL_NODE_PARAMS_v1) and 12.0
 * (CUDA_KERNEL_NODE_PARAMS_v2) forms. cuBLASLt dlsyms both from
 * libcuda.so.1 itself.
 *
 * A kernel node keeps its launch (graph.c for cuGraphAddKernelNode,
 * graphnode.c for stream capture, where the dynamic shared memory is not
 * known and reads 0). simgpu knows no parameter sizes, so kernelParams
 * and extra read back as the pointers the node was given, not copies.
 *
 * cuGraphExecKernelNodeSetParams: "Sets the parameters of a kernel node
 * in an executable graph ... The modifications only affect future launches
 * of hGraphExec ... hNode is also not modified by this call", so the new
 * values are the exec's own (struct sg_exec_kern), looked up at launch.
 */
#include <stdlib.h>

#include "graph.h"

static int sg_kern_node(CUgraphNode n)
{
	return n && n->magic == SG_NODE_MAGIC && n->kind == SG_N_KERNEL;
}

uint64_t simgpu_exec_kernel_ns(const struct CUgraphExec_st *e, const struct CUgraphNode_st *n)
{
	for (const struct sg_exec_kern *k = e ? e->kerns : NULL; k; k = k->next)
		if (k->node == n)
			return k->ns;
	return n->ns;
}

void simgpu_exec_kerns_free(struct CUgraphExec_st *e)
{
	for (struct sg_exec_kern *k = e->kerns, *next; k; k = next) {
		next = k->next;
		free(k);
	}
	e->kerns = NULL;
}

SG_API CUresult cuGraphKernelNodeGetParams(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v1 *p)
{
	SG_GATE();
	const struct sg_kparams *kp;

	SG_INIT_CHECK();
	if (!sg_kern_node(hNode) || !p)
		return CUDA_ERROR_INVALID_VALUE;
	kp = &hNode->kp;	/* the node's own: an exec's values are not its */
	*p = (CUDA_KERNEL_NODE_PARAMS_v1){
		.func = kp->func,
		.gridDimX = kp->grid[0], .gridDimY = kp->grid[1], .gridDimZ = kp->grid[2],
		.blockDimX = kp->block[0], .blockDimY = kp->block[1], .blockDimZ = kp->block[2],
		.sharedMemBytes = kp->shmem, .kernelParams = kp->params, .extra = kp->extra,
	};
	return CUDA_SUCCESS;
}

/* Whether the node belongs to g (top level: the nodes an exec's user
 * may name). */
static int sg_graph_has(const struct CUgraph_st *g, const struct CUgraphNode_st *n)
{
	for (const struct CUgraphNode_st *m = g->head; m; m = m->next)
		if (m == n)
			return 1;
	return 0;
}

/* Checks, then the exec's new values for node n. "The owning context
 * of the function cannot change." */
static CUresult sg_exec_set(CUgraphExec e, CUgraphNode n, const struct sg_kparams *kp)
{
	struct sg_exec_kern *k;

	if (!e || e->magic != SG_EXEC_MAGIC || !sg_kern_node(n) || !sg_graph_has(e->graph, n))
		return CUDA_ERROR_INVALID_VALUE;
	if (simgpu_func_check(kp->func))
		return CUDA_ERROR_INVALID_VALUE;
	if (kp->func->mod && n->kp.func && n->kp.func->mod &&
	    kp->func->mod->ctx != n->kp.func->mod->ctx)
		return CUDA_ERROR_INVALID_VALUE;
	for (k = e->kerns; k && k->node != n; k = k->next)
		;
	if (!k) {
		k = calloc(1, sizeof(*k));
		if (!k)
			return CUDA_ERROR_OUT_OF_MEMORY;
		k->node = n;
		k->next = e->kerns;
		e->kerns = k;
	}
	k->kp = *kp;
	k->kp.ctx = n->kp.ctx;
	k->ns = simgpu_kernel_ns(kp->func, kp->params, kp->extra);
	return CUDA_SUCCESS;
}

SG_API CUresult cuGraphExecKernelNodeSetParams(CUgraphExec e, CUgraphNode hNode,
					       const CUDA_KERNEL_NODE_PARAMS_v1 *p)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	return sg_exec_set(e, hNode, &SG_KPARAMS(p, p->func, NULL));
}

#if CUDA_VERSION >= 12000
SG_API CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS *p)
{
	SG_GATE();
	CUDA_KERNEL_NODE_PARAMS_v1 v1;
	CUresult rc;

	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	rc = cuGraphKernelNodeGetParams(hNode, &v1);
	if (rc)
		return rc;
	*p = (CUDA_KERNEL_NODE_PARAMS){
		.func = v1.func, .gridDimX = v1.gridDimX, .gridDimY = v1.gridDimY,
		.gridDimZ = v1.gridDimZ, .blockDimX = v1.blockDimX, .blockDimY = v1.blockDimY,
		.blockDimZ = v1.blockDimZ, .sharedMemBytes = v1.sharedMemBytes,
		.kernelParams = v1.kernelParams, .extra = v1.extra,
		/* A CUkernel is simgpu's CUfunction (kernel.c). */
		.kern = (CUkernel)(void *)v1.func, .ctx = hNode->kp.ctx,
	};
	return CUDA_SUCCESS;
}

SG_API CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec e, CUgraphNode hNode,
						  const CUDA_KERNEL_NODE_PARAMS *p)
{
	SG_GATE();
	CUfunction f;

	SG_INIT_CHECK();
	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	/* "kern: Kernel to launch, will only be referenced if func is NULL" */
	f = p->func ? p->func : (CUfunction)(void *)p->kern;
	return sg_exec_set(e, hNode, &SG_KPARAMS(p, f, NULL));
}
#endif
