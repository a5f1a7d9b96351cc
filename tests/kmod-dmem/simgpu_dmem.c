// SPDX-License-Identifier: GPL-2.0
/*
 * simgpu-dmem (simgpu_dmem.h): a test-only module standing for a GPU
 * driver's use of the dmem cgroup controller. Loaded with
 *
 *   insmod simgpu_dmem.ko regions=PCI=BYTES[,PCI=BYTES...]
 *
 * it registers one region per GPU, "nvidia/PCI/vidmem" of BYTES, in the
 * order given (simgpu's GPU indices). Each open file of /dev/simgpu-dmem
 * keeps its charges (the pool the kernel charged, and the bytes) per GPU;
 * an uncharge gives back the newest first, and closing the file (the
 * process ending) gives back everything, as a driver frees a dead
 * process's memory. Never part of vgpu.ko.
 */
#include <linux/cgroup_dmem.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/version.h>

#include "simgpu_dmem.h"

static char *regions;
module_param(regions, charp, 0444);
MODULE_PARM_DESC(regions, "PCI=BYTES[,PCI=BYTES...]: one dmem region per simulated GPU");

static struct dmem_cgroup_region *sd_region[SIMGPU_DMEM_GPUS];
static u64 sd_size[SIMGPU_DMEM_GPUS];
static unsigned int sd_n;

/* One charge: what the kernel charged, to give back exactly. */
struct sd_charge {
	struct list_head node;
	struct dmem_cgroup_pool_state *pool;
	u64 bytes;
};

struct sd_file {
	struct mutex lock;
	struct list_head charges[SIMGPU_DMEM_GPUS];	/* newest first */
};

static struct dmem_cgroup_region *sd_register(u64 size, const char *pci)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 3, 0)
	struct dmem_cgroup_init init = { .size = size };

	return dmem_cgroup_register_region(&init, "nvidia/%s/vidmem", pci);
#else
	return dmem_cgroup_register_region(size, "nvidia/%s/vidmem", pci);
#endif
}

static int sd_open(struct inode *inode, struct file *f)
{
	struct sd_file *sf = kzalloc(sizeof(*sf), GFP_KERNEL);
	unsigned int i;

	if (!sf)
		return -ENOMEM;
	mutex_init(&sf->lock);
	for (i = 0; i < SIMGPU_DMEM_GPUS; i++)
		INIT_LIST_HEAD(&sf->charges[i]);
	f->private_data = sf;
	return 0;
}

static int sd_charge(struct sd_file *sf, u32 gpu, u64 bytes)
{
	struct dmem_cgroup_pool_state *pool, *limit;
	struct sd_charge *c;
	int err;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	err = dmem_cgroup_try_charge(sd_region[gpu], bytes, &pool, &limit);
	if (err) {
		if (limit)
			dmem_cgroup_pool_state_put(limit);
		kfree(c);
		return err == -EAGAIN ? -ENOSPC : err;
	}
	c->pool = pool;
	c->bytes = bytes;
	mutex_lock(&sf->lock);
	list_add(&c->node, &sf->charges[gpu]);
	mutex_unlock(&sf->lock);
	return 0;
}

/* Newest first; a charge given back in part is charged again for the rest
 * (the kernel takes a charge back whole). */
static int sd_uncharge(struct sd_file *sf, u32 gpu, u64 bytes)
{
	struct sd_charge *c, *tmp;
	u64 rest = 0;

	mutex_lock(&sf->lock);
	list_for_each_entry_safe(c, tmp, &sf->charges[gpu], node) {
		if (!bytes)
			break;
		list_del(&c->node);
		dmem_cgroup_uncharge(c->pool, c->bytes);
		if (c->bytes > bytes)
			rest = c->bytes - bytes;
		bytes -= min(bytes, c->bytes);
		kfree(c);
	}
	mutex_unlock(&sf->lock);
	return rest ? sd_charge(sf, gpu, rest) : 0;
}

static long sd_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct simgpu_dmem_charge c;

	if (cmd != SIMGPU_DMEM_CHARGE && cmd != SIMGPU_DMEM_UNCHARGE)
		return -ENOTTY;
	if (copy_from_user(&c, (void __user *)arg, sizeof(c)))
		return -EFAULT;
	if (c.gpu >= sd_n || c.pad || !c.bytes)
		return -EINVAL;
	if (cmd == SIMGPU_DMEM_CHARGE)
		return sd_charge(f->private_data, c.gpu, c.bytes);
	return sd_uncharge(f->private_data, c.gpu, c.bytes);
}

static int sd_release(struct inode *inode, struct file *f)
{
	struct sd_file *sf = f->private_data;
	struct sd_charge *c, *tmp;
	unsigned int i;

	for (i = 0; i < SIMGPU_DMEM_GPUS; i++) {
		list_for_each_entry_safe(c, tmp, &sf->charges[i], node) {
			list_del(&c->node);
			dmem_cgroup_uncharge(c->pool, c->bytes);
			kfree(c);
		}
	}
	kfree(sf);
	return 0;
}

static const struct file_operations sd_fops = {
	.owner = THIS_MODULE,
	.open = sd_open,
	.release = sd_release,
	.unlocked_ioctl = sd_ioctl,
};

static struct miscdevice sd_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "simgpu-dmem",
	.fops = &sd_fops,
	.mode = 0666,
};

static void sd_unregister(void)
{
	while (sd_n)
		dmem_cgroup_unregister_region(sd_region[--sd_n]);
}

/* "PCI=BYTES,..." into regions registered with the controller. */
static int sd_parse(void)
{
	char *s, *p, *tok, *eq;
	int err = 0;

	if (!regions || !*regions)
		return -EINVAL;
	s = kstrdup(regions, GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	p = s;
	while ((tok = strsep(&p, ",")) && !err) {
		struct dmem_cgroup_region *r;

		eq = strchr(tok, '=');
		if (!eq || sd_n == SIMGPU_DMEM_GPUS) {
			err = -EINVAL;
			break;
		}
		*eq = 0;
		err = kstrtoull(eq + 1, 0, &sd_size[sd_n]);
		if (err)
			break;
		r = sd_register(sd_size[sd_n], tok);
		if (IS_ERR_OR_NULL(r)) {
			err = r ? PTR_ERR(r) : -ENODEV;
			break;
		}
		sd_region[sd_n++] = r;
	}
	kfree(s);
	return err;
}

static int __init sd_init(void)
{
	int err = sd_parse();

	if (err) {
		pr_err("simgpu-dmem: regions=\"%s\": %d\n", regions ?: "", err);
		goto out_regions;
	}
	err = misc_register(&sd_misc);
	if (err)
		goto out_regions;
	pr_info("simgpu-dmem: %u regions\n", sd_n);
	return 0;

out_regions:
	sd_unregister();
	return err;
}

static void __exit sd_exit(void)
{
	misc_deregister(&sd_misc);
	sd_unregister();
}

module_init(sd_init);
module_exit(sd_exit);
MODULE_DESCRIPTION("simgpu's dmem regions (vgpu's tests only)");
MODULE_LICENSE("GPL");
