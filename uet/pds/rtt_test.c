/* The RTO from the RTT estimate (rtt.h, pds.h "Loss"): RFC 6298 arithmetic,
 * no resend while ACKs come within the estimate (a path slower than
 * rto_min, a window that takes longer than the RTO to drain), and a dead
 * peer still failing within the bounded retry span. */
#include "../fixtures/pds_test_util.h"

#include "rtt.h"

TestSuite(rtt, .fini = t_fini);

Test(rtt, estimator_follows_rfc6298)
{
	const uet_time lo = 20 * UET_MSEC, hi = 1 * UET_SEC;
	struct uet_rtt r;

	uet_rtt_init(&r);
	cr_assert_eq(uet_rtt_rto(&r, lo, hi), lo, "no sample: rto_min");
	/* First sample R: SRTT = R, RTTVAR = R / 2, RTO = 3R. */
	uet_rtt_sample(&r, 8 * UET_MSEC);
	cr_assert_eq(r.srtt, 8 * UET_MSEC);
	cr_assert_eq(r.rttvar, 4 * UET_MSEC);
	cr_assert_eq(uet_rtt_rto(&r, lo, hi), 24 * UET_MSEC);
	/* RTTVAR = 3/4 * 4 + 1/4 * |8 - 16| = 5, SRTT = 7/8 * 8 + 16/8 = 9. */
	uet_rtt_sample(&r, 16 * UET_MSEC);
	cr_assert_eq(r.rttvar, 5 * UET_MSEC);
	cr_assert_eq(r.srtt, 9 * UET_MSEC);
	cr_assert_eq(uet_rtt_rto(&r, lo, hi), 29 * UET_MSEC);
	/* Clamped both ways. */
	cr_assert_eq(uet_rtt_rto(&r, 40 * UET_MSEC, hi), 40 * UET_MSEC);
	cr_assert_eq(uet_rtt_rto(&r, lo, 25 * UET_MSEC), 25 * UET_MSEC);
	/* A steady RTT: RTTVAR decays, the RTO settles just above SRTT
	 * (here, below the floor). */
	for (int i = 0; i < 200; i++)
		uet_rtt_sample(&r, 2 * UET_MSEC);
	cr_assert_lt(r.srtt - 2 * UET_MSEC, 10 * UET_USEC);
	cr_assert_gt(uet_rtt_rto(&r, 0, hi), r.srtt);
	cr_assert_eq(uet_rtt_rto(&r, lo, hi), lo);
}

/* One-packet messages, one after the other, over a 30 ms round trip with
 * rto_min 20 ms. */
static void slow_path(struct uet_fep_config *c)
{
	struct uet_mem_config m = { 0 };

	*c = t_cfg();
	c->rto_min = 20 * UET_MSEC;
	c->rto_max = 1 * UET_SEC;
	c->max_retx = 5;
	m.impair.delay = 15 * UET_MSEC;
	t_init(2, c, &m);
}

Test(rtt, no_spurious_rto_when_acks_come_within_the_estimate)
{
	struct uet_fep_config c;
	unsigned i;

	slow_path(&c);
	/* The first packet knows no RTT: rto_min fires before its ACK. The
	 * ACK of the original (no RETX flag) still gives a sample. */
	t_send(0, 1, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	cr_assert_eq(t_stats(0).retx_rto, 1);
	/* From then on the RTO is above the RTT: nothing is sent twice. */
	for (i = 0; i < 30; i++) {
		t_send(0, 1, T_SEG);
		t_run_done(T.h.now + T_LIMIT);
	}
	t_send(0, 1, 20 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_eq(t_stats(0).retx_rto, 1, "%lu resends on a clean path",
		     (unsigned long)t_stats(0).retx_rto);
	cr_assert_eq(t_stats(1).dup_rx, 1);
	cr_assert_eq(T.nerr[0], 0);
}

Test(rtt, resent_packet_acked_by_its_resend_gives_no_sample)
{
	struct uet_mem_impair imp = { .drop_mask = 1,
				      .delay = 15 * UET_MSEC };
	struct uet_fep_config c;
	const struct tlog *e;

	/* The original is lost: the ACK answers the resend (RETX set), so
	 * it says nothing about the RTT (Karn) and the RTO stays rto_min. */
	slow_path(&c);
	t_impair(1, &imp);
	t_send(0, 1, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	cr_assert_eq(t_stats(0).retx_rto, 1);
	cr_assert_eq(t_stats(1).dup_rx, 0);
	imp.drop_mask = 0;
	t_impair(1, &imp);
	T.nlog = 0;
	t_send(0, 1, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	/* No estimate yet: resent at rto_min again, then learnt. */
	e = t_nth(0, UET_PDS_RUD_REQ, 1);
	cr_assert_not_null(e);
	cr_assert_eq(e->t - t_nth(0, UET_PDS_RUD_REQ, 0)->t, c.rto_min);
	cr_assert_eq(t_stats(0).retx_rto, 2);
	t_send(0, 1, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	cr_assert_eq(t_stats(0).retx_rto, 2);
}

Test(rtt, ack_progress_restarts_the_timers_of_a_long_window)
{
	struct uet_mem_impair imp = { 0 };
	struct uet_fep_config c = t_cfg();

	/* RTO pinned at 10 ms, so only the restart can help: 32 packets
	 * behind a link that takes over 1 ms for each need ~40 ms to drain,
	 * but an ACK comes back every 4 of them. */
	c.rto_min = c.rto_max = 10 * UET_MSEC;
	c.ack_every = 4;
	c.window = 32;
	t_init(2, &c, NULL);
	t_establish(0, 1);
	imp.rate = 150000;
	t_impair(1, &imp);
	t_send(0, 1, 32 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_gt(T.h.now - t_nth(0, UET_PDS_RUD_REQ, 0)->t,
		     3 * c.rto_min, "the window drained too fast to matter");
	cr_assert_eq(t_stats(0).retx_rto, 0, "%lu resends",
		     (unsigned long)t_stats(0).retx_rto);
	cr_assert_eq(t_stats(1).dup_rx, 0);
}

Test(rtt, lost_packet_behind_progress_still_resent)
{
	struct uet_mem_impair imp = { 0 };
	struct uet_fep_config c = t_cfg();
	const struct tlog *last_ack = NULL, *resend = NULL;
	uint32_t p0;
	size_t i;

	/* Packet 20 of 32 is lost: ACKs for 0..19 restart its timer, but
	 * once CACK stops at 19 it fires one RTO after the ACK that moved
	 * it there (ACKs that only SACK what follows restart nothing). */
	c.rto_min = c.rto_max = 10 * UET_MSEC;
	c.ack_every = 4;
	c.window = 32;
	t_init(2, &c, NULL);
	t_establish(0, 1);
	imp.rate = 150000;
	imp.drop_mask = 1ull << 20;
	t_impair(1, &imp);
	t_send(0, 1, 32 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_eq(T.nerr[0], 0);
	p0 = t_nth(0, UET_PDS_RUD_REQ, 0)->p.pds.req.psn;
	for (i = 0; i < T.nlog && !resend; i++) {
		const struct tlog *e = &T.log[i];

		if (e->node == 0 && t_is_req(e) &&
		    (e->p.pds.flags & UET_PDS_F_RETX))
			resend = e;
		else if (e->node == 1 && t_is_ack(e) && !last_ack &&
			 e->p.pds.ack.cack_psn == p0 + 19)
			last_ack = e;
	}
	cr_assert_not_null(last_ack, "no ACK with CACK at packet 19");
	cr_assert_not_null(resend);
	cr_assert_eq(resend->p.pds.req.psn, p0 + 20, "first resend: +%u",
		     resend->p.pds.req.psn - p0);
	/* The ACK leaves node 1 at once and the return link is instant. */
	cr_assert_eq(resend->t, last_ack->t + c.rto_min, "resent %ld us after",
		     (long)(resend->t - last_ack->t) / 1000);
}

Test(rtt, dead_peer_fails_in_bounded_time_after_learning_a_long_rtt)
{
	struct uet_fep_config c;
	uet_time t0, lo = 0, hi = 0, rto = 20 * UET_MSEC;
	unsigned i;

	slow_path(&c);
	for (i = 0; i < 5; i++) {
		t_send(0, 1, T_SEG);
		t_run_done(T.h.now + T_LIMIT);
	}
	uet_harness_kill(&T.h, 1);
	t0 = T.h.now;
	t_send(0, 1, 3 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	cr_assert_eq(T.last[0].err, UET_ERR_PEER);
	/* Between the span from rto_min and the worst case, every try at
	 * rto_max; above the first here, since the RTT is above rto_min. */
	for (i = 0; i <= c.max_retx; i++, rto *= 2) {
		lo += rto < c.rto_max ? rto : c.rto_max;
		hi += c.rto_max;
	}
	cr_assert_gt(T.last_at[0] - t0, lo, "failed after %lu ms",
		     (unsigned long)((T.last_at[0] - t0) / UET_MSEC));
	cr_assert_leq(T.last_at[0] - t0, hi, "failed after %lu ms",
		      (unsigned long)((T.last_at[0] - t0) / UET_MSEC));
	cr_assert_eq(uet_fep_next_timeout(T.h.node[0].fep), UET_TIME_NONE);
}
