// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-ctl: drive NVIDIA's checkpoint API (cuCheckpointProcess*) on a
 * process, as cuda-checkpoint does, and print what each step answered,
 * the state after it and how long it took:
 *   "lock CUDA_SUCCESS state locked ms 0.123"
 * Exit 0 when every step succeeded, 1 when one failed, 2 on usage.
 *
 *   ckpt-ctl PID STEP[,STEP...]
 *   state | tid | lock [MS] | checkpoint | restore [OLDUUID=NEWUUID ...] |
 *   unlock | suspend [MS] (lock, checkpoint) | resume (restore, unlock)
 *   ckpt-ctl PID errors     the documented argument errors, one line each
 *
 * It loads libcuda.so.1 with dlopen and needs no cuInit (the reference
 * asks for it only with custom storage).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda.h>

static CUresult (*get_state)(int, CUprocessState *);
static CUresult (*get_tid)(int, int *);
static CUresult (*do_lock)(int, CUcheckpointLockArgs *);
static CUresult (*do_ckpt)(int, CUcheckpointCheckpointArgs *);
static CUresult (*do_restore)(int, CUcheckpointRestoreArgs *);
static CUresult (*do_unlock)(int, CUcheckpointUnlockArgs *);
static CUresult (*err_name)(CUresult, const char **);

static const char *state_name(CUprocessState s)
{
	static const char *const n[] = { "running", "locked", "checkpointed", "failed",
					 "checkpointing", "restoring" };

	return (unsigned int)s < 6 ? n[s] : "unknown";
}

static const char *rc_name(CUresult rc)
{
	const char *s = NULL;

	return err_name(rc, &s) == CUDA_SUCCESS && s ? s : "CUDA_ERROR_?";
}

static int load(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW);

	if (!h) {
		fprintf(stderr, "ckpt-ctl: %s\n", dlerror());
		return -1;
	}
	*(void **)&get_state = dlsym(h, "cuCheckpointProcessGetState");
	*(void **)&get_tid = dlsym(h, "cuCheckpointProcessGetRestoreThreadId");
	*(void **)&do_lock = dlsym(h, "cuCheckpointProcessLock");
	*(void **)&do_ckpt = dlsym(h, "cuCheckpointProcessCheckpoint");
	*(void **)&do_restore = dlsym(h, "cuCheckpointProcessRestore");
	*(void **)&do_unlock = dlsym(h, "cuCheckpointProcessUnlock");
	*(void **)&err_name = dlsym(h, "cuGetErrorName");
	if (!get_state || !get_tid || !do_lock || !do_ckpt || !do_restore || !do_unlock ||
	    !err_name) {
		fprintf(stderr, "ckpt-ctl: libcuda.so.1 lacks the checkpoint API\n");
		return -1;
	}
	return 0;
}

static int uuid_arg(const char *s, CUuuid *u)
{
	int n = 0;

	if (strncmp(s, "GPU-", 4))
		return -1;
	for (s += 4; *s && n < 32; s++) {
		unsigned int v;

		if (*s == '-')
			continue;
		if (sscanf(s, "%1x", &v) != 1)
			return -1;
		u->bytes[n / 2] = (char)((n % 2) ? (u->bytes[n / 2] | v) : (v << 4));
		n++;
	}
	return n == 32 && (!*s || *s == '=' || *s == ',') ? 0 : -1;
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1e3 + (t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* One step, its arguments in a[1..n-1]; prints its line. */
static CUresult step(int pid, char **a, int n)
{
	CUcheckpointLockArgs la = { 0 };
	CUcheckpointRestoreArgs ra = { 0 };
	CUcheckpointGpuPair pairs[16];
	CUprocessState st = CU_PROCESS_STATE_FAILED;
	struct timespec t0;
	CUresult rc = CUDA_ERROR_INVALID_VALUE;
	int tid = 0, np = 0;
	const char *op = a[0];

	la.timeoutMs = n > 1 ? (unsigned int)strtoul(a[1], NULL, 0) : 0;
	for (int i = 1; i < n && !strcmp(op, "restore") && np < 16; i++, np++) {
		const char *eq = strchr(a[i], '=');

		if (!eq || uuid_arg(a[i], &pairs[np].oldUuid) ||
		    uuid_arg(eq + 1, &pairs[np].newUuid))
			return (CUresult)-1;
	}
	ra.gpuPairs = np ? pairs : NULL;
	ra.gpuPairsCount = (unsigned int)np;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!strcmp(op, "state"))
		rc = get_state(pid, &st);
	else if (!strcmp(op, "tid"))
		rc = get_tid(pid, &tid);
	else if (!strcmp(op, "lock"))
		rc = do_lock(pid, &la);
	else if (!strcmp(op, "checkpoint"))
		rc = do_ckpt(pid, NULL);
	else if (!strcmp(op, "restore"))
		rc = do_restore(pid, &ra);
	else if (!strcmp(op, "unlock"))
		rc = do_unlock(pid, NULL);
	else
		return (CUresult)-1;
	double ms = ms_since(&t0);

	if (strcmp(op, "state"))
		get_state(pid, &st);
	printf("%s %s state %s ms %.3f", op, rc_name(rc), state_name(st), ms);
	if (!strcmp(op, "tid"))
		printf(" tid %d", tid);
	printf("\n");
	return rc;
}

/* The argument errors the reference documents, each "NAME got X want Y". */
static int errors(int pid)
{
	CUcheckpointLockArgs la = { .reserved0 = 1 };
	CUcheckpointUnlockArgs ua = { .reserved = { 1 } };
	CUcheckpointRestoreArgs ra = { .gpuPairsCount = 1 };
	CUcheckpointCheckpointArgs ca = { .reserved = { 1 } };
	CUprocessState st;
	struct { const char *what; CUresult got, want; } t[] = {
		{ "state NULL", get_state(pid, NULL), CUDA_ERROR_INVALID_VALUE },
		{ "tid NULL", get_tid(pid, NULL), CUDA_ERROR_INVALID_VALUE },
		{ "lock reserved0", do_lock(pid, &la), CUDA_ERROR_INVALID_VALUE },
		{ "checkpoint reserved", do_ckpt(pid, &ca), CUDA_ERROR_INVALID_VALUE },
		{ "restore pairs NULL", do_restore(pid, &ra), CUDA_ERROR_INVALID_VALUE },
		{ "unlock reserved", do_unlock(pid, &ua), CUDA_ERROR_INVALID_VALUE },
		{ "lock pid 0", do_lock(0, NULL), CUDA_ERROR_INVALID_VALUE },
		{ "state pid -1", get_state(-1, &st), CUDA_ERROR_INVALID_VALUE },
	};
	int bad = 0;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		printf("%s got %s want %s\n", t[i].what, rc_name(t[i].got), rc_name(t[i].want));
		bad |= t[i].got != t[i].want;
	}
	return bad;
}

int main(int argc, char **argv)
{
	int pid, start = 2, status = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3 || load())
		return 2;
	pid = atoi(argv[1]);
	if (!strcmp(argv[2], "errors"))
		return errors(pid);
	for (int i = 2; i <= argc; i++) {
		char *one[] = { NULL, NULL };
		CUresult rc;

		if (i < argc && strcmp(argv[i], ","))
			continue;
		if (i == start) {
			start = i + 1;
			continue;
		}
		/* suspend and resume: the two steps each stands for */
		if (!strcmp(argv[start], "suspend") || !strcmp(argv[start], "resume")) {
			int sus = argv[start][0] == 's';

			one[0] = sus ? "lock" : "restore";
			argv[start] = one[0];
			rc = step(pid, &argv[start], i - start);
			if (rc == CUDA_SUCCESS) {
				one[0] = sus ? "checkpoint" : "unlock";
				rc = step(pid, one, 1);
			}
		} else {
			rc = step(pid, &argv[start], i - start);
		}
		if (rc == (CUresult)-1) {
			fprintf(stderr, "ckpt-ctl: bad step: %s\n", argv[start]);
			return 2;
		}
		status |= rc != CUDA_SUCCESS;
		if (rc)
			break;
		start = i + 1;
	}
	return status;
}
