/* Guaranteed delivery (docs/choices.md §3.3): a kept response is ACKed with
 * REQ=CLEAR, holds CACK until a CLEAR_PSN covers it, is resent for a
 * duplicate, and is asked for with ACK_REQ when only its ACK was lost. */
#include "../fixtures/pds_test_util.h"

#include "psn.h"

#define GTD_LEN		0xABCu	/* marks the kept response */

TestSuite(gtd, .fini = t_fini);

/* Keep the response of (message 1, offset *arg). */
static int keep_one(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		    const struct uet_ses_req *req, uint32_t off,
		    struct uet_ses_rsp *rsp, bool *gtd)
{
	(void)pdc;
	if (req->message_id == 1 && off == *(uint32_t *)ses->hook_arg) {
		*gtd = true;
		rsp->modified_length = GTD_LEN;
	}
	return 0;
}

static uint32_t keep_off;

static void gtd_setup(uint32_t off)
{
	t_init(2, NULL, NULL);
	t_establish(0, 1);
	keep_off = off;
	t_ses(1)->rx_hook = keep_one;
	t_ses(1)->hook_arg = &keep_off;
}

static const struct tlog *first_clear_ack(void)
{
	size_t i;

	for (i = 0; i < T.nlog; i++)
		if (T.log[i].node == 1 && t_is_ack(&T.log[i]) &&
		    (T.log[i].p.pds.flags & UET_PDS_F_REQ_MASK) ==
		    UET_PDS_F_REQ_CLEAR)
			return &T.log[i];
	return NULL;
}

Test(gtd, held_until_clear)
{
	const struct tlog *ack, *clear, *after = NULL;
	uint32_t p;
	size_t i;

	gtd_setup(0);
	t_send(0, 1, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_run_quiet(T.h.now + 5 * UET_MSEC);
	t_check_delivery(0, 1);
	p = t_nth(0, UET_PDS_RUD_REQ, 0)->p.pds.req.psn;
	ack = first_clear_ack();
	cr_assert_not_null(ack, "no ACK asked for CLEAR");
	cr_assert_eq(t_ack_psn(ack), p);
	cr_assert_eq(ack->p.pds.ack.cack_psn, p - 1, "CACK passed a kept PSN");
	cr_assert_eq(ack->p.rsp.modified_length, GTD_LEN);
	clear = t_nth(0, UET_PDS_CTRL, 0);
	cr_assert_not_null(clear, "no CLEAR");
	cr_assert_eq(clear->p.pds.next_hdr, UET_CTL_CLEAR);
	cr_assert_eq(clear->p.pds.ctrl.payload, p);
	cr_assert_eq(clear->t, ack->t, "CLEAR not sent at once");
	for (i = 0; i < T.nlog; i++)
		if (T.log[i].node == 1 && t_is_ack(&T.log[i]) &&
		    T.log[i].t >= clear->t && &T.log[i] != ack)
			after = &T.log[i];
	cr_assert_not_null(after, "CACK never moved after CLEAR");
	cr_assert_eq(after->p.pds.ack.cack_psn, p);
	cr_assert_eq(t_ses(0)->msgs[1].last_len, GTD_LEN);
}

Test(gtd, blocks_cack_for_later_packets)
{
	const struct tlog *e;
	uint32_t p0;
	size_t i, blocked = 0;

	gtd_setup(0);
	t_send(0, 1, 4 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_run_quiet(T.h.now + 5 * UET_MSEC);
	t_check_delivery(0, 1);
	p0 = t_nth(0, UET_PDS_RUD_REQ, 0)->p.pds.req.psn;
	for (i = 0; i < T.nlog; i++) {
		e = &T.log[i];
		if (e->node != 1 || !t_is_ack(e))
			continue;
		cr_assert(uet_psn_lt(e->p.pds.ack.cack_psn, p0) ||
			  t_nth(0, UET_PDS_CTRL, 0),
			  "CACK passed the kept PSN before any CLEAR");
		if (e->p.pds.ack.cack_psn == p0 - 1 &&
		    e->p.pds.type == UET_PDS_ACK_CC)
			blocked++;
	}
	cr_assert_gt(blocked, 0, "later packets never showed up in a SACK");
	e = t_last(1, UET_PDS_ACK);
	cr_assert_not_null(e);
	cr_assert_eq(e->p.pds.ack.cack_psn, p0 + 3);
}

static bool drop_first_clear_ack(const struct tlog *e)
{
	static bool done;

	if (!done && e->node == 1 && t_is_ack(e) &&
	    (e->p.pds.flags & UET_PDS_F_REQ_MASK) == UET_PDS_F_REQ_CLEAR) {
		done = true;
		return true;
	}
	return false;
}

Test(gtd, duplicate_gets_the_kept_response)
{
	gtd_setup(0);
	T.drop = drop_first_clear_ack;
	t_send(0, 1, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_eq(T.h.hook_drops, 1);
	cr_assert_eq(t_stats(0).retx_rto, 1);
	cr_assert_eq(t_stats(1).dup_rx, 1);
	cr_assert_eq(t_ses(1)->rx_pkts, 2, "the duplicate reached SES");
	/* The resend was answered with the same kept response. */
	cr_assert_eq(t_ses(0)->msgs[1].last_len, GTD_LEN);
	cr_assert_eq(t_ses(0)->msgs[1].rsps, 1);
}

Test(gtd, sacked_but_ack_lost_asks_with_ack_req)
{
	const struct tlog *ar;
	uint32_t p0;

	gtd_setup(0);
	T.drop = drop_first_clear_ack;
	t_send(0, 1, 3 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_run_quiet(T.h.now + 5 * UET_MSEC);
	t_check_delivery(0, 1);
	p0 = t_nth(0, UET_PDS_RUD_REQ, 0)->p.pds.req.psn;
	ar = t_nth(0, UET_PDS_CTRL, 0);
	cr_assert_not_null(ar);
	cr_assert_eq(ar->p.pds.next_hdr, UET_CTL_ACK_REQ);
	cr_assert_eq(ar->p.pds.ctrl.psn, p0);
	cr_assert_eq(t_reqs(0), 3, "an arrived packet was resent");
	cr_assert_eq(t_ses(0)->msgs[1].last_len, GTD_LEN);
	/* ... and then the CLEAR let CACK past it. */
	cr_assert_not_null(t_last(1, UET_PDS_ACK), "CACK never moved");
	cr_assert_eq(t_last(1, UET_PDS_ACK)->p.pds.ack.cack_psn, p0 + 2);
}
