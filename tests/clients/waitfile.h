/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A client's pause: a number is milliseconds of sleep; a path (starting
 * with '/') waits until the test creates that file, so that a test's
 * checks during the pause never race the client's next step.
 */
#ifndef CLIENTS_WAITFILE_H
#define CLIENTS_WAITFILE_H

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static inline void client_pause(const char *arg)
{
	struct timespec ts = { 0, 10000000L };

	if (!arg)
		return;
	if (arg[0] != '/') {
		unsigned long ms = strtoul(arg, NULL, 0);

		ts.tv_sec = (time_t)(ms / 1000);
		ts.tv_nsec = (long)(ms % 1000) * 1000000L;
		nanosleep(&ts, NULL);
		return;
	}
	while (access(arg, F_OK))
		nanosleep(&ts, NULL);
}

#endif
