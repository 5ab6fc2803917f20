/* Retransmit buffer ring (see rtb.h). */
#include <assert.h>
#include <string.h>

#include "rtb.h"

void uet_rtb_init(struct uet_rtb *rtb, struct uet_rtb_ent *ent, uint32_t cap,
		  uint32_t start)
{
	assert(cap && !(cap & (cap - 1)));
	memset(rtb, 0, sizeof(*rtb));
	memset(ent, 0, cap * sizeof(*ent));
	rtb->ent = ent;
	rtb->mask = cap - 1;
	rtb->start = rtb->base = rtb->next = start;
	/* Nothing acknowledged yet: CACK and CLEAR_PSN sit just below. */
	rtb->peer_cack = rtb->clear_sent = rtb->clear_want = start - 1;
	rtb->rewind_psn = start - 1;
	rtb->rto_at = UET_TIME_NONE;
	rtb->restart_at = UET_TIME_NONE;
}

struct uet_rtb_ent *uet_rtb_add(struct uet_rtb *rtb)
{
	struct uet_rtb_ent *e;

	if (uet_rtb_used(rtb) > rtb->mask)
		return NULL;
	e = uet_rtb_get(rtb, rtb->next++);
	memset(e, 0, sizeof(*e));
	e->fl = UET_RTB_USED;
	e->rto_at = UET_TIME_NONE;
	return e;
}

uint32_t uet_rtb_slide(struct uet_rtb *rtb)
{
	uint32_t n = 0;

	while (rtb->base != rtb->next) {
		struct uet_rtb_ent *e = uet_rtb_get(rtb, rtb->base);

		if (!(e->fl & UET_RTB_ACKED))
			break;
		e->fl = 0;
		rtb->base++;
		n++;
	}
	return n;
}

bool uet_rtb_first_due(struct uet_rtb *rtb, uint32_t *psn)
{
	uint32_t p;

	if (!rtb->ndue)
		return false;
	for (p = rtb->base; p != rtb->next; p++) {
		if (uet_rtb_get(rtb, p)->fl & (UET_RTB_DUE | UET_RTB_ACKREQ)) {
			*psn = p;
			return true;
		}
	}
	assert(!"ndue out of step with the ring");
	return false;
}

/* A ring this short is walked at once when its earliest timer stops or
 * moves later: a wake for nothing would cost more (a PDC with a packet
 * or two in flight, as every sender of a large incast). */
#define RTB_TIGHTEN_NOW	8

void uet_rtb_set_timer(struct uet_rtb *rtb, struct uet_rtb_ent *e, uet_time at)
{
	bool was_first = e->rto_at == rtb->rto_at && at > e->rto_at;

	e->rto_at = at;
	if (at < rtb->rto_at)
		rtb->rto_at = at;
	else if (was_first && uet_rtb_used(rtb) <= RTB_TIGHTEN_NOW)
		uet_rtb_tighten(rtb);
}

uet_time uet_rtb_tighten(struct uet_rtb *rtb)
{
	uet_time t = UET_TIME_NONE;
	uint32_t p;

	for (p = rtb->base; p != rtb->next; p++) {
		const struct uet_rtb_ent *e = uet_rtb_get(rtb, p);

		if (!(e->fl & UET_RTB_ACKED) && e->rto_at < t)
			t = e->rto_at;
	}
	rtb->rto_at = t;
	return t;
}
