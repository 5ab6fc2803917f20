/* Congestion control contexts: the table of a FEP and what every
 * algorithm shares (see ccc.h). */
#include <stdlib.h>
#include <string.h>

#include "uet/alloc.h"
#include "uet/err.h"
#include "uet/rand.h"

#include "ccc.h"

const struct uet_cc_ops *uet_cc_ops_for(uint8_t cca)
{
	switch (cca) {
	case UET_CCA_FIXED:
		return &uet_fixed_ops;
	case UET_CCA_NSCC:
		return &uet_nscc_ops;
	case UET_CCA_RCCC:
		return &uet_rccc_ops;
	case UET_CCA_NSCC_RCCC:
		return &uet_rccc_nscc_ops;
	}
	return NULL;
}

int uet_ccc_table_init(struct uet_ccc_table *t,
		       const struct uet_fep_config *cfg, unsigned n)
{
	memset(t, 0, sizeof(*t));
	t->ops = uet_cc_ops_for(cfg->cca);
	if (!t->ops || !n)
		return UET_ERR_INVAL;
	t->slots = uet_calloc(n, sizeof(*t->slots));
	if (!t->slots)
		return UET_ERR_NOMEM;
	t->n = n;
	t->cfg = cfg;
	return 0;
}

void uet_ccc_table_fini(struct uet_ccc_table *t)
{
	uet_free(t->slots);
	memset(t, 0, sizeof(*t));
}

/* A seed per context, the same every run: this FEP's address and the
 * peer's, mixed. */
static uint64_t ccc_seed(const struct uet_addr *local,
			 const struct uet_addr *peer)
{
	uint64_t h = 0;

	for (unsigned i = 0; i < 2; i++) {
		const struct uet_addr *a = i ? peer : local;

		h = uet_rand_mix(h ^ ((uint64_t)a->af << 16 | a->port));
		for (unsigned j = 0; j < sizeof(a->ip); j += 8) {
			uint64_t w = 0;

			for (unsigned k = 0; k < 8; k++)
				w |= (uint64_t)a->ip[j + k] << (8 * k);
			h = uet_rand_mix(h ^ w);
		}
	}
	return h;
}

/* Looked up when a PDC opens, not per packet: a scan is enough. */
struct uet_ccc *uet_ccc_get(struct uet_ccc_table *t,
			    const struct uet_addr *peer, uet_time now)
{
	struct uet_ccc *free_slot = NULL, *c;

	for (unsigned i = 0; i < t->n; i++) {
		c = &t->slots[i];
		if (!c->refs) {
			/* the peer's old slot first: one line per peer in
			 * uet_fep_cc_info */
			if (!free_slot || (c->ops &&
					   uet_addr_equal(&c->peer, peer)))
				free_slot = c;
			continue;
		}
		if (uet_addr_equal(&c->peer, peer)) {
			c->refs++;
			return c;
		}
	}
	c = free_slot;
	if (!c)
		return NULL;
	memset(c, 0, sizeof(*c));
	c->peer = *peer;
	c->refs = 1;
	uet_list_init(&c->pdcs);
	c->ops = t->ops;
	c->cfg = t->cfg;
	c->mtu = UET_CCC_NOMINAL((int64_t)uet_fep_config_mtu_to(t->cfg, peer));
	c->last_cut = UET_TIME_NONE;
	c->pace_at = UET_TIME_NONE;
	c->rtt_last = UET_TIME_NONE;
	c->rng = ccc_seed(&t->cfg->local, peer);
	c->ops->init(c, now);
	return c;
}

void uet_ccc_put(struct uet_ccc *c)
{
	if (c && c->refs)
		c->refs--;
}

size_t uet_ccc_table_info(const struct uet_ccc_table *t,
			  struct uet_cc_info *out, size_t max)
{
	size_t n = 0;

	for (unsigned i = 0; i < t->n; i++) {
		const struct uet_ccc *c = &t->slots[i];
		struct uet_cc_info *o;

		if (!c->ops)
			continue;	/* never used */
		if (n++ >= max)
			continue;
		o = &out[n - 1];
		o->peer = c->peer;
		o->algo = c->ops->name;
		o->active = c->refs > 0;
		o->cwnd = c->cwnd;
		o->inflight = c->inflight;
		o->base_rtt = c->ops == &uet_nscc_ops ||
			      c->ops == &uet_rccc_nscc_ops ?
			      c->nscc.base_rtt : UET_TIME_NONE;
		o->rtt_last = c->rtt_last;
		o->acks = c->acks;
		o->ecn_acks = c->ecn_acks;
	}
	return n;
}

void uet_ccc_on_ack(struct uet_ccc *c, const struct uet_cc_ack *a)
{
	if (a->ecn)
		c->ecn_acks++;
	else
		c->acks++;
	if (a->rtt != UET_TIME_NONE)
		c->rtt_last = a->rtt;
	c->ops->on_ack(c, a);
}
