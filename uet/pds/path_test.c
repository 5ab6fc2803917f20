/* Path failure (UE 1.0 §3.6.16.5) on the mem port: the source port of a
 * sprayed packet stands for its path, four paths by port % 4, and one
 * is a black hole for requests. Every policy completes the transfer
 * without failing the PDC (a resend leaves the entropy that lost it);
 * the path-aware ones retire the dead path's entropies, lose few
 * packets to it, and use it again once it heals. */
#include "../fixtures/pds_test_util.h"

TestSuite(path, .fini = t_fini);

#define PATHS	4u
#define PORTS	16u		/* the spray ports (spray_bits 4) */

struct hole {
	uint16_t home;		/* the sender's home port: SYNs pass */
	bool dead;
	int path;		/* the dead one; -1: the first sprayed */
	uint64_t dropped;	/* requests the hole swallowed */
	uint64_t crossed;	/* requests that took the path and arrived */
	uint16_t port[PORTS];	/* the source ports it swallowed ... */
	uint64_t port_dropped[PORTS];	/* ... and how many of each */
	unsigned nport;
};

static unsigned hole_pick(void *arg, uint64_t seq, const struct uet_net_msg *m)
{
	struct hole *h = arg;

	(void)seq;
	if (m->info.src.port == h->home)
		return 0;
	if (h->path < 0)
		h->path = (int)(m->info.src.port % PATHS);
	if (m->info.src.port % PATHS != (unsigned)h->path)
		return 0;
	if (h->dead) {
		unsigned i;

		for (i = 0; i < h->nport && h->port[i] != m->info.src.port;)
			i++;
		if (i == h->nport && i < PORTS)
			h->port[h->nport++] = m->info.src.port;
		if (i < PORTS)
			h->port_dropped[i]++;
		h->dropped++;
		return UET_MEM_DROP;
	}
	h->crossed++;
	return 0;
}

static struct hole hole;

/* The harness's seed (t_init's) picks each PDC's entropies. */
#define SEED	42u

/* cfg.ack_steer and cfg.reorder_window of the next pair. */
static bool pair_ack_steer = true;
static uet_time pair_reorder;

/* Two nodes, node 0 spraying over PORTS ports (spray_bits 4) with
 * policy lb in runs of run. */
static void spray_pair(uint8_t lb, uint16_t run, bool infer, bool lb_delay,
		       uint64_t seed)
{
	struct uet_fep_config c = t_cfg();
	struct uet_mem_config mc = { .spray_bits = 4 };

	c.lb = lb;
	c.entropy_count = PORTS;
	c.entropy_run = run;
	c.loss_infer = infer;
	c.lb_delay = lb_delay;
	c.ack_steer = pair_ack_steer;
	c.reorder_window = pair_reorder;
	memset(&T, 0, sizeof(T));
	cr_assert_eq(uet_harness_init(&T.h, 2, &c, &mc, seed), 0);
	T.h.on_complete = t_complete;
	T.h.on_tx = t_tx;
	T.h.on_rx = t_rx;
}

static void open_pair_seed(uint8_t lb, uint16_t run, bool infer,
			   uint64_t seed)
{
	struct uet_mem_impair imp = { .pick = hole_pick, .pick_arg = &hole,
				      .delay = 20 * UET_USEC };

	spray_pair(lb, run, infer, false, seed);
	memset(&hole, 0, sizeof(hole));
	hole.home = T.h.node[0].addr.port;
	hole.dead = true;
	/* One path, or runs of 16 (a few entropies carry it all, and a
	 * path-aware policy keeps to those that came back clean): the hole
	 * is where the first sprayed packet goes, or it may never be met. */
	hole.path = lb == UET_LB_SINGLE || run > 1 ? -1 : 1;
	t_impair(1, &imp);
}

static void open_pair(uint8_t lb, uint16_t run, bool infer)
{
	open_pair_seed(lb, run, infer, SEED);
}

/* 400 packets over a dead path: done, nothing failed, no peer given up. */
static uint64_t through_dead_path_seed(uint8_t lb, uint16_t run, bool infer,
				       uint64_t seed)
{
	unsigned i;

	open_pair_seed(lb, run, infer, seed);
	for (i = 0; i < 20; i++)
		t_send(0, 1, 20 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_eq(t_stats(0).pdc_failed, 0, "lb %u run %u: PDC failed",
		     lb, run);
	cr_assert_gt(hole.dropped, 0, "the hole saw nothing");
	cr_log_info("lb %u run %u infer %d: %lu packets lost in the hole, "
		    "%lu RTO resends, done at %.1f ms", lb, run, infer,
		    (unsigned long)hole.dropped,
		    (unsigned long)t_stats(0).retx_rto,
		    (double)T.h.now / UET_MSEC);
	return hole.dropped;
}

static uint64_t through_dead_path(uint8_t lb, uint16_t run, bool infer)
{
	return through_dead_path_seed(lb, run, infer, SEED);
}

Test(path, oblivious_survives_a_dead_path)
{
	through_dead_path(UET_LB_OBLIVIOUS, 1, false);
	t_fini();
	/* Runs of packets on one entropy (GSO trains), RACK on. */
	through_dead_path(UET_LB_OBLIVIOUS, 16, true);
}

/* The hole is wherever its one path starts. A timeout moves the PDC to
 * a random other entropy, and a quarter of them lead into the same hole:
 * a window may be lost there again, but on no entropy twice (lb_single.c
 * remembers), so at most one window per entropy of the dead path. Twenty
 * seeds, so that the bound holds by rule, not by a lucky draw. */
Test(path, single_moves_off_a_dead_path)
{
	uint64_t seed, total = 0, worst = 0;
	unsigned i;

	for (seed = 1; seed <= 20; seed++) {
		through_dead_path_seed(UET_LB_SINGLE, 1, false, seed);
		for (i = 0; i < hole.nport; i++)
			cr_assert_leq(hole.port_dropped[i], 32,
				      "seed %lu: %lu lost on one entropy, "
				      "more than a window",
				      (unsigned long)seed,
				      (unsigned long)hole.port_dropped[i]);
		total += hole.dropped;
		worst = hole.dropped > worst ? hole.dropped : worst;
		t_fini();
	}
	cr_log_info("single, 20 seeds: %lu packets lost in the hole in all, "
		    "at most %lu", (unsigned long)total, (unsigned long)worst);
	/* Measured: 864 in all, at most 96 (without the memory: 928, at
	 * most 128; no entropy twice in these seeds by chance, which
	 * lb_test.c's single_remembers_timed_out_evs rules out). */
}

Test(path, path_aware_avoid_a_dead_path)
{
	static const uint8_t kinds[] = { UET_LB_REPS, UET_LB_BITMAP,
					 UET_LB_MIXED };
	uint64_t obl, pa;
	unsigned k;

	obl = through_dead_path(UET_LB_OBLIVIOUS, 1, false);
	t_fini();
	for (k = 0; k < sizeof(kinds); k++) {
		pa = through_dead_path(kinds[k], 1, false);
		/* REPS explores at random when its ring is empty (no
		 * memory of the hole): less than oblivious, not much. */
		cr_assert_lt(kinds[k] == UET_LB_REPS ? pa : pa * 4, obl,
			     "lb %u lost %lu, oblivious %lu", kinds[k],
			     (unsigned long)pa, (unsigned long)obl);
		t_fini();
	}
	through_dead_path(UET_LB_MIXED, 16, true);
}

/* The dead path heals: its entropies are probed again and carry data. */
Test(path, healed_path_comes_back)
{
	unsigned i;

	open_pair(UET_LB_MIXED, 1, false);
	for (i = 0; i < 20; i++)
		t_send(0, 1, 20 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	cr_assert_gt(hole.dropped, 0);
	hole.dead = false;
	for (i = 0; i < 100; i++)
		t_send(0, 1, 20 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_eq(t_stats(0).pdc_failed, 0);
	cr_log_info("after healing: %lu of %lu requests on the healed path",
		    (unsigned long)hole.crossed, (unsigned long)t_reqs(0));
	cr_assert_gt(hole.crossed, 100, "the healed path stays unused");
}

/* An idle PDC SES keeps busy sends liveness probes (pds.h: Liveness).
 * The hole is the path of the first probe: with probes in a run on one
 * entropy (as control packets are), every one falls in and the live
 * peer is given up; each probe on a fresh pick off the last one's. */
Test(path, probes_leave_a_dead_path)
{
	struct uet_fep_config c = t_cfg();
	unsigned i;

	open_pair(UET_LB_OBLIVIOUS, 16, false);
	for (i = 0; i < 4; i++)
		t_send(0, 1, 20 * T_SEG);
	hole.dead = false;
	t_run_done(T.h.now + T_LIMIT);
	hole.dead = true;
	hole.path = -1;
	t_ses(0)->force_busy = true;
	t_run_quiet(T.h.now + 20 * c.pdc_idle);
	cr_log_info("probes %lu, lost in the hole %lu",
		    (unsigned long)t_stats(0).probes_tx,
		    (unsigned long)hole.dropped);
	cr_assert_geq(t_stats(0).probes_tx, 10);
	cr_assert_gt(hole.dropped, 0);
	cr_assert_eq(t_stats(0).pdc_failed, 0, "a live peer given up");
	t_ses(0)->force_busy = false;
}


/* A path that is slow, not dead: kernel ECMP behind a long queue, a
 * fabric that marks nothing. With cfg.lb_delay the bitmap keeps at most
 * a run per EV in flight and reads the slow round trips as marks, so
 * the slow path carries much less than the quarter it gets without. */
struct slow {
	uint16_t home;
	uint64_t slow, all;	/* requests on the slow path, on any */
};

static struct slow slow;

static unsigned slow_pick(void *arg, uint64_t seq,
			  const struct uet_net_msg *m)
{
	struct slow *s = arg;

	(void)seq;
	if (m->info.src.port == s->home)
		return 0;
	s->all++;
	if (m->info.src.port % PATHS != 1)
		return 0;
	s->slow++;
	return UET_MEM_REORDER;
}

/* extra: how much longer the slow path takes. */
static double slow_share(bool lb_delay, uet_time extra, uet_time *done)
{
	/* 184-byte packets, 2 us each through the port: a window of 32
	 * fills the fast paths' 40 us round trip about threefold. */
	struct uet_mem_impair imp = { .pick = slow_pick, .pick_arg = &slow,
				      .delay = 20 * UET_USEC,
				      .rate = 184u * 500000u,
				      .reorder_delay = extra };
	unsigned i;

	spray_pair(UET_LB_BITMAP, 2, true, lb_delay, SEED);
	memset(&slow, 0, sizeof(slow));
	slow.home = T.h.node[0].addr.port;
	t_impair(1, &imp);
	for (i = 0; i < 100; i++)
		t_send(0, 1, 20 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_eq(t_stats(0).pdc_failed, 0);
	cr_log_info("lb_delay %d: %lu of %lu on the slow path, %lu RTO, "
		    "%lu sack %lu tlp %lu nack %lu spurious, done at %.2f ms",
		    lb_delay,
		    (unsigned long)slow.slow, (unsigned long)slow.all,
		    (unsigned long)t_stats(0).retx_rto,
		    (unsigned long)t_stats(0).retx_sack,
		    (unsigned long)t_stats(0).retx_tlp,
		    (unsigned long)t_stats(0).retx_nack,
		    (unsigned long)t_stats(0).retx_spurious,
		    (double)T.h.now / UET_MSEC);
	*done = T.h.now;
	return (double)slow.slow / (double)slow.all;
}

Test(path, lb_delay_unloads_a_slow_path)
{
	uet_time t_off, t_on;
	double off, on;

	off = slow_share(false, 400 * UET_USEC, &t_off);
	t_fini();
	on = slow_share(true, 400 * UET_USEC, &t_on);
	cr_assert_gt(off, 0.15, "without: %.3f on the slow path", off);
	cr_assert_lt(on, off / 2, "with lb_delay %.3f, without %.3f", on,
		     off);
	cr_assert_lt(t_on, t_off, "and sooner done");
}

/* A black hole both ways, as a router that lost its link does to kernel
 * ECMP: what either node sends from a port of the dead path (requests
 * and ACKs alike, ACKs echoing the request's EV but leaving from the
 * other node's own port) is lost. Small messages one at a time, each
 * way in turn, as a benchmark's window handshake or MPI's control
 * messages: each alone in flight, so no later packet's SACK shows a
 * hole, and each loss waits for the tail probe or the RTO. */
struct hole2 {
	uint16_t home[2];	/* SYNs pass */
	bool dead;
	uint64_t dropped;
	uint64_t acks_lost[2];	/* ACKs each node sent into it */
	uint64_t crossed;	/* node 0's packets on its path, whole */
};

static struct hole2 hole2;

/* The path of a source port, as a router's hash picks it: each node's
 * ports spread over the paths independently, so a request's path says
 * nothing of its ACK's (ports by % PATHS would pair them). */
static unsigned hole2_path(uint16_t port)
{
	return (unsigned)(((uint32_t)port * 2654435761u) >> 16) % PATHS;
}

static unsigned hole2_pick(void *arg, uint64_t seq,
			   const struct uet_net_msg *m)
{
	struct hole2 *h = arg;
	struct uet_pkt p;

	(void)seq;
	if (m->info.src.port == h->home[0] ||
	    m->info.src.port == h->home[1] ||
	    hole2_path(m->info.src.port) != 1)
		return 0;
	if (!h->dead) {
		if (m->info.dst.port == h->home[1])
			h->crossed++;
		return 0;
	}
	h->dropped++;
	if (uet_pkt_decode(&p, m->buf, m->len, 0) >= 0 &&
	    (p.pds.type == UET_PDS_ACK || p.pds.type == UET_PDS_ACK_CC))
		h->acks_lost[m->info.dst.port == h->home[0]]++;
	return UET_MEM_DROP;
}

/* After spray_pair: both PDCs up while the paths are whole, then hole2
 * (dead or not) between the nodes. */
static void hole2_open(bool dead)
{
	struct uet_mem_impair imp = { .pick = hole2_pick,
				      .pick_arg = &hole2,
				      .delay = 20 * UET_USEC };

	memset(&hole2, 0, sizeof(hole2));
	hole2.home[0] = T.h.node[0].addr.port;
	hole2.home[1] = T.h.node[1].addr.port;
	hole2.dead = dead;
	t_send(0, 1, T_SEG);
	t_send(1, 0, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_impair(0, &imp);
	t_impair(1, &imp);
}

/* Everything arrived both ways, neither PDC given up. */
static void hole2_check(void)
{
	t_check_delivery(0, 1);
	t_check_delivery(1, 0);
	cr_assert_eq(t_stats(0).pdc_failed + t_stats(1).pdc_failed, 0);
}

/* One message each way in turn, each alone in flight. */
static void ping_pong(unsigned rounds)
{
	for (unsigned i = 0; i < rounds; i++) {
		t_send(0, 1, T_SEG);
		t_run_done(T.h.now + T_LIMIT);
		t_send(1, 0, T_SEG);
		t_run_done(T.h.now + T_LIMIT);
	}
}

static uet_time sparse_over_hole(unsigned rounds, bool dead, uint64_t seed,
				 uint64_t *rto)
{
	uet_time t0;

	spray_pair(UET_LB_BITMAP, 1, true, false, seed);
	hole2_open(dead);
	t0 = T.h.now;
	ping_pong(rounds);
	hole2_check();
	*rto = t_stats(0).retx_rto + t_stats(1).retx_rto;
	cr_log_info("seed %lu: %u rounds in %.2f ms, %lu lost in the hole, "
		    "%lu RTO resends, %lu tail probes", (unsigned long)seed,
		    rounds, (double)(T.h.now - t0) / UET_MSEC,
		    (unsigned long)hole2.dropped, (unsigned long)*rto,
		    (unsigned long)(t_stats(0).retx_tlp +
				    t_stats(1).retx_tlp));
	return T.h.now - t0;
}

Test(path, sparse_messages_leave_a_dead_path)
{
	uint64_t seed, rto;
	uet_time clean, t;

	for (seed = 1; seed <= 10; seed++) {
		clean = sparse_over_hole(100, false, seed, &rto);
		t_fini();
		t = sparse_over_hole(100, true, seed, &rto);
		/* Each of the dead EVs a side once, then retired for
		 * longer than this run (32bc9ee, seed 1: 45 lost, 20.6 ms
		 * against 8.0 clean; now 10 lost, 9.6-10.5 ms). */
		cr_assert_leq(hole2.dropped, 12, "seed %lu: %lu lost",
			      (unsigned long)seed,
			      (unsigned long)hole2.dropped);
		cr_assert_eq(rto, 0, "seed %lu: the RTO", (unsigned long)seed);
		cr_assert_lt(t, clean + clean * 2 / 5, "seed %lu: %.2f ms, "
			     "%.2f clean", (unsigned long)seed,
			     (double)t / UET_MSEC, (double)clean / UET_MSEC);
		t_fini();
	}
}

/* Bulk one way over hole2, a small message back after every two (a
 * benchmark's window handshake). The bulk receiver's ACKs echo the EVs
 * of the bulk packets, which the sender picked for its own direction:
 * a quarter leave from a port of the dead path and are lost, and each
 * lost ACK at the end of a burst costs a tail probe. With cfg.ack_steer
 * they keep off the EVs the receiver's own PDC (its small messages)
 * learnt bad. */
static uet_time bulk_over_hole(bool steer, uint64_t seed, uint64_t *tlp,
			       unsigned rounds)
{
	uet_time t0;
	unsigned i;

	pair_ack_steer = steer;
	spray_pair(UET_LB_BITMAP, 4, true, true, seed);
	pair_ack_steer = true;
	hole2_open(true);
	t0 = T.h.now;
	for (i = 0; i < rounds; i++) {
		t_send(0, 1, 16 * T_SEG);
		t_send(0, 1, 16 * T_SEG);
		t_run_done(T.h.now + T_LIMIT);
		t_send(1, 0, T_SEG);
		t_run_done(T.h.now + T_LIMIT);
	}
	hole2_check();
	*tlp = t_stats(0).retx_tlp + t_stats(0).retx_rto;
	cr_log_info("steer %d seed %lu: %.2f ms, ACKs lost: node 0 %lu, "
		    "node 1 %lu; node 0 probes and RTOs %lu", steer,
		    (unsigned long)seed, (double)(T.h.now - t0) / UET_MSEC,
		    (unsigned long)hole2.acks_lost[0],
		    (unsigned long)hole2.acks_lost[1], (unsigned long)*tlp);
	return T.h.now - t0;
}

/* The same for longer, over paths whose delays differ by milliseconds
 * (kernel ECMP behind queues): RACK's reorder window at 2 ms, fifty
 * round trips. The dead path's EVs sit out their losses together and
 * come back together, again and again. On probation they carry a
 * packet each, one EV at a time, and a probe's loss is inferred
 * without the reorder window: a probe waited for as any other packet
 * held the window's far end for 2 ms (when written, 8 seeds: 582 lost
 * and 365.2 ms before; probation alone 445 and 339.2; with no reorder
 * window for a probe 453 and 314.7; now 458 and 315.6). */
Test(path, probes_of_a_dead_path_cost_little)
{
	uint64_t tlp, seed, lost = 0;
	uet_time t = 0;

	pair_reorder = 2 * UET_MSEC;
	for (seed = 1; seed <= 8; seed++) {
		t += bulk_over_hole(true, seed, &tlp, 400);
		lost += hole2.dropped;
		t_fini();
	}
	pair_reorder = 0;
	cr_log_info("8 seeds: %lu lost in the hole, %.2f ms",
		    (unsigned long)lost, (double)t / UET_MSEC);
	cr_assert_lt(t, 330 * UET_MSEC, "%.2f ms", (double)t / UET_MSEC);
	cr_assert_lt(lost, 500);
}

/* Eight seeds (when written: node 1's ACKs lost 14 steered against 37,
 * node 0's probes and RTOs 16 against 25, 35.3 ms against 39.8). */
Test(path, acks_leave_a_dead_path)
{
	uint64_t seed, lost_on = 0, lost_off = 0, tlp_on = 0, tlp_off = 0;
	uint64_t tlp;
	uet_time on = 0, off = 0;

	for (seed = 1; seed <= 8; seed++) {
		off += bulk_over_hole(false, seed, &tlp, 40);
		lost_off += hole2.acks_lost[1];
		tlp_off += tlp;
		t_fini();
		on += bulk_over_hole(true, seed, &tlp, 40);
		lost_on += hole2.acks_lost[1];
		tlp_on += tlp;
		t_fini();
	}
	cr_log_info("8 seeds: node 1's ACKs lost %lu steered, %lu not; "
		    "node 0's probes and RTOs %lu / %lu; %.2f / %.2f ms",
		    (unsigned long)lost_on, (unsigned long)lost_off,
		    (unsigned long)tlp_on, (unsigned long)tlp_off,
		    (double)on / UET_MSEC, (double)off / UET_MSEC);
	cr_assert_gt(lost_off, 16, "the hole took few ACKs unsteered");
	cr_assert_lt(2 * lost_on, lost_off);
	cr_assert_lt(tlp_on, tlp_off);
	cr_assert_lt(on, off);
}

/* A path 45 us slower than the others, less than twice their round
 * trip: marked from 1.5 times the median RTT, it carries 0.116 of the
 * packets; from twice the median, as before, 0.15-0.16 (the ports'
 * share is a quarter). */
Test(path, lb_delay_unloads_a_path_queueing_a_little)
{
	uet_time t;
	double on = slow_share(true, 45 * UET_USEC, &t);

	cr_assert_lt(on, 0.13, "%.3f on the slow path", on);
}

/* A PDC that sends one message at a time has nothing in flight behind
 * a probe, at every packet: if only a packet with others after it could
 * probe an EV back from sitting out (lb.no_probe), it would never take
 * the dead path's EVs again, healed (0 of node 0's 600 packets in
 * 300 rounds, 4 seeds, when only the last of a burst was kept off
 * probation; 188-195 when nothing in flight lets it probe). */
Test(path, sparse_messages_come_back_to_a_healed_path)
{
	uint64_t seed;

	for (seed = 1; seed <= 4; seed++) {
		spray_pair(UET_LB_BITMAP, 1, true, true, seed);
		hole2_open(true);
		ping_pong(100);
		hole2.dead = false;
		hole2.crossed = 0;
		ping_pong(300);
		hole2_check();
		cr_log_info("seed %lu: %lu of node 0's packets on the healed "
			    "path", (unsigned long)seed,
			    (unsigned long)hole2.crossed);
		cr_assert_gt(hole2.crossed, 50, "seed %lu: the healed path "
			     "stays unused", (unsigned long)seed);
		t_fini();
	}
}
