/* Flows: posting, completions, goodput and data checks (see flow.h). */
#include <stdlib.h>
#include <string.h>

#include "uet/wire.h"
#include "uet/rand.h"

#include "sim.h"

#define PATTERN_SLACK	4096u	/* distinct start offsets into the pattern */
#define VERIFY_AUTO_MAX	(512ull << 20)

static uint64_t flow_key(uint32_t src, uint32_t dst)
{
	return ((uint64_t)src + 1) << 32 | dst;
}

static uint32_t key_slot(const struct uet_flowmap *m, uint64_t k)
{
	k ^= k >> 29;
	k *= 0xbf58476d1ce4e5b9ull;
	k ^= k >> 32;
	return (uint32_t)k & m->mask;
}

static void map_init(struct uet_flowmap *m, uint32_t n)
{
	uint32_t cap = 16;

	while (cap < 2 * n)
		cap *= 2;
	m->mask = cap - 1;
	m->keys = uet_sim_alloc((size_t)cap * sizeof(*m->keys));
	m->vals = uet_sim_alloc((size_t)cap * sizeof(*m->vals));
}

static void map_put(struct uet_flowmap *m, uint64_t k, uint32_t v)
{
	uint32_t i = key_slot(m, k);

	while (m->keys[i] && m->keys[i] != k)
		i = (i + 1) & m->mask;
	m->keys[i] = k;
	m->vals[i] = v;
}

struct uet_flow *uet_flow_find(const struct uet_sim *s, uint32_t src,
			       uint32_t dst)
{
	const struct uet_flowmap *m = &s->map;
	uint64_t k = flow_key(src, dst);
	uint32_t i = key_slot(m, k);

	for (; m->keys[i]; i = (i + 1) & m->mask)
		if (m->keys[i] == k)
			return &s->flows[m->vals[i]];
	return NULL;
}

void uet_flows_init(struct uet_sim *s)
{
	uint64_t total = 0, max = 0, i, r;
	uint32_t payload = s->cfg.payload;
	bool verify;

	for (i = 0; i < s->nflows; i++) {
		total += s->flows[i].size;
		if (s->flows[i].size > max)
			max = s->flows[i].size;
	}
	if (s->cfg.verify >= 0)
		verify = s->cfg.verify;
	else
		verify = total <= VERIFY_AUTO_MAX;
	s->verify = verify;
	/* One pattern for every flow, each from its own offset. */
	s->pattern = uet_sim_alloc(max + PATTERN_SLACK);
	r = s->cfg.seed ^ 0x5bd1e995ull;
	for (i = 0; i < max + PATTERN_SLACK; i += 8) {
		uint64_t v = uet_rand(&r);
		size_t n = max + PATTERN_SLACK - i < 8 ? max + PATTERN_SLACK - i : 8;

		memcpy(s->pattern + i, &v, n);
	}
	if (!verify)
		s->sink = uet_sim_alloc(max ? max : 1);
	map_init(&s->map, s->nflows);
	for (i = 0; i < s->nflows; i++) {
		struct uet_flow *f = &s->flows[i];
		uint64_t chunks = (f->size + payload - 1) / payload;

		f->id = (uint32_t)i;
		f->tx_done = f->rx_done = UET_PS_NONE;
		f->chunk = payload;
		f->seen = uet_sim_alloc(((chunks + 63) / 64 + 1) * 8);
		f->shift = (uint32_t)(i % PATTERN_SLACK);
		f->own_rbuf = verify;
		f->rbuf = verify ? uet_sim_alloc(f->size) : s->sink;
		f->siov.base = s->pattern + f->shift;
		f->siov.len = f->size;
		f->riov.base = f->rbuf;
		f->riov.len = f->size;
		map_put(&s->map, flow_key(f->src, f->dst), (uint32_t)i);
	}
	s->flows_left = s->nflows;
}

void uet_flows_fini(struct uet_sim *s)
{
	uint32_t i;

	for (i = 0; s->flows && i < s->nflows; i++) {
		free(s->flows[i].seen);
		if (s->flows[i].own_rbuf)
			free(s->flows[i].rbuf);
	}
	free(s->map.keys);
	free(s->map.vals);
	free(s->pattern);
	free(s->sink);
	memset(&s->map, 0, sizeof(s->map));
	s->pattern = s->sink = NULL;
}

int uet_flows_post_recvs(struct uet_sim *s)
{
	uint32_t i;

	for (i = 0; i < s->nflows; i++) {
		struct uet_flow *f = &s->flows[i];
		struct uet_host *h = &s->hosts[f->dst];
		struct uet_op op = {
			.type = UET_OP_RECV,
			.flags = UET_OPF_COMPLETION,
			.context = f,
			.peer = s->hosts[f->src].addr,
			.iov = &f->riov,
			.iov_count = 1,
		};
		int rc = uet_fep_post(h->fep, &op, uet_ps_to_ns(s->now));

		if (rc)
			return rc;
	}
	return 0;
}

/* A flow is over when both ends completed, or its send failed: the
 * receive then waits for data that will not come. */
static void flow_check_done(struct uet_sim *s, struct uet_flow *f)
{
	if (f->over || f->tx_done == UET_PS_NONE ||
	    (f->rx_done == UET_PS_NONE && !f->tx_err))
		return;
	f->over = true;
	s->flows_left--;
}

void uet_flow_start(struct uet_sim *s, struct uet_flow *f)
{
	struct uet_host *h = &s->hosts[f->src];
	struct uet_op op = {
		.type = UET_OP_SEND,
		.flags = UET_OPF_COMPLETION,
		.context = f,
		.peer = s->hosts[f->dst].addr,
		.iov = &f->siov,
		.iov_count = 1,
	};
	int rc = uet_fep_post(h->fep, &op, uet_ps_to_ns(s->now));

	if (rc) {
		/* Never sent: the receive will not complete either. */
		f->tx_err = rc;
		f->tx_done = f->rx_done = s->now;
		f->rx_err = rc;
		flow_check_done(s, f);
		return;
	}
	uet_host_sync(s, h);
}

void uet_flow_complete(struct uet_sim *s, const struct uet_completion *c)
{
	struct uet_flow *f = c->context;

	if (!f)
		return;
	if (c->flags & UET_CF_SEND) {
		f->tx_cqes++;
		if (f->tx_done != UET_PS_NONE)
			return;
		f->tx_done = s->now;
		f->tx_err = c->err;
	} else if (c->flags & UET_CF_RECV) {
		f->rx_cqes++;
		if (f->rx_done != UET_PS_NONE)
			return;
		f->rx_done = s->now;
		f->rx_err = c->err;
		f->rx_len = c->len;
	} else {
		return;
	}
	flow_check_done(s, f);
}

void uet_flow_rx(struct uet_sim *s, const struct uet_frame *fr)
{
	struct uet_flow *f = uet_flow_find(s, fr->src, fr->dst);
	struct uet_pkt p;
	uint64_t off, bit;

	if (!f || uet_pkt_decode(&p, fr->data, fr->len, 0) < 0 ||
	    !p.has_req || !p.payload_len)
		return;
	off = p.req.flags & UET_SES_F_SOM ? 0 : p.req.message_offset;
	bit = off / f->chunk;
	if (off >= f->size || (f->seen[bit / 64] >> (bit % 64)) & 1)
		return;
	f->seen[bit / 64] |= 1ull << (bit % 64);
	f->good += p.payload_len;
	uet_metric_good(&s->metric, f->id, s->now, p.payload_len);
}

uint32_t uet_flows_verify(struct uet_sim *s)
{
	uint32_t i, bad = 0;

	for (i = 0; i < s->nflows; i++) {
		struct uet_flow *f = &s->flows[i];

		if (f->rx_done == UET_PS_NONE || f->rx_err)
			continue;
		f->verified = f->rx_len == f->size &&
			      (!s->verify ||
			       !memcmp(f->rbuf, f->siov.base, f->size));
		if (!f->verified)
			bad++;
	}
	return bad;
}
