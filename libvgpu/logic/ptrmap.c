// SPDX-License-Identifier: GPL-2.0
/*
 * The allocation map: 64 shards chosen by a hash of the key, each an
 * open-addressing table (linear probing, deletion by backward shift, so
 * no tombstones) under its own mutex. A lock is held only for the probe;
 * never across a call into the driver or an ioctl.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ptrmap.h"

struct vgpu_shard {
	pthread_mutex_t lk;
	struct vgpu_alloc *slot;
	size_t cap, n;		/* cap: 0 or a power of two */
} __attribute__((aligned(64)));

static struct vgpu_shard vgpu_shards[VGPU_PTRMAP_SHARDS] = {
	[0 ... VGPU_PTRMAP_SHARDS - 1] = { .lk = PTHREAD_MUTEX_INITIALIZER },
};

static uint64_t mix(uint32_t kind, uint64_t key)
{
	uint64_t h = key ^ ((uint64_t)kind << 56);

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

static struct vgpu_shard *shard_of(uint64_t h)
{
	return &vgpu_shards[h & (VGPU_PTRMAP_SHARDS - 1)];
}

static size_t home(const struct vgpu_shard *s, uint64_t h)
{
	return (size_t)(h >> 6) & (s->cap - 1);
}

/* Index of (kind, key) or of the empty slot where it would go. */
static size_t probe(const struct vgpu_shard *s, uint64_t h, uint32_t kind, uint64_t key)
{
	size_t i = home(s, h);

	while (s->slot[i].kind != VGPU_K_NONE &&
	       (s->slot[i].kind != kind || s->slot[i].key != key))
		i = (i + 1) & (s->cap - 1);
	return i;
}

static int grow(struct vgpu_shard *s)
{
	size_t ncap = s->cap ? s->cap * 2 : 64;
	struct vgpu_alloc *old = s->slot, *n = calloc(ncap, sizeof(*n));
	size_t ocap = s->cap;

	if (!n)
		return -1;
	s->slot = n;
	s->cap = ncap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].kind != VGPU_K_NONE)
			s->slot[probe(s, mix(old[i].kind, old[i].key), old[i].kind,
				      old[i].key)] = old[i];
	free(old);
	return 0;
}

/* Remove slot i, shifting later members of its cluster back. */
static void del(struct vgpu_shard *s, size_t i)
{
	size_t j = i;

	for (;;) {
		size_t k;

		j = (j + 1) & (s->cap - 1);
		if (s->slot[j].kind == VGPU_K_NONE)
			break;
		k = home(s, mix(s->slot[j].kind, s->slot[j].key));
		/* Leave j where it is if its home lies cyclically in (i, j]. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		s->slot[i] = s->slot[j];
		i = j;
	}
	s->slot[i].kind = VGPU_K_NONE;
	s->n--;
}

int libvgpu_ptrmap_put(const struct vgpu_alloc *a, struct vgpu_alloc *old)
{
	uint64_t h = mix(a->kind, a->key);
	struct vgpu_shard *s = shard_of(h);
	int rc = 0;
	size_t i;

	pthread_mutex_lock(&s->lk);
	if ((s->n + 1) * 4 > s->cap * 3 && grow(s)) {
		pthread_mutex_unlock(&s->lk);
		return -1;
	}
	i = probe(s, h, a->kind, a->key);
	if (s->slot[i].kind != VGPU_K_NONE) {
		*old = s->slot[i];
		rc = 1;
	} else {
		s->n++;
	}
	s->slot[i] = *a;
	pthread_mutex_unlock(&s->lk);
	return rc;
}

static int lookup(uint32_t kind, uint64_t key, struct vgpu_alloc *out, int remove)
{
	uint64_t h = mix(kind, key);
	struct vgpu_shard *s = shard_of(h);
	int found = 0;

	pthread_mutex_lock(&s->lk);
	if (s->cap) {
		size_t i = probe(s, h, kind, key);

		if (s->slot[i].kind != VGPU_K_NONE) {
			found = 1;
			if (out)
				*out = s->slot[i];
			if (remove)
				del(s, i);
		}
	}
	pthread_mutex_unlock(&s->lk);
	return found;
}

int libvgpu_ptrmap_take(uint32_t kind, uint64_t key, struct vgpu_alloc *out)
{
	return lookup(kind, key, out, 1);
}

int libvgpu_ptrmap_get(uint32_t kind, uint64_t key, struct vgpu_alloc *out)
{
	return lookup(kind, key, out, 0);
}

size_t libvgpu_ptrmap_take_ctx(void *ctx, void (*fn)(const struct vgpu_alloc *, void *),
			       void *arg)
{
	size_t total = 0;

	for (int k = 0; k < VGPU_PTRMAP_SHARDS; k++) {
		struct vgpu_shard *s = &vgpu_shards[k];
		struct vgpu_alloc batch[32];
		size_t nb;

		do {
			nb = 0;
			pthread_mutex_lock(&s->lk);
			for (size_t i = 0; i < s->cap && nb < 32;) {
				if (s->slot[i].kind != VGPU_K_NONE && s->slot[i].ctx == ctx) {
					batch[nb++] = s->slot[i];
					del(s, i);	/* slot i now holds a shifted entry */
					continue;
				}
				i++;
			}
			pthread_mutex_unlock(&s->lk);
			for (size_t i = 0; i < nb; i++)
				fn(&batch[i], arg);
			total += nb;
		} while (nb == 32);
	}
	return total;
}

void libvgpu_ptrmap_reset(void)
{
	for (int k = 0; k < VGPU_PTRMAP_SHARDS; k++) {
		struct vgpu_shard *s = &vgpu_shards[k];

		pthread_mutex_init(&s->lk, NULL);
		free(s->slot);
		s->slot = NULL;
		s->cap = s->n = 0;
	}
}

size_t libvgpu_ptrmap_count(void)
{
	size_t n = 0;

	for (int k = 0; k < VGPU_PTRMAP_SHARDS; k++) {
		pthread_mutex_lock(&vgpu_shards[k].lk);
		n += vgpu_shards[k].n;
		pthread_mutex_unlock(&vgpu_shards[k].lk);
	}
	return n;
}
