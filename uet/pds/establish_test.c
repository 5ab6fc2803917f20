/* PDC establishment (docs/choices.md §2.3): 0-RTT SYN, Start_PSN and
 * psn_offset, the first packet lost or overtaken, PDC ids. */
#include "../fixtures/pds_test_util.h"

#include "psn.h"

#define SEG	128

TestSuite(establish, .fini = t_fini);

Test(establish, syn_until_first_ack_then_dpdcid)
{
	const struct tlog *ack;
	size_t i, reqs = 0;
	uint16_t tid;

	t_init(2, NULL, NULL);
	t_send(0, 1, 10 * SEG);
	t_run_done(T_LIMIT);
	t_check_delivery(0, 1);
	/* All ten left before any ACK could come back: all SYN. */
	cr_assert_eq(t_count(0, UET_PDS_RUD_REQ, UET_PDS_F_SYN), 10);
	ack = t_nth(1, 0, 0);
	cr_assert_not_null(ack);
	cr_assert(t_is_ack(ack));
	tid = ack->p.pds.ack.spdcid;
	cr_assert_neq(tid, 0, "target PDC id 0");

	/* The next message rides the established PDC: no SYN, dpdcid. */
	T.nlog = 0;
	t_send(0, 1, 3 * SEG);
	t_run_done(T_LIMIT);
	for (i = 0; i < T.nlog; i++) {
		const struct tlog *e = &T.log[i];

		if (e->node != 0 || !t_is_req(e))
			continue;
		reqs++;
		cr_assert_not(e->p.pds.flags & UET_PDS_F_SYN);
		cr_assert_eq(e->p.pds.req.dpdcid, tid);
	}
	cr_assert_eq(reqs, 3);
	t_check_delivery(0, 1);
	cr_assert_eq(t_stats(0).pdc_open, 1);
	cr_assert_eq(t_stats(1).pdc_open, 1);
	cr_assert_eq(t_ses(1)->pdc_opens, 1);
}

Test(establish, start_psn_random_and_derivable)
{
	uint32_t start = 0, next = 0;
	size_t i, n = 0;

	t_init(2, NULL, NULL);
	t_send(0, 1, 20 * SEG);
	t_run_done(T_LIMIT);
	for (i = 0; i < T.nlog; i++) {
		const struct tlog *e = &T.log[i];
		uint32_t s;

		if (e->node != 0 || !t_is_req(e) ||
		    !(e->p.pds.flags & UET_PDS_F_SYN))
			continue;
		s = e->p.pds.req.psn - e->p.pds.req.psn_offset;
		if (!n++) {
			start = s;
			next = s;
		}
		cr_assert_eq(s, start, "psn_offset does not give Start_PSN");
		cr_assert_eq(e->p.pds.req.psn, next++, "PSNs not consecutive");
		cr_assert_eq(e->p.pds.req.pdc_info, 0);
	}
	cr_assert_eq(n, 20);
	cr_assert_geq(start, 1u << 16);
	cr_assert_lt(start, 1u << 31);
}

Test(establish, first_packet_lost)
{
	struct uet_mem_impair imp = { .drop_mask = 1 };	/* seq 0 */
	const struct tlog *ack;
	uint32_t start;

	t_init(2, NULL, NULL);
	t_impair(1, &imp);
	t_send(0, 1, 4 * SEG);
	t_run_done(T_LIMIT);
	t_check_delivery(0, 1);
	start = t_nth(0, UET_PDS_RUD_REQ, 0)->p.pds.req.psn;
	/* The PDC was made from the second SYN: its first ACK reports the
	 * hole at Start_PSN, so the target derived Start_PSN right. */
	ack = t_nth(1, 0, 0);
	cr_assert_eq(ack->p.pds.type, UET_PDS_ACK_CC);
	cr_assert_eq(ack->p.pds.ack.cack_psn, start - 1);
	cr_assert_eq(ack->p.pds.ack.sack_psn_offset, 1);
	cr_assert_eq(ack->p.pds.ack.sack_bitmap & 3, 2, "bitmap 0x%lx",
		     (unsigned long)ack->p.pds.ack.sack_bitmap);
	cr_assert_eq(t_stats(1).pdc_open, 1);
	cr_assert_eq(t_stats(0).retx_rto, 1, "only the lost packet resent");
}

Test(establish, first_packet_overtaken)
{
	struct uet_mem_impair imp = { .reorder_mask = 1 };

	t_init(2, NULL, NULL);
	t_impair(1, &imp);
	t_send(0, 1, 4 * SEG);
	t_run_done(T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_eq(t_stats(1).pdc_open, 1, "one PDC for both SYN orders");
	cr_assert_eq(t_stats(0).retx_rto + t_stats(0).retx_nack, 0,
		     "reordering alone caused a resend");
	/* The first request to arrive was not the first sent. */
	cr_assert_neq(t_ack_psn(t_nth(1, 0, 0)),
		      t_nth(0, UET_PDS_RUD_REQ, 0)->p.pds.req.psn);
}

Test(establish, ids_nonzero_and_unique)
{
	uint16_t id1 = 0, id2 = 0;
	size_t i;

	t_init(3, NULL, NULL);
	t_send(0, 1, SEG);
	t_send(0, 2, SEG);
	t_send(1, 0, SEG);
	t_send(2, 0, SEG);
	t_run_done(T_LIMIT);
	t_check_delivery(0, 1);
	t_check_delivery(0, 2);
	t_check_delivery(1, 0);
	t_check_delivery(2, 0);
	for (i = 0; i < T.nlog; i++) {
		const struct tlog *e = &T.log[i];

		if (t_is_req(e))
			cr_assert_neq(e->p.pds.req.spdcid, 0);
		if (t_is_ack(e))
			cr_assert_neq(e->p.pds.ack.spdcid, 0);
		if (e->node == 0 && t_is_req(e)) {
			if (uet_addr_equal(&e->pi.dst, &T.h.node[1].addr))
				id1 = e->p.pds.req.spdcid;
			else
				id2 = e->p.pds.req.spdcid;
		}
	}
	cr_assert(id1 && id2);
	cr_assert_neq(id1, id2, "two open PDCs share an id");
	/* Node 0 is initiator twice and target twice. */
	cr_assert_eq(t_stats(0).pdc_open, 4);
}
