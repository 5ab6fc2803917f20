/* Connectionless delivery (docs/choices.md §8; sublayer.h): RUDI
 * requests answered one by one with RUDI_RESP (read data inline), resent
 * on RTO with the same pkt_id, duplicates handed to SES (at least once),
 * NACKs with NT, retry exhaustion; UUD without answers, complete at
 * transmit; both from the home port; neither spoken with cfg off. */
#include "../fixtures/pds_test_util.h"

TestSuite(cl, .fini = t_fini);

static struct uet_fep_config cl_cfg(void)
{
	struct uet_fep_config c = t_cfg();

	c.rudi = true;
	c.uud = true;
	return c;
}

static int cl_send(unsigned from, unsigned to, uint8_t mode, uint32_t len,
		   bool read)
{
	int i = fake_ses_cl_send(t_ses(from), &T.h.node[to].addr, mode, len,
				 read, T.h.now);

	cr_assert_geq(i, 0);
	return i;
}

static bool cl_all_done(struct uet_harness *h, void *arg)
{
	struct uet_ses *s = t_ses(0);
	unsigned i;

	(void)h;
	(void)arg;
	for (i = 0; i < s->ncls; i++)
		if (!s->cls[i].done)
			return false;
	return true;
}

static void cl_run(void)
{
	cr_assert(uet_harness_run(&T.h, cl_all_done, NULL, T.h.now + T_LIMIT),
		  "connectionless packets not done");
	cr_assert_not(T.h.stuck);
}

/* Packet i of node 0: done once, OK. */
static void cl_check_ok(unsigned i)
{
	const struct fake_cl *c = &t_ses(0)->cls[i];

	cr_assert(c->done);
	cr_assert_eq(c->err, 0, "packet %u failed: %d code %u", i, c->err,
		     c->code);
	cr_assert_eq(c->dones, 1, "packet %u done %u times", i, c->dones);
	cr_assert_eq(c->fails, 0);
	cr_assert_not(c->data_bad, "packet %u: bad answer", i);
	if (c->mode == UET_CL_RUDI)
		cr_assert_eq(c->rc, UET_RC_OK);
}

static size_t count_type(unsigned node, uint8_t type, uint8_t flags)
{
	return t_count(node, type, flags);
}

Test(cl, rudi_requests_answered_once)
{
	struct uet_fep_config c = cl_cfg();
	uint32_t ids[10];
	size_t i, k, n = 0;

	t_init(2, &c, NULL);
	for (i = 0; i < 10; i++)
		cl_send(0, 1, UET_CL_RUDI, (uint32_t)(10 + i), false);
	cl_run();
	for (i = 0; i < 10; i++) {
		cl_check_ok((unsigned)i);
		cr_assert_eq(fake_ses_cl_copies(t_ses(1), &T.h.node[0].addr,
						t_ses(0)->cls[i].id), 1);
	}
	cr_assert_eq(t_ses(1)->cl_rx_bad, 0);
	/* Requests from the home port, pkt_ids distinct; answers echo them
	 * and go back where the request came from. */
	for (i = 0; i < T.nlog; i++) {
		const struct tlog *e = &T.log[i];

		if (e->node == 0 && e->p.pds.type == UET_PDS_RUDI_REQ) {
			cr_assert(e->pi.home);
			cr_assert(uet_addr_equal(&e->pi.dst,
						 &T.h.node[1].addr));
			for (k = 0; k < n; k++)
				cr_assert_neq(ids[k], e->p.pds.rudi.pkt_id);
			ids[n++] = e->p.pds.rudi.pkt_id;
		}
		if (e->node == 1 && e->p.pds.type == UET_PDS_RUDI_RESP) {
			cr_assert(uet_addr_equal(&e->pi.dst,
						 &T.h.node[0].addr));
			cr_assert_eq(e->p.pds.next_hdr, UET_NH_RSP);
		}
	}
	cr_assert_eq(n, 10);
	cr_assert_eq(count_type(1, UET_PDS_RUDI_RESP, 0), 10);
	cr_assert_eq(t_stats(0).cl_tx, 10);
	cr_assert_eq(t_stats(1).cl_rx, 10);
	cr_assert_eq(t_stats(0).pdc_open + t_stats(1).pdc_open, 0,
		     "a PDC for connectionless packets");
	cr_assert_eq(uet_fep_next_timeout(T.h.node[0].fep), UET_TIME_NONE);
}

/* A read's data rides in the RUDI_RESP, up to a payload MTU. */
Test(cl, rudi_read_data_inline)
{
	struct uet_fep_config c = cl_cfg();
	const struct tlog *r;

	fake_ses_seg = 1200;
	t_init(2, &c, NULL);
	cl_send(0, 1, UET_CL_RUDI, 1200, true);
	cl_send(0, 1, UET_CL_RUDI, 7, true);
	cl_run();
	cl_check_ok(0);
	cl_check_ok(1);
	cr_assert_eq(t_ses(0)->cls[0].data_len, 1200);
	cr_assert_eq(t_ses(0)->cls[1].data_len, 7);
	r = t_nth(1, UET_PDS_RUDI_RESP, 0);
	cr_assert_eq(r->p.pds.next_hdr, UET_NH_RSP_DATA);
	cr_assert_eq(r->p.payload_len, 1200);
	cr_assert_leq(r->len, c.mtu);
}

/* Requests lost: resent after the RTO with the same pkt_id and RETX;
 * the target's SES saw only what arrived. */
Test(cl, lost_request_resent_same_pkt_id)
{
	struct uet_fep_config c = cl_cfg();
	struct uet_mem_impair imp = { .drop_mask = 0x5 };
	const struct tlog *first, *again = NULL;
	size_t i;

	t_init(2, &c, NULL);
	t_impair(1, &imp);
	cl_send(0, 1, UET_CL_RUDI, 20, false);
	cl_send(0, 1, UET_CL_RUDI, 20, false);
	cl_send(0, 1, UET_CL_RUDI, 20, false);
	cl_run();
	for (i = 0; i < 3; i++) {
		cl_check_ok((unsigned)i);
		cr_assert_eq(fake_ses_cl_copies(t_ses(1), &T.h.node[0].addr,
						t_ses(0)->cls[i].id), 1);
	}
	first = t_nth(0, UET_PDS_RUDI_REQ, 0);
	for (i = 0; i < T.nlog; i++)
		if (T.log[i].node == 0 &&
		    T.log[i].p.pds.type == UET_PDS_RUDI_REQ &&
		    (T.log[i].p.pds.flags & UET_PDS_F_RETX) && !again)
			again = &T.log[i];
	cr_assert_not_null(again, "no resend");
	cr_assert_eq(again->p.pds.rudi.pkt_id, first->p.pds.rudi.pkt_id);
	cr_assert_geq(again->t - first->t, c.rto_min);
	cr_assert(again->pi.home);
	cr_assert_eq(t_stats(0).retx_rto, 2);
}

/* The response is lost: the resent request reaches SES again (RUDI is
 * at least once), the initiator completes once. */
Test(cl, lost_response_means_a_second_copy_for_ses)
{
	struct uet_fep_config c = cl_cfg();
	struct uet_mem_impair imp = { .drop_mask = 0x1 };

	t_init(2, &c, NULL);
	t_impair(0, &imp);
	cl_send(0, 1, UET_CL_RUDI, 30, false);
	cl_run();
	cl_check_ok(0);
	cr_assert_eq(fake_ses_cl_copies(t_ses(1), &T.h.node[0].addr,
					t_ses(0)->cls[0].id), 2);
	cr_assert_eq(count_type(1, UET_PDS_RUDI_RESP, UET_PDS_F_RETX), 1,
		     "the second answer names the resend");
}

/* Copies and reordering both ways: SES at the target sees every copy,
 * the initiator completes each once and ignores the extra answers. */
Test(cl, duplicates_and_reordering)
{
	struct uet_fep_config c = cl_cfg();
	struct uet_mem_impair imp = { .dup_mask = 0x5555555555555555ull,
				      .reorder_mask = 0x2222222222222222ull };
	unsigned i, copies = 0;

	t_init(2, &c, NULL);
	t_impair(0, &imp);
	t_impair(1, &imp);
	for (i = 0; i < 40; i++)
		cl_send(0, 1, UET_CL_RUDI, 16, i % 3 == 0);
	cl_run();
	for (i = 0; i < 40; i++) {
		cl_check_ok(i);
		copies += fake_ses_cl_copies(t_ses(1), &T.h.node[0].addr,
					     t_ses(0)->cls[i].id);
	}
	cr_assert_gt(copies, 40, "no duplicate reached SES");
	cr_assert_eq(t_ses(0)->cl_done_twice, 0);
	cr_assert_gt(t_stats(0).drop_other, 0, "no extra answer ignored");
}

/* Nobody answers: max_retx resends, then SES hears UET_ERR_PEER, in
 * bounded time. */
Test(cl, retries_exhausted_fail)
{
	struct uet_fep_config c = cl_cfg();
	struct uet_mem_impair imp = { .drop_ppm = UET_MEM_PPM };
	uet_time bound = 0;
	unsigned i;

	t_init(2, &c, NULL);
	t_impair(1, &imp);
	cl_send(0, 1, UET_CL_RUDI, 8, false);
	cl_send(0, 1, UET_CL_RUDI, 8, true);
	cl_run();
	for (i = 0; i < 2; i++) {
		const struct fake_cl *p = &t_ses(0)->cls[i];

		cr_assert_eq(p->err, UET_ERR_PEER);
		cr_assert_eq(p->fails, 1);
		cr_assert_eq(p->dones, 0);
	}
	cr_assert_eq(count_type(0, UET_PDS_RUDI_REQ, 0), 2 * (c.max_retx + 1));
	for (i = 0; i <= c.max_retx; i++)
		bound += c.rto_max;
	cr_assert_leq(T.h.now, bound);
	cr_assert_eq(uet_fep_next_timeout(T.h.node[0].fep), UET_TIME_NONE);
}

/* SES refuses: a RUDI NACK (NT, the pkt_id); a resource code makes the
 * initiator pause and resend, another fails the request with it. */
static int refuse_cl(struct uet_ses *ses, const struct uet_addr *peer,
		     uint8_t mode, const struct uet_ses_req *req)
{
	int *left = ses->hook_arg;

	(void)peer;
	(void)mode;
	if (req->request_length == 99)
		return UET_NACK_UNEXP_EVENT;
	if (*left > 0) {
		(*left)--;
		return UET_NACK_NO_RESOURCE;
	}
	return 0;
}

Test(cl, nacks_pause_or_fail)
{
	struct uet_fep_config c = cl_cfg();
	static int left = 2;
	const struct tlog *n;
	const struct fake_cl *bad;

	t_init(2, &c, NULL);
	t_ses(1)->cl_hook = refuse_cl;
	t_ses(1)->hook_arg = &left;
	cl_send(0, 1, UET_CL_RUDI, 8, false);
	cl_run();
	cl_check_ok(0);
	cr_assert_eq(left, 0);
	n = t_nth(1, UET_PDS_NACK, 0);
	cr_assert(n->p.pds.flags & UET_PDS_F_NT);
	cr_assert_eq(n->p.pds.nack.code, UET_NACK_NO_RESOURCE);
	cr_assert_eq(n->p.pds.nack.psn, t_nth(0, UET_PDS_RUDI_REQ, 0)->p.pds.rudi.pkt_id);
	cr_assert_eq(n->p.pds.nack.spdcid, 0);
	cr_assert_eq(t_stats(0).retx_nack, 2);
	cr_assert_eq(t_stats(0).retx_rto, 0);

	cl_send(0, 1, UET_CL_RUDI, 99, false);
	cl_run();
	bad = &t_ses(0)->cls[1];
	cr_assert_eq(bad->err, UET_ERR_PEER);
	cr_assert_eq(bad->code, UET_NACK_UNEXP_EVENT);
	cr_assert_eq(count_type(0, UET_PDS_RUDI_REQ, UET_PDS_F_RETX), 2,
		     "a fatal NACK was retried");
}

/* A cut request: NACK TRIMMED at once, resent at once. */
Test(cl, trimmed_request_resent_at_once)
{
	struct uet_fep_config c = cl_cfg();
	struct uet_mem_impair imp = { .trim_mask = 0x1, .trim_len = 12 };

	t_init(2, &c, NULL);
	t_impair(1, &imp);
	cl_send(0, 1, UET_CL_RUDI, 100, false);
	cl_run();
	cl_check_ok(0);
	cr_assert_eq(t_nth(1, UET_PDS_NACK, 0)->p.pds.nack.code,
		     UET_NACK_TRIMMED);
	cr_assert_eq(t_stats(0).retx_nack, 1);
	cr_assert_lt(T.h.now, c.rto_min, "waited for the RTO");
}

/* UUD: complete once handed to the port, no answer, no resend; what is
 * lost stays lost. */
Test(cl, uud_complete_at_transmit)
{
	struct uet_fep_config c = cl_cfg();
	struct uet_mem_impair imp = { .drop_mask = 0x4,
				      .delay = 10 * UET_USEC };
	unsigned i, got = 0;

	t_init(2, &c, NULL);
	t_impair(1, &imp);
	for (i = 0; i < 5; i++)
		cl_send(0, 1, UET_CL_UUD, 50, false);
	uet_harness_flush(&T.h);
	for (i = 0; i < 5; i++)
		cl_check_ok(i);
	cr_assert_eq(T.h.now, 0, "completed after transmit");
	t_run_quiet(T.h.now + 1 * UET_SEC);
	for (i = 0; i < 5; i++)
		got += fake_ses_cl_copies(t_ses(1), &T.h.node[0].addr,
					  t_ses(0)->cls[i].id);
	cr_assert_eq(got, 4);
	cr_assert_eq(T.nlog, 5, "UUD answered or resent");
	cr_assert(t_nth(0, UET_PDS_UUD_REQ, 0)->pi.home);
	cr_assert_eq(t_nth(0, UET_PDS_UUD_REQ, 0)->len, UET_PDS_UUD_LEN +
		     UET_SES_STD_LEN + 50);
	cr_assert_eq(t_stats(1).cl_rx, 4);
}

/* A fep with cfg.rudi / cfg.uud off speaks neither: what arrives is
 * dropped (drop_other), what SES asks for fails with UET_ERR_NOSYS. */
Test(cl, off_when_not_configured)
{
	struct uet_fep_config cfgs[2] = { cl_cfg(), t_cfg() };
	int k;

	t_init_each(2, cfgs, NULL);
	cl_send(0, 1, UET_CL_RUDI, 8, false);
	cl_send(0, 1, UET_CL_UUD, 8, false);
	cl_run();
	cr_assert_eq(t_ses(0)->cls[0].err, UET_ERR_PEER);
	cl_check_ok(1);
	cr_assert_eq(t_stats(1).drop_other, cfgs[0].max_retx + 1 + 1);
	cr_assert_eq(t_ses(1)->cl_rx, 0);
	k = fake_ses_cl_send(t_ses(1), &T.h.node[0].addr, UET_CL_UUD, 8,
			     false, T.h.now);
	cr_assert_geq(k, 0);
	uet_harness_flush(&T.h);
	cr_assert_eq(t_ses(1)->cls[k].err, UET_ERR_NOSYS);
	cr_assert_eq(t_stats(1).cl_tx, 0);
}

/* An answer nobody asked for, or from another FA: dropped. */
Test(cl, stray_answers_dropped)
{
	struct uet_fep_config c = cl_cfg();
	struct uet_pkt_info pi;
	struct uet_pkt pkt;
	uint32_t id;
	uint8_t buf[64];
	int n;

	t_init(3, &c, NULL);
	t_impair(1, &(struct uet_mem_impair){ .drop_ppm = UET_MEM_PPM });
	cl_send(0, 1, UET_CL_RUDI, 8, false);
	uet_harness_flush(&T.h);
	id = t_nth(0, UET_PDS_RUDI_REQ, 0)->p.pds.rudi.pkt_id;
	memset(&pkt, 0, sizeof(pkt));
	pkt.pds.type = UET_PDS_RUDI_RESP;
	pkt.pds.next_hdr = UET_NH_RSP;
	pkt.pds.rudi.pkt_id = id;
	pkt.has_rsp = true;
	pkt.rsp.format = UET_NH_RSP;
	pkt.rsp.opcode = UET_SES_RESPONSE;
	pkt.rsp.return_code = UET_RC_OK;
	n = uet_pkt_encode(buf, sizeof(buf), &pkt);
	cr_assert_gt(n, 0);
	pi = t_pi_from(2, 0);		/* not the target's FA */
	cr_assert_neq(uet_harness_inject(&T.h, 0, &pi, buf, (size_t)n), 0);
	pkt.pds.rudi.pkt_id = id + (1u << 8);	/* an earlier user's */
	n = uet_pkt_encode(buf, sizeof(buf), &pkt);
	pi = t_pi_from(1, 0);
	cr_assert_neq(uet_harness_inject(&T.h, 0, &pi, buf, (size_t)n), 0);
	cr_assert_eq(t_stats(0).drop_other, 2);
	cr_assert_not(t_ses(0)->cls[0].done);
	/* The real one completes it. */
	pkt.pds.rudi.pkt_id = id;
	n = uet_pkt_encode(buf, sizeof(buf), &pkt);
	cr_assert_eq(uet_harness_inject(&T.h, 0, &pi, buf, (size_t)n), 0);
	cl_check_ok(0);
	cr_assert_eq(uet_fep_next_timeout(T.h.node[0].fep), UET_TIME_NONE);
}
