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

/* A NACK proves the copy it names was refused; the copy sent after it is
 * then the only one the target can ACK, and its ACK (RETX set) times it.
 * Seen from outside: the next packet lost is resent after 3 x RTT (RFC
 * 6298's first sample), not after rto_min as with no estimate. */
Test(rtt, trimmed_packet_acked_by_its_resend_gives_a_sample)
{
	struct uet_mem_impair imp = { .trim_mask = 1, .delay = 5 * UET_MSEC };
	struct uet_mem_config m = { 0 };
	struct uet_fep_config c = t_cfg();
	const struct tlog *a, *b;

	c.rto_min = 20 * UET_MSEC;
	c.rto_max = 1 * UET_SEC;
	m.impair.delay = 5 * UET_MSEC;
	t_init(2, &c, &m);
	t_impair(1, &imp);
	t_send(0, 1, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	cr_assert_eq(t_stats(0).retx_nack, 1, "the trim was not NACKed");
	cr_assert_eq(t_stats(0).retx_rto, 0);
	imp.trim_mask = 0;
	imp.drop_mask = 1;
	t_impair(1, &imp);
	T.nlog = 0;
	t_send(0, 1, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	cr_assert_eq(t_stats(0).retx_rto, 1);
	a = t_nth(0, UET_PDS_RUD_REQ, 0);
	b = t_nth(0, UET_PDS_RUD_REQ, 1);
	cr_assert(a && b);
	cr_assert_eq(b->t - a->t, 30 * UET_MSEC,
		     "resent after %.1f ms: the resend's ACK taught nothing",
		     (double)(b->t - a->t) / UET_MSEC);
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

/* NSCC's base-RTT probe (UE 1.0 §3.6.13.7, uet/cms/README.md): without
 * a configured base RTT, one PROBE after the first ACK; its answer (flag
 * P, the opaque value echoed) sets the base RTT, here 2 hops, above the
 * reference value that NSCC starts from and that data samples, which
 * only lower it, could never raise. */
#define PROBE_HOP	(10 * UET_USEC)

static uet_time probe_run(uet_time base_rtt, size_t len, size_t *probes,
			  size_t *answers)
{
	struct uet_fep_config c = t_cfg();
	struct uet_mem_impair imp = { .delay = PROBE_HOP };
	struct uet_cc_info cc[2];
	uint16_t opaque = 0;
	size_t i;

	c.cca = UET_CCA_NSCC;
	c.base_rtt = base_rtt;
	c.link_bps = 8000000000ull;	/* BDP at 12 us: 12 kB */
	t_init(2, &c, NULL);
	t_impair(0, &imp);
	t_impair(1, &imp);
	t_send(0, 1, len);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	*probes = *answers = 0;
	for (i = 0; i < T.nlog; i++) {
		const struct tlog *e = &T.log[i];

		if (e->node == 0 && e->p.pds.type == UET_PDS_CTRL &&
		    e->p.pds.next_hdr == UET_CTL_PROBE) {
			opaque = e->p.pds.ctrl.probe_opaque;
			(*probes)++;
		}
		if (e->node == 1 && t_is_ack(e) &&
		    (e->p.pds.flags & UET_PDS_F_P)) {
			cr_assert_eq(e->p.pds.ack.probe_opaque, opaque);
			(*answers)++;
		}
	}
	cr_assert_eq(uet_fep_cc_info(T.h.node[0].fep, cc, 2), 1);
	cr_assert_eq(T.nerr[0] + T.nerr[1], 0);
	return cc[0].base_rtt;
}

Test(rtt, nscc_probe_sets_the_base_rtt)
{
	size_t probes, answers;
	uet_time b = probe_run(0, 64 << 10, &probes, &answers);

	cr_assert_eq(probes, 1);
	cr_assert_eq(answers, 1);
	cr_assert(b >= 2 * PROBE_HOP && b < 2 * PROBE_HOP + UET_USEC,
		  "base rtt %lu ns", (unsigned long)b);
}

Test(rtt, nscc_no_probe_for_a_small_transfer)
{
	size_t probes, answers;
	uet_time b = probe_run(0, 4 << 10, &probes, &answers);

	cr_assert_eq(probes, 0);
	cr_assert_eq(b, 12 * UET_USEC, "the reference, untouched");
}

Test(rtt, nscc_no_probe_with_a_configured_base_rtt)
{
	size_t probes, answers;
	uet_time b = probe_run(30 * UET_USEC, 64 << 10, &probes, &answers);

	cr_assert_eq(probes, 0);
	cr_assert_eq(b, 2 * PROBE_HOP, "lowered by the data's samples");
}

/* The base RTT NSCC reads for the queueing delay: configured for the
 * fabric's longest path, it comes down as samples show this path
 * shorter. A NACK of a copy sent once times that copy: the trimmed
 * header went the whole way, ahead of the queue that trimmed it. On a
 * fat tree the senders nearest the receiver, whose NACKs were their only
 * news for the first round trips, otherwise kept the longest path's RTT,
 * read too little delay and took the link (cms/README.md). */
static uet_time nscc_base_rtt(unsigned node)
{
	struct uet_cc_info ci[2];

	cr_assert_eq(uet_fep_cc_info(T.h.node[node].fep, ci, 2), 1);
	return ci[0].base_rtt;
}

Test(rtt, nack_of_a_packet_sent_once_lowers_the_base_rtt)
{
	struct uet_mem_impair imp = { .trim_mask = 1,
				      .delay = 50 * UET_USEC };
	struct uet_fep_config c = t_cfg();
	uet_time t0;

	c.cca = UET_CCA_NSCC;
	c.trimming = true;
	c.base_rtt = 1 * UET_MSEC;
	t_init(2, &c, NULL);
	t_impair(1, &imp);
	t0 = T.h.now;
	t_send(0, 1, T_SEG);
	cr_assert_eq(nscc_base_rtt(0), c.base_rtt);
	/* 50 us on the way in, none back: the NACK is here after 50 us,
	 * the resend's ACK after 100 */
	t_run_quiet(t0 + 75 * UET_USEC);
	cr_assert_eq(t_stats(0).retx_nack, 1, "the trim was not NACKed");
	cr_assert_eq(t_stats(1).acks_tx, 0, "no ACK yet");
	cr_assert(nscc_base_rtt(0) >= 50 * UET_USEC &&
		  nscc_base_rtt(0) < 60 * UET_USEC,
		  "base RTT %lu ns after the NACK",
		  (unsigned long)nscc_base_rtt(0));
	t_run_done(T.h.now + T_LIMIT);
}
