// SPDX-License-Identifier: GPL-2.0
/*
 * cuCtxEnablePeerAccess and cuCtxDisablePeerAccess (CUDA Driver API
 * reference, "Peer Context Memory Access"). Whether two devices may
 * access each other is cuDeviceCanAccessPeer's answer from the configured
 * topology (topo.c); each context keeps the peer contexts it enabled, by
 * handle and id, so a destroyed peer whose handle is reused is not taken
 * for the old one. cuBLASLt dlsyms both from libcuda.so.1 itself.
 *
 * All memory is one address space here, so enabling changes what is
 * allowed, not what can be reached.
 */
#include "simgpu.h"

/* The slot of peer in c's list, or -1; simgpu_lk held. */
static int sg_peer_slot(const struct CUctx_st *c, const struct CUctx_st *peer)
{
	for (int i = 0; i < SG_PEERS; i++)
		if (c->peer[i] == peer && c->peer_id[i] == peer->id)
			return i;
	return -1;
}

/* The current context and a valid peer other than it, or the error. */
static CUresult sg_peer_pair(CUcontext peerContext, struct CUctx_st **cur)
{
	struct CUctx_st *c = simgpu_ctx_current();

	if (!simgpu_ctx_valid(c) || !simgpu_ctx_valid(peerContext) || c == peerContext)
		return CUDA_ERROR_INVALID_CONTEXT;
	*cur = c;
	return CUDA_SUCCESS;
}

SG_API CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
	SG_GATE();
	struct CUctx_st *c;
	CUresult rc;
	int free_slot = -1;

	SG_INIT_CHECK();
	/* "CUDA_ERROR_INVALID_VALUE if Flags is not 0" */
	if (Flags)
		return CUDA_ERROR_INVALID_VALUE;
	rc = sg_peer_pair(peerContext, &c);
	if (rc)
		return rc;
	if (!simgpu_topo_peer_ok(&simgpu_cfg, simgpu_phys(c->dev), simgpu_phys(peerContext->dev)))
		return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
	pthread_mutex_lock(&simgpu_lk);
	if (sg_peer_slot(c, peerContext) >= 0) {
		rc = CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
	} else {
		for (int i = 0; i < SG_PEERS && free_slot < 0; i++)
			if (!c->peer[i] || !simgpu_ctx_valid(c->peer[i]) || c->peer[i]->id != c->peer_id[i])
				free_slot = i;
		if (free_slot < 0) {
			rc = CUDA_ERROR_TOO_MANY_PEERS;
		} else {
			c->peer[free_slot] = peerContext;
			c->peer_id[free_slot] = peerContext->id;
		}
	}
	pthread_mutex_unlock(&simgpu_lk);
	return rc;
}

SG_API CUresult cuCtxDisablePeerAccess(CUcontext peerContext)
{
	SG_GATE();
	struct CUctx_st *c;
	CUresult rc;
	int i;

	SG_INIT_CHECK();
	rc = sg_peer_pair(peerContext, &c);
	if (rc)
		return rc;
	pthread_mutex_lock(&simgpu_lk);
	i = sg_peer_slot(c, peerContext);
	/* "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED if direct peer access has not
	 * yet been enabled from peerContext to the current context" */
	if (i < 0) {
		rc = CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
	} else {
		c->peer[i] = NULL;
		c->peer_id[i] = 0;
	}
	pthread_mutex_unlock(&simgpu_lk);
	return rc;
}
