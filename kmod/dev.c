// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: /dev/vgpu, the data path between libvgpu and the module.
 *
 * Each open file has one zeroed page (struct vgpu_dev_page) that its
 * process maps shared and registers over netlink (nl_proc.c). The page's
 * per-GPU @avail is the process's budget, spent without system calls; the
 * ioctls charge more (VGPU_IOC_CHARGE), give budget back
 * (VGPU_IOC_RELEASE) and describe a GPU as the tenant sees it
 * (VGPU_IOC_MEMINFO). See uapi/vgpu_dev.h and Documentation/vram.md.
 * A second page, the gate, is mapped read-only at VGPU_DEV_GATE_OFFSET:
 * it shows the compute grants of the process's tenant, and VGPU_IOC_WAIT
 * sleeps until one comes (Documentation/compute.md).
 *
 * The file holds the module (.owner), so the module cannot go while a
 * process has it open. Closing it ends the registration bound to it.
 */
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include "acct.h"
#include "compat.h"
#include "placement.h"
#include "preempt.h"
#include "proc.h"
#include "tenant.h"

/* Memory a user causes is charged to its memory cgroup (__GFP_ACCOUNT). */
static int vgpu_dev_open(struct inode *inode, struct file *file)
{
	struct vgpu_dev_file *df;
	int err = -ENOMEM;

	df = kzalloc(sizeof(*df), GFP_KERNEL_ACCOUNT);
	if (!df)
		return -ENOMEM;
	df->opener = vgpu_dev_opens_get();
	if (IS_ERR(df->opener)) {
		err = PTR_ERR(df->opener);
		goto err_free_df;
	}
	BUILD_BUG_ON(sizeof(struct vgpu_dev_page) > PAGE_SIZE);
	BUILD_BUG_ON(VGPU_DEV_GPUS != VGPU_GPU_MAX);
	df->page = (struct vgpu_dev_page *)get_zeroed_page(GFP_KERNEL_ACCOUNT);
	if (!df->page)
		goto err_put_opener;
	df->page->version = VGPU_DEV_PAGE_VERSION;
	BUILD_BUG_ON(sizeof(struct vgpu_dev_gate) > PAGE_SIZE);
	df->gate = (struct vgpu_dev_gate *)get_zeroed_page(GFP_KERNEL_ACCOUNT);
	if (!df->gate)
		goto err_free_page;
	df->gate->version = VGPU_DEV_PAGE_VERSION;
	file->private_data = df;
	return nonseekable_open(inode, file);

err_free_page:
	free_page((unsigned long)df->page);
err_put_opener:
	vgpu_dev_opens_put(df->opener);
err_free_df:
	kfree(df);
	return err;
}

static int vgpu_dev_release(struct inode *inode, struct file *file)
{
	struct vgpu_dev_file *df = file->private_data;
	LIST_HEAD(dead);

	spin_lock(&vgpu_acct_lock);
	if (df->proc)
		vgpu_proc_end(df->proc, &dead);
	spin_unlock(&vgpu_acct_lock);
	vgpu_proc_put_list(&dead);

	/* Every mapping is gone: each held a reference to this file. */
	free_page((unsigned long)df->gate);
	free_page((unsigned long)df->page);
	vgpu_dev_opens_put(df->opener);
	kfree(df);
	return 0;
}

/*
 * Maps one page, shared, never executable, not inherited by fork (the
 * child is not registered) and not growable: the accounting page at
 * offset 0, or the gate at VGPU_DEV_GATE_OFFSET, which is read-only (a
 * writable mapping is refused with EACCES, and mprotect cannot make it so).
 */
static int vgpu_dev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct vgpu_dev_file *df = file->private_data;
	void *page = df->page;

	if (vma->vm_pgoff == VGPU_DEV_GATE_OFFSET >> PAGE_SHIFT)
		page = df->gate;
	else if (vma->vm_pgoff)
		return -EINVAL;
	if (vma->vm_end - vma->vm_start != PAGE_SIZE ||
	    !(vma->vm_flags & VM_SHARED) || (vma->vm_flags & VM_EXEC))
		return -EINVAL;
	if (page == df->gate) {
		if (vma->vm_flags & VM_WRITE)
			return -EACCES;
		vgpu_vma_clear_flags(vma, VM_MAYWRITE);
	}
	/*
	 * VM_IO: madvise(MADV_DOFORK) refuses such mappings, so VM_DONTCOPY
	 * cannot be cleared and a forked child never shares the page.
	 */
	vgpu_vma_set_flags(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP | VM_IO);
	vgpu_vma_clear_flags(vma, VM_MAYEXEC);
	return vm_insert_page(vma, vma->vm_start, virt_to_page(page));
}

/*
 * The registration of @df if the caller is its process (threads included);
 * a forked child that inherited the file is not registered.
 */
static struct vgpu_proc *vgpu_dev_proc(struct vgpu_dev_file *df)
{
	struct vgpu_proc *p = df->proc;

	lockdep_assert_held(&vgpu_acct_lock);
	if (!p || p->pid != task_tgid(current))
		return NULL;
	return p;
}

/* Checks common to the ioctls: registered, a GPU of the inventory, allowed. */
static struct vgpu_proc *vgpu_dev_check(struct vgpu_dev_file *df, u32 gpu, bool allowed)
{
	struct vgpu_proc *p = vgpu_dev_proc(df);

	if (!p)
		return ERR_PTR(-ESRCH);
	if (!vgpu_acct_gpu_ok(gpu))
		return ERR_PTR(-ENODEV);
	if (allowed && vgpu_acct_denied(p, gpu))
		return ERR_PTR(-EACCES);
	return p;
}

/*
 * Looks at the process's page on @gpu (vgpu_acct_check_page()); returns
 * the id of the tenant whose event stream must say it was overdrawn, or 0.
 */
static u32 vgpu_dev_look(struct vgpu_proc *p, u32 gpu)
{
	return vgpu_acct_check_page(p, gpu) && p->tenant ? p->tenant->id : 0;
}

/* After vgpu_acct_lock is released: tenant-change-ntf for an overdraft. */
static void vgpu_dev_report(u32 tenant_id)
{
	if (tenant_id)
		vgpu_tenant_notify_id(tenant_id);
}

/*
 * A charge that runs short may let vgpu_acct_lock go for a moment
 * (acct_scan.c): it holds a reference to the registration meanwhile. A
 * charge of a suspended process sleeps until it is resumed.
 */
static int vgpu_dev_charge_once(struct vgpu_dev_file *df, struct vgpu_dev_charge *c)
{
	struct vgpu_proc *p;
	u32 report = 0;
	LIST_HEAD(dead);
	int err;

	spin_lock(&vgpu_acct_lock);
again:
	p = vgpu_dev_check(df, c->gpu, true);
	if (IS_ERR(p)) {
		spin_unlock(&vgpu_acct_lock);
		return PTR_ERR(p);
	}
	kref_get(&p->ref);
	if (p->frozen) {
		/* Suspended (acct_park.c): wait for the resume, then check again. */
		err = vgpu_acct_wait_thaw(p);
		spin_unlock(&vgpu_acct_lock);
		vgpu_proc_put(p);
		if (err)
			return err;
		spin_lock(&vgpu_acct_lock);
		goto again;
	}
	report = vgpu_dev_look(p, c->gpu);
	err = vgpu_acct_charge(p, c->gpu, c->bytes, &c->keep, &dead);
	spin_unlock(&vgpu_acct_lock);
	vgpu_proc_put(p);
	vgpu_proc_put_list(&dead);
	vgpu_dev_report(report);
	return err;
}

/*
 * A charge, and when it finds no room, the wait while lower tenants are
 * suspended for it (preempt.c), trying again each time the room may
 * have changed.
 */
static int vgpu_dev_charge(struct vgpu_dev_file *df, struct vgpu_dev_charge *c)
{
	int seq = atomic_read(&vgpu_room_seq);
	struct vgpu_preempt pre;
	struct vgpu_proc *p;
	int err;

	err = vgpu_dev_charge_once(df, c);
	if (err != -ENOMEM)
		return err;
	spin_lock(&vgpu_acct_lock);
	p = vgpu_dev_proc(df);
	if (p)
		kref_get(&p->ref);
	spin_unlock(&vgpu_acct_lock);
	if (!p)
		return err;
	err = vgpu_preempt_start(p, c->gpu, c->bytes, &pre);
	vgpu_proc_put(p);
	if (err)
		return err;
	for (;;) {
		err = vgpu_preempt_wait(&pre, seq);
		if (err)
			break;
		seq = atomic_read(&vgpu_room_seq);
		err = vgpu_dev_charge_once(df, c);
		if (err != -ENOMEM)
			break;
	}
	vgpu_preempt_end(&pre);
	return err;
}

static int vgpu_dev_release_budget(struct vgpu_dev_file *df, struct vgpu_dev_charge *c)
{
	struct vgpu_proc *p;
	u32 report = 0;
	int err = 0;

	spin_lock(&vgpu_acct_lock);
	p = vgpu_dev_check(df, c->gpu, false);
	if (IS_ERR(p)) {
		err = PTR_ERR(p);
	} else {
		report = vgpu_dev_look(p, c->gpu);
		c->bytes = vgpu_acct_release(p, c->gpu, c->bytes);
		c->keep = 0;
	}
	spin_unlock(&vgpu_acct_lock);
	vgpu_dev_report(report);
	return err;
}

/*
 * MEMINFO sums the tenant's registrations with vgpu_acct_lock let go
 * between batches (acct_walk.c): it holds a reference to the registration
 * meanwhile.
 */
static int vgpu_dev_meminfo(struct vgpu_dev_file *df, struct vgpu_dev_meminfo *mi)
{
	struct vgpu_proc *p;
	int err;

	spin_lock(&vgpu_acct_lock);
	p = vgpu_dev_check(df, mi->gpu, true);
	if (IS_ERR(p)) {
		spin_unlock(&vgpu_acct_lock);
		return PTR_ERR(p);
	}
	kref_get(&p->ref);
	err = vgpu_acct_meminfo(p, mi);
	spin_unlock(&vgpu_acct_lock);
	vgpu_proc_put(p);
	return err;
}

/* VGPU_IOC_PLACEMENT: the nodes of the caller's tenant and its page's seq. */
static int vgpu_dev_placement(struct vgpu_dev_file *df, struct vgpu_dev_placement *pl)
{
	struct vgpu_proc *p;
	int err = 0;

	spin_lock(&vgpu_acct_lock);
	p = vgpu_dev_proc(df);
	if (p)
		vgpu_place_get(p, pl);
	else
		err = -ESRCH;
	spin_unlock(&vgpu_acct_lock);
	return err;
}

/*
 * VGPU_IOC_WAIT: the checks of the other ioctls, then a sleep outside
 * vgpu_acct_lock, holding a reference to the registration.
 */
static int vgpu_dev_wait(struct vgpu_dev_file *df, struct vgpu_dev_wait *w)
{
	struct vgpu_proc *p;
	u32 report;
	int err;

	spin_lock(&vgpu_acct_lock);
	p = vgpu_dev_check(df, w->gpu, true);
	if (IS_ERR(p)) {
		spin_unlock(&vgpu_acct_lock);
		return PTR_ERR(p);
	}
	kref_get(&p->ref);
	report = vgpu_dev_look(p, w->gpu);
	spin_unlock(&vgpu_acct_lock);
	vgpu_dev_report(report);
	err = vgpu_sched_wait(&p->sched, w->gpu, w->drain_ns, &w->waited_ns);
	vgpu_proc_put(p);
	return err;
}

/*
 * The arguments are copied in and out around the work, which runs under
 * vgpu_acct_lock and never touches user memory.
 */
static long vgpu_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct vgpu_dev_file *df = file->private_data;
	void __user *uarg = (void __user *)arg;
	struct vgpu_dev_placement pl;
	struct vgpu_dev_meminfo mi;
	struct vgpu_dev_charge c;
	struct vgpu_dev_wait w;
	int err;

	switch (cmd) {
	case VGPU_IOC_CHARGE:
	case VGPU_IOC_RELEASE:
		if (copy_from_user(&c, uarg, sizeof(c)))
			return -EFAULT;
		if (c.flags)
			return -EINVAL;
		if (cmd == VGPU_IOC_CHARGE)
			err = vgpu_dev_charge(df, &c);
		else
			err = vgpu_dev_release_budget(df, &c);
		if (err)
			return err;
		return copy_to_user(uarg, &c, sizeof(c)) ? -EFAULT : 0;
	case VGPU_IOC_MEMINFO:
		if (copy_from_user(&mi, uarg, sizeof(mi)))
			return -EFAULT;
		if (mi.flags)
			return -EINVAL;
		err = vgpu_dev_meminfo(df, &mi);
		if (err)
			return err;
		return copy_to_user(uarg, &mi, sizeof(mi)) ? -EFAULT : 0;
	case VGPU_IOC_WAIT:
		if (copy_from_user(&w, uarg, sizeof(w)))
			return -EFAULT;
		if (w.flags)
			return -EINVAL;
		w.waited_ns = 0;
		err = vgpu_dev_wait(df, &w);
		if (err && err != -EINTR)
			return err;
		if (copy_to_user(uarg, &w, sizeof(w)))
			return -EFAULT;
		return err;
	case VGPU_IOC_PLACEMENT:
		err = vgpu_dev_placement(df, &pl);
		if (err)
			return err;
		return copy_to_user(uarg, &pl, sizeof(pl)) ? -EFAULT : 0;
	default:
		return -ENOTTY;
	}
}

const struct file_operations vgpu_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= vgpu_dev_open,
	.release	= vgpu_dev_release,
	.mmap		= vgpu_dev_mmap,
	.unlocked_ioctl	= vgpu_dev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	/*
	 * No .llseek: nonseekable_open() makes lseek fail with ESPIPE on
	 * every supported kernel (no_llseek itself is gone in 6.12).
	 */
};

static struct miscdevice vgpu_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "vgpu",
	.fops	= &vgpu_dev_fops,
	.mode	= 0666,
};

/**
 * vgpu_dev_init() - create /dev/vgpu
 *
 * Return: 0 or a negative errno from misc_register().
 */
int __init vgpu_dev_init(void)
{
	return misc_register(&vgpu_misc);
}

/**
 * vgpu_dev_exit() - remove /dev/vgpu
 *
 * Called at module exit, when no file is open (each holds the module).
 */
void vgpu_dev_exit(void)
{
	misc_deregister(&vgpu_misc);
}
