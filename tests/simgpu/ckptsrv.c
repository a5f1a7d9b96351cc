// SPDX-License-Identifier: GPL-2.0
/*
 * The process's side of the checkpoint API. NVIDIA's driver acts on a
 * process named by pid from another process (its CUDA "restore thread",
 * cuCheckpointProcessGetRestoreThreadId, does the work inside it); simgpu
 * stands for that with a thread started at cuInit that serves a socket
 * (ckptpath.c) and runs each request inside this process, where the
 * memory and the call gate (gate.c) are. It keeps the process state of
 * CUprocessState and its transitions as the driver API reference
 * ("CUDA Checkpointing") gives them:
 *   RUNNING -lock-> LOCKED -checkpoint-> CHECKPOINTED -restore-> LOCKED
 *   -unlock-> RUNNING; any other request is CUDA_ERROR_ILLEGAL_STATE.
 * Only root or the process's own user may ask (the driver needs ptrace
 * rights; NVIDIA's tool answers "OS call failed" without them).
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "ckpt.h"

static atomic_int state = CU_PROCESS_STATE_RUNNING;
static atomic_int srv_tid;
static pthread_mutex_t op_lk = PTHREAD_MUTEX_INITIALIZER;	/* one transition at a time */
static char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static pid_t owner;	/* getpid() of the process that made the socket */

static CUresult do_lock(unsigned int timeout_ms)
{
	if (atomic_load(&state) != CU_PROCESS_STATE_RUNNING)
		return CUDA_ERROR_ILLEGAL_STATE;
	/* "If timeoutMs is specified and the timeout is reached the
	 * process will be left in the RUNNING state". */
	if (simgpu_gate_lock(timeout_ms))
		return CUDA_ERROR_NOT_READY;
	atomic_store(&state, CU_PROCESS_STATE_LOCKED);
	return CUDA_SUCCESS;
}

static CUresult do_checkpoint(void)
{
	CUresult rc;

	if (atomic_load(&state) != CU_PROCESS_STATE_LOCKED)
		return CUDA_ERROR_ILLEGAL_STATE;
	atomic_store(&state, CU_PROCESS_STATE_CHECKPOINTING);
	rc = simgpu_ckpt_save();
	/* A refusal changes nothing: the process stays locked, intact. */
	atomic_store(&state, rc ? CU_PROCESS_STATE_LOCKED : CU_PROCESS_STATE_CHECKPOINTED);
	return rc;
}

static CUresult do_restore(const struct sg_ckpt_req *req)
{
	CUresult rc;

	if (atomic_load(&state) != CU_PROCESS_STATE_CHECKPOINTED)
		return CUDA_ERROR_ILLEGAL_STATE;
	atomic_store(&state, CU_PROCESS_STATE_RESTORING);
	rc = simgpu_ckpt_load(req->pairs, req->npairs);
	/* Out of memory and bad pairs leave it checkpointed, whole. */
	atomic_store(&state, rc ? CU_PROCESS_STATE_CHECKPOINTED : CU_PROCESS_STATE_LOCKED);
	return rc;
}

static CUresult do_unlock(void)
{
	if (atomic_load(&state) != CU_PROCESS_STATE_LOCKED)
		return CUDA_ERROR_ILLEGAL_STATE;
	simgpu_gate_unlock();
	atomic_store(&state, CU_PROCESS_STATE_RUNNING);
	return CUDA_SUCCESS;
}

static CUresult serve_one(const struct sg_ckpt_req *req, struct sg_ckpt_rep *rep)
{
	CUresult rc;

	if (req->magic != SG_CKPT_MAGIC || req->npairs > SG_MAX_GPUS)
		return CUDA_ERROR_INVALID_VALUE;
	switch (req->op) {
	case SG_CKPT_STATE:
		return CUDA_SUCCESS;
	case SG_CKPT_TID:
		rep->tid = atomic_load(&srv_tid);
		return CUDA_SUCCESS;
	case SG_CKPT_LOCK:
	case SG_CKPT_CHECKPOINT:
	case SG_CKPT_RESTORE:
	case SG_CKPT_UNLOCK:
		break;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&op_lk);
	if (req->op == SG_CKPT_LOCK)
		rc = do_lock(req->timeout_ms);
	else if (req->op == SG_CKPT_CHECKPOINT)
		rc = do_checkpoint();
	else if (req->op == SG_CKPT_RESTORE)
		rc = do_restore(req);
	else
		rc = do_unlock();
	pthread_mutex_unlock(&op_lk);
	return rc;
}

/* One connection: its own thread, so that a state query is answered
 * while a lock waits for calls in progress. */
static void *conn_main(void *arg)
{
	int fd = (int)(intptr_t)arg;
	struct sg_ckpt_req req;
	struct sg_ckpt_rep rep = { 0 };
	struct ucred cred;
	socklen_t clen = sizeof(cred);

	simgpu_gate_inside();
	rep.state = CU_PROCESS_STATE_FAILED;	/* told to no one without rights */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) ||
	    (cred.uid != 0 && cred.uid != geteuid())) {
		rep.result = CUDA_ERROR_OPERATING_SYSTEM;
	} else {
		if (recv(fd, &req, sizeof(req), MSG_WAITALL) != (ssize_t)sizeof(req))
			rep.result = CUDA_ERROR_INVALID_VALUE;
		else
			rep.result = serve_one(&req, &rep);
		rep.state = atomic_load(&state);
	}
	(void)!send(fd, &rep, sizeof(rep), MSG_NOSIGNAL);
	close(fd);
	return NULL;
}

static void *srv_main(void *arg)
{
	int lfd = (int)(intptr_t)arg;

	simgpu_gate_inside();
	atomic_store(&srv_tid, (int)syscall(SYS_gettid));
	for (;;) {
		pthread_attr_t a;
		pthread_t t;
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return NULL;
		}
		pthread_attr_init(&a);
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&t, &a, conn_main, (void *)(intptr_t)fd))
			close(fd);
		pthread_attr_destroy(&a);
	}
}

void simgpu_ckpt_serve(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	sigset_t all, old;
	pthread_attr_t a;
	pthread_t t;
	int fd;

	if (simgpu_ckpt_path(simgpu_pid, sock_path, sizeof(sock_path)))
		return;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	memcpy(sa.sun_path, sock_path, strlen(sock_path) + 1);
	unlink(sock_path);	/* a dead process's, whose pid this is now */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || chmod(sock_path, 0600) ||
	    listen(fd, 16)) {
		close(fd);
		return;
	}
	owner = getpid();
	/* The thread takes no signals: they are the application's. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &a, srv_main, (void *)(intptr_t)fd)) {
		close(fd);
		unlink(sock_path);
		owner = 0;
	}
	pthread_attr_destroy(&a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void simgpu_ckpt_stop(void)
{
	if (owner && owner == getpid())
		unlink(sock_path);
}
