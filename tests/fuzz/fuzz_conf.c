// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of vgpu's configuration files (/etc/vgpu/vgpu.conf,
 * conf.d: ctl/conf/conf.c cuts a file into records of words), and of what
 * reads the records (vgpuctl apply's ctl/cmd/apply_load.c and apply_diff.c,
 * the flavours of ctl/conf/flavour.c, with the parsers of gpu add, set and
 * tenant add they call). Checks, beyond the sanitizers (leaks included):
 * - a file taken gives records of words that are printable ASCII without
 *   quotes or backslashes, the first a known kind, lines ascending;
 * - the records written back, one line of words each, read as the same
 *   records (the round trip of the format);
 * - a state apply_load() takes diffs against an empty module into as
 *   many tenant adds as it has tenants.
 */
#include <stdbool.h>

#include "../../ctl/cmd/apply.h"
#include "../../ctl/conf/flavour.h"
#include "fuzz.h"

FUZZ_QUIET_INITIALIZE

static void check_words(const struct vgpuctl_conf *c)
{
	static const char *const kinds[] = { "gpu", "host", "tenant", "flavour" };
	size_t i, k;
	int w;

	for (i = 0; i < c->n; i++) {
		const struct vgpuctl_conf_rec *r = &c->recs[i];

		FUZZ_CHECK(r->argc >= 1 && r->argc <= VGPU_CONF_WORDS_MAX && !r->argv[r->argc],
			   "record %zu: %d words", i, r->argc);
		FUZZ_CHECK(!i || r->line > c->recs[i - 1].line, "record %zu: line %u after %u", i,
			   r->line, c->recs[i - 1].line);
		for (k = 0; k < 4 && strcmp(r->argv[0], kinds[k]); k++)
			;
		FUZZ_CHECK(k < 4, "record %zu: kind \"%.32s\"", i, r->argv[0]);
		for (w = 0; w < r->argc; w++) {
			const char *p = r->argv[w];

			FUZZ_CHECK(*p, "record %zu: empty word %d", i, w);
			for (; *p; p++)
				FUZZ_CHECK(*p > 0x20 && *p < 0x7f && !strchr("\"'\\", *p),
					   "record %zu: byte 0x%02x in a word", i, (unsigned char)*p);
		}
	}
}

/* @c written back as text: one line of words per record. */
static char *write_back(const struct vgpuctl_conf *c, size_t size)
{
	char *text = malloc(2 * size + 2), *p = text;
	size_t i;
	int w;

	for (i = 0; i < c->n; i++)
		for (w = 0; w < c->recs[i].argc; w++)
			p += sprintf(p, "%s%s", c->recs[i].argv[w], w + 1 < c->recs[i].argc ? " " : "\n");
	*p = '\0';
	return text;
}

static void check_round_trip(const struct vgpuctl_conf *c, size_t size)
{
	struct vgpuctl_conf again = { 0 };
	char *text = write_back(c, size);
	size_t i;
	int w;

	FUZZ_CHECK(!vgpuctl_conf_parse(&again, "again.conf", text), "written back, refused:\n%s", text);
	FUZZ_CHECK(again.n == c->n, "%zu records written back read as %zu", c->n, again.n);
	for (i = 0; i < c->n; i++) {
		FUZZ_CHECK(again.recs[i].argc == c->recs[i].argc, "record %zu: %d words, then %d", i,
			   c->recs[i].argc, again.recs[i].argc);
		for (w = 0; w < c->recs[i].argc; w++)
			FUZZ_CHECK(!strcmp(again.recs[i].argv[w], c->recs[i].argv[w]),
				   "record %zu word %d: \"%.32s\", then \"%.32s\"", i, w,
				   c->recs[i].argv[w], again.recs[i].argv[w]);
	}
	vgpuctl_conf_free(&again);
	free(text);
}

/* What apply and the CDI spec read of the records. */
static void check_readers(const struct vgpuctl_conf *c)
{
	struct apply_state want, have = { 0 };
	struct apply_plan plan;
	struct vgpuctl_flavour *fl = NULL;
	size_t nfl = 0, i, adds = 0;

	if (!vgpuctl_flavours(c, &fl, &nfl))
		free(fl);
	if (vgpuctl_apply_load(c, "/sys/fs/cgroup", &want))
		return;
	FUZZ_CHECK(!vgpuctl_apply_diff(&want, &have, true, &plan), "a state taken does not diff");
	for (i = 0; i < plan.n; i++)
		adds += plan.c[i].kind == APPLY_TENANT_ADD;
	FUZZ_CHECK(adds == want.ntenants, "%zu tenants, %zu tenant adds", want.ntenants, adds);
	vgpuctl_apply_plan_free(&plan);
	vgpuctl_apply_state_free(&want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vgpuctl_conf c = { 0 };
	char *text;

	/* As conf.c's reader: no NUL byte, at most VGPU_CONF_FILE_MAX. */
	if (memchr(data, '\0', size) || size > VGPU_CONF_FILE_MAX)
		return 0;
	text = fuzz_str(data, size);
	if (!vgpuctl_conf_parse(&c, "fuzz.conf", text)) {
		check_words(&c);
		check_round_trip(&c, size);
		check_readers(&c);
	}
	vgpuctl_conf_free(&c);
	free(text);
	return 0;
}
