/* Topologies: every host reaches every other by the tree routes within
 * the topology's hop count, and the ECMP hash spreads entropy values
 * evenly over equal-cost links and over whole paths. */
#include <criterion/criterion.h>
#include <string.h>

#include "host.h"
#include "topo.h"

static const struct uet_link_cfg lc = {
	.bps = 400000000000ull, .prop = UET_PS_US, .lo_max = 1000,
	.hi_max = 500, .ecn_min = 200, .ecn_max = 800,
};

/* Follow routes from src's NIC to a host; the links crossed. */
static unsigned walk(const struct uet_topo *t, struct uet_frame *f,
		     uint32_t *path, uint32_t *reached)
{
	uint32_t li = t->nodes[f->src].first, n = 0;

	for (;;) {
		const struct uet_link *l = &t->links[li];

		cr_assert_lt(n, 16, "looping");
		path[n++] = li;
		if (t->nodes[l->to].host) {
			*reached = l->to;
			return n;
		}
		li = uet_topo_route(t, &t->nodes[l->to], f);
		cr_assert_neq(li, UET_TOPO_NONE);
		cr_assert_eq(t->links[li].from, l->to);
	}
}

static void all_pairs(const struct uet_topo_spec *spec, uint32_t hosts,
		      unsigned hops)
{
	struct uet_topo t;
	uint32_t s, d, path[16], got;

	cr_assert_eq(uet_topo_build(&t, spec, &lc, &lc, 1), 0);
	cr_assert_eq(t.nhosts, hosts);
	cr_assert_eq(t.hops, hops);
	for (s = 0; s < hosts; s++) {
		for (d = 0; d < hosts; d++) {
			struct uet_frame f = { .src = s, .dst = d,
					       .sport = 0xC000 + s + d,
					       .dport = UET_HOST_PORT };

			if (s == d)
				continue;
			cr_assert_leq(walk(&t, &f, path, &got), hops);
			cr_assert_eq(got, d, "%u -> %u", s, d);
			cr_assert_eq(path[0], t.nodes[s].first);
			cr_assert_eq(t.links[t.host_in[d]].to, d);
		}
	}
	uet_topo_fini(&t);
}

Test(topo, star_routes)
{
	struct uet_topo_spec s = { .kind = UET_TOPO_STAR, .hosts = 9 };

	all_pairs(&s, 9, 2);
}

Test(topo, leafspine_routes)
{
	struct uet_topo_spec s = { .kind = UET_TOPO_LEAFSPINE, .leaves = 4,
				   .leaf_hosts = 3, .spines = 5 };

	all_pairs(&s, 12, 4);
}

Test(topo, fattree_routes)
{
	struct uet_topo_spec s = { .kind = UET_TOPO_FATTREE, .k = 4 };

	all_pairs(&s, 16, 6);
}

Test(topo, bad_specs)
{
	struct uet_topo t;
	struct uet_topo_spec odd = { .kind = UET_TOPO_FATTREE, .k = 5 };
	struct uet_topo_spec one = { .kind = UET_TOPO_STAR, .hosts = 1 };

	cr_assert_neq(uet_topo_build(&t, &odd, &lc, &lc, 1), 0);
	cr_assert_neq(uet_topo_build(&t, &one, &lc, &lc, 1), 0);
}

/* k = 8 fat tree, 128 hosts: 16 paths between pods. 256 entropy values
 * from host 0 to host 127 (another pod) must spread over the 4 up links
 * of the edge switch, the 4 of each aggregation switch, and reach all 16
 * paths evenly. */
Test(topo, hash_spreads_entropies)
{
	struct uet_topo_spec spec = { .kind = UET_TOPO_FATTREE, .k = 8 };
	unsigned edge_up[4] = { 0 }, paths[16] = { 0 }, e, i;
	struct uet_topo t;
	uint32_t path[16], got;

	cr_assert_eq(uet_topo_build(&t, &spec, &lc, &lc, 42), 0);
	cr_assert_eq(t.nhosts, 128);
	for (e = 0; e < 256; e++) {
		struct uet_frame f = { .src = 0, .dst = 127,
				       .sport = UET_HOST_SPRAY_BASE + e,
				       .dport = UET_HOST_PORT };
		const struct uet_node *edge, *agg;

		cr_assert_eq(walk(&t, &f, path, &got), 6);
		cr_assert_eq(got, 127);
		/* path[1]: edge -> agg, path[2]: agg -> core */
		edge = &t.nodes[t.links[path[1]].from];
		agg = &t.nodes[t.links[path[2]].from];
		edge_up[path[1] - edge->first - edge->ndown]++;
		paths[(path[1] - edge->first - edge->ndown) * 4 +
		      (path[2] - agg->first - agg->ndown)]++;
	}
	for (i = 0; i < 4; i++)
		cr_assert(edge_up[i] >= 40 && edge_up[i] <= 90,
			  "edge up link %u: %u of 256", i, edge_up[i]);
	for (i = 0; i < 16; i++)
		cr_assert(paths[i] >= 5 && paths[i] <= 32,
			  "path %u: %u of 256", i, paths[i]);
	/* The same entropy always takes the same path (no reordering
	 * within a value). */
	{
		struct uet_frame f = { .src = 0, .dst = 127,
				       .sport = UET_HOST_SPRAY_BASE + 7,
				       .dport = UET_HOST_PORT };
		uint32_t p2[16];

		walk(&t, &f, path, &got);
		walk(&t, &f, p2, &got);
		cr_assert_arr_eq(path, p2, 6 * sizeof(*path));
	}
	uet_topo_fini(&t);
}

Test(topo, degrade_quarter_both_ways)
{
	struct uet_topo_spec spec = { .kind = UET_TOPO_LEAFSPINE, .leaves = 2,
				      .leaf_hosts = 2, .spines = 2 };
	struct uet_topo t;
	uint64_t rng = 5;
	uint32_t i, n = 0;

	cr_assert_eq(uet_topo_build(&t, &spec, &lc, &lc, 1), 0);
	cr_assert_eq(uet_topo_degrade_random(&t, 1, 0.25, &rng), 4);
	for (i = 0; i < t.nlinks; i++) {
		const struct uet_link *l = &t.links[i];

		if (!l->degraded)
			continue;
		n++;
		cr_assert(!t.nodes[l->from].host && !t.nodes[l->to].host);
		cr_assert(t.links[l->rev].degraded);
		cr_assert_eq(l->cfg.bps, 100000000000ull);
		cr_assert_eq(l->cfg.lo_max, 250);
		cr_assert_eq(l->cfg.hi_max, 125);
		cr_assert_eq(l->cfg.ecn_min, 50);
		cr_assert_eq(l->cfg.ecn_max, 200);
	}
	cr_assert_eq(n, 2, "one cable, two directions");
	uet_topo_fini(&t);
}
