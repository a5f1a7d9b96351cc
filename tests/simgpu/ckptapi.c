// SPDX-License-Identifier: GPL-2.0
/*
 * The checkpoint API's entry points (driver API reference, "CUDA
 * Checkpointing"): each asks the process pid names over its control
 * socket (ckptpath.c, ckptsrv.c) and answers what it did. They act on
 * another process (or this one), so they do not pass this process's gate
 * and need no cuInit (the reference asks cuInit only of custom storage,
 * which simgpu does not model: CUDA_ERROR_NOT_SUPPORTED). As documented:
 * a NULL output, non-zero reserved fields or a pid that is no CUDA
 * process are CUDA_ERROR_INVALID_VALUE; a request the state does not
 * allow CUDA_ERROR_ILLEGAL_STATE; a lock not taken in timeoutMs
 * CUDA_ERROR_NOT_READY.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ckpt.h"

#if CUDA_VERSION >= 12080
static CUresult ask(int pid, struct sg_ckpt_req *req, struct sg_ckpt_rep *rep)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	CUresult rc = CUDA_SUCCESS;
	int fd;

	if (pid <= 0 || simgpu_ckpt_path(pid, sa.sun_path, sizeof(sa.sun_path)))
		return CUDA_ERROR_INVALID_VALUE;
	req->magic = SG_CKPT_MAGIC;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return CUDA_ERROR_OPERATING_SYSTEM;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		/* No socket, or a dead process's: no CUDA process there. A
		 * socket we may not open: no rights over the process. */
		rc = errno == EACCES || errno == EPERM ? CUDA_ERROR_OPERATING_SYSTEM
						       : CUDA_ERROR_INVALID_VALUE;
	} else if (send(fd, req, sizeof(*req), MSG_NOSIGNAL) != (ssize_t)sizeof(*req) ||
		   recv(fd, rep, sizeof(*rep), MSG_WAITALL) != (ssize_t)sizeof(*rep)) {
		rc = CUDA_ERROR_INVALID_VALUE;	/* it ended meanwhile */
	} else {
		rc = (CUresult)rep->result;
	}
	close(fd);
	return rc;
}

static int zeroed(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

SG_API CUresult cuCheckpointProcessGetState(int pid, CUprocessState *out)
{
	struct sg_ckpt_req req = { .op = SG_CKPT_STATE };
	struct sg_ckpt_rep rep;
	CUresult rc;

	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	rc = ask(pid, &req, &rep);
	if (!rc)
		*out = (CUprocessState)rep.state;
	return rc;
}

SG_API CUresult cuCheckpointProcessGetRestoreThreadId(int pid, int *tid)
{
	struct sg_ckpt_req req = { .op = SG_CKPT_TID };
	struct sg_ckpt_rep rep;
	CUresult rc;

	if (!tid)
		return CUDA_ERROR_INVALID_VALUE;
	rc = ask(pid, &req, &rep);
	if (!rc)
		*tid = rep.tid;
	return rc;
}

SG_API CUresult cuCheckpointProcessLock(int pid, CUcheckpointLockArgs *args)
{
	struct sg_ckpt_req req = { .op = SG_CKPT_LOCK };
	struct sg_ckpt_rep rep;

	if (args) {
		if (args->reserved0 || !zeroed(args->reserved1, sizeof(args->reserved1)))
			return CUDA_ERROR_INVALID_VALUE;
		req.timeout_ms = args->timeoutMs;
	}
	return ask(pid, &req, &rep);
}

SG_API CUresult cuCheckpointProcessCheckpoint(int pid, CUcheckpointCheckpointArgs *args)
{
	struct sg_ckpt_req req = { .op = SG_CKPT_CHECKPOINT };
	struct sg_ckpt_rep rep;

	if (args && !zeroed(args->reserved, sizeof(args->reserved)))
		return CUDA_ERROR_INVALID_VALUE;
#if CUDA_VERSION >= 13040
	if (args && args->customStorageInfo_out)
		return CUDA_ERROR_NOT_SUPPORTED;
#endif
	return ask(pid, &req, &rep);
}

SG_API CUresult cuCheckpointProcessRestore(int pid, CUcheckpointRestoreArgs *args)
{
	struct sg_ckpt_req req = { .op = SG_CKPT_RESTORE };
	struct sg_ckpt_rep rep;

	if (args) {
		if (!zeroed(args->reserved, sizeof(args->reserved)))
			return CUDA_ERROR_INVALID_VALUE;
#if CUDA_VERSION >= 13000	/* GPU remapping */
		if ((args->gpuPairsCount && !args->gpuPairs) || args->gpuPairsCount > SG_MAX_GPUS)
			return CUDA_ERROR_INVALID_VALUE;
#if CUDA_VERSION >= 13040
		if (args->padding0)
			return CUDA_ERROR_INVALID_VALUE;
		if (args->customStorageInfo_out)
			return CUDA_ERROR_NOT_SUPPORTED;
#endif
		req.npairs = args->gpuPairsCount;
		for (unsigned int i = 0; i < req.npairs; i++) {
			memcpy(req.pairs[i].old_uuid, args->gpuPairs[i].oldUuid.bytes, 16);
			memcpy(req.pairs[i].new_uuid, args->gpuPairs[i].newUuid.bytes, 16);
		}
#endif
	}
	return ask(pid, &req, &rep);
}

SG_API CUresult cuCheckpointProcessUnlock(int pid, CUcheckpointUnlockArgs *args)
{
	struct sg_ckpt_req req = { .op = SG_CKPT_UNLOCK };
	struct sg_ckpt_rep rep;

	if (args && !zeroed(args->reserved, sizeof(args->reserved)))
		return CUDA_ERROR_INVALID_VALUE;
	return ask(pid, &req, &rep);
}
#endif

#if CUDA_VERSION >= 13040
/* simgpu hands out no custom-storage operation to complete. */
SG_API CUresult cuCheckpointOperationComplete(CUcheckpointOperationHandle handle)
{
	(void)handle;
	return CUDA_ERROR_INVALID_VALUE;
}
#endif
