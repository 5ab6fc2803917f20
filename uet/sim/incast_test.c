/* End to end through real feps: one packet's arrival to the picosecond,
 * small incasts that deliver every byte exactly once (trimming, tail
 * drop), a permutation over a leaf-spine, and runs that repeat
 * themselves exactly under the same seed. */
#include <criterion/criterion.h>
#include <string.h>

#include "uet/wire.h"

#include "sim.h"

static struct uet_sim_config small(uint32_t senders, uint64_t size)
{
	struct uet_sim_config c;

	uet_sim_config_default(&c);
	c.senders = senders;
	c.size = size;
	c.verify = 1;
	c.limit = 100 * UET_PS_MS;
	return c;
}

static struct uet_sim *run(const struct uet_sim_config *c,
			   struct uet_sim_result *r)
{
	struct uet_sim *s;

	cr_assert_eq(uet_sim_create(&s, c), 0, "open_err %d", s->open_err);
	uet_sim_run(s);
	uet_report_result(s, r);
	return s;
}

/* Every flow completed once at each end, with every byte, intact. */
static void all_delivered(const struct uet_sim *s,
			  const struct uet_sim_result *r)
{
	uint32_t i;

	cr_assert_not(s->stuck);
	cr_assert_eq(r->completed, r->flows);
	cr_assert_eq(r->unfinished, 0);
	cr_assert_eq(r->verify_bad, 0);
	cr_assert(r->verified);
	cr_assert_not(r->lost_for_good);
	for (i = 0; i < s->nflows; i++) {
		const struct uet_flow *f = &s->flows[i];

		cr_assert_eq(f->tx_cqes, 1, "flow %u send completions", i);
		cr_assert_eq(f->rx_cqes, 1, "flow %u recv completions", i);
		cr_assert_eq(f->rx_len, f->size);
		cr_assert_eq(f->good, f->size, "flow %u first copies", i);
		cr_assert(f->verified);
	}
}

Test(incast, one_packet_arrives_on_time)
{
	struct uet_sim_config c = small(1, 1000);
	struct uet_sim_result r;
	struct uet_sim *s;
	uet_ps ser;
	uint32_t len = 1000 + UET_PDS_REQ_LEN + UET_SES_STD_LEN;

	c.tie_jitter = 0;	/* to the picosecond */
	s = run(&c, &r);
	ser = (uet_ps)(len + c.framing) * 20;	/* 400 Gb/s */

	all_delivered(s, &r);
	/* NIC, switch: two serialisations and two hops, nothing else. */
	cr_assert_eq(s->flows[0].rx_done, 2 * ser + 2 * UET_PS_US);
	cr_assert_eq(r.trims + r.drops + r.retx, 0);
	uet_sim_destroy(s);
}

Test(incast, four_senders_every_byte_once)
{
	struct uet_sim_config c = small(4, 256 << 10);
	struct uet_sim_result r;
	struct uet_sim *s = run(&c, &r);

	all_delivered(s, &r);
	cr_assert_gt(r.trims, 0, "4 BDPs of window into 1 BDP of buffer");
	cr_assert_gt(r.retx_nack, 0);
	cr_assert_eq(r.drops, 0);
	cr_assert_geq(r.ratio, 1.0);
	cr_assert_leq(r.q_max_bdp, 2.0);
	uet_sim_destroy(s);
}

Test(incast, same_seed_same_numbers)
{
	struct uet_sim_config c = small(6, 192 << 10);
	struct uet_sim_result a, b;
	struct uet_sim *s1, *s2;
	uint32_t i;

	c.buffer_bdp = 0.5;
	s1 = run(&c, &a);
	s2 = run(&c, &b);
	all_delivered(s1, &a);
	cr_assert_eq(a.events, b.events);
	cr_assert_eq(a.frames, b.frames);
	cr_assert_eq(a.last, b.last);
	cr_assert_eq(a.trims, b.trims);
	cr_assert_eq(a.marks, b.marks);
	cr_assert_eq(a.retx, b.retx);
	cr_assert_eq(a.q_avg_bdp, b.q_avg_bdp);
	cr_assert_eq(a.jain_mean, b.jain_mean);
	for (i = 0; i < s1->nflows; i++)
		cr_assert_eq(s1->flows[i].rx_done, s2->flows[i].rx_done);
	uet_sim_destroy(s1);
	uet_sim_destroy(s2);
}

/* --start-jitter: each flow starts up to T late, from the seed alone
 * (drawing them leaves the run's other numbers as they were). */
Test(incast, start_jitter_is_seeded)
{
	struct uet_sim_config c = small(6, 64 << 10);
	struct uet_sim_result a, b;
	struct uet_sim *s1, *s2;
	uint32_t i, same = 0;

	c.start_jitter = 100 * UET_PS_NS;
	s1 = run(&c, &a);
	s2 = run(&c, &b);
	all_delivered(s1, &a);
	for (i = 0; i < s1->nflows; i++) {
		cr_assert_lt(s1->flows[i].start, c.start_jitter);
		cr_assert_eq(s1->flows[i].start, s2->flows[i].start);
		same += s1->flows[i].start == s1->flows[0].start;
	}
	cr_assert_lt(same, s1->nflows, "not all at once");
	cr_assert_eq(a.last, b.last);
	uet_sim_destroy(s1);
	uet_sim_destroy(s2);
}

/* Frames that reach a port in the same picosecond queue in a random
 * order (--tie-jitter): in lockstep the same sender came first every
 * time and the first burst of an incast went to it. */
Test(incast, ties_break_at_random)
{
	struct uet_sim_config c = small(8, 2 << 20);
	struct uet_sim_result a, b;
	struct uet_sim *s1, *s2;

	c.cca = UET_CCA_RCCC;	/* measured: 0.987 lockstep, 0.995 */
	c.tie_jitter = 0;
	s1 = run(&c, &a);
	c.tie_jitter = 16;
	s2 = run(&c, &b);
	all_delivered(s1, &a);
	all_delivered(s2, &b);
	cr_assert_gt(b.jain_mean, a.jain_mean, "lockstep %.3f, jitter %.3f",
		     a.jain_mean, b.jain_mean);
	cr_assert_geq(b.jain_mean, 0.99);
	uet_sim_destroy(s1);
	uet_sim_destroy(s2);
}

Test(incast, tail_drop_recovers)
{
	struct uet_sim_config c = small(4, 128 << 10);
	struct uet_sim_result r;
	struct uet_sim *s;

	c.trim = false;
	c.buffer_bdp = 0.5;
	s = run(&c, &r);
	all_delivered(s, &r);
	cr_assert_gt(r.drops, 0);
	cr_assert_eq(r.trims, 0);
	cr_assert_gt(r.retx, 0);
	uet_sim_destroy(s);
}

Test(incast, permutation_over_leafspine)
{
	struct uet_sim_config c = small(0, 128 << 10);
	struct uet_sim_result r;
	struct uet_sim *s;

	c.topo.kind = UET_TOPO_LEAFSPINE;
	c.topo.leaves = 3;
	c.topo.leaf_hosts = 4;
	c.topo.spines = 4;
	c.traffic = UET_TRAFFIC_PERM;
	c.degrade = 1;
	s = run(&c, &r);
	all_delivered(s, &r);
	cr_assert_eq(r.flows, 12);
	for (uint32_t i = 0; i < s->nflows; i++)
		cr_assert_neq(s->flows[i].src, s->flows[i].dst);
	uet_sim_destroy(s);
}

Test(incast, engine_refusal_is_reported)
{
	struct uet_sim_config c = small(2, 4096);
	struct uet_sim *s;

	c.cca = 200;	/* no such algorithm */
	cr_assert_neq(uet_sim_create(&s, &c), 0);
	cr_assert_neq(s->open_err, 0);
	uet_sim_destroy(s);
}

/* The busy column: the watched wire's share of each bin. One sender
 * with a window of a fifth of a BDP keeps it a fifth busy; with a full
 * BDP, all of it. Middle bins only: the first holds the first packet's
 * way in, the last the tail. */
static double mid_busy(unsigned window)
{
	struct uet_sim_config c = small(1, 8 << 20);
	struct uet_sim_result r;
	struct uet_sim *s;
	double sum = 0;
	size_t i, n = 0;

	c.window = window;
	s = run(&c, &r);
	all_delivered(s, &r);
	cr_assert_gt(s->metric.nq, 100);
	for (i = s->metric.nq / 4; i < 3 * s->metric.nq / 4; i++, n++)
		sum += s->metric.qbusy[i];
	uet_sim_destroy(s);
	return sum / (double)n;
}

Test(incast, busy_share_follows_the_window)
{
	double full = mid_busy(0), fifth = mid_busy(10);

	cr_assert(full > 0.97 && full < 1.02, "a BDP of window: %.3f", full);
	cr_assert(fifth > 0.17 && fifth < 0.23, "10 of ~50 packets: %.3f",
		  fifth);
}
