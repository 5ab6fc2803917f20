/* NACKs (docs/protocol.md §4.5, docs/choices.md §4.4): which conditions the
 * target NACKs with which code, and how the initiator reacts: back off and
 * resend on a resource NACK, fail the PDC on a fatal one, ignore stale
 * ones. Also the checks on what arrives: unknown PDCs, malformed packets,
 * bad ACKs. */
#include "../fixtures/pds_test_util.h"

#include "psn.h"

TestSuite(nack, .fini = t_fini);

static int refuse_first(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
			const struct uet_ses_req *req, uint32_t off,
			struct uet_ses_rsp *rsp, bool *gtd)
{
	static int n;

	(void)pdc;
	(void)rsp;
	(void)gtd;
	if (req->message_id == 1 && off == T_SEG && !n++)
		return *(int *)ses->hook_arg;
	return 0;
}

Test(nack, ses_refusal_backs_off_and_resends)
{
	int code = UET_NACK_NO_SES_MSG_AVAIL;
	const struct tlog *nack, *resend = NULL;
	struct uet_fep_config c = t_cfg();
	size_t i;

	t_init(2, &c, NULL);
	t_establish(0, 1);
	t_ses(1)->rx_hook = refuse_first;
	t_ses(1)->hook_arg = &code;
	t_send(0, 1, 3 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	nack = t_nth(1, UET_PDS_NACK, 0);
	cr_assert_not_null(nack);
	cr_assert_eq(nack->p.pds.nack.code, UET_NACK_NO_SES_MSG_AVAIL);
	cr_assert_eq(nack->p.pds.nack.psn,
		     t_nth(0, UET_PDS_RUD_REQ, 1)->p.pds.req.psn);
	for (i = 0; i < T.nlog; i++)
		if (T.log[i].node == 0 && t_is_req(&T.log[i]) &&
		    (T.log[i].p.pds.flags & UET_PDS_F_RETX))
			resend = &T.log[i];
	cr_assert_not_null(resend);
	cr_assert_eq(resend->p.pds.req.psn, nack->p.pds.nack.psn);
	/* Not at once: the target is short of buffers. */
	cr_assert_eq(resend->t, nack->t + c.rto_min);
	cr_assert_eq(t_stats(0).retx_nack, 1);
	cr_assert_eq(t_stats(0).retx_rto, 0);
	cr_assert_eq(t_stats(0).nacks_rx, 1);
	cr_assert_eq(t_stats(1).nacks_tx, 1);
}

/* The first resend of a packet refused with code, rto_min 20 ms. */
static uet_time backoff_pause(int code, uet_time nack_retx)
{
	const struct tlog *nack, *resend = NULL;
	struct uet_fep_config c = t_cfg();
	size_t i;

	c.rto_min = 20 * UET_MSEC;
	c.rto_max = 1 * UET_SEC;
	c.nack_retx = nack_retx;
	t_init(2, &c, NULL);
	t_establish(0, 1);
	t_ses(1)->rx_hook = refuse_first;
	t_ses(1)->hook_arg = &code;
	t_send(0, 1, 3 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	nack = t_nth(1, UET_PDS_NACK, 0);
	cr_assert_not_null(nack);
	cr_assert_eq(nack->p.pds.nack.code, code);
	for (i = 0; i < T.nlog; i++)
		if (T.log[i].node == 0 && t_is_req(&T.log[i]) &&
		    (T.log[i].p.pds.flags & UET_PDS_F_RETX))
			resend = &T.log[i];
	cr_assert_not_null(resend);
	cr_assert_eq(resend->p.pds.req.psn, nack->p.pds.nack.psn);
	cr_assert_eq(t_stats(0).retx_rto, 0);
	return resend->t - nack->t;
}

/* A target without buffer for an unexpected message has one as soon as
 * the receive is posted: the resend waits NACK_RETX_TIME, not rto_min (a
 * 20 ms stall on every large unexpected MPI message). */
Test(nack, ses_msg_refusal_waits_nack_retx_not_rto)
{
	cr_assert_eq(backoff_pause(UET_NACK_NO_SES_MSG_AVAIL, 1 * UET_MSEC),
		     1 * UET_MSEC);
}

Test(nack, ses_msg_refusal_nack_retx_zero_waits_rto_min)
{
	cr_assert_eq(backoff_pause(UET_NACK_NO_SES_MSG_AVAIL, 0),
		     20 * UET_MSEC);
}

/* Other shortages keep rto_min: nothing says they end soon. */
Test(nack, other_resource_refusal_waits_rto_min)
{
	cr_assert_eq(backoff_pause(UET_NACK_NO_RESOURCE, 1 * UET_MSEC),
		     20 * UET_MSEC);
}

Test(nack, fatal_nack_fails_the_pdc)
{
	int code = UET_NACK_UNEXP_EVENT;

	t_init(2, NULL, NULL);
	t_establish(0, 1);
	t_ses(1)->rx_hook = refuse_first;
	t_ses(1)->hook_arg = &code;
	t_send(0, 1, 3 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	cr_assert_eq(T.nerr[0], 1);
	cr_assert_eq(T.last[0].err, UET_ERR_PEER);
	cr_assert_eq(T.last[0].prov_errno, UET_NACK_UNEXP_EVENT);
	cr_assert_eq(t_stats(0).pdc_failed, 1);
	cr_assert_eq(t_ses(0)->failed_pkts, 3);
	/* Life goes on, on a new PDC. */
	t_send(0, 1, 2 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	cr_assert_eq(T.nerr[0], 1);
	cr_assert_eq(t_stats(0).pdc_open, 2);
}

Test(nack, unknown_dpdcid)
{
	struct uet_pds_hdr h = t_req_hdr(UET_PDS_RUD_REQ, 5000, 0x77, 0x1234);
	const struct tlog *n;

	t_init(2, NULL, NULL);
	cr_assert_neq(t_inject_req(0, 1, &h, 0), 0);
	uet_harness_flush(&T.h);
	n = t_nth(1, UET_PDS_NACK, 0);
	cr_assert_not_null(n);
	cr_assert_eq(n->p.pds.nack.code, UET_NACK_INV_DPDCID);
	cr_assert_eq(n->p.pds.nack.spdcid, 0);
	cr_assert_eq(n->p.pds.nack.dpdcid, 0x77);
	cr_assert_eq(n->p.pds.nack.psn, 5000);
	cr_assert_eq(t_stats(1).drop_pdc, 1);
	cr_assert_eq(t_stats(1).pdc_open, 0);
	cr_assert_eq(t_ses(1)->rx_pkts, 0);
}

/* The target reaped the PDC the initiator still keeps: NACK INV_DPDCID,
 * and the message goes again on a new PDC, delivered once. */
Test(nack, reaped_target_makes_sender_resend_on_new_pdc)
{
	struct uet_fep_config cfgs[2] = { t_cfg(), t_cfg() };

	cfgs[0].pdc_idle = 10 * UET_SEC;	/* initiator keeps its PDC */
	cfgs[1].pdc_idle = 1 * UET_MSEC;	/* target reaps after 128 ms */
	t_init_each(2, cfgs, NULL);
	t_establish(0, 1);
	t_run_quiet(T.h.now + 1 * UET_SEC);
	cr_assert_eq(t_stats(1).pdc_closed, 1, "target did not reap");
	cr_assert_eq(t_stats(0).pdc_closed, 0);
	t_send(0, 1, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	cr_assert_eq(T.last[0].err, 0);
	cr_assert_eq(t_stats(0).pdc_failed, 0);
	cr_assert_eq(t_stats(0).pdc_open, 2);
	t_send(0, 1, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	cr_assert_eq(T.last[0].err, 0);
	cr_assert_eq(t_ses(1)->rx_pkts, 3);
	cr_assert_eq(t_ses(1)->rx_dups, 0);
}

Test(nack, reserved_pdc_info_refused)
{
	struct uet_pds_hdr h = t_req_hdr(UET_PDS_RUD_REQ, 70000, 0x55, 0);
	const struct tlog *n;

	h.flags = UET_PDS_F_SYN;
	h.req.dpdcid = 0;
	h.req.pdc_info = UET_PDC_INFO_USE_RSV;
	t_init(2, NULL, NULL);
	cr_assert_neq(t_inject_req(0, 1, &h, 0), 0);
	uet_harness_flush(&T.h);
	n = t_nth(1, UET_PDS_NACK, 0);
	cr_assert_not_null(n);
	cr_assert_eq(n->p.pds.nack.code, UET_NACK_UNEXP_EVENT);
	cr_assert_eq(t_stats(1).pdc_open, 0);
}

Test(nack, target_pool_exhausted)
{
	struct uet_fep_config cfgs[3] = { t_cfg(), t_cfg(), t_cfg() };
	size_t i, no_pdc = 0;

	cfgs[1].pdc_max = 1;
	for (i = 0; i < 3; i++) {
		cfgs[i].pdc_idle = 5 * UET_MSEC;
		cfgs[i].max_retx = 8;
	}
	t_init_each(3, cfgs, NULL);
	t_send(0, 1, 4 * T_SEG);
	t_send(2, 1, 4 * T_SEG);
	t_run_done(T_LIMIT);
	t_check_delivery(0, 1);
	t_check_delivery(2, 1);
	for (i = 0; i < T.nlog; i++)
		if (T.log[i].node == 1 && T.log[i].p.pds.type == UET_PDS_NACK) {
			cr_assert_eq(T.log[i].p.pds.nack.code,
				     UET_NACK_NO_PDC_AVAIL);
			cr_assert_eq(T.log[i].p.pds.nack.spdcid, 0);
			no_pdc++;
		}
	cr_assert_gt(no_pdc, 0, "the pool never ran out");
	cr_assert_eq(t_ses(1)->pdc_peak, 1, "%d PDCs open at once",
		     t_ses(1)->pdc_peak);
	cr_assert_eq(T.nerr[0] + T.nerr[2], 0);
}

Test(nack, closing_after_close)
{
	struct uet_fep_config c = t_cfg();
	const struct tlog *close, *n;
	struct t_pdc p;
	struct uet_pds_hdr h;

	c.pdc_idle = 5 * UET_MSEC;
	t_init(2, &c, NULL);
	p = t_establish_ids(0, 1);
	t_run_quiet(T.h.now + 20 * UET_MSEC);
	cr_assert_eq(t_stats(0).pdc_closed, 1);
	close = t_nth(0, UET_PDS_CTRL, 0);
	cr_assert_not_null(close);
	cr_assert_eq(close->p.pds.next_hdr, UET_CTL_CLOSE);
	T.nlog = 0;
	/* The target lingers: a request past the CLOSE gets CLOSING. */
	h = t_req_hdr(UET_PDS_RUD_REQ, close->p.pds.ctrl.psn + 1, p.iid, p.tid);
	cr_assert_neq(t_inject_req(0, 1, &h, 9), 0);
	uet_harness_flush(&T.h);
	n = t_nth(1, UET_PDS_NACK, 0);
	cr_assert_not_null(n);
	cr_assert_eq(n->p.pds.nack.code, UET_NACK_CLOSING);
	cr_assert_eq(n->p.pds.nack.spdcid, p.tid);
	cr_assert_eq(t_ses(1)->rx_pkts, 1);
}

Test(nack, mode_mismatch)
{
	struct t_pdc p;
	struct uet_pds_hdr h;
	const struct tlog *n;

	t_init(2, NULL, NULL);
	p = t_establish_ids(0, 1);
	h = t_req_hdr(UET_PDS_ROD_REQ, p.next, p.iid, p.tid);
	cr_assert_neq(t_inject_req(0, 1, &h, 1), 0);
	uet_harness_flush(&T.h);
	n = t_nth(1, UET_PDS_NACK, 0);
	cr_assert_not_null(n);
	cr_assert_eq(n->p.pds.nack.code, UET_NACK_PDC_MODE_MISMATCH);
}

Test(nack, out_of_window)
{
	struct t_pdc p;
	struct uet_pds_hdr h;
	const struct tlog *n;

	t_init(2, NULL, NULL);
	p = t_establish_ids(0, 1);
	h = t_req_hdr(UET_PDS_RUD_REQ, p.next + 5000, p.iid, p.tid);
	cr_assert_neq(t_inject_req(0, 1, &h, 1), 0);
	uet_harness_flush(&T.h);
	n = t_nth(1, UET_PDS_NACK, 0);
	cr_assert_not_null(n);
	cr_assert_eq(n->p.pds.nack.code, UET_NACK_PSN_OOR_WINDOW);
	cr_assert_eq(n->p.pds.nack.psn, p.next + 5000);
	cr_assert_eq(t_stats(1).drop_psn, 1);
	cr_assert_eq(t_ses(1)->rx_pkts, 1);
}

Test(nack, header_mismatch)
{
	struct t_pdc p;
	struct uet_pds_hdr h;
	const struct tlog *n;

	t_init(2, NULL, NULL);
	p = t_establish_ids(0, 1);
	/* Right DPDCID and FA, wrong SPDCID (another sender from there:
	 * addr_test has the other FAs). */
	h = t_req_hdr(UET_PDS_RUD_REQ, p.next, (uint16_t)(p.iid + 1), p.tid);
	cr_assert_neq(t_inject_req(0, 1, &h, 1), 0);
	uet_harness_flush(&T.h);
	n = t_nth(1, UET_PDS_NACK, 0);
	cr_assert_not_null(n);
	cr_assert_eq(n->p.pds.nack.code, UET_NACK_PDC_HDR_MISMATCH);
	cr_assert_eq(n->p.pds.nack.dpdcid, (uint16_t)(p.iid + 1));
	cr_assert(uet_addr_equal(&n->pi.dst, &T.h.node[0].addr));
	cr_assert_eq(t_stats(1).drop_pdc, 1);
}

Test(nack, malformed_dropped_and_counted)
{
	static const uint8_t junk[] = { 0xFF, 0xFF, 0x00 };
	struct uet_pkt_info pi = t_pi_from(0, 1);
	uint8_t buf[64];

	t_init(2, NULL, NULL);
	cr_assert_lt(uet_harness_inject(&T.h, 1, &pi, junk, sizeof(junk)), 0);
	cr_assert_lt(uet_harness_inject(&T.h, 1, &pi, junk, 1), 0);
	cr_assert_eq(t_stats(1).drop_malformed, 2);
	cr_assert_eq(t_stats(1).rx_pkts, 2);
	cr_assert_eq(uet_fep_poll_tx(T.h.node[1].fep, &pi, buf, sizeof(buf),
				     T.h.now), UET_ERR_INVAL,
		     "poll_tx accepted a buffer below mtu");
	uet_harness_flush(&T.h);
	cr_assert_eq(T.nlog, 0, "a malformed packet was answered");
	cr_assert_eq(uet_fep_next_timeout(T.h.node[1].fep), UET_TIME_NONE);
}

Test(nack, ack_beyond_sent_dropped)
{
	struct uet_pkt_info pi;
	struct uet_pkt pkt;
	struct t_pdc p;
	uint8_t buf[64];
	int n;

	t_init(2, NULL, NULL);
	p = t_establish_ids(0, 1);
	memset(&pkt, 0, sizeof(pkt));
	pkt.pds.type = UET_PDS_ACK;
	pkt.pds.ack.cack_psn = p.next + 5;
	pkt.pds.ack.spdcid = p.tid;
	pkt.pds.ack.dpdcid = p.iid;
	n = uet_pkt_encode(buf, sizeof(buf), &pkt);
	cr_assert_gt(n, 0);
	pi = t_pi_from(1, 0);
	cr_assert_neq(uet_harness_inject(&T.h, 0, &pi, buf, (size_t)n), 0);
	cr_assert_eq(t_stats(0).drop_psn, 1);
	/* Nothing broke: the next message goes through. */
	t_send(0, 1, 2 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
}

Test(nack, nack_outside_flight_ignored)
{
	struct uet_pkt_info pi;
	struct uet_pkt pkt;
	struct t_pdc p;
	uint8_t buf[64];
	int n;

	t_init(2, NULL, NULL);
	p = t_establish_ids(0, 1);
	memset(&pkt, 0, sizeof(pkt));
	pkt.pds.type = UET_PDS_NACK;
	pkt.pds.nack.code = UET_NACK_TRIMMED;
	pkt.pds.nack.psn = p.next - 1;	/* acknowledged long ago */
	pkt.pds.nack.spdcid = p.tid;
	pkt.pds.nack.dpdcid = p.iid;
	n = uet_pkt_encode(buf, sizeof(buf), &pkt);
	cr_assert_gt(n, 0);
	pi = t_pi_from(1, 0);
	cr_assert_eq(uet_harness_inject(&T.h, 0, &pi, buf, (size_t)n), 0);
	uet_harness_flush(&T.h);
	cr_assert_eq(t_stats(0).nacks_rx, 1);
	cr_assert_eq(t_reqs(0), 0, "a stale NACK caused a resend");
	/* A fatal code outside the flight does not fail the PDC either. */
	pkt.pds.nack.code = UET_NACK_INV_DPDCID;
	n = uet_pkt_encode(buf, sizeof(buf), &pkt);
	cr_assert_eq(uet_harness_inject(&T.h, 0, &pi, buf, (size_t)n), 0);
	cr_assert_eq(t_stats(0).pdc_failed, 0);
}

static int refuse_many(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		       const struct uet_ses_req *req, uint32_t off,
		       struct uet_ses_rsp *rsp, bool *gtd)
{
	int *left = ses->hook_arg;

	(void)pdc;
	(void)rsp;
	(void)gtd;
	if (req->message_id == 1 && off == 0 && *left > 0) {
		--*left;
		return UET_NACK_NO_SES_MSG_AVAIL;
	}
	return 0;
}

/* A receiver short of buffers for far longer than the RTO retry span is
 * alive: the sender keeps trying, paced at rto_max, and gets through. */
Test(nack, long_refusal_is_not_a_dead_peer)
{
	struct uet_fep_config c = t_cfg();
	uet_time retry_span = 0, gap_last = 0, prev = 0;
	int left = 40;
	size_t i, resends = 0;

	t_init(2, &c, NULL);
	for (i = 0; i <= c.max_retx; i++)
		retry_span += (c.rto_min << i) < c.rto_max ? c.rto_min << i :
							      c.rto_max;
	t_establish(0, 1);
	t_ses(1)->rx_hook = refuse_many;
	t_ses(1)->hook_arg = &left;
	t_send(0, 1, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_eq(left, 0);
	cr_assert_eq(T.nerr[0], 0);
	cr_assert_eq(t_stats(0).pdc_failed, 0);
	cr_assert_eq(t_stats(0).retx_nack, 40);
	cr_assert_gt(T.h.now, 10 * retry_span, "refused for too short a time");
	for (i = 0; i < T.nlog; i++) {
		if (T.log[i].node != 0 || !t_is_req(&T.log[i]))
			continue;
		if (resends++)
			gap_last = T.log[i].t - prev;
		prev = T.log[i].t;
	}
	cr_assert_eq(gap_last, c.rto_max, "pause not capped at rto_max");
}
