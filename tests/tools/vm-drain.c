// SPDX-License-Identifier: GPL-2.0
/*
 * vm-drain TTY...: wait until everything written to each serial port has
 * left it (tcdrain), for the test VM's init before it powers off: a line
 * still in the UART driver's buffer at power-off never reaches the host,
 * which then sees a script that stopped before its exit marker.
 * Exit status 0, or 1 naming the port that failed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <termios.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int i, fd, ret = 0;

	for (i = 1; i < argc; i++) {
		fd = open(argv[i], O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd < 0 || tcdrain(fd)) {
			fprintf(stderr, "vm-drain: %s: %s\n", argv[i], strerror(errno));
			ret = 1;
		}
		if (fd >= 0)
			close(fd);
	}
	return ret;
}
