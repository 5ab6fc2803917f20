/* The simulator: building a scenario, the event loop, the results (see
 * sim.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "uet/err.h"
#include "uet/rand.h"
#include "uet/wire.h"

#include "sim.h"

enum {
	EV_DONE,	/* link a: the frame on the wire is out */
	EV_ARRIVE,	/* frame p reaches node a */
	EV_START,	/* flow a starts */
};

#define CTL_LEN		64u	/* UET bytes of an ACK, for the base RTT */
#define HOPS_MAX	64u	/* a frame this many hops old is looping */
#define SAME_TIME_MAX	1000000u

void uet_sim_config_default(struct uet_sim_config *c)
{
	memset(c, 0, sizeof(*c));
	c->topo.kind = UET_TOPO_STAR;
	c->link_bps = 400000000000ull;
	c->hop = UET_PS_US;
	c->payload = 4096;
	/* UE 1.0 §3.6.12: the CC counts UET bytes + 48 (UDP + 40) per packet;
	 * the wire here carries the same, so the two agree on a BDP. */
	c->framing = 48;
	c->hi_buffer_bdp = 1;
	c->ecn_min_bdp = 0.2;
	c->ecn_max_bdp = 0.8;
	c->trim = true;
	c->trim_len = 64;
	c->degrade_host = -1;
	c->degrade_factor = 0.25;
	c->traffic = UET_TRAFFIC_INCAST;
	c->senders = 8;
	c->size = 2u << 20;
	c->cca = UET_CCA_FIXED;
	c->ack_every = 1;
	c->ack_delay = UET_USEC;
	c->rto_max = UET_MSEC;
	c->max_retx = 31;
	c->entropies = 256;
	c->entropy_run = 1;
	c->tie_jitter = 16;
	c->seed = 1;
	c->limit = 10 * UET_PS_SEC;
	c->verify = -1;
}

static uint64_t heap_used(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
	return mallinfo2().uordblks;
#else
	return 0;
#endif
}

/* ---- Moving frames ---- */

static void link_kick(struct uet_sim *s, uint32_t li)
{
	uet_ps done = uet_link_start(&s->topo.links[li], s->now, &s->rng);

	if (done != UET_PS_NONE)
		uet_evq_push(&s->evq, done, EV_DONE, li, NULL);
}

void uet_sim_send(struct uet_sim *s, uint32_t li, struct uet_frame *f)
{
	struct uet_link *l = &s->topo.links[li];

	if (uet_link_offer(l, f, s->now) == UET_LINK_DROPPED) {
		uet_frame_free(&s->pool, f);
		return;
	}
	if (!l->busy)
		link_kick(s, li);
}

static void on_done(struct uet_sim *s, uint32_t li)
{
	struct uet_link *l = &s->topo.links[li];
	struct uet_frame *f = uet_link_finish(l, s->now);
	uet_ps at = s->now + l->cfg.prop;

	/* frames that would meet at a port in the same picosecond queue in
	 * a random order, not in the senders' order every time */
	if (s->cfg.tie_jitter)
		at += uet_rand(&s->rng) % s->cfg.tie_jitter;
	uet_evq_push(&s->evq, at, EV_ARRIVE, l->to, f);
	link_kick(s, li);
	/* a host's NIC has room: it pulls the next packet */
	if (s->topo.nodes[l->from].host)
		uet_host_nic_free(s, &s->hosts[l->from]);
}

static void on_arrive(struct uet_sim *s, uint32_t node, struct uet_frame *f)
{
	const struct uet_node *n = &s->topo.nodes[node];
	uint32_t li;

	if (n->host) {
		uet_host_recv(s, &s->hosts[node], f);
		return;
	}
	li = uet_topo_route(&s->topo, n, f);
	if (li == UET_TOPO_NONE || ++f->hops > HOPS_MAX) {
		if (li == UET_TOPO_NONE)
			s->no_route++;
		else
			s->loops++;
		uet_frame_free(&s->pool, f);
		return;
	}
	uet_sim_send(s, li, f);
}

static void on_timer(struct uet_sim *s, uint32_t hi)
{
	struct uet_host *h = &s->hosts[hi];

	s->timeouts++;
	/* A deadline that stays due after its timeout ran would spin here
	 * forever: an engine bug, reported rather than hung on. */
	if (s->now != h->last_timeout) {
		h->last_timeout = s->now;
		h->same_time = 0;
	} else if (++h->same_time > SAME_TIME_MAX) {
		s->stuck = true;
		return;
	}
	uet_host_timeout(s, h);
}

/* ---- Building ---- */

/* Under RCCC every request carries the 16-byte *_CC_REQ header and SES
 * sizes its payload for it: the MTU grows with it, so that a full packet
 * holds cfg.payload bytes whatever the algorithm. */
static uint32_t pds_req_len(uint8_t cca)
{
	return cca == UET_CCA_RCCC || cca == UET_CCA_NSCC_RCCC ?
	       UET_PDS_CC_REQ_LEN : UET_PDS_REQ_LEN;
}

static uet_ps compute_base_rtt(const struct uet_sim *s,
			       const struct uet_link_cfg *lc)
{
	uet_ps one = 2 * lc->prop + uet_link_ser(lc, s->mtu) +
		     uet_link_ser(lc, CTL_LEN);

	return (uet_ps)s->topo.hops * one;
}

static uint64_t bdp_frac(const struct uet_sim *s, double f)
{
	return (uint64_t)llround((double)s->bdp * f);
}

static void switch_ports(struct uet_sim *s)
{
	const struct uet_sim_config *c = &s->cfg;
	double buf = c->buffer_bdp > 0 ? c->buffer_bdp : c->trim ? 1 : 5;
	uint32_t i;

	for (i = 0; i < s->topo.nlinks; i++) {
		struct uet_link *l = &s->topo.links[i];

		if (s->topo.nodes[l->from].host)
			continue;
		l->cfg.lo_max = bdp_frac(s, buf);
		l->cfg.hi_max = bdp_frac(s, c->hi_buffer_bdp);
		l->cfg.ecn_min = c->ecn_max_bdp > 0 ? bdp_frac(s, c->ecn_min_bdp) : 0;
		l->cfg.ecn_max = c->ecn_max_bdp > 0 ? bdp_frac(s, c->ecn_max_bdp) : 0;
		l->cfg.trim = c->trim;
		l->cfg.trim_len = c->trim_len;
	}
}

/* A random derangement: host i sends to perm[i] != i. */
static void perm_flows(struct uet_sim *s)
{
	uint32_t n = s->nhosts, i, *p = uet_sim_alloc(n * sizeof(*p));

	for (i = 0; i < n; i++)
		p[i] = i;
	/* Sattolo's algorithm: one cycle through every host, so no host
	 * sends to itself. */
	for (i = n - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(uet_rand(&s->rng) % i), x = p[i];

		p[i] = p[j];
		p[j] = x;
	}
	s->nflows = n;
	s->flows = uet_sim_alloc(n * sizeof(*s->flows));
	for (i = 0; i < n; i++) {
		s->flows[i].src = i;
		s->flows[i].dst = p[i];
	}
	free(p);
}

static int make_flows(struct uet_sim *s)
{
	const struct uet_sim_config *c = &s->cfg;
	uint32_t i;

	if (c->traffic == UET_TRAFFIC_PERM) {
		perm_flows(s);
	} else if (c->traffic == UET_TRAFFIC_ONE) {
		/* Across the whole tree: the longest path, like a
		 * permutation's flows between pods. */
		if (s->nhosts < 2)
			return UET_ERR_INVAL;
		s->nflows = 1;
		s->flows = uet_sim_alloc(sizeof(*s->flows));
		s->flows[0].src = 0;
		s->flows[0].dst = s->nhosts - 1;
	} else {
		if (!c->senders || c->senders >= s->nhosts)
			return UET_ERR_INVAL;
		s->nflows = c->senders;
		s->flows = uet_sim_alloc(s->nflows * sizeof(*s->flows));
		for (i = 0; i < s->nflows; i++) {
			s->flows[i].src = i + 1;
			s->flows[i].dst = 0;
		}
	}
	for (i = 0; i < s->nflows; i++) {
		s->flows[i].size = c->size;
		s->flows[i].start = c->start;
		/* a stream of its own: the rest of the run draws the same */
		if (c->start_jitter) {
			uint64_t r = c->seed ^ ((uint64_t)i << 32) ^
				     0x9e3779b97f4a7c15ull;

			s->flows[i].start += uet_rand(&r) %
					     c->start_jitter;
		}
	}
	return 0;
}

/* The busiest host link at line rate: no schedule finishes sooner. Also
 * picks the watched queue: the last hop into the busiest receiver. */
static void compute_ideal(struct uet_sim *s, uint32_t *watch)
{
	uint64_t *in = uet_sim_alloc(s->nhosts * sizeof(*in));
	uint64_t *out = uet_sim_alloc(s->nhosts * sizeof(*out)), most = 0;
	uint32_t i, best = s->nflows ? s->flows[0].dst : 0;

	for (i = 0; i < s->nflows; i++) {
		in[s->flows[i].dst] += s->flows[i].size;
		out[s->flows[i].src] += s->flows[i].size;
	}
	for (i = 0; i < s->nhosts; i++) {
		if (in[i] > most) {
			most = in[i];
			best = i;
		}
		if (out[i] > most)
			most = out[i];
	}
	s->ideal = (uet_ps)ceil((double)most * 8 * (double)UET_PS_SEC /
				(double)s->cfg.link_bps);
	*watch = s->topo.host_in[best];
	free(in);
	free(out);
}

static void fep_config(const struct uet_sim *s, const struct uet_host *h,
		       struct uet_fep_config *fc)
{
	const struct uet_sim_config *c = &s->cfg;

	uet_fep_config_default(fc);
	fc->job_id = 1;
	fc->mtu = s->mtu;
	if (fc->max_msg_size < c->size)
		fc->max_msg_size = c->size;
	/* Small pools: a host holds only its own flows' state. Twice the
	 * PDCs: a target lets half its pool be half-open at once (pds.c),
	 * and an incast opens every one of them in the same RTT (with
	 * just enough, 14 of 32 senders were refused NO_PDC_AVAIL and
	 * backed off for tens of us). */
	fc->pdc_max = 2 * (h->flows_out + h->flows_in) + 4;
	fc->tx_depth = h->flows_out + 4;
	fc->rx_depth = h->flows_in + 4;
	fc->unexp_max = 64u << 10;
	fc->window = s->window;
	fc->cca = c->cca;
	fc->link_bps = c->link_bps;
	fc->base_rtt = (uet_time)((s->base_rtt + UET_PS_NS - 1) / UET_PS_NS);
	fc->trimming = c->trim;
	fc->rto_min = c->rto_min ? c->rto_min : 4 * fc->base_rtt;
	fc->rto_max = c->rto_max > fc->rto_min ? c->rto_max : fc->rto_min;
	fc->max_retx = c->max_retx;
	fc->ack_every = c->ack_every;
	fc->ack_delay = c->ack_delay;
	fc->entropy_count = c->entropies;
	fc->entropy_run = c->entropy_run;
	fc->lb = c->lb;
	fc->loss_infer = !c->no_loss_infer;
	/* The target's loss inference reads spraying's reordering as loss
	 * alike: off with the sender's. */
	if (c->no_loss_infer)
		fc->rcv_infer = 0;
	fc->reorder_window = c->reorder_window;
}

static int open_hosts(struct uet_sim *s)
{
	uint32_t i;

	s->hosts = uet_sim_alloc(s->nhosts * sizeof(*s->hosts));
	for (i = 0; i < s->nflows; i++) {
		s->hosts[s->flows[i].src].flows_out++;
		s->hosts[s->flows[i].dst].flows_in++;
	}
	for (i = 0; i < s->nhosts; i++) {
		struct uet_host *h = &s->hosts[i];
		struct uet_fep_config fc;
		int rc;

		uint64_t before = heap_used();

		fep_config(s, h, &fc);
		rc = uet_host_open(s, h, i, &fc);
		if (rc) {
			s->open_err = rc;
			return UET_ERR_INVAL;
		}
		h->fep_bytes = heap_used() - before;
		s->fep_bytes += h->fep_bytes;
		if (h->fep_bytes > s->fep_bytes_max)
			s->fep_bytes_max = h->fep_bytes;
	}
	return 0;
}

static int check_config(const struct uet_sim_config *c)
{
	if (!c->link_bps || !c->payload ||
	    c->payload + UET_PDS_CC_REQ_LEN + UET_SES_STD_LEN > 16383 ||
	    c->trim_len < UET_PDS_CC_REQ_LEN + UET_SES_STD_LEN ||
	    c->trim_len > UET_FRAME_SMALL || !c->size || c->size > (1ull << 32) ||
	    c->ecn_min_bdp > c->ecn_max_bdp || c->degrade_factor <= 0 ||
	    c->degrade_factor > 1 || !c->entropies || !c->ack_every ||
	    (c->per_packet &&
	     c->per_packet < pds_req_len(c->cca) + UET_SES_STD_LEN))
		return UET_ERR_INVAL;
	return 0;
}

int uet_sim_create(struct uet_sim **sp, const struct uet_sim_config *cfg)
{
	struct uet_link_cfg base = { 0 };
	struct uet_topo_spec spec = cfg->topo;
	struct uet_sim *s;
	uint32_t watch, i;
	int rc;

	*sp = s = uet_sim_alloc(sizeof(*s));
	s->cfg = *cfg;
	s->rng = cfg->seed ^ 0x243f6a8885a308d3ull;
	uet_evq_init(&s->evq);
	rc = check_config(cfg);
	if (rc)
		return rc;
	if (spec.kind == UET_TOPO_STAR && !spec.hosts)
		spec.hosts = cfg->senders + 1;
	s->cfg.topo = spec;
	s->mtu = cfg->payload + pds_req_len(cfg->cca) + UET_SES_STD_LEN;
	uet_frame_pool_init(&s->pool, s->mtu);
	if (cfg->per_packet)
		s->cfg.framing = cfg->per_packet - (s->mtu - cfg->payload);

	base.bps = cfg->link_bps;
	base.prop = cfg->hop;
	base.framing = s->cfg.framing;
	rc = uet_topo_build(&s->topo, &spec, &base, &base, cfg->seed);
	if (rc)
		return rc;
	s->nhosts = s->topo.nhosts;
	s->base_rtt = compute_base_rtt(s, &base);
	s->bdp = (uint64_t)llround((double)cfg->link_bps / 8 *
				   (double)s->base_rtt / (double)UET_PS_SEC);
	s->window = cfg->window ? cfg->window :
		    (unsigned)((s->bdp + s->mtu + s->cfg.framing - 1) /
			       (s->mtu + s->cfg.framing));
	switch_ports(s);
	uet_topo_degrade_random(&s->topo, cfg->degrade, cfg->degrade_factor,
				&s->rng);
	if (cfg->degrade_host >= 0) {
		if ((uint32_t)cfg->degrade_host >= s->nhosts)
			return UET_ERR_INVAL;
		uet_topo_degrade(&s->topo, s->topo.host_in[cfg->degrade_host],
				 cfg->degrade_factor);
	}

	rc = make_flows(s);
	if (rc)
		return rc;
	compute_ideal(s, &watch);
	uet_tmq_init(&s->tmq, s->nhosts);
	rc = open_hosts(s);
	if (rc)
		return rc;
	uet_flows_init(s);
	/* Bins no finer than a few packets' time, whatever the flows. */
	uet_metric_init(&s->metric, watch,
			cfg->sample ? cfg->sample : s->ideal / 2000 + 10 * UET_PS_NS,
			cfg->jain_window ? cfg->jain_window :
			s->ideal / 32 + 100 * UET_PS_NS, s->nflows);

	rc = uet_flows_post_recvs(s);
	if (rc)
		return rc;
	for (i = 0; i < s->nhosts; i++)
		uet_host_sync(s, &s->hosts[i]);
	for (i = 0; i < s->nflows; i++)
		uet_evq_push(&s->evq, s->flows[i].start, EV_START, i, NULL);
	return 0;
}

void uet_sim_destroy(struct uet_sim *s)
{
	struct uet_ev ev;
	uint32_t i;

	if (!s)
		return;
	for (i = 0; s->hosts && i < s->nhosts; i++)
		if (s->hosts[i].fep)
			uet_host_close(&s->hosts[i]);
	/* Frames in flight are in the pool's slabs: nothing to walk. */
	while (uet_evq_pop(&s->evq, &ev))
		;
	uet_flows_fini(s);
	uet_metric_fini(&s->metric);
	uet_evq_fini(&s->evq);
	uet_tmq_fini(&s->tmq);
	uet_topo_fini(&s->topo);
	uet_frame_pool_fini(&s->pool);
	free(s->hosts);
	free(s->flows);
	free(s);
}

/* ---- Running ---- */

static void dispatch(struct uet_sim *s, const struct uet_ev *ev)
{
	switch (ev->kind) {
	case EV_DONE:
		on_done(s, ev->a);
		break;
	case EV_ARRIVE:
		on_arrive(s, ev->a, ev->p);
		break;
	case EV_START:
		uet_flow_start(s, &s->flows[ev->a]);
		break;
	}
}

/* Queue bins that end by t, before anything at t happens: the queue only
 * changes at events, so a bin's integral is exact without an event of
 * its own (which would also keep an idle run going). */
static void advance(struct uet_sim *s, uet_ps t)
{
	struct uet_metric *m = &s->metric;

	while ((uet_ps)(m->nq + 1) * m->qbin <= t)
		uet_metric_sample(m, &s->topo.links[m->qlink],
				  (uet_ps)(m->nq + 1) * m->qbin);
	s->now = t;
}

void uet_sim_run(struct uet_sim *s)
{
	struct timespec a, b;
	uint32_t i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	while (s->flows_left && !s->stuck) {
		uint32_t hid = 0;
		uet_ps te = uet_evq_next(&s->evq);
		uet_ps tt = uet_tmq_next(&s->tmq, &hid);
		struct uet_ev ev;

		if (te == UET_PS_NONE && tt == UET_PS_NONE)
			break;		/* nothing will ever happen again */
		if ((te < tt ? te : tt) > s->cfg.limit)
			break;
		s->events++;
		if (te <= tt) {
			advance(s, te);
			uet_evq_pop(&s->evq, &ev);
			dispatch(s, &ev);
			continue;
		}
		advance(s, tt);
		on_timer(s, hid);
	}
	s->end = s->now;
	for (i = 0; i < s->topo.nlinks; i++)
		uet_link_account(&s->topo.links[i], s->end);
	clock_gettime(CLOCK_MONOTONIC, &b);
	s->wall = (double)(b.tv_sec - a.tv_sec) +
		  (double)(b.tv_nsec - a.tv_nsec) / 1e9;
}
