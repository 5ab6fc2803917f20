/* The return direction (docs/choices.md §2.5, §6.2, §2.4): read data the
 * target sends on the PDC the initiator opened, in its own PSN space
 * (Start_PSN = the forward one), with the same RTO / SACK / NACK rules;
 * the initiator ACKs it and hands each new packet to SES once. Neither
 * side closes or reaps the PDC while return data is in flight; a dead
 * peer fails it on either side. The fake SES serves a read of n bytes as
 * ceil(n / seg) return packets (fake_ses.h). */
#include "../fixtures/pds_test_util.h"

#include "psn.h"

TestSuite(ret, .fini = t_fini);

/* Post a read of len bytes by node `from` from node `to`. */
static void t_read(unsigned from, unsigned to, size_t len)
{
	static uint8_t buf[1];
	struct uet_iov iov = { .base = buf, .len = len };
	struct uet_op op = {
		.type = UET_OP_READ,
		.peer = T.h.node[to].addr,
		.iov = &iov,
		.iov_count = 1,
		.context = (void *)(uintptr_t)(T.ncomp[from] + 1),
	};

	cr_assert_eq(uet_fep_post(T.h.node[from].fep, &op, T.h.now), 0);
}

static bool is_ret(const struct tlog *e)
{
	return t_is_req(e) && e->p.has_rsp;
}

static size_t ret_sent(unsigned node, bool resends)
{
	size_t i, n = 0;

	for (i = 0; i < T.nlog; i++)
		if (T.log[i].node == node && is_ret(&T.log[i]) &&
		    (resends || !(T.log[i].p.pds.flags & UET_PDS_F_RETX)))
			n++;
	return n;
}

/* Read m (the fake message index at node from) arrived whole, once. */
static void t_check_read(unsigned from, unsigned m)
{
	const struct fake_msg *r = &t_ses(from)->msgs[m];
	uint32_t k;

	cr_assert(r->read);
	cr_assert(r->done, "read %u not done", m);
	cr_assert_eq(r->err, 0, "read %u failed: %d code %u", m, r->err,
		     r->code);
	cr_assert_eq(r->ret_got, r->nret);
	for (k = 0; k < r->nret; k++)
		cr_assert_eq(r->ret_cnt[k], 1, "return packet %u %u times", k,
			     r->ret_cnt[k]);
	cr_assert_eq(t_ses(from)->ret_dups, 0);
	cr_assert_eq(t_ses(from)->ret_bad, 0);
	cr_assert_eq(t_ses(from)->ret_stray, 0);
}

/* The target's books: every return packet acknowledged exactly once
 * (the last ACKs may still be on their way when the read completes). */
static bool served(struct uet_harness *h, void *arg)
{
	(void)h;
	return t_ses(1)->ret_acked + t_ses(1)->ret_failed >=
	       *(uint64_t *)arg;
}

static void t_check_served(unsigned to, uint64_t pkts)
{
	struct uet_ses *s = t_ses(to);

	cr_assert_eq(to, 1);
	uet_harness_run(&T.h, served, &pkts, T.h.now + T_LIMIT);

	cr_assert_eq(s->ret_acked, pkts, "%lu of %lu return packets ACKed",
		     (unsigned long)s->ret_acked, (unsigned long)pkts);
	cr_assert_eq(s->ret_failed, 0);
	cr_assert_eq(s->resolved_twice, 0);
}

/* Two nodes of config c (NULL: t_cfg), imp (if any) on the link into node
 * 0; node 0 reads nseg segments from node 1, which arrive whole, each
 * return packet ACKed once. */
static void read_whole(const struct uet_fep_config *c,
		       const struct uet_mem_impair *imp, unsigned nseg)
{
	t_init(2, c, NULL);
	if (imp)
		t_impair(0, imp);
	t_read(0, 1, nseg * T_SEG);
	t_run_done(T_LIMIT);
	t_check_read(0, 0);
	t_check_served(1, nseg);
}

/* Two nodes of config c, and the PDC from 0 to 1 opened by one send. */
static void open_pdc(const struct uet_fep_config *c)
{
	t_init(2, c, NULL);
	t_send(0, 1, T_SEG);
	t_run_done(T_LIMIT);
}

Test(ret, read_returns_in_own_psn_space)
{
	const struct tlog *first = NULL, *req = NULL;
	uint32_t psn;
	size_t i, acks = 0;

	t_init(2, NULL, NULL);
	t_read(0, 1, 20 * T_SEG);
	t_run_done(T_LIMIT);
	t_run_quiet(T.h.now + 10 * UET_MSEC);
	t_check_read(0, 0);
	t_check_served(1, 20);
	cr_assert_eq(ret_sent(1, true), 20, "return packets resent");
	for (i = 0; i < T.nlog; i++) {
		const struct tlog *e = &T.log[i];

		if (e->node == 0 && t_is_req(e) && !req)
			req = e;
		if (e->node == 1 && is_ret(e) && !first)
			first = e;
		if (e->node == 0 && t_is_ack(e)) {
			acks++;
			cr_assert_eq(e->p.pds.next_hdr, UET_NH_NONE,
				     "an ACK of read data carries a response");
			cr_assert_eq(e->p.pds.ack.dpdcid, first->p.pds.req.spdcid);
		}
	}
	cr_assert_not_null(req);
	cr_assert_not_null(first);
	/* Start_PSN of the return direction = the forward one (pds.h). */
	cr_assert_eq(first->p.pds.req.psn,
		     req->p.pds.req.psn - req->p.pds.req.psn_offset);
	cr_assert_eq(first->p.pds.next_hdr, UET_NH_RSP_DATA);
	cr_assert_not(first->p.pds.flags & UET_PDS_F_SYN);
	cr_assert_eq(first->p.pds.req.dpdcid, req->p.pds.req.spdcid);
	cr_assert_not(first->pi.home, "return data left from the home port");
	psn = first->p.pds.req.psn;
	for (i = 0; i < T.nlog; i++)
		if (T.log[i].node == 1 && is_ret(&T.log[i]))
			cr_assert_eq(T.log[i].p.pds.req.psn, psn++);
	cr_assert_gt(acks, 0);
	cr_assert_eq(t_stats(1).ret_tx, 20);
	cr_assert_eq(t_stats(0).ret_rx, 20);
	cr_assert_eq(t_stats(0).pdc_open, 1);
	cr_assert_eq(t_stats(1).pdc_open, 1);
	/* Both sides close cleanly once it is over. */
	t_run_quiet(T.h.now + 10 * UET_SEC);
	cr_assert_eq(t_stats(0).pdc_closed, 1);
	cr_assert_eq(t_stats(1).pdc_closed, 1);
	cr_assert_eq(t_stats(0).pdc_failed + t_stats(1).pdc_failed, 0);
}

/* Return packets lost on the way to the initiator: resent by the
 * target's RTO (or asked for by SACK gaps), SES sees each once. */
Test(ret, lost_return_packets_resent)
{
	struct uet_mem_impair imp = { .drop_mask = 0x8000000000000124ull };

	read_whole(NULL, &imp, 30);
	cr_assert_gt(ret_sent(1, true), ret_sent(1, false));
	cr_assert_gt(t_stats(1).retx_rto + t_stats(1).retx_nack, 0);
	cr_assert_eq(t_stats(0).pdc_failed + t_stats(1).pdc_failed, 0);
}

/* Copies and reordering on the way to the initiator: never twice to SES
 * (PDS counts the copies), and the request's ACK may come late. */
Test(ret, duplicated_and_reordered_return_packets)
{
	struct uet_mem_impair imp = { .dup_mask = 0x0F0F0F0F0F0F0F0Full,
				      .reorder_mask = 0x3333333333333333ull,
				      .reorder_delay = 30 * UET_USEC };

	t_init(2, NULL, NULL);
	t_impair(0, &imp);
	t_read(0, 1, 40 * T_SEG);
	t_read(0, 1, 7 * T_SEG);
	t_run_done(T_LIMIT);
	t_check_read(0, 0);
	t_check_read(0, 1);
	t_check_served(1, 47);
	cr_assert_gt(t_stats(0).dup_rx, 0);
	cr_assert_eq(t_stats(0).ret_rx, 47);
}

/* The initiator's ACKs of return data are lost: the target resends,
 * the initiator sees duplicates and re-ACKs, SES at either end hears of
 * each packet once. */
static bool drop_some_acks(const struct tlog *e)
{
	static unsigned n;	/* each test runs in its own process */

	return e->node == 0 && t_is_ack(e) && n++ % 3 != 2;
}

Test(ret, lost_acks_of_return_data)
{
	t_init(2, NULL, NULL);
	t_read(0, 1, T_SEG);	/* the PDC first */
	t_run_done(T_LIMIT);
	T.drop = drop_some_acks;
	t_read(0, 1, 24 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_read(0, 1);
	t_check_served(1, 25);
	cr_assert_gt(t_stats(0).dup_rx, 0, "no return packet came twice");
	cr_assert_gt(ret_sent(1, true), ret_sent(1, false));
}

/* ROD: the return direction keeps its order too (Go-Back-N), and SES
 * gets the data in PSN order. */
Test(ret, rod_return_in_order)
{
	struct uet_fep_config c = t_cfg();
	struct uet_mem_impair imp = { .drop_mask = 0x0000100000000010ull,
				      .reorder_mask = 0x0400000000040000ull };

	c.rod = true;
	read_whole(&c, &imp, 40);
	cr_assert_eq(t_ses(0)->ret_order_errs, 0);
	cr_assert_eq(t_nth(1, UET_PDS_ROD_REQ, 0)->p.pds.next_hdr,
		     UET_NH_RSP_DATA);
}

/* The first ACK of the PDC is lost: return data reaches an initiator
 * still in its SYN phase, names the target's PDC, and is taken. */
Test(ret, return_data_before_the_first_ack)
{
	struct uet_mem_impair imp = { .drop_mask = 1 };

	read_whole(NULL, &imp, 5);
	cr_assert_eq(t_stats(0).drop_pdc, 0);
	cr_assert_eq(t_stats(0).pdc_open, 1);
}

/* SES refuses a return packet for now (a NACK code): not received, the
 * target backs off and resends, SES then takes it once. */
static int refuse_first(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
			const struct uet_ses_rsp *rsp)
{
	int *left = ses->hook_arg;

	(void)pdc;
	if (rsp->message_offset == 2 * T_SEG && *left > 0) {
		(*left)--;
		return UET_NACK_NO_SES_MSG_AVAIL;
	}
	return 0;
}

Test(ret, ses_refusal_is_nacked_and_resent)
{
	static int left = 2;
	const struct tlog *n;

	t_init(2, NULL, NULL);
	t_ses(0)->ret_hook = refuse_first;
	t_ses(0)->hook_arg = &left;
	t_read(0, 1, 4 * T_SEG);
	t_run_done(T_LIMIT);
	t_check_read(0, 0);
	t_check_served(1, 4);
	n = t_nth(0, UET_PDS_NACK, 0);
	cr_assert_eq(n->p.pds.nack.code, UET_NACK_NO_SES_MSG_AVAIL);
	cr_assert_eq(left, 0);
	cr_assert_gt(t_stats(1).retx_nack, 0);
	cr_assert_eq(t_stats(1).pdc_failed, 0);
}

/* The initiator dies while return data flows: the target's RTOs give up
 * and SES hears of every return packet that will never be ACKed. */
static bool kill_after_rets(struct uet_harness *h, void *arg)
{
	(void)arg;
	return t_ses(0)->ret_rx >= 5 || !h->node[0].fep;
}

/* Node 0 reads 60 segments from node 1 over a window of 8 (c); node
 * `dies` dies once the data flows. */
static void read_then_kill(struct uet_fep_config *c, unsigned dies)
{
	c->window = 8;
	t_init(2, c, NULL);
	t_read(0, 1, 60 * T_SEG);
	cr_assert(uet_harness_run(&T.h, kill_after_rets, NULL, T_LIMIT));
	uet_harness_kill(&T.h, dies);
}

Test(ret, initiator_dies_during_return_data)
{
	struct uet_fep_config c = t_cfg();
	struct uet_ses *s;

	read_then_kill(&c, 0);
	t_run_quiet(T.h.now + T_LIMIT);
	s = t_ses(1);
	cr_assert_gt(s->ret_failed, 0, "no return packet failed");
	cr_assert_eq(s->ret_acked + s->ret_failed +
		     (60 - s->rets[0].next_off / T_SEG), 60,
		     "acked %lu failed %lu unsent %u",
		     (unsigned long)s->ret_acked, (unsigned long)s->ret_failed,
		     60 - s->rets[0].next_off / T_SEG);
	cr_assert_eq(s->resolved_twice, 0);
	cr_assert_eq(t_stats(1).pdc_failed, 1);
	cr_assert_eq(s->pdc_now, 0);
	cr_assert_eq(uet_fep_next_timeout(T.h.node[1].fep), UET_TIME_NONE);
}

/* The target dies while the initiator waits for read data: nothing of
 * the initiator's is in flight, so no RTO would notice; its liveness
 * probes go unanswered and fail the PDC, and with it the read. */
Test(ret, target_dies_during_return_data)
{
	struct uet_fep_config c = t_cfg();
	uet_time t0;

	read_then_kill(&c, 1);
	t0 = T.h.now;
	t_run_done(T.h.now + T_LIMIT);
	cr_assert_eq(T.nerr[0], 1);
	cr_assert_eq(T.last[0].err, UET_ERR_PEER);
	cr_assert(T.last[0].flags & UET_CF_READ);
	cr_assert_eq(t_stats(0).pdc_failed, 1);
	cr_assert_gt(t_stats(0).probes_tx, c.max_retx);
	/* Bounded: silence (pdc_idle), then max_retx + 1 probes. */
	cr_assert_leq(T.last_at[0] - t0,
		      c.pdc_idle + (c.max_retx + 2) * c.rto_max);
	cr_assert_eq(uet_fep_next_timeout(T.h.node[0].fep), UET_TIME_NONE);
}

/* A live peer answers the probes: a PDC SES keeps waiting on is never
 * failed for it, and closes once SES lets go. */
Test(ret, probes_of_a_live_target_are_answered)
{
	struct uet_fep_config c = t_cfg();

	open_pdc(&c);
	t_ses(0)->force_busy = true;
	t_run_quiet(T.h.now + 5 * c.pdc_idle);
	cr_assert_geq(t_stats(0).probes_tx, 4);
	cr_assert_eq(t_stats(0).pdc_failed, 0);
	cr_assert_eq(t_stats(0).pdc_closed, 0);
	cr_assert_eq(t_stats(1).pdc_closed, 0, "the target reaped it");
	t_ses(0)->force_busy = false;
	t_run_quiet(T.h.now + 10 * UET_SEC);
	cr_assert_eq(t_stats(0).pdc_closed, 1);
}

/* A CLOSE reaches the target while return data is in flight (here
 * forged: uet's initiator does not close while SES waits): NACK
 * CLOSING_IN_ERR, the PDC closes in error on both sides, and the
 * target's SES hears of the return packets that never got through. */
Test(ret, close_while_return_data_in_flight)
{
	struct uet_fep_config c = t_cfg();
	struct uet_mem_impair hold = { .drop_ppm = UET_MEM_PPM };
	struct uet_pkt_info pi;
	struct uet_pkt pkt;
	struct t_pdc p;
	const struct tlog *n;
	uint8_t buf[64];
	int len;

	c.window = 8;
	t_init(2, &c, NULL);
	p = t_establish_ids(0, 1);
	t_impair(0, &hold);	/* return data and ACKs never arrive */
	t_read(0, 1, 20 * T_SEG);
	uet_harness_run(&T.h, NULL, NULL, T.h.now + 200 * UET_USEC);
	cr_assert_gt(ret_sent(1, false), 0);
	memset(&pkt, 0, sizeof(pkt));
	pkt.pds.type = UET_PDS_CTRL;
	pkt.pds.next_hdr = UET_CTL_CLOSE;
	pkt.pds.flags = UET_PDS_F_AR;
	pkt.pds.ctrl.psn = p.next + 1;
	pkt.pds.ctrl.spdcid = p.iid;
	pkt.pds.ctrl.dpdcid = p.tid;
	len = uet_pkt_encode(buf, sizeof(buf), &pkt);
	pi = t_pi_from(0, 1);
	cr_assert_eq(uet_harness_inject(&T.h, 1, &pi, buf, (size_t)len), 0);
	t_impair(0, NULL);
	t_run_done(T.h.now + T_LIMIT);
	n = t_nth(1, UET_PDS_NACK, 0);
	cr_assert_eq(n->p.pds.nack.code, UET_NACK_CLOSING_IN_ERR);
	cr_assert_eq(t_stats(1).pdc_failed, 1);
	cr_assert_gt(t_ses(1)->ret_failed, 0);
	cr_assert_eq(t_ses(1)->ret_acked, 0);
	/* The initiator's resent request finds the target's PDC gone (NACK
	 * INV_DPDCID): the PDC goes, and the read, which the target had
	 * begun to serve, fails with it rather than being read twice. */
	cr_assert_eq(t_stats(0).pdc_failed, 0);
	cr_assert_eq(T.last[0].err, UET_ERR_PEER);
	cr_assert_eq(T.last[0].prov_errno, UET_NACK_INV_DPDCID);
}

/* The initiator vanished, but SES at the target is still busy on the
 * PDC: the reap waits one more period, then happens anyway (a half-sent
 * message of a dead initiator must not hold the slot forever). */
Test(ret, busy_target_reaped_late_not_never)
{
	struct uet_fep_config c = t_cfg();
	uet_time t_last, reap;

	open_pdc(&c);
	t_last = T.h.now;
	uet_harness_kill(&T.h, 0);
	t_ses(1)->force_busy = true;
	t_run_quiet(T.h.now + 100 * UET_SEC);
	cr_assert_eq(t_stats(1).pdc_closed, 1);
	/* reap = 2 * (pdc_idle + (max_retx + 1) * rto_max), pds.c */
	reap = 2 * (c.pdc_idle + (c.max_retx + 1) * c.rto_max);
	cr_assert_geq(T.h.now, t_last + 2 * reap, "reaped a busy PDC early");
	cr_assert_lt(T.h.now, t_last + 3 * reap);
}
