// SPDX-License-Identifier: GPL-2.0
/*
 * VMM references: two open-addressing tables (linear probing, deletion by
 * backward shift) under one mutex, held only for the probes: the handles
 * with their reference counts, and the mappings by address. VMM calls are
 * rare next to cuMemAlloc (a framework maps a few large segments), so one
 * lock does; the cost of a create/map/unmap/release round is measured by
 * bench/vram-bench.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "vmmref.h"

struct vref_table {
	struct vgpu_vref *slot;
	size_t cap, n;		/* cap: 0 or a power of two */
};

static pthread_mutex_t vref_lk = PTHREAD_MUTEX_INITIALIZER;
static struct vref_table handles, maps;

static size_t home(const struct vref_table *t, uint64_t key)
{
	uint64_t h = key;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (size_t)h & (t->cap - 1);
}

/* Index of key or of the empty slot where it would go (cap > 0). */
static size_t probe(const struct vref_table *t, uint64_t key)
{
	size_t i = home(t, key);

	while (t->slot[i].refs && t->slot[i].key != key)
		i = (i + 1) & (t->cap - 1);
	return i;
}

static struct vgpu_vref *find(const struct vref_table *t, uint64_t key)
{
	size_t i;

	if (!t->cap)
		return NULL;
	i = probe(t, key);
	return t->slot[i].refs ? &t->slot[i] : NULL;
}

static int grow(struct vref_table *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 64, ocap = t->cap;
	struct vgpu_vref *old = t->slot, *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -1;
	t->slot = n;
	t->cap = ncap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].refs)
			t->slot[probe(t, old[i].key)] = old[i];
	free(old);
	return 0;
}

/* Insert or replace e: 1 with *old when key was there, 0, or -1. */
static int insert(struct vref_table *t, const struct vgpu_vref *e, struct vgpu_vref *old)
{
	size_t i;

	if ((t->n + 1) * 4 > t->cap * 3 && grow(t))
		return -1;
	i = probe(t, e->key);
	if (t->slot[i].refs) {
		if (old)
			*old = t->slot[i];
		t->slot[i] = *e;
		return 1;
	}
	t->slot[i] = *e;
	t->n++;
	return 0;
}

/* Remove slot i, shifting later members of its cluster back. */
static void del(struct vref_table *t, size_t i)
{
	size_t j = i;

	for (;;) {
		size_t k;

		j = (j + 1) & (t->cap - 1);
		if (!t->slot[j].refs)
			break;
		k = home(t, t->slot[j].key);
		/* Leave j where it is if its home lies cyclically in (i, j]. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		t->slot[i] = t->slot[j];
		i = j;
	}
	t->slot[i].refs = 0;
	t->n--;
}

int libvgpu_vref_create(uint64_t handle, int32_t gpu, uint64_t bytes, struct vgpu_vref *old)
{
	struct vgpu_vref e = { handle, bytes, handle, gpu, 1, 0, 0 };
	int rc;

	pthread_mutex_lock(&vref_lk);
	rc = insert(&handles, &e, old);
	pthread_mutex_unlock(&vref_lk);
	return rc;
}

int libvgpu_vref_get(uint64_t handle)
{
	struct vgpu_vref *e;

	pthread_mutex_lock(&vref_lk);
	e = find(&handles, handle);
	if (e)
		e->refs++;
	pthread_mutex_unlock(&vref_lk);
	return e != NULL;
}

/* Called with vref_lk held. */
static int put_locked(uint64_t handle, struct vgpu_vref *gone)
{
	struct vgpu_vref *e = find(&handles, handle);

	if (!e)
		return 0;
	if (--e->refs)
		return 1;
	e->refs = 1;	/* occupied until del() */
	*gone = *e;
	gone->refs = 0;
	del(&handles, (size_t)(e - handles.slot));
	return 2;
}

int libvgpu_vref_put(uint64_t handle, struct vgpu_vref *gone)
{
	int rc;

	pthread_mutex_lock(&vref_lk);
	rc = put_locked(handle, gone);
	pthread_mutex_unlock(&vref_lk);
	return rc;
}

void libvgpu_vref_restore(const struct vgpu_vref *gone)
{
	struct vgpu_vref e = *gone;
	struct vgpu_vref *cur;

	e.refs = 1;
	pthread_mutex_lock(&vref_lk);
	cur = find(&handles, e.key);
	if (cur)
		cur->refs++;	/* recorded again meanwhile: keep that one */
	else
		insert(&handles, &e, NULL);
	pthread_mutex_unlock(&vref_lk);
}

int libvgpu_vref_map(uint64_t va, uint64_t bytes, uint64_t handle, struct vgpu_vref *gone)
{
	struct vgpu_vref m = { va, bytes, handle, -1, 1, 0, 0 }, old;
	struct vgpu_vref *h;
	int rc = 0;

	pthread_mutex_lock(&vref_lk);
	h = find(&handles, handle);
	if (h) {
		/* Without memory for the mapping's record, its reference is
		 * never dropped: charged until exit, never under-counted. */
		h->refs++;
		rc = insert(&maps, &m, &old);
		/* A mapping at va that went behind our back: its reference
		 * goes. */
		if (rc == 1 && put_locked(old.handle, gone) == 2)
			rc = 2;
		else if (rc >= 0)
			rc = 1;
	}
	pthread_mutex_unlock(&vref_lk);
	return rc;
}

size_t libvgpu_vref_unmap_take(uint64_t va, uint64_t bytes, struct vgpu_vref *buf,
			       size_t cap, struct vgpu_vref **out)
{
	uint64_t end = va + bytes;
	struct vgpu_vref *e;
	size_t n = 0;

	*out = buf;
	pthread_mutex_lock(&vref_lk);
	/* The usual case: one mapping, unmapped whole. */
	e = find(&maps, va);
	if (e && e->key + e->bytes == end) {
		buf[n++] = *e;
		del(&maps, (size_t)(e - maps.slot));
		goto out;
	}
	for (size_t i = 0; i < maps.cap; i++)
		if (maps.slot[i].refs && maps.slot[i].key >= va && maps.slot[i].key < end)
			n++;
	if (n > cap)
		*out = malloc(n * sizeof(**out));
	if (!*out) {
		n = 0;
		goto out;
	}
	n = 0;
	for (size_t i = 0; i < maps.cap;) {
		e = &maps.slot[i];
		if (e->refs && e->key >= va && e->key < end) {
			(*out)[n++] = *e;
			del(&maps, i);	/* slot i now holds a shifted entry */
			continue;
		}
		i++;
	}
out:
	pthread_mutex_unlock(&vref_lk);
	return n;
}

void libvgpu_vref_unmap_restore(const struct vgpu_vref *m, size_t n)
{
	pthread_mutex_lock(&vref_lk);
	for (size_t i = 0; i < n; i++)
		insert(&maps, &m[i], NULL);
	pthread_mutex_unlock(&vref_lk);
}

int libvgpu_vref_export(uint64_t handle, uint64_t fdev, uint64_t ino)
{
	struct vgpu_vref *e;

	pthread_mutex_lock(&vref_lk);
	e = find(&handles, handle);
	if (e) {
		e->fdev = fdev;
		e->fino = ino;
	}
	pthread_mutex_unlock(&vref_lk);
	return e != NULL;
}

int libvgpu_vref_insert(const struct vgpu_vref *r, struct vgpu_vref *old)
{
	struct vgpu_vref e = *r;
	int rc;

	e.refs = 1;
	pthread_mutex_lock(&vref_lk);
	rc = insert(&handles, &e, old);
	pthread_mutex_unlock(&vref_lk);
	return rc;
}

int libvgpu_vref_pending(uint64_t handle, int32_t *gpu)
{
	struct vgpu_vref *e;
	int rc = 0;

	pthread_mutex_lock(&vref_lk);
	e = find(&handles, handle);
	if (e && !e->bytes) {
		*gpu = e->gpu;
		rc = 1;
	}
	pthread_mutex_unlock(&vref_lk);
	return rc;
}

int libvgpu_vref_claim(uint64_t handle, uint64_t bytes)
{
	struct vgpu_vref *e;
	int rc = 0;

	pthread_mutex_lock(&vref_lk);
	e = find(&handles, handle);
	if (e && !e->bytes) {
		e->bytes = bytes;
		rc = 1;
	}
	pthread_mutex_unlock(&vref_lk);
	return rc;
}

void libvgpu_vref_reset(void)
{
	pthread_mutex_init(&vref_lk, NULL);
	free(handles.slot);
	free(maps.slot);
	memset(&handles, 0, sizeof(handles));
	memset(&maps, 0, sizeof(maps));
}

size_t libvgpu_vref_count(size_t *mappings)
{
	size_t n;

	pthread_mutex_lock(&vref_lk);
	n = handles.n;
	if (mappings)
		*mappings = maps.n;
	pthread_mutex_unlock(&vref_lk);
	return n;
}
