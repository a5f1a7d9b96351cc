// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: the final records of deleted tenants.
 *
 * When a tenant is deleted (tenant-del, or an ephemeral tenant whose
 * cgroup went, tenant_del.c), its final record joins a FIFO, oldest first,
 * with a sequence number that increases for the module's life (from 1,
 * never reused). A collector reads the FIFO (tenant-final-get) and
 * acknowledges what it has stored (tenant-final-del: every record up to a
 * sequence number goes). The FIFO holds at most final_max records (a
 * module parameter, 1 to VGPU_FINAL_MAX, default VGPU_FINAL_MAX): pushing
 * one more drops the oldest, counted in finals-dropped. Lowering
 * final_max takes effect at the next push. Everything is freed at module
 * exit.
 *
 * Under vgpu_lock, like the tenant table the records come from.
 */
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "final.h"
#include "vgpu.h"

static LIST_HEAD(vgpu_finals);
static unsigned int vgpu_final_nr;
static u64 vgpu_final_seq;
static u64 vgpu_final_lost;
static unsigned int vgpu_final_max = VGPU_FINAL_MAX;

static int vgpu_final_max_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int err;

	err = kstrtouint(val, 0, &n);
	if (err)
		return err;
	if (n < 1 || n > VGPU_FINAL_MAX)
		return -EINVAL;
	WRITE_ONCE(vgpu_final_max, n);
	return 0;
}

static const struct kernel_param_ops vgpu_final_max_ops = {
	.set = vgpu_final_max_set,
	.get = param_get_uint,
};
module_param_cb(final_max, &vgpu_final_max_ops, &vgpu_final_max, 0644);
MODULE_PARM_DESC(final_max, "Final records of deleted tenants kept unacknowledged (1-1024, default 1024)");

/**
 * vgpu_final_alloc() - allocate a final record
 * @nusage: lines of usage it will hold
 *
 * Return: the zeroed record with @nusage set, or NULL.
 */
struct vgpu_final *vgpu_final_alloc(int nusage)
{
	struct vgpu_final *f;

	f = kzalloc(struct_size(f, usage, nusage), GFP_KERNEL);
	if (!f)
		return NULL;
	INIT_LIST_HEAD(&f->node);
	f->nusage = nusage;
	return f;
}

/**
 * vgpu_final_free() - free a final record that is in no FIFO
 * @f: record, or NULL
 */
void vgpu_final_free(struct vgpu_final *f)
{
	if (!f)
		return;
	vgpu_labels_free(&f->labels);
	kfree(f->cgroup);
	kfree(f);
}

static void vgpu_final_drop(struct vgpu_final *f)
{
	list_del(&f->node);
	vgpu_final_nr--;
	vgpu_final_free(f);
}

/**
 * vgpu_final_push() - keep a final record, giving it its sequence number
 * @f: complete record; the FIFO owns it from now on
 *
 * Drops the oldest records, counted as lost, while more than final_max
 * are kept.
 *
 * Context: vgpu_lock held.
 */
void vgpu_final_push(struct vgpu_final *f)
{
	unsigned int max = READ_ONCE(vgpu_final_max);

	lockdep_assert_held(&vgpu_lock);
	f->seq = ++vgpu_final_seq;
	list_add_tail(&f->node, &vgpu_finals);
	vgpu_final_nr++;
	while (vgpu_final_nr > max) {
		vgpu_final_drop(list_first_entry(&vgpu_finals, struct vgpu_final, node));
		vgpu_final_lost++;
	}
}

/**
 * vgpu_final_after() - the oldest record after a sequence number
 * @seq: 0 for the oldest of all
 *
 * A dump resumes from the last sequence number it sent, so records
 * acknowledged or dropped in between cannot make it skip or repeat one.
 *
 * Context: vgpu_lock held; the record lives until it is released.
 * Return: the record with the smallest seq > @seq, or NULL.
 */
struct vgpu_final *vgpu_final_after(u64 seq)
{
	struct vgpu_final *f;

	lockdep_assert_held(&vgpu_lock);
	list_for_each_entry(f, &vgpu_finals, node) {
		if (f->seq > seq)
			return f;
	}
	return NULL;
}

/**
 * vgpu_final_ack() - drop the records a collector has stored
 * @seq: records with a sequence number up to this one go
 *
 * Context: vgpu_lock held.
 * Return: how many went.
 */
unsigned int vgpu_final_ack(u64 seq)
{
	struct vgpu_final *f, *n;
	unsigned int acked = 0;

	lockdep_assert_held(&vgpu_lock);
	list_for_each_entry_safe(f, n, &vgpu_finals, node) {
		if (f->seq > seq)
			break;
		vgpu_final_drop(f);
		acked++;
	}
	return acked;
}

/**
 * vgpu_final_count() - records kept
 *
 * Context: vgpu_lock held.
 * Return: the number of records in the FIFO.
 */
unsigned int vgpu_final_count(void)
{
	lockdep_assert_held(&vgpu_lock);
	return vgpu_final_nr;
}

/**
 * vgpu_final_dropped() - records dropped unacknowledged
 *
 * Context: vgpu_lock held.
 * Return: how many records the bound pushed out since the module loaded.
 */
u64 vgpu_final_dropped(void)
{
	lockdep_assert_held(&vgpu_lock);
	return vgpu_final_lost;
}

/**
 * vgpu_final_destroy_all() - free every record
 *
 * Context: vgpu_lock held, module exit.
 */
void vgpu_final_destroy_all(void)
{
	struct vgpu_final *f, *n;

	list_for_each_entry_safe(f, n, &vgpu_finals, node)
		vgpu_final_drop(f);
}
