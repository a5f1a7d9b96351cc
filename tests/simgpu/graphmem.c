// SPDX-License-Identifier: GPL-2.0
/*
 * The per-device reserve of graph memory (CUDA Programming Guide, "Graph
 * Memory Nodes", "Physical Memory Management and Sharing" and
 * "Performance Considerations"): the driver maps physical memory to a
 * graph allocation when a launch (or cuGraphUpload) needs it and keeps it
 * reserved for later launches after the allocation is freed; freed memory
 * is reused by the next graph allocations on that device, and only
 * cuDeviceGraphMemTrim gives unused reserved memory back to the OS.
 * simgpu charges the reserve (not each allocation): it grows when the
 * graph allocations in use would exceed it and shrinks to what is in use
 * at a trim. CU_GRAPH_MEM_ATTR_{USED,RESERVED}_MEM_{CURRENT,HIGH} read it.
 */
#include "simgpu.h"

struct sg_graphmem {
	uint64_t used, used_high;
	uint64_t reserved, reserved_high;
};

static struct sg_graphmem gmem[SG_MAX_GPUS];
static pthread_mutex_t gmem_lk = PTHREAD_MUTEX_INITIALIZER;

/* Grow dev's reserve to at least used + bytes, charging the growth. */
static CUresult grow(int dev, uint64_t bytes, int use)
{
	struct sg_graphmem *m = &gmem[dev];
	uint64_t want, more;
	CUresult rc = CUDA_SUCCESS;

	pthread_mutex_lock(&gmem_lk);
	want = m->used + bytes;
	more = want > m->reserved ? want - m->reserved : 0;
	if (more)
		rc = simgpu_charge(dev, more);
	if (!rc) {
		m->reserved += more;
		if (m->reserved > m->reserved_high)
			m->reserved_high = m->reserved;
		if (use) {
			m->used = want;
			if (m->used > m->used_high)
				m->used_high = m->used;
		}
	}
	pthread_mutex_unlock(&gmem_lk);
	return rc;
}

CUresult simgpu_graphmem_take(int dev, uint64_t bytes)
{
	if (dev < 0 || dev >= SG_MAX_GPUS)
		return CUDA_ERROR_INVALID_DEVICE;
	return grow(dev, bytes, 1);
}

CUresult simgpu_graphmem_reserve(int dev, uint64_t bytes)
{
	if (dev < 0 || dev >= SG_MAX_GPUS)
		return CUDA_ERROR_INVALID_DEVICE;
	return grow(dev, bytes, 0);
}

void simgpu_graphmem_put(int dev, uint64_t bytes)
{
	if (dev < 0 || dev >= SG_MAX_GPUS)
		return;
	pthread_mutex_lock(&gmem_lk);
	gmem[dev].used -= bytes < gmem[dev].used ? bytes : gmem[dev].used;
	pthread_mutex_unlock(&gmem_lk);
}

SG_API CUresult cuDeviceGraphMemTrim(CUdevice dev)
{
	SG_GATE();
	CUresult rc = simgpu_check_dev(dev);
	uint64_t spare;

	if (rc)
		return rc;
	pthread_mutex_lock(&gmem_lk);
	spare = gmem[dev].reserved - gmem[dev].used;
	gmem[dev].reserved = gmem[dev].used;
	pthread_mutex_unlock(&gmem_lk);
	simgpu_uncharge(dev, spare);
	return CUDA_SUCCESS;
}

SG_API CUresult cuDeviceGetGraphMemAttribute(CUdevice dev, CUgraphMem_attribute attr, void *value)
{
	SG_GATE();
	CUresult rc = simgpu_check_dev(dev);
	struct sg_graphmem m;

	if (rc)
		return rc;
	if (!value)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&gmem_lk);
	m = gmem[dev];
	pthread_mutex_unlock(&gmem_lk);
	switch (attr) {
	case CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT:
		*(cuuint64_t *)value = m.used;
		break;
	case CU_GRAPH_MEM_ATTR_USED_MEM_HIGH:
		*(cuuint64_t *)value = m.used_high;
		break;
	case CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT:
		*(cuuint64_t *)value = m.reserved;
		break;
	case CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH:
		*(cuuint64_t *)value = m.reserved_high;
		break;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

/* Only the high watermarks can be set, and only to zero (which resets
 * them to the current value, as the pool watermarks are). */
SG_API CUresult cuDeviceSetGraphMemAttribute(CUdevice dev, CUgraphMem_attribute attr, void *value)
{
	SG_GATE();
	CUresult rc = simgpu_check_dev(dev);

	if (rc)
		return rc;
	if (!value || *(cuuint64_t *)value)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&gmem_lk);
	if (attr == CU_GRAPH_MEM_ATTR_USED_MEM_HIGH)
		gmem[dev].used_high = gmem[dev].used;
	else if (attr == CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH)
		gmem[dev].reserved_high = gmem[dev].reserved;
	else
		rc = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&gmem_lk);
	return rc;
}
