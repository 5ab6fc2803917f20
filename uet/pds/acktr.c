/* Receive-PSN tracking of a target PDC (see acktr.h). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "uet/alloc.h"
#include "uet/err.h"

#include "acktr.h"

#define RANGE_MASK	(UET_ACKTR_RANGE - 1)

int uet_acktr_pool_init(struct uet_gtd_pool *pool, unsigned n)
{
	unsigned i;

	pool->slots = uet_calloc(n ? n : 1, sizeof(*pool->slots));
	if (!pool->slots)
		return UET_ERR_NOMEM;
	pool->free = NULL;
	for (i = n; i-- > 0;) {
		pool->slots[i].next = pool->free;
		pool->free = &pool->slots[i];
	}
	pool->nfree = n;
	return 0;
}

void uet_acktr_pool_fini(struct uet_gtd_pool *pool)
{
	uet_free(pool->slots);
	memset(pool, 0, sizeof(*pool));
}

static void gtd_put(struct uet_gtd_pool *pool, struct uet_gtd *g)
{
	g->next = pool->free;
	pool->free = g;
	pool->nfree++;
}

static bool bit_get(const struct uet_acktr *a, uint32_t psn)
{
	uint32_t i = psn & RANGE_MASK;

	return a->bits[i / 64] >> (i % 64) & 1;
}

static void map_set(uint64_t *map, uint32_t psn, bool v)
{
	uint32_t i = psn & RANGE_MASK;
	uint64_t m = 1ull << (i % 64);

	if (v)
		map[i / 64] |= m;
	else
		map[i / 64] &= ~m;
}

static void bit_set(struct uet_acktr *a, uint32_t psn, bool v)
{
	map_set(a->bits, psn, v);
}

static bool asked_get(const struct uet_acktr *a, uint32_t psn)
{
	uint32_t i = psn & RANGE_MASK;

	return a->asked[i / 64] >> (i % 64) & 1;
}

void uet_acktr_init(struct uet_acktr *a, uint64_t *bits, uint32_t start)
{
	memset(a, 0, sizeof(*a));
	memset(bits, 0, UET_ACKTR_BUF_WORDS * sizeof(*bits));
	a->bits = bits;
	a->asked = bits + UET_ACKTR_WORDS;
	a->start = start;
	a->cack = a->max = a->clear = a->rod_nacked = start - 1;
	a->ack_at = UET_TIME_NONE;
}

void uet_acktr_release(struct uet_acktr *a, struct uet_gtd_pool *pool)
{
	while (a->gtd) {
		struct uet_gtd *g = a->gtd;

		a->gtd = g->next;
		gtd_put(pool, g);
	}
}

bool uet_acktr_has(const struct uet_acktr *a, uint32_t psn)
{
	if (uet_psn_le(psn, a->cack))
		return true;
	if (uet_psn_gt(psn, a->cack + UET_ACKTR_RANGE))
		return false;
	return bit_get(a, psn);
}

uint32_t uet_acktr_expected(const struct uet_acktr *a)
{
	/* ROD never has holes: everything up to max arrived. */
	return uet_psn_gt(a->max, a->cack) ? a->max + 1 : a->cack + 1;
}

enum uet_acktr_class uet_acktr_classify(const struct uet_acktr *a,
					uint32_t psn, bool rod)
{
	int32_t d = uet_psn_diff(psn, a->cack + 1);

	/* docs/choices.md §2.7: [base - RANGE, base) is an old duplicate,
	 * [base, base + RANGE) new unless its bit is set, else out of range. */
	if (d < 0)
		return d >= -(int32_t)UET_ACKTR_RANGE ? UET_ACKTR_DUP :
							UET_ACKTR_OOR;
	if (d >= (int32_t)UET_ACKTR_RANGE)
		return UET_ACKTR_OOR;
	if (bit_get(a, psn))
		return UET_ACKTR_DUP;
	if (rod && psn != uet_acktr_expected(a))
		return uet_psn_lt(psn, uet_acktr_expected(a)) ?
			UET_ACKTR_DUP : UET_ACKTR_OOO;
	return UET_ACKTR_NEW;
}

bool uet_acktr_mark(struct uet_acktr *a, uint32_t psn)
{
	bool filled;

	assert(uet_psn_gt(psn, a->cack) &&
	       uet_psn_le(psn, a->cack + UET_ACKTR_RANGE));
	filled = uet_psn_lt(psn, a->max);
	bit_set(a, psn, true);
	if (uet_psn_gt(psn, a->max))
		a->max = psn;
	return filled;
}

struct uet_gtd *uet_acktr_gtd(const struct uet_acktr *a, uint32_t psn)
{
	struct uet_gtd *g;

	for (g = a->gtd; g; g = g->next)
		if (g->psn == psn)
			return g;
	return NULL;
}

uint32_t uet_acktr_advance(struct uet_acktr *a)
{
	uint32_t n = 0;

	for (;;) {
		uint32_t p = a->cack + 1;

		if (!bit_get(a, p) || uet_psn_gt(p, a->max))
			break;
		/* A kept response stops CACK until CLEAR covers it
		 * (docs/choices.md §3.3). The list is sorted, so only its
		 * head can be in the way. */
		if (a->gtd && a->gtd->psn == p && uet_psn_gt(p, a->clear))
			break;
		bit_set(a, p, false);
		map_set(a->asked, p, false);
		a->cack = p;
		n++;
	}
	if (uet_psn_lt(a->max, a->cack))
		a->max = a->cack;
	return n;
}

uint32_t uet_acktr_clear(struct uet_acktr *a, struct uet_gtd_pool *pool,
			 uint32_t clear_psn)
{
	/* CLEAR_PSN is monotonic; one above what we saw is bogus. */
	if (uet_psn_le(clear_psn, a->clear) || uet_psn_gt(clear_psn, a->max))
		return 0;
	a->clear = clear_psn;
	while (a->gtd && uet_psn_le(a->gtd->psn, clear_psn)) {
		struct uet_gtd *g = a->gtd;

		a->gtd = g->next;
		gtd_put(pool, g);
	}
	return uet_acktr_advance(a);
}

struct uet_gtd *uet_acktr_keep(struct uet_acktr *a, struct uet_gtd_pool *pool,
			       uint32_t psn, const struct uet_ses_reply *reply)
{
	struct uet_gtd *g = pool->free, **pp;

	if (!g)
		return NULL;
	pool->free = g->next;
	pool->nfree--;
	memset(g, 0, sizeof(*g));
	g->psn = psn;
	g->reply = *reply;
	pp = &a->gtd;
	while (*pp && uet_psn_lt((*pp)->psn, psn))
		pp = &(*pp)->next;
	g->next = *pp;
	*pp = g;
	return g;
}

bool uet_acktr_holes(const struct uet_acktr *a)
{
	return uet_psn_gt(a->max, a->cack);
}

uint16_t uet_acktr_ooo(const struct uet_acktr *a)
{
	uint32_t p = a->cack + 1, n = 0;

	while (uet_psn_le(p, a->max) && bit_get(a, p))
		p++;
	for (; uet_psn_le(p, a->max); p++)
		n += bit_get(a, p);
	return n > UINT16_MAX ? UINT16_MAX : (uint16_t)n;
}

/* PSNs that arrived in (psn, max]. */
static unsigned acktr_above(const struct uet_acktr *a, uint32_t psn)
{
	unsigned n = 0;

	while (uet_psn_lt(psn, a->max))
		n += bit_get(a, ++psn);
	return n;
}

void uet_acktr_ask(struct uet_acktr *a, uint32_t psn)
{
	if (uet_psn_gt(psn, a->cack) &&
	    uet_psn_le(psn, a->cack + UET_ACKTR_RANGE))
		map_set(a->asked, psn, true);
}

void uet_acktr_reordered(struct uet_acktr *a, uint32_t psn)
{
	unsigned d = acktr_above(a, psn);

	if (d > a->reorder)
		a->reorder = d;
}

bool uet_acktr_infer(struct uet_acktr *a, unsigned min_pkts, uint32_t *psn)
{
	unsigned need = a->reorder >= min_pkts ? a->reorder + 1 : min_pkts;
	uint32_t p;

	/* The lowest hole has the most above it: if it is short of the
	 * threshold, so are the others. */
	for (p = a->cack + 1; uet_psn_lt(p, a->max); p++) {
		if (bit_get(a, p) || asked_get(a, p))
			continue;
		if (acktr_above(a, p) < need)
			return false;
		map_set(a->asked, p, true);
		*psn = p;
		return true;
	}
	return false;
}

uint32_t uet_acktr_sack_base(const struct uet_acktr *a, uint32_t psn)
{
	uint32_t base = a->cack + 1;

	return uet_psn_gt(psn, base + 63) ? psn - 63 : base;
}

uint64_t uet_acktr_sack(const struct uet_acktr *a, uint32_t base,
			unsigned *gaps)
{
	uint64_t map = 0;
	unsigned i, top = 0, have = 0;

	for (i = 0; i < 64; i++) {
		uint32_t p = base + i;

		if (uet_psn_gt(p, a->max))
			break;
		if (bit_get(a, p)) {
			map |= 1ull << i;
			top = i + 1;
			have++;
		}
	}
	*gaps = top - have;
	return map;
}

void uet_acktr_close(struct uet_acktr *a, struct uet_gtd_pool *pool,
		     uint32_t psn)
{
	uet_acktr_release(a, pool);
	memset(a->bits, 0, UET_ACKTR_BUF_WORDS * sizeof(*a->bits));
	if (uet_psn_lt(psn, a->cack))
		psn = a->cack;
	a->cack = a->max = a->clear = psn;
}
