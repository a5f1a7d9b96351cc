// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's dmem cgroup controller under simgpu (dmem = on, or
 * SIMGPU_DMEM=on): every charge of device memory is also charged to the
 * calling process's cgroup through the test module simgpu-dmem
 * (tests/kmod-dmem), as a GPU driver charges dmem in its allocation path
 * (NVIDIA's r615 and later on kernels with the controller, xe, amdgpu).
 * The kernel refusing it (a dmem.max reached: dmem_cgroup_try_charge's
 * -EAGAIN) fails the allocation with CUDA_ERROR_OUT_OF_MEMORY, whatever
 * library the process loaded. A process's charges go back with its
 * allocations, and all at once when it ends (the module's file closes).
 * Without /dev/simgpu-dmem, allocations fail with
 * CUDA_ERROR_OPERATING_SYSTEM, said once on stderr: a test that asked for
 * the controller must not pass without it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../kmod-dmem/simgpu_dmem.h"
#include "simgpu.h"

#define SG_DMEM_DEV "/dev/simgpu-dmem"

static pthread_mutex_t sg_dmem_lk = PTHREAD_MUTEX_INITIALIZER;
static int sg_dmem_fd = -1;
static pid_t sg_dmem_pid;	/* the process that opened it (not a fork's) */

/* This process's file of the module, opened on first use; -1 if none. */
static int sg_dmem_file(void)
{
	static int said;
	pid_t me = getpid();
	int fd;

	pthread_mutex_lock(&sg_dmem_lk);
	if (sg_dmem_fd >= 0 && sg_dmem_pid != me) {
		close(sg_dmem_fd);	/* the parent's: its charges are its own */
		sg_dmem_fd = -1;
	}
	if (sg_dmem_fd < 0) {
		sg_dmem_fd = open(SG_DMEM_DEV, O_RDWR | O_CLOEXEC);
		sg_dmem_pid = me;
		if (sg_dmem_fd < 0 && !said++)
			fprintf(stderr, "simgpu: dmem = on but %s: %s (load tests/kmod-dmem's "
				"simgpu_dmem.ko): allocations fail\n", SG_DMEM_DEV, strerror(errno));
	}
	fd = sg_dmem_fd;
	pthread_mutex_unlock(&sg_dmem_lk);
	return fd;
}

CUresult simgpu_dmem_charge(int dev, uint64_t bytes)
{
	struct simgpu_dmem_charge c = { .gpu = (__u32)dev, .bytes = bytes };
	int fd;

	if (!simgpu_cfg.dmem || !bytes)
		return CUDA_SUCCESS;
	fd = sg_dmem_file();
	if (fd < 0)
		return CUDA_ERROR_OPERATING_SYSTEM;
	if (!ioctl(fd, SIMGPU_DMEM_CHARGE, &c))
		return CUDA_SUCCESS;
	return errno == ENOSPC || errno == ENOMEM ? CUDA_ERROR_OUT_OF_MEMORY :
						   CUDA_ERROR_OPERATING_SYSTEM;
}

void simgpu_dmem_uncharge(int dev, uint64_t bytes)
{
	struct simgpu_dmem_charge c = { .gpu = (__u32)dev, .bytes = bytes };
	int fd;

	if (!simgpu_cfg.dmem || !bytes)
		return;
	fd = sg_dmem_file();
	if (fd >= 0)
		ioctl(fd, SIMGPU_DMEM_UNCHARGE, &c);
}
