// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-bench: suspend and resume time per GiB on simgpu, natively. A child
 * takes SIZE of device memory (cuMemAlloc, every byte written, so that a
 * checkpoint really copies it); the parent, as an operator would, drives
 * NVIDIA's checkpoint API on it ROUNDS times: suspend (lock, checkpoint)
 * and resume (restore, unlock), each timed. Prints
 *
 *   suspend size S rounds R median_ms M per_gib_ms P
 *   resume  size S rounds R median_ms M per_gib_ms P
 *
 * and exits 0 when every step succeeded. ckpt-bench [SIZE_MIB [ROUNDS]]
 * (default 1024 3). Run with libcuda.so.1 being simgpu's.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h>

#define SYM(h, name) ((__typeof__(&name))dlsym(h, #name))

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The child: take the memory, say so, and wait to be told to go. */
static int child(void *h, size_t size, int ready, int done)
{
	CUcontext ctx;
	CUdeviceptr p;
	char c = 1;

	if (SYM(h, cuInit)(0) || SYM(h, cuDevicePrimaryCtxRetain)(&ctx, 0) ||
	    SYM(h, cuCtxSetCurrent)(ctx) || SYM(h, cuMemAlloc_v2)(&p, size) ||
	    SYM(h, cuMemsetD8_v2)(p, 0x5a, size))
		return 1;
	if (write(ready, &c, 1) != 1)
		return 1;
	(void)!read(done, &c, 1);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *what, double *ms, int rounds, size_t mib)
{
	qsort(ms, (size_t)rounds, sizeof(*ms), cmp);
	printf("%-7s size %zuM rounds %d median_ms %.1f per_gib_ms %.1f\n", what, mib, rounds,
	       ms[rounds / 2], ms[rounds / 2] * 1024.0 / (double)mib);
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 1024;
	int rounds = argc > 2 ? atoi(argv[2]) : 3, ready[2], done[2], bad = 0, st;
	double sus[64], res[64];
	void *h = dlopen("libcuda.so.1", RTLD_NOW);
	pid_t pid;
	char c;

	if (!h || !mib || rounds < 1 || rounds > 64 || pipe(ready) || pipe(done)) {
		fprintf(stderr, "usage: ckpt-bench [SIZE_MIB [ROUNDS<=64]] (libcuda.so.1: %s)\n",
			h ? "ok" : dlerror());
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		close(done[1]);
		_exit(child(h, mib << 20, ready[1], done[0]));
	}
	close(ready[1]);
	close(done[0]);
	if (read(ready[0], &c, 1) != 1) {
		fprintf(stderr, "ckpt-bench: the child could not take %zu MiB\n", mib);
		return 1;
	}
	for (int r = 0; r < rounds && !bad; r++) {
		double t0 = now_ms();

		bad = SYM(h, cuCheckpointProcessLock)(pid, NULL) * 1000 +
		      SYM(h, cuCheckpointProcessCheckpoint)(pid, NULL);
		sus[r] = now_ms() - t0;
		t0 = now_ms();
		if (!bad)
			bad = SYM(h, cuCheckpointProcessRestore)(pid, NULL) * 1000 +
			      SYM(h, cuCheckpointProcessUnlock)(pid, NULL);
		res[r] = now_ms() - t0;
	}
	close(done[1]);
	waitpid(pid, &st, 0);
	if (bad || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "ckpt-bench: a step failed (%d: 1000 x the first step's error "
			"+ the second's), or the child (status %d)\n", bad, st);
		return 1;
	}
	report("suspend", sus, rounds, mib);
	report("resume", res, rounds, mib);
	return 0;
}
