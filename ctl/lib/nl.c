// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink plumbing shared by vgpuctl and vgpu-nlsend (see nl.h).
 *
 * libnl 3.7 has no extended-ACK API: NETLINK_EXT_ACK and NETLINK_CAP_ACK
 * are set on the socket by hand, and NLMSGERR_ATTR_MSG is read from the
 * error message (or from the NLMSG_DONE of a failed dump) here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include "../../uapi/vgpu.h"
#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

/* State of one request while its replies are read. */
struct vgpu_nl_req {
	struct vgpu_nl *nl;
	vgpu_nl_reply_fn fn;
	void *arg;
	bool done;
};

/* The errno behind a libnl error code, for strerror(). */
static int nlerr_to_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case NLE_SUCCESS:	return 0;
	case NLE_INTR:		return EINTR;
	case NLE_BAD_SOCK:	return EBADF;
	case NLE_AGAIN:		return EAGAIN;
	case NLE_NOMEM:		return ENOMEM;
	case NLE_EXIST:		return EEXIST;
	case NLE_INVAL:		return EINVAL;
	case NLE_RANGE:		return ERANGE;
	case NLE_MSGSIZE:	return EMSGSIZE;
	case NLE_OPNOTSUPP:	return EOPNOTSUPP;
	case NLE_AF_NOSUPPORT:	return EAFNOSUPPORT;
	case NLE_OBJ_NOTFOUND:	return ENOENT;
	case NLE_NOATTR:	return ENOENT;
	case NLE_NOACCESS:	return EACCES;
	case NLE_PERM:		return EPERM;
	case NLE_BUSY:		return EBUSY;
	case NLE_PROTO_MISMATCH: return EPROTONOSUPPORT;
	case NLE_NOADDR:	return EADDRNOTAVAIL;
	case NLE_NODEV:		return ENODEV;
	case NLE_DUMP_INTR:	return EINTR;
	}
	return EIO;
}

/* Record a failure that came with no kernel message. */
static int fail(struct vgpu_nl *nl, int err, const char *msg)
{
	nl->error = err;
	snprintf(nl->msg, sizeof(nl->msg), "%s", msg ? msg : "");
	return -err;
}

/*
 * Copy NLMSGERR_ATTR_MSG out of the extended-ACK TLVs of @nlh, which start
 * @offset bytes into the message.
 */
static void read_ext_ack(struct vgpu_nl *nl, struct nlmsghdr *nlh, size_t offset)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	struct nlattr *attrs;
	int len;

	nl->msg[0] = '\0';
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || nlh->nlmsg_len <= offset)
		return;
	attrs = (struct nlattr *)((char *)nlh + offset);
	len = (int)(nlh->nlmsg_len - offset);
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, attrs, len, NULL) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG]) {
		const char *s = nla_data(tb[NLMSGERR_ATTR_MSG]);

		snprintf(nl->msg, sizeof(nl->msg), "%.*s",
			 (int)strnlen(s, (size_t)nla_len(tb[NLMSGERR_ATTR_MSG])), s);
	}
}

static int cb_err(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg)
{
	struct vgpu_nl_req *req = arg;
	struct nlmsghdr *nlh = (struct nlmsghdr *)e - 1;
	size_t offset = NLMSG_HDRLEN + sizeof(*e);

	(void)who;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		offset += NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN;
	req->nl->error = e->error < 0 ? -e->error : e->error;
	read_ext_ack(req->nl, nlh, offset);
	req->done = true;
	return NL_STOP;
}

static int cb_ack(struct nl_msg *msg, void *arg)
{
	struct vgpu_nl_req *req = arg;

	(void)msg;
	req->done = true;
	return NL_STOP;
}

/* NLMSG_DONE ends a dump; a failed dump carries its errno and extack. */
static int cb_finish(struct nl_msg *msg, void *arg)
{
	struct vgpu_nl_req *req = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	int err;

	req->done = true;
	if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int)) {
		memcpy(&err, nlmsg_data(nlh), sizeof(err));
		if (err < 0) {
			req->nl->error = -err;
			read_ext_ack(req->nl, nlh, NLMSG_HDRLEN + sizeof(int));
		}
	}
	return NL_STOP;
}

static int cb_valid(struct nl_msg *msg, void *arg)
{
	struct vgpu_nl_req *req = arg;
	int err;

	if (!req->fn)
		return NL_OK;
	err = req->fn(nlmsg_hdr(msg), req->arg);
	if (err < 0) {
		fail(req->nl, -err, NULL);
		req->done = true;
		return NL_STOP;
	}
	return NL_OK;
}

static struct nl_cb *req_cb(struct vgpu_nl_req *req)
{
	struct nl_cb *cb = nl_cb_clone(nl_socket_get_cb(req->nl->sk));

	if (!cb)
		return NULL;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, cb_valid, req);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, cb_finish, req);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, cb_ack, req);
	nl_cb_err(cb, NL_CB_CUSTOM, cb_err, req);
	return cb;
}

/**
 * vgpuctl_nl_open() - open a generic netlink socket and resolve the vgpu family
 * @nl: the handle to fill in
 *
 * Return: 0, or a negative errno with @nl->error and @nl->msg set (-ENOENT
 * when the family is not registered: the module is not loaded).
 */
int vgpuctl_nl_open(struct vgpu_nl *nl)
{
	int one = 1, err;

	memset(nl, 0, sizeof(*nl));
	nl->sk = nl_socket_alloc();
	if (!nl->sk)
		return fail(nl, ENOMEM, NULL);
	errno = 0;
	err = genl_connect(nl->sk);
	if (err < 0) {
		err = errno ? errno : nlerr_to_errno(err);
		vgpuctl_nl_close(nl);
		return fail(nl, err, NULL);
	}
	/* Best effort: kernels before 4.12 do not know NETLINK_EXT_ACK. */
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));
	nl_socket_enable_msg_peek(nl->sk);
	nl->family = genl_ctrl_resolve(nl->sk, VGPU_FAMILY_NAME);
	if (nl->family < 0) {
		err = nl->family;
		vgpuctl_nl_close(nl);
		if (err == -NLE_OBJ_NOTFOUND)
			return fail(nl, ENOENT,
				    "the vgpu kernel module is not loaded (try: modprobe vgpu)");
		return fail(nl, nlerr_to_errno(err), NULL);
	}
	return 0;
}

/** vgpuctl_nl_close() - close the socket (safe on a failed or closed handle). */
void vgpuctl_nl_close(struct vgpu_nl *nl)
{
	if (nl->sk)
		nl_socket_free(nl->sk);
	nl->sk = NULL;
}

/**
 * vgpuctl_nl_msg() - a new request of the vgpu family
 * @nl: an open handle
 * @cmd: VGPU_CMD_*
 * @dump: set NLM_F_DUMP
 *
 * Return: the message, or NULL when out of memory.
 */
struct nl_msg *vgpuctl_nl_msg(const struct vgpu_nl *nl, uint8_t cmd, bool dump)
{
	struct nl_msg *msg = nlmsg_alloc_size(VGPU_NL_MSG_SIZE);

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
			 dump ? NLM_F_DUMP : 0, cmd, VGPU_FAMILY_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/**
 * vgpuctl_nl_request() - send a request and read every reply up to its end
 * @nl: an open handle
 * @msg: the request (freed here); NLM_F_ACK is added
 * @fn: called for each reply message, may be NULL
 * @arg: passed to @fn
 *
 * Ends at the ACK of a do, at NLMSG_DONE of a dump, or at an error.
 *
 * Return: 0, or a negative errno with @nl->error and @nl->msg (the
 * kernel's extack message, or "") set.
 */
int vgpuctl_nl_request(struct vgpu_nl *nl, struct nl_msg *msg,
		       vgpu_nl_reply_fn fn, void *arg)
{
	struct vgpu_nl_req req = { .nl = nl, .fn = fn, .arg = arg };
	struct nl_cb *cb;
	int err;

	nl->error = 0;
	nl->msg[0] = '\0';
	cb = req_cb(&req);
	if (!cb) {
		nlmsg_free(msg);
		return fail(nl, ENOMEM, NULL);
	}
	errno = 0;
	err = nl_send_auto(nl->sk, msg);
	nlmsg_free(msg);
	if (err < 0) {
		nl_cb_put(cb);
		return fail(nl, errno ? errno : nlerr_to_errno(err), NULL);
	}
	while (!req.done) {
		errno = 0;
		err = nl_recvmsgs(nl->sk, cb);
		if (err < 0 && !nl->error) {
			if (err == -NLE_DUMP_INTR)
				fail(nl, EINTR, "the dump was interrupted by a change, try again");
			else
				fail(nl, nlerr_to_errno(err), NULL);
		}
		if (nl->error)
			break;
	}
	nl_cb_put(cb);
	return nl->error ? -nl->error : 0;
}

/**
 * vgpuctl_nl_tenant_get() - tenant-get of one tenant by name
 * @nl: an open handle
 * @name: the tenant
 * @fn: called with the reply (vgpuctl_nl_request())
 * @arg: passed to @fn
 *
 * Return: 0, -ENOMEM or -EMSGSIZE (nothing sent), or vgpuctl_nl_request()'s
 * negative errno (-ENOENT for an unknown tenant).
 */
int vgpuctl_nl_tenant_get(struct vgpu_nl *nl, const char *name, vgpu_nl_reply_fn fn, void *arg)
{
	struct nl_msg *msg = vgpuctl_nl_msg(nl, VGPU_CMD_TENANT_GET, false);

	if (!msg)
		return -ENOMEM;
	if (nla_put_string(msg, VGPU_A_TENANT_NAME, name) < 0) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return vgpuctl_nl_request(nl, msg, fn, arg);
}

/**
 * vgpuctl_nl_subscribe() - join a multicast group of the family
 * @nl: an open handle; it is given over to events (no sequence checks)
 * @group: VGPU_MCGRP_MONITOR
 *
 * Return: 0, or a negative errno (-EPERM when the kernel requires
 * CAP_NET_ADMIN to listen) with @nl->error set.
 */
int vgpuctl_nl_subscribe(struct vgpu_nl *nl, const char *group)
{
	int grp, bufsize = 1 << 20;

	grp = genl_ctrl_resolve_grp(nl->sk, VGPU_FAMILY_NAME, group);
	if (grp < 0)
		return fail(nl, nlerr_to_errno(grp), "the vgpu module has no such multicast group");
	if (setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK,
		       NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp)))
		return fail(nl, errno, NULL);
	nl_socket_disable_seq_check(nl->sk);
	nl_socket_set_buffer_size(nl->sk, bufsize, 0);
	if (nl_socket_set_nonblocking(nl->sk) < 0)
		return fail(nl, errno, NULL);
	return 0;
}

/** vgpuctl_nl_fd() - the socket's file descriptor, for poll(). */
int vgpuctl_nl_fd(const struct vgpu_nl *nl)
{
	return nl_socket_get_fd(nl->sk);
}

/**
 * vgpuctl_nl_recv_events() - hand the queued multicast messages to @fn
 * @nl: a subscribed, non-blocking handle
 * @fn: called for each message
 * @arg: passed to @fn
 *
 * Return: 0 when the queue is empty, -ENOBUFS when events were lost
 * (the socket stays usable), or another negative errno.
 */
int vgpuctl_nl_recv_events(struct vgpu_nl *nl, vgpu_nl_reply_fn fn, void *arg)
{
	struct vgpu_nl_req req = { .nl = nl, .fn = fn, .arg = arg };
	struct nl_cb *cb;
	int err;

	nl->error = 0;
	nl->msg[0] = '\0';
	cb = req_cb(&req);
	if (!cb)
		return fail(nl, ENOMEM, NULL);
	for (;;) {
		/* The number of messages read: 0 or -NLE_AGAIN once empty. */
		errno = 0;
		err = nl_recvmsgs_report(nl->sk, cb);
		if (err == 0 || err == -NLE_AGAIN || (err < 0 && errno == EAGAIN)) {
			err = 0;
			break;
		}
		if (err < 0) {
			err = -(errno == ENOBUFS ? ENOBUFS : nlerr_to_errno(err));
			fail(nl, -err, NULL);
			break;
		}
		if (nl->error) {
			err = -nl->error;
			break;
		}
		err = 0;
	}
	nl_cb_put(cb);
	return err;
}

/**
 * vgpuctl_nl_clear_error() - forget the last failure
 * @nl: the handle
 *
 * For a read whose failure its caller leaves to a later request to
 * report: nothing of it stays in @nl->error and @nl->msg.
 */
void vgpuctl_nl_clear_error(struct vgpu_nl *nl)
{
	nl->error = 0;
	nl->msg[0] = '\0';
}

/**
 * vgpuctl_nl_perror() - print the last failure iproute2-style
 * @nl: the handle
 * @err: the negative errno returned by the failing call
 *
 * "Error: <extack message>." or "Error: <strerror>." on stderr.
 */
void vgpuctl_nl_perror(const struct vgpu_nl *nl, int err)
{
	const char *m = nl->msg[0] ? nl->msg : strerror(err < 0 ? -err : err);
	size_t len = strlen(m);

	/*
	 * The genetlink core refuses a caller without CAP_NET_ADMIN in the
	 * initial user namespace before any handler runs, so with no message:
	 * the usual case is root inside a container's user namespace.
	 */
	if (!nl->msg[0] && (err == -EPERM || err == EPERM))
		m = "Operation not permitted: vgpu changes need CAP_NET_ADMIN "
		    "in the host's initial user namespace";

	fprintf(stderr, "Error: %s%s\n", m, len && m[len - 1] == '.' ? "" : ".");
}
