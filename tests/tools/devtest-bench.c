// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu-devtest: the registration benchmarks, one process registering N
 * times in a row (bench-register) and N processes at once (parallel).
 */
#include <errno.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "devtest.h"

/**
 * devtest_step_bench_register() - time N registrations in a row
 * @n: how many
 *
 * Each opens /dev/vgpu and a socket, registers, and closes both.
 * Return: 0, or the first step's -errno.
 */
int devtest_step_bench_register(long n)
{
	double t, sum = 0, max = 0;
	long i;
	int err;

	for (i = 0; i < n; i++) {
		err = devtest_step_open();
		if (err)
			return err;
		err = devtest_nl_family();
		if (err)
			return err;
		t = devtest_now_us();
		err = devtest_step_register_fd(devtest_dev_fd, true);
		t = devtest_now_us() - t;
		if (err)
			return err;
		sum += t;
		if (t > max)
			max = t;
		devtest_step_close_socket();
		devtest_step_close_dev();
	}
	printf("bench-register n=%ld avg_us=%.1f max_us=%.1f\n", n, n ? sum / n : 0, max);
	return 0;
}

/**
 * devtest_step_parallel() - N processes register at once
 * @n: how many
 *
 * Forked children register and hold until every one has reported; the
 * host's process count is read before, during and after.
 * Return: 0 when all registered, -EAGAIN otherwise, or a setup -errno.
 */
int devtest_step_parallel(long n)
{
	int res[2], go[2];
	struct vgpu_host_info before = { 0 }, during = { 0 }, after = { 0 };
	double sum = 0, max = 0, t;
	long i, ok = 0;
	int err;

	err = devtest_host_get(&before);
	if (err)
		return err;
	if (pipe(res) || pipe(go))
		return -errno;
	fflush(stdout);
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return -errno;
		if (!pid) {
			char c;

			close(res[0]);
			close(go[1]);
			devtest_step_close_socket();
			devtest_dev_forget();
			err = devtest_step_open();
			if (!err)
				err = devtest_nl_family();
			t = devtest_now_us();
			if (!err)
				err = devtest_step_register_fd(devtest_dev_fd, true);
			t = devtest_now_us() - t;
			if (err)
				t = -1;
			if (write(res[1], &t, sizeof(t)) != sizeof(t))
				_exit(1);
			while (read(go[0], &c, 1) > 0)
				;
			_exit(0);
		}
	}
	close(res[1]);
	close(go[0]);
	for (i = 0; i < n && read(res[0], &t, sizeof(t)) == sizeof(t); i++) {
		if (t < 0)
			continue;
		ok++;
		sum += t;
		if (t > max)
			max = t;
	}
	devtest_host_get(&during);
	close(go[1]);
	close(res[0]);
	while (wait(NULL) > 0)
		;
	devtest_host_get(&after);
	printf("parallel n=%ld ok=%ld avg_us=%.1f max_us=%.1f procs_before=%u procs_during=%u"
	       " procs_after=%u\n", n, ok, ok ? sum / ok : 0, max, before.procs, during.procs,
	       after.procs);
	return ok == n ? 0 : -EAGAIN;
}
