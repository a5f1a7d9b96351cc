// SPDX-License-Identifier: GPL-2.0
/*
 * cuGetErrorName / cuGetErrorString. The names come from the cuda.h this
 * library is built against (errors.inc is generated from it).
 */
#include <stddef.h>

#include "simgpu.h"

static const struct {
	CUresult code;
	const char *name;
} names[] = {
#include "errors.inc"
};

static const struct {
	CUresult code;
	const char *text;
} texts[] = {
	{ CUDA_SUCCESS, "no error" },
	{ CUDA_ERROR_INVALID_VALUE, "invalid argument" },
	{ CUDA_ERROR_OUT_OF_MEMORY, "out of memory" },
	{ CUDA_ERROR_NOT_INITIALIZED, "initialization error" },
	{ CUDA_ERROR_DEINITIALIZED, "driver shutting down" },
	{ CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected" },
	{ CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal" },
	{ CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid" },
	{ CUDA_ERROR_INVALID_CONTEXT, "invalid device context" },
	{ CUDA_ERROR_FILE_NOT_FOUND, "file not found" },
	{ CUDA_ERROR_INVALID_HANDLE, "invalid resource handle" },
	{ CUDA_ERROR_NOT_FOUND, "named symbol not found" },
	{ CUDA_ERROR_NOT_READY, "device not ready" },
	{ CUDA_ERROR_NOT_SUPPORTED, "operation not supported" },
	{ CUDA_ERROR_NOT_PERMITTED, "operation not permitted" },
	{ CUDA_ERROR_OPERATING_SYSTEM, "OS call failed or operation not supported on this OS" },
	{ CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, "primary context active" },
	{ CUDA_ERROR_CONTEXT_ALREADY_IN_USE, "context already in use" },
	{ CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered" },
	{ CUDA_ERROR_UNKNOWN, "unknown error" },
};

SG_API CUresult cuGetErrorName(CUresult error, const char **pStr)
{
	SG_GATE();
	if (!pStr)
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (names[i].code == error) {
			*pStr = names[i].name;
			return CUDA_SUCCESS;
		}
	}
	*pStr = NULL;
	return CUDA_ERROR_INVALID_VALUE;
}

SG_API CUresult cuGetErrorString(CUresult error, const char **pStr)
{
	SG_GATE();
	const char *name;

	if (!pStr)
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		if (texts[i].code == error) {
			*pStr = texts[i].text;
			return CUDA_SUCCESS;
		}
	}
	if (cuGetErrorName(error, &name)) {
		*pStr = NULL;
		return CUDA_ERROR_INVALID_VALUE;
	}
	*pStr = name;
	return CUDA_SUCCESS;
}
