// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of vgpuctl account's pure parts without the module: the state
 * file (ctl/out/acct_state.c: round trip, damaged files refused) and the
 * records of a cycle (ctl/out/acct_record.c: deltas, final records, lost and
 * closed entries, a module reload), with snapshots built by hand. The
 * property under test: the records of a tenant on a GPU add up to the
 * module's counters, whatever happened between cycles. One line per check.
 */
#define VGPU_UNIT_SUITE "account"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../../ctl/out/acct.h"
#include "result.h"

static struct vgpu_snap_gpu gpu0 = { 0, "GPU-00000000-0000-0000-0000-000000000000", "", 1 << 30, -1 };

/* A snapshot of @n tenants (ids 1..n, "t1"...) on GPU 0 with GPU time @gt[i]. */
static void snap_of(struct vgpu_snap *s, struct vgpu_snap_tenant *t, size_t n,
		    const uint64_t *gt, uint64_t now)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->host.has_instance = true;
	s->host.instance_id = 0x1111;
	s->gpus = &gpu0;
	s->ngpus = 1;
	s->tenants = t;
	s->ntenants = n;
	s->realtime = now;
	for (i = 0; i < n; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		snprintf(t[i].name, sizeof(t[i].name), "t%zu", i + 1);
		t[i].id = (uint32_t)i + 1;
		t[i].has_created = true;
		t[i].created = 100;
		t[i].weight = 100;
		t[i].nusage = 1;
		t[i].usage[0].gpu = 0;
		t[i].usage[0].gpu_time_ns = gt[i];
		t[i].usage[0].vram_byte_seconds = gt[i] / 2;
		t[i].usage[0].vram_scans = gt[i] / 10;
	}
}

/* Run a cycle: @st becomes the new state; the records into @rec (freed by caller). */
static size_t run(const struct vgpu_snap *s, struct vgpu_acct_state *st, char **rec)
{
	struct vgpu_acct_state nst;
	size_t len = 0, n = 0;
	FILE *f = open_memstream(rec, &len);
	int err = vgpuctl_acct_cycle(s, "h", st, &nst, f, &n);

	fclose(f);
	result(!err, "a cycle succeeds", "error %d", err);
	vgpuctl_acct_state_free(st);
	*st = nst;
	return n;
}

/* Sum of "KEY":N over the records of @text whose line contains @match. */
static uint64_t sum(const char *text, const char *match, const char *key)
{
	char k[64];
	uint64_t s = 0;
	const char *line = text;

	snprintf(k, sizeof(k), "\"%s\":", key);
	while (line && *line) {
		const char *end = strchr(line, '\n'), *p = strstr(line, k);
		char buf[2048];
		size_t len = end ? (size_t)(end - line) : strlen(line);

		snprintf(buf, sizeof(buf), "%.*s", (int)len, line);
		p = strstr(buf, k);
		if (strstr(buf, match) && p)
			s += strtoull(p + strlen(k), NULL, 10);
		line = end ? end + 1 : NULL;
	}
	return s;
}

static void test_state_file(void)
{
	struct vgpu_acct_state st = { 0 }, back;
	struct vgpu_acct_entry *e;
	char why[128], *text, *text2;
	size_t len;

	st.has_instance = true;
	st.instance = 0xfeedULL;
	st.cycle = 7;
	st.final_seq = 3;
	e = vgpuctl_acct_state_add(&st);
	*e = (struct vgpu_acct_entry){ .tenant = 4, .gpu = 1, .end_ns = 99, .created = 5,
				       .c = { .gpu_time_ns = 10, .grants = 2, .vram_scans = 6,
					      .suspended_ns = 8 } };
	snprintf(e->name, sizeof(e->name), "team-a");
	text = vgpuctl_acct_state_format(&st, &len);
	result(!vgpuctl_acct_state_parse(text, &back, why, sizeof(why)), "the state parses back",
	       "%s", why);
	text2 = vgpuctl_acct_state_format(&back, &len);
	result(!strcmp(text, text2), "the state round-trips", "%s vs %s", text, text2);
	result(back.n == 1 && back.v[0].c.grants == 2 && back.final_seq == 3 && back.cycle == 7 &&
	       back.v[0].c.vram_scans == 6 && !back.v[0].c.no_scans &&
	       back.v[0].c.suspended_ns == 8 && !back.v[0].c.no_suspended,
	       "entries and counters come back, vram-scans and suspended-ns included", "n %zu",
	       back.n);
	vgpuctl_acct_state_free(&back);
	text[strlen(text) - 3] = '\0';	/* cut in the middle of the last line */
	result(vgpuctl_acct_state_parse(text, &back, why, sizeof(why)) &&
	       strstr(why, "no end"), "a truncated state is refused, saying so", "%s", why);
	result(vgpuctl_acct_state_parse("vgpu-account-state 1\ncycle x\n", &back, why, sizeof(why)) &&
	       strstr(why, "line 2"), "a bad line is refused with its number", "%s", why);
	result(vgpuctl_acct_state_parse("something else\n", &back, why, sizeof(why)) != 0,
	       "a file that is not a state is refused", "parsed");
	result(vgpuctl_acct_state_parse(
		       "vgpu-account-state 1\nentry 1 0 1 1 1 1 1 1 1 1 1 a -\nentry 1 0 1 1 1 1 1 1 1 1 1 a -\n",
		       &back, why, sizeof(why)) != 0, "a duplicate entry is refused", "parsed");
	result(!vgpuctl_acct_state_parse("vgpu-account-state 1\nentry 1 0 1 1 1 1 1 1 1 1 1 a -\n",
					 &back, why, sizeof(why)) && back.n == 1 &&
	       back.v[0].c.no_scans && back.v[0].c.no_suspended && back.v[0].c.vram_overdrafts == 1,
	       "an entry of an older vgpuctl (no scans) is read, its scans unknown", "%s", why);
	vgpuctl_acct_state_free(&back);
	result(!vgpuctl_acct_state_parse("vgpu-account-state 1\nentry 1 0 1 1 1 1 1 1 1 1 1 7 a -\n",
					 &back, why, sizeof(why)) && back.n == 1 &&
	       !back.v[0].c.no_scans && back.v[0].c.vram_scans == 7 && back.v[0].c.no_suspended,
	       "an entry without suspended-ns is read, its scans kept, suspended-ns unknown", "%s",
	       why);
	vgpuctl_acct_state_free(&back);
	result(!vgpuctl_acct_state_parse("vgpu-account-state 1\nentry 1 0 1 1 1 1 1 1 1 1 1 7 9 5 -\n",
					 &back, why, sizeof(why)) && back.n == 1 &&
	       back.v[0].c.suspended_ns == 9 && !strcmp(back.v[0].name, "5"),
	       "an entry whose name is a number is read with suspended-ns", "%s", why);
	vgpuctl_acct_state_free(&back);
	result(vgpuctl_acct_state_parse("vgpu-account-state 1\nentry 1 0 1 1 1 1 1 1 1 1 1 1 1 1 a -\n",
					&back, why, sizeof(why)) != 0,
	       "an entry with a counter too many is refused", "parsed");
	free(text);
	free(text2);
	vgpuctl_acct_state_free(&st);
}

/* A state of an older vgpuctl: the first record leaves vram_scans out. */
static void test_scans_upgrade(void)
{
	struct vgpu_acct_state st = { 0 };
	struct vgpu_snap_tenant t[1];
	struct vgpu_snap s;
	uint64_t gt[1] = { 5000 };
	char why[128], *r1, *r2;

	result(!vgpuctl_acct_state_parse("vgpu-account-state 1\ninstance 0000000000001111\n"
					 "cycle 1\nfinal-seq 0\nentry 1 0 1000 100 1000 0 0 500 0 0 0 t1 -\n",
					 &st, why, sizeof(why)), "an older state parses", "%s", why);
	snap_of(&s, t, 1, gt, 2000);
	run(&s, &st, &r1);
	result(strstr(r1, "\"gpu_time_ns\":4000,") && !strstr(r1, "vram_scans"),
	       "its next record has the other deltas and no vram_scans", "%s", r1);
	gt[0] = 6000;
	snap_of(&s, t, 1, gt, 3000);
	run(&s, &st, &r2);
	result(strstr(r2, "\"vram_scans\":100,") != NULL,
	       "the one after counts vram_scans from there", "%s", r2);
	free(r1);
	free(r2);
	vgpuctl_acct_state_free(&st);
}

/* suspended_ns: a delta of the tenant's time suspended, absent after an upgrade. */
static void test_suspended(void)
{
	struct vgpu_acct_state st = { 0 };
	struct vgpu_snap_tenant t[1];
	struct vgpu_snap s;
	uint64_t gt[1] = { 5000 };
	char why[128], *r1, *r2;

	result(!vgpuctl_acct_state_parse("vgpu-account-state 1\ninstance 0000000000001111\n"
					 "cycle 1\nfinal-seq 0\nentry 1 0 1000 100 1000 0 0 500 0 0 0 400 t1 -\n",
					 &st, why, sizeof(why)), "a state without suspended-ns parses", "%s",
	       why);
	snap_of(&s, t, 1, gt, 2000);
	t[0].has_state = true;
	t[0].suspended_ns = 700;
	run(&s, &st, &r1);
	result(!strstr(r1, "suspended_ns"), "its next record has no suspended_ns", "%s", r1);
	snap_of(&s, t, 1, gt, 3000);
	t[0].suspended_ns = 1900;
	run(&s, &st, &r2);
	result(strstr(r2, "\"suspended_ns\":1200") != NULL,
	       "the one after counts the time suspended since", "%s", r2);
	free(r1);
	free(r2);
	vgpuctl_acct_state_free(&st);
}

/* The record's quotas: preemptible always, vram_wait_ns only when set. */
static void test_preempt_quotas(void)
{
	struct vgpu_acct_state st = { 0 };
	struct vgpu_snap_tenant t[2];
	struct vgpu_snap s;
	uint64_t gt[2] = { 10, 20 };
	char *r;

	snap_of(&s, t, 2, gt, 1000);
	t[0].preemptible = true;
	t[0].has_vram_wait = true;
	t[0].vram_wait = 2500;
	run(&s, &st, &r);
	result(strstr(r, "\"priority\":\"low\",\"preemptible\":true,"
			 "\"vram_wait_ns\":2500000000}") != NULL,
	       "a preemptible tenant's record: preemptible, vram_wait_ns", "%s", r);
	result(strstr(r, "\"preemptible\":false},\"usage\"") != NULL,
	       "one with neither: preemptible false, no vram_wait_ns", "%s", r);
	free(r);
	vgpuctl_acct_state_free(&st);
}

static void test_cycles(void)
{
	struct vgpu_acct_state st = { 0 };
	struct vgpu_snap_tenant t[2], fin[1];
	struct vgpu_snap s;
	char *r1, *r2, *r3, *r4, *r5, *all;
	uint64_t gt[2] = { 1000, 50 };

	snap_of(&s, t, 2, gt, 1000);
	result(run(&s, &st, &r1) == 2, "first cycle: one record per tenant and GPU", "%s", r1);
	result(strstr(r1, "\"start_ns\":100,\"end_ns\":1000,\"reason\":\"interval\"") != NULL,
	       "a tenant not seen before counts from its creation", "%s", r1);
	gt[0] = 2500;
	snap_of(&s, t, 2, gt, 2000);
	run(&s, &st, &r2);
	result(strstr(r2, "\"start_ns\":1000,\"end_ns\":2000") && strstr(r2, "\"gpu_time_ns\":1500,"),
	       "the next cycle records the delta since the last", "%s", r2);
	result(strstr(r2, "\"vram_scans\":150,") != NULL, "vram_scans is recorded as a delta too",
	       "%s", r2);
	/* t2 deleted (final record 5 at 2500 with 80), t1 gone without one. */
	gt[0] = 3000;
	snap_of(&s, t, 0, gt, 3000);
	memset(fin, 0, sizeof(fin));
	snprintf(fin[0].name, sizeof(fin[0].name), "t2");
	fin[0].id = 2;
	fin[0].final_seq = 5;
	fin[0].deleted = 2500;
	fin[0].nusage = 1;
	fin[0].usage[0] = (struct vgpu_snap_usage){ .gpu = 0, .gpu_time_ns = 80, .vram_byte_seconds = 40 };
	s.finals = fin;
	s.nfinals = 1;
	run(&s, &st, &r3);
	result(strstr(r3, "\"name\":\"t2\"") && strstr(r3, "\"reason\":\"deleted\"") &&
	       strstr(r3, "\"final_seq\":5"), "a final record gives a deleted record", "%s", r3);
	result(strstr(r3, "\"name\":\"t1\"") && strstr(r3, "\"reason\":\"lost\""),
	       "a tenant gone without a final record is closed as lost", "%s", r3);
	result(st.n == 0 && st.final_seq == 5, "both leave the state; final-seq 5 recorded",
	       "n %zu final_seq %" PRIu64, st.n, st.final_seq);
	/* The same final record again (not yet acknowledged): not recorded twice. */
	run(&s, &st, &r4);
	result(!strstr(r4, "deleted"), "a final record already recorded is skipped", "%s", r4);
	/* A module reload: t1 back under a new instance; the old entries closed. */
	gt[0] = 10;
	snap_of(&s, t, 1, gt, 4000);
	s.host.instance_id = 0x2222;
	{
		struct vgpu_acct_entry *e = vgpuctl_acct_state_add(&st);

		*e = (struct vgpu_acct_entry){ .tenant = 9, .gpu = 0, .end_ns = 3000 };
		snprintf(e->name, sizeof(e->name), "old");
	}
	run(&s, &st, &r5);
	result(strstr(r5, "\"instance_id\":\"0000000000001111\",\"tenant\":{\"name\":\"old\"") &&
	       strstr(r5, "module-reloaded"), "a reload closes the old instance's entries", "%s", r5);
	result(strstr(r5, "\"instance_id\":\"0000000000002222\"") && st.final_seq == 0 &&
	       st.instance == 0x2222, "the new instance starts afresh", "%s", r5);

	if (asprintf(&all, "%s%s%s%s", r1, r2, r3, r4) < 0)
		return;
	result(sum(all, "\"name\":\"t2\"", "gpu_time_ns") == 80 &&
	       sum(all, "\"name\":\"t2\"", "vram_byte_seconds") == 40,
	       "a deleted tenant's records add up to its final counters", "%" PRIu64,
	       sum(all, "\"name\":\"t2\"", "gpu_time_ns"));
	result(sum(all, "\"name\":\"t1\"", "gpu_time_ns") == 2500,
	       "a tenant's records add up to the last counters seen", "%" PRIu64,
	       sum(all, "\"name\":\"t1\"", "gpu_time_ns"));
	free(all);
	free(r1);
	free(r2);
	free(r3);
	free(r4);
	free(r5);
	vgpuctl_acct_state_free(&st);
}

int main(void)
{
	test_state_file();
	test_cycles();
	test_scans_upgrade();
	test_suspended();
	test_preempt_quotas();
	return failures ? 1 : 0;
}
