// SPDX-License-Identifier: GPL-2.0
/*
 * vgpuctl account: append usage records (acct_record.c) to a JSON Lines
 * file, once or every SECONDS, keeping the counters last recorded in a
 * state file (acct_state.c), and acknowledge the final records of deleted
 * tenants once recorded.
 *
 * A cycle, so that a crash at any point neither loses nor repeats a record:
 *   1. the new state, with "pending OFFSET LEN DEV INO" (the records'
 *      place in the output), is written to STATE.next (atomically, synced);
 *   2. the records are appended to the output and synced;
 *   3. STATE.next is renamed over STATE (the directory synced);
 *   4. the final records now recorded are acknowledged (tenant-final-del).
 * At start, a STATE.next left by a crash is settled first: when the output
 * (the same file) holds all its records, it becomes STATE; when it holds
 * part of them, the output is cut back to OFFSET and STATE stays; else
 * STATE stays. The module keeps final records until step 4, so a cycle
 * that is redone finds them again. STATE.lock keeps a second collector off
 * the same state.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/file.h>
#include <sys/stat.h>

#include "../out/acct.h"
#include "../lib/file.h"
#include "../obj/final.h"
#include "../lib/parse.h"
#include "../vgpuctl.h"

#define ACCT_STATE_DEFAULT	"/var/lib/vgpu/account.state"
#define ACCT_STATE_MAX		(64 << 20)

/**
 * vgpuctl_usage_account() - usage of account
 * @f: stdout for "help", stderr otherwise
 */
void vgpuctl_usage_account(FILE *f)
{
	fputs("Usage: vgpuctl account -o FILE [-i SECONDS] [-s STATE] [--no-ack]\n"
	      "       vgpuctl account help\n"
	      "Appends usage records (JSON Lines, Documentation/metrics.md) to FILE: one\n"
	      "per tenant and GPU for the time since the last record, and one per GPU\n"
	      "when a tenant was deleted (from the module's final records, acknowledged\n"
	      "once written; as a member of the monitor group, without CAP_NET_ADMIN,\n"
	      "they are not acknowledged). Once, or every SECONDS until SIGINT or SIGTERM.\n"
	      "-s STATE  the counters last recorded (default " ACCT_STATE_DEFAULT ")\n"
	      "--no-ack  leave the final records in the module (another collector acks)\n", f);
}

struct acct_opts {
	const char *out, *state;
	uint64_t delay;
	bool no_ack;
	char next[4096], lock[4096];
};

/* Read a whole file (NUL-terminated); 0, -ENOENT, or another -errno. */
static int read_file(const char *path, char **text)
{
	FILE *f = fopen(path, "re");
	size_t len;
	char *buf;
	int err;

	if (!f)
		return -errno;
	buf = malloc(ACCT_STATE_MAX + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	len = fread(buf, 1, ACCT_STATE_MAX + 1, f);
	err = ferror(f) ? -EIO : len > ACCT_STATE_MAX ? -EFBIG : 0;
	fclose(f);
	if (err) {
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*text = buf;
	return 0;
}

/* Load @path into @st; an absent file is an empty state. The exit status. */
static int load_state(const char *path, struct vgpu_acct_state *st)
{
	char *text = NULL, why[128];
	int err = read_file(path, &text);

	memset(st, 0, sizeof(*st));
	if (err == -ENOENT)
		return 0;
	if (err)
		return vgpuctl_error("cannot read the state %s: %s", path, strerror(-err));
	err = vgpuctl_acct_state_parse(text, st, why, sizeof(why));
	free(text);
	if (err)
		return vgpuctl_error("the state %s is damaged (%s); nothing was recorded", path, why);
	return 0;
}

static int save_state(const char *path, const struct vgpu_acct_state *st)
{
	size_t len;
	char *text = vgpuctl_acct_state_format(st, &len);
	int err = text ? vgpuctl_file_replace(path, text, len) : -ENOMEM;

	free(text);
	if (err)
		return vgpuctl_error("cannot write the state %s: %s", path, strerror(-err));
	return 0;
}

/* Settle a STATE.next a crash left (see the top of this file). */
static int recover(const struct acct_opts *o, int ofd)
{
	struct vgpu_acct_state nx;
	struct stat sb;
	int ret;

	if (access(o->next, F_OK))
		return 0;
	ret = load_state(o->next, &nx);
	if (ret)
		return ret;
	if (fstat(ofd, &sb))
		ret = vgpuctl_error("%s: %s", o->out, strerror(errno));
	else if (!nx.pending.set)
		ret = vgpuctl_error("%s has no pending line", o->next);
	if (ret)
		goto out;
	if ((uint64_t)sb.st_dev == nx.pending.dev && (uint64_t)sb.st_ino == nx.pending.ino &&
	    (uint64_t)sb.st_size >= nx.pending.offset + nx.pending.len) {
		if (rename(o->next, o->state) || vgpuctl_file_sync_dir(o->state))
			ret = vgpuctl_error("cannot rename %s: %s", o->next, strerror(errno));
		goto out;
	}
	if ((uint64_t)sb.st_dev == nx.pending.dev && (uint64_t)sb.st_ino == nx.pending.ino &&
	    (uint64_t)sb.st_size > nx.pending.offset &&
	    (ftruncate(ofd, (off_t)nx.pending.offset) || fsync(ofd))) {
		ret = vgpuctl_error("cannot cut %s back: %s", o->out, strerror(errno));
		goto out;
	}
	if (unlink(o->next))
		ret = vgpuctl_error("cannot remove %s: %s", o->next, strerror(errno));
out:
	vgpuctl_acct_state_free(&nx);
	return ret;
}

/* What a collector says once on stderr, not at every cycle. */
struct acct_said {
	bool ack_failed;	/* the acknowledgement failed */
	bool no_ack;		/* without CAP_NET_ADMIN, nothing is acknowledged */
};

/* Acknowledge the final records up to @seq (CAP_NET_ADMIN only). */
static void ack(struct vgpu_nl *nl, uint64_t seq, struct acct_said *said)
{
	int err = vgpuctl_final_ack(nl, seq);

	if (err && !said->ack_failed) {
		fputs("Warning: the final records could not be acknowledged; the module keeps "
		      "them until its bound drops the oldest: ", stderr);
		vgpuctl_nl_perror(nl, err);
		said->ack_failed = true;
	}
}

/* Steps 1-3 of a cycle: write the records of @buf and the state @st. */
static int commit(const struct acct_opts *o, int ofd, struct vgpu_acct_state *st,
		  const char *buf, size_t len)
{
	struct stat sb;
	int err, ret;

	if (fstat(ofd, &sb))
		return vgpuctl_error("%s: %s", o->out, strerror(errno));
	st->pending = (struct vgpu_acct_pending){ true, (uint64_t)sb.st_size, len,
						  (uint64_t)sb.st_dev, (uint64_t)sb.st_ino };
	ret = save_state(o->next, st);
	st->pending.set = false;
	if (ret)
		return ret;
	err = vgpuctl_file_append(ofd, buf, len);
	if (err)	/* STATE.next is settled at the next start */
		return vgpuctl_error("cannot append to %s: %s", o->out, strerror(-err));
	if (rename(o->next, o->state) || vgpuctl_file_sync_dir(o->state))
		return vgpuctl_error("cannot rename %s: %s", o->next, strerror(errno));
	return 0;
}

/*
 * One cycle against the state @old (replaced by the new one when it
 * worked). The output is opened for each cycle: renamed away (rotated),
 * it is created again.
 */
static int cycle(const struct acct_opts *o, struct vgpu_acct_state *old, struct acct_said *said)
{
	struct vgpu_acct_state st;
	struct vgpu_snap s;
	struct vgpu_nl nl;
	char host[256] = "", *buf = NULL;
	size_t len = 0, n;
	FILE *f;
	int err, ret, ofd;

	gethostname(host, sizeof(host) - 1);
	ofd = open(o->out, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (ofd < 0)
		return vgpuctl_error("cannot open %s: %s", o->out, strerror(errno));
	ret = vgpuctl_open(&nl);
	if (ret) {
		close(ofd);
		return ret;
	}
	err = vgpuctl_snap_take(&nl, &s, VGPU_SNAP_GPUS | VGPU_SNAP_TENANTS | VGPU_SNAP_FINALS);
	if (err) {
		vgpuctl_nl_perror(&nl, err);
		ret = VGPU_EXIT_ERR;
		goto out;
	}
	if (!s.host.has_instance) {
		ret = vgpuctl_error("the vgpu module does not report its instance-id (too old for account)");
		goto out;
	}
	f = open_memstream(&buf, &len);
	err = f ? vgpuctl_acct_cycle(&s, host, old, &st, f, &n) : -ENOMEM;
	if (f && fclose(f) && !err) {
		err = -ENOMEM;
		vgpuctl_acct_state_free(&st);
	}
	if (err) {
		ret = vgpuctl_error("%s", strerror(ENOMEM));
		goto out;
	}
	ret = commit(o, ofd, &st, buf, len);
	if (ret) {
		vgpuctl_acct_state_free(&st);
		goto out;
	}
	vgpuctl_acct_state_free(old);
	*old = st;
	if (!o->no_ack && s.nfinals && st.final_seq && vgpuctl_has_admin())
		ack(&nl, st.final_seq, said);
	/* After a cycle that worked: a plain user's first one fails instead. */
	if (!o->no_ack && !said->no_ack && !vgpuctl_has_admin()) {
		fputs("Note: without CAP_NET_ADMIN the final records of deleted tenants are "
		      "recorded but not acknowledged.\n", stderr);
		said->no_ack = true;
	}
out:
	free(buf);
	vgpuctl_snap_free(&s);
	vgpuctl_nl_close(&nl);
	close(ofd);
	return ret;
}

/* The options; 0 or VGPU_EXIT_USAGE. */
static int account_args(int argc, char **argv, struct acct_opts *o)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool is_o = !strcmp(a, "-o") || !strcmp(a, "--output");
		bool is_i = !strcmp(a, "-i") || !strcmp(a, "--interval");
		bool is_s = !strcmp(a, "-s") || !strcmp(a, "--state");

		if (!strcmp(a, "--no-ack")) {
			if (o->no_ack)
				return vgpuctl_usage_error("duplicate option \"%s\" for account", a);
			o->no_ack = true;
			continue;
		}
		if (!is_o && !is_i && !is_s)
			return vgpuctl_usage_error("unexpected argument \"%s\" for account", a);
		if ((is_o && o->out) || (is_s && o->state) || (is_i && o->delay))
			return vgpuctl_usage_error("duplicate option \"%s\" for account", a);
		if (++i >= argc || !argv[i][0])
			return vgpuctl_usage_error("missing value for %s", a);
		if (is_o)
			o->out = argv[i];
		else if (is_s)
			o->state = argv[i];
		else if (vgpuctl_parse_seconds(argv[i], &o->delay))
			return vgpuctl_usage_error("invalid SECONDS \"%s\" for %s (0.001-%u, at most 3 decimals)",
						   argv[i], a, VGPU_SECONDS_MAX);
	}
	if (!o->out)
		return vgpuctl_usage_error("account needs -o FILE");
	if (!o->state)
		o->state = ACCT_STATE_DEFAULT;
	if (strlen(o->state) + 6 > sizeof(o->next))
		return vgpuctl_usage_error("STATE path too long");
	snprintf(o->next, sizeof(o->next), "%s.next", o->state);
	snprintf(o->lock, sizeof(o->lock), "%s.lock", o->state);
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Cycles every o->delay until a stop signal (a failed one is retried). */
static int loop(const struct acct_opts *o, struct vgpu_acct_state *st, struct acct_said *said)
{
	struct pollfd p = { .events = POLLIN };
	uint64_t next = mono_ns(), t;
	int ret = vgpuctl_stop_signals(&p.fd);

	if (ret)
		return ret;
	for (;;) {
		cycle(o, st, said);
		next += o->delay;
		t = mono_ns();
		if (next < t)
			next = t;
		if (poll(&p, 1, (int)((next - t + 999999) / 1000000)) > 0)
			break;
	}
	close(p.fd);
	return VGPU_EXIT_OK;
}

/* Lock the state, settle a crash, load the state, run; the exit status. */
static int account_run(const struct acct_opts *o)
{
	struct vgpu_acct_state st = { 0 };
	struct acct_said said = { false, false };
	int lfd, ofd, ret;

	lfd = open(o->lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lfd < 0)
		return vgpuctl_error("cannot open %s: %s", o->lock, strerror(errno));
	if (flock(lfd, LOCK_EX | LOCK_NB)) {
		close(lfd);
		return vgpuctl_error("another vgpuctl account uses the state %s", o->state);
	}
	ofd = open(o->out, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (ofd < 0) {
		close(lfd);
		return vgpuctl_error("cannot open %s: %s", o->out, strerror(errno));
	}
	ret = recover(o, ofd);
	close(ofd);
	if (!ret)
		ret = load_state(o->state, &st);
	if (!ret)
		ret = o->delay ? loop(o, &st, &said) : cycle(o, &st, &said);
	vgpuctl_acct_state_free(&st);
	close(lfd);
	return ret;
}

/**
 * vgpuctl_cmd_account() - "vgpuctl account -o FILE [-i SECONDS] [-s STATE] [--no-ack]"
 * @argc: arguments after "account"
 * @argv: the options, or "help"
 *
 * Return: the exit status.
 */
int vgpuctl_cmd_account(int argc, char **argv)
{
	struct acct_opts o = { 0 };
	int ret;

	if (vgpuctl_is_help(argc, argv)) {
		vgpuctl_usage_account(stdout);
		return VGPU_EXIT_OK;
	}
	ret = account_args(argc, argv, &o);
	if (ret)
		return ret;
	return account_run(&o);
}
