/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cpuset writer of vgpuctl: makes a tenant's cgroup run on the CPUs and
 * NUMA nodes vgpu.ko holds in force for it (cpus-effective, mems-effective),
 * so that processes that never load libvgpu are placed too. Plain file I/O
 * under a cgroup2 tree whose root is a parameter: tests/unit/test_cpuset.c
 * runs it against a fake tree in a temporary directory.
 */
#ifndef VGPU_CTL_CPUSET_H
#define VGPU_CTL_CPUSET_H

#include <stddef.h>

/* Results of vgpuctl_cpuset_apply() other than an error (-1). */
enum {
	VGPU_CPUSET_OK = 0,	/* written (or already so) */
	VGPU_CPUSET_GONE = 1,	/* the cgroup directory does not exist */
	VGPU_CPUSET_ROOT = 2,	/* the root cgroup, which has no cpuset files */
};

int vgpuctl_cpuset_apply(const char *root, const char *cgroup, const char *cpus,
			 const char *mems, char *err, size_t errlen);

#endif /* VGPU_CTL_CPUSET_H */
