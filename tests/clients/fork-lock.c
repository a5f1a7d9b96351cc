// SPDX-License-Identifier: GPL-2.0
/*
 * fork-lock DIR: fork while another thread is inside libvgpu holding one
 * of its locks (issue 28, finding 5), and use the same lock in the child.
 *
 * The parent allocates from the device's default pool (libvgpu keeps a
 * record of the pool's charge), then a second thread calls
 * cuMemPoolTrimTo: libvgpu re-reads the pool's reservation under its pool
 * lock, and simgpu, told to by SIMGPU_PAUSE_IN=cuMemPoolGetAttribute,
 * pauses inside that call until DIR/release exists (it marks the pause
 * with DIR/release.paused). While it is paused the parent forks; the child
 * clears the pause, sets a 10 s alarm and allocates from its default pool,
 * which takes the same lock (the allocation only: see pool_alloc). Then
 * the parent releases the thread. Lines:
 *
 *   parent alloc ok
 *   paused
 *   child ok | child failed (RC) |
 *     child stuck in CALL + child hung: killed by SIGALRM after 10 s
 *   thread ok | thread failed (RC)
 *
 * Exit status 0 when the child and the thread are ok. Needs a registered
 * process in a tenant (the VM suite 77-forklock): outside, libvgpu keeps
 * no pool record and the lock is never held across the driver call.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuload.h"
#include "waitfile.h"

#define FL_CHILD_S 10

static CUcontext fl_ctx;
static CUmemoryPool fl_pool;

static void *trimmer(void *arg)
{
	CUresult rc = cu.cuCtxSetCurrent(fl_ctx);

	(void)arg;
	if (!rc)
		rc = cu.cuMemPoolTrimTo(fl_pool, 0);	/* pauses under libvgpu's pool lock */
	return (void *)(uintptr_t)rc;
}

/* The step a child is at, said when its alarm kills it. */
static const char *volatile fl_step = "start";

/*
 * One allocation from the default pool of device 0; the parent's is freed
 * again (free: 1). The child stops at the allocation, which is what takes
 * libvgpu's pool lock: simgpu's streams do not run in a forked child (their
 * worker threads were the parent's), as NVIDIA's driver does not let a
 * child use the CUDA state its parent made, so the child neither
 * synchronises nor frees; its exit gives everything back.
 */
static CUresult pool_alloc(CUcontext *ctx, CUmemoryPool *pool, int free)
{
	CUdevice dev;
	CUdeviceptr p;
	CUresult rc;

	fl_step = "cuInit";
	rc = cu.cuInit(0);
	if (!rc)
		rc = cu.cuDeviceGet(&dev, 0);
	fl_step = "cuDevicePrimaryCtxRetain";
	if (!rc)
		rc = cu.cuDevicePrimaryCtxRetain(ctx, dev);
	fl_step = "cuCtxSetCurrent";
	if (!rc)
		rc = cu.cuCtxSetCurrent(*ctx);
	fl_step = "cuDeviceGetDefaultMemPool";
	if (!rc)
		rc = cu.cuDeviceGetDefaultMemPool(pool, dev);
	fl_step = "cuMemAllocFromPoolAsync";
	if (!rc)
		rc = cu.cuMemAllocFromPoolAsync(&p, 1 << 20, *pool, NULL);
	if (rc || !free)
		return rc;
	fl_step = "cuStreamSynchronize";
	if (!rc)
		rc = cu.cuStreamSynchronize(NULL);
	fl_step = "cuMemFreeAsync";
	if (!rc)
		rc = cu.cuMemFreeAsync(p, NULL);
	fl_step = "cuStreamSynchronize";
	if (!rc)
		rc = cu.cuStreamSynchronize(NULL);
	return rc;
}

/* The alarm: say where the child was stuck (write(2) only), then die of it. */
static void stuck(int sig)
{
	const char *s = fl_step;
	size_t n = 0;

	while (s[n])
		n++;
	if (write(1, "child stuck in ", 15) < 0 || write(1, s, n) < 0 || write(1, "\n", 1) < 0)
		_exit(3);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void child(void)
{
	CUcontext c;
	CUmemoryPool pool;
	CUresult rc;

	unsetenv("SIMGPU_PAUSE_IN");
	signal(SIGALRM, stuck);
	alarm(FL_CHILD_S);	/* a child stuck on a lock dies of it */
	rc = pool_alloc(&c, &pool, 0);
	if (rc)
		printf("child failed (%s)\n", cu_err(rc));
	else
		printf("child ok\n");
	fflush(stdout);
	_exit(rc != 0);
}

int main(int argc, char **argv)
{
	char release[4096], paused[4096];
	pthread_t t;
	void *trc;
	CUresult rc;
	int st, bad = 0;
	pid_t pid;

	if (argc != 2) {
		fprintf(stderr, "usage: fork-lock DIR\n");
		return 2;
	}
	snprintf(release, sizeof(release), "%s/release", argv[1]);
	snprintf(paused, sizeof(paused), "%s/release.paused", argv[1]);
	if (cu_load(1))
		return 1;
	rc = pool_alloc(&fl_ctx, &fl_pool, 1);
	if (rc) {
		printf("parent alloc failed (%s)\n", cu_err(rc));
		return 1;
	}
	printf("parent alloc ok\n");
	setenv("SIMGPU_PAUSE_FILE", release, 1);
	setenv("SIMGPU_PAUSE_IN", "cuMemPoolGetAttribute", 1);
	if (pthread_create(&t, NULL, trimmer, NULL))
		return 1;
	client_pause(paused);
	printf("paused\n");
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		child();
	if (pid < 0 || waitpid(pid, &st, 0) != pid) {
		bad = 1;
	} else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) {
		printf("child hung: killed by SIGALRM after %d s\n", FL_CHILD_S);
		bad = 1;
	} else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		bad = 1;
	}
	fclose(fopen(release, "w"));
	pthread_join(t, &trc);
	rc = (CUresult)(uintptr_t)trc;
	if (rc)
		printf("thread failed (%s)\n", cu_err(rc));
	else
		printf("thread ok\n");
	return bad || rc;
}
