/* PDC close (docs/choices.md §2.4): the initiator's CLOSE after pdc_idle,
 * its ACK, a lost ACK of the CLOSE, SES keeping a PDC busy, CLOSE_REQ, the
 * target reaping a vanished initiator, the initiator's pool running out. */
#include "../fixtures/pds_test_util.h"

#include "psn.h"

TestSuite(close, .fini = t_fini);

static struct uet_fep_config close_cfg(void)
{
	struct uet_fep_config c = t_cfg();

	c.pdc_idle = 10 * UET_MSEC;
	return c;
}

Test(close, idle_pdc_closed_by_handshake)
{
	struct uet_fep_config c = close_cfg();
	const struct tlog *close, *ack = NULL, *last_req;
	uet_time t_done;
	size_t i;

	t_init(2, &c, NULL);
	t_send(0, 1, 3 * T_SEG);
	t_run_done(T_LIMIT);
	t_done = T.h.now;
	t_run_quiet(T.h.now + 1 * UET_SEC);
	last_req = t_nth(0, UET_PDS_RUD_REQ, 2);
	close = t_nth(0, UET_PDS_CTRL, 0);
	cr_assert_not_null(close, "no CLOSE");
	cr_assert_eq(close->p.pds.next_hdr, UET_CTL_CLOSE);
	cr_assert(close->p.pds.flags & UET_PDS_F_AR);
	cr_assert_eq(close->p.pds.ctrl.psn, last_req->p.pds.req.psn + 1,
		     "CLOSE takes a fresh PSN");
	cr_assert_eq(close->t, t_done + c.pdc_idle);
	for (i = 0; i < T.nlog; i++)
		if (T.log[i].node == 1 && t_is_ack(&T.log[i]) &&
		    t_ack_psn(&T.log[i]) == close->p.pds.ctrl.psn)
			ack = &T.log[i];
	cr_assert_not_null(ack, "CLOSE not acknowledged");
	cr_assert_eq(ack->p.pds.next_hdr, UET_NH_NONE);
	cr_assert_eq(ack->p.pds.ack.cack_psn, close->p.pds.ctrl.psn);
	/* Both sides let go; SES heard of it once on each side. */
	cr_assert_eq(t_stats(0).pdc_closed, 1);
	cr_assert_eq(t_stats(1).pdc_closed, 1);
	cr_assert_eq(t_ses(0)->pdc_closes, 1);
	cr_assert_eq(t_ses(1)->pdc_closes, 1);
	cr_assert_eq(t_ses(0)->pdc_bad_close + t_ses(1)->pdc_bad_close, 0);
	cr_assert_eq(uet_fep_next_timeout(T.h.node[0].fep), UET_TIME_NONE);
	cr_assert_eq(uet_fep_next_timeout(T.h.node[1].fep), UET_TIME_NONE);
}

Test(close, next_message_opens_a_new_pdc)
{
	struct uet_fep_config c = close_cfg();
	const struct tlog *a, *b;
	uint32_t sa, sb;

	t_init(2, &c, NULL);
	t_send(0, 1, T_SEG);
	t_run_done(T_LIMIT);
	t_run_quiet(T.h.now + 1 * UET_SEC);
	t_send(0, 1, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	a = t_nth(0, UET_PDS_RUD_REQ, 0);
	b = t_nth(0, UET_PDS_RUD_REQ, 1);
	cr_assert(b->p.pds.flags & UET_PDS_F_SYN, "new PDC without SYN");
	cr_assert_neq(a->p.pds.req.spdcid, b->p.pds.req.spdcid);
	sa = a->p.pds.req.psn - a->p.pds.req.psn_offset;
	sb = b->p.pds.req.psn - b->p.pds.req.psn_offset;
	cr_assert_neq(sa, sb, "same Start_PSN twice");
	cr_assert_eq(t_stats(0).pdc_open, 2);
	cr_assert_eq(t_stats(1).pdc_open, 2);
}

static uint32_t close_psn;

static bool drop_first_close_ack(const struct tlog *e)
{
	static bool done;

	if (e->node == 0 && e->p.pds.type == UET_PDS_CTRL &&
	    e->p.pds.next_hdr == UET_CTL_CLOSE)
		close_psn = e->p.pds.ctrl.psn;
	if (!done && e->node == 1 && t_is_ack(e) && close_psn &&
	    t_ack_psn(e) == close_psn) {
		done = true;
		return true;
	}
	return false;
}

Test(close, lost_close_ack_is_regenerated)
{
	struct uet_fep_config c = close_cfg();
	size_t closes = 0, i;

	t_init(2, &c, NULL);
	T.drop = drop_first_close_ack;
	t_send(0, 1, T_SEG);
	t_run_done(T_LIMIT);
	t_run_quiet(T.h.now + 1 * UET_SEC);
	for (i = 0; i < T.nlog; i++)
		if (T.log[i].node == 0 && T.log[i].p.pds.type == UET_PDS_CTRL &&
		    T.log[i].p.pds.next_hdr == UET_CTL_CLOSE) {
			cr_assert_eq(!!(T.log[i].p.pds.flags & UET_PDS_F_RETX),
				     closes > 0);
			closes++;
		}
	cr_assert_eq(closes, 2);
	cr_assert_eq(T.h.hook_drops, 1);
	cr_assert_eq(t_stats(0).pdc_closed, 1);
	cr_assert_eq(t_stats(0).pdc_failed, 0);
	cr_assert_eq(t_stats(1).dup_rx, 0);
}

/* CLOSE CPs node sent (the other CPs are CLEARs and liveness probes). */
static size_t t_closes(unsigned node)
{
	size_t i, n = 0;

	for (i = 0; i < T.nlog; i++)
		if (T.log[i].node == node &&
		    T.log[i].p.pds.type == UET_PDS_CTRL &&
		    T.log[i].p.pds.next_hdr == UET_CTL_CLOSE)
			n++;
	return n;
}

Test(close, busy_ses_defers_close)
{
	struct uet_fep_config c = close_cfg();

	t_init(2, &c, NULL);
	t_send(0, 1, T_SEG);
	t_run_done(T_LIMIT);
	t_ses(0)->force_busy = true;
	t_run_quiet(T.h.now + 100 * UET_MSEC);
	cr_assert_eq(t_closes(0), 0, "closed a busy PDC");
	t_ses(0)->force_busy = false;
	t_run_quiet(T.h.now + 1 * UET_SEC);
	cr_assert_eq(t_closes(0), 1);
	cr_assert_eq(t_stats(0).pdc_closed, 1);
	cr_assert_eq(t_stats(0).pdc_failed, 0, "a live target probed to death");
}

Test(close, target_reaps_vanished_initiator)
{
	struct uet_fep_config c = close_cfg();
	uet_time t_last;

	t_init(2, &c, NULL);
	t_send(0, 1, T_SEG);
	t_run_done(T_LIMIT);
	t_last = T.h.now;
	uet_harness_kill(&T.h, 0);
	t_run_quiet(T.h.now + 10 * UET_SEC);
	cr_assert_eq(t_stats(1).pdc_closed, 1);
	cr_assert_eq(t_ses(1)->pdc_closes, 1);
	/* Not before the initiator would have closed and given up. */
	cr_assert_geq(T.h.now, t_last + c.pdc_idle);
	cr_assert_eq(uet_fep_next_timeout(T.h.node[1].fep), UET_TIME_NONE);
}

Test(close, close_req_from_target)
{
	struct uet_fep_config c = t_cfg();
	struct uet_pkt_info pi;
	struct uet_pkt pkt;
	struct t_pdc p;
	const struct tlog *ack, *close;
	uint8_t buf[64];
	int n;

	c.pdc_idle = 10 * UET_SEC;
	t_init(2, &c, NULL);
	p = t_establish_ids(0, 1);
	memset(&pkt, 0, sizeof(pkt));
	pkt.pds.type = UET_PDS_CTRL;
	pkt.pds.next_hdr = UET_CTL_CLOSE_REQ;
	pkt.pds.flags = UET_PDS_F_AR;
	pkt.pds.ctrl.psn = 777;
	pkt.pds.ctrl.spdcid = p.tid;
	pkt.pds.ctrl.dpdcid = p.iid;
	n = uet_pkt_encode(buf, sizeof(buf), &pkt);
	cr_assert_gt(n, 0);
	pi = t_pi_from(1, 0);
	cr_assert_eq(uet_harness_inject(&T.h, 0, &pi, buf, (size_t)n), 0);
	t_run_quiet(T.h.now + 1 * UET_SEC);
	ack = t_nth(0, UET_PDS_ACK, 0);
	cr_assert_not_null(ack);
	cr_assert_eq(ack->p.pds.ack.cack_psn, 777);
	close = t_nth(0, UET_PDS_CTRL, 0);
	cr_assert_not_null(close, "no CLOSE after CLOSE_REQ");
	cr_assert_eq(close->p.pds.next_hdr, UET_CTL_CLOSE);
	cr_assert_lt(close->t, 10 * UET_MSEC + ack->t, "waited for pdc_idle");
	cr_assert_eq(t_stats(0).pdc_closed, 1);
}

Test(close, initiator_pool_exhausted_waits_for_a_slot)
{
	struct uet_fep_config c = t_cfg();

	c.pdc_max = 1;
	c.pdc_idle = 10 * UET_SEC;	/* only the waiting peer closes it */
	t_init(3, &c, NULL);
	t_send(0, 1, 4 * T_SEG);
	t_send(0, 2, 4 * T_SEG);
	t_run_done(T_LIMIT);
	t_check_delivery(0, 1);
	t_check_delivery(0, 2);
	cr_assert_eq(t_ses(0)->pdc_peak, 1);
	cr_assert_eq(t_stats(0).pdc_closed, 1, "the first PDC never closed");
	cr_assert_lt(T.h.now, 1 * UET_SEC, "waited for pdc_idle");
}

/* The close linger (uet_fep_linger_until, TIME_WAIT's job): a target
 * whose ACK was lost must still be there when the sender's resend comes,
 * else the sender fails a message that was delivered. */
static uet_time linger_quiet, linger_at_loss;

static bool drop_first_ack(const struct tlog *e)
{
	if (e->node != 1 || !t_is_ack(e) || linger_at_loss)
		return false;
	linger_at_loss = uet_fep_linger_until(T.h.node[1].fep, linger_quiet);
	return true;
}

Test(close, linger_outlasts_a_lost_ack)
{
	struct uet_fep_config c = t_cfg();
	const struct tlog *first, *resend = NULL;
	size_t i;

	t_init(2, &c, NULL);
	linger_quiet = 3 * c.rto_min;
	linger_at_loss = 0;
	cr_assert_eq(uet_fep_linger_until(T.h.node[1].fep, linger_quiet), 0,
		     "nothing taken yet, nothing to wait for");
	T.drop = drop_first_ack;
	t_send(0, 1, T_SEG);
	t_run_done(T_LIMIT);
	t_check_delivery(0, 1);
	first = t_nth(0, UET_PDS_RUD_REQ, 0);
	for (i = 0; i < T.nlog; i++)
		if (T.log[i].node == 0 && t_is_req(&T.log[i]) &&
		    (T.log[i].p.pds.flags & UET_PDS_F_RETX))
			resend = &T.log[i];
	cr_assert_not_null(resend, "the lost ACK caused no resend");
	cr_assert_geq(linger_at_loss, first->t + linger_quiet);
	cr_assert_gt(linger_at_loss, resend->t,
		     "linger ends at %llu, the resend comes at %llu",
		     (unsigned long long)linger_at_loss,
		     (unsigned long long)resend->t);
	/* The resend moved it on; the sender has nothing to wait for. */
	cr_assert_geq(uet_fep_linger_until(T.h.node[1].fep, linger_quiet),
		      resend->t + linger_quiet);
	cr_assert_eq(uet_fep_linger_until(T.h.node[0].fep, linger_quiet), 0);
}

/* Each resend in a row doubles the linger: the sender backs off. */
static unsigned acks_dropped;

static bool drop_two_acks(const struct tlog *e)
{
	if (e->node != 1 || !t_is_ack(e) || acks_dropped == 2)
		return false;
	acks_dropped++;
	return true;
}

Test(close, linger_grows_with_each_resend)
{
	struct uet_fep_config c = t_cfg();
	const struct tlog *last = NULL;
	uet_time quiet = 3 * c.rto_min;
	unsigned resends = 0;

	t_init(2, &c, NULL);
	acks_dropped = 0;
	T.drop = drop_two_acks;
	t_send(0, 1, T_SEG);
	t_run_done(T_LIMIT);
	for (size_t i = 0; i < T.nlog; i++)
		if (T.log[i].node == 0 && t_is_req(&T.log[i]) &&
		    (T.log[i].p.pds.flags & UET_PDS_F_RETX)) {
			last = &T.log[i];
			resends++;
		}
	cr_assert_eq(resends, 2);
	cr_assert_eq(uet_fep_linger_until(T.h.node[1].fep, quiet),
		     last->t + 4 * quiet);
	/* A new packet: the sender's backoff starts again. */
	t_send(0, 1, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	cr_assert_eq(uet_fep_linger_until(T.h.node[1].fep, quiet),
		     T.log[T.nlog - 1].t + quiet);
}
