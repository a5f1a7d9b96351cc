// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: VRAM accounting, VGPU_IOC_CHARGE: charging a process and, when its
 * bucket or the GPU runs short, taking unspent budgets back.
 *
 * What no look can change is decided at once: a charge above the bucket's
 * limit (its vram-max, or the GPU's capacity) is refused, and the caller's
 * own unspent budget comes back before anything else is looked at. The
 * looks through registrations are acct_scan.c's. Under vgpu_acct_lock,
 * as acct.c.
 */
#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/spinlock.h>

#include "acct.h"
#include "proc.h"

/**
 * vgpu_acct_charge() - VGPU_IOC_CHARGE: give a process at least @bytes
 * @p: live registered process, allowed on the GPU; the caller holds a
 *	reference
 * @index: GPU index in the inventory
 * @bytes: bytes the process needs now
 * @keep: out: the budget sized for the process now
 * @dead: list collecting the processes found dead (put after unlocking)
 *
 * Above the bucket's limit on the GPU, refused at once. When the bucket
 * is short, the caller's unspent budget on the GPU is taken back; still
 * short, vgpu_acct_scan() looks through the registrations (its bucket's,
 * then, the GPU short, every one on the GPU), unless the bucket's last
 * look there was too recent. Then either @bytes and a budget are added
 * to the page's @avail and charged, or nothing is.
 *
 * Context: vgpu_acct_lock held; vgpu_acct_scan() may release it (for a
 * moment, or while it sleeps), and @p's registration may end meanwhile.
 * Return: 0, -ENOMEM (counted as a failure), or vgpu_acct_scan()'s
 * -ESRCH, -ENODEV or -EACCES.
 */
int vgpu_acct_charge(struct vgpu_proc *p, u32 index, u64 bytes, u64 *keep,
		     struct list_head *dead)
{
	struct vgpu_bucket *b = p->bucket;
	struct vgpu_pol_vram v;
	u64 limit, room, grant;
	int err;

	vgpu_acct_vram(b, index, &v);
	limit = vgpu_pol_limit(&v);
	room = vgpu_pol_room(&v, 0, NULL);
	if (vgpu_pol_look(bytes, room, limit)) {
		vgpu_acct_reclaim(p, index);
		room = vgpu_acct_room(b, index, 0, NULL);
	}
	if (vgpu_pol_look(bytes, room, limit)) {
		err = vgpu_acct_scan(p, index, bytes, dead);
		if (err)
			return err;
		room = vgpu_acct_room(b, index, 0, NULL);
	}
	if (bytes > room) {
		b->usage[index].failures++;
		return -ENOMEM;
	}

	*keep = vgpu_pol_budget(room - bytes);
	grant = bytes + *keep;
	atomic64_add(grant, vgpu_avail(p, index));
	p->granted[index] += grant;
	vgpu_acct_set_charged(b, index, b->usage[index].charged + grant);
	return 0;
}
