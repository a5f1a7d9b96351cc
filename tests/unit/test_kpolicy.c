// SPDX-License-Identifier: GPL-2.0
/*
 * The module's pure decisions (kmod/policy_vram.c, kmod/policy_sched.c),
 * the same files vgpu.ko is built from, compiled in userspace against
 * tests/unit/kshim/ (kmod/policy.h): table-driven checks of their edges.
 * Run by tests/host/kpolicy.sh, also under ASan/UBSan, and against
 * deliberately broken copies of the policy (which must fail).
 */
#include <stdio.h>

#include "../../kmod/policy.h"

#define VGPU_UNIT_SUITE "kpolicy"
#include "result.h"

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)
#define MS 1000000ULL

static void test_room(void)
{
	static const struct {
		const char *what;
		struct vgpu_pol_vram v;
		u64 freed, room;
		bool gpu_bound;
	} t[] = {
		{ "room: alone, 8G limit on 16G: 8G, the limit bounds",
		  { 8 * GiB, 16 * GiB, 0, 0, 0 }, 0, 8 * GiB, false },
		{ "room: 6G charged of 8G: 2G", { 8 * GiB, 16 * GiB, 6 * GiB, 6 * GiB, 6 * GiB },
		  0, 2 * GiB, false },
		{ "room: charged past a lowered limit: 0",
		  { 4 * GiB, 16 * GiB, 6 * GiB, 6 * GiB, 6 * GiB }, 0, 0, false },
		{ "room: others hold 12G of 16G: 4G, the GPU bounds",
		  { 8 * GiB, 16 * GiB, 12 * GiB, 0, 0 }, 0, 4 * GiB, true },
		{ "room: others hold 12G, 3G freed: 7G", { 8 * GiB, 16 * GiB, 12 * GiB, 0, 0 },
		  3 * GiB, 7 * GiB, true },
		{ "room: more freed than the GPU has: capped at the limit",
		  { 8 * GiB, 16 * GiB, 12 * GiB, 0, 0 }, 64 * GiB, 8 * GiB, false },
		{ "room: the bucket's own hold is not others'",
		  { U64_MAX, 16 * GiB, 10 * GiB, 4 * GiB, 4 * GiB }, 0, 6 * GiB, true },
		{ "room: no vram-max: the capacity is the limit",
		  { U64_MAX, 16 * GiB, 0, 0, 1 * GiB }, 0, 15 * GiB, false },
		{ "room: others hold more than the GPU: 0",
		  { 8 * GiB, 16 * GiB, 20 * GiB, 0, 0 }, 0, 0, true },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		bool bound = !t[i].gpu_bound;
		u64 room = vgpu_pol_room(&t[i].v, t[i].freed, &bound);

		result(room == t[i].room && bound == t[i].gpu_bound, t[i].what,
		       "room %llu (want %llu), gpu-bound %d", room, t[i].room,
		       bound);
	}
	result(vgpu_pol_room(&t[0].v, 0, NULL) == 8 * GiB, "room: without gpu_bound", "wrong");
}

static void test_fits_back(void)
{
	/* vram_max, capacity, held, hold, charged (the bucket suspended) */
	static const struct {
		const char *what;
		struct vgpu_pol_vram v;
		u64 parked, reserve, keep_free;
		bool fits;
	} t[] = {
		{ "fits back: others 8G of 16G, 6G parked", { U64_MAX, 16 * GiB, 8 * GiB, 0, 0 },
		  6 * GiB, 0, 0, true },
		{ "fits back: exactly what is left", { U64_MAX, 16 * GiB, 8 * GiB, 0, 0 },
		  8 * GiB, 0, 0, true },
		{ "fits back: a byte more than is left", { U64_MAX, 16 * GiB, 8 * GiB, 0, 0 },
		  8 * GiB + 1, 0, 0, false },
		{ "fits back: its reservation must fit too", { U64_MAX, 16 * GiB, 8 * GiB, 0, 0 },
		  1 * GiB, 9 * GiB, 0, false },
		{ "fits back: room a waiting charge wants is left", { U64_MAX, 16 * GiB, 8 * GiB, 0, 0 },
		  6 * GiB, 0, 4 * GiB, false },
		{ "fits back: beside what is wanted", { U64_MAX, 16 * GiB, 8 * GiB, 0, 0 },
		  4 * GiB, 0, 4 * GiB, true },
		{ "fits back: its own charges count", { U64_MAX, 16 * GiB, 9 * GiB, 1 * GiB, 1 * GiB },
		  7 * GiB, 0, 0, true },
		{ "fits back: under its vram-max only", { 4 * GiB, 16 * GiB, 0, 0, 0 },
		  5 * GiB, 0, 0, false },
		{ "fits back: others hold more than the GPU", { U64_MAX, 16 * GiB, 20 * GiB, 0, 0 },
		  1, 0, 0, false },
		{ "fits back: nothing parked, no reservation", { U64_MAX, 16 * GiB, 20 * GiB, 0, 0 },
		  0, 0, 0, true },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		bool fits = vgpu_pol_fits_back(&t[i].v, t[i].parked, t[i].reserve, t[i].keep_free);

		result(fits == t[i].fits, t[i].what, "fits %d (want %d)", fits, t[i].fits);
	}
}

static void test_budget_look(void)
{
	static const struct {
		u64 room, budget;
	} b[] = {
		{ 0, 0 }, { 15 * MiB, 0 }, { 17 * MiB, 2 * MiB }, { 1 * GiB, 128 * MiB },
		{ 2 * GiB, 256 * MiB }, { 64 * GiB, 256 * MiB }, { U64_MAX, 256 * MiB },
	};
	static const struct {
		u64 bytes, room, limit;
		bool look;
	} l[] = {
		{ 1 * GiB, 2 * GiB, 8 * GiB, false },	/* fits */
		{ 2 * GiB, 2 * GiB, 8 * GiB, false },	/* fits exactly */
		{ 3 * GiB, 2 * GiB, 8 * GiB, true },	/* budgets could make room */
		{ 8 * GiB, 2 * GiB, 8 * GiB, true },	/* up to the limit itself */
		{ 9 * GiB, 2 * GiB, 8 * GiB, false },	/* above the limit: refused */
	};

	for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
		char what[96];
		u64 got = vgpu_pol_budget(b[i].room);

		snprintf(what, sizeof(what), "budget: room %llu MiB gives %llu MiB",
			 b[i].room / MiB, b[i].budget / MiB);
		result(got == b[i].budget, what, "got %llu bytes", got);
	}
	for (size_t i = 0; i < sizeof(l) / sizeof(l[0]); i++) {
		char what[128];
		bool got = vgpu_pol_look(l[i].bytes, l[i].room, l[i].limit);

		snprintf(what, sizeof(what), "look: %lluG with %lluG room, %llu"
			 "G limit: %s", l[i].bytes / GiB, l[i].room / GiB, l[i].limit / GiB,
			 l[i].look ? "looks further" : "decided at once");
		result(got == l[i].look, what, "got %d", got);
	}
}

static void test_refill(void)
{
	/* period 100 ms, compute-max 10% (1000 bp): 10 ms a period. */
	static const struct {
		const char *what;
		s64 budget;
		u64 epoch, now_epoch;
		u32 bp;
		s64 want;
		u64 want_epoch;
	} t[] = {
		{ "refill: same period: unchanged", 3 * MS, 5, 5, 1000, 3 * MS, 5 },
		{ "refill: a new period: a full budget", 3 * MS, 5, 6, 1000, 10 * MS, 6 },
		{ "refill: left over is not kept", 9 * MS, 5, 9, 1000, 10 * MS, 9 },
		{ "refill: 5 ms debt, one period: 5 ms", -5 * (s64)MS, 5, 6, 1000, 5 * MS, 6 },
		{ "refill: 25 ms debt, one period: still 15 ms in debt", -25 * (s64)MS, 5, 6,
		  1000, -15 * (s64)MS, 6 },
		{ "refill: 25 ms debt, three periods: 5 ms", -25 * (s64)MS, 5, 8, 1000, 5 * MS,
		  8 },
		{ "refill: 25 ms debt, four periods: repaid, one budget", -25 * (s64)MS, 5, 9,
		  1000, 10 * MS, 9 },
		{ "refill: no cap left (0 bp): nothing", -25 * (s64)MS, 5, 6, 0, 0, 6 },
		{ "refill: a period before the last: one period's worth", -5 * (s64)MS, 9, 6,
		  1000, 5 * MS, 6 },
		{ "refill: the first look (epoch U64_MAX): a full budget", 0, U64_MAX, 0, 1000,
		  10 * MS, 0 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		s64 budget = t[i].budget;
		u64 epoch = t[i].epoch;

		vgpu_pol_refill(&budget, &epoch, t[i].now_epoch, 100 * MS, t[i].bp);
		result(budget == t[i].want && epoch == t[i].want_epoch, t[i].what,
		       "budget %lld epoch %llu", budget, epoch);
	}
}

static void test_spend(void)
{
	/* period 100 ms, compute-max 50%: 50 ms a period. */
	static const struct {
		const char *what;
		s64 budget;
		u64 epoch, from, now;
		s64 want;
		u64 want_epoch;
	} t[] = {
		{ "spend: 30 ms within a period", 50 * MS, 0, 10 * MS, 40 * MS, 20 * MS, 0 },
		{ "spend: 80 ms within a period: 30 ms debt", 50 * MS, 0, 0, 80 * MS,
		  -30 * (s64)MS, 0 },
		{ "spend: 100 ms across two periods: each pays its half", 50 * MS, 0, 50 * MS,
		  150 * MS, 0, 1 },
		{ "spend: 250 ms held from 30 ms debt: two refills, 180 ms debt", -30 * (s64)MS,
		  0, 0, 250 * MS, -180 * (s64)MS, 2 },
		{ "spend: nothing held: unchanged", 50 * MS, 0, 40 * MS, 40 * MS, 50 * MS, 0 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		s64 budget = t[i].budget;
		u64 epoch = t[i].epoch;

		vgpu_pol_spend(&budget, &epoch, t[i].from, t[i].now, 100 * MS, 5000);
		result(budget == t[i].want && epoch == t[i].want_epoch, t[i].what,
		       "budget %lld epoch %llu", budget, epoch);
	}
}

static void test_vtime_pick(void)
{
	static const struct {
		const char *what;
		u32 prio, best_prio;
		u64 vt, best_vt;
		bool better;
	} t[] = {
		{ "pick: a higher class wins whatever its virtual time", 2, 1, 900, 100, true },
		{ "pick: a lower class loses whatever its virtual time", 0, 1, 0, 100, false },
		{ "pick: same class, smaller virtual time wins", 1, 1, 99, 100, true },
		{ "pick: same class, larger virtual time loses", 1, 1, 101, 100, false },
		{ "pick: a tie keeps the first found", 1, 1, 100, 100, false },
		{ "pick: virtual times compare across the wrap", 1, 1, 5, U64_MAX - 5, false },
		{ "pick: ... both ways", 1, 1, U64_MAX - 5, 5, true },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		result(vgpu_pol_better(t[i].prio, t[i].vt, t[i].best_prio, t[i].best_vt) ==
		       t[i].better, t[i].what, "wrong");
	result(vgpu_pol_vtime_add(1000, 10 * MS, 100) == 1000 + 10 * MS &&
	       vgpu_pol_vtime_add(0, 10 * MS, 200) == 5 * MS &&
	       vgpu_pol_vtime_add(0, 10 * MS, 1) == 1000 * MS &&
	       vgpu_pol_vtime_add(0, 10 * MS, 10000) == 100000,
	       "vtime: held ns x 100 / weight (weights 100, 200, 1, 10000)", "wrong");
	result(vgpu_pol_rejoin(100, 500, 10 * MS, 100) == 500,
	       "rejoin: idleness earns no burst (raised to the class's smallest)", "wrong");
	result(vgpu_pol_rejoin(500 + 30 * MS, 500, 10 * MS, 100) == 500 + 10 * MS,
	       "rejoin: history costs at most one slice", "wrong");
	result(vgpu_pol_rejoin(500 + 30 * MS, 500, 10 * MS, 1000) == 500 + 1 * MS,
	       "rejoin: ... one slice at the waiter's weight", "wrong");
	result(vgpu_pol_rejoin(500 + 3 * MS, 500, 10 * MS, 100) == 500 + 3 * MS,
	       "rejoin: within a slice: kept", "wrong");
}

static void test_revoke(void)
{
	/* now 100 ms; slice ends at 105 ms; idle_us 2 ms. */
	const struct vgpu_pol_holder base = {
		.now = 100 * MS, .nprocs = 1, .eligible = true, .priority = 1, .vtime = 1000,
		.waiters = 1, .last_active = 100 * MS, .idle_ns = 2 * MS, .slice_end = 105 * MS,
	};
	static const struct {
		const char *what;
		int field;
		bool revoke;
	} t[] = {
		{ "revoke: busy, nobody else: kept", 0, false },
		{ "revoke: no process left", 1, true },
		{ "revoke: denied or out of budget", 2, true },
		{ "revoke: a higher class waits: preempted", 3, true },
		{ "revoke: same class, smaller virtual time, slice not over: kept", 4, false },
		{ "revoke: ... at the slice's end: handed over", 5, true },
		{ "revoke: same class, same virtual time, slice over: kept", 6, false },
		{ "revoke: a lower class waits, slice over: kept", 7, false },
		{ "revoke: idle for idle_us and another waits: handed over", 8, true },
		{ "revoke: idle, nobody else, uncapped: kept", 9, false },
		{ "revoke: idle, nobody else, capped: given up (its budget kept)", 10, true },
		{ "revoke: idle just under idle_us: kept", 11, false },
		{ "revoke: a thread of the holder waits: not idle", 12, false },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct vgpu_pol_holder h = base;

		switch (t[i].field) {
		case 1: h.nprocs = 0; break;
		case 2: h.eligible = false; break;
		case 3: h.best = true; h.best_priority = 2; h.best_vtime = 9999; break;
		case 4: h.best = true; h.best_priority = 1; h.best_vtime = 10; break;
		case 5: h.best = true; h.best_priority = 1; h.best_vtime = 10;
			h.now = 105 * MS; h.last_active = h.now; break;
		case 6: h.best = true; h.best_priority = 1; h.best_vtime = 1000;
			h.now = 105 * MS; h.last_active = h.now; break;
		case 7: h.best = true; h.best_priority = 0; h.best_vtime = 0;
			h.now = 105 * MS; h.last_active = h.now; break;
		case 8: h.waiters = 0; h.last_active = 98 * MS; h.best = true;
			h.best_priority = 0; break;
		case 9: h.waiters = 0; h.last_active = 90 * MS; break;
		case 10: h.waiters = 0; h.last_active = 90 * MS; h.capped = true; break;
		case 11: h.waiters = 0; h.last_active = 98 * MS + 1; h.best = true; break;
		case 12: h.last_active = 90 * MS; h.best = true; h.best_priority = 0; break;
		}
		result(vgpu_pol_must_revoke(&h) == t[i].revoke, t[i].what, "wrong");
	}
}

int main(void)
{
	test_room();
	test_fits_back();
	test_budget_look();
	test_refill();
	test_spend();
	test_vtime_pick();
	test_revoke();
	return failures ? 1 : 0;
}
