/* Topology builders and tree routing (see topo.h). */
#include <stdlib.h>
#include <string.h>

#include "uet/err.h"
#include "uet/rand.h"

#include "topo.h"

uint64_t uet_topo_hash(uint64_t salt, const struct uet_frame *f)
{
	uint64_t h = uet_rand_mix(salt ^ ((uint64_t)f->src << 32 | f->dst));

	return uet_rand_mix(h ^ ((uint64_t)f->sport << 16 | f->dport));
}

uint32_t uet_topo_route(const struct uet_topo *t, const struct uet_node *n,
			const struct uet_frame *f)
{
	uint32_t nup = n->deg - n->ndown;

	(void)t;
	if (f->dst >= n->lo && f->dst < n->hi)
		return n->first + (f->dst - n->lo) / n->per_down;
	if (!nup)
		return UET_TOPO_NONE;
	return n->first + n->ndown + (uint32_t)(uet_topo_hash(n->salt, f) % nup);
}

const char *uet_topo_name(enum uet_topo_kind kind)
{
	switch (kind) {
	case UET_TOPO_STAR:
		return "star";
	case UET_TOPO_LEAFSPINE:
		return "leafspine";
	case UET_TOPO_FATTREE:
		return "fattree";
	}
	return "?";
}

uint32_t uet_topo_hosts(const struct uet_topo_spec *s)
{
	unsigned h = s->k / 2;

	switch (s->kind) {
	case UET_TOPO_STAR:
		return s->hosts >= 2 ? s->hosts : 0;
	case UET_TOPO_LEAFSPINE:
		if (!s->leaves || !s->leaf_hosts || !s->spines ||
		    (uint64_t)s->leaves * s->leaf_hosts < 2 ||
		    (uint64_t)s->leaves * s->leaf_hosts > 1u << 20)
			return 0;
		return s->leaves * s->leaf_hosts;
	case UET_TOPO_FATTREE:
		if (s->k < 2 || s->k % 2 || s->k > 128)
			return 0;
		return s->k * h * h;
	}
	return 0;
}

/* A switch (or host) node with its slice of the tree. */
static void node_set(struct uet_topo *t, uint32_t i, uint8_t tier,
		     uint32_t deg, uint32_t ndown, uint32_t lo, uint32_t hi,
		     uint32_t per_down)
{
	struct uet_node *n = &t->nodes[i];

	n->host = tier == 0;
	n->tier = tier;
	n->deg = deg;
	n->ndown = ndown;
	n->lo = lo;
	n->hi = hi;
	n->per_down = per_down ? per_down : 1;
}

/* Every node's links are contiguous, in node order. */
static void links_alloc(struct uet_topo *t, uint64_t seed)
{
	uint32_t i, at = 0;

	for (i = 0; i < t->nnodes; i++) {
		t->nodes[i].first = at;
		t->nodes[i].salt = uet_rand_mix(seed ^ uet_rand_mix(i + 1));
		at += t->nodes[i].deg;
	}
	t->nlinks = at;
	t->links = uet_sim_alloc((size_t)at * sizeof(*t->links));
}

/* A cable: slot sa of node a to slot sb of node b, both directions. */
static void cable(struct uet_topo *t, uint32_t a, uint32_t sa, uint32_t b,
		  uint32_t sb, const struct uet_link_cfg *nic,
		  const struct uet_link_cfg *sw)
{
	uint32_t la = t->nodes[a].first + sa, lb = t->nodes[b].first + sb;

	uet_link_init(&t->links[la], t->nodes[a].host ? nic : sw, a, b);
	uet_link_init(&t->links[lb], t->nodes[b].host ? nic : sw, b, a);
	t->links[la].rev = lb;
	t->links[lb].rev = la;
	if (t->nodes[b].host)
		t->host_in[b] = la;
	if (t->nodes[a].host)
		t->host_in[a] = lb;
}

static void nodes_alloc(struct uet_topo *t, uint32_t hosts, uint32_t switches)
{
	uint32_t i;

	t->nhosts = hosts;
	t->nnodes = hosts + switches;
	t->nodes = uet_sim_alloc((size_t)t->nnodes * sizeof(*t->nodes));
	t->host_in = uet_sim_alloc((size_t)hosts * sizeof(*t->host_in));
	for (i = 0; i < hosts; i++)
		node_set(t, i, 0, 1, 0, i, i + 1, 1);
}

static void build_star(struct uet_topo *t, const struct uet_topo_spec *s,
		       const struct uet_link_cfg *nic,
		       const struct uet_link_cfg *sw, uint64_t seed)
{
	uint32_t n = s->hosts, i;

	nodes_alloc(t, n, 1);
	node_set(t, n, 1, n, n, 0, n, 1);
	links_alloc(t, seed);
	for (i = 0; i < n; i++)
		cable(t, i, 0, n, i, nic, sw);
	t->hops = 2;
}

static void build_leafspine(struct uet_topo *t, const struct uet_topo_spec *s,
			    const struct uet_link_cfg *nic,
			    const struct uet_link_cfg *sw, uint64_t seed)
{
	uint32_t L = s->leaves, P = s->leaf_hosts, S = s->spines, H = L * P;
	uint32_t leaf0 = H, spine0 = H + L, l, j;

	nodes_alloc(t, H, L + S);
	for (l = 0; l < L; l++)
		node_set(t, leaf0 + l, 1, P + S, P, l * P, l * P + P, 1);
	for (j = 0; j < S; j++)
		node_set(t, spine0 + j, 2, L, L, 0, H, P);
	links_alloc(t, seed);
	for (l = 0; l < L; l++) {
		for (j = 0; j < P; j++)
			cable(t, l * P + j, 0, leaf0 + l, j, nic, sw);
		for (j = 0; j < S; j++)
			cable(t, leaf0 + l, P + j, spine0 + j, l, nic, sw);
	}
	t->hops = L > 1 ? 4 : 2;
}

static void build_fattree(struct uet_topo *t, const struct uet_topo_spec *s,
			  const struct uet_link_cfg *nic,
			  const struct uet_link_cfg *sw, uint64_t seed)
{
	uint32_t k = s->k, h = k / 2, pod_hosts = h * h, H = k * pod_hosts;
	uint32_t edge0 = H, agg0 = H + k * h, core0 = H + 2 * k * h;
	uint32_t p, e, a, c, j;

	nodes_alloc(t, H, 2 * k * h + h * h);
	for (p = 0; p < k; p++) {
		for (e = 0; e < h; e++) {
			uint32_t lo = p * pod_hosts + e * h;

			node_set(t, edge0 + p * h + e, 1, 2 * h, h, lo, lo + h, 1);
		}
		for (a = 0; a < h; a++)
			node_set(t, agg0 + p * h + a, 2, 2 * h, h, p * pod_hosts,
				 (p + 1) * pod_hosts, h);
	}
	for (c = 0; c < h * h; c++)
		node_set(t, core0 + c, 3, k, k, 0, H, pod_hosts);
	links_alloc(t, seed);
	for (p = 0; p < k; p++) {
		for (e = 0; e < h; e++) {
			uint32_t edge = edge0 + p * h + e;

			for (j = 0; j < h; j++)
				cable(t, p * pod_hosts + e * h + j, 0, edge, j,
				      nic, sw);
			for (a = 0; a < h; a++)
				cable(t, edge, h + a, agg0 + p * h + a, e, nic,
				      sw);
		}
		/* Aggregation switch a of every pod reaches cores
		 * a*h .. a*h+h-1: (k/2)^2 distinct paths between pods. */
		for (a = 0; a < h; a++)
			for (c = 0; c < h; c++)
				cable(t, agg0 + p * h + a, h + c,
				      core0 + a * h + c, p, nic, sw);
	}
	t->hops = k > 2 ? 6 : 4;
}

int uet_topo_build(struct uet_topo *t, const struct uet_topo_spec *spec,
		   const struct uet_link_cfg *nic,
		   const struct uet_link_cfg *sw, uint64_t seed)
{
	memset(t, 0, sizeof(*t));
	if (!uet_topo_hosts(spec))
		return UET_ERR_INVAL;
	switch (spec->kind) {
	case UET_TOPO_STAR:
		build_star(t, spec, nic, sw, seed);
		break;
	case UET_TOPO_LEAFSPINE:
		build_leafspine(t, spec, nic, sw, seed);
		break;
	case UET_TOPO_FATTREE:
		build_fattree(t, spec, nic, sw, seed);
		break;
	}
	return 0;
}

void uet_topo_fini(struct uet_topo *t)
{
	free(t->nodes);
	free(t->links);
	free(t->host_in);
	memset(t, 0, sizeof(*t));
}

static uint64_t scale(uint64_t v, double f)
{
	return v ? (uint64_t)((double)v * f + 0.5) : 0;
}

static void degrade_one(struct uet_link *l, double f)
{
	struct uet_link_cfg *c = &l->cfg;

	c->bps = scale(c->bps, f);
	if (!c->bps)
		c->bps = 1;
	c->lo_max = scale(c->lo_max, f);
	c->hi_max = scale(c->hi_max, f);
	c->ecn_min = scale(c->ecn_min, f);
	c->ecn_max = scale(c->ecn_max, f);
	l->degraded = true;
}

void uet_topo_degrade(struct uet_topo *t, uint32_t i, double factor)
{
	struct uet_link *l = &t->links[i];

	if (l->degraded)
		return;
	degrade_one(l, factor);
	degrade_one(&t->links[l->rev], factor);
}

uint32_t uet_topo_degrade_random(struct uet_topo *t, unsigned n,
				 double factor, uint64_t *rng)
{
	uint32_t *cand, nc = 0, i;

	cand = uet_sim_alloc((size_t)t->nlinks * sizeof(*cand));
	/* One direction per cable: from < to. */
	for (i = 0; i < t->nlinks; i++) {
		const struct uet_link *l = &t->links[i];

		if (!t->nodes[l->from].host && !t->nodes[l->to].host &&
		    l->from < l->to)
			cand[nc++] = i;
	}
	/* Partial Fisher-Yates: n distinct cables. */
	for (i = 0; i < n && i < nc; i++) {
		uint32_t j = i + (uint32_t)(uet_rand(rng) % (nc - i));
		uint32_t x = cand[i];

		cand[i] = cand[j];
		cand[j] = x;
		uet_topo_degrade(t, cand[i], factor);
	}
	free(cand);
	return nc;
}
