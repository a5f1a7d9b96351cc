// SPDX-License-Identifier: GPL-2.0
/*
 * NVIDIA's real cuBLAS and cuBLASLt (the pinned nvidia-cublas wheel) on
 * simgpu: the calls torch.matmul and torch.nn.Linear reach. One line per
 * step, "<step> ok" or "<step> FAILED <status>", for tests/host/cublas.sh.
 * Kernels compute nothing on simgpu: only the statuses are checked.
 *
 *   cublas-smoke          every step
 */
#include <stdio.h>
#include <string.h>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

static int cs_fails;

static void cs_step(const char *what, int status, int want)
{
	if (status == want) {
		printf("%s ok\n", what);
	} else {
		printf("%s FAILED %d (want %d)\n", what, status, want);
		cs_fails++;
	}
	fflush(stdout);
}

#define N 64

/* cublasCreate, cublasSgemm of N x N matrices, and the documented
 * refusal of a negative m. */
static void cs_blas(float *a, float *b, float *c)
{
	const float one = 1.0f, zero = 0.0f;
	cublasHandle_t h;
	int st = cublasCreate(&h);

	cs_step("cublas-create", st, CUBLAS_STATUS_SUCCESS);
	if (st)
		return;
	cs_step("sgemm", cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, a, N, b, N,
				     &zero, c, N), CUBLAS_STATUS_SUCCESS);
	/* cuBLAS reference, cublas<t>gemm(): CUBLAS_STATUS_INVALID_VALUE
	 * "if m < 0 or n < 0 or k < 0". */
	cs_step("sgemm-negative-m", cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, -1, N, N, &one, a, N,
						b, N, &zero, c, N), CUBLAS_STATUS_INVALID_VALUE);
	cs_step("blas-sync", cudaDeviceSynchronize(), cudaSuccess);
	cs_step("cublas-destroy", cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}

/* cublasLtMatmul of N x N FP32 matrices, as torch's addmm takes it. */
static void cs_lt(float *a, float *b, float *c)
{
	const float one = 1.0f, zero = 0.0f;
	cublasLtHandle_t lt;
	cublasLtMatmulDesc_t op = NULL;
	cublasLtMatrixLayout_t la = NULL, lb = NULL, lc = NULL;
	int st = cublasLtCreate(&lt);

	cs_step("lt-create", st, CUBLAS_STATUS_SUCCESS);
	if (st)
		return;
	cs_step("lt-desc", cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F),
		CUBLAS_STATUS_SUCCESS);
	cs_step("lt-layouts", cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, N, N, N) ||
		cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, N, N, N) ||
		cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, N, N, N), CUBLAS_STATUS_SUCCESS);
	if (op && la && lb && lc)
		cs_step("lt-matmul", cublasLtMatmul(lt, op, &one, a, la, b, lb, &zero, c, lc, c, lc,
						    NULL, NULL, 0, 0), CUBLAS_STATUS_SUCCESS);
	cs_step("lt-sync", cudaDeviceSynchronize(), cudaSuccess);
	cublasLtMatrixLayoutDestroy(la);
	cublasLtMatrixLayoutDestroy(lb);
	cublasLtMatrixLayoutDestroy(lc);
	cublasLtMatmulDescDestroy(op);
	cs_step("lt-destroy", cublasLtDestroy(lt), CUBLAS_STATUS_SUCCESS);
}

int main(void)
{
	float *a = NULL, *b = NULL, *c = NULL;
	size_t bytes = sizeof(float) * N * N;

	cs_step("malloc", cudaMalloc((void **)&a, bytes) || cudaMalloc((void **)&b, bytes) ||
		cudaMalloc((void **)&c, bytes), cudaSuccess);
	if (cs_fails)
		return 1;
	cs_blas(a, b, c);
	cs_lt(a, b, c);
	cudaFree(a);
	cudaFree(b);
	cudaFree(c);
	if (!cs_fails)
		printf("cublas_smoke ok\n");
	return cs_fails ? 1 : 0;
}
