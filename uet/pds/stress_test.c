/* Whole-PDS runs under random impairments, a PSN space that crosses 2^32,
 * and all-to-all traffic: nothing lost, nothing delivered twice. */
#include "../fixtures/pds_test_util.h"

#include "psn.h"

TestSuite(stress, .fini = t_fini);

static struct uet_fep_config stress_cfg(void)
{
	struct uet_fep_config c = t_cfg();

	/* 5% loss both ways: allow more tries than the unit tests do. */
	c.max_retx = 10;
	return c;
}

Test(stress, ten_thousand_packets_loss_dup_reorder)
{
	struct uet_mem_config mc = {
		.seed = 12345,
		.pool = 8192,
		.impair = { .drop_ppm = 50000, .dup_ppm = 10000,
			    .reorder_ppm = 50000, .jitter = 20 * UET_USEC,
			    .delay = 10 * UET_USEC },
	};
	struct uet_fep_config c = stress_cfg();
	struct uet_mem_stats ms;
	int i;

	t_init(2, &c, &mc);
	for (i = 0; i < 50; i++) {
		t_send(0, 1, 100 * T_SEG);
		t_send(1, 0, 100 * T_SEG - 17);	/* a short last packet */
	}
	t_run_done(T_LIMIT);
	t_check_delivery(0, 1);
	t_check_delivery(1, 0);
	cr_assert_eq(t_ses(1)->rx_pkts, 5000);
	cr_assert_eq(t_ses(0)->rx_pkts, 5000);
	cr_assert_eq(T.nerr[0] + T.nerr[1], 0);
	uet_mem_net_stats(T.h.net, &ms);
	/* The impairments really happened. */
	cr_assert_gt(ms.dropped, 500);
	cr_assert_gt(ms.duplicated, 100);
	cr_assert_gt(ms.reordered, 500);
	cr_assert_gt(t_stats(0).retx_rto + t_stats(1).retx_rto, 500);
	cr_assert_gt(t_stats(0).dup_rx + t_stats(1).dup_rx, 100);
}

Test(stress, all_to_all_with_trims_and_marks)
{
	struct uet_mem_config mc = {
		.seed = 99,
		.pool = 8192,
		.impair = { .drop_ppm = 20000, .trim_ppm = 20000,
			    .mark_ppm = 50000, .reorder_ppm = 20000 },
	};
	struct uet_fep_config c = stress_cfg();
	unsigned a, b;
	int i;

	t_init(4, &c, &mc);
	for (i = 0; i < 5; i++)
		for (a = 0; a < 4; a++)
			for (b = 0; b < 4; b++)
				if (a != b)
					t_send(a, b, 20 * T_SEG);
	t_run_done(T_LIMIT);
	for (a = 0; a < 4; a++)
		for (b = 0; b < 4; b++)
			if (a != b)
				t_check_delivery(a, b);
	cr_assert_gt(t_count(1, 0, UET_PDS_F_M) + t_count(2, 0, UET_PDS_F_M),
		     0);
	cr_assert_gt(t_stats(0).retx_nack + t_stats(1).retx_nack, 0,
		     "no trimmed packet was NACKed");
}

/* The target side of a PDC whose PSNs cross 2^32: a crafted initiator
 * (Start_PSN = 2^32 - 20, which uet itself never picks) sends 40 packets
 * in a scrambled order, some twice. */
Test(stress, target_psn_wrap)
{
	static const int order[] = { 1, 0, 3, 2, 5, 4, 4, 7, 6, 9, 8, 10, 12,
		11, 14, 13, 16, 15, 18, 17, 19, 21, 20, 23, 22, 25, 24, 27, 26,
		29, 28, 31, 30, 33, 32, 35, 34, 37, 36, 39, 38, 0, 20 };
	const uint32_t start = 0xFFFFFFECu;
	const uint16_t iid = 0x4242;
	const struct tlog *last;
	uint16_t tid = 0;
	size_t k, i;

	t_init(2, NULL, NULL);
	for (k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		uint32_t n = (uint32_t)order[k];
		struct uet_pds_hdr h =
			t_req_hdr(UET_PDS_RUD_REQ, start + n, iid, tid);
		uint8_t buf[512];
		struct uet_pkt_info pi = t_pi_from(0, 1);
		size_t len;

		if (!tid) {
			h.flags = UET_PDS_F_SYN;
			h.req.dpdcid = 0;
			h.req.psn_offset = (uint16_t)n;
		}
		h.req.clear_psn_offset = (int16_t)(-(int32_t)n - 1);
		if (n == 39)
			h.flags |= UET_PDS_F_AR;
		len = t_craft_req(buf, sizeof(buf), &h, 3, 40 * T_SEG,
				  n * T_SEG, T_SEG, n == 39);
		cr_assert_eq(uet_harness_inject(&T.h, 1, &pi, buf, len), 0,
			     "packet %u refused", n);
		uet_harness_flush(&T.h);
		for (i = 0; i < T.nlog && !tid; i++)
			if (t_is_ack(&T.log[i]))
				tid = T.log[i].p.pds.ack.spdcid;
	}
	t_run_quiet(T.h.now + 10 * UET_MSEC);
	cr_assert_eq(t_ses(1)->rx_pkts, 40);
	cr_assert_eq(t_ses(1)->rx_dups, 0);
	cr_assert_eq(t_ses(1)->rx_bad, 0);
	cr_assert_eq(fake_ses_rx_find(t_ses(1), &T.h.node[0].addr, 3)->got, 40);
	cr_assert_eq(t_stats(1).dup_rx, 3);
	last = t_last(1, UET_PDS_ACK);
	cr_assert_not_null(last);
	cr_assert_eq(last->p.pds.ack.cack_psn, start + 39);
	cr_assert_eq(last->p.pds.ack.cack_psn, 19u, "CACK did not wrap");
	cr_assert_eq(t_stats(1).pdc_open, 1);
}
