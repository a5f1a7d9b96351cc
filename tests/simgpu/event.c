// SPDX-License-Identifier: GPL-2.0
/*
 * Events: a record queues a marker on a stream; the event completes when
 * the stream's worker reaches it, and takes the time then.
 */
#include <stdlib.h>

#include "simgpu.h"

SG_API CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
	SG_GATE();
	struct CUctx_st *ctx;
	struct CUevent_st *e;
	CUresult rc = simgpu_ctx_get(&ctx);

	if (rc)
		return rc;
	if (!phEvent)
		return CUDA_ERROR_INVALID_VALUE;
	e = calloc(1, sizeof(*e));
	if (!e)
		return CUDA_ERROR_OUT_OF_MEMORY;
	e->magic = SG_EVENT_MAGIC;
	e->flags = Flags;
	*phEvent = e;
	return CUDA_SUCCESS;
}

static CUresult record(CUevent ev, CUstream h, int ptds)
{
	struct CUstream_st *s;
	struct sg_op *op;
	CUresult rc;

	SG_INIT_CHECK();
	if (!ev || ev->magic != SG_EVENT_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	rc = simgpu_stream_resolve(h, ptds, &s);
	if (rc)
		return rc;
	op = simgpu_op_new(SG_OP_RECORD);
	if (!op)
		return CUDA_ERROR_OUT_OF_MEMORY;
	op->ev = ev;
	pthread_mutex_lock(&simgpu_lk);
	op->seq = ++ev->recorded;
	pthread_mutex_unlock(&simgpu_lk);
	return simgpu_stream_submit(s, op);
}

SG_API CUresult cuEventRecord(CUevent ev, CUstream h)
{
	SG_GATE();
	return record(ev, h, 0);
}

SG_API CUresult cuEventRecord_ptsz(CUevent ev, CUstream h)
{
	SG_GATE();
	return record(ev, h, 1);
}

SG_API CUresult cuEventRecordWithFlags(CUevent ev, CUstream h, unsigned int flags)
{
	SG_GATE();
	(void)flags;
	return record(ev, h, 0);
}

SG_API CUresult cuEventRecordWithFlags_ptsz(CUevent ev, CUstream h, unsigned int flags)
{
	SG_GATE();
	(void)flags;
	return record(ev, h, 1);
}

SG_API CUresult cuEventQuery(CUevent ev)
{
	SG_GATE();
	CUresult rc;

	SG_INIT_CHECK();
	if (!ev || ev->magic != SG_EVENT_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	rc = simgpu_capture_sync_event(ev);
	if (rc)
		return rc;
	pthread_mutex_lock(&simgpu_lk);
	rc = ev->done < ev->recorded ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
	pthread_mutex_unlock(&simgpu_lk);
	return rc;
}

SG_API CUresult cuEventSynchronize(CUevent ev)
{
	SG_GATE();
	uint64_t target;
	CUresult rc;

	SG_INIT_CHECK();
	if (!ev || ev->magic != SG_EVENT_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	rc = simgpu_capture_sync_event(ev);
	if (rc)
		return rc;
	pthread_mutex_lock(&simgpu_lk);
	target = ev->recorded;
	while (ev->done < target)
		pthread_cond_wait(&simgpu_cv, &simgpu_lk);
	pthread_mutex_unlock(&simgpu_lk);
	simgpu_pool_trim_all();
	return CUDA_SUCCESS;
}

static CUresult elapsed(float *ms, CUevent start, CUevent end)
{
	CUresult rc = CUDA_SUCCESS;

	SG_INIT_CHECK();
	if (!ms)
		return CUDA_ERROR_INVALID_VALUE;
	if (!start || !end || start->magic != SG_EVENT_MAGIC ||
	    end->magic != SG_EVENT_MAGIC ||
	    (start->flags & CU_EVENT_DISABLE_TIMING) ||
	    (end->flags & CU_EVENT_DISABLE_TIMING))
		return CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_lock(&simgpu_lk);
	if (!start->recorded || !end->recorded)
		rc = CUDA_ERROR_INVALID_HANDLE;
	else if (start->done < start->recorded || end->done < end->recorded)
		rc = CUDA_ERROR_NOT_READY;
	else
		*ms = (float)((double)((int64_t)(end->t_ns - start->t_ns)) / 1e6);
	pthread_mutex_unlock(&simgpu_lk);
	return rc;
}

SG_API CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end)
{
	SG_GATE();
	return elapsed(ms, start, end);
}

#if CUDA_VERSION >= 12080
SG_API CUresult cuEventElapsedTime_v2(float *ms, CUevent start, CUevent end)
{
	SG_GATE();
	return elapsed(ms, start, end);
}
#endif

SG_API CUresult cuEventDestroy_v2(CUevent ev)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!ev || ev->magic != SG_EVENT_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	/* Queued records and waits may still point at it: keep the memory,
	 * mark the handle dead. */
	pthread_mutex_lock(&simgpu_lk);
	ev->destroyed = 1;
	if (ev->done >= ev->recorded) {
		ev->magic = 0;
		pthread_mutex_unlock(&simgpu_lk);
		return CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&simgpu_lk);
	return CUDA_SUCCESS;
}

SG_API CUresult cuEventDestroy(CUevent ev)
{
	SG_GATE();
	return cuEventDestroy_v2(ev);
}
