// SPDX-License-Identifier: GPL-2.0
/*
 * Placement (issue #6, the library's part): the process's memory belongs
 * on its tenant's NUMA nodes. The proc-register reply carries the nodes
 * ("mems", absent when unrestricted); the registering thread binds its
 * memory policy to them (set_mempolicy(MPOL_BIND), by syscall: no
 * libnuma). A memory policy is per thread: threads created afterwards
 * inherit it, threads that already existed do not, so every thread binds
 * itself when it next passes a slow path (budget refill, closed launch
 * gate) and finds its binding older than the process's answer.
 *
 * The module bumps the page's placement_seq when the placement changes.
 * The slow paths, and the allocation fast path (one load of the page and
 * a compare), notice it; the first thread to do so asks VGPU_IOC_PLACEMENT
 * and rebinds (flags bit 0 clear: MPOL_DEFAULT, but only once libvgpu has
 * bound something, so a numactl policy of an unrestricted tenant stays).
 * CPU affinity is not ours: the module pins registered threads and the
 * tenant cgroup's cpuset holds everyone.
 */
#include <errno.h>
#include <linux/mempolicy.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../access/log.h"
#include "../logic/nodelist.h"
#include "placement.h"
#include "../state/state.h"

#define VGPU_NODES (sizeof(((struct vgpu_dev_placement *)0)->mems) * 8)

uint32_t libvgpu_placement_seen;

static struct {
	pthread_mutex_t lk;		/* the answer below; never held across a call */
	unsigned int gen;		/* bumped with each answer; 0: none yet */
	int restricted;			/* mems below apply */
	int bound;			/* libvgpu has bound some thread */
	int off;			/* VGPU_IOC_PLACEMENT unsupported */
	uint64_t mems[VGPU_NODES / 64];
} vgpu_pl = { .lk = PTHREAD_MUTEX_INITIALIZER };

/* The answer this thread's memory policy follows. */
static __thread unsigned int vgpu_tls_pl_gen __attribute__((tls_model("initial-exec")));

static void mask_str(const uint64_t *m, char *out, size_t size)
{
	size_t n = 0;
	int i = 0, last = libvgpu_nodelist_last(m, VGPU_NODES);

	out[0] = 0;
	while (i <= last && n + 24 < size) {
		int j;

		if (!(m[i / 64] & (1ULL << (i % 64)))) {
			i++;
			continue;
		}
		for (j = i; j + 1 <= last && (m[(j + 1) / 64] & (1ULL << ((j + 1) % 64))); j++)
			;
		n += (size_t)snprintf(out + n, size - n, j > i ? "%s%d-%d" : "%s%d",
				      n ? "," : "", i, j);
		i = j + 1;
	}
}

/* Bind the calling thread to the answer of generation gen. */
static void apply(unsigned int gen, int restricted, int bound, const uint64_t *mems)
{
	char s[128];
	long rc;

	vgpu_tls_pl_gen = gen;
	if (restricted) {
		int last = libvgpu_nodelist_last(mems, VGPU_NODES);

		/* maxnode counts one more bit than the kernel reads. */
		rc = syscall(SYS_set_mempolicy, MPOL_BIND, mems, (unsigned long)last + 2);
		mask_str(mems, s, sizeof(s));
		if (rc)
			libvgpu_log(VGPU_LOG_WARN, "cannot bind memory to NUMA nodes %s: %s",
				    s, strerror(errno));
		else
			libvgpu_log(VGPU_LOG_DEBUG, "thread %ld: memory bound to NUMA nodes %s",
				    (long)syscall(SYS_gettid), s);
	} else if (bound) {
		if (syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0UL))
			libvgpu_log(VGPU_LOG_WARN, "cannot reset the memory policy: %s",
				    strerror(errno));
		else
			libvgpu_log(VGPU_LOG_DEBUG, "thread %ld: memory policy back to default",
				    (long)syscall(SYS_gettid));
	}
}

/* Take a new answer; 1 if it is news. */
static int store(const uint64_t *mems, int restricted)
{
	int news;

	pthread_mutex_lock(&vgpu_pl.lk);
	news = restricted != vgpu_pl.restricted ||
	       (restricted && memcmp(mems, vgpu_pl.mems, sizeof(vgpu_pl.mems)));
	if (news) {
		__atomic_store_n(&vgpu_pl.gen, vgpu_pl.gen + 1, __ATOMIC_RELAXED);
		vgpu_pl.restricted = restricted;
		vgpu_pl.bound |= restricted;
		if (restricted)
			memcpy(vgpu_pl.mems, mems, sizeof(vgpu_pl.mems));
	}
	pthread_mutex_unlock(&vgpu_pl.lk);
	return news;
}

/* Bind the calling thread to the latest answer unless it already is. */
static void bind_self(void)
{
	uint64_t mems[VGPU_NODES / 64];
	int restricted, bound;
	unsigned int gen;

	if (__atomic_load_n(&vgpu_pl.gen, __ATOMIC_RELAXED) == vgpu_tls_pl_gen)
		return;
	pthread_mutex_lock(&vgpu_pl.lk);
	gen = vgpu_pl.gen;
	restricted = vgpu_pl.restricted;
	bound = vgpu_pl.bound;
	memcpy(mems, vgpu_pl.mems, sizeof(mems));
	pthread_mutex_unlock(&vgpu_pl.lk);
	apply(gen, restricted, bound, mems);
}

void libvgpu_placement_start(uint32_t seq, const struct vgpu_reg *reg)
{
	uint64_t mems[VGPU_NODES / 64];
	int n;

	__atomic_store_n(&libvgpu_placement_seen, seq, __ATOMIC_RELAXED);
	if (reg->has_cpus)
		libvgpu_log(VGPU_LOG_DEBUG, "CPUs %s (the module and the cpuset place threads)",
			    reg->cpus);
	if (!reg->has_mems)
		return;
	n = libvgpu_nodelist_parse(reg->mems, mems, VGPU_NODES);
	if (n <= 0) {
		libvgpu_log(VGPU_LOG_WARN, "NUMA nodes \"%s\" from vgpu.ko: %s; memory not bound",
			    reg->mems, n ? strerror(-n) : "empty");
		return;
	}
	libvgpu_log(VGPU_LOG_INFO, "NUMA nodes %s: binding memory (threads created from "
		    "now on inherit it)", reg->mems);
	store(mems, 1);
	bind_self();
}

void libvgpu_placement_sync(void)
{
	struct vgpu_proc *p = &libvgpu_proc;
	uint32_t seq;

	if (__atomic_load_n(&p->state, __ATOMIC_ACQUIRE) != VGPU_ST_ACTIVE || !p->page)
		return;
	seq = __atomic_load_n(&p->page->placement_seq, __ATOMIC_ACQUIRE);
	if (seq != __atomic_load_n(&libvgpu_placement_seen, __ATOMIC_RELAXED)) {
		struct vgpu_dev_placement pl;

		memset(&pl, 0, sizeof(pl));
		if (__atomic_load_n(&vgpu_pl.off, __ATOMIC_RELAXED)) {
			__atomic_store_n(&libvgpu_placement_seen, seq, __ATOMIC_RELAXED);
		} else if (ioctl(p->devfd, VGPU_IOC_PLACEMENT, &pl) < 0) {
			int e = errno;

			/* Older module or ended registration: stop asking. */
			if (e != EINTR && !__atomic_exchange_n(&vgpu_pl.off, 1, __ATOMIC_RELAXED)) {
				__atomic_store_n(&libvgpu_placement_seen, seq, __ATOMIC_RELAXED);
				libvgpu_log(VGPU_LOG_WARN, "VGPU_IOC_PLACEMENT failed (%s): the "
					    "memory policy no longer follows placement changes",
					    strerror(e));
			}
		} else {
			uint64_t mems[VGPU_NODES / 64];

			memcpy(mems, pl.mems, sizeof(mems));
			if (store(mems, pl.flags & 1))
				libvgpu_log(VGPU_LOG_INFO, "placement changed (seq %u)", pl.seq);
			__atomic_store_n(&libvgpu_placement_seen, pl.seq, __ATOMIC_RELAXED);
		}
	}
	bind_self();
}

/* fork: the child keeps its (inherited) policy and registers anew. */
void libvgpu_placement_reset(void)
{
	pthread_mutex_init(&vgpu_pl.lk, NULL);
	vgpu_pl.gen = 0;
	vgpu_pl.restricted = vgpu_pl.bound = vgpu_pl.off = 0;
	memset(vgpu_pl.mems, 0, sizeof(vgpu_pl.mems));
	vgpu_tls_pl_gen = 0;
	libvgpu_placement_seen = 0;
}
