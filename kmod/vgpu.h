/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu: declarations shared by the files of vgpu.ko.
 *
 * One mutex, vgpu_lock, protects the GPU inventory and the tenant table.
 * Every change to either bumps vgpu_generation, which dumps use to flag
 * themselves inconsistent (NLM_F_DUMP_INTR) when the data moved under them.
 *
 * Lock order: vgpu_lock is taken before the cgroup core's locks
 * (cgroup_path_ns() and the cgroup look-ups run under it) and never inside
 * them, and before vgpu_acct_lock (acct.h), the spinlock of the VRAM
 * accounting and the process registry, which is never held across a
 * sleep.
 */
#ifndef _VGPU_VGPU_H
#define _VGPU_VGPU_H

#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/types.h>

struct genl_family;
struct sk_buff;

extern struct mutex vgpu_lock;
extern unsigned int vgpu_generation;

/**
 * vgpu_changed() - record a change to the GPU inventory or the tenant table
 *
 * Bumps the generation counter that dumps keep in cb->seq, skipping 0,
 * which would disable the netlink core's consistency check.
 *
 * Context: vgpu_lock held.
 */
static inline void vgpu_changed(void)
{
	lockdep_assert_held(&vgpu_lock);
	if (!++vgpu_generation)
		vgpu_generation = 1;
}

/* netlink.c */
extern struct genl_family vgpu_nl_family;
int vgpu_nl_register(void);
void vgpu_nl_unregister(void);

/* notify.c */
bool vgpu_nl_has_listeners(void);
void vgpu_nl_notify(struct sk_buff *msg);

/* selftest.c */
int vgpu_selftest(void);

#endif /* _VGPU_VGPU_H */
