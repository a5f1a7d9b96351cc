// SPDX-License-Identifier: GPL-2.0
/*
 * The JIT linker: cuLinkCreate, cuLinkAddData, cuLinkAddFile,
 * cuLinkComplete, cuLinkDestroy (CUDA Driver API reference, "Module
 * Management"). cuBLASLt dlsyms them from libcuda.so.1 and fails to start
 * without them.
 *
 * simgpu compiles nothing: the linker takes each input (copied, as "no
 * reference is retained to any inputs after this call returns") and
 * cuLinkComplete produces one image, owned by the link state until
 * cuLinkDestroy, that cuModuleLoadData and cuLibraryLoadData accept as
 * they accept any image. The image is the inputs one after another behind
 * a header naming them, so a test can see what was linked.
 *
 * The log buffers (CU_JIT_INFO_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER) are
 * left empty strings and CU_JIT_WALL_TIME 0 ms: there is nothing to report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simgpu.h"

#define SG_LINK_MAGIC 0x4c4e4b31
#define SG_LINK_HEADER "simgpu linked image\n"

struct CUlinkState_st {
	uint32_t magic;
	unsigned char *in;	/* the header, then each input */
	size_t n, cap;
	unsigned int inputs;
	void *image;		/* cuLinkComplete's, freed by cuLinkDestroy */
};

static CUresult sg_link_put(struct CUlinkState_st *l, const void *p, size_t n)
{
	if (l->n + n > l->cap) {
		size_t cap = (l->n + n) * 2;
		unsigned char *m = realloc(l->in, cap);

		if (!m)
			return CUDA_ERROR_OUT_OF_MEMORY;
		l->in = m;
		l->cap = cap;
	}
	memcpy(l->in + l->n, p, n);
	l->n += n;
	return CUDA_SUCCESS;
}

/* The output options of cuLinkCreate: empty logs, no time spent. */
static void sg_link_outputs(unsigned int num, const CUjit_option *opt, void **val)
{
	for (unsigned int i = 0; i < num; i++) {
		switch (opt[i]) {
		case CU_JIT_INFO_LOG_BUFFER:
		case CU_JIT_ERROR_LOG_BUFFER:
			if (val[i])
				*(char *)val[i] = 0;
			break;
		case CU_JIT_WALL_TIME: {
			float ms = 0;

			memcpy(&val[i], &ms, sizeof(ms));
			break;
		}
		default:
			break;
		}
	}
}

SG_API CUresult cuLinkCreate_v2(unsigned int numOptions, CUjit_option *options, void **optionValues,
				CUlinkState *stateOut)
{
	SG_GATE();
	struct CUlinkState_st *l;
	struct CUctx_st *ctx;
	CUresult rc = simgpu_ctx_get(&ctx);

	if (rc)
		return rc;
	if (!stateOut || (numOptions && (!options || !optionValues)))
		return CUDA_ERROR_INVALID_VALUE;
	for (unsigned int i = 0; i < numOptions; i++)
		if ((int)options[i] < 0 || options[i] >= CU_JIT_NUM_OPTIONS)
			return CUDA_ERROR_INVALID_VALUE;
	l = calloc(1, sizeof(*l));
	if (!l)
		return CUDA_ERROR_OUT_OF_MEMORY;
	l->magic = SG_LINK_MAGIC;
	if (sg_link_put(l, SG_LINK_HEADER, strlen(SG_LINK_HEADER))) {
		free(l);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	sg_link_outputs(numOptions, options, optionValues);
	*stateOut = l;
	return CUDA_SUCCESS;
}

SG_API CUresult cuLinkCreate(unsigned int numOptions, CUjit_option *options, void **optionValues,
			     CUlinkState *stateOut)
{
	SG_GATE();
	return cuLinkCreate_v2(numOptions, options, optionValues, stateOut);
}

static int sg_link_ok(CUlinkState l)
{
	return l && l->magic == SG_LINK_MAGIC;
}

/* cuLinkAddData and cuLinkAddFile "accept only compiler options ... and
 * do not accept any of CU_JIT_WALL_TIME, CU_JIT_INFO_LOG_BUFFER,
 * CU_JIT_ERROR_LOG_BUFFER, CU_JIT_TARGET_FROM_CUCONTEXT, or
 * CU_JIT_TARGET": those are CUDA_ERROR_INVALID_VALUE. */
static int sg_link_input_opts_ok(unsigned int num, const CUjit_option *opt)
{
	for (unsigned int i = 0; i < num; i++) {
		switch (opt[i]) {
		case CU_JIT_WALL_TIME:
		case CU_JIT_INFO_LOG_BUFFER:
		case CU_JIT_ERROR_LOG_BUFFER:
		case CU_JIT_TARGET_FROM_CUCONTEXT:
		case CU_JIT_TARGET:
			return 0;
		default:
			if ((int)opt[i] < 0 || opt[i] >= CU_JIT_NUM_OPTIONS)
				return 0;
		}
	}
	return 1;
}

SG_API CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data, size_t size,
				 const char *name, unsigned int numOptions, CUjit_option *options,
				 void **optionValues)
{
	SG_GATE();
	char line[160];
	CUresult rc;

	(void)optionValues;
	SG_INIT_CHECK();
	if (!sg_link_ok(state))
		return CUDA_ERROR_INVALID_HANDLE;
	if (!data || !size || (int)type < 0 || type >= CU_JIT_NUM_INPUT_TYPES ||
	    (numOptions && !options) || !sg_link_input_opts_ok(numOptions, options))
		return CUDA_ERROR_INVALID_VALUE;
	/* "PTX must be NULL-terminated." */
	if (type == CU_JIT_INPUT_PTX && !memchr(data, 0, size))
		return CUDA_ERROR_INVALID_PTX;
	snprintf(line, sizeof(line), "input %u type %d size %zu name %.80s\n",
		 state->inputs, (int)type, size, name ? name : "");
	rc = sg_link_put(state, line, strlen(line));
	if (!rc)
		rc = sg_link_put(state, data, size);
	if (!rc)
		state->inputs++;
	return rc;
}

SG_API CUresult cuLinkAddData(CUlinkState state, CUjitInputType type, void *data, size_t size,
			      const char *name, unsigned int numOptions, CUjit_option *options,
			      void **optionValues)
{
	SG_GATE();
	return cuLinkAddData_v2(state, type, data, size, name, numOptions, options, optionValues);
}

/* "equivalent to invoking cuLinkAddData on the contents of the file" */
SG_API CUresult cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char *path,
				 unsigned int numOptions, CUjit_option *options, void **optionValues)
{
	SG_GATE();
	FILE *f;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	CUresult rc;

	SG_INIT_CHECK();
	if (!sg_link_ok(state))
		return CUDA_ERROR_INVALID_HANDLE;
	if (!path)
		return CUDA_ERROR_INVALID_VALUE;
	f = fopen(path, "rb");
	if (!f)
		return CUDA_ERROR_FILE_NOT_FOUND;
	for (;;) {
		if (n + 1 >= cap) {
			char *m = realloc(buf, cap = cap ? cap * 2 : 65536);

			if (!m) {
				free(buf);
				fclose(f);
				return CUDA_ERROR_OUT_OF_MEMORY;
			}
			buf = m;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);

		if (!got)
			break;
		n += got;
	}
	fclose(f);
	buf[n] = 0;	/* a PTX file ends with its text: terminate it */
	rc = cuLinkAddData_v2(state, type, buf, type == CU_JIT_INPUT_PTX ? n + 1 : n, path,
			      numOptions, options, optionValues);
	free(buf);
	return rc;
}

SG_API CUresult cuLinkAddFile(CUlinkState state, CUjitInputType type, const char *path,
			      unsigned int numOptions, CUjit_option *options, void **optionValues)
{
	SG_GATE();
	return cuLinkAddFile_v2(state, type, path, numOptions, options, optionValues);
}

SG_API CUresult cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut)
{
	SG_GATE();
	void *img;

	SG_INIT_CHECK();
	if (!sg_link_ok(state))
		return CUDA_ERROR_INVALID_HANDLE;
	if (!cubinOut)
		return CUDA_ERROR_INVALID_VALUE;
	/* A fresh image each time; the last one stays the state's. */
	img = malloc(state->n);
	if (!img)
		return CUDA_ERROR_OUT_OF_MEMORY;
	memcpy(img, state->in, state->n);
	free(state->image);
	state->image = img;
	*cubinOut = img;
	if (sizeOut)
		*sizeOut = state->n;
	return CUDA_SUCCESS;
}

SG_API CUresult cuLinkDestroy(CUlinkState state)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!sg_link_ok(state))
		return CUDA_ERROR_INVALID_HANDLE;
	state->magic = 0;
	free(state->image);
	free(state->in);
	free(state);
	return CUDA_SUCCESS;
}
