/* PDC pool, ids, lookup and life cycle (see pdc.h). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "uet/alloc.h"
#include "uet/err.h"

#include "ini.h"
#include "pdc.h"
#include "pds.h"
#include "rcp.h"
#include "tgt.h"

/* Verdicts remembered at once; the oldest gives way. */
#define UNREACH_MAX	64u

static void unreach_add(struct uet_pds *pds, const struct uet_addr *peer);

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static uint32_t id_slot(const struct uet_pds *pds, uint16_t id)
{
	/* Ids are consecutive from a random start: the low bits spread. */
	return id & pds->hash_mask;
}

int uet_pdc_pool_init(struct uet_pds *pds)
{
	unsigned n = pds->cfg.pdc_max, i;
	uint32_t buckets = pow2_at_least(2 * n);

	pds->npdc = n;
	pds->hash_mask = buckets - 1;
	/* room for what is SACKed above a late packet (docs/choices.md §2.7) */
	pds->rtb_cap = pow2_at_least(4 * pds->cfg.window);
	pds->pdcs = uet_calloc(n, sizeof(*pds->pdcs));
	pds->id_hash = uet_calloc(buckets, sizeof(*pds->id_hash));
	pds->peer_hash = uet_calloc(buckets, sizeof(*pds->peer_hash));
	pds->rtb_ents = uet_calloc((size_t)n * pds->rtb_cap,
			       sizeof(*pds->rtb_ents));
	pds->rx_bits = uet_calloc((size_t)n * UET_ACKTR_BUF_WORDS,
			      sizeof(*pds->rx_bits));
	pds->waiting = uet_calloc(n, sizeof(*pds->waiting));
	pds->unreach = uet_calloc(UNREACH_MAX, sizeof(*pds->unreach));
	if (!pds->pdcs || !pds->id_hash || !pds->peer_hash ||
	    !pds->rtb_ents || !pds->rx_bits || !pds->waiting ||
	    !pds->unreach)
		return UET_ERR_NOMEM;
	/* A CCC per PDC at worst: one toward each peer. */
	i = (unsigned)uet_ccc_table_init(&pds->cccs, &pds->cfg, n);
	if (i)
		return (int)i;
	for (i = n; i-- > 0;) {
		struct uet_pdc *pdc = &pds->pdcs[i];

		uet_heap_node_init(&pdc->timer);
		uet_list_init(&pdc->ctl_link);
		uet_list_init(&pdc->retx_link);
		uet_list_init(&pdc->ready_link);
		pdc->id_next = pds->free_pdc;
		pds->free_pdc = pdc;
	}
	pds->next_id = (uint16_t)uet_pds_rand32(pds);
	return 0;
}

void uet_pdc_pool_fini(struct uet_pds *pds)
{
	uet_free(pds->pdcs);
	uet_free(pds->id_hash);
	uet_free(pds->peer_hash);
	uet_free(pds->rtb_ents);
	uet_free(pds->rx_bits);
	uet_free(pds->waiting);
	uet_free(pds->unreach);
	pds->unreach = NULL;
	uet_ccc_table_fini(&pds->cccs);
	pds->pdcs = NULL;
	pds->id_hash = pds->peer_hash = NULL;
	pds->rtb_ents = NULL;
	pds->rx_bits = NULL;
	pds->waiting = NULL;
}

struct uet_pdc *uet_pdc_find_id(const struct uet_pds *pds, uint16_t lid)
{
	struct uet_pdc *pdc;

	if (!lid)
		return NULL;
	for (pdc = pds->id_hash[id_slot(pds, lid)]; pdc; pdc = pdc->id_next)
		if (pdc->lid == lid)
			return pdc;
	return NULL;
}

static struct uet_pdc *peer_bucket(const struct uet_pds *pds,
				   const struct uet_addr *peer)
{
	return pds->peer_hash[uet_addr_hash(peer) & pds->hash_mask];
}

struct uet_pdc *uet_pdc_find_ini(const struct uet_pds *pds,
				 const struct uet_addr *peer)
{
	struct uet_pdc *pdc;

	for (pdc = peer_bucket(pds, peer); pdc; pdc = pdc->peer_next)
		if (pdc->ref.initiator && !pdc->close_wanted &&
		    (pdc->state == UET_PDC_SYN || pdc->state == UET_PDC_EST) &&
		    uet_addr_equal(&pdc->ref.peer, peer))
			return pdc;
	return NULL;
}

struct uet_pdc *uet_pdc_find_tgt(const struct uet_pds *pds,
				 const struct uet_addr *peer, uint16_t rid)
{
	struct uet_pdc *pdc;

	for (pdc = peer_bucket(pds, peer); pdc; pdc = pdc->peer_next)
		if (!pdc->ref.initiator && pdc->rid == rid &&
		    pdc->state != UET_PDC_DEAD &&
		    uet_addr_equal(&pdc->ref.peer, peer))
			return pdc;
	return NULL;
}

/* 16-bit, never 0, unique among open PDCs (docs/choices.md §2.1). */
static uint16_t pdc_new_id(struct uet_pds *pds)
{
	for (;;) {
		uint16_t id = pds->next_id++;

		if (id && !uet_pdc_find_id(pds, id))
			return id;
	}
}

struct uet_pdc *uet_pdc_open(struct uet_pds *pds, const struct uet_addr *peer,
			     bool initiator, bool rod, uint16_t rid,
			     uint32_t start, uet_time now)
{
	struct uet_pdc *pdc = pds->free_pdc;
	size_t slot;
	uint32_t h;

	if (!pdc)
		return NULL;
	pds->free_pdc = pdc->id_next;
	slot = (size_t)(pdc - pds->pdcs);

	memset(pdc, 0, sizeof(*pdc));
	uet_heap_node_init(&pdc->timer);
	uet_list_init(&pdc->ctl_link);
	uet_list_init(&pdc->retx_link);
	uet_list_init(&pdc->ready_link);
	uet_list_init(&pdc->ccc_link);
	uet_list_init(&pdc->rc_link);
	pdc->lid = pdc_new_id(pds);
	pdc->rid = rid;
	pdc->rod = rod;
	pdc->state = initiator ? UET_PDC_SYN : UET_PDC_EST;
	pdc->ref.id = pdc->lid;
	pdc->ref.peer = *peer;
	pdc->ref.initiator = initiator;
	if (!initiator) {
		/* A SYN from its home address: the peer lives. */
		pdc->half = true;
		pds->nhalf++;
		uet_pdc_alive(pds, peer);
	}
	pdc->entropy = (uint16_t)(uet_pds_rand32(pds) % pds->cfg.entropy_count);
	pdc->last_act = pdc->heard_at = now;
	pdc->probe_at = UET_TIME_NONE;
	pdc->linger_until = UET_TIME_NONE;
	pdc->rack_tx = pdc->rack_at = pdc->tlp_at = UET_TIME_NONE;
	for (unsigned i = 0; i < UET_PDC_INFERRED; i++)
		pdc->inferred[i].sent_at = UET_TIME_NONE;
	uet_rtb_init(&pdc->rtb, &pds->rtb_ents[slot * pds->rtb_cap],
		     pds->rtb_cap, start);
	/* Until an ACK_CC says otherwise, assume the smallest MP_RANGE. */
	pdc->rtb.peer_range = UET_ACKTR_MPR_UNIT;
	uet_acktr_init(&pdc->rx, &pds->rx_bits[slot * UET_ACKTR_BUF_WORDS], start);
	pdc->ccc = uet_ccc_get(&pds->cccs, peer, now);
	assert(pdc->ccc);	/* as many contexts as PDCs */
	uet_list_add_tail(&pdc->ccc->pdcs, &pdc->ccc_link);
	uet_rtt_init(&pdc->rtt);

	pdc->id_next = pds->id_hash[id_slot(pds, pdc->lid)];
	pds->id_hash[id_slot(pds, pdc->lid)] = pdc;
	h = uet_addr_hash(peer) & pds->hash_mask;
	pdc->peer_next = pds->peer_hash[h];
	pds->peer_hash[h] = pdc;
	pds->nopen++;
	pds->st->pdc_open++;

	pdc->ses_open = true;
	uet_ses_pdc_open(pds->ses, &pdc->ref);
	return pdc;
}

static void unhash(struct uet_pdc **pp, struct uet_pdc *pdc, bool by_id)
{
	for (; *pp; pp = by_id ? &(*pp)->id_next : &(*pp)->peer_next) {
		if (*pp == pdc) {
			*pp = by_id ? pdc->id_next : pdc->peer_next;
			return;
		}
	}
	assert(!"PDC missing from its hash chain");
}

static void waiting_add(struct uet_pds *pds, const struct uet_addr *peer)
{
	unsigned i;

	for (i = 0; i < pds->nwaiting; i++)
		if (uet_addr_equal(&pds->waiting[i], peer))
			return;
	if (pds->nwaiting < pds->npdc)
		pds->waiting[pds->nwaiting++] = *peer;
}

/* Wake the oldest peer that found the pool empty. */
static void waiting_wake(struct uet_pds *pds)
{
	struct uet_addr peer;

	if (!pds->nwaiting || !pds->free_pdc)
		return;
	peer = pds->waiting[0];
	memmove(&pds->waiting[0], &pds->waiting[1],
		--pds->nwaiting * sizeof(pds->waiting[0]));
	uet_pds_wake(pds, &peer, pds->now);
}

static void pdc_release(struct uet_pds *pds, struct uet_pdc *pdc)
{
	/* SES may wake the peer from its callback: this PDC must not be
	 * found for new packets any more. */
	pdc->state = UET_PDC_DEAD;
	if (pdc->ses_open) {
		pdc->ses_open = false;
		uet_ses_pdc_closed(pds->ses, &pdc->ref);
	}
	uet_acktr_release(&pdc->rx, &pds->gtd);
	uet_pdc_proven(pds, pdc);
	uet_list_del(&pdc->ctl_link);
	uet_list_del(&pdc->retx_link);
	uet_list_del(&pdc->ready_link);
	uet_ini_leave_ccc(pdc);
	uet_rcp_leave(pds, pdc);
	uet_heap_set(&pds->timers, &pdc->timer, UET_TIME_NONE);
	unhash(&pds->id_hash[id_slot(pds, pdc->lid)], pdc, true);
	unhash(&pds->peer_hash[uet_addr_hash(&pdc->ref.peer) & pds->hash_mask],
	       pdc, false);
	pdc->state = UET_PDC_FREE;
	pdc->due = false;
	pdc->id_next = pds->free_pdc;
	pds->free_pdc = pdc;
	pds->nopen--;
	waiting_wake(pds);
}

void uet_pdc_free(struct uet_pds *pds, struct uet_pdc *pdc)
{
	assert(pdc->state != UET_PDC_FREE);
	pds->st->pdc_closed++;
	pdc_release(pds, pdc);
}

void uet_pdc_fail(struct uet_pds *pds, struct uet_pdc *pdc, uint8_t code)
{
	if (pdc->state == UET_PDC_DEAD || pdc->state == UET_PDC_FREE)
		return;
	pdc->state = UET_PDC_DEAD;
	pds->st->pdc_failed++;
	/* Silence (no NACK code): the peer is unreachable for a while. */
	if (pdc->ref.initiator && !code)
		unreach_add(pds, &pdc->ref.peer);
	uet_ini_fail_all(pds, pdc, code);
	pdc_release(pds, pdc);
}

void uet_pdc_lost(struct uet_pds *pds, struct uet_pdc *pdc, uet_time now)
{
	struct uet_addr peer = pdc->ref.peer;

	/* Found by nobody from here on; SES hears of it first, while the
	 * packets it takes back are still ours to forget. */
	pdc->state = UET_PDC_DEAD;
	uet_ses_pdc_lost(pds->ses, &pdc->ref);
	pds->st->pdc_closed++;
	pdc_release(pds, pdc);
	uet_pds_wake(pds, &peer, now);
}

void uet_pdc_proven(struct uet_pds *pds, struct uet_pdc *pdc)
{
	if (pdc->half) {
		pdc->half = false;
		pds->nhalf--;
	}
}

static int unreach_find(const struct uet_pds *pds,
			const struct uet_addr *peer)
{
	unsigned i;

	for (i = 0; i < pds->nunreach; i++)
		if (uet_addr_equal(&pds->unreach[i].peer, peer))
			return (int)i;
	return -1;
}

static void unreach_del(struct uet_pds *pds, unsigned i)
{
	memmove(&pds->unreach[i], &pds->unreach[i + 1],
		(--pds->nunreach - i) * sizeof(pds->unreach[0]));
}

static void unreach_add(struct uet_pds *pds, const struct uet_addr *peer)
{
	int i = unreach_find(pds, peer);

	if (!pds->cfg.unreach_hold)
		return;
	if (i >= 0)
		unreach_del(pds, (unsigned)i);
	else if (pds->nunreach == UNREACH_MAX)
		unreach_del(pds, 0);
	pds->unreach[pds->nunreach].peer = *peer;
	pds->unreach[pds->nunreach++].until = pds->now +
					      pds->cfg.unreach_hold;
}

bool uet_pdc_unreachable(struct uet_pds *pds, const struct uet_addr *peer)
{
	int i;

	if (!pds->nunreach)
		return false;
	i = unreach_find(pds, peer);
	if (i < 0)
		return false;
	if (pds->now < pds->unreach[i].until)
		return true;
	unreach_del(pds, (unsigned)i);
	return false;
}

void uet_pdc_alive(struct uet_pds *pds, const struct uet_addr *peer)
{
	int i;

	if (pds->nunreach && (i = unreach_find(pds, peer)) >= 0)
		unreach_del(pds, (unsigned)i);
}

void uet_pdc_fail_fast(struct uet_pds *pds, const struct uet_addr *peer,
		       uet_time now)
{
	struct uet_ses_pkt pkt;
	struct uet_pdc *pdc;
	uint32_t start = UET_PDS_START_MIN;

	/* SES fails a peer's sends with the PDC that failed on them: one
	 * that never reaches the wire. */
	pdc = uet_pdc_open(pds, peer, true, pds->cfg.rod, 0, start, now);
	if (!pdc) {
		uet_pdc_wait(pds, peer);
		return;
	}
	pdc->state = UET_PDC_DEAD;
	pds->st->pdc_failed++;
	memset(&pkt, 0, sizeof(pkt));
	if (uet_ses_tx_next(pds->ses, &pdc->ref, &pkt, now))
		uet_ses_tx_failed(pds->ses, &pdc->ref, &pkt, UET_ERR_PEER, 0);
	pdc_release(pds, pdc);
}

void uet_pdc_wait(struct uet_pds *pds, const struct uet_addr *peer)
{
	waiting_add(pds, peer);
}

void uet_pdc_rearm(struct uet_pds *pds, struct uet_pdc *pdc)
{
	uet_time t = UET_TIME_NONE;

	if (pdc->state == UET_PDC_FREE || pdc->state == UET_PDC_DEAD)
		return;
	t = pdc->ref.initiator ? uet_ini_deadline(pds, pdc) :
				 uet_tgt_deadline(pds, pdc);
	uet_heap_set(&pds->timers, &pdc->timer, t);
}

void uet_pdc_timeout(struct uet_pds *pds, struct uet_pdc *pdc, uet_time now)
{
	if (pdc->ref.initiator)
		uet_ini_timeout(pds, pdc, now);
	else
		uet_tgt_timeout(pds, pdc, now);
	/* The slot may be free now, or hold a new PDC: rearm is right for
	 * whatever is there. */
	uet_pdc_rearm(pds, pdc);
}

void uet_pdc_want_ctl(struct uet_pds *pds, struct uet_pdc *pdc,
		      uint16_t bits)
{
	pdc->ctl |= bits;
	if (!uet_list_linked(&pdc->ctl_link))
		uet_list_add_tail(&pds->ctl_q, &pdc->ctl_link);
}

void uet_pdc_want_retx(struct uet_pds *pds, struct uet_pdc *pdc)
{
	if (pdc->rtb.ndue && !uet_list_linked(&pdc->retx_link) &&
	    !uet_ini_retx_blocked(pdc))
		uet_list_add_tail(&pds->retx_q, &pdc->retx_link);
}

void uet_pdc_want_tx(struct uet_pds *pds, struct uet_pdc *pdc)
{
	pdc->tx_want = true;
	if (!uet_list_linked(&pdc->ready_link))
		uet_list_add_tail(&pds->ready_q, &pdc->ready_link);
}

uint16_t uet_pdc_entropy(struct uet_pds *pds, struct uet_pdc *pdc)
{
	uint16_t v = pdc->entropy;

	/* ROD keeps one path so packets arrive in order (docs/choices.md
	 * §9.4). */
	if (pdc->rod)
		return v;
	if (++pdc->entropy_used >= pds->cfg.entropy_run) {
		pdc->entropy_used = 0;
		pdc->entropy = (uint16_t)((v + 1u) % pds->cfg.entropy_count);
	}
	return v;
}
