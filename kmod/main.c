// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: module init and exit.
 *
 * vgpu.ko is the trusted arbiter that lets tenants (cgroup v2 subtrees)
 * share the GPUs of one host. This file brings its parts up in order and
 * takes them down in reverse.
 */
#include <linux/module.h>
#include <linux/mutex.h>

#include "acct.h"
#include "final.h"
#include "gpu.h"
#include "proc.h"
#include "tenant.h"
#include "vgpu.h"

DEFINE_MUTEX(vgpu_lock);
/* Starts at 1: a dump's cb->seq of 0 would disable its consistency check. */
unsigned int vgpu_generation = 1;

static int __init vgpu_init(void)
{
	int err;

	vgpu_host_init();
	vgpu_sched_init(&vgpu_default_bucket.sched);
	err = vgpu_selftest();
	if (err)
		goto err_out;
	err = vgpu_dev_init();
	if (err)
		goto err_out;
	err = vgpu_proc_init();
	if (err)
		goto err_dev;
	err = vgpu_nl_register();
	if (err)
		goto err_proc;
	pr_info("vgpu: loaded\n");
	return 0;

err_proc:
	vgpu_proc_exit();
err_dev:
	vgpu_dev_exit();
err_out:
	return err;
}

static void __exit vgpu_exit(void)
{
	/*
	 * Ephemeral tenants are no longer deleted (nor announced) from here
	 * on. No handler runs once the family is gone. No /dev/vgpu file is
	 * open (each holds the module), so no process is registered and
	 * nothing queues the ephemeral work again: stopping it once more
	 * leaves it neither queued nor running. Then free the state.
	 */
	vgpu_ephemeral_stop();
	vgpu_tenant_state_stop();
	vgpu_nl_unregister();
	vgpu_proc_exit();
	vgpu_dev_exit();
	vgpu_ephemeral_stop();
	vgpu_sched_exit();

	mutex_lock(&vgpu_lock);
	vgpu_tenant_destroy_all();
	vgpu_final_destroy_all();
	vgpu_gpu_destroy_all();
	mutex_unlock(&vgpu_lock);
}

module_init(vgpu_init);
module_exit(vgpu_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("vgpu: share the GPUs of a host between cgroup v2 tenants");
MODULE_VERSION("0.1");
