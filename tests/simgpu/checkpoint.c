// SPDX-License-Identifier: GPL-2.0
/*
 * cuCheckpointProcessCheckpoint and cuCheckpointProcessRestore inside the
 * process (ckptsrv.c calls them with the gate locked). As NVIDIA's driver
 * API reference and cuda-checkpoint's README describe it, a checkpoint
 * waits for submitted work, copies device memory "to the host, into
 * allocations managed by the CUDA driver" and releases the GPUs; a
 * restore re-acquires them, copies the memory back and maps it "at their
 * original addresses", optionally on other GPUs of the same type.
 *
 * simgpu's device memory is the process's own mappings (mem.c, vmm.c),
 * so a checkpoint copies each allocation's bytes into new anonymous host
 * memory of the process, then drops the device pages (MADV_DONTNEED and
 * PROT_NONE, the address kept reserved; a memfd's pages punched out) and
 * gives the process's charge on every GPU back to the shared state. Both
 * directions check everything before they change anything: a refusal
 * (managed or IPC memory; no room to restore) leaves the process as it
 * was. Host memory is the process's: kill -9 frees it with the process.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ckpt.h"

#ifdef MADV_POPULATE_WRITE
#define SG_MADV_POPULATE_WRITE MADV_POPULATE_WRITE
#else
#define SG_MADV_POPULATE_WRITE 23	/* <linux/mman.h>, Linux 5.14 */
#endif

struct sg_blob {
	uintptr_t base;		/* a private mapping (fd < 0) */
	int fd;			/* or a VMM allocation's memfd, from offset 0 */
	size_t len;
	void *host;		/* its bytes while checkpointed */
};

static struct sg_blob *blobs;
static size_t nblobs, blobcap;
static uint64_t held[SG_MAX_GPUS];	/* bytes given back, per GPU */
static int32_t held_ctxs[SG_MAX_GPUS];	/* contexts, for NVML's lists */

static int blob_add(uintptr_t base, int fd, size_t len)
{
	if (nblobs == blobcap) {
		size_t ncap = blobcap ? blobcap * 2 : 64;
		struct sg_blob *n = realloc(blobs, ncap * sizeof(*n));

		if (!n)
			return -1;
		blobs = n;
		blobcap = ncap;
	}
	blobs[nblobs++] = (struct sg_blob){ .base = base, .fd = fd, .len = len };
	return 0;
}

/* What a checkpoint copies: allocations in use; 1 stops at managed
 * memory, which the driver cannot checkpoint ("does not support UVM"). */
static int take_range(const struct sg_range *r, void *arg)
{
	(void)arg;
	switch (r->kind) {
	case SG_MEM_MANAGED:
		return 1;
	case SG_MEM_DEVICE:
		return blob_add(r->base, -1, r->mapsize) ? -1 : 0;
	case SG_MEM_POOL:
		return r->in_use && blob_add(r->base, -1, r->mapsize) ? -1 : 0;
	case SG_MEM_GRAPH:	/* while a graph's allocation holds it */
		return r->charged && blob_add(r->base, -1, r->mapsize) ? -1 : 0;
	default:		/* host memory, reservations, module globals */
		return 0;
	}
}

static int take_vmm(int fd, size_t size, void *arg)
{
	(void)arg;
	for (size_t i = 0; i < nblobs; i++)
		if (blobs[i].fd == fd)
			return 0;	/* mapped twice: one copy */
	return blob_add(0, fd, size);
}

static void blobs_free(void)
{
	for (size_t i = 0; i < nblobs; i++)
		if (blobs[i].host)
			munmap(blobs[i].host, blobs[i].len);
	free(blobs);
	blobs = NULL;
	nblobs = blobcap = 0;
}

/* IPC memory (an exported or imported VMM allocation, vmmshare.c) is
 * counted in the shared state as the process's "shared" bytes. */
static int holds_ipc(void)
{
	int ipc = 0;

	if (simgpu_slot < 0)
		return 0;
	simgpu_state_lock();
	for (int g = 0; g < SG_MAX_GPUS; g++)
		ipc |= simgpu_shm->procs[simgpu_slot].shared[g] != 0;
	simgpu_state_unlock();
	return ipc;
}

static int blob_copy_out(struct sg_blob *b)
{
	/* Populated at once: one fault a page would cost more than the copy. */
	void *h = mmap(NULL, b->len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (h == MAP_FAILED)
		return -1;
	b->host = h;
	if (b->fd < 0) {
		memcpy(h, (void *)b->base, b->len);
		return 0;
	}
	for (size_t off = 0; off < b->len;) {
		ssize_t n = pread(b->fd, (char *)h + off, b->len - off, (off_t)off);

		if (n <= 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

/* The device pages go; the address stays reserved for the restore. */
static void blob_drop(const struct sg_blob *b)
{
	if (b->fd < 0) {
		madvise((void *)b->base, b->len, MADV_DONTNEED);
		mprotect((void *)b->base, b->len, PROT_NONE);
	} else {
		fallocate(b->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)b->len);
	}
}

/* Give the process's memory on every GPU back, and take it off NVML's
 * process lists (its contexts are counted there). */
static void charges_release(void)
{
	if (simgpu_slot < 0)
		return;
	simgpu_state_lock();
	for (int g = 0; g < SG_MAX_GPUS; g++) {
		struct sg_proc_shared *p = &simgpu_shm->procs[simgpu_slot];
		struct sg_gpu_shared *gpu = &simgpu_shm->gpus[g];

		held[g] = p->bytes[g];
		held_ctxs[g] = p->ctxs[g];
		gpu->used -= held[g] <= gpu->used ? held[g] : gpu->used;
		p->bytes[g] = 0;
		p->ctxs[g] = 0;
	}
	simgpu_state_unlock();
	for (int g = 0; g < SG_MAX_GPUS; g++)
		simgpu_dmem_uncharge(g, held[g]);
}

CUresult simgpu_ckpt_save(void)
{
	int rc;

	simgpu_stream_drain();
	rc = simgpu_range_each(take_range, NULL);
	if (!rc)
		rc = simgpu_vmm_each_mapped(take_vmm, NULL) ? -1 : 0;
	if (rc || holds_ipc()) {
		blobs_free();
		return rc < 0 ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_NOT_SUPPORTED;
	}
	for (size_t i = 0; i < nblobs; i++) {
		if (blob_copy_out(&blobs[i])) {
			blobs_free();	/* nothing dropped yet: all intact */
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
	}
	for (size_t i = 0; i < nblobs; i++)
		blob_drop(&blobs[i]);
	charges_release();
	return CUDA_SUCCESS;
}

static int gpu_by_uuid(const unsigned char uuid[16])
{
	unsigned char u[16];

	for (int i = 0; i < simgpu_cfg.ngpus; i++)
		if (!simgpu_uuid_parse(simgpu_cfg.gpu[i].uuid, u) && !memcmp(u, uuid, 16))
			return i;
	return -1;
}

/*
 * map[g]: the GPU that gets what the process held on GPU g. The reference:
 * the GPU restored onto "needs to have enough memory and be of the same
 * chip type as the old GPU" (simgpu's GPUs share one name; its chip is
 * the multiprocessor count), and "if an array of GPU UUID pairs is
 * specified, it must contain every checkpointed GPU". Two GPUs onto one
 * is refused.
 */
static CUresult remap_parse(const struct sg_ckpt_pair *pairs, unsigned int n, int *map, int *vis)
{
	int seen_old[SG_MAX_GPUS] = { 0 }, seen_new[SG_MAX_GPUS] = { 0 };

	for (int g = 0; g < SG_MAX_GPUS; g++)
		map[g] = g;
	for (unsigned int i = 0; i < n; i++) {
		int o = gpu_by_uuid(pairs[i].old_uuid), w = gpu_by_uuid(pairs[i].new_uuid);

		if (o < 0 || w < 0 || seen_old[o]++ || seen_new[w]++ ||
		    simgpu_cfg.gpu[o].sms != simgpu_cfg.gpu[w].sms)
			return CUDA_ERROR_INVALID_VALUE;
		map[o] = w;
	}
	for (int g = 0; g < SG_MAX_GPUS && n; g++)
		if ((held[g] || held_ctxs[g]) && !seen_old[g])
			return CUDA_ERROR_INVALID_VALUE;
	/* The map is made a permutation: a GPU restored onto that was not
	 * moved itself (it held nothing of the process) takes the ordinal of
	 * a GPU left, so the process never sees one GPU twice. */
	for (int w = 0, o = 0; w < SG_MAX_GPUS; w++) {
		if (!seen_new[w] || seen_old[w])
			continue;
		while (o < SG_MAX_GPUS && (!seen_old[o] || seen_new[o]))
			o++;
		if (o == SG_MAX_GPUS)
			return CUDA_ERROR_INVALID_VALUE;	/* cannot happen */
		map[w] = o++;
	}
	for (int d = 0; d < simgpu_nvis; d++)
		vis[d] = map[simgpu_vis[d]];
	return CUDA_SUCCESS;
}

/* Whether every GPU has room for what comes back to it (state lock held). */
static int all_fit(const int *map)
{
	for (int g = 0; g < SG_MAX_GPUS; g++) {
		struct sg_gpu_shared *gpu = &simgpu_shm->gpus[map[g]];

		if (!held[g])
			continue;
		if (gpu->used + held[g] > gpu->total ||
		    (simgpu_cfg.memory_limits && simgpu_slot >= 0 &&
		     !simgpu_limit_allows(simgpu_slot, map[g], held[g])))
			return 0;
	}
	return 1;
}

/* Take the memory back, all of it or none (the kernel's dmem controller
 * first, as simgpu_charge does). */
static CUresult charges_take(const int *map)
{
	CUresult rc = CUDA_SUCCESS;
	int g, fit;

	for (g = 0; g < SG_MAX_GPUS && !rc; g++)
		rc = simgpu_dmem_charge(map[g], held[g]);
	if (rc) {
		while (--g > 0)
			simgpu_dmem_uncharge(map[g - 1], held[g - 1]);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	simgpu_state_lock();
	fit = all_fit(map);
	if (!fit) {
		simgpu_state_reclaim(1);	/* a dead process may hold it */
		fit = all_fit(map);
	}
	for (g = 0; g < SG_MAX_GPUS && fit && simgpu_slot >= 0; g++) {
		simgpu_shm->gpus[map[g]].used += held[g];
		simgpu_shm->procs[simgpu_slot].bytes[map[g]] += held[g];
		simgpu_shm->procs[simgpu_slot].ctxs[map[g]] += held_ctxs[g];
	}
	simgpu_state_unlock();
	if (!fit)
		for (g = 0; g < SG_MAX_GPUS; g++)
			simgpu_dmem_uncharge(map[g], held[g]);
	return fit ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

static void blob_copy_in(const struct sg_blob *b)
{
	if (b->fd < 0) {
		/* Cannot fail short of the kernel refusing to map the range
		 * back, and the process cannot go on without its memory. */
		if (mprotect((void *)b->base, b->len, PROT_READ | PROT_WRITE))
			abort();
		/* All pages at once, as for the host copy (Linux 5.14; an
		 * older kernel faults them in one by one). */
		madvise((void *)b->base, b->len, SG_MADV_POPULATE_WRITE);
		memcpy((void *)b->base, b->host, b->len);
		return;
	}
	for (size_t off = 0; off < b->len;) {
		ssize_t n = pwrite(b->fd, (char *)b->host + off, b->len - off, (off_t)off);

		if (n <= 0)
			abort();
		off += (size_t)n;
	}
}

CUresult simgpu_ckpt_load(const struct sg_ckpt_pair *pairs, unsigned int npairs)
{
	int map[SG_MAX_GPUS], vis[SG_MAX_GPUS];
	CUresult rc = remap_parse(pairs, npairs, map, vis);

	if (!rc)
		rc = charges_take(map);
	if (rc)
		return rc;
	/* CUDA ordinals now name the GPUs restored onto. */
	memcpy(simgpu_vis, vis, sizeof(int) * (size_t)simgpu_nvis);
	for (size_t i = 0; i < nblobs; i++)
		blob_copy_in(&blobs[i]);
	blobs_free();
	memset(held, 0, sizeof(held));
	memset(held_ctxs, 0, sizeof(held_ctxs));
	return CUDA_SUCCESS;
}
