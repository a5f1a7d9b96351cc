// SPDX-License-Identifier: GPL-2.0
/*
 * Charges kept by open exported descriptors. The CUDA Driver API reference
 * (cuMemExportToShareableHandle, cuMemRelease) keeps an allocation while
 * one of its shareable handles is open, and a descriptor's close is no
 * call libvgpu sees: so a kept charge is re-checked, with one walk of
 * /proc/self/fd, at the check points (every VMM call and every
 * synchronisation, vmm.c and sync.c), and given back at the first one that
 * finds no descriptor of the file open. Kept records are few (a process
 * exports a handful of allocations): an array under a mutex, with a count
 * read without it so that the check points cost nothing when none is kept.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "account.h"
#include "vmmfd.h"

static pthread_mutex_t vfd_lk = PTHREAD_MUTEX_INITIALIZER;
static struct vgpu_vref *kept;
static size_t nkept, capkept;

/* Mark in found[] the kept records a descriptor of this process names;
 * with want (one file) instead, whether one names it. */
static int walk(const struct vgpu_vref *want, char *found)
{
	DIR *fds = opendir("/proc/self/fd");
	struct dirent *f;
	struct stat st;
	int hit = 0;

	if (!fds)
		return 1;	/* cannot tell: keep, never under-count */
	while (!hit && (f = readdir(fds))) {
		if (f->d_name[0] == '.' || fstatat(dirfd(fds), f->d_name, &st, 0))
			continue;
		if (want) {
			hit = (uint64_t)st.st_dev == want->fdev && (uint64_t)st.st_ino == want->fino;
			continue;
		}
		for (size_t i = 0; i < nkept; i++)
			if ((uint64_t)st.st_dev == kept[i].fdev && (uint64_t)st.st_ino == kept[i].fino)
				found[i] = 1;
	}
	closedir(fds);
	return hit;
}

int libvgpu_vfd_open(uint64_t fdev, uint64_t ino)
{
	struct vgpu_vref want = { .fdev = fdev, .fino = ino };

	return walk(&want, NULL);
}

int libvgpu_vfd_keep(const struct vgpu_vref *r)
{
	int rc = 0;

	pthread_mutex_lock(&vfd_lk);
	if (nkept == capkept) {
		size_t ncap = capkept ? capkept * 2 : 8;
		struct vgpu_vref *n = realloc(kept, ncap * sizeof(*n));

		if (n) {
			kept = n;
			capkept = ncap;
		}
	}
	if (nkept < capkept)
		kept[nkept++] = *r;
	else
		rc = -1;
	pthread_mutex_unlock(&vfd_lk);
	return rc;
}

int libvgpu_vfd_take(uint64_t fdev, uint64_t ino, struct vgpu_vref *out)
{
	int rc = 0;

	if (!__atomic_load_n(&nkept, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&vfd_lk);
	for (size_t i = 0; i < nkept; i++)
		if (kept[i].fdev == fdev && kept[i].fino == ino) {
			*out = kept[i];
			kept[i] = kept[--nkept];
			rc = 1;
			break;
		}
	pthread_mutex_unlock(&vfd_lk);
	return rc;
}

/* Give back the records whose descriptors are closed. */
void libvgpu_vfd_check(void)
{
	struct vgpu_vref *gone = NULL;
	size_t ngone = 0;
	char *found;

	if (!__atomic_load_n(&nkept, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&vfd_lk);
	found = calloc(nkept ? nkept : 1, 1);
	gone = malloc((nkept ? nkept : 1) * sizeof(*gone));
	if (found && gone && !walk(NULL, found)) {
		for (size_t i = nkept; i-- > 0;)
			if (!found[i]) {
				gone[ngone++] = kept[i];
				kept[i] = kept[--nkept];
			}
	}
	pthread_mutex_unlock(&vfd_lk);
	for (size_t i = 0; i < ngone; i++) {
		struct vgpu_alloc a = { gone[i].key, gone[i].bytes, NULL, gone[i].gpu,
					VGPU_K_VMM };

		libvgpu_release(&a);
	}
	free(found);
	free(gone);
}

void libvgpu_vfd_reset(void)
{
	pthread_mutex_init(&vfd_lk, NULL);
	free(kept);
	kept = NULL;
	nkept = capkept = 0;
}
