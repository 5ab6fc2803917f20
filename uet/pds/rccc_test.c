/* RCCC over the mem port (rcp.c, uet/cms/rccc.c): senders start on
 * speculative credit, then send only what the receiver's pacer grants;
 * an incast through a trimming bottleneck at the receiver's line rate
 * stays nearly lossless where the fixed window is trimmed throughout; a
 * lost CREDIT is made good by CREDIT_REQUEST; the pacer follows the CE
 * marks; resends trimmed before the PDC opens wait. Also ACK_CC's
 * rcvd_bytes, which the pacer reads. */
#include "../fixtures/pds_test_util.h"

#include "../cms/ccc.h"

TestSuite(rccc, .fini = t_fini);

#define NSEND	3	/* UET_HARNESS_MAX nodes in all */
#define RATE	1000000000ull		/* receiver link: 1 GB/s */
#define MSG	(400 * T_SEG)

static struct uet_fep_config rc_cfg(uint8_t cca)
{
	struct uet_fep_config c = t_cfg();

	c.cca = cca;
	c.link_bps = RATE * 8;
	c.base_rtt = 20 * UET_USEC;
	c.trimming = true;
	c.window = 256;
	c.loss_infer = true;
	c.rto_min = 2 * UET_MSEC;
	return c;
}

/* NSEND senders into node 0 through a bottleneck of RATE with a queue of
 * 20 us that trims; returns the trims, fills the receiver's stats. */
static size_t req_len;		/* bytes of a full request on the wire */

static uint64_t incast(uint8_t cca, struct uet_fep_stats *rx, uet_time *took)
{
	struct uet_fep_config c = rc_cfg(cca);
	struct uet_mem_impair link = { .delay = 5 * UET_USEC, .rate = RATE,
				       .queue_max = 20 * UET_USEC,
				       .trim_when_full = true };
	struct uet_mem_impair edge = { .delay = 5 * UET_USEC };
	struct uet_mem_stats ms;
	uet_time t0;
	unsigned i;

	t_init(NSEND + 1, &c, NULL);
	t_impair(0, &link);
	for (i = 1; i <= NSEND; i++)
		t_impair(i, &edge);
	t0 = T.h.now;
	for (i = 1; i <= NSEND; i++)
		t_send(i, 0, MSG);
	t_run_done(T.h.now + T_LIMIT);
	for (i = 1; i <= NSEND; i++)
		t_check_delivery(i, 0);
	*took = T.h.now - t0;
	*rx = t_stats(0);
	req_len = t_nth(1, cca == UET_CCA_FIXED ? UET_PDS_RUD_REQ :
				UET_PDS_RUD_CC_REQ, 0)->len;
	uet_mem_net_stats(T.h.net, &ms);
	t_fini();
	return ms.trimmed;
}

Test(rccc, incast_paced_by_the_receiver)
{
	struct uet_fep_stats fx, rc;
	uet_time t_fixed, t_rccc, ideal;
	uint64_t trim_fixed, trim_rccc;

	trim_fixed = incast(UET_CCA_FIXED, &fx, &t_fixed);
	trim_rccc = incast(UET_CCA_RCCC, &rc, &t_rccc);
	/* every request's bytes through the bottleneck, back to back */
	ideal = (uet_time)((double)NSEND * (MSG / T_SEG) * (double)req_len *
			   UET_SEC / RATE);
	cr_log_info("incast %u x %u B: fixed %lu ns, %lu trims; rccc %lu ns, "
		    "%lu trims, %lu quanta granted; ideal %lu ns", NSEND,
		    (unsigned)MSG, (unsigned long)t_fixed,
		    (unsigned long)trim_fixed, (unsigned long)t_rccc,
		    (unsigned long)trim_rccc, (unsigned long)rc.credit_q,
		    (unsigned long)ideal);
	cr_assert_eq(fx.credit_q, 0, "the fixed window grants nothing");
	cr_assert_gt(rc.credit_q, 0, "the receiver granted credit");
	cr_assert_lt(trim_rccc * 4, trim_fixed,
		     "rccc %lu trims, fixed %lu", (unsigned long)trim_rccc,
		     (unsigned long)trim_fixed);
	cr_assert_lt(t_rccc, ideal * 3 / 2, "rccc took %lu ns, ideal %lu",
		     (unsigned long)t_rccc, (unsigned long)ideal);
}

/* Both: a packet needs NSCC's window and RCCC's credit. */
Test(rccc, with_nscc_too)
{
	struct uet_fep_stats fx, both;
	uet_time t_fixed, t_both;
	uint64_t trim_fixed, trim_both;

	trim_fixed = incast(UET_CCA_FIXED, &fx, &t_fixed);
	trim_both = incast(UET_CCA_NSCC_RCCC, &both, &t_both);
	cr_log_info("nscc+rccc: %lu ns, %lu trims (fixed %lu)",
		    (unsigned long)t_both, (unsigned long)trim_both,
		    (unsigned long)trim_fixed);
	cr_assert_gt(both.credit_q, 0);
	cr_assert_lt(trim_both * 4, trim_fixed);
	cr_assert_lt(t_both * 2, t_fixed, "%lu ns vs fixed %lu",
		     (unsigned long)t_both, (unsigned long)t_fixed);
}

/* Every CREDIT CP lost: after its speculative start the sender has a
 * backlog and no credit; it asks with CREDIT_REQUEST, whose answers are
 * lost too until the filter lets them through. */
static unsigned credits_dropped;

static bool drop_credit(const struct tlog *e)
{
	if (e->p.pds.type == UET_PDS_CTRL &&
	    e->p.pds.next_hdr == UET_CTL_CREDIT && credits_dropped < 50) {
		credits_dropped++;
		return true;
	}
	return false;
}

/* One sender, node 1, sends MSG to node 0 over links of 5 us each way,
 * drop filtering what is sent (NULL: nothing lost); all of it arrives. */
static void lone_send(const struct uet_fep_config *c,
		      bool (*drop)(const struct tlog *e))
{
	struct uet_mem_impair edge = { .delay = 5 * UET_USEC };

	t_init(2, c, NULL);
	t_impair(0, &edge);
	t_impair(1, &edge);
	T.drop = drop;
	t_send(1, 0, MSG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(1, 0);
}

Test(rccc, lost_credit_asked_for_again)
{
	struct uet_fep_config c = rc_cfg(UET_CCA_RCCC);

	credits_dropped = 0;
	lone_send(&c, drop_credit);
	cr_assert_eq(credits_dropped, 50);
	cr_assert_gt(t_stats(1).credit_req_tx, 0);
	cr_assert_eq(T.nerr[1], 0);
}

/* The credit a lone sender is granted covers its data past the
 * speculative start and no more: the pacer grants up to the largest
 * target it heard, so a backlog counted with headers larger than the
 * PDC's packets carry (ini.c, ini_nominal) is credit paced out at the
 * end to a sender with nothing left. Each CREDIT's payload is the
 * cumulative count. */
Test(rccc, grants_cover_the_data_and_no_more)
{
	struct uet_fep_config c = rc_cfg(UET_CCA_RCCC);
	uint64_t data = 0, granted = 0;
	double spec = (double)RATE * 20e-6 * 1.5 / 3;	/* half a BDP */
	size_t i;

	/* full packets: T_SEG of payload and a *_CC_REQ's headers */
	c.mtu = T_SEG + UET_PDS_CC_REQ_LEN + UET_SES_STD_LEN;
	lone_send(&c, NULL);
	cr_assert_eq(t_count(1, UET_PDS_RUD_CC_REQ, UET_PDS_F_RETX), 0);
	for (i = 0; i < T.nlog; i++) {
		const struct tlog *e = &T.log[i];

		if (e->node == 1 && e->p.pds.type == UET_PDS_RUD_CC_REQ)
			data += UET_CCC_NOMINAL(e->len);
		if (e->node == 0 && e->p.pds.type == UET_PDS_CTRL &&
		    e->p.pds.next_hdr == UET_CTL_CREDIT &&
		    e->p.pds.ctrl.payload > granted)
			granted = e->p.pds.ctrl.payload;
	}
	granted *= UET_RCCC_QUANTUM;
	cr_log_info("%lu bytes sent (nominal), %lu granted, %.0f speculative",
		    (unsigned long)data, (unsigned long)granted, spec);
	cr_assert_leq(granted, data, "granted %lu for %lu bytes",
		      (unsigned long)granted, (unsigned long)data);
	cr_assert_geq((double)granted, (double)data - spec,
		      "all past the speculative start");
}

/* ACK_CC's rcvd_bytes (UE 1.0 §3.6.13.9): the target counts the nominal
 * bytes of the new data packets it took, and every ACK_CC carries the count
 * in 256-byte units, rounded up. */
Test(rccc, ack_cc_counts_received_bytes)
{
	struct uet_fep_config c = rc_cfg(UET_CCA_NSCC);
	uint64_t sent = 0;
	uint32_t prev = 0;
	size_t i, acks = 0;

	t_init(2, &c, NULL);
	t_send(1, 0, 40 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(1, 0);
	for (i = 0; i < T.nlog; i++) {
		const struct tlog *e = &T.log[i];

		if (e->node == 1 && e->p.pds.type == UET_PDS_RUD_REQ)
			sent += UET_CCC_NOMINAL(e->len);
		if (e->node == 0 && e->p.pds.type == UET_PDS_ACK_CC) {
			cr_assert_geq(e->p.pds.ack.cc.rcvd_bytes, prev,
				      "cumulative");
			prev = e->p.pds.ack.cc.rcvd_bytes;
			acks++;
		}
	}
	cr_assert_gt(acks, 0);
	cr_assert_eq(t_reqs(1), 40, "no resend, so no duplicate");
	cr_assert_eq(prev, (sent + 255) / 256, "%u units for %lu bytes", prev,
		     (unsigned long)sent);
}

/* The pacer steers by the CE marks it echoes (rcp.c): a little above the
 * line rate while nothing is marked, so the last hop never idles for want
 * of credit; toward half of it when every packet is marked. One sender
 * behind an unpaced link: the pacer alone sets the pace. */
static uet_time paced(uint64_t mark_mask, struct uet_fep_stats *rx)
{
	struct uet_fep_config c = rc_cfg(UET_CCA_RCCC);
	struct uet_mem_impair edge = { .delay = 5 * UET_USEC,
				       .mark_mask = mark_mask };
	uet_time t0;

	t_init(2, &c, NULL);
	t_impair(0, &edge);
	t0 = T.h.now;
	t_send(1, 0, MSG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(1, 0);
	*rx = t_stats(0);
	req_len = t_nth(1, UET_PDS_RUD_CC_REQ, 0)->len;
	t_fini();
	return T.h.now - t0;
}

Test(rccc, pacer_follows_the_marks)
{
	struct uet_fep_stats clean_rx, marked_rx;
	uet_time clean = paced(0, &clean_rx);
	uet_time marked = paced(~0ull, &marked_rx);
	uet_time wire = (uet_time)((double)(MSG / T_SEG) *
				   (double)UET_CCC_NOMINAL(req_len) *
				   UET_SEC / RATE);

	cr_log_info("pacer: %lu ns clean, %lu ns all marked, line rate %lu ns",
		    (unsigned long)clean, (unsigned long)marked,
		    (unsigned long)wire);
	cr_assert_lt(clean, wire + 4 * 10 * UET_USEC,
		     "at the line rate, give or take two round trips");
	cr_assert_gt(marked, clean * 14 / 10, "marks slow the grants");
	cr_assert_lt(marked, clean * 23 / 10, "to about half, no less");
}

/* Before the PDC opens nobody can grant: a speculative packet trimmed is
 * resent one at a time, and one trimmed again makes the next wait
 * rto_min (ini.c), so that an incast's unopened senders do not keep the
 * last hop full of resends. Every packet trimmed for 10 ms: a handful of
 * resends, not one per round trip; then the PDC opens and all arrives. */
Test(rccc, trimmed_before_open_waits)
{
	struct uet_fep_config c = rc_cfg(UET_CCA_RCCC);
	struct uet_mem_impair trim = { .delay = 5 * UET_USEC,
				       .trim_ppm = 1000000 };
	struct uet_mem_impair edge = { .delay = 5 * UET_USEC };
	size_t first, resends;

	c.max_retx = 31;	/* as uetsim: no earlier back-off */
	t_init(2, &c, NULL);
	t_impair(0, &trim);
	t_impair(1, &edge);
	t_send(1, 0, MSG);
	t_run_quiet(T.h.now + 10 * UET_MSEC);
	first = t_count(1, UET_PDS_RUD_CC_REQ, 0) -
		t_count(1, UET_PDS_RUD_CC_REQ, UET_PDS_F_RETX);
	resends = t_count(1, UET_PDS_RUD_CC_REQ, UET_PDS_F_RETX);
	cr_log_info("%zu sent first, %zu resends in 10 ms, %zu NACKs", first,
		    resends, t_count(0, UET_PDS_NACK, 0));
	cr_assert_gt(resends, 0);
	cr_assert_leq(resends, 10 * UET_MSEC / c.rto_min + 2,
		      "one per rto_min after the first trimmed again");
	t_impair(0, &edge);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(1, 0);
}
