// SPDX-License-Identifier: GPL-2.0
/*
 * Error log management (CUDA 12.9, cuda.h's CUDA_LOGS group). simgpu
 * writes nothing to the driver's log buffer, so its logs are always empty:
 * a registered callback is kept (and checked at unregistering) but never
 * called, the iterator stays 0, and a dump writes nothing (*size 0 and a
 * terminating NUL, as the reference says of "no messages to dump";
 * an empty file). Flags are "reserved for future use, must be 0". PyTorch
 * resolves cuLogsRegisterCallback and cuLogsUnregisterCallback at start
 * (Documentation/simgpu.md, "PyTorch on simgpu").
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "simgpu.h"

#if CUDA_VERSION >= 12090
struct CUlogsCallbackEntry_st {
	struct CUlogsCallbackEntry_st *next;
	CUlogsCallback fn;
	void *data;
};

static pthread_mutex_t logs_lk = PTHREAD_MUTEX_INITIALIZER;
static struct CUlogsCallbackEntry_st *callbacks;

SG_API CUresult cuLogsRegisterCallback(CUlogsCallback callbackFunc, void *userData,
				       CUlogsCallbackHandle *callback_out)
{
	SG_GATE();
	struct CUlogsCallbackEntry_st *e;

	if (!callbackFunc)
		return CUDA_ERROR_INVALID_VALUE;
	e = calloc(1, sizeof(*e));
	if (!e)
		return CUDA_ERROR_OUT_OF_MEMORY;
	e->fn = callbackFunc;
	e->data = userData;
	pthread_mutex_lock(&logs_lk);
	e->next = callbacks;
	callbacks = e;
	pthread_mutex_unlock(&logs_lk);
	if (callback_out)
		*callback_out = e;
	return CUDA_SUCCESS;
}

SG_API CUresult cuLogsUnregisterCallback(CUlogsCallbackHandle callback)
{
	SG_GATE();
	struct CUlogsCallbackEntry_st **p;
	int found = 0;

	pthread_mutex_lock(&logs_lk);
	for (p = &callbacks; callback && *p; p = &(*p)->next)
		if (*p == callback) {
			*p = callback->next;
			found = 1;
			break;
		}
	pthread_mutex_unlock(&logs_lk);
	if (!found)
		return CUDA_ERROR_INVALID_VALUE;
	free(callback);
	return CUDA_SUCCESS;
}

SG_API CUresult cuLogsCurrent(CUlogIterator *iterator_out, unsigned int flags)
{
	SG_GATE();
	if (!iterator_out || flags)
		return CUDA_ERROR_INVALID_VALUE;
	*iterator_out = 0;
	return CUDA_SUCCESS;
}

SG_API CUresult cuLogsDumpToFile(CUlogIterator *iterator, const char *pathToFile, unsigned int flags)
{
	SG_GATE();
	int fd;

	(void)iterator;
	if (!pathToFile || flags)
		return CUDA_ERROR_INVALID_VALUE;
	fd = open(pathToFile, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
	if (fd < 0)
		return CUDA_ERROR_INVALID_VALUE;
	close(fd);
	return CUDA_SUCCESS;
}

SG_API CUresult cuLogsDumpToMemory(CUlogIterator *iterator, char *buffer, size_t *size, unsigned int flags)
{
	SG_GATE();
	(void)iterator;
	if (!buffer || !size || flags)
		return CUDA_ERROR_INVALID_VALUE;
	if (*size)
		buffer[0] = '\0';
	*size = 0;
	return CUDA_SUCCESS;
}
#endif
