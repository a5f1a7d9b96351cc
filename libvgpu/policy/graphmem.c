// SPDX-License-Identifier: GPL-2.0
/*
 * Graph memory is charged by what the driver reserves for graphs on each
 * device (CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT), not per allocation:
 * the driver maps physical memory to graph allocations at launch or
 * cuGraphUpload and keeps it reserved for later launches after the graph
 * frees it, until cuDeviceGraphMemTrim gives the unused part back (CUDA
 * Programming Guide, "Graph Memory Nodes", "Physical Memory Management
 * and Sharing"). So, like pools (poolcharge.c):
 *   - before a launch or upload, the growth the graph's allocation nodes
 *     may need (USED_MEM_CURRENT + their bytes beyond what is charged) is
 *     charged; a refusal fails the call with CUDA_ERROR_OUT_OF_MEMORY;
 *   - after it, and after cuDeviceGraphMemTrim and the synchronisations
 *     (sync.c), the reserve is re-read and the charge follows it.
 * A freed graph allocation changes nothing: its memory stays reserved and
 * charged until trimmed or the process ends.
 */
#include <pthread.h>
#include <string.h>

#include "account.h"
#include "../state/devmap.h"
#include "graphmem.h"
#include "../access/hooks.h"
#include "../access/log.h"
#include "register.h"
#include "../state/state.h"
#include "../access/nest.h"

struct gm_rec {
	int seen;
	int gpu;
	uint64_t charged;
};

static struct gm_rec recs[VGPU_GRAPHMEM_DEVS];
static int nseen;
static pthread_mutex_t gm_lk = PTHREAD_MUTEX_INITIALIZER;

int libvgpu_graphmem_ready(void)
{
	return REAL(cuDeviceGetGraphMemAttribute) != NULL;
}

static int attr(CUdevice dev, CUgraphMem_attribute a, uint64_t *v)
{
	vgpu_pfn_cuDeviceGetGraphMemAttribute get = REAL(cuDeviceGetGraphMemAttribute);
	cuuint64_t val = 0;

	if (!get || get(dev, a, &val))
		return -1;
	*v = val;
	return 0;
}

/* dev's record (seen from now on), or NULL (dev out of range); gm_lk
 * held. A device outside the inventory (gpu < 0) is never charged. */
static struct gm_rec *rec_get(CUdevice dev)
{
	struct gm_rec *r;

	if (dev < 0 || dev >= VGPU_GRAPHMEM_DEVS)
		return NULL;
	r = &recs[dev];
	if (r->gpu < 0 || !r->seen)	/* not charged yet: look again */
		r->gpu = libvgpu_dev_gpu(dev);
	if (!r->seen) {
		r->seen = 1;
		if (dev >= nseen)
			__atomic_store_n(&nseen, dev + 1, __ATOMIC_RELEASE);
	}
	return r;
}

/* The charge follows the reserve; gm_lk held. Growth the module refuses
 * here (made by a launch beyond what was charged ahead) is logged. */
static void follow(struct gm_rec *r, CUdevice dev)
{
	uint64_t res;

	if (r->gpu < 0 || !vgpu_active() ||
	    attr(dev, CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT, &res))
		return;
	if (res < r->charged) {
		libvgpu_uncharge(&libvgpu_proc.charger, r->gpu, r->charged - res);
		r->charged = res;
	} else if (res > r->charged) {
		if (libvgpu_charge(&libvgpu_proc.charger, r->gpu, res - r->charged)) {
			libvgpu_log(VGPU_LOG_WARN, "the graph memory of device %d holds %llu "
				    "bytes more than charged and the module refused them", dev,
				    (unsigned long long)(res - r->charged));
			return;
		}
		libvgpu_charge_commit(&libvgpu_proc.charger, r->gpu, res - r->charged);
		r->charged = res;
	}
}

CUresult libvgpu_graphmem_ahead(CUdevice dev, uint64_t need)
{
	struct vgpu_tx tx;
	struct gm_rec *r;
	uint64_t used, grow;
	CUresult rc = CUDA_SUCCESS;

	if (!need || !vgpu_active())
		return CUDA_SUCCESS;
	pthread_mutex_lock(&gm_lk);
	r = rec_get(dev);
	if (r && r->gpu < 0) {
		/* outside the inventory: the host default allows or refuses */
		rc = libvgpu_tx_begin(&tx, r->gpu, need);
		libvgpu_tx_keep(&tx);
	} else if (r) {
		follow(r, dev);
		if (attr(dev, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &used))
			used = r->charged;
		grow = used + need > r->charged ? used + need - r->charged : 0;
		rc = libvgpu_tx_begin(&tx, r->gpu, grow);
		if (!rc) {
			libvgpu_tx_keep(&tx);
			r->charged += grow;
		}
	}
	pthread_mutex_unlock(&gm_lk);
	return rc;
}

void libvgpu_graphmem_reread(CUdevice dev)
{
	struct gm_rec *r;

	pthread_mutex_lock(&gm_lk);
	r = rec_get(dev);
	if (r)
		follow(r, dev);
	pthread_mutex_unlock(&gm_lk);
}

void libvgpu_graphmem_sync(void)
{
	int n = __atomic_load_n(&nseen, __ATOMIC_ACQUIRE);

	if (!n)
		return;
	pthread_mutex_lock(&gm_lk);
	for (int d = 0; d < n; d++)
		if (recs[d].seen && recs[d].charged)
			follow(&recs[d], d);
	pthread_mutex_unlock(&gm_lk);
}

VGPU_EXPORT CUresult cuDeviceGraphMemTrim(CUdevice device)
{
	VGPU_PASS_NESTED(cuDeviceGraphMemTrim, (device));
	vgpu_pfn_cuDeviceGraphMemTrim real = REAL(cuDeviceGraphMemTrim);
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(device);
	if (rc == CUDA_SUCCESS && vgpu_active())
		libvgpu_graphmem_reread(device);
	return rc;
}

/* In a forked child (init.c): the graph reserves charged were the
 * parent's registration's. */
void libvgpu_graphmem_reset(void)
{
	pthread_mutex_init(&gm_lk, NULL);
	memset(recs, 0, sizeof(recs));
	nseen = 0;
}
