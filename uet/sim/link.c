/* Links and their output queues (see link.h). */
#include <string.h>

#include "uet/net.h"
#include "uet/rand.h"

#include "link.h"

void uet_link_init(struct uet_link *l, const struct uet_link_cfg *cfg,
		   uint32_t from, uint32_t to)
{
	memset(l, 0, sizeof(*l));
	l->cfg = *cfg;
	l->from = from;
	l->to = to;
	l->rev = UINT32_MAX;
}

uet_ps uet_link_ser(const struct uet_link_cfg *cfg, uint32_t len)
{
	uint64_t bits = 8ull * (len + cfg->framing);

	/* bits * 1e12 overflows past ~2.3 MB frames; frames are < 64 KiB. */
	return (bits * UET_PS_SEC + cfg->bps - 1) / cfg->bps;
}

static uint64_t wire_bytes(const struct uet_link *l, const struct uet_frame *f)
{
	return (uint64_t)f->len + l->cfg.framing;
}

void uet_link_account(struct uet_link *l, uet_ps now)
{
	if (now > l->area_at) {
		l->area += (double)uet_link_queued(l) * (double)(now - l->area_at);
		l->area_at = now;
	}
}

static void fifo_push(struct uet_fifo *q, struct uet_frame *f)
{
	f->next = NULL;
	if (q->tail)
		q->tail->next = f;
	else
		q->head = f;
	q->tail = f;
	q->n++;
}

static struct uet_frame *fifo_pop(struct uet_fifo *q)
{
	struct uet_frame *f = q->head;

	q->head = f->next;
	if (!q->head)
		q->tail = NULL;
	f->next = NULL;
	q->n--;
	return f;
}

static void note_peak(struct uet_link *l)
{
	uint64_t q = uet_link_queued(l);

	if (q > l->peak)
		l->peak = q;
	if (q > l->bin_peak)
		l->bin_peak = q;
}

enum uet_link_verdict uet_link_offer(struct uet_link *l, struct uet_frame *f,
				     uet_ps now)
{
	const struct uet_link_cfg *c = &l->cfg;
	enum uet_link_verdict v = UET_LINK_QUEUED;

	uet_link_account(l, now);
	if (!f->hi) {
		if (!c->lo_max || l->lo_bytes + wire_bytes(l, f) <= c->lo_max) {
			l->lo_bytes += wire_bytes(l, f);
			fifo_push(&l->lo, f);
			note_peak(l);
			return v;
		}
		if (!c->trim || f->len <= c->trim_len) {
			l->drops_lo++;
			return UET_LINK_DROPPED;
		}
		v = UET_LINK_TRIMMED;
	}
	/* A header that finds the priority queue full is a drop, not a
	 * trim: the receiver never hears of it. */
	if (c->hi_max && l->hi_bytes + c->framing +
	    (v == UET_LINK_TRIMMED ? c->trim_len : f->len) > c->hi_max) {
		l->drops_hi++;
		return UET_LINK_DROPPED;
	}
	if (v == UET_LINK_TRIMMED) {
		/* UE 1.0 §3.6.17: cut the payload, keep the headers, forward
		 * at high priority. */
		f->len = c->trim_len;
		f->trimmed = true;
		f->hi = true;
		l->trims++;
	}
	l->hi_bytes += wire_bytes(l, f);
	fifo_push(&l->hi, f);
	note_peak(l);
	return v;
}

/* RED-like: mark with probability rising from 0 at ecn_min to 1 at
 * ecn_max of the bytes queued behind the frame. */
static bool ecn_decide(const struct uet_link_cfg *c, uint64_t behind,
		       uint64_t *rng)
{
	if (!c->ecn_max || behind <= c->ecn_min)
		return false;
	if (behind >= c->ecn_max)
		return true;
	/* 53 random bits against the fraction of the band: exact enough,
	 * and one draw per frame in the band only. */
	return (double)(uet_rand(rng) >> 11) * 0x1p-53 <
	       (double)(behind - c->ecn_min) / (double)(c->ecn_max - c->ecn_min);
}

uet_ps uet_link_start(struct uet_link *l, uet_ps now, uint64_t *rng)
{
	struct uet_frame *f;

	if (l->busy)
		return UET_PS_NONE;
	if (l->hi.head) {
		f = l->hi.head;
	} else if (l->lo.head) {
		f = l->lo.head;
		if ((f->ecn == UET_ECN_ECT0 || f->ecn == UET_ECN_ECT1) &&
		    ecn_decide(&l->cfg, l->lo_bytes - wire_bytes(l, f), rng)) {
			f->ecn = UET_ECN_CE;
			l->marks++;
		}
	} else {
		return UET_PS_NONE;
	}
	l->busy = f;
	return now + uet_link_ser(&l->cfg, f->len);
}

struct uet_frame *uet_link_finish(struct uet_link *l, uet_ps now)
{
	struct uet_frame *f = l->busy;

	uet_link_account(l, now);
	if (f->hi) {
		fifo_pop(&l->hi);
		l->hi_bytes -= wire_bytes(l, f);
	} else {
		fifo_pop(&l->lo);
		l->lo_bytes -= wire_bytes(l, f);
	}
	l->busy = NULL;
	l->tx_frames++;
	l->tx_bytes += wire_bytes(l, f);
	return f;
}
