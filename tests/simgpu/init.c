// SPDX-License-Identifier: GPL-2.0
/*
 * cuInit and the process's link to the shared state: configuration,
 * registration, and release of everything at exit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ckpt.h"

struct sg_config simgpu_cfg;
int simgpu_ready;
pid_t simgpu_pid;
static pid_t self;	/* getpid() at cuInit: tells a forked child apart */
int simgpu_slot = -1;
volatile int simgpu_exiting;
pthread_mutex_t simgpu_lk = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t simgpu_cv;

static pthread_mutex_t init_lk = PTHREAD_MUTEX_INITIALIZER;
static int init_done;
static CUresult init_result;

static void at_exit(void)
{
	simgpu_exiting = 1;
	if (!simgpu_shm || self != getpid())
		return;
	simgpu_ckpt_stop();
	simgpu_state_lock();
	simgpu_state_release_pid(simgpu_pid);
	simgpu_state_unlock();
}

static CUresult do_init(void)
{
	char err[512], host_cg[SG_CGROUP_LEN];
	pthread_condattr_t ca;
	int rc;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&simgpu_cv, &ca);
	pthread_condattr_destroy(&ca);
	if (simgpu_config_load(&simgpu_cfg, err, sizeof(err))) {
		fprintf(stderr, "simgpu: bad configuration: %s\n", err);
		return CUDA_ERROR_INVALID_VALUE;
	}
	simgpu_visible_load();
	if (simgpu_nvis == 0)
		return CUDA_ERROR_NO_DEVICE;
	rc = simgpu_state_open();
	if (rc) {
		fprintf(stderr, "simgpu: cannot open state file %s: %s\n",
			getenv("SIMGPU_STATE") ? getenv("SIMGPU_STATE") : SG_DEFAULT_STATE,
			strerror(-rc));
		return CUDA_ERROR_OPERATING_SYSTEM;
	}
	simgpu_state_configure(&simgpu_cfg);
	/* Known by its host pid, as NVIDIA's driver knows every process. */
	self = getpid();
	simgpu_pid = simgpu_host_pid(host_cg, sizeof(host_cg));
	if (simgpu_pid <= 0) {
		fprintf(stderr, "simgpu: in a pid namespace and simgpu-pidd (%s) does not "
			"answer: NVML reports pid %d, this namespace's\n", simgpu_pidd_path(),
			(int)self);
		simgpu_pid = self;
	}
	simgpu_state_lock();
	simgpu_slot = simgpu_state_register(simgpu_pid, host_cg);
	simgpu_state_unlock();
	if (simgpu_slot < 0)
		fprintf(stderr, "simgpu: process table full, pid %d not accounted\n",
			(int)simgpu_pid);
	atexit(at_exit);
	/* Another process may now lock and checkpoint this one. */
	simgpu_ckpt_serve();
	return CUDA_SUCCESS;
}

SG_API CUresult cuInit(unsigned int flags)
{
	SG_GATE();
	if (flags)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&init_lk);
	if (!init_done) {
		init_result = do_init();
		init_done = 1;
		if (init_result == CUDA_SUCCESS)
			__atomic_store_n(&simgpu_ready, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&init_lk);
	return init_result;
}

SG_API CUresult cuDriverGetVersion(int *v)
{
	SG_GATE();
	if (!v)
		return CUDA_ERROR_INVALID_VALUE;
	*v = SG_DRIVER_VERSION;
	return CUDA_SUCCESS;
}
