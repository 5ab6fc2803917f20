/* ACKs (docs/choices.md §3): what triggers them, coalescing by ack_every and
 * ack_delay, the response of the triggering PSN, SACK bitmaps over holes,
 * ECN-CE -> flag M at once, the window, entropy spraying. */
#include "../fixtures/pds_test_util.h"

#include "psn.h"
#include "tgt.h"

TestSuite(ack, .fini = t_fini);

/* 184-byte packets (12 PDS + 44 SES + 128) arrive 10 us apart. */
#define PACED_RATE	(184u * 100000u)

Test(ack, coalesced_every_n_packets)
{
	struct uet_mem_impair imp = { .rate = PACED_RATE };
	struct uet_fep_config c = t_cfg();
	uint32_t p0;
	size_t i, n = 0;

	c.ack_every = 4;
	c.ack_delay = 10 * UET_MSEC;
	t_init(2, &c, NULL);
	t_establish(0, 1);
	t_impair(1, &imp);
	t_send(0, 1, 16 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	p0 = t_nth(0, UET_PDS_RUD_REQ, 0)->p.pds.req.psn;
	for (i = 0; i < T.nlog; i++) {
		const struct tlog *e = &T.log[i];

		if (e->node != 1 || !t_is_ack(e))
			continue;
		/* ACKs at packets 4, 8, 12, 16, each about its trigger. */
		cr_assert_eq(e->p.pds.ack.cack_psn, p0 + 4 * n + 3,
			     "ACK %zu cack %u", n, e->p.pds.ack.cack_psn - p0);
		cr_assert_eq(t_ack_psn(e), p0 + 4 * n + 3);
		n++;
	}
	cr_assert_eq(n, 4, "%zu ACKs for 16 packets, ack_every 4", n);
}

Test(ack, delayed_ack_after_ack_delay)
{
	struct uet_mem_impair imp = { .drop_mask = 1u << 2 };
	struct uet_fep_config c = t_cfg();
	const struct tlog *ack;
	uet_time t0;
	uint32_t p0;

	c.ack_delay = 300 * UET_USEC;
	t_init(2, &c, NULL);
	t_establish(0, 1);
	t_impair(1, &imp);	/* the EOM packet (with AR) is lost */
	t0 = T.h.now;
	t_send(0, 1, 3 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	p0 = t_nth(0, UET_PDS_RUD_REQ, 0)->p.pds.req.psn;
	ack = t_nth(1, 0, 0);
	cr_assert_not_null(ack);
	cr_assert_eq(ack->t, t0 + c.ack_delay, "first ACK at +%lu ns",
		     (unsigned long)(ack->t - t0));
	cr_assert_eq(ack->p.pds.ack.cack_psn, p0 + 1);
	cr_assert_eq(ack->p.pds.type, UET_PDS_ACK, "no hole, plain ACK");
}

Test(ack, carries_response_of_trigger)
{
	const struct tlog *ack, *req;
	struct uet_ses *tx;

	t_init(2, NULL, NULL);
	t_send(0, 1, T_SEG);
	t_run_done(T_LIMIT);
	req = t_nth(0, UET_PDS_RUD_REQ, 0);
	ack = t_nth(1, 0, 0);
	cr_assert_eq(t_ack_psn(ack), req->p.pds.req.psn);
	cr_assert_eq(ack->p.pds.next_hdr, UET_NH_RSP);
	cr_assert(ack->p.has_rsp);
	cr_assert_eq(ack->p.rsp.opcode, UET_SES_RESPONSE);
	cr_assert_eq(ack->p.rsp.message_id, req->p.req.message_id);
	tx = t_ses(0);
	cr_assert_eq(tx->msgs[0].rsps, 1, "SES did not get the response");
	cr_assert_eq(tx->msgs[0].last_len, T_SEG);
}

Test(ack, sack_reports_holes)
{
	struct uet_mem_impair imp = { .drop_mask = (1u << 1) | (1u << 3) };
	const struct tlog *eom_ack = NULL, *last_ack;
	uint32_t p0;
	size_t i;

	t_init(2, NULL, NULL);
	t_establish(0, 1);
	t_impair(1, &imp);
	t_send(0, 1, 8 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	p0 = t_nth(0, UET_PDS_RUD_REQ, 0)->p.pds.req.psn;
	for (i = 0; i < T.nlog; i++) {
		const struct tlog *e = &T.log[i];

		if (e->node == 1 && t_is_ack(e) && t_ack_psn(e) == p0 + 7) {
			eom_ack = e;
			break;
		}
	}
	cr_assert_not_null(eom_ack, "the EOM packet was not ACKed");
	cr_assert_eq(eom_ack->p.pds.type, UET_PDS_ACK_CC);
	cr_assert_eq(eom_ack->p.pds.ack.cack_psn, p0);
	cr_assert_eq(eom_ack->p.pds.ack.sack_psn_offset, 1);
	/* bit i <-> p0 + 1 + i: 1 and 3 missing, 2 and 4..7 here */
	cr_assert_eq(eom_ack->p.pds.ack.sack_bitmap, 0x7Aull, "bitmap 0x%lx",
		     (unsigned long)eom_ack->p.pds.ack.sack_bitmap);
	cr_assert_eq(eom_ack->p.pds.ack.mpr, 8, "MP_RANGE 1024 = mpr 8");
	cr_assert_eq(eom_ack->p.pds.ack.cc_type, UET_CC_NSCC);
	/* Exactly the two holes were resent, nothing SACKed. */
	cr_assert_eq(t_reqs(0), 10);
	cr_assert_eq(t_stats(0).retx_rto, 2);
	cr_assert_geq(t_stats(1).sack_gaps, 2);
	last_ack = t_last(1, UET_PDS_ACK);
	cr_assert_not_null(last_ack);
	cr_assert_eq(last_ack->p.pds.ack.cack_psn, p0 + 7);
	cr_assert_not_null(t_last(1, UET_PDS_ACK_CC));
	cr_assert_eq(t_last(1, UET_PDS_ACK_CC)->t <= last_ack->t, true,
		     "holes closed, yet an ACK_CC came last");
}

Test(ack, ecn_ce_acked_at_once_with_m)
{
	struct uet_mem_impair imp = { .mark_mask = 1u << 1,
				      .rate = PACED_RATE };
	struct uet_fep_config c = t_cfg();
	const struct tlog *req1 = NULL, *m_ack = NULL;
	size_t i;

	c.ack_delay = 10 * UET_MSEC;
	t_init(2, &c, NULL);
	t_establish(0, 1);
	cr_assert_eq(t_count(1, 0, UET_PDS_F_M), 0);
	t_impair(1, &imp);
	t_send(0, 1, 4 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	req1 = t_nth(0, UET_PDS_RUD_REQ, 1);
	cr_assert_not(req1->p.pds.flags & UET_PDS_F_AR);
	for (i = 0; i < T.nlog; i++)
		if (T.log[i].node == 1 && t_is_ack(&T.log[i]) &&
		    (T.log[i].p.pds.flags & UET_PDS_F_M))
			m_ack = m_ack ? m_ack : &T.log[i];
	cr_assert_not_null(m_ack, "no ACK with M");
	cr_assert_eq(t_ack_psn(m_ack), req1->p.pds.req.psn);
	cr_assert_eq(m_ack->t, req1->t + 2 * 10 * UET_USEC,
		     "the CE packet waited for its ACK");
	cr_assert_eq(t_count(1, 0, UET_PDS_F_M), 1, "M stuck to later ACKs");
}

Test(ack, window_bounds_packets_in_flight)
{
	struct uet_mem_impair imp = { .delay = 1 * UET_MSEC };
	struct uet_fep_config c = t_cfg();
	uet_time first_ack_in;
	size_t i, early = 0;

	c.window = 5;	/* the ring holds 8: the window must be what stops */
	c.rto_min = 10 * UET_MSEC;
	c.rto_max = 100 * UET_MSEC;
	t_init(2, &c, NULL);
	t_impair(0, &imp);
	t_impair(1, &imp);
	t_send(0, 1, 20 * T_SEG);
	t_run_done(T_LIMIT);
	t_check_delivery(0, 1);
	first_ack_in = t_nth(1, 0, 0)->t + imp.delay;
	for (i = 0; i < T.nlog; i++)
		if (T.log[i].node == 0 && t_is_req(&T.log[i]) &&
		    T.log[i].t < first_ack_in)
			early++;
	cr_assert_eq(early, 5, "%zu packets before the first ACK", early);
	cr_assert_not(t_nth(0, UET_PDS_RUD_REQ, 3)->p.pds.flags & UET_PDS_F_AR);
	cr_assert(t_nth(0, UET_PDS_RUD_REQ, 4)->p.pds.flags & UET_PDS_F_AR,
		  "the packet that fills the window asks for an ACK");
	cr_assert_eq(t_stats(0).retx_rto, 0);
}

Test(ack, rud_sprays_entropy)
{
	struct uet_fep_config c = t_cfg();
	bool seen[16] = { false };
	unsigned i, distinct = 0;

	c.entropy_count = 16;
	c.entropy_run = 1;
	c.lb = UET_LB_OBLIVIOUS;	/* every value once per pass */
	t_init(2, &c, NULL);
	t_send(0, 1, 32 * T_SEG);
	t_run_done(T_LIMIT);
	for (i = 0; i < 32; i++) {
		uint16_t e = t_nth(0, UET_PDS_RUD_REQ, i)->pi.entropy;

		cr_assert_lt(e, 16);
		if (!seen[e])
			distinct++;
		seen[e] = true;
	}
	cr_assert_eq(distinct, 16, "RUD used %u of 16 paths", distinct);
}

/* Runs of entropy_run packets per value (one GSO train each), a new
 * value for each run (oblivious: no value twice in a pass of 16). The
 * walk starts at a random place in its pass (UE 1.0 §3.6.16.3), so the 8 runs
 * may end one pass and begin the next: one repeat at most. */
Test(ack, rud_entropy_runs)
{
	struct uet_fep_config c = t_cfg();
	bool seen[16] = { false };
	unsigned i, passes = 1;
	uint16_t e;

	c.entropy_count = 16;
	c.entropy_run = 4;
	c.lb = UET_LB_OBLIVIOUS;
	t_init(2, &c, NULL);
	t_send(0, 1, 32 * T_SEG);
	t_run_done(T_LIMIT);
	for (i = 0; i < 32; i++) {
		e = t_nth(0, UET_PDS_RUD_REQ, i)->pi.entropy;
		cr_assert_lt(e, 16);
		if (i % 4) {
			cr_assert_eq(e, t_nth(0, UET_PDS_RUD_REQ, i - 1)->pi.entropy,
				     "packet %u leaves its run", i);
			continue;
		}
		if (seen[e]) {
			memset(seen, 0, sizeof(seen));
			passes++;
		}
		cr_assert_leq(passes, 2, "run %u on entropy %u again", i / 4,
			      e);
		seen[e] = true;
	}
}

/* Two PDCs with packets to send take turns run by run (entropy_run new
 * packets each, one socket: one system call), not packet by packet. A
 * turn ends where its run does (the PDC's next packet takes another
 * value), so it is a run or the rest of one: the packet that opened the
 * PDC began its first run. */
Test(ack, pdcs_take_turns_by_runs)
{
	struct uet_fep_config c = t_cfg();
	const struct tlog *prev = NULL, *end[3] = { NULL };
	unsigned i, n = 0, len = 0, switches = 0;

	c.entropy_count = 16;
	c.entropy_run = 4;
	c.lb = UET_LB_OBLIVIOUS;
	t_init(3, &c, NULL);
	t_establish(0, 1);
	t_establish(0, 2);
	t_send(0, 1, 32 * T_SEG);
	t_send(0, 2, 32 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	t_check_delivery(0, 2);
	for (i = 0; i < T.nlog; i++) {
		const struct tlog *e = &T.log[i];
		unsigned to = uet_addr_equal(&e->pi.dst, &T.h.node[1].addr) ?
			      1 : 2;

		if (e->node != 0 || e->p.pds.type != UET_PDS_RUD_REQ)
			continue;
		n++;
		if (end[to]) {
			cr_assert_neq(e->pi.entropy, end[to]->pi.entropy,
				      "a turn ended inside its run");
			end[to] = NULL;
		}
		if (prev && !uet_addr_equal(&prev->pi.dst, &e->pi.dst)) {
			cr_assert_leq(len, 4, "a turn of %u packets", len);
			end[3 - to] = prev;
			switches++;
			len = 0;
		}
		len++;
		prev = e;
	}
	cr_assert_eq(n, 64);
	cr_assert_geq(switches, 2, "one PDC sent all before the other");
	cr_assert_leq(switches, 17, "%u turns for 64 packets", switches);
}

/* Sends of new data packets after the first window, grouped by the
 * instant they left: how many groups, and how many fall short of a run
 * (the message's last packets aside). The link serialises, and every
 * packet is ACKed as it lands, so each ACK opens the window by one. */
static void runs_after_first_window(bool whole, unsigned *groups,
				    unsigned *short_)
{
	struct uet_mem_impair imp = { .delay = 100 * UET_USEC };
	struct uet_mem_impair link = {
		.delay = 100 * UET_USEC,
		.rate = 20000000,	/* ~10 us a packet */
	};
	struct uet_fep_config c = t_cfg();
	const struct tlog *prev = NULL;
	unsigned i, n = 0, len = 0;

	c.window = 12;
	c.entropy_count = 16;
	c.entropy_run = 4;
	c.ack_every = 1;
	c.run_whole = whole;
	c.lb = UET_LB_OBLIVIOUS;
	t_init(2, &c, NULL);
	t_impair(0, &imp);
	t_impair(1, &link);
	t_send(0, 1, 64 * T_SEG);
	t_run_done(T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_eq(t_stats(0).retx_rto, 0);
	*groups = *short_ = 0;
	for (i = 0; i < T.nlog; i++) {
		const struct tlog *e = &T.log[i];

		if (e->node != 0 || e->p.pds.type != UET_PDS_RUD_REQ)
			continue;
		if (++n <= 12)		/* the first window */
			continue;
		if (prev && e->t == prev->t) {
			len++;
		} else {
			if (prev && len < 4)
				(*short_)++;
			(*groups)++;
			len = 1;
		}
		prev = e;
	}
	cr_assert_eq(n, 64);
}

/* cfg.run_whole: once a run is in flight, the next run waits until the
 * window holds all of it and leaves at once, on one value (one GSO
 * train). */
Test(ack, runs_leave_whole)
{
	unsigned groups, short_;

	runs_after_first_window(true, &groups, &short_);
	cr_assert_eq(short_, 0, "%u of %u sends below a run", short_, groups);
	cr_assert_leq(groups, 13, "%u sends for 52 packets", groups);
}

/* Without it each ACK lets one packet out (the case it is for). */
Test(ack, runs_trickle_without_run_whole)
{
	unsigned groups, short_;

	runs_after_first_window(false, &groups, &short_);
	cr_assert_geq(short_, 40, "%u of %u sends below a run", short_,
		      groups);
}

/* A window smaller than a run never waits for room it cannot have. */
Test(ack, window_below_a_run_never_waits)
{
	struct uet_fep_config c = t_cfg();

	c.window = 3;
	c.entropy_run = 8;
	c.run_whole = true;
	t_init(2, &c, NULL);
	t_send(0, 1, 40 * T_SEG);
	t_run_done(T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_eq(t_stats(0).retx_rto, 0);
	cr_assert_eq(t_stats(0).retx_tlp, 0);
}

Test(ack, duplicate_gets_default_response)
{
	struct uet_mem_impair imp = { .dup_mask = 1 };
	const struct tlog *e;
	size_t i, defaults = 0;

	t_init(2, NULL, NULL);
	t_establish(0, 1);
	t_impair(1, &imp);
	t_send(0, 1, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_eq(t_stats(1).dup_rx, 1);
	for (i = 0; i < T.nlog; i++) {
		e = &T.log[i];
		if (e->node == 1 && t_is_ack(e) && e->p.has_rsp &&
		    e->p.rsp.opcode == UET_SES_DEFAULT_RESPONSE)
			defaults++;
	}
	cr_assert_eq(defaults, 1);
	cr_assert_eq(t_ses(1)->rx_pkts, 2, "SES saw the duplicate");
}

Test(ack, last_packet_of_message_asks_for_ack)
{
	struct uet_fep_config c = t_cfg();
	const struct tlog *ack;
	uet_time t0;

	c.ack_delay = 10 * UET_MSEC;
	t_init(2, &c, NULL);
	t_establish(0, 1);
	t0 = T.h.now;
	t_send(0, 1, 3 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_not(t_nth(0, UET_PDS_RUD_REQ, 0)->p.pds.flags & UET_PDS_F_AR);
	cr_assert_not(t_nth(0, UET_PDS_RUD_REQ, 1)->p.pds.flags & UET_PDS_F_AR);
	cr_assert(t_nth(0, UET_PDS_RUD_REQ, 2)->p.pds.flags & UET_PDS_F_AR);
	ack = t_nth(1, 0, 0);
	cr_assert_eq(ack->t, t0, "the ACK waited %lu ns",
		     (unsigned long)(ack->t - t0));
	cr_assert_eq(t_ack_psn(ack),
		     t_nth(0, UET_PDS_RUD_REQ, 2)->p.pds.req.psn);
	cr_assert_eq(T.last_at[0], t0, "completion waited for ack_delay");
}

/* The first ACK of a PDC is an ACK_CC: its mpr (1024 PSNs) lets the
 * initiator use a window above the 128 PSNs it assumes before. */
Test(ack, first_ack_advertises_mp_range)
{
	struct uet_mem_impair imp = { .delay = 1 * UET_MSEC };
	struct uet_fep_config c = t_cfg();
	const struct tlog *first;
	size_t i, early = 0;
	uet_time t0;

	c.window = 200;
	c.rto_min = 20 * UET_MSEC;
	c.rto_max = 100 * UET_MSEC;
	t_init(2, &c, NULL);
	t_establish(0, 1);
	t_impair(0, &imp);
	t_impair(1, &imp);
	first = NULL;
	t0 = T.h.now;
	t_send(0, 1, 200 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	for (i = 0; i < T.nlog; i++)
		if (T.log[i].node == 0 && t_is_req(&T.log[i]) &&
		    T.log[i].t == t0)
			early++;
	cr_assert_eq(early, 200, "%zu sent at once: MPR not learned", early);
	/* Later ACKs without holes are plain. */
	for (i = 0; i < T.nlog; i++)
		if (T.log[i].node == 1 && t_is_ack(&T.log[i]))
			first = first ? first : &T.log[i];
	cr_assert_not_null(first);
	cr_assert_eq(first->p.pds.type, UET_PDS_ACK);
}

Test(ack, syn_ack_is_ack_cc_with_mpr)
{
	const struct tlog *a;

	t_init(2, NULL, NULL);
	t_send(0, 1, T_SEG);
	t_run_done(T_LIMIT);
	a = t_nth(1, 0, 0);
	cr_assert_eq(a->p.pds.type, UET_PDS_ACK_CC);
	cr_assert_eq(a->p.pds.ack.mpr, 8);
	cr_assert_eq(a->p.pds.ack.sack_bitmap, 0);
}

/* ACK_CC's ooo_count (docs/choices.md §3.2): the PSNs that arrived
 * above the first missing one. Packet 3 of 10 is lost once; every ACK
 * until its resend names how many overtook it, none after. */
static uint32_t ooo_lost;

static bool drop_ooo_lost(const struct tlog *e)
{
	return e->node == 0 && t_is_req(e) && e->p.pds.req.psn == ooo_lost &&
	       !(e->p.pds.flags & UET_PDS_F_RETX);
}

Test(ack, ooo_count_counts_what_overtook_the_hole)
{
	struct uet_mem_impair imp = { .rate = PACED_RATE };
	struct uet_fep_config c = t_cfg();
	struct t_pdc ids;
	size_t i, n = 0;
	bool filled = false;

	c.ack_every = 1;
	t_init(2, &c, NULL);
	ids = t_establish_ids(0, 1);
	t_impair(1, &imp);
	ooo_lost = ids.next + 3;
	T.drop = drop_ooo_lost;
	t_send(0, 1, 10 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	for (i = 0; i < T.nlog; i++) {
		const struct tlog *e = &T.log[i];
		uint32_t k = t_ack_psn(e) - ids.next;

		if (e->node == 0 && t_is_req(e) &&
		    (e->p.pds.flags & UET_PDS_F_RETX))
			filled = true;
		if (e->node != 1 || !t_is_ack(e))
			continue;
		if (filled || k < 3) {
			cr_assert_eq(e->p.pds.ack.cc.ooo_count, 0,
				     "ACK of %u: ooo %u", k,
				     e->p.pds.ack.cc.ooo_count);
			continue;
		}
		cr_assert_eq(e->p.pds.type, UET_PDS_ACK_CC);
		cr_assert_eq(e->p.pds.ack.cack_psn, ooo_lost - 1);
		cr_assert_eq(e->p.pds.ack.cc.ooo_count, k - 3,
			     "ACK of %u: ooo %u", k, e->p.pds.ack.cc.ooo_count);
		n++;
	}
	cr_assert(filled, "the hole was resent");
	cr_assert_eq(n, 6, "%zu ACKs above the hole", n);
}

/* docs/choices.md §3.1: an ACK that AR alone asks for waits up to
 * ack_hold for a packet of ours to the same peer and goes right behind
 * it, so a response is not sent after it. (The mem net has no delay.) */
static bool t_rx_of(struct uet_harness *h, void *arg)
{
	const uint64_t *want = arg;	/* node, packets */

	(void)h;
	return t_ses((unsigned)want[0])->rx_pkts >= want[1];
}

static const struct tlog *first_ack(unsigned node)
{
	for (size_t i = 0; i < T.nlog; i++)
		if (T.log[i].node == node && t_is_ack(&T.log[i]))
			return &T.log[i];
	return NULL;
}

static void hold_init(bool reverse)
{
	struct uet_fep_config c = t_cfg();

	c.ack_delay = 10 * UET_MSEC;
	c.ack_hold = 20 * UET_USEC;
	t_init(2, &c, NULL);
	t_establish(0, 1);
	if (reverse)
		t_establish(1, 0);	/* node 1 has a PDC to send on */
}

Test(ack, held_ack_rides_behind_a_response)
{
	const struct tlog *req, *ack;
	uint64_t want[2] = { 1, 0 };
	uet_time t_rx;

	hold_init(true);
	want[1] = t_ses(1)->rx_pkts + 1;
	t_send(0, 1, T_SEG);
	cr_assert(uet_harness_run(&T.h, t_rx_of, want,
				  T.h.now + T_LIMIT));
	t_rx = T.h.now;
	/* the application answers 3 us later */
	uet_harness_run(&T.h, NULL, NULL, t_rx + 3 * UET_USEC);
	cr_assert_null(first_ack(1), "the ACK went before the response");
	T.h.now = t_rx + 3 * UET_USEC;
	t_send(1, 0, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	req = t_nth(1, UET_PDS_RUD_REQ, 0);
	ack = first_ack(1);
	cr_assert_not_null(ack);
	cr_assert_lt(req, ack, "the response leaves first");
	cr_assert_eq(ack->t, t_rx + 3 * UET_USEC,
		     "the ACK rides right behind it (%lu ns after the "
		     "request arrived)", (unsigned long)(ack->t - t_rx));
	cr_assert_eq(t_ack_psn(ack),
		     t_nth(0, UET_PDS_RUD_REQ, 0)->p.pds.req.psn);
}

/* Node 0 sends node 1 a packet; once it is in, node 1 sends response
 * bytes back, ACKs held for ack_hold 20 us or not (hold), runs of run
 * packets, an ACK every every; run until all is done. */
static bool held_response_rod;	/* held_response on ROD PDCs */

static void held_response(bool hold, uint16_t run, unsigned every,
			  size_t response)
{
	struct uet_fep_config c = t_cfg();
	uint64_t want[2] = { 1, 0 };

	c.rod = held_response_rod;
	c.ack_delay = 10 * UET_MSEC;
	c.ack_hold = hold ? 20 * UET_USEC : 0;
	c.entropy_run = run;
	c.ack_every = every;
	t_init(2, &c, NULL);
	t_establish(0, 1);
	t_establish(1, 0);
	want[1] = t_ses(1)->rx_pkts + 1;
	t_send(0, 1, T_SEG);
	cr_assert(uet_harness_run(&T.h, t_rx_of, want,
				  T.h.now + T_LIMIT));
	t_send(1, 0, response);
	t_run_done(T.h.now + T_LIMIT);
}

/* A longer response: the held ACK goes behind all of one of up to a run
 * of packets (one GSO train), after the run's last packet of a longer
 * one, or right after its first when UET_ACK_HOLD_LONG bytes follow, not
 * behind all of it, which would hold the peer's send completion for the
 * response's whole time. Returns how many of the response's packets
 * went before node 1's first ACK. */
static size_t reqs_before_held_ack(size_t response, uint16_t run)
{
	const struct tlog *ack;
	size_t i, before = 0;

	held_response(true, run, 16, response);
	ack = first_ack(1);
	cr_assert_not_null(ack);
	for (i = 0; &T.log[i] != ack; i++)
		if (T.log[i].node == 1 && t_is_req(&T.log[i]))
			before++;
	return before;
}

Test(ack, held_ack_follows_a_response_of_one_run)
{
	cr_assert_eq(reqs_before_held_ack(12 * T_SEG, 16), 12);
}

Test(ack, held_ack_follows_the_first_run_of_a_longer_response)
{
	cr_assert_eq(reqs_before_held_ack(12 * T_SEG, 4), 4);
}

Test(ack, held_ack_follows_the_first_packet_of_a_long_response)
{
	cr_assert_eq(reqs_before_held_ack(UET_ACK_HOLD_LONG + 2 * T_SEG, 16),
		     1);
}

/* The hint SES gets to cut a response evenly (ini.c ini_even_max): with
 * an ACK held for the response, the balancer's run or ack_every - 1
 * packets, whichever is fewer (the peer's ACK of ack_every packets would
 * not wait); nothing held, none. */
static uint8_t response_even_max(bool hold, uint16_t run, unsigned every)
{
	const struct uet_ses *s;

	held_response(hold, run, every, 3 * T_SEG);
	s = t_ses(1);
	return s->msgs[s->nmsgs - 1].even_max;
}

Test(ack, held_ack_asks_for_an_even_response)
{
	cr_assert_eq(response_even_max(true, 64, 16), 15);
}

Test(ack, even_response_within_the_run)
{
	cr_assert_eq(response_even_max(true, 8, 16), 8);
}

Test(ack, no_even_response_without_a_held_ack)
{
	cr_assert_eq(response_even_max(false, 64, 16), 0);
}

/* ROD keeps its PDC's one EV, so the ACK leaves from another socket
 * whatever the cut (ini.c ini_pick_ev). */
Test(ack, no_even_response_on_rod)
{
	held_response_rod = true;
	cr_assert_eq(response_even_max(true, 64, 16), 0);
	held_response_rod = false;
}

/* A one-packet response carrying a held ACK takes the ACK's EV modulo
 * entropy_count, so that the two share a spray socket (ini.c
 * ini_pick_ev); with rod, single-path, it keeps its PDC's one EV. Runs
 * node 0 -> 1, then the response 1 -> 0 3 us later; *req_ev and *ack_ev
 * get the EVs node 1's response and ACK left on, *prev_ev that of node
 * 1's request before (t_establish). */
static uint16_t held_ack_run;	/* entropy_run of held_ack_evs (0: default) */

static void held_ack_evs(bool rod, bool inject, size_t response,
			 uint16_t *req_ev, uint16_t *ack_ev, uint16_t *prev_ev)
{
	struct uet_fep_config c = t_cfg();
	const struct tlog *req, *ack;
	uint64_t want[2] = { 1, 0 };

	c.ack_delay = 10 * UET_MSEC;
	c.ack_hold = 20 * UET_USEC;
	c.entropy_count = 16;
	if (held_ack_run)
		c.entropy_run = held_ack_run;
	c.rod = rod;
	t_init(2, &c, NULL);
	t_establish(0, 1);
	t_establish(1, 0);
	/* Past the SYN: node 1's PDC on its own EVs. Node 0's next
	 * requests take other EVs than its first. */
	t_send(1, 0, T_SEG);
	for (int i = 0; i < 3; i++)
		t_send(0, 1, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	*prev_ev = t_nth(1, rod ? UET_PDS_ROD_REQ : UET_PDS_RUD_REQ,
			 0)->pi.entropy;
	T.nlog = 0;
	want[1] = t_ses(1)->rx_pkts + 1;
	t_send(0, 1, T_SEG);
	cr_assert(uet_harness_run(&T.h, t_rx_of, want,
				  T.h.now + T_LIMIT));
	T.h.now += 3 * UET_USEC;
	if (inject)
		t_send_flags(1, 0, response, UET_OPF_INJECT);
	else
		t_send(1, 0, response);
	t_run_done(T.h.now + T_LIMIT);
	req = t_nth(1, rod ? UET_PDS_ROD_REQ : UET_PDS_RUD_REQ, 0);
	ack = first_ack(1);
	cr_assert_not_null(req);
	cr_assert_not_null(ack);
	cr_assert_lt(req, ack, "the response leaves first");
	*req_ev = req->pi.entropy;
	*ack_ev = ack->pi.entropy;
}

Test(ack, one_packet_response_shares_the_held_acks_ev)
{
	uint16_t req_ev, ack_ev, prev_ev;

	held_ack_evs(false, false, T_SEG, &req_ev, &ack_ev, &prev_ev);
	cr_assert_eq(req_ev, ack_ev % 16, "response EV %u, ACK EV %u",
		     req_ev, ack_ev);
}

/* A short response (one GSO train) keeps the ACK's EV for every packet
 * the ACK goes behind. */
Test(ack, short_response_shares_the_held_acks_ev)
{
	uint16_t req_ev, ack_ev, prev_ev;

	held_ack_evs(false, false, 3 * T_SEG, &req_ev, &ack_ev, &prev_ev);
	for (unsigned i = 0; i < 3; i++) {
		const struct tlog *r = t_nth(1, UET_PDS_RUD_REQ, i);

		cr_assert_lt(r, first_ack(1), "packet %u after the ACK", i);
		cr_assert_eq(r->pi.entropy, ack_ev % 16,
			     "packet %u: EV %u, ACK EV %u", i, r->pi.entropy,
			     ack_ev);
	}
}

/* A long response: the ACK goes behind its first packet, and the rest
 * of the run stays on the ACK's EV, so that the whole train leaves from
 * one socket in one sendmmsg; past the run the balancer sprays again. */
Test(ack, long_response_stays_on_the_held_acks_ev_for_a_run)
{
	uint16_t req_ev, ack_ev, prev_ev;
	unsigned i, other = 0;

	held_ack_evs(false, false, UET_ACK_HOLD_LONG + 2 * T_SEG, &req_ev,
		     &ack_ev, &prev_ev);
	cr_assert_lt(t_nth(1, UET_PDS_RUD_REQ, 0), first_ack(1));
	cr_assert_gt(t_nth(1, UET_PDS_RUD_REQ, 1), first_ack(1),
		     "the ACK went behind the first");
	for (i = 0; i < 16; i++)
		cr_assert_eq(t_nth(1, UET_PDS_RUD_REQ, i)->pi.entropy,
			     ack_ev % 16, "packet %u: EV %u, ACK EV %u", i,
			     t_nth(1, UET_PDS_RUD_REQ, i)->pi.entropy, ack_ev);
	for (; i < 32; i++)
		other += t_nth(1, UET_PDS_RUD_REQ, i)->pi.entropy !=
			 ack_ev % 16;
	cr_assert_gt(other, 0, "packets 16-31 all on the ACK's EV");
}

/* A response longer than a run: the ACK behind the run's last packet,
 * every packet up to it on the ACK's EV, the rest sprayed again. */
Test(ack, held_acks_ev_ends_with_the_run)
{
	uint16_t req_ev, ack_ev, prev_ev;
	unsigned i, other = 0;

	held_ack_run = 8;
	held_ack_evs(false, false, 12 * T_SEG, &req_ev, &ack_ev, &prev_ev);
	held_ack_run = 0;
	for (i = 0; i < 8; i++)
		cr_assert_eq(t_nth(1, UET_PDS_RUD_REQ, i)->pi.entropy,
			     ack_ev % 16, "packet %u", i);
	for (; i < 12; i++)
		other += t_nth(1, UET_PDS_RUD_REQ, i)->pi.entropy !=
			 ack_ev % 16;
	cr_assert_eq(other, 4, "%u of the last 4 on other EVs", other);
}

Test(ack, rod_response_keeps_its_path)
{
	uint16_t req_ev, ack_ev, prev_ev;

	held_ack_evs(true, false, T_SEG, &req_ev, &ack_ev, &prev_ev);
	cr_assert_neq(ack_ev % 16, prev_ev, "the case tells nothing");
	cr_assert_eq(req_ev, prev_ev, "response EV %u, its PDC's %u",
		     req_ev, prev_ev);
}

/* A ping-pong of waited messages whose peers take 1 to 15 us to answer:
 * every ACK waits for the answer (ack_hold), so the round trips a
 * sender measures swing with the peer's pace, not with any queue. With
 * cfg.lb_delay they once marked the EVs, whose penalties then kept the
 * answers off the held ACK's EV, and so off its socket: a system call
 * more per message, the ACK behind it (pp_median 1 KiB across a veth:
 * 9.0 against 7.2 us). Every answer must share its held ACK's EV. */
Test(ack, ping_pong_paces_are_no_queue)
{
	struct uet_fep_config c = t_cfg();
	unsigned round, shared = 0, acks = 0;
	size_t i;

	c.ack_delay = 10 * UET_MSEC;
	c.ack_hold = 20 * UET_USEC;
	c.entropy_count = 16;
	c.lb = UET_LB_BITMAP;
	c.lb_delay = true;
	t_init(2, &c, NULL);
	t_establish(0, 1);
	t_establish(1, 0);
	T.nlog = 0;
	for (round = 0; round < 60; round++) {
		unsigned from = round % 2, to = 1 - from;
		uint64_t want[2] = { to, t_ses(to)->rx_pkts + 1 };

		t_send(from, to, T_SEG);
		cr_assert(uet_harness_run(&T.h, t_rx_of, want,
					  T.h.now + T_LIMIT));
		T.h.now += (round % 5 ? 1 : 15) * UET_USEC;
	}
	t_run_done(T.h.now + T_LIMIT);
	/* From the third round on, each ACK rides behind a request of
	 * its node, which should have taken the ACK's EV. */
	for (i = 1; i < T.nlog; i++) {
		const struct tlog *a = &T.log[i], *r = &T.log[i - 1];

		if (!t_is_ack(a) || !t_is_req(r) || r->node != a->node ||
		    r->t != a->t)
			continue;
		acks++;
		shared += r->pi.entropy == a->pi.entropy % 16;
	}
	cr_assert_geq(acks, 50, "%u ACKs behind a request", acks);
	cr_assert_eq(shared, acks, "%u of %u on the ACK's EV", shared, acks);
}

/* An injected response (no completion: its sender does not wait, nor,
 * likely, does the peer for its ACK) keeps the policy's EV: the peer
 * reads the response sooner without the ACK beside it (pp_median 64 B,
 * loopback: 6.65 -> 6.97 us with it). */
Test(ack, injected_response_keeps_the_policys_ev)
{
	uint16_t req_ev, ack_ev, prev_ev;

	held_ack_evs(false, true, T_SEG, &req_ev, &ack_ev, &prev_ev);
	cr_assert_neq(req_ev, ack_ev % 16, "response EV %u, ACK EV %u",
		      req_ev, ack_ev);
}

/* One message 0 -> 1 and nothing back: how long after the request node
 * 1's first ACK left (and the send completed with it). */
static uet_time lone_ack_delay(bool reverse)
{
	const struct tlog *req, *ack;

	hold_init(reverse);
	t_send(0, 1, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	req = t_nth(0, UET_PDS_RUD_REQ, 0);
	ack = first_ack(1);
	cr_assert_not_null(ack);
	cr_assert_eq(T.last_at[0], ack->t);
	return ack->t - req->t;
}

Test(ack, held_ack_goes_alone_after_ack_hold)
{
	cr_assert_eq(lone_ack_delay(true), 20 * UET_USEC);
}

Test(ack, no_hold_without_a_pdc_back)
{
	cr_assert_eq(lone_ack_delay(false), 0,
		     "held with no packet of ours to follow");
}

/* A duplicate and a new packet arrive in one batch: the duplicate's ACK
 * goes on its own, naming it, instead of being renamed by the new
 * packet's (the initiator learns from it that a resend was needless,
 * ini.c). A crafted initiator, as in stress_test.c. */
static void dup_inject(uint32_t start, uint16_t iid, uint16_t *tid,
		       uint32_t n, uint8_t flags)
{
	struct uet_pds_hdr h = t_req_hdr(UET_PDS_RUD_REQ, start + n, iid,
					 *tid);
	struct uet_pkt_info pi = t_pi_from(0, 1);
	uint8_t buf[512];
	size_t len, i;

	if (!*tid) {
		h.flags = UET_PDS_F_SYN;
		h.req.dpdcid = 0;
		h.req.psn_offset = (uint16_t)n;
	}
	h.flags |= flags;
	h.req.clear_psn_offset = (int16_t)(-(int32_t)n - 1);
	len = t_craft_req(buf, sizeof(buf), &h, 3, 8 * T_SEG, n * T_SEG,
			  T_SEG, n == 7);
	cr_assert_eq(uet_harness_inject(&T.h, 1, &pi, buf, len), 0);
	for (i = 0; i < T.nlog && !*tid; i++)
		if (t_is_ack(&T.log[i]))
			*tid = T.log[i].p.pds.ack.spdcid;
}

Test(ack, duplicate_in_a_batch_keeps_its_own_ack)
{
	const uint32_t start = 1000;
	const uint16_t iid = 0x4242;
	uint16_t tid = 0;
	size_t mark, i;
	bool named = false;

	t_init(2, NULL, NULL);
	for (uint32_t n = 0; n < 4; n++) {
		dup_inject(start, iid, &tid, n, UET_PDS_F_AR);
		uet_harness_flush(&T.h);
	}
	cr_assert_neq(tid, 0);
	mark = T.nlog;
	/* One batch: the second copy of 1, then 4. */
	dup_inject(start, iid, &tid, 1, UET_PDS_F_AR | UET_PDS_F_RETX);
	dup_inject(start, iid, &tid, 4, UET_PDS_F_AR);
	uet_harness_flush(&T.h);
	for (i = mark; i < T.nlog; i++)
		if (T.log[i].node == 1 && t_is_ack(&T.log[i]) &&
		    t_ack_psn(&T.log[i]) == start + 1) {
			named = true;
			cr_assert(T.log[i].p.pds.flags & UET_PDS_F_RETX,
				  "it answers the resend");
		}
	cr_assert(named, "no ACK named the duplicate");
	cr_assert_eq(t_stats(1).dup_rx, 1);
	cr_assert_eq(t_last(1, UET_PDS_ACK)->p.pds.ack.cack_psn, start + 4);
}
