/* Congestion control on the cms issue's incast (400 Gb/s, 1 us per hop,
 * 4 KiB payload, 1-BDP buffers with trimming, 2 MiB per sender, all at
 * t=0) at 8 and 32 senders: each algorithm holds what it reaches today,
 * so that a change that makes it worse fails here. The numbers are
 * deterministic (one seed); the bounds leave a little room for changes
 * that move them without making them worse. */
#include <criterion/criterion.h>

#include "sim.h"

struct cc_bound {
	uint8_t cca;
	uint32_t senders;
	double ratio, q_avg, jain;	/* at most, at most, at least */
};

static void cc_check(const struct cc_bound *b)
{
	struct uet_sim_config c;
	struct uet_sim_result r;
	struct uet_sim *s;

	uet_sim_config_default(&c);
	c.senders = b->senders;
	c.cca = b->cca;
	c.verify = 1;
	cr_assert_eq(uet_sim_create(&s, &c), 0);
	uet_sim_run(s);
	uet_report_result(s, &r);
	cr_log_info("cca %u, %u senders: ratio %.4f queue %.3f BDP jain %.3f "
		    "trims %lu", b->cca, b->senders, r.ratio, r.q_avg_bdp,
		    r.jain_mean, (unsigned long)r.trims);
	cr_assert_not(r.lost_for_good);
	cr_assert_eq(r.completed, r.flows);
	cr_assert_eq(r.verify_bad, 0);
	cr_assert_leq(r.ratio, b->ratio, "cca %u N %u: completion %.4f x ideal",
		      b->cca, b->senders, r.ratio);
	cr_assert_leq(r.q_avg_bdp, b->q_avg, "cca %u N %u: queue %.3f BDP",
		      b->cca, b->senders, r.q_avg_bdp);
	cr_assert_geq(r.jain_mean, b->jain, "cca %u N %u: Jain %.3f",
		      b->cca, b->senders, r.jain_mean);
	uet_sim_destroy(s);
}

/* measured: NSCC 1.065 / 1.035-1.037, queue 0.64 / 0.62-0.78, Jain 0.73
 * / 0.74-0.78 */
Test(cc, nscc_8)
{
	cc_check(&(struct cc_bound){ UET_CCA_NSCC, 8, 1.07, 0.70, 0.70 });
}

Test(cc, nscc_32)
{
	cc_check(&(struct cc_bound){ UET_CCA_NSCC, 32, 1.045, 0.82, 0.70 });
}

/* measured: RCCC 1.036 / 1.031, queue 0.21 / 0.18-0.21, Jain 0.987 /
 * 0.983-0.991 */
Test(cc, rccc_8)
{
	cc_check(&(struct cc_bound){ UET_CCA_RCCC, 8, 1.04, 0.25, 0.98 });
}

Test(cc, rccc_32)
{
	cc_check(&(struct cc_bound){ UET_CCA_RCCC, 32, 1.035, 0.25, 0.98 });
}

/* measured: 1.036 / 1.032, queue 0.21 / 0.18-0.22, Jain 0.987 /
 * 0.983-0.991 */
Test(cc, nscc_rccc_32)
{
	cc_check(&(struct cc_bound){ UET_CCA_NSCC_RCCC, 32, 1.035, 0.25,
				     0.98 });
}

/* The fixed window collapses where the others hold: the comparison the
 * report shows. measured: 13 to 15 x ideal at 32. */
Test(cc, fixed_32_collapses)
{
	struct uet_sim_config c;
	struct uet_sim_result r;
	struct uet_sim *s;

	uet_sim_config_default(&c);
	c.senders = 32;
	c.cca = UET_CCA_FIXED;
	cr_assert_eq(uet_sim_create(&s, &c), 0);
	uet_sim_run(s);
	uet_report_result(s, &r);
	cr_assert_not(r.lost_for_good);
	cr_assert_gt(r.ratio, 2.0, "fixed %.3f", r.ratio);
	uet_sim_destroy(s);
}
