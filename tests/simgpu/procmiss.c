// SPDX-License-Identifier: GPL-2.0
/*
 * SIMGPU_TRACE_PROCADDR=trap (a test's tool, nothing NVIDIA documents):
 * a look-up simgpu cannot answer gets, instead of CUDA_ERROR_NOT_FOUND, a
 * stub of its own that, called, names the function on stderr and answers
 * CUDA_ERROR_NOT_SUPPORTED. A runtime that was answered NULL never calls
 * and usually fails later with no trace of why; with the stubs, the first
 * call to a function simgpu lacks is named. The answers differ from the
 * default (a program that tests for NULL takes another path), so this is
 * for finding what a program needs, never for running it.
 *
 * Any return type fits: the stub returns an int in the return register,
 * which every x86-64 and arm64 caller treats as clobbered.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simgpu.h"

#define SG_PM_STUBS 512

static char *sg_pm_names[SG_PM_STUBS];
static int sg_pm_n;
static pthread_mutex_t sg_pm_lk = PTHREAD_MUTEX_INITIALIZER;

static CUresult sg_pm_called(int i)
{
	fprintf(stderr, "simgpu: cuGetProcAddress miss %s called: answered "
		"CUDA_ERROR_NOT_SUPPORTED (SIMGPU_TRACE_PROCADDR=trap)\n", sg_pm_names[i]);
	fflush(stderr);
	return CUDA_ERROR_NOT_SUPPORTED;
}

#define SG_PM_STUB(i) static CUresult sg_pm_stub_##i(void) { return sg_pm_called(i); }
#define SG_PM_8(X, b) X(b##0) X(b##1) X(b##2) X(b##3) X(b##4) X(b##5) X(b##6) X(b##7)
#define SG_PM_64(X, b) SG_PM_8(X, b##0) SG_PM_8(X, b##1) SG_PM_8(X, b##2) SG_PM_8(X, b##3) \
	SG_PM_8(X, b##4) SG_PM_8(X, b##5) SG_PM_8(X, b##6) SG_PM_8(X, b##7)
#define SG_PM_512(X) SG_PM_64(X, 00) SG_PM_64(X, 01) SG_PM_64(X, 02) SG_PM_64(X, 03) \
	SG_PM_64(X, 04) SG_PM_64(X, 05) SG_PM_64(X, 06) SG_PM_64(X, 07)
/* Stub numbers are octal digit strings (0000 .. 0777): the names differ,
 * the index passed is the literal's value, all below 512. */
SG_PM_512(SG_PM_STUB)
#define SG_PM_PTR(i) sg_pm_stub_##i,
static CUresult (*const sg_pm_stubs[SG_PM_STUBS])(void) = { SG_PM_512(SG_PM_PTR) };

/* The stub for SYMBOL (the same one for every look-up of a name), or
 * NULL when every stub is taken. */
void *simgpu_procaddr_miss_stub(const char *symbol)
{
	void *fn = NULL;
	int i;

	pthread_mutex_lock(&sg_pm_lk);
	for (i = 0; i < sg_pm_n && strcmp(sg_pm_names[i], symbol); i++)
		;
	if (i == sg_pm_n && sg_pm_n < SG_PM_STUBS && (sg_pm_names[i] = strdup(symbol)))
		sg_pm_n++;
	if (i < sg_pm_n)
		fn = (void *)sg_pm_stubs[i];
	pthread_mutex_unlock(&sg_pm_lk);
	return fn;
}
