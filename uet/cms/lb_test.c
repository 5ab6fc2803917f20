/* Entropy selection policies (lb.h) on synthetic feedback: what each
 * picks, what each learns from ACKs, marks, trims, losses and timeouts,
 * and that a retired EV comes back. */
#include <criterion/criterion.h>

#include "lb.h"

#define N	16u
#define SEED	12345u

static struct uet_lb lb;

static void open_lb(uint8_t kind, uint16_t run, bool trimming)
{
	uet_lb_init(&lb, kind, N, run, trimming, 100 * UET_USEC, SEED);
}

/* Every EV of the pass, each once. */
static void check_pass(void)
{
	bool seen[N] = { false };
	unsigned i;

	for (i = 0; i < N; i++) {
		uint16_t e = uet_lb_next(&lb, 0);

		cr_assert_lt(e, N);
		cr_assert_not(seen[e], "EV %u twice in one pass", e);
		seen[e] = true;
	}
}

Test(lb, names)
{
	cr_assert_eq(uet_lb_parse("single"), UET_LB_SINGLE);
	cr_assert_eq(uet_lb_parse("oblivious"), UET_LB_OBLIVIOUS);
	cr_assert_eq(uet_lb_parse("reps"), UET_LB_REPS);
	cr_assert_eq(uet_lb_parse("bitmap"), UET_LB_BITMAP);
	cr_assert_eq(uet_lb_parse("mixed"), UET_LB_MIXED);
	cr_assert_eq(uet_lb_parse("ecmp"), -1);
	cr_assert_str_eq(uet_lb_name(UET_LB_DEFAULT),
			 uet_lb_name(UET_LB_DEFAULT_KIND));
	open_lb(UET_LB_DEFAULT, 1, false);
	cr_assert_eq(lb.ops, &uet_lb_bitmap_ops);
}

Test(lb, oblivious_every_ev_once_per_pass_reordered)
{
	uint16_t first[N], second[N];
	unsigned i, same = 0;

	open_lb(UET_LB_OBLIVIOUS, 1, false);
	/* Feedback changes nothing. */
	uet_lb_feed(&lb, 3, UET_LB_TIMEOUT, 0);
	for (i = 0; i < N; i++)
		first[i] = uet_lb_next(&lb, 0);
	for (i = 0; i < N; i++)
		second[i] = uet_lb_next(&lb, 0);
	lb.idx = 0;
	check_pass();
	check_pass();
	for (i = 0; i < N; i++)
		same += first[i] == second[i];
	cr_assert_lt(same, N, "the order is redrawn each pass");
}

Test(lb, oblivious_not_power_of_two)
{
	bool seen[12] = { false };
	unsigned i;

	uet_lb_init(&lb, UET_LB_OBLIVIOUS, 12, 1, false, 0, SEED);
	for (i = 0; i < 12 * 8; i++) {
		uint16_t e = uet_lb_next(&lb, 0);

		cr_assert_lt(e, 12);
		seen[e] = true;
	}
	for (i = 0; i < 12; i++)
		cr_assert(seen[i], "EV %u never used", i);
}

Test(lb, runs_of_packets_share_an_ev)
{
	unsigned i;
	uint16_t e;

	open_lb(UET_LB_OBLIVIOUS, 4, false);
	for (i = 0; i < 32; i += 4) {
		e = uet_lb_next(&lb, 0);
		cr_assert_eq(uet_lb_next(&lb, 0), e);
		cr_assert_eq(uet_lb_next(&lb, 0), e);
		cr_assert_eq(uet_lb_next(&lb, 0), e);
	}
}

/* A loss or a timeout ends the run on that EV; a clean ACK or a mark
 * does not. */
Test(lb, bad_news_ends_a_run)
{
	static const enum uet_lb_sig bad[] = { UET_LB_LOSS, UET_LB_TIMEOUT };
	unsigned k;
	uint16_t e;

	for (k = 0; k < 2; k++) {
		open_lb(UET_LB_BITMAP, 4, false);
		e = uet_lb_next(&lb, 0);
		uet_lb_feed(&lb, e, UET_LB_ACK, 0);
		uet_lb_feed(&lb, e, UET_LB_ECN, 0);
		cr_assert_eq(uet_lb_next(&lb, 0), e, "good news keeps it");
		uet_lb_feed(&lb, e, bad[k], 0);
		cr_assert_neq(uet_lb_next(&lb, 0), e, "signal %d", bad[k]);
	}
}

Test(lb, single_stays_until_timeout)
{
	uint16_t e, f;
	unsigned i;

	open_lb(UET_LB_SINGLE, 1, false);
	e = uet_lb_next(&lb, 0);
	for (i = 0; i < 100; i++)
		cr_assert_eq(uet_lb_next(&lb, 0), e);
	uet_lb_feed(&lb, e, UET_LB_ECN, 0);
	uet_lb_feed(&lb, e, UET_LB_TRIM, 0);
	uet_lb_feed(&lb, e, UET_LB_LOSS, 0);
	cr_assert_eq(uet_lb_next(&lb, 0), e, "congestion does not move it");
	uet_lb_feed(&lb, e, UET_LB_TIMEOUT, 0);
	f = uet_lb_next(&lb, 0);
	cr_assert_neq(f, e, "a timeout moves it off a dead path");
	/* A late timeout of the old path does not move it again. */
	uet_lb_feed(&lb, e, UET_LB_TIMEOUT, 0);
	cr_assert_eq(uet_lb_next(&lb, 0), f);
}

/* A timed-out EV is not taken again while another is left (another EV
 * may lead into the same dead path; without the memory a PDC could
 * bounce between two of them). An ACK brings one back; once all have
 * timed out, all but the last come back. */
Test(lb, single_remembers_timed_out_evs)
{
	bool gone[N] = { false };
	uint16_t e = 0;
	unsigned i;

	open_lb(UET_LB_SINGLE, 1, false);
	for (i = 0; i < N - 1; i++) {
		e = uet_lb_next(&lb, 0);
		cr_assert_not(gone[e], "EV %u taken again after its timeout",
			      e);
		gone[e] = true;
		uet_lb_feed(&lb, e, UET_LB_TIMEOUT, 0);
	}
	/* One left: the only choice. */
	e = uet_lb_next(&lb, 0);
	cr_assert_not(gone[e]);
	/* A late ACK of an old EV: its path lives, it may be taken again. */
	for (i = 0; i < N && !gone[i]; i++)
		;
	uet_lb_feed(&lb, (uint16_t)i, UET_LB_ACK, 0);
	uet_lb_feed(&lb, e, UET_LB_TIMEOUT, 0);
	cr_assert_eq(uet_lb_next(&lb, 0), i, "the EV with an ACK since");
	/* Every one timed out: all back but the one that just did. */
	uet_lb_feed(&lb, (uint16_t)i, UET_LB_TIMEOUT, 0);
	cr_assert_neq(uet_lb_next(&lb, 0), i);
	for (i = 0, e = 0; i < N; i++)
		e = (uint16_t)(e + !lb.pen[i]);
	cr_assert_eq(e, N - 1, "%u EVs back of %u", e, N - 1);
}

Test(lb, reps_recycles_clean_evs_oldest_first)
{
	uint16_t e;

	open_lb(UET_LB_REPS, 1, true);
	uet_lb_feed(&lb, 5, UET_LB_ACK, 0);
	uet_lb_feed(&lb, 5, UET_LB_ACK, 0);	/* once */
	uet_lb_feed(&lb, 9, UET_LB_ACK, 0);
	uet_lb_feed(&lb, 2, UET_LB_ECN, 0);	/* marked: not recycled */
	uet_lb_feed(&lb, 3, UET_LB_TRIM, 0);
	uet_lb_feed(&lb, 4, UET_LB_LOSS, 0);
	cr_assert_eq(uet_lb_next(&lb, 0), 5);
	cr_assert_eq(uet_lb_next(&lb, 0), 9);
	cr_assert_eq(lb.recycled, 2);
	/* Empty: random exploration over every EV. */
	e = uet_lb_next(&lb, 0);
	cr_assert_lt(e, N);
}

Test(lb, reps_ring_keeps_the_newest)
{
	unsigned i;

	open_lb(UET_LB_REPS, 1, false);
	for (i = 0; i < UET_LB_RING + 3; i++)
		uet_lb_feed(&lb, (uint16_t)i, UET_LB_ACK, 0);
	for (i = 3; i < UET_LB_RING + 3; i++)
		cr_assert_eq(uet_lb_next(&lb, 0), i);
}

Test(lb, reps_freezes_after_timeout_with_trimming)
{
	unsigned i;

	open_lb(UET_LB_REPS, 1, true);
	uet_lb_feed(&lb, 7, UET_LB_ACK, 0);
	uet_lb_feed(&lb, 11, UET_LB_ACK, 0);
	uet_lb_feed(&lb, 1, UET_LB_TIMEOUT, 10);
	/* Frozen: only the known good EVs, over and over. */
	for (i = 0; i < 20; i++) {
		uint16_t e = uet_lb_next(&lb, 20);

		cr_assert(e == 7 || e == 11, "frozen, EV %u", e);
	}
	/* Thawed: they are used once more, then exploration. */
	cr_assert_eq(lb.n, 2);
	uet_lb_next(&lb, 10 + 100 * UET_USEC);
	uet_lb_next(&lb, 10 + 100 * UET_USEC);
	cr_assert_eq(lb.n, 0);
}

/* The bitmap skips a penalized EV, a penalty of p for p passes, and
 * after each use as many passes as its level says. */
Test(lb, bitmap_penalties)
{
	unsigned pass, i, uses7, uses3;

	open_lb(UET_LB_BITMAP, 1, false);
	uet_lb_feed(&lb, 7, UET_LB_TIMEOUT, 0);		/* retired: 15 */
	uet_lb_feed(&lb, 3, UET_LB_TRIM, 0);		/* 4 */
	uet_lb_feed(&lb, 9, UET_LB_ECN, 0);		/* 1 */
	uet_lb_feed(&lb, 9, UET_LB_ACK, 0);		/* clears nothing */
	cr_assert_eq(lb.pen[7], UET_LB_PEN_MAX);
	cr_assert_eq(lb.pen[3], 4);
	cr_assert_eq(lb.pen[9], 1);
	uses7 = uses3 = 0;
	for (pass = 0; pass < UET_LB_PEN_MAX + 1; pass++) {
		bool seen7 = false;

		/* N - 2 picks: a pass less the two it skips at most */
		for (i = 0; i < N; i++) {
			uint16_t e = uet_lb_next(&lb, 0);

			seen7 |= e == 7;
			uses3 += e == 3;
		}
		uses7 += seen7;
	}
	cr_assert_leq(uses7, 2, "retired EV used in %u of 16 passes", uses7);
	cr_assert_geq(uses7, 1, "retired EV never probed again");
	/* The trim also taught EV 3 a level of 12 passes (no clean ACK
	 * since): skipped 4 passes, used, skipped 12. The 256 picks and
	 * at most 44 skips are 16 to 19 passes, each with EV 3 once: its
	 * 5th visit is a use, its 18th may be, whatever the seed. Without
	 * the level it would be used in 12 of them. */
	cr_assert_geq(uses3, 1, "trimmed EV never used again");
	cr_assert_leq(uses3, 2, "trimmed EV used %u times", uses3);
	cr_assert_eq(lb.pen[7], 0, "the retired EV is back");
}

/* Picks of EV 5 among n, each answered at once: marked if bad, else a
 * clean ACK (as every other EV's). */
static unsigned uses_of_5(unsigned n, bool bad)
{
	unsigned i, uses = 0;

	for (i = 0; i < n; i++) {
		uint16_t e = uet_lb_next(&lb, 0);

		uses += e == 5;
		uet_lb_feed(&lb, e, e == 5 && bad ? UET_LB_ECN : UET_LB_ACK,
			    0);
	}
	return uses;
}

/* A path marked at every use (a degraded link) is a repeat offender:
 * the penalty alone, spent by a pass of skipping, brings it back every
 * other pass; the learnt level uses it less and less, down to once in
 * UET_LB_PEN_MAX + 1 passes. Clean ACKs bring it back. */
Test(lb, bitmap_learns_a_repeat_offender)
{
	unsigned late, back;

	open_lb(UET_LB_BITMAP, 1, true);
	uses_of_5(N * 400, true);
	late = uses_of_5(N * 64, true);
	cr_log_info("marked EV: %u uses in 64 passes", late);
	cr_assert_leq(late, 64 / (UET_LB_PEN_MAX + 1) + 1,
		      "a marked EV used %u times in 64 passes", late);
	cr_assert_geq(late, 3, "no longer probed");
	/* Healed: each clean use lowers its level by a quarter pass. */
	uses_of_5(N * 600, false);
	back = uses_of_5(N * 64, false);
	cr_assert_geq(back, 60, "a healed EV used %u times in 64 passes",
		      back);
}

/* Only congestion teaches the level: a failure retires the EV for
 * UET_LB_PEN_MAX passes and is then forgotten (a healed path is back at
 * once, ../pds/path_test.c). */
Test(lb, bitmap_level_from_congestion_only)
{
	open_lb(UET_LB_BITMAP, 1, true);
	uet_lb_feed(&lb, 1, UET_LB_TIMEOUT, 0);
	uet_lb_feed(&lb, 2, UET_LB_LOSS, 0);
	uet_lb_feed(&lb, 3, UET_LB_TRIM, 0);
	uet_lb_feed(&lb, 4, UET_LB_ECN, 0);
	cr_assert_eq(lb.lvl[1], 0);
	cr_assert_eq(lb.lvl[2], 0, "trimming: a loss is a failed path");
	cr_assert_eq(lb.lvl[3], 48, "a trim: 12 passes");
	cr_assert_eq(lb.lvl[4], 2, "a mark: half a pass");
	uet_lb_feed(&lb, 4, UET_LB_ACK, 0);
	cr_assert_eq(lb.lvl[4], 1, "a clean ACK: a quarter pass less");
	/* Without trimming a loss may be reordering: no level either. */
	open_lb(UET_LB_BITMAP, 1, false);
	uet_lb_feed(&lb, 2, UET_LB_LOSS, 0);
	cr_assert_eq(lb.lvl[2], 0);
}

/* With trimming a resend goes on the EV of the latest clean ACK while
 * no bad news came for it (bitmap, mixed): a known clean path, not the
 * next of the walk. Without trimming, the policy's pick. */
Test(lb, resend_on_the_last_clean_ev)
{
	static const uint8_t kinds[] = { UET_LB_BITMAP, UET_LB_MIXED };
	unsigned k;
	uint16_t e;

	for (k = 0; k < sizeof(kinds); k++) {
		open_lb(kinds[k], 1, true);
		uet_lb_feed(&lb, 6, UET_LB_ACK, 0);
		cr_assert_eq(uet_lb_resend(&lb, 3, 0), 6, "%s", lb.ops->name);
		cr_assert_eq(uet_lb_resend(&lb, 3, 0), 6, "%s", lb.ops->name);
		/* Not on the EV that lost the packet. */
		cr_assert_neq(uet_lb_resend(&lb, 6, 0), 6);
		/* Marked since: the policy's pick. */
		uet_lb_feed(&lb, 6, UET_LB_ECN, 0);
		e = uet_lb_resend(&lb, 3, 0);
		cr_assert(e != 6 && e != 3, "%s: EV %u", lb.ops->name, e);
		/* Timed out since (no level, a retirement): not either. */
		uet_lb_feed(&lb, 8, UET_LB_ACK, 0);
		cr_assert_eq(uet_lb_resend(&lb, 3, 0), 8);
		uet_lb_feed(&lb, 8, UET_LB_TIMEOUT, 0);
		e = uet_lb_resend(&lb, 3, 0);
		cr_assert(e != 8 && e != 3, "%s: EV %u", lb.ops->name, e);
		/* No trimming: the walk spreads RACK's bursts of resends. */
		open_lb(kinds[k], 1, false);
		uet_lb_feed(&lb, 6, UET_LB_ACK, 0);
		for (e = 0; e < 4; e++)
			if (uet_lb_resend(&lb, 3, 0) != 6)
				break;
		cr_assert_lt(e, 4, "%s: every resend on EV 6", lb.ops->name);
	}
}

Test(lb, bitmap_loss_retires_only_with_trimming)
{
	open_lb(UET_LB_BITMAP, 1, false);
	uet_lb_feed(&lb, 2, UET_LB_LOSS, 0);
	cr_assert_eq(lb.pen[2], 4, "a drop may be a full queue");
	open_lb(UET_LB_BITMAP, 1, true);
	uet_lb_feed(&lb, 2, UET_LB_LOSS, 0);
	cr_assert_eq(lb.pen[2], UET_LB_PEN_MAX, "trimming: a loss is a path");
}

Test(lb, bitmap_saturated_still_sends)
{
	unsigned i;

	open_lb(UET_LB_BITMAP, 1, false);
	for (i = 0; i < N; i++)
		uet_lb_feed(&lb, (uint16_t)i, UET_LB_TIMEOUT, 0);
	cr_assert_lt(uet_lb_next(&lb, 0), N);
}

/* Conserve (cfg.lb_delay): the walk passes over an EV whose last run is
 * still in flight, and takes it again once a packet of it landed; when
 * every EV is busy one goes anyway. */
Test(lb, bitmap_conserve_skips_busy_evs)
{
	uint16_t first, e;
	unsigned i;

	open_lb(UET_LB_BITMAP, 2, false);
	lb.conserve = true;
	first = uet_lb_next(&lb, 0);
	uet_lb_sent(&lb, first);
	cr_assert_eq(uet_lb_next(&lb, 0), first, "a run of 2 on one EV");
	uet_lb_sent(&lb, first);
	for (i = 0; i < 2 * N; i++) {
		e = uet_lb_next(&lb, 0);
		cr_assert_neq(e, first, "pick %u took the busy EV", i);
		uet_lb_sent(&lb, e);
		uet_lb_landed(&lb, e);
	}
	uet_lb_landed(&lb, first);
	for (i = 0; i < 2 * N && e != first; i++)
		e = uet_lb_next(&lb, 0);
	cr_assert_eq(e, first, "a run less one in flight: usable again");
	for (i = 0; i < N; i++)
		for (unsigned k = 0; k < 2; k++)
			uet_lb_sent(&lb, (uint16_t)i);
	cr_assert_lt(uet_lb_next(&lb, 0), N, "all busy: one goes anyway");
	lb.conserve = false;
	for (i = 0; i < N; i++)
		uet_lb_landed(&lb, (uint16_t)i);
	cr_assert_eq(lb.flight[first], 2, "1 + 2 sent, 1 landed");
}

/* Saturated with conserve: every EV busy, most sitting out a loss (a
 * dead path's). The pick is never one sitting out while another is not,
 * and of those sitting out, when all do, one goes anyway. */
Test(lb, bitmap_saturated_never_takes_an_ev_sitting_out)
{
	uint16_t e;
	unsigned i, k, got9 = 0;

	open_lb(UET_LB_BITMAP, 1, false);
	lb.conserve = true;
	for (i = 0; i < N; i++)
		for (k = 0; k < 3; k++)
			uet_lb_sent(&lb, (uint16_t)i);
	for (i = 0; i < N; i++)
		if (i != 4 && i != 9)
			uet_lb_feed(&lb, (uint16_t)i, UET_LB_LOSS, 0);
	uet_lb_landed(&lb, 9);
	for (i = 0; i < 4 * N; i++) {
		e = uet_lb_next(&lb, 0);
		cr_assert(e == 4 || e == 9, "pick %u: EV %u sits out a loss",
			  i, e);
		got9 += e == 9;
	}
	cr_assert_geq(lb.saturated, 4 * N);
	cr_assert_gt(got9, 0);
	uet_lb_feed(&lb, 4, UET_LB_LOSS, 0);
	uet_lb_feed(&lb, 9, UET_LB_LOSS, 0);
	cr_assert_lt(uet_lb_next(&lb, 0), N, "all out: one goes anyway");
}

/* An ACK leaves on its request's EV unless the PDC of ours to that peer
 * lost packets on it lately: then on the EV of the latest clean ACK, or
 * the next one the policy would take; never off its EV for a mark, nor
 * under single. */
Test(lb, steer_an_ack_off_an_ev_learnt_bad)
{
	open_lb(UET_LB_BITMAP, 1, false);
	lb.conserve = true;
	cr_assert_eq(uet_lb_steer(&lb, 0x8005, 0), 0x8005, "healthy: echo");
	cr_assert_eq(uet_lb_steer(&lb, UET_LB_NONE, 0), UET_LB_NONE);
	uet_lb_feed(&lb, 5, UET_LB_ECN, 0);
	cr_assert_eq(uet_lb_steer(&lb, 0x8005, 0), 0x8005, "a mark: echo");
	uet_lb_feed(&lb, 5, UET_LB_LOSS, 0);
	cr_assert_eq(uet_lb_steer(&lb, 0x8005, 0), 6, "no clean ACK yet");
	uet_lb_feed(&lb, 11, UET_LB_ACK, 0);
	cr_assert_eq(uet_lb_steer(&lb, 0x8005, 0), 11, "the latest clean");
	cr_assert_eq(uet_lb_steer(&lb, 0x8006, 0), 0x8006);
	uet_lb_feed(&lb, 11, UET_LB_LOSS, 0);
	cr_assert_eq(uet_lb_steer(&lb, 0x8005, 0), 6, "good went bad");
	for (unsigned i = 0; i < 8 * N; i++)	/* the penalty spent */
		uet_lb_next(&lb, UET_SEC);
	cr_assert_eq(uet_lb_steer(&lb, 0x8005, UET_SEC), 0x8005,
		     "back once the policy takes it again");
	/* Without conserve a loss only penalizes; a timeout retires. */
	lb.conserve = false;
	uet_lb_feed(&lb, 7, UET_LB_LOSS, UET_SEC);
	cr_assert_eq(uet_lb_steer(&lb, 0x8007, UET_SEC), 0x8007);
	uet_lb_feed(&lb, 7, UET_LB_TIMEOUT, UET_SEC);
	cr_assert_neq(uet_lb_steer(&lb, 0x8007, UET_SEC), 0x8007, "retired");
	open_lb(UET_LB_SINGLE, 1, false);
	uet_lb_feed(&lb, 5, UET_LB_TIMEOUT, 0);
	cr_assert_eq(uet_lb_steer(&lb, 0x8005, 0), 0x8005, "single: echo");
}

/* Conserve: an EV that lost a packet sits out hold / 8 (12.5 us here),
 * twice that after a second loss in a row; an ACK ends the row. */
static bool picked_within(uint16_t ev, unsigned picks, uet_time now)
{
	for (unsigned i = 0; i < picks; i++)
		if (uet_lb_next(&lb, now) == ev)
			return true;
	return false;
}

Test(lb, conserve_suspends_a_lossy_ev)
{
	const uet_time base = 100 * UET_USEC / 8;

	open_lb(UET_LB_BITMAP, 1, false);
	lb.conserve = true;
	uet_lb_feed(&lb, 5, UET_LB_LOSS, 0);
	cr_assert(uet_lb_suspended(&lb, 5, 0));
	cr_assert_not(picked_within(5, 4 * N, 0), "picked while out");
	cr_assert_not(uet_lb_suspended(&lb, 5, base));
	cr_assert(picked_within(5, 8 * N, base), "never back");
	uet_lb_feed(&lb, 5, UET_LB_LOSS, base);	/* the second in a row */
	cr_assert(uet_lb_suspended(&lb, 5, base + base));
	cr_assert_not(uet_lb_suspended(&lb, 5, base + 2 * base));
	uet_lb_feed(&lb, 5, UET_LB_ACK, 3 * base);
	uet_lb_feed(&lb, 5, UET_LB_LOSS, 3 * base);
	cr_assert_not(uet_lb_suspended(&lb, 5, 4 * base), "the row ended");
	lb.conserve = false;
	uet_lb_feed(&lb, 6, UET_LB_LOSS, 0);
	cr_assert_not(uet_lb_suspended(&lb, 6, 0), "only with conserve");
}

/* Probation: EVs back from sitting out a loss (a dead path's come back
 * together) carry one packet each, one EV at a time: until that packet
 * lands no other such EV is picked. A clean ACK ends the probation and
 * the EV takes whole runs again. */
static bool probation_ev(uint16_t e)
{
	return e == 2 || e == 5 || e == 7;
}

/* Picks at t until a probation EV comes (returned) or picks run out
 * (UET_LB_NONE); the others land at once, so none is busy. */
static uint16_t pick_to_probe(uet_time t, unsigned picks)
{
	for (unsigned i = 0; i < picks; i++) {
		uint16_t e = uet_lb_next(&lb, t);

		uet_lb_sent(&lb, e);
		if (probation_ev(e)) {
			cr_assert(lb.probation, "EV %u: not on probation", e);
			cr_assert_eq(uet_lb_run_left(&lb), lb.run,
				     "EV %u: a probe's run is one packet", e);
			return e;
		}
		cr_assert_not(lb.probation, "EV %u on probation", e);
		uet_lb_landed(&lb, e);
	}
	return UET_LB_NONE;
}

Test(lb, bitmap_probation_one_probe_at_a_time)
{
	const uet_time t = UET_MSEC;	/* every suspension over */
	uint16_t p1, p2, e;
	unsigned i, runs = 0;

	open_lb(UET_LB_BITMAP, 4, false);
	lb.conserve = true;
	uet_lb_feed(&lb, 2, UET_LB_LOSS, 0);
	uet_lb_feed(&lb, 5, UET_LB_LOSS, 0);
	uet_lb_feed(&lb, 7, UET_LB_LOSS, 0);
	p1 = pick_to_probe(t, 64 * N);
	cr_assert_neq(p1, UET_LB_NONE, "no EV back from sitting out");
	cr_assert_eq(pick_to_probe(t, 64 * N), UET_LB_NONE,
		     "a second probe while EV %u's is out", p1);
	/* No resend goes on probation, nor a pick the caller keeps off
	 * it (lb.no_probe: a PDC's last packet for now). */
	uet_lb_landed(&lb, p1);
	for (i = 0; i < 16 * N; i++) {
		e = uet_lb_resend(&lb, 0, t);
		cr_assert_not(probation_ev(e), "resend %u on EV %u", i, e);
	}
	lb.no_probe = true;
	for (i = 0; i < 16 * N; i++) {
		e = uet_lb_next(&lb, t);
		cr_assert_not(probation_ev(e), "pick %u on EV %u", i, e);
	}
	lb.no_probe = false;
	/* Lost too: it sits out longer, and the next one may go. */
	uet_lb_feed(&lb, p1, UET_LB_LOSS, t);
	p2 = pick_to_probe(t, 64 * N);
	cr_assert(p2 != UET_LB_NONE && p2 != p1, "EV %u after EV %u", p2,
		  p1);
	/* Through: the row ends, whole runs again. */
	uet_lb_landed(&lb, p2);
	uet_lb_feed(&lb, p2, UET_LB_ACK, t);
	for (i = 0; i < 64 * N; i++) {
		e = uet_lb_next(&lb, t);
		if (e == p2 && lb.used == 1) {
			cr_assert_eq(uet_lb_run_left(&lb), lb.run - 1u);
			runs++;
		}
	}
	cr_assert_gt(runs, 0, "EV %u unused after its clean ACK", p2);
	/* Without conserve nothing sits out, nothing is on probation. */
	open_lb(UET_LB_BITMAP, 4, false);
	uet_lb_feed(&lb, 2, UET_LB_LOSS, 0);
	for (i = 0; i < 64 * N; i++) {
		uet_lb_next(&lb, t);
		cr_assert_not(lb.probation);
	}
}

/* A long hold (4 s: FI_UET_RTO_MS at 1000): the fifth loss in a row
 * sits out 16 x 0.5 s, past what 32 bits of nanoseconds hold. */
Test(lb, conserve_suspension_past_four_seconds)
{
	uet_lb_init(&lb, UET_LB_BITMAP, N, 1, false, 4 * UET_SEC, SEED);
	lb.conserve = true;
	for (unsigned i = 0; i < 5; i++)
		uet_lb_feed(&lb, 5, UET_LB_LOSS, 0);
	cr_assert(uet_lb_suspended(&lb, 5, 8 * UET_SEC - UET_MSEC));
	cr_assert_not(uet_lb_suspended(&lb, 5, 8 * UET_SEC));
}

Test(lb, mixed_recycles_unless_penalized_since)
{
	uint16_t e;
	unsigned i;

	open_lb(UET_LB_MIXED, 1, false);
	uet_lb_feed(&lb, 4, UET_LB_ACK, 0);
	uet_lb_feed(&lb, 6, UET_LB_ACK, 0);
	uet_lb_feed(&lb, 4, UET_LB_ECN, 0);	/* marked after */
	cr_assert_eq(uet_lb_next(&lb, 0), 6);
	/* Then the bitmap walk, which skips 4 once. */
	for (i = 0; i < N - 1; i++) {
		e = uet_lb_next(&lb, 0);
		cr_assert_neq(e, 4);
	}
}

/* A resend never goes on the EV that lost its packet (while there is
 * another), whatever the policy. */
Test(lb, resend_avoids_the_lost_ev)
{
	static const uint8_t kinds[] = { UET_LB_SINGLE, UET_LB_OBLIVIOUS,
					 UET_LB_REPS, UET_LB_BITMAP,
					 UET_LB_MIXED };
	unsigned k, i;

	for (k = 0; k < sizeof(kinds); k++) {
		open_lb(kinds[k], 1, false);
		for (i = 0; i < 200; i++) {
			uint16_t lost = uet_lb_next(&lb, 0);

			uet_lb_feed(&lb, lost, UET_LB_ACK, 0);
			cr_assert_neq(uet_lb_resend(&lb, lost, 0), lost,
				      "%s", lb.ops->name);
		}
	}
	uet_lb_init(&lb, UET_LB_MIXED, 1, 1, false, 0, SEED);
	cr_assert_eq(uet_lb_resend(&lb, 0, 0), 0, "one EV: no other");
}

/* Four paths by EV % 4, one dead, 32 packets in flight (the answer to
 * a packet comes 32 picks later): the bitmap and mixed keep the dead
 * path's EVs for probes only, oblivious spends a quarter on it. */
#define FLIGHT	32u

static unsigned dead_share(uint8_t kind)
{
	uint16_t fl[FLIGHT];
	unsigned i, dead = 0;

	open_lb(kind, 1, false);
	for (i = 0; i < 1600; i++) {
		uint16_t e = uet_lb_next(&lb, i * UET_USEC);

		if (i >= FLIGHT) {
			uint16_t o = fl[i % FLIGHT];

			uet_lb_feed(&lb, o, o % 4 == 1 ? UET_LB_TIMEOUT :
							 UET_LB_ACK,
				    i * UET_USEC);
		}
		fl[i % FLIGHT] = e;
		dead += e % 4 == 1;
	}
	return dead;
}

Test(lb, dead_path_avoided)
{
	unsigned obl = dead_share(UET_LB_OBLIVIOUS);
	unsigned bm = dead_share(UET_LB_BITMAP);
	unsigned mx = dead_share(UET_LB_MIXED);
	unsigned reps = dead_share(UET_LB_REPS);

	cr_log_info("packets on the dead path of 1600: oblivious %u bitmap "
		    "%u mixed %u reps %u", obl, bm, mx, reps);
	cr_assert_eq(obl, 400);
	cr_assert_lt(bm, 100);
	cr_assert_lt(mx, 100);
	cr_assert_lt(reps, 200);
}

/* An EV chosen outside the policy (a response sharing its ACK's socket,
 * pds/ini.c): any EV in range that no bad news put out, never under
 * single. */
Test(lb, may_take_an_ev_the_policy_does_not_avoid)
{
	open_lb(UET_LB_BITMAP, 1, false);
	lb.conserve = true;
	cr_assert(uet_lb_may_take(&lb, 5, 0));
	cr_assert_not(uet_lb_may_take(&lb, N, 0), "out of range");
	uet_lb_feed(&lb, 5, UET_LB_ECN, 0);
	cr_assert_not(uet_lb_may_take(&lb, 5, 0), "penalized");
	uet_lb_feed(&lb, 6, UET_LB_LOSS, 0);
	cr_assert_not(uet_lb_may_take(&lb, 6, 0), "suspended");
	cr_assert(uet_lb_may_take(&lb, 7, 0));
	open_lb(UET_LB_SINGLE, 1, false);
	cr_assert_not(uet_lb_may_take(&lb, uet_lb_next(&lb, 0), 0),
		      "single keeps its path");
}
