// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: the tenant table.
 *
 * Tenants live in an allocating xarray keyed by their id (the order of
 * dumps) and in a hash keyed by the id of their cgroup (membership). A
 * process belongs to the tenant of its nearest ancestor cgroup, itself
 * included, that is a tenant's: tenants may nest.
 *
 * Everything but allocation and freeing runs under vgpu_lock.
 */
#include <linux/cgroup.h>
#include <linux/hashtable.h>
#include <linux/limits.h>
#include <linux/lockdep.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>
#include <net/netlink.h>

#include "gpu.h"
#include "tenant.h"
#include "vgpu.h"

static DEFINE_XARRAY_ALLOC1(vgpu_tenants);
static u32 vgpu_tenant_next_id;
static unsigned int vgpu_tenant_nr;
static DEFINE_HASHTABLE(vgpu_tenant_hash, 8);

/**
 * vgpu_tenant_alloc() - allocate a tenant that is in no table yet
 * @name: valid name, see vgpu_name_valid()
 *
 * The tenant has no cgroup, no quota set, no label, an unrestricted
 * placement, and now as its creation time.
 *
 * Return: the tenant, or NULL when out of memory.
 */
struct vgpu_tenant *vgpu_tenant_alloc(const char *name)
{
	struct vgpu_tenant *t;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return NULL;
	if (vgpu_quota_init(&t->quota))
		goto err_free;
	if (vgpu_place_init(&t->place))
		goto err_quota;
	strscpy(t->name, name, sizeof(t->name));
	t->created = ktime_get_real_ns();
	INIT_HLIST_NODE(&t->hnode);
	vgpu_bucket_init(&t->bucket);
	return t;

err_quota:
	vgpu_quota_destroy(&t->quota);
err_free:
	kfree(t);
	return NULL;
}

/**
 * vgpu_tenant_free() - free a tenant that is in no table
 * @t: tenant from vgpu_tenant_alloc(), or NULL
 *
 * Drops the cgroup reference if the tenant has one.
 */
void vgpu_tenant_free(struct vgpu_tenant *t)
{
	if (!t)
		return;
	if (t->cgrp)
		cgroup_put(t->cgrp);
	vgpu_place_tenant_free(t);
	vgpu_quota_destroy(&t->quota);
	vgpu_labels_free(&t->labels);
	kfree(t);
}

/**
 * vgpu_tenant_set_cgroup() - give a tenant that is in no table its cgroup
 * @t: tenant
 * @cgrp: cgroup; @t takes over the caller's reference
 */
void vgpu_tenant_set_cgroup(struct vgpu_tenant *t, struct cgroup *cgrp)
{
	t->cgrp = cgrp;
	t->cgroup_id = cgroup_id(cgrp);
}

/**
 * vgpu_tenant_insert() - add a tenant to the table and give it an id
 * @t: tenant with its cgroup set, whose name and cgroup are in no other
 *	tenant
 *
 * Ids are handed out cyclically from 1, so a deleted tenant's id is not
 * soon seen again.
 *
 * Context: vgpu_lock held.
 * Return: 0, -ENOSPC when the table is full, or -ENOMEM.
 */
int vgpu_tenant_insert(struct vgpu_tenant *t)
{
	int err;

	lockdep_assert_held(&vgpu_lock);
	if (vgpu_tenant_nr >= VGPU_TENANT_MAX)
		return -ENOSPC;
	err = xa_alloc_cyclic(&vgpu_tenants, &t->id, t, xa_limit_31b,
			      &vgpu_tenant_next_id, GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOSPC : err;
	hash_add(vgpu_tenant_hash, &t->hnode, t->cgroup_id);
	vgpu_tenant_nr++;
	return 0;
}

/**
 * vgpu_tenant_remove() - take a tenant out of the table
 * @t: tenant in the table; the caller frees it with vgpu_tenant_free()
 *
 * Context: vgpu_lock held.
 */
void vgpu_tenant_remove(struct vgpu_tenant *t)
{
	lockdep_assert_held(&vgpu_lock);
	xa_erase(&vgpu_tenants, t->id);
	hash_del(&t->hnode);
	vgpu_tenant_nr--;
}

/**
 * vgpu_tenant_destroy_all() - empty the table, freeing every tenant
 *
 * Context: vgpu_lock held, module exit (the family is unregistered).
 */
void vgpu_tenant_destroy_all(void)
{
	struct vgpu_tenant *t;
	unsigned long id;

	xa_for_each(&vgpu_tenants, id, t) {
		vgpu_tenant_remove(t);
		vgpu_tenant_free(t);
	}
	xa_destroy(&vgpu_tenants);
}

/**
 * vgpu_tenant_count() - number of tenants
 *
 * Context: vgpu_lock held.
 * Return: the number of tenants in the table.
 */
unsigned int vgpu_tenant_count(void)
{
	lockdep_assert_held(&vgpu_lock);
	return vgpu_tenant_nr;
}

/**
 * vgpu_tenant_find() - look a tenant up by name
 * @name: NUL-terminated name
 *
 * Context: vgpu_lock held.
 * Return: the tenant, or NULL.
 */
struct vgpu_tenant *vgpu_tenant_find(const char *name)
{
	struct vgpu_tenant *t;
	unsigned long id;

	lockdep_assert_held(&vgpu_lock);
	xa_for_each(&vgpu_tenants, id, t) {
		if (!strcmp(t->name, name))
			return t;
	}
	return NULL;
}

/**
 * vgpu_tenant_find_cgroup() - look a tenant up by the id of its own cgroup
 * @cgroup_id: cgroup v2 id
 *
 * Context: vgpu_lock held.
 * Return: the tenant whose cgroup is exactly that one, or NULL.
 */
struct vgpu_tenant *vgpu_tenant_find_cgroup(u64 cgroup_id)
{
	struct vgpu_tenant *t;

	lockdep_assert_held(&vgpu_lock);
	hash_for_each_possible(vgpu_tenant_hash, t, hnode, cgroup_id) {
		if (t->cgroup_id == cgroup_id)
			return t;
	}
	return NULL;
}

/**
 * vgpu_tenant_of_task() - the tenant a task belongs to
 * @task: task
 *
 * Walks from the task's cgroup v2 up to the root and returns the tenant of
 * the first cgroup that has one, so a process in a nested tenant belongs
 * to the innermost. The answer holds while vgpu_lock is held; the task may
 * move to another cgroup at any time after.
 *
 * Context: vgpu_lock held.
 * Return: the tenant, or NULL when no ancestor of the task is a tenant's.
 */
struct vgpu_tenant *vgpu_tenant_of_task(struct task_struct *task)
{
	struct vgpu_tenant *t = NULL;
	struct cgroup *cgrp;

	lockdep_assert_held(&vgpu_lock);
	if (!vgpu_tenant_nr)
		return NULL;

	rcu_read_lock();
	for (cgrp = task_dfl_cgroup(task); cgrp; cgrp = cgroup_parent(cgrp)) {
		t = vgpu_tenant_find_cgroup(cgroup_id(cgrp));
		if (t)
			break;
	}
	rcu_read_unlock();
	return t;
}

/**
 * vgpu_tenant_next() - iterate over the tenants in id order
 * @id: on entry the smallest id wanted; on success, the id of the tenant
 *	returned
 *
 * Context: vgpu_lock held.
 * Return: the tenant with the smallest id >= *@id, or NULL.
 */
struct vgpu_tenant *vgpu_tenant_next(unsigned long *id)
{
	lockdep_assert_held(&vgpu_lock);
	return xa_find(&vgpu_tenants, id, ULONG_MAX, XA_PRESENT);
}

/**
 * vgpu_tenant_cgroup_removed() - whether the tenant's cgroup was removed
 * @t: tenant
 *
 * A tenant outlives the rmdir of its cgroup directory; it is then shown
 * with the cgroup-removed flag until deleted.
 *
 * Return: true when the cgroup is offline.
 */
bool vgpu_tenant_cgroup_removed(const struct vgpu_tenant *t)
{
	return !(READ_ONCE(t->cgrp->self.flags) & CSS_ONLINE);
}

/**
 * vgpu_tenant_reserved() - VRAM reserved on a GPU by the tenants
 * @index: GPU index
 * @skip: tenant to leave out (the one being changed), or NULL
 * @all: count the preemptible tenants too; else only those whose
 *	reservations are promises (the admission rule, suspend.md)
 *
 * Context: vgpu_lock held.
 * Return: the sum of vram-min over the tenants that may use GPU @index,
 * saturated at U64_MAX.
 */
u64 vgpu_tenant_reserved(u32 index, const struct vgpu_tenant *skip, bool all)
{
	struct vgpu_tenant *t;
	unsigned long id;
	u64 sum = 0;

	lockdep_assert_held(&vgpu_lock);
	xa_for_each(&vgpu_tenants, id, t) {
		if (t == skip || !(t->quota.set & VGPU_QUOTA_VRAM_MIN) ||
		    !vgpu_quota_uses_gpu(&t->quota, index) ||
		    (!all && vgpu_quota_preemptible(&t->quota)))
			continue;
		if (check_add_overflow(sum, t->quota.vram_min, &sum))
			return U64_MAX;
	}
	return sum;
}

/**
 * vgpu_tenant_check_quota() - check quotas against the inventory and the
 *	other tenants
 * @q: the quotas a tenant would have
 * @self: the tenant being changed, NULL for a new one
 * @attrs: the request's attributes, to point errors at
 * @extack: error report
 *
 * vgpu_quota_check() first; then, on every GPU, the vram-min of all the
 * tenants that may use it and are not preemptible must fit in its VRAM
 * (the admission rule): what preemptible tenants reserve may go beyond
 * it, since they can be suspended. That sum spans the whole table, hence
 * here rather than in quota.c.
 *
 * Context: vgpu_lock held.
 * Return: 0, -EINVAL, -ENOENT or -ENOSPC with @extack set.
 */
int vgpu_tenant_check_quota(const struct vgpu_quota_set *q, const struct vgpu_tenant *self,
			    struct nlattr **attrs, struct netlink_ext_ack *extack)
{
	struct nlattr *min_attr = attrs[VGPU_A_TENANT_VRAM_MIN];
	struct vgpu_gpu *gpu;
	int err;
	u32 i;

	err = vgpu_quota_check(q, attrs, extack);
	if (err)
		return err;
	if (!(q->set & VGPU_QUOTA_VRAM_MIN) || vgpu_quota_preemptible(q))
		return 0;
	vgpu_for_each_gpu(gpu, i) {
		u64 sum;

		if (!vgpu_quota_uses_gpu(q, i))
			continue;
		if (check_add_overflow(vgpu_tenant_reserved(i, self, false), q->vram_min, &sum) ||
		    sum > gpu->vram) {
			NL_SET_ERR_MSG_ATTR(extack, min_attr ?: attrs[VGPU_A_TENANT_GPUS],
					    "sum of vram-min of tenants not preemptible exceeds a GPU's vram");
			return -ENOSPC;
		}
	}
	return 0;
}

/**
 * vgpu_tenant_names_gpu() - whether a tenant's gpus quota names a GPU
 * @index: GPU index
 *
 * Context: vgpu_lock held.
 * Return: true when some tenant has the gpus quota set with bit @index.
 */
bool vgpu_tenant_names_gpu(u32 index)
{
	struct vgpu_tenant *t;
	unsigned long id;

	lockdep_assert_held(&vgpu_lock);
	xa_for_each(&vgpu_tenants, id, t) {
		if ((t->quota.set & VGPU_QUOTA_GPUS) && (t->quota.gpus & BIT_ULL(index)))
			return true;
	}
	return false;
}
