/* Loss inference (pds.h: Loss): a hole that packets sent after it have
 * overtaken is resent about one RTT after it was sent, not at its RTO;
 * reordering within the window resends nothing; a lost tail is found by
 * the tail probe; under random loss the RTO is the exception. */
#include "../fixtures/pds_test_util.h"

TestSuite(infer, .fini = t_fini);

#define HOP	(10 * UET_USEC)		/* one-way delay of the mem port */

static struct uet_fep_config infer_cfg(void)
{
	struct uet_fep_config c = t_cfg();

	c.loss_infer = true;
	c.rto_min = 10 * UET_MSEC;	/* far from the RTT: who resent? */
	c.rto_max = 100 * UET_MSEC;
	c.ack_delay = 20 * UET_USEC;
	c.ack_every = 4;
	return c;
}

static void infer_init(const struct uet_fep_config *c)
{
	struct uet_mem_impair imp = { .delay = HOP };

	t_init(2, c, NULL);
	t_impair(0, &imp);
	t_impair(1, &imp);
	t_establish(0, 1);	/* a first RTT sample */
}

/* infer_init, then imp on what node 1 receives (the data), then a
 * message of segs segments from 0 to 1, run until done and checked.
 * Returns the time it was posted. */
static uet_time infer_run(const struct uet_fep_config *c,
			  const struct uet_mem_impair *imp, size_t segs)
{
	uet_time t0;

	infer_init(c);
	t_impair(1, imp);
	t0 = T.h.now;
	t_send(0, 1, segs * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	return t0;
}

/* The first resend in the log, or NULL. */
static const struct tlog *first_resend(void)
{
	for (size_t i = 0; i < T.nlog; i++)
		if (T.log[i].node == 0 && t_is_req(&T.log[i]) &&
		    (T.log[i].p.pds.flags & UET_PDS_F_RETX))
			return &T.log[i];
	return NULL;
}

Test(infer, hole_resent_after_one_rtt_not_rto)
{
	struct uet_fep_config c = infer_cfg();
	struct uet_mem_impair imp = { .delay = HOP, .drop_mask = 1u << 3 };
	const struct tlog *r;
	uint32_t p0;
	uet_time t0;

	t0 = infer_run(&c, &imp, 20);
	p0 = t_nth(0, UET_PDS_RUD_REQ, 0)->p.pds.req.psn;
	r = first_resend();
	cr_assert_not_null(r);
	cr_assert_eq(r->p.pds.req.psn, p0 + 3, "the hole, and only it");
	cr_assert_eq(t_reqs(0), 21);
	cr_assert_lt(r->t - t0, 4 * HOP + c.ack_delay + 50 * UET_USEC,
		     "resent %lu ns after the send", (unsigned long)(r->t - t0));
	cr_assert_eq(t_stats(0).retx_sack, 1, "sack %lu tlp %lu",
		     (unsigned long)t_stats(0).retx_sack,
		     (unsigned long)t_stats(0).retx_tlp);
	cr_assert_eq(t_stats(0).retx_rto, 0);
	cr_assert_eq(T.nerr[0], 0);
}

/* A packet overtaken by less than the reorder window is waited for. */
Test(infer, reordering_within_the_window_resends_nothing)
{
	struct uet_fep_config c = infer_cfg();
	struct uet_mem_impair imp = { .delay = HOP, .reorder_mask = 1u << 5,
				      .reorder_delay = 15 * UET_USEC };

	c.reorder_window = 30 * UET_USEC;
	infer_run(&c, &imp, 40);
	cr_assert_null(first_resend(), "a late packet was taken for lost");
	cr_assert_eq(t_stats(1).dup_rx, 0);
}

/* The same lateness beyond a smaller window: resent, and the copy that
 * arrives second is a harmless duplicate. */
Test(infer, reordering_beyond_the_window_resends_once)
{
	struct uet_fep_config c = infer_cfg();
	struct uet_mem_impair imp = { .delay = HOP, .reorder_mask = 1u << 5,
				      .reorder_delay = 200 * UET_USEC };

	c.reorder_window = 5 * UET_USEC;
	infer_run(&c, &imp, 20);
	cr_assert_not_null(first_resend());
	cr_assert_eq(t_stats(0).retx_sack, 1);
	cr_assert_eq(t_stats(0).retx_rto, 0);
}

/* The last packet of a message is lost: nothing after it can reveal the
 * hole, and its AR asked for an ACK that never comes. The tail probe
 * resends it after about two RTTs. */
Test(infer, lost_tail_found_by_the_probe)
{
	struct uet_fep_config c = infer_cfg();
	struct uet_mem_impair imp = { .delay = HOP, .drop_mask = 1u << 7 };
	const struct tlog *r;
	uet_time t0;

	t0 = infer_run(&c, &imp, 8);
	r = first_resend();
	cr_assert_not_null(r);
	cr_assert_eq(r->p.pds.req.psn,
		     t_nth(0, UET_PDS_RUD_REQ, 7)->p.pds.req.psn);
	cr_assert_lt(r->t - t0, c.rto_min / 10, "probe at +%lu ns",
		     (unsigned long)(r->t - t0));
	cr_assert_eq(t_stats(0).retx_tlp, 1);
	cr_assert_eq(t_stats(0).retx_rto, 0);
}

/* Off: the same hole waits for its RTO, as before. */
Test(infer, off_leaves_it_to_the_rto)
{
	struct uet_fep_config c = infer_cfg();
	struct uet_mem_impair imp = { .delay = HOP, .drop_mask = 1u << 3 };

	c.loss_infer = false;
	infer_run(&c, &imp, 20);
	cr_assert_eq(t_stats(0).retx_rto, 1);
	cr_assert_eq(t_stats(0).retx_sack + t_stats(0).retx_tlp, 0);
}

/* Time to move len bytes 0 -> 1 under loss (ppm both ways), and the
 * resends by cause. */
static unsigned lossy_rcv_infer;	/* cfg.rcv_infer of lossy_run */

static uet_time lossy_run(uint32_t ppm, size_t len, struct uet_fep_stats *st)
{
	struct uet_fep_config c = infer_cfg();

	c.rcv_infer = lossy_rcv_infer;
	struct uet_mem_impair imp = { .delay = HOP, .drop_ppm = ppm };
	uet_time t0;

	infer_init(&c);
	t_impair(1, &imp);	/* what arrives at node 1: the data */
	t_impair(1, &imp);
	t0 = T.h.now;
	t_send(0, 1, len);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	*st = t_stats(0);
	t0 = T.h.now - t0;
	t_fini();
	return t0;
}

/* Issue 9, point 4: under 5% random loss each way, resends are mostly
 * inferred, and the message takes a small multiple of its loss-free
 * time, not tens of RTOs. */
Test(infer, five_percent_loss_mostly_inferred)
{
	struct uet_fep_stats clean, lossy;
	size_t len = 600 * T_SEG;
	uet_time t_clean, t_lossy;
	uint64_t inferred;

	t_clean = lossy_run(0, len, &clean);
	t_lossy = lossy_run(50000, len, &lossy);
	inferred = lossy.retx_sack + lossy.retx_tlp + lossy.retx_nack;
	cr_log_info("5%% loss: %lu ns vs %lu ns clean; resends rto %lu "
		    "sack %lu tlp %lu nack %lu", (unsigned long)t_lossy,
		    (unsigned long)t_clean, (unsigned long)lossy.retx_rto,
		    (unsigned long)lossy.retx_sack,
		    (unsigned long)lossy.retx_tlp,
		    (unsigned long)lossy.retx_nack);
	cr_assert_eq(clean.retx_rto + clean.retx_sack + clean.retx_tlp, 0);
	cr_assert_gt(inferred, 4 * lossy.retx_rto,
		     "rto %lu of %lu resends", (unsigned long)lossy.retx_rto,
		     (unsigned long)(inferred + lossy.retx_rto));
	cr_assert_lt(t_lossy, 5 * t_clean, "%lu ns vs %lu ns clean",
		     (unsigned long)t_lossy, (unsigned long)t_clean);
}

/* Receiver-inferred loss (docs/choices.md §4.2): the target NACKs a hole
 * RCVR_INFER_LOSS once rcv_infer packets overtook it, once per hole. */
#define RCV_INFER	8

/* NACKs RCVR_INFER_LOSS node 1 sent, and the last one's PSN. */
static size_t rcv_nacks(uint32_t *psn)
{
	size_t i, n = 0;

	for (i = 0; i < T.nlog; i++) {
		const struct tlog *e = &T.log[i];

		if (e->node != 1 || e->p.pds.type != UET_PDS_NACK ||
		    e->p.pds.nack.code != UET_NACK_RCVR_INFER_LOSS)
			continue;
		*psn = e->p.pds.nack.psn;
		n++;
	}
	return n;
}

/* A drop in a run of 20: the NACK comes when the 8th packet after the
 * hole arrives, sooner than RACK's reorder window, long before the
 * tail probe or the RTO. */
Test(infer, rcv_nack_resends_a_hole_before_rack_and_rto)
{
	struct uet_fep_config c = infer_cfg();
	struct uet_mem_impair imp = { .delay = HOP, .drop_mask = 1u << 3 };
	const struct tlog *r;
	uint32_t p0, psn = 0;
	uet_time t0;

	c.rcv_infer = RCV_INFER;
	t0 = infer_run(&c, &imp, 20);
	p0 = t_nth(0, UET_PDS_RUD_REQ, 0)->p.pds.req.psn;
	cr_assert_eq(rcv_nacks(&psn), 1);
	cr_assert_eq(psn, p0 + 3);
	r = first_resend();
	cr_assert_not_null(r);
	cr_assert_eq(r->p.pds.req.psn, p0 + 3);
	cr_assert_lt(r->t - t0, 2 * HOP + 10 * UET_USEC,
		     "resent %lu ns after the send", (unsigned long)(r->t - t0));
	cr_assert_eq(t_reqs(0), 21);
	cr_assert_eq(t_stats(0).retx_nack, 1);
	cr_assert_eq(t_stats(0).retx_sack + t_stats(0).retx_tlp +
		     t_stats(0).retx_rto, 0);
	cr_assert_eq(T.nerr[0], 0);
}

/* 184-byte packets (12 PDS + 44 SES + 128) arrive 10 us apart. */
#define PACED_RATE	(184u * 100000u)

/* One packet late by lateness, at 10 us a packet: the RTO alone
 * resends (no RACK, no probe), so every resend is the target's doing. */
static void rcv_reorder_run(uet_time lateness)
{
	struct uet_fep_config c = infer_cfg();
	struct uet_mem_impair imp = { .delay = HOP, .rate = PACED_RATE,
				      .reorder_mask = 1u << 5,
				      .reorder_delay = lateness };

	c.loss_infer = false;
	c.rcv_infer = RCV_INFER;
	infer_run(&c, &imp, 40);
}

/* Overtaken by 7 packets: within the threshold, nothing happens. */
Test(infer, rcv_reordering_below_the_threshold_nacks_nothing)
{
	uint32_t psn;

	rcv_reorder_run(75 * UET_USEC);
	cr_assert_eq(rcv_nacks(&psn), 0);
	cr_assert_null(first_resend(), "a late packet was taken for lost");
	cr_assert_eq(t_stats(1).dup_rx, 0);
}

/* Overtaken by 8: one NACK, one resend, a harmless duplicate. */
Test(infer, rcv_reordering_at_the_threshold_nacks_once)
{
	uint32_t psn = 0;

	rcv_reorder_run(85 * UET_USEC);
	cr_assert_eq(rcv_nacks(&psn), 1);
	cr_assert_eq(psn, t_nth(0, UET_PDS_RUD_REQ, 5)->p.pds.req.psn);
	cr_assert_eq(t_stats(0).retx_nack, 1);
	cr_assert_eq(t_stats(0).retx_rto, 0);
	cr_assert_eq(t_stats(1).dup_rx, 1);
}

/* The packet that arrives late (not resent) teaches the target how far
 * this fabric reorders: a second packet as late is waited for. */
Test(infer, rcv_learns_the_reordering)
{
	struct uet_fep_config c = infer_cfg();
	struct uet_mem_impair imp = { .delay = HOP, .rate = PACED_RATE,
				      .reorder_mask = 1ull << 5 | 1ull << 45,
				      .reorder_delay = 95 * UET_USEC };
	uint32_t psn = 0;

	c.loss_infer = false;
	c.rcv_infer = RCV_INFER;
	c.rto_min = 100 * UET_MSEC;	/* the late first copy wins */
	infer_run(&c, &imp, 60);
	cr_assert_eq(rcv_nacks(&psn), 1, "only the first late packet");
	cr_assert_eq(psn, t_nth(0, UET_PDS_RUD_REQ, 5)->p.pds.req.psn);
}

static unsigned rcv_lost_copies;

/* The first two copies of the 4th request of the message are lost. */
static bool drop_twice(const struct tlog *e)
{
	static uint32_t psn;

	if (e->node != 0 || !t_is_req(e) || rcv_lost_copies >= 2)
		return false;
	if (!rcv_lost_copies && t_reqs(0) == 4)
		psn = e->p.pds.req.psn;
	else if (!rcv_lost_copies || e->p.pds.req.psn != psn)
		return false;
	rcv_lost_copies++;
	return true;
}

/* The resend the NACK asked for is lost too: no second NACK for the
 * same hole, the RTO resends it. */
Test(infer, rcv_one_nack_per_hole)
{
	struct uet_fep_config c = infer_cfg();
	uint32_t psn = 0;

	c.loss_infer = false;
	c.rcv_infer = RCV_INFER;
	infer_init(&c);
	rcv_lost_copies = 0;
	T.drop = drop_twice;
	t_send(0, 1, 30 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_eq(rcv_lost_copies, 2);
	cr_assert_eq(rcv_nacks(&psn), 1);
	cr_assert_eq(t_stats(0).retx_nack, 1);
	cr_assert_eq(t_stats(0).retx_rto, 1);
}

/* A trimmed packet was NACKed TRIMMED: not inferred lost as well. */
Test(infer, rcv_no_nack_for_a_trimmed_hole)
{
	struct uet_fep_config c = infer_cfg();
	struct uet_mem_impair imp = { .delay = HOP, .trim_mask = 1u << 3 };
	uint32_t psn;

	c.loss_infer = false;
	c.rcv_infer = RCV_INFER;
	infer_run(&c, &imp, 20);
	cr_assert_eq(t_count(1, UET_PDS_NACK, 0), 1, "the TRIMMED NACK");
	cr_assert_eq(rcv_nacks(&psn), 0);
	cr_assert_eq(t_stats(0).retx_nack, 1);
}

/* ROD has ROD_OOO for its holes. */
Test(infer, rcv_not_in_rod)
{
	struct uet_fep_config c = infer_cfg();
	struct uet_mem_impair imp = { .delay = HOP, .drop_mask = 1u << 3 };
	uint32_t psn;

	c.rod = true;
	c.rcv_infer = RCV_INFER;
	infer_run(&c, &imp, 20);
	cr_assert_eq(rcv_nacks(&psn), 0);
}

/* The same with the target's inference on: its NACKs take a share of
 * the resends, and the bounds hold. */
Test(infer, five_percent_loss_with_rcv_infer)
{
	struct uet_fep_stats clean, lossy;
	size_t len = 600 * T_SEG;
	uet_time t_clean, t_lossy;
	uint64_t inferred;

	lossy_rcv_infer = RCV_INFER;
	t_clean = lossy_run(0, len, &clean);
	t_lossy = lossy_run(50000, len, &lossy);
	inferred = lossy.retx_sack + lossy.retx_tlp + lossy.retx_nack;
	cr_log_info("5%% loss, rcv_infer: %lu ns vs %lu ns clean; resends "
		    "rto %lu sack %lu tlp %lu nack %lu",
		    (unsigned long)t_lossy, (unsigned long)t_clean,
		    (unsigned long)lossy.retx_rto,
		    (unsigned long)lossy.retx_sack,
		    (unsigned long)lossy.retx_tlp,
		    (unsigned long)lossy.retx_nack);
	cr_assert_gt(lossy.retx_nack, 0);
	cr_assert_gt(inferred, 4 * lossy.retx_rto);
	cr_assert_lt(t_lossy, 5 * t_clean, "%lu ns vs %lu ns clean",
		     (unsigned long)t_lossy, (unsigned long)t_clean);
}

/* One packet in 64 late by ten RTTs: the first resent is found
 * spurious when its late copy arrives as a duplicate (the target ACKs
 * it, naming a PSN already acknowledged); the window grows to that
 * lateness and the later late packets are waited for. A quarter-RTT
 * window resends every one of them. */
static void late_run(struct uet_fep_config *c, uint64_t drop_mask)
{
	struct uet_mem_impair imp = { .delay = HOP, .rate = PACED_RATE,
				      .reorder_mask = 1ull << 5,
				      .drop_mask = drop_mask,
				      .reorder_delay = 200 * UET_USEC };

	infer_run(c, &imp, 6 * 64);
	cr_log_info("late: sack %lu spurious %lu dup %lu tlp %lu rto %lu",
		    (unsigned long)t_stats(0).retx_sack,
		    (unsigned long)t_stats(0).retx_spurious,
		    (unsigned long)t_stats(1).dup_rx,
		    (unsigned long)t_stats(0).retx_tlp,
		    (unsigned long)t_stats(0).retx_rto);
}

Test(infer, spurious_resend_widens_the_window)
{
	struct uet_fep_config c = infer_cfg();

	late_run(&c, 0);
	cr_assert_geq(t_stats(0).retx_spurious, 1);
	cr_assert_leq(t_stats(0).retx_sack, 2, "%lu of 6 late ones resent",
		      (unsigned long)t_stats(0).retx_sack);
	cr_assert_leq(t_stats(1).dup_rx, 2);
	cr_assert_eq(t_stats(0).retx_rto, 0);
}

/* A fixed window (cfg.reorder_window) is kept as set: every late
 * packet is resent. */
Test(infer, fixed_window_learns_nothing)
{
	struct uet_fep_config c = infer_cfg();

	c.reorder_window = 5 * UET_USEC;
	late_run(&c, 0);
	cr_assert_geq(t_stats(0).retx_sack, 5);
}

/* A real loss after the window grew is still resent by inference,
 * before its RTO. */
Test(infer, widened_window_still_finds_a_loss)
{
	struct uet_fep_config c = infer_cfg();

	late_run(&c, 1ull << 40);
	cr_assert_geq(t_stats(0).retx_spurious, 1);
	cr_assert_geq(t_stats(0).retx_sack + t_stats(0).retx_tlp, 6,
		      "the 6 losses, by inference");
	cr_assert_eq(t_stats(0).retx_rto, 0);
}

/* Every other packet crosses a path 150 us slower (two sprayed paths of
 * unequal delay, as kernel ECMP with one queue builds): after the first
 * few spurious resends the window covers the difference, where a
 * quarter-RTT window alone resends every slow packet. */
static unsigned slow_path_pick(void *arg, uint64_t seq,
			       const struct uet_net_msg *m)
{
	(void)arg;
	(void)m;
	return seq % 2 ? UET_MEM_REORDER : 0;
}

Test(infer, slow_path_resends_few)
{
	struct uet_fep_config c = infer_cfg();
	struct uet_mem_impair imp = { .delay = HOP, .rate = PACED_RATE,
				      .pick = slow_path_pick,
				      .reorder_delay = 150 * UET_USEC };

	infer_run(&c, &imp, 400);
	cr_log_info("slow path: sack %lu spurious %lu dup %lu",
		    (unsigned long)t_stats(0).retx_sack,
		    (unsigned long)t_stats(0).retx_spurious,
		    (unsigned long)t_stats(1).dup_rx);
	cr_assert_lt(t_stats(0).retx_sack, 20, "%lu of 400 resent",
		     (unsigned long)t_stats(0).retx_sack);
	cr_assert_eq(t_stats(0).retx_rto, 0);
}

/* The fourth data packet is lost, and only it. */
static unsigned fourth_lost(void *arg, uint64_t seq,
			    const struct uet_net_msg *m)
{
	(void)arg;
	(void)m;
	return seq == 3 ? UET_MEM_DROP : 0;
}

/* A hole holds CACK (a packet lost on a dead path) while more than 64
 * packets go past it, one a microsecond. Each ACK's SACK bitmap reaches
 * the packets it is about (acktr.h): from CACK + 1 it did not, and RACK
 * took those beyond CACK + 64 for lost, arrived as they were (after a
 * path cut in contrib/netns/ecmp.sh, most resends were such). */
Test(infer, arrivals_past_cack_plus_64_are_not_resent)
{
	struct uet_fep_config c = infer_cfg();
	struct uet_mem_impair imp = { .delay = HOP, .rate = 10 * PACED_RATE,
				      .pick = fourth_lost };
	uint64_t resent;

	c.window = 128;
	infer_run(&c, &imp, 200);
	resent = t_stats(0).retx_sack + t_stats(0).retx_tlp +
		 t_stats(0).retx_nack + t_stats(0).retx_rto;
	cr_assert_eq(resent, 1, "%lu resends (sack %lu), one hole",
		     (unsigned long)resent,
		     (unsigned long)t_stats(0).retx_sack);
	cr_assert_eq(t_stats(1).dup_rx, 0);
	cr_assert_eq(t_reqs(0), 201);
}
