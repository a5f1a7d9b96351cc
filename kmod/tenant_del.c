// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: deleting a tenant, by the admin (tenant-del) or by the module
 * itself (an ephemeral tenant whose cgroup is gone), and keeping its final
 * record (final.c) for the collectors.
 *
 * An ephemeral tenant goes once its cgroup has been removed and none of
 * its processes is registered. The cgroup core tells modules nothing of a
 * removal, so a delayed work looks every second while ephemeral tenants
 * exist; the end of a registration of an ephemeral tenant's process runs
 * it at once (proc.c queues vgpu_ephemeral_work, the one object of this
 * file that a lower layer names).
 */
#include <linux/cgroup.h>
#include <linux/jiffies.h>
#include <linux/limits.h>
#include <linux/nsproxy.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "final.h"
#include "tenant.h"
#include "vgpu.h"

static void vgpu_ephemeral_fn(struct work_struct *work);
DECLARE_DELAYED_WORK(vgpu_ephemeral_work, vgpu_ephemeral_fn);
/* Ephemeral tenants in the table; under vgpu_lock. */
static unsigned int vgpu_ephemeral_nr;
/* Module exit: the work does nothing any more; under vgpu_lock. */
static bool vgpu_ephemeral_stopped;

/* The parts of a final record that come from the tenant as it is. */
static void vgpu_final_describe(struct vgpu_final *f, struct vgpu_tenant *t, u32 reason)
{
	const struct vgpu_quota_set *q = &t->quota;

	f->id = t->id;
	strscpy(f->name, t->name, sizeof(f->name));
	f->cgroup_id = t->cgroup_id;
	vgpu_labels_move(&f->labels, &t->labels);
	f->ephemeral = t->ephemeral;
	f->created = t->created;
	f->deleted = ktime_get_real_ns();
	f->reason = reason;
	f->quota_set = q->set & (VGPU_QUOTA_VRAM_MAX | VGPU_QUOTA_VRAM_MIN | VGPU_QUOTA_GPUS |
				 VGPU_QUOTA_WEIGHT | VGPU_QUOTA_COMPUTE_MAX |
				 VGPU_QUOTA_PRIORITY);
	f->vram_max = q->vram_max;
	f->vram_min = q->vram_min;
	f->gpus = q->gpus;
	f->weight = q->weight;
	f->compute_max = q->compute_max;
	f->priority = q->priority;
}

/* A record of VGPU_GPU_MAX usage lines with the tenant's cgroup path. */
static struct vgpu_final *vgpu_final_prepare(struct vgpu_tenant *t)
{
	struct vgpu_final *f;
	int len;

	f = vgpu_final_alloc(VGPU_GPU_MAX);
	if (!f)
		return NULL;
	f->cgroup = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!f->cgroup)
		goto err_free;
	/* As notifications do: seen from the host, whoever reads it later. */
	len = cgroup_path_ns(t->cgrp, f->cgroup, PATH_MAX, init_task.nsproxy->cgroup_ns);
	if (len < 0 || len >= PATH_MAX)
		goto err_free;
	return f;

err_free:
	vgpu_final_free(f);
	return NULL;
}

/* Gives back the usage lines and path room the record does not use. */
static struct vgpu_final *vgpu_final_shrink(struct vgpu_final *f)
{
	struct vgpu_final *small;
	char *path;

	path = kstrdup(f->cgroup, GFP_KERNEL);
	if (path) {
		kfree(f->cgroup);
		f->cgroup = path;
	}
	small = krealloc(f, struct_size(f, usage, f->nusage), GFP_KERNEL);
	return small ?: f;
}

/**
 * vgpu_tenant_delete() - delete a tenant and keep its final record
 * @t: tenant in the table; freed on success
 * @force: end the registrations of its processes instead of refusing
 * @reason: enum vgpu_del_reason, for the record
 *
 * The tenant's processes are gone or ended first; then its usage, final
 * values, goes into the record with its name, cgroup, labels and quotas,
 * the record joins the FIFO and the monitor group is told
 * (tenant-del-ntf, carrying the record).
 *
 * Context: vgpu_lock held; may sleep.
 * Return: 0, -EBUSY while processes are registered (and not @force), or
 * -ENOMEM; the tenant is unchanged on error.
 */
int vgpu_tenant_delete(struct vgpu_tenant *t, bool force, u32 reason)
{
	struct vgpu_final *f;
	int err;

	lockdep_assert_held(&vgpu_lock);
	f = vgpu_final_prepare(t);
	if (!f)
		return -ENOMEM;
	err = vgpu_acct_bucket_del(&t->bucket, force);
	if (err) {
		vgpu_final_free(f);
		return err;
	}
	f->nusage = vgpu_usage_snapshot(&t->bucket, f->usage);
	vgpu_final_describe(f, t, reason);
	f = vgpu_final_shrink(f);
	vgpu_final_push(f);
	vgpu_final_notify(f);

	vgpu_tenant_remove(t);
	if (t->ephemeral)
		vgpu_ephemeral_nr--;
	vgpu_changed();
	vgpu_tenant_free(t);
	return 0;
}

/*
 * Deletes the ephemeral tenants whose cgroup is gone and that have no
 * registered process; looks again in a second while any is left.
 */
static void vgpu_ephemeral_fn(struct work_struct *work)
{
	struct vgpu_tenant *t;
	unsigned long id = 0;

	mutex_lock(&vgpu_lock);
	if (vgpu_ephemeral_stopped)
		goto out_unlock;
	for (; vgpu_ephemeral_nr && (t = vgpu_tenant_next(&id)); id++) {
		if (t->ephemeral && vgpu_tenant_cgroup_removed(t))
			vgpu_tenant_delete(t, false, VGPU_DEL_REASON_CGROUP_REMOVED);
	}
	if (vgpu_ephemeral_nr)
		schedule_delayed_work(&vgpu_ephemeral_work, HZ);
out_unlock:
	mutex_unlock(&vgpu_lock);
}

/**
 * vgpu_ephemeral_added() - count an ephemeral tenant just inserted
 *
 * Starts the periodic look if it is not running.
 *
 * Context: vgpu_lock held.
 */
void vgpu_ephemeral_added(void)
{
	lockdep_assert_held(&vgpu_lock);
	vgpu_ephemeral_nr++;
	if (!vgpu_ephemeral_stopped)
		schedule_delayed_work(&vgpu_ephemeral_work, HZ);
}

/**
 * vgpu_ephemeral_stop() - stop looking for ephemeral tenants to delete
 *
 * Module exit, before the family goes (so that no deletion is announced
 * on a family being unregistered) and again once nothing can queue the
 * work any more: on return it neither runs nor is queued.
 *
 * Context: process; takes vgpu_lock.
 */
void vgpu_ephemeral_stop(void)
{
	mutex_lock(&vgpu_lock);
	vgpu_ephemeral_stopped = true;
	mutex_unlock(&vgpu_lock);
	cancel_delayed_work_sync(&vgpu_ephemeral_work);
}
