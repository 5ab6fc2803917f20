/* ROD (docs/choices.md §4.3): the target hands packets to SES strictly in PSN
 * order. uet does Go-Back-N: an out-of-order packet is dropped with NACK
 * ROD_OOO (payload = the PSN expected), the initiator resends from there.
 * One entropy per PDC. */
#include "../fixtures/pds_test_util.h"

TestSuite(rod, .fini = t_fini);

static struct uet_fep_config rod_cfg(void)
{
	struct uet_fep_config c = t_cfg();

	c.rod = true;
	c.max_retx = 10;
	return c;
}

Test(rod, in_order_despite_reordering)
{
	struct uet_mem_impair imp = { .reorder_mask = 0x2222222222222222ull };
	struct uet_fep_config c = rod_cfg();
	const struct tlog *n;

	t_init(2, &c, NULL);
	t_impair(1, &imp);
	t_send(0, 1, 40 * T_SEG);
	t_run_done(T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_eq(t_ses(1)->order_errs, 0, "SES saw packets out of order");
	cr_assert_eq(t_count(0, UET_PDS_RUD_REQ, 0), 0);
	cr_assert_geq(t_count(0, UET_PDS_ROD_REQ, 0), 40);
	n = t_nth(1, UET_PDS_NACK, 0);
	cr_assert_not_null(n, "reordering without ROD_OOO");
	cr_assert_eq(n->p.pds.nack.code, UET_NACK_ROD_OOO);
	cr_assert_gt(t_stats(0).retx_nack, 0);
}

Test(rod, loss_goes_back_n)
{
	struct uet_mem_impair imp = { .drop_mask = 1u << 2 };
	struct uet_fep_config c = rod_cfg();
	const struct tlog *n, *first_retx = NULL;
	uint32_t p0;
	size_t i;

	t_init(2, &c, NULL);
	t_establish(0, 1);
	t_impair(1, &imp);
	t_send(0, 1, 8 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_eq(t_ses(1)->order_errs, 0);
	p0 = t_nth(0, UET_PDS_ROD_REQ, 0)->p.pds.req.psn;
	n = t_nth(1, UET_PDS_NACK, 0);
	cr_assert_not_null(n);
	cr_assert_eq(n->p.pds.nack.code, UET_NACK_ROD_OOO);
	cr_assert_eq(n->p.pds.nack.payload, p0 + 2, "expected PSN");
	for (i = 0; i < T.nlog; i++)
		if (T.log[i].node == 0 && t_is_req(&T.log[i]) &&
		    (T.log[i].p.pds.flags & UET_PDS_F_RETX)) {
			first_retx = &T.log[i];
			break;
		}
	cr_assert_not_null(first_retx);
	cr_assert_eq(first_retx->p.pds.req.psn, p0 + 2, "did not go back");
	/* One rewind resends 2..7 once; later NACKs of the same round are
	 * stale and ignored. */
	cr_assert_eq(t_reqs(0), 8 + 6, "%zu requests", t_reqs(0));
	cr_assert_eq(t_stats(0).retx_rto, 0);
}

static uint8_t nack_copy[64];
static size_t nack_len;

/* Log as usual, and keep the bytes of the first NACK. */
static bool save_nack(struct uet_harness *h, unsigned node,
		      const struct uet_pkt_info *pi, const uint8_t *pkt,
		      size_t len)
{
	if (!nack_len && node == 1 && pkt[0] >> 3 == UET_PDS_NACK &&
	    len <= sizeof(nack_copy)) {
		memcpy(nack_copy, pkt, len);
		nack_len = len;
	}
	return t_tx(h, node, pi, pkt, len);
}

static bool nack_seen(struct uet_harness *h, void *arg)
{
	(void)h;
	(void)arg;
	return t_stats(0).nacks_rx > 0;
}

Test(rod, late_copy_of_a_nack_rewinds_nothing)
{
	struct uet_mem_impair drop = { .drop_mask = 1u << 2,
				       .delay = 1 * UET_MSEC };
	struct uet_fep_config c = rod_cfg();
	struct uet_pkt_info pi;

	c.rto_min = 20 * UET_MSEC;
	c.rto_max = 100 * UET_MSEC;
	t_init(2, &c, NULL);
	t_establish(0, 1);
	T.h.on_tx = save_nack;
	t_impair(1, &drop);
	t_send(0, 1, 8 * T_SEG);
	cr_assert(uet_harness_run(&T.h, nack_seen, NULL, T.h.now + T_LIMIT));
	uet_harness_flush(&T.h);	/* the Go-Back-N resends leave */
	cr_assert_eq(t_reqs(0), 8 + 6);
	/* While they travel, the same NACK arrives again. */
	uet_harness_run(&T.h, NULL, NULL, T.h.now + 500 * UET_USEC);
	cr_assert_gt(nack_len, 0);
	pi = t_pi_from(1, 0);
	cr_assert_eq(uet_harness_inject(&T.h, 0, &pi, nack_copy, nack_len), 0);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_eq(t_ses(1)->order_errs, 0);
	cr_assert_eq(t_stats(0).nacks_rx, 2);
	cr_assert_eq(t_reqs(0), 8 + 6, "the late copy rewound again");
}

Test(rod, one_entropy_per_pdc)
{
	struct uet_fep_config c = rod_cfg();
	uint16_t e0;
	unsigned i;

	c.entropy_count = 16;
	t_init(2, &c, NULL);
	t_send(0, 1, 20 * T_SEG);
	t_run_done(T_LIMIT);
	e0 = t_nth(0, UET_PDS_ROD_REQ, 0)->pi.entropy;
	for (i = 1; i < 20; i++)
		cr_assert_eq(t_nth(0, UET_PDS_ROD_REQ, i)->pi.entropy, e0);
}

Test(rod, random_impairments_keep_order)
{
	struct uet_mem_config mc = {
		.seed = 7,
		.impair = { .drop_ppm = 20000, .reorder_ppm = 50000,
			    .dup_ppm = 10000 },
	};
	struct uet_fep_config c = rod_cfg();
	int i;

	t_init(2, &c, &mc);
	for (i = 0; i < 20; i++)
		t_send(0, 1, 100 * T_SEG);
	t_run_done(T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_eq(t_ses(1)->order_errs, 0);
	cr_assert_eq(t_ses(1)->rx_pkts, 2000);
}
