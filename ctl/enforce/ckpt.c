// SPDX-License-Identifier: GPL-2.0
/*
 * NVIDIA's checkpoint API for the agent (ckpt.h): libcuda.so.1 opened at
 * run time, once, as cuda-checkpoint does; no cuInit (the driver API
 * reference asks for it only with custom storage). A driver before r570
 * lacks the functions, which vgpuctl_ckpt_open() says.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <cuda.h>

#include "ckpt.h"

#define CUDA_LIB	"libcuda.so.1"

_Static_assert((int)CU_PROCESS_STATE_CHECKPOINTED == (int)VGPUCTL_CKPT_CHECKPOINTED &&
	       (int)CU_PROCESS_STATE_RESTORING == (int)VGPUCTL_CKPT_RESTORING, "CUprocessState");
_Static_assert(CUDA_ERROR_NOT_SUPPORTED == VGPUCTL_CKPT_NOT_SUPPORTED &&
	       CUDA_ERROR_TIMEOUT == VGPUCTL_CKPT_TIMEOUT, "CUresult");

static struct {
	void *lib;
	CUresult (*get_state)(int, CUprocessState *);
	CUresult (*lock)(int, CUcheckpointLockArgs *);
	CUresult (*checkpoint)(int, CUcheckpointCheckpointArgs *);
	CUresult (*restore)(int, CUcheckpointRestoreArgs *);
	CUresult (*unlock)(int, CUcheckpointUnlockArgs *);
	CUresult (*error_name)(CUresult, const char **);
} cu;

#define SYM(field, name)	(*(void **)&cu.field = dlsym(cu.lib, name))

/**
 * vgpuctl_ckpt_open() - open libcuda.so.1 and find the checkpoint API
 * @err: out: why not, for an error line
 * @len: its size
 *
 * Return: 0, or -1 with @err set.
 */
int vgpuctl_ckpt_open(char *err, size_t len)
{
	if (cu.lib)
		return 0;
	cu.lib = dlopen(CUDA_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!cu.lib) {
		snprintf(err, len, "cannot open %s (the NVIDIA driver): %s", CUDA_LIB, dlerror());
		return -1;
	}
	if (!SYM(get_state, "cuCheckpointProcessGetState") ||
	    !SYM(lock, "cuCheckpointProcessLock") ||
	    !SYM(checkpoint, "cuCheckpointProcessCheckpoint") ||
	    !SYM(restore, "cuCheckpointProcessRestore") ||
	    !SYM(unlock, "cuCheckpointProcessUnlock")) {
		snprintf(err, len, "%s lacks the checkpoint API (cuCheckpointProcess*): "
			 "the agent needs NVIDIA driver r570 or later", CUDA_LIB);
		dlclose(cu.lib);
		cu.lib = NULL;
		return -1;
	}
	SYM(error_name, "cuGetErrorName");
	return 0;
}

/** vgpuctl_ckpt_get_state() - cuCheckpointProcessGetState() of @pid. */
int vgpuctl_ckpt_get_state(int pid, int *state)
{
	CUprocessState s = CU_PROCESS_STATE_FAILED;
	CUresult rc = cu.get_state(pid, &s);

	*state = (int)s;
	return (int)rc;
}

/** vgpuctl_ckpt_lock() - cuCheckpointProcessLock(), @timeout_ms 0: none. */
int vgpuctl_ckpt_lock(int pid, unsigned int timeout_ms)
{
	CUcheckpointLockArgs a;

	memset(&a, 0, sizeof(a));
	a.timeoutMs = timeout_ms;
	return (int)cu.lock(pid, &a);
}

/** vgpuctl_ckpt_checkpoint() - cuCheckpointProcessCheckpoint() of a locked @pid. */
int vgpuctl_ckpt_checkpoint(int pid)
{
	return (int)cu.checkpoint(pid, NULL);
}

/** vgpuctl_ckpt_restore() - cuCheckpointProcessRestore(), onto the same GPUs. */
int vgpuctl_ckpt_restore(int pid)
{
	CUcheckpointRestoreArgs a;

	memset(&a, 0, sizeof(a));	/* no GPU pairs: the same GPUs */
	return (int)cu.restore(pid, &a);
}

/** vgpuctl_ckpt_unlock() - cuCheckpointProcessUnlock() of a locked @pid. */
int vgpuctl_ckpt_unlock(int pid)
{
	return (int)cu.unlock(pid, NULL);
}

/** vgpuctl_ckpt_strerror() - the CUresult's name ("CUDA_ERROR_TIMEOUT"). */
const char *vgpuctl_ckpt_strerror(int rc)
{
	static char buf[32];
	const char *s = NULL;

	if (cu.error_name && cu.error_name((CUresult)rc, &s) == CUDA_SUCCESS && s)
		return s;
	snprintf(buf, sizeof(buf), "CUresult %d", rc);
	return buf;
}

/** vgpuctl_ckpt_state_name() - "running", "locked", ... of a CUprocessState. */
const char *vgpuctl_ckpt_state_name(int state)
{
	static const char *const n[] = {
		"running", "locked", "checkpointed", "failed", "checkpointing", "restoring",
	};

	return state >= 0 && state < (int)(sizeof(n) / sizeof(n[0])) ? n[state] : "unknown";
}
