/* Loss recovery (docs/choices.md §4): RTO resend of exactly the lost packet,
 * duplicates and reordering never reaching SES twice, trimmed packets
 * resent fast on NACK TRIMMED, exponential RTO backoff, bounded retries,
 * a dead peer turning into error completions in bounded time. */
#include "../fixtures/pds_test_util.h"

#include "psn.h"

TestSuite(loss, .fini = t_fini);

Test(loss, lost_packet_resent_once_on_rto)
{
	struct uet_mem_impair imp = { .drop_mask = 1u << 3 };
	struct uet_fep_config c = t_cfg();
	const struct tlog *resend = NULL;
	uint32_t p0;
	uet_time t0;
	size_t i;

	t_init(2, &c, NULL);
	t_establish(0, 1);
	t_impair(1, &imp);
	t0 = T.h.now;
	t_send(0, 1, 10 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	p0 = t_nth(0, UET_PDS_RUD_REQ, 0)->p.pds.req.psn;
	cr_assert_eq(t_reqs(0), 11);
	for (i = 0; i < T.nlog; i++)
		if (T.log[i].node == 0 && t_is_req(&T.log[i]) &&
		    (T.log[i].p.pds.flags & UET_PDS_F_RETX))
			resend = &T.log[i];
	cr_assert_not_null(resend);
	cr_assert_eq(resend->p.pds.req.psn, p0 + 3);
	cr_assert(resend->p.pds.flags & UET_PDS_F_AR);
	cr_assert_eq(resend->t, t0 + c.rto_min, "resent at +%lu ns",
		     (unsigned long)(resend->t - t0));
	cr_assert_eq(t_stats(0).retx_rto, 1);
	cr_assert_eq(t_stats(0).retx_nack, 0);
	cr_assert_eq(T.nerr[0], 0);
}

Test(loss, duplicates_never_reach_ses_twice)
{
	struct uet_mem_impair imp = { .dup_mask = ~0ull };

	t_init(2, NULL, NULL);
	t_impair(0, &imp);
	t_impair(1, &imp);
	t_send(0, 1, 40 * T_SEG);
	t_send(1, 0, 40 * T_SEG);
	t_run_done(T_LIMIT);
	t_check_delivery(0, 1);
	t_check_delivery(1, 0);
	cr_assert_geq(t_stats(1).dup_rx, 40);
	cr_assert_geq(t_stats(0).dup_rx, 40);
	cr_assert_eq(t_ses(1)->rx_pkts, 40, "SES saw %lu packets",
		     (unsigned long)t_ses(1)->rx_pkts);
	cr_assert_eq(t_ses(0)->rx_pkts, 40);
}

Test(loss, reordering_needs_no_resend)
{
	struct uet_mem_impair imp = { .reorder_mask = 0x5555555555555555ull };

	t_init(2, NULL, NULL);
	t_impair(0, &imp);
	t_impair(1, &imp);
	t_send(0, 1, 50 * T_SEG);
	t_run_done(T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_eq(t_stats(0).retx_rto + t_stats(0).retx_nack, 0);
	cr_assert_gt(t_stats(1).sack_gaps, 0, "reordering made no hole");
}

Test(loss, trimmed_packet_resent_on_nack)
{
	struct uet_mem_impair imp = { .trim_mask = 1u << 2 };
	struct uet_fep_config c = t_cfg();
	const struct tlog *nack;
	uet_time t0;

	t_init(2, &c, NULL);
	t_establish(0, 1);
	t_impair(1, &imp);
	t0 = T.h.now;
	t_send(0, 1, 5 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	nack = t_nth(1, UET_PDS_NACK, 0);
	cr_assert_not_null(nack, "no NACK for a trimmed packet");
	cr_assert_eq(nack->p.pds.nack.code, UET_NACK_TRIMMED);
	cr_assert_eq(nack->p.pds.nack.psn,
		     t_nth(0, UET_PDS_RUD_REQ, 2)->p.pds.req.psn);
	cr_assert_eq(t_stats(0).retx_nack, 1);
	cr_assert_eq(t_stats(0).retx_rto, 0);
	cr_assert_lt(T.last_at[0] - t0, c.rto_min, "waited for an RTO");
}

/* Drop every packet into node 1 once the PDC is up. */
static void blackhole(unsigned node)
{
	struct uet_mem_impair imp = { .drop_mask = ~0ull };

	t_impair(node, &imp);
}

Test(loss, rto_backs_off_exponentially_then_fails)
{
	struct uet_fep_config c = t_cfg();
	uet_time t0, want, gap;
	unsigned i;

	c.rto_min = 1 * UET_MSEC;
	c.rto_max = 8 * UET_MSEC;
	c.max_retx = 7;
	t_init(2, &c, NULL);
	t_establish(0, 1);
	blackhole(1);
	t0 = T.h.now;
	t_send(0, 1, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	/* 1 send + 7 resends, 1, 2, 4, 8, 8, 8, 8 ms apart. */
	cr_assert_eq(t_reqs(0), 8);
	want = t0;
	for (i = 0; i < 8; i++) {
		const struct tlog *e = t_nth(0, UET_PDS_RUD_REQ, i);

		cr_assert_eq(e->t, want, "send %u at +%lu us, want +%lu", i,
			     (unsigned long)((e->t - t0) / UET_USEC),
			     (unsigned long)((want - t0) / UET_USEC));
		cr_assert_eq(!!(e->p.pds.flags & UET_PDS_F_RETX), i > 0);
		gap = c.rto_min << i;
		want += gap < c.rto_max ? gap : c.rto_max;
	}
	/* The eighth timeout fails it. */
	cr_assert_eq(T.ncomp[0], 2);
	cr_assert_eq(T.last[0].err, UET_ERR_PEER);
	cr_assert_eq(T.last_at[0], want, "failed at +%lu us",
		     (unsigned long)((T.last_at[0] - t0) / UET_USEC));
	cr_assert_eq(t_stats(0).pdc_failed, 1);
	cr_assert_eq(t_stats(0).retx_rto, 7);
}

Test(loss, dead_peer_fails_in_bounded_time_with_defaults)
{
	struct uet_fep_config c;
	uet_time t0;

	uet_fep_config_default(&c);
	c.job_id = 1;
	t_init(2, &c, NULL);
	t_establish(0, 1);
	uet_harness_kill(&T.h, 1);
	t0 = T.h.now;
	t_send(0, 1, 5 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	cr_assert_eq(T.last[0].err, UET_ERR_PEER);
	/* 20+40+80+160+320+640 ms of RTOs, then three at the 1 s ceiling
	 * (the mem link is instant: the RTT estimate stays below rto_min). */
	cr_assert_eq(T.last_at[0] - t0, 4260 * UET_MSEC, "failed after %lu ms",
		     (unsigned long)((T.last_at[0] - t0) / UET_MSEC));
	cr_assert_eq(t_ses(0)->failed_pkts, 5, "every packet in flight fails");
	cr_assert_eq(t_ses(0)->resolved_twice, 0);
	cr_assert_eq(t_ses(0)->pdc_now, 0, "SES did not hear the PDC close");

	/* The next message tries a new PDC, and fails the same way. */
	t_send(0, 1, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	cr_assert_eq(T.nerr[0], 2);
	cr_assert_eq(t_stats(0).pdc_open, 2);
	cr_assert_eq(t_stats(0).pdc_failed, 2);
	cr_assert_eq(uet_fep_next_timeout(T.h.node[0].fep), UET_TIME_NONE,
		     "a failed PDC left a timer");
}

Test(loss, lost_acks_only)
{
	struct uet_mem_impair imp = { .drop_mask = 0x0F };

	t_init(2, NULL, NULL);
	t_establish(0, 1);
	t_impair(0, &imp);	/* the first four ACKs back are lost */
	t_send(0, 1, 4 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_eq(t_ses(1)->rx_dups, 0);
	cr_assert_gt(t_stats(1).dup_rx, 0, "resends were not duplicates");
}

/* Every packet trimmed for a while: immediate resends first, then paced;
 * never a failure, since every trim is answered by a live target. */
Test(loss, persistent_trimming_is_survived)
{
	struct uet_mem_impair trim = { .trim_mask = ~0ull };
	struct uet_mem_impair none = { 0 };
	struct uet_fep_config c = t_cfg();
	size_t n_before;

	t_init(2, &c, NULL);
	t_establish(0, 1);
	t_impair(1, &trim);
	t_send(0, 1, 2 * T_SEG);
	t_run_quiet(T.h.now + 200 * UET_MSEC);
	n_before = t_reqs(0);
	/* 2 first sends, max_retx immediate resends each, then paced. */
	cr_assert_gt(n_before, 2 + 2 * c.max_retx);
	cr_assert_lt(n_before, 2 + 2 * c.max_retx + 2 * 10,
		     "%zu sends in 200 ms: not paced", n_before);
	cr_assert_eq(T.ncomp[0], 1, "only the establishing send is done");
	t_impair(1, &none);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_eq(t_stats(0).pdc_failed, 0);
	cr_assert_eq(t_stats(0).retx_rto, 0);
}
