// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of every vgpuctl command: error lines, the privilege check, the
 * open-send-report sequence, and the stop signals of the long-running ones.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <signal.h>
#include <sys/capability.h>
#include <sys/signalfd.h>

#include "print.h"
#include "../vgpuctl.h"

/* Tries of a dump that keeps being interrupted by concurrent changes. */
#define VGPU_DUMP_TRIES	5

/* "FILE:LINE" of the configuration record being read, or "" (conf.c). */
static char error_where[4200];

/**
 * vgpuctl_error_where() - name a file and line in the error lines that follow
 * @file: the file, or NULL to stop naming one
 * @line: its line
 */
void vgpuctl_error_where(const char *file, unsigned int line)
{
	if (file)
		snprintf(error_where, sizeof(error_where), "%s:%u: ", file, line);
	else
		error_where[0] = '\0';
}

static void verror(const char *fmt, va_list ap)
{
	fputs("Error: ", stderr);
	fputs(error_where, stderr);
	vfprintf(stderr, fmt, ap);
	fputs(".\n", stderr);
}

/**
 * vgpuctl_usage_error() - report a bad command line
 * @fmt: the problem, without "Error: " and the final period
 *
 * Return: VGPU_EXIT_USAGE.
 */
int vgpuctl_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(fmt, ap);
	va_end(ap);
	return VGPU_EXIT_USAGE;
}

/**
 * vgpuctl_error() - report a runtime failure
 * @fmt: the problem, without "Error: " and the final period
 *
 * Return: VGPU_EXIT_ERR.
 */
int vgpuctl_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(fmt, ap);
	va_end(ap);
	return VGPU_EXIT_ERR;
}

/**
 * vgpuctl_stop_signals() - take SIGINT and SIGTERM through a descriptor
 * @sfd: out: a signalfd that becomes readable when one arrives
 *
 * The signals are blocked: arriving as data, they leave libnl's calls
 * alone (it retries on EINTR), and a long-running command polls @sfd.
 *
 * Return: VGPU_EXIT_OK, or the exit status after an error line.
 */
int vgpuctl_stop_signals(int *sfd)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		return vgpuctl_error("sigprocmask: %s", strerror(errno));
	*sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (*sfd < 0)
		return vgpuctl_error("signalfd: %s", strerror(errno));
	return VGPU_EXIT_OK;
}

/** vgpuctl_is_help() - whether the next argument asks for help. */
bool vgpuctl_is_help(int argc, char **argv)
{
	return argc > 0 && (!strcmp(argv[0], "help") ||
			    !strcmp(argv[0], "-h") || !strcmp(argv[0], "--help"));
}

/** vgpuctl_has_admin() - whether CAP_NET_ADMIN is effective. */
bool vgpuctl_has_admin(void)
{
	cap_flag_value_t v = CAP_CLEAR;
	cap_t caps = cap_get_proc();

	if (!caps)
		return false;
	if (cap_get_flag(caps, CAP_NET_ADMIN, CAP_EFFECTIVE, &v))
		v = CAP_CLEAR;
	cap_free(caps);
	return v == CAP_SET;
}

/**
 * vgpuctl_need_admin() - check CAP_NET_ADMIN before a mutation is sent
 *
 * The kernel checks too (GENL_ADMIN_PERM); this gives a clear message
 * without a round trip.
 *
 * Return: 0 when the capability is effective, else VGPU_EXIT_ERR after
 * printing why.
 */
int vgpuctl_need_admin(void)
{
	cap_flag_value_t v = CAP_CLEAR;
	cap_t caps = cap_get_proc();

	if (!caps)
		return vgpuctl_error("cannot read the process capabilities: %s",
				     strerror(errno));
	if (cap_get_flag(caps, CAP_NET_ADMIN, CAP_EFFECTIVE, &v))
		v = CAP_CLEAR;
	cap_free(caps);
	if (v != CAP_SET)
		return vgpuctl_error("this command needs CAP_NET_ADMIN (run it as root)");
	return 0;
}

/**
 * vgpuctl_open() - open the netlink handle, reporting a failure
 * @nl: the handle
 *
 * Return: 0 or VGPU_EXIT_ERR.
 */
int vgpuctl_open(struct vgpu_nl *nl)
{
	int err = vgpuctl_nl_open(nl);

	if (err) {
		vgpuctl_nl_perror(nl, err);
		return VGPU_EXIT_ERR;
	}
	return 0;
}

/**
 * vgpuctl_send() - send a request, reporting a failure
 * @nl: an open handle
 * @msg: the request (freed)
 * @fn: reply handler or NULL
 * @arg: its argument
 *
 * Return: 0 or VGPU_EXIT_ERR.
 */
int vgpuctl_send(struct vgpu_nl *nl, struct nl_msg *msg,
		 vgpu_nl_reply_fn fn, void *arg)
{
	int err;

	if (!msg)
		return vgpuctl_error("%s", strerror(ENOMEM));
	err = vgpuctl_nl_request(nl, msg, fn, arg);
	if (err) {
		vgpuctl_nl_perror(nl, err);
		return VGPU_EXIT_ERR;
	}
	return 0;
}

/**
 * vgpuctl_admin_u32() - send a change that carries a single u32 attribute
 * @cmd: VGPU_CMD_*
 * @attr: the attribute
 * @val: its value
 *
 * Checks CAP_NET_ADMIN first, as every change does.
 *
 * Return: the exit status.
 */
int vgpuctl_admin_u32(uint8_t cmd, int attr, uint32_t val)
{
	struct vgpu_nl nl;
	struct nl_msg *msg;
	int ret = vgpuctl_need_admin();

	if (ret)
		return ret;
	ret = vgpuctl_open(&nl);
	if (ret)
		return ret;
	msg = vgpuctl_nl_msg(&nl, cmd, false);
	if (msg && nla_put_u32(msg, attr, val) < 0) {
		vgpuctl_nl_close(&nl);
		return vgpuctl_put_failed(msg);
	}
	ret = vgpuctl_send(&nl, msg, NULL, NULL);
	vgpuctl_nl_close(&nl);
	return ret;
}

/**
 * vgpuctl_put_failed() - report that a request did not fit its buffer
 * @msg: the request (freed)
 *
 * Return: VGPU_EXIT_ERR.
 */
int vgpuctl_put_failed(struct nl_msg *msg)
{
	nlmsg_free(msg);
	return vgpuctl_error("the request does not fit in a netlink message");
}

/* One try of a show request; its output goes to @f. */
static int show_once(struct vgpu_nl *nl, FILE *f, const struct vgpu_show_req *r)
{
	struct nl_msg *msg = vgpuctl_nl_msg(nl, r->cmd, r->dump);
	int err;

	if (!msg)
		return -ENOMEM;
	if (r->put && r->put(msg, r->parg) < 0) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	vgpuctl_print_set_file(f);
	if (!r->single)
		vgpuctl_print_list_open();
	err = vgpuctl_nl_request(nl, msg, r->fn, r->arg);
	if (r->done)
		r->done(err == 0);
	if (!r->single)
		vgpuctl_print_list_close(err == 0);
	fflush(f);
	vgpuctl_print_set_file(stdout);
	return err;
}

/**
 * vgpuctl_show_run() - run a get request, do or dump, and print its replies
 * @r: the request (see struct vgpu_show_req)
 *
 * The output is held back until the request is over, so that a dump
 * interrupted by a concurrent change (NLM_F_DUMP_INTR) can be retried
 * without printing anything twice. JSON output is one array, unless
 * @r->single.
 *
 * Return: the exit status.
 */
int vgpuctl_show_run(const struct vgpu_show_req *r)
{
	struct vgpu_nl nl;
	char *buf = NULL;
	size_t len = 0;
	int ret, err, try;
	FILE *f;

	ret = vgpuctl_open(&nl);
	if (ret)
		return ret;
	for (try = 1; ; try++) {
		f = open_memstream(&buf, &len);
		if (!f) {
			vgpuctl_nl_close(&nl);
			return vgpuctl_error("%s", strerror(errno));
		}
		err = show_once(&nl, f, r);
		fclose(f);
		if (err != -EINTR || !r->dump || try == VGPU_DUMP_TRIES)
			break;
		free(buf);
		buf = NULL;
	}
	fwrite(buf, 1, len, stdout);
	fflush(stdout);
	free(buf);
	if (err)
		vgpuctl_nl_perror(&nl, err);
	vgpuctl_nl_close(&nl);
	return err ? VGPU_EXIT_ERR : VGPU_EXIT_OK;
}

/**
 * vgpuctl_show() - vgpuctl_show_run() of a request printed as an array
 * @cmd: VGPU_CMD_GPU_GET or VGPU_CMD_TENANT_GET
 * @dump: NLM_F_DUMP (the whole table) instead of one object
 * @put: adds the request's attributes (NULL for none); < 0 when full
 * @parg: argument of @put
 * @fn: prints one reply
 *
 * Return: the exit status.
 */
int vgpuctl_show(uint8_t cmd, bool dump, vgpu_put_fn put, const void *parg,
		 vgpu_nl_reply_fn fn)
{
	struct vgpu_show_req r = {
		.cmd = cmd, .dump = dump, .put = put, .parg = parg, .fn = fn,
	};

	return vgpuctl_show_run(&r);
}
