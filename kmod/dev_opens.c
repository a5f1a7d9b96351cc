// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: how many /dev/vgpu files each process has open, bounded.
 *
 * /dev/vgpu is open to everyone and each open file costs two pages and a
 * struct (charged to the opener's memory cgroup). A process needs one
 * (libvgpu opens one per process); VGPU_DEV_OPENS_MAX bounds what one
 * process can pin however many descriptors it may have. The count is the
 * opener's, kept until the file's last close, wherever the file went.
 */
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/hashtable.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "proc.h"

struct vgpu_opener {
	struct hlist_node node;
	struct pid *pid;
	unsigned int files;
};

static DEFINE_HASHTABLE(vgpu_openers, 6);
static DEFINE_SPINLOCK(vgpu_openers_lock);

static struct vgpu_opener *vgpu_opener_find(struct pid *pid)
{
	struct vgpu_opener *o;

	hash_for_each_possible(vgpu_openers, o, node, (unsigned long)pid) {
		if (o->pid == pid)
			return o;
	}
	return NULL;
}

/**
 * vgpu_dev_opens_get() - count an open of /dev/vgpu by the calling process
 *
 * Return: the process's struct pid, referenced, for vgpu_dev_opens_put();
 * ERR_PTR(-EMFILE) when it has VGPU_DEV_OPENS_MAX files open already, or
 * ERR_PTR(-ENOMEM).
 */
struct pid *vgpu_dev_opens_get(void)
{
	struct pid *pid = task_tgid(current);
	struct vgpu_opener *o, *fresh;

	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL_ACCOUNT);
	if (!fresh)
		return ERR_PTR(-ENOMEM);
	spin_lock(&vgpu_openers_lock);
	o = vgpu_opener_find(pid);
	if (!o) {
		o = fresh;
		fresh = NULL;
		o->pid = get_pid(pid);
		hash_add(vgpu_openers, &o->node, (unsigned long)pid);
	}
	if (o->files >= VGPU_DEV_OPENS_MAX) {
		spin_unlock(&vgpu_openers_lock);
		kfree(fresh);
		return ERR_PTR(-EMFILE);
	}
	o->files++;
	spin_unlock(&vgpu_openers_lock);
	kfree(fresh);
	return get_pid(pid);
}

/**
 * vgpu_dev_opens_put() - a file counted by vgpu_dev_opens_get() is closed
 * @pid: what vgpu_dev_opens_get() returned; its reference is dropped
 */
void vgpu_dev_opens_put(struct pid *pid)
{
	struct vgpu_opener *o;

	spin_lock(&vgpu_openers_lock);
	o = vgpu_opener_find(pid);
	if (o && !--o->files) {
		hash_del(&o->node);
		put_pid(o->pid);
		kfree(o);
	}
	spin_unlock(&vgpu_openers_lock);
	put_pid(pid);
}
