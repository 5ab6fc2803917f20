/* Entropy selection (uet/cms/lb.h) in the simulator: issue 10's
 * permutation on a smaller tree (k = 4 fat tree, 16 hosts, 4 paths
 * between pods, 2 MiB per flow, RCCC, trimming, loss inference off as in
 * contrib/bench/lb-table.sh). The last completion over the same flow
 * alone, the mean of three seeds: oblivious spraying beats a single path
 * on the healthy tree, path-aware spraying (bitmap, the default, and
 * mixed) beats oblivious healthy and with two cables at 25%.
 * Deterministic. */
#include <criterion/criterion.h>

#include "sim.h"

#define SEEDS	3u

static struct uet_sim_config base(uint8_t lb)
{
	struct uet_sim_config c;

	uet_sim_config_default(&c);
	c.topo.kind = UET_TOPO_FATTREE;
	c.topo.k = 4;
	c.traffic = UET_TRAFFIC_PERM;
	c.size = 2u << 20;
	c.cca = UET_CCA_RCCC;
	c.lb = lb;
	c.no_loss_infer = true;
	c.verify = 1;
	return c;
}

static double run_us(const struct uet_sim_config *c)
{
	struct uet_sim_result r;
	struct uet_sim *s;
	double us;

	cr_assert_eq(uet_sim_create(&s, c), 0);
	uet_sim_run(s);
	uet_report_result(s, &r);
	cr_assert_eq(r.completed, r.flows, "lb %u: %u of %u flows", c->lb,
		     r.completed, r.flows);
	cr_assert_not(r.lost_for_good);
	cr_assert_eq(r.verify_bad, 0);
	us = (double)r.last / (double)UET_PS_US;
	uet_sim_destroy(s);
	return us;
}

/* Mean over the seeds of the last completion / the flow alone. */
static double slowdown(uint8_t lb, unsigned degrade)
{
	struct uet_sim_config c = base(lb);
	double alone, sum = 0;
	unsigned seed;

	c.traffic = UET_TRAFFIC_ONE;
	alone = run_us(&c);
	c.traffic = UET_TRAFFIC_PERM;
	c.degrade = degrade;
	for (seed = 1; seed <= SEEDS; seed++) {
		c.seed = seed;
		sum += run_us(&c);
	}
	cr_log_info("lb %u, %u degraded: %.3f x alone (%.1f us)", lb, degrade,
		    sum / SEEDS / alone, alone);
	return sum / SEEDS / alone;
}

/* measured: single 2.12, oblivious 1.15, bitmap 1.14, mixed 1.11 */
Test(spray, healthy_ordering)
{
	double single = slowdown(UET_LB_SINGLE, 0);
	double obl = slowdown(UET_LB_OBLIVIOUS, 0);
	double bitmap = slowdown(UET_LB_BITMAP, 0);
	double mixed = slowdown(UET_LB_MIXED, 0);

	cr_assert_lt(obl * 1.5, single, "oblivious %.3f, single %.3f", obl,
		     single);
	cr_assert_lt(mixed, obl, "mixed %.3f, oblivious %.3f", mixed, obl);
	cr_assert_lt(bitmap, obl, "bitmap %.3f, oblivious %.3f", bitmap, obl);
	cr_assert_leq(mixed, 1.15);
}

/* measured: oblivious 2.71, bitmap 1.95, mixed 2.00 */
Test(spray, degraded_path_aware_steers_away)
{
	double obl = slowdown(UET_LB_OBLIVIOUS, 2);
	double bitmap = slowdown(UET_LB_BITMAP, 2);
	double mixed = slowdown(UET_LB_MIXED, 2);

	cr_assert_lt(mixed * 1.2, obl, "mixed %.3f, oblivious %.3f", mixed,
		     obl);
	cr_assert_lt(bitmap * 1.2, obl, "bitmap %.3f, oblivious %.3f", bitmap,
		     obl);
}
