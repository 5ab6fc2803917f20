/* Initiator role of a PDC, and the sending side of either direction
 * (see ini.h). */
#include <assert.h>
#include <string.h>

#include "uet/err.h"

#include "ini.h"
#include "pds.h"
#include "tgt.h"

/* Does the direction this PDC sends (its rtb) live? The forward one from
 * the first SYN to the CLOSE's ACK; the return one while the target PDC
 * is established (a CLOSE ends it, docs/choices.md §2.4). */
static bool ini_active(const struct uet_pdc *pdc)
{
	if (!pdc->ref.initiator)
		return pdc->state == UET_PDC_EST;
	return pdc->state == UET_PDC_SYN || pdc->state == UET_PDC_EST ||
	       pdc->state == UET_PDC_CLOSING;
}

void uet_ini_heard(struct uet_pdc *pdc, uet_time now)
{
	pdc->heard_at = now;
	pdc->probes = 0;
	pdc->probe_at = UET_TIME_NONE;
}

/* The RTO of a packet resent n times (pds.h: Loss). */
static uet_time ini_rto(const struct uet_pds *pds, const struct uet_pdc *pdc,
			unsigned n)
{
	return uet_pds_backoff(pds, uet_rtt_rto(&pdc->rtt, pds->cfg.rto_min,
						pds->cfg.rto_max), n);
}

/* e leaves the flight (acknowledged, arrived, lost or to be resent).
 * Returns its nominal bytes if it was in flight, else 0. */
static uint32_t ent_land(struct uet_pdc *pdc, struct uet_rtb_ent *e)
{
	if (!(e->fl & UET_RTB_FLIGHT))
		return 0;
	e->fl &= ~UET_RTB_FLIGHT;
	if (e->ev != UET_LB_NONE)
		uet_lb_landed(&pdc->lb, e->ev);
	uet_ccc_land(pdc->ccc, e->size);
	return e->size;
}

uet_time uet_ini_less_service(uet_time rtt, uint16_t service)
{
	uet_time s = (uet_time)service * UET_CCC_SERVICE_NS;

	return s < rtt ? rtt - s : rtt;
}

void uet_ini_leave_ccc(struct uet_pdc *pdc)
{
	struct uet_rtb *rtb = &pdc->rtb;
	uint32_t psn;

	if (!pdc->ccc)
		return;
	for (psn = rtb->base; psn != rtb->next; psn++) {
		struct uet_rtb_ent *e = uet_rtb_get(rtb, psn);

		ent_land(pdc, e);
		if (e->fl & UET_RTB_DUE)
			pdc->ccc->rtx_backlog -= e->size;
	}
	uet_list_del(&pdc->ccc_link);
	uet_ccc_put(pdc->ccc);
	pdc->ccc = NULL;
}

/* The CCC opened up: every PDC of it with packets waiting may go (the
 * one the ACK was for is queued by its caller). Each by its direction:
 * return data needs no credit (rccc.c), so a CCC short of credit for
 * the forward one must still wake the PDCs that carry read data back. */
static void ini_wake_ccc(struct uet_pds *pds, struct uet_ccc *c)
{
	bool fwd = uet_ccc_can_send(c, true), ret = uet_ccc_can_send(c, false);
	struct uet_list *l;

	if (!fwd && !ret)
		return;
	for (l = c->pdcs.next; l != &c->pdcs; l = l->next) {
		struct uet_pdc *p = uet_container_of(l, struct uet_pdc,
						     ccc_link);

		if (!(p->ref.initiator ? fwd : ret))
			continue;
		if (p->tx_want && !uet_list_linked(&p->ready_link))
			uet_pdc_want_tx(pds, p);
		uet_pdc_want_retx(pds, p);
	}
}

bool uet_ini_retx_blocked(struct uet_pdc *pdc)
{
	uint32_t psn;

	/* UE 1.0 §3.6.12.3: a packet marked for resend goes when CC allows,
	 * like new data (the fixed window, a test baseline, never held
	 * them); an ACK_REQ is no data. */
	if (!pdc->ccc || pdc->ccc->ops == &uet_fixed_ops ||
	    !uet_rtb_first_due(&pdc->rtb, &psn) ||
	    !(uet_rtb_get(&pdc->rtb, psn)->fl & UET_RTB_DUE))
		return false;
	/* RCCC: before the target knows the PDC it can grant nothing: the
	 * speculative burst's trims are resent one at a time once it has
	 * landed, and none while a resend trimmed again is paused
	 * (uet_ini_resend), until one arrives and opens the PDC. */
	if (pdc->ref.initiator && uet_ccc_credit_paced(pdc->ccc) &&
	    pdc->state == UET_PDC_SYN)
		return pdc->ccc->inflight_pkts > 0 ||
		       (uet_rtb_next_timer(&pdc->rtb) != UET_TIME_NONE &&
			uet_rtb_tighten(&pdc->rtb) != UET_TIME_NONE);
	return !uet_ccc_can_send(pdc->ccc, pdc->ref.initiator);
}

static void ent_undue(struct uet_pdc *pdc, struct uet_rtb_ent *e)
{
	if (e->fl & (UET_RTB_DUE | UET_RTB_ACKREQ)) {
		if ((e->fl & UET_RTB_DUE) && pdc->ccc)
			pdc->ccc->rtx_backlog -= e->size;
		e->fl &= ~(UET_RTB_DUE | UET_RTB_ACKREQ);
		pdc->rtb.ndue--;
	}
}

static void ent_due(struct uet_pds *pds, struct uet_pdc *pdc,
		    struct uet_rtb_ent *e, uint8_t what)
{
	assert(!(e->fl & (UET_RTB_DUE | UET_RTB_ACKREQ)));
	e->fl |= what;
	if (what & UET_RTB_DUE) {
		pdc->ccc->rtx_backlog += e->size;
		/* RCCC: more to (re)send, perhaps no credit for it */
		uet_ccc_set_backlog(pdc->ccc, pdc->ccc->rccc.backlog, pds->now);
	}
	pdc->rtb.ndue++;
	uet_rtb_set_timer(&pdc->rtb, e, UET_TIME_NONE);
	uet_pdc_want_retx(pds, pdc);
}

/* e goes again at once, for cause: a NACK or a hole under a SACK. The
 * peer answered, so this is not a retry against max_retx. */
static void ent_resend(struct uet_pds *pds, struct uet_pdc *pdc,
		       struct uet_rtb_ent *e, uint8_t cause)
{
	ent_land(pdc, e);
	if (e->nacks < UINT8_MAX)
		e->nacks++;
	e->cause = cause;
	e->backoff = false;
	ent_due(pds, pdc, e, UET_RTB_DUE);
}

/* What one ACK newly tells about the packets it covers. */
struct ini_news {
	uet_time newest;	/* latest first send of one sent once */
	uet_time rack;		/* latest send of one surely arrived */
	uint32_t rack_psn;	/* its PSN: orders packets sent at once */
	uint32_t bytes;		/* nominal bytes newly known arrived */
	uint32_t ecn_psn;	/* the packet the ACK names, if it has M */
	bool ecn;
	bool delay_marks;	/* cfg.lb_delay, and no CE seen on the PDC */
	uet_time late;		/* most a spurious resend's first copy was
				 * late by (ini_reorder_learn), or NONE */
	unsigned spurious;	/* such resends found */
};

/* The PDC's entropy selection (cms/lb.h), set up at its first packet;
 * ROD keeps one path (docs/choices.md §9.4). */
static struct uet_lb *ini_lb(struct uet_pds *pds, struct uet_pdc *pdc)
{
	const struct uet_fep_config *c = &pds->cfg;

	if (!pdc->lb.ops)
		uet_lb_init(&pdc->lb, pdc->rod ? UET_LB_SINGLE : c->lb,
			    c->entropy_count, c->entropy_run, c->trimming,
			    4 * c->rto_min, uet_pds_rand32(pds));
	return &pdc->lb;
}

/* The EV of ours a message takes to leave beside the held ACK that
 * echoes held (ini_pick_ev), or UET_LB_NONE: none held, or the balancer
 * may not take it (ROD's single path, an EV it avoids). */
static uint16_t ini_held_ev(const struct uet_lb *lb, uint16_t held,
			    uet_time now)
{
	uint16_t ev;

	if (held == UET_LB_NONE || !lb->count)
		return UET_LB_NONE;
	ev = (uint16_t)(held % lb->count);
	return uet_lb_may_take(lb, ev, now) ? ev : UET_LB_NONE;
}

/* The EV of a new packet. A message whose sender waits for its ACK, and
 * that a held ACK rides behind (uet_tgt_ack_with), takes the ACK's EV
 * modulo entropy_count until the ACK has gone: uet/net maps an EV to one
 * of its 2^k spray ports by the low bits, and the ACK must echo the
 * request's EV, so only this way do they share a socket and leave in one
 * sendmmsg (pp_median 4 KiB on loopback, where the peer waits for that
 * ACK: 9.9 -> 8.6 us). The rest of the message stays on it up to the
 * balancer's run (lb->run), as the balancer would have kept it: the ACK
 * rides behind the first packet of a long message, and the packets after
 * it went on the balancer's EV, another socket and another system call
 * (16 KiB across a veth at MTU 1500, when the ACK went behind the 4th:
 * 16.9-18.7 -> 15.7-17.7 us). Not for an injected message: then the peer
 * reads the request sooner without the ACK beside it (64 B: 5.9 -> 6.6
 * us). Unless the policy says no. */
static uint16_t ini_pick_ev(struct uet_pds *pds, struct uet_pdc *pdc,
			    struct uet_rtb_ent *e, uet_time now)
{
	struct uet_lb *lb = ini_lb(pds, pdc);
	uint16_t held = uet_tgt_held_entropy(pds, pdc), ev;

	if (!e->pkt.offset) {
		pdc->ack_ev_on = false;
		pdc->ack_ev_n = 0;
		if (e->pkt.waited) {
			pdc->ack_ev = ini_held_ev(lb, held, now);
			pdc->ack_ev_on = pdc->ack_ev != UET_LB_NONE;
		}
	}
	/* Until the ACK has gone, with this packet or on its own, then to
	 * the run's end. */
	if (pdc->ack_ev_on &&
	    (held != UET_LB_NONE || pdc->ack_ev_n < lb->run)) {
		pdc->ack_ev_n++;
		return pdc->ack_ev;
	}
	/* A probe needs packets after it to show it lost at once: not
	 * the last of a burst. Unless nothing is in flight: a PDC that
	 * sends one message at a time has no other way back to an EV
	 * (a healed path). */
	lb->no_probe = !pdc->tx_left && pdc->ccc && pdc->ccc->inflight_pkts;
	ev = uet_lb_next(lb, now);
	lb->no_probe = false;
	e->probe = lb->probation;
	return ev;
}

/* What became of a packet, told to the selection of its entropy. */
static void ini_feed(struct uet_pdc *pdc, const struct uet_rtb_ent *e,
		     enum uet_lb_sig sig, uet_time now)
{
	if (pdc->lb.ops && e->ev != UET_LB_NONE)
		uet_lb_feed(&pdc->lb, e->ev, sig, now);
}

/* Was (t, psn) sent after (rt, rpsn)? Time first, then PSN (RFC 8985
 * §6.2 breaks ties by sequence). */
static bool ini_later(uet_time t, uint32_t psn, uet_time rt, uint32_t rpsn)
{
	return t > rt || (t == rt && uet_psn_gt(psn, rpsn));
}

/* Sent once, and this is the first word that it arrived: when (Karn: the
 * ACK of a packet sent twice may be for either copy), else
 * UET_TIME_NONE. */
static uet_time ent_sample_at(const struct uet_rtb_ent *e)
{
	if (!(e->fl & UET_RTB_SENT) || e->retx || e->nacks ||
	    (e->fl & (UET_RTB_ACKED | UET_RTB_SACKED)))
		return UET_TIME_NONE;
	return e->sent_at;
}

/* The remembered resend by inference of psn, or NULL (pdc.h). */
static struct uet_pdc_inferred *ini_inferred_find(struct uet_pdc *pdc,
						  uint32_t psn)
{
	for (unsigned i = 0; i < UET_PDC_INFERRED; i++)
		if (pdc->inferred[i].sent_at != UET_TIME_NONE &&
		    pdc->inferred[i].psn == psn)
			return &pdc->inferred[i];
	return NULL;
}

/* Found out by timing, or sent again: not for the duplicate's ACK. */
static void ini_forget_inferred(struct uet_pdc *pdc, uint32_t psn)
{
	struct uet_pdc_inferred *r = ini_inferred_find(pdc, psn);

	if (r)
		r->sent_at = UET_TIME_NONE;
}

/* The PDC's median RTT, followed a step of 1/32 at a time (a sample
 * above moves it up, one below down; the smoothed RTT would follow the
 * slow path's samples too). True when sample is half again the
 * median: its path queues more than most. Twice the median, as it
 * was, seldom fired when most paths queued (a window's excess sits in
 * every path's queue, the median with it): kernel ECMP's paths carried
 * what their share of spray ports gave them, one at 60% of its rate
 * beside full ones. A quarter above, paths were marked so often that
 * a cut path's EVs came back sooner than with either. */
static bool ini_rtt_median(struct uet_pdc *pdc, uet_time sample)
{
	uet_time *m = &pdc->rtt_median;

	if (!*m)
		*m = sample;
	else if (sample > *m)
		*m += *m / 32 + 1;
	else
		*m -= *m / 32;
	return 2 * sample > 3 * *m;
}

/* Was the ACK for ack_psn asked for by a message's last packet (AR)?
 * Then the target may have held it for its reply (cfg.ack_hold, a
 * request/response exchange), and the round trips it gives are no
 * queue's (cfg.lb_delay): a ping-pong marked its paths so, and the
 * reply could no longer take the held ACK's socket (ini_pick_ev). */
static bool ini_ack_may_wait(struct uet_rtb *rtb, uint32_t ack_psn)
{
	return uet_rtb_holds(rtb, ack_psn) &&
	       uet_rtb_get(rtb, ack_psn)->pkt.eom;
}

/* e is newly known to have arrived: note what that says. */
static void ini_news_add(struct uet_pdc *pdc,
			 struct uet_rtb_ent *e, uint32_t psn,
			 struct ini_news *nw, uet_time now)
{
	enum uet_lb_sig sig = nw->ecn && psn == nw->ecn_psn ? UET_LB_ECN :
							     UET_LB_ACK;
	uet_time at = ent_sample_at(e);

	/* Resent by inference, and now proved arrived sooner than any copy
	 * sent since could have: the first copy was late, not lost. */
	if (e->inferred && now - e->tx_at < pdc->rtt.min) {
		e->inferred = false;
		ini_forget_inferred(pdc, psn);
		nw->spurious++;
		if (nw->late == UET_TIME_NONE || now - e->sent_at > nw->late)
			nw->late = now - e->sent_at;
	}
	/* cfg.lb_delay: a queue the fabric does not mark shows as delay,
	 * half again the median round trip of the PDC's packets. */
	if (sig == UET_LB_ACK && nw->delay_marks && at != UET_TIME_NONE &&
	    ini_rtt_median(pdc, now - at))
		sig = UET_LB_ECN;
	ini_feed(pdc, e, sig, now);
	if (at != UET_TIME_NONE &&
	    (nw->newest == UET_TIME_NONE || at > nw->newest))
		nw->newest = at;
	/* RACK (RFC 8985 §6.2): the copy that arrived is the latest only
	 * if sent once, or if the answer took at least the smallest RTT. */
	if ((e->fl & UET_RTB_SENT) &&
	    ((!e->retx && !e->nacks) || now - e->tx_at >= pdc->rtt.min) &&
	    (nw->rack == UET_TIME_NONE ||
	     ini_later(e->tx_at, psn, nw->rack, nw->rack_psn))) {
		nw->rack = e->tx_at;
		nw->rack_psn = psn;
	}
	nw->bytes += e->size;
}

/* The ACK for psn arrived: tell SES (reply NULL: cumulative,
 * docs/choices.md §3.5 step 3). */
static void ini_acked(struct uet_pds *pds, struct uet_pdc *pdc, uint32_t psn,
		      const struct uet_ses_reply *reply, struct ini_news *nw,
		      uet_time now)
{
	struct uet_rtb_ent *e = uet_rtb_get(&pdc->rtb, psn);

	/* SACKed before: counted then */
	if (!(e->fl & UET_RTB_SACKED))
		ini_news_add(pdc, e, psn, nw, now);
	ent_land(pdc, e);
	ent_undue(pdc, e);
	uet_rtb_set_timer(&pdc->rtb, e, UET_TIME_NONE);
	e->fl |= UET_RTB_ACKED;
	if (!(e->fl & UET_RTB_CLOSE))
		uet_ses_tx_acked(pds->ses, &pdc->ref, &e->pkt, reply, now);
}

static unsigned ini_sack(struct uet_pdc *pdc, uint32_t base, uint64_t map,
			 struct ini_news *nw, uet_time now)
{
	struct uet_rtb *rtb = &pdc->rtb;
	unsigned i, n = 0;

	for (i = 0; i < 64; i++) {
		uint32_t psn = base + i;
		struct uet_rtb_ent *e;

		if (!(map >> i & 1) || !uet_rtb_holds(rtb, psn))
			continue;
		e = uet_rtb_get(rtb, psn);
		if (e->fl & (UET_RTB_ACKED | UET_RTB_SACKED))
			continue;
		ini_news_add(pdc, e, psn, nw, now);
		/* Arrived: no resend; a pending one is cancelled. */
		e->fl |= UET_RTB_SACKED;
		ent_land(pdc, e);
		ent_undue(pdc, e);
		n++;
	}
	return n;
}

/* One RTT sample per ACK. The packet that made the target ACK (ACK_PSN) is
 * the exact one: also when an RTO resent it, if the ACK does not carry
 * RETX, since then the original made it (the ACK copies the flag from the
 * request that triggered it, docs/choices.md §3.1) - this is how an RTO
 * that fired too early teaches the estimate - and, its latest copy, when
 * NACKs alone had it resent. Otherwise the newest packet sent once that
 * this ACK newly covers. Returns that send time, or UET_TIME_NONE; to be
 * asked before the ACK is applied. */
static uet_time ini_exact(struct uet_pdc *pdc, uint32_t ack_psn, uint8_t flags,
			  uet_time now)
{
	struct uet_rtb *rtb = &pdc->rtb;
	const struct uet_rtb_ent *e;

	if (!uet_rtb_holds(rtb, ack_psn))
		return UET_TIME_NONE;
	e = uet_rtb_get(rtb, ack_psn);
	if (!(e->fl & UET_RTB_SENT) ||
	    (e->fl & (UET_RTB_ACKED | UET_RTB_SACKED)))
		return UET_TIME_NONE;
	if (!e->nacks && !(e->retx && (flags & UET_PDS_F_RETX)))
		return e->sent_at;
	/* Resent only because NACKs refused each earlier copy (trimmed,
	 * no room), and a resend made the target ACK: the latest. Without
	 * it a flow whose every packet was a resend after a trim (a
	 * fat-tree incast's last senders, for milliseconds) had no sample,
	 * and NSCC kept the delay of the queue that trimmed them. */
	if (!e->retx && !e->ghost && (flags & UET_PDS_F_RETX) &&
	    e->tx_at <= now)
		return e->tx_at;
	return UET_TIME_NONE;
}

/* CACK moved: the peer is making progress, so what is still in flight
 * gets a full RTO from now (RFC 6298 §5.3). A packet lost at the head
 * holds CACK, so its own timer runs on. Noted here and applied when a
 * timer runs out (ini_restarted): a walk of the window on every ACK
 * cost as much as the rest of the ACK. */
static void ini_restart(struct uet_pds *pds, struct uet_pdc *pdc,
			uet_time now)
{
	pdc->rtb.restart_at = now;
	pdc->rtb.restart_rto = uet_rtt_rto(&pdc->rtt, pds->cfg.rto_min,
					   pds->cfg.rto_max);
}

/* e's timer ran out: true if the last restart moved it past now (it is
 * set there), false if it really ran out. A NACK's back-off is not an
 * RTO and is not restarted. */
static bool ini_restarted(struct uet_pds *pds, struct uet_pdc *pdc,
			  struct uet_rtb_ent *e, uet_time now)
{
	struct uet_rtb *rtb = &pdc->rtb;
	uet_time at;

	if (e->backoff || rtb->restart_at == UET_TIME_NONE)
		return false;
	at = rtb->restart_at + uet_pds_backoff(pds, rtb->restart_rto, e->retx);
	if (at <= now)
		return false;
	uet_rtb_set_timer(rtb, e, at);
	return true;
}

static void ini_count_resend(struct uet_pds *pds, uint8_t cause)
{
	switch (cause) {
	case UET_RTB_BY_NACK:
		pds->st->retx_nack++;
		break;
	case UET_RTB_BY_SACK:
		pds->st->retx_sack++;
		break;
	case UET_RTB_BY_TLP:
		pds->st->retx_tlp++;
		break;
	default:
		pds->st->retx_rto++;
	}
}

/* How much later than its RTT a packet may arrive behind one sent after
 * it (spraying reorders; a trimmed packet's resend overtakes a queue)
 * before it is taken for lost: a quarter of the smallest RTT (RFC 8985),
 * the RTT's variation, or the lateness spurious resends showed, whichever
 * is largest. */
static uet_time ini_reorder_window(const struct uet_pds *pds,
				   const struct uet_pdc *pdc)
{
	uet_time w = pdc->rtt.min / 4;

	if (pds->cfg.reorder_window)
		return pds->cfg.reorder_window;
	if (pdc->rtt.rttvar > w)
		w = pdc->rtt.rttvar;
	return pdc->reo_learned > w ? pdc->reo_learned : w;
}

/* RFC 8985 §6.2: a resend by inference whose first copy arrived after
 * all was spurious; the copy was late by about its age less the
 * smallest RTT. Paths whose delays differ by more than a quarter RTT
 * (kernel ECMP, queues of milliseconds) need that much window. It
 * halves after 16 loss episodes (an SRTT apart) with no spurious resend
 * found. */
static void ini_reorder_learn(struct uet_pds *pds, struct uet_pdc *pdc,
			      unsigned n, uet_time age)
{
	uet_time late = age > pdc->rtt.min ? age - pdc->rtt.min : 0;
	uet_time rto = ini_rto(pds, pdc, 0);

	pds->st->retx_spurious += n;
	/* Beyond the RTO the timer resends first anyway. */
	if (late > rto)
		late = rto;
	if (late > pdc->reo_learned)
		pdc->reo_learned = late;
	pdc->reo_clean = 0;
}

/* One more inferred loss: a new episode once an SRTT has passed since
 * the last began. */
static void ini_reorder_decay(struct uet_pdc *pdc, uet_time now)
{
	if (now < pdc->reo_episode_end)
		return;
	pdc->reo_episode_end = now + pdc->rtt.srtt;
	if (++pdc->reo_clean >= 16) {
		pdc->reo_learned /= 2;
		pdc->reo_clean = 0;
	}
}

/* A resend by inference: remembered, for the duplicate's ACK. */
static void ini_inferred(struct uet_pdc *pdc, struct uet_rtb_ent *e,
			 uint32_t psn, uet_time now)
{
	struct uet_pdc_inferred *r = &pdc->inferred[pdc->inferred_next];

	if (e->nacks + e->retx > 1)
		return;		/* sent thrice: which copy was late? */
	pdc->inferred_next = (uint8_t)((pdc->inferred_next + 1) %
				       UET_PDC_INFERRED);
	r->psn = psn;
	r->sent_at = e->sent_at;
	r->resent_at = now;
	e->inferred = true;
}

/* The target ACKs a duplicate naming it (DSACK's part), RETX saying
 * which copy came second. The first copy second: it was late, by about
 * its age. The resend second: the first copy arrived before the resend
 * could, and its ACK was late, or lost (a dead path back): its lateness
 * is bounded by the resend's time plus an SRTT, so that each lost ACK
 * grows the window by an SRTT at most, not by all the time since.
 * Looked up among the latest such resends, as a late copy may come back
 * long after its ring slot moved on. */
static void ini_dup_ack(struct uet_pds *pds, struct uet_pdc *pdc,
			uint32_t ack_psn, uint8_t flags, uet_time now)
{
	struct uet_rtb *rtb = &pdc->rtb;
	struct uet_rtb_ent *e = uet_rtb_get(rtb, ack_psn);
	struct uet_pdc_inferred *r;
	uet_time at = now;

	/* Not acknowledged before: not a duplicate's answer. */
	if (uet_rtb_holds(rtb, ack_psn) && !(e->fl & UET_RTB_ACKED))
		return;
	r = ini_inferred_find(pdc, ack_psn);
	if (!r || now < r->sent_at)
		return;
	if (uet_rtb_holds(rtb, ack_psn))
		e->inferred = false;	/* found out: once */
	if ((flags & UET_PDS_F_RETX) && at > r->resent_at + pdc->rtt.srtt)
		at = r->resent_at + pdc->rtt.srtt;
	ini_reorder_learn(pds, pdc, 1, at - r->sent_at);
	r->sent_at = UET_TIME_NONE;
}

/* RACK (RFC 8985) over the SACK bitmap: a packet sent before one that
 * arrived, and older than the RTT plus the reorder window, is lost: it
 * is resent now instead of at its RTO. A live peer is answering, so this
 * does not count against max_retx. Sets rack_at for the next suspect. */
static void ini_infer(struct uet_pds *pds, struct uet_pdc *pdc, uet_time now)
{
	struct uet_rtb *rtb = &pdc->rtb;
	uet_time rtt, wait, at;
	uint32_t psn;

	pdc->rack_at = UET_TIME_NONE;
	/* ROD: the target NACKs the first gap, Go-Back-N does the rest. */
	if (!pds->cfg.loss_infer || pdc->rod || pdc->rack_tx == UET_TIME_NONE ||
	    !pdc->rtt.valid)
		return;
	rtt = pdc->rtt.latest > pdc->rtt.srtt ? pdc->rtt.latest :
						pdc->rtt.srtt;
	wait = rtt + ini_reorder_window(pds, pdc);
	for (psn = rtb->base; psn != rtb->next; psn++) {
		struct uet_rtb_ent *e = uet_rtb_get(rtb, psn);

		/* PSNs go out first in their order, and a resend goes out
		 * after the first copy: from a PSN first sent after the
		 * reference on, every copy of every later PSN was too. */
		if ((e->fl & UET_RTB_SENT) &&
		    !ini_later(pdc->rack_tx, pdc->rack_psn, e->sent_at, psn))
			break;
		if (!(e->fl & UET_RTB_FLIGHT) ||
		    !ini_later(pdc->rack_tx, pdc->rack_psn, e->tx_at, psn))
			continue;
		/* A probe of an EV that lost packets gets no reorder
		 * window: it is more likely lost than late, and while it
		 * is out the window's far end cannot move (a probe into a
		 * cut path held ecmp.sh's sender 7 ms at the PSN span). */
		at = e->tx_at + (e->probe ? rtt : wait);
		if (at > now) {
			if (at < pdc->rack_at)
				pdc->rack_at = at;
			continue;
		}
		pdc->ccc->ops->on_loss(pdc->ccc, e->size, e->sent_at, now);
		ini_feed(pdc, e, UET_LB_LOSS, now);
		ent_undue(pdc, e);
		ent_resend(pds, pdc, e, UET_RTB_BY_SACK);
		ini_inferred(pdc, e, psn, now);
		ini_reorder_decay(pdc, now);
	}
}

/* A tail probe (RFC 8985 §7) is due two RTTs after the last send or ACK,
 * plus the target's ACK delay, while packets are in flight; before the
 * first RTT sample the RTO covers it. Unlike RFC 8985, a probe nothing
 * answered is followed by another, twice as late, up to UET_TLP_MAX
 * before the RTO: each goes on a fresh EV, and over a fabric with a
 * dead path the first probe or its ACK may die too (a quarter of the
 * paths both ways: four in ten), where the RTO is tens of round trips
 * away (rto_min). */
static void ini_arm_tlp(struct uet_pds *pds, struct uet_pdc *pdc, uet_time now)
{
	pdc->tlp_at = UET_TIME_NONE;
	if (!pds->cfg.loss_infer || pdc->rod || !pdc->rtt.valid ||
	    pdc->tlp_n >= UET_TLP_MAX || !pdc->ccc || !pdc->ccc->inflight_pkts)
		return;
	pdc->tlp_at = now + ((2 * pdc->rtt.srtt + pds->cfg.ack_delay)
			     << pdc->tlp_n);
}

/* The probe: the newest packet in flight goes again, asking for its ACK;
 * the SACK that answers shows any hole before it. Not a loss for the
 * CCC: nothing is known lost yet. For the path it is: after two RTTs
 * without a word, where the copy or its ACK (echoing the EV) went is
 * suspect, a loss; a timeout (retired) when it was alone in flight: a
 * PDC that sends one packet at a time has no other way to learn a dead
 * path (no later packet's SACK shows the hole). */
static void ini_tlp(struct uet_pds *pds, struct uet_pdc *pdc, uet_time now)
{
	struct uet_rtb *rtb = &pdc->rtb;
	uint32_t psn;

	pdc->tlp_at = UET_TIME_NONE;
	for (psn = rtb->next; psn != rtb->base;) {
		struct uet_rtb_ent *e = uet_rtb_get(rtb, --psn);

		if (!(e->fl & UET_RTB_FLIGHT) || (e->fl & UET_RTB_CLOSE))
			continue;
		ini_feed(pdc, e, pdc->ccc->inflight_pkts == 1 ?
				 UET_LB_TIMEOUT : UET_LB_LOSS, now);
		ent_land(pdc, e);
		if (e->nacks < UINT8_MAX)
			e->nacks++;
		e->cause = UET_RTB_BY_TLP;
		ent_due(pds, pdc, e, UET_RTB_DUE);
		pdc->tlp_n++;
		return;
	}
}

/* RCCC: a sender without credit asks for it at once when it wants more
 * than it last said (resends), and after an RTO of silence otherwise (a
 * CREDIT got lost). */
static uet_time ini_credit_req_at(struct uet_pds *pds, struct uet_pdc *pdc)
{
	/* Asked first: the RTO below costs more, on every rearm. */
	if (!pdc->ccc || !pdc->ref.initiator || pdc->state != UET_PDC_EST ||
	    !uet_ccc_credit_paced(pdc->ccc))
		return UET_TIME_NONE;
	return uet_ccc_credit_req_at(pdc->ccc, ini_rto(pds, pdc, 0));
}

uet_time uet_ini_send_deadline(struct uet_pds *pds, struct uet_pdc *pdc)
{
	uet_time t = uet_rtb_next_timer(&pdc->rtb), c;

	if (pdc->rack_at < t)
		t = pdc->rack_at;
	if (pdc->tlp_at < t)
		t = pdc->tlp_at;
	c = ini_credit_req_at(pds, pdc);
	if (c < t)
		t = c;
	c = uet_ccc_pace_at(pdc->ccc);	/* CC pacing: the next send */
	return c < t ? c : t;
}

int uet_ini_rx_ack(struct uet_pds *pds, const struct uet_pkt_info *pi,
		   const struct uet_pkt *p, uet_time now)
{
	const struct uet_pds_hdr *h = &p->pds;
	const struct uet_pds_ack *a = &h->ack;
	uint8_t req = h->flags & UET_PDS_F_REQ_MASK;
	struct uet_pdc *pdc;
	struct uet_rtb *rtb;
	struct ini_news nw = { .newest = UET_TIME_NONE,
			       .rack = UET_TIME_NONE, .late = UET_TIME_NONE };
	uint32_t cack, ack_psn, psn;
	uet_time exact, rtt = UET_TIME_NONE;
	unsigned n = 0;

	/* docs/choices.md §3.5 step 1: the PDC (by our id; the FA only,
	 * pds.h: Addresses), its peer, the PSNs. */
	pdc = uet_pdc_find_id(pds, a->dpdcid);
	/* spdcid 0 in the SYN phase: a refusal the target kept no PDC
	 * for (nack.h); it answers, it names nothing. */
	if (!pdc || !ini_active(pdc) ||
	    !uet_pdc_fa_is(pdc, &pi->src) ||
	    (!a->spdcid && pdc->state != UET_PDC_SYN) ||
	    (pdc->state != UET_PDC_SYN && a->spdcid != pdc->rid)) {
		pds->st->drop_pdc++;
		return UET_ERR_INVAL;
	}
	if (h->flags & UET_PDS_F_P) {
		/* The answer to NSCC's base-RTT PROBE (its PSNs mean
		 * nothing); anything else it could answer we never sent. */
		uet_time held = h->type == UET_PDS_ACK_CC &&
				a->cc_type == UET_CC_NSCC ?
				(uet_time)a->cc.service_time *
				UET_CCC_SERVICE_NS : 0;

		if (!uet_nscc_probe_answer(pdc->ccc, a->probe_opaque, held,
					   now)) {
			pds->st->drop_other++;
			return UET_ERR_INVAL;
		}
		pds->st->acks_rx++;
		uet_ini_heard(pdc, now);
		return 0;
	}
	/* docs/choices.md §3.4: at most Max_ACK_Data_Size rides in an
	 * ACK. */
	if (p->has_rsp && p->rsp.format != UET_NH_RSP &&
	    p->payload_len > UET_ACK_DATA_MAX) {
		pds->st->drop_other++;
		return UET_ERR_INVAL;
	}
	rtb = &pdc->rtb;
	cack = a->cack_psn;
	ack_psn = cack + (uint32_t)(int32_t)a->ack_psn_offset;
	if (uet_psn_ge(cack, rtb->next) || uet_psn_ge(ack_psn, rtb->next) ||
	    uet_psn_lt(cack, rtb->start - 1)) {
		pds->st->drop_psn++;
		return UET_ERR_INVAL;
	}
	pds->st->acks_rx++;
	if (pdc->state == UET_PDC_SYN && a->spdcid) {
		/* docs/choices.md §3.5 step 7: the first ACK names the
		 * target's PDC. */
		pdc->rid = a->spdcid;
		pdc->state = UET_PDC_EST;
	}
	pdc->last_act = now;
	uet_ini_heard(pdc, now);

	ini_dup_ack(pds, pdc, ack_psn, h->flags, now);
	exact = ini_exact(pdc, ack_psn, h->flags, now);
	/* The target ACKs a CE packet at once, naming it (pds.h). */
	nw.ecn = h->flags & UET_PDS_F_M;
	nw.ecn_psn = ack_psn;
	if (nw.ecn)
		pdc->ecn_seen = true;
	nw.delay_marks = pds->cfg.lb_delay && !pdc->ecn_seen &&
			 pdc->rtt.valid && !ini_ack_may_wait(rtb, ack_psn);
	pdc->lb.conserve = pds->cfg.lb_delay && !pdc->ecn_seen;
	/* Step 2: ACK_PSN gets the response (once). */
	if (uet_rtb_holds(rtb, ack_psn) &&
	    !(uet_rtb_get(rtb, ack_psn)->fl & UET_RTB_ACKED)) {
		struct uet_ses_reply reply;

		if (p->has_rsp) {
			memset(&reply, 0, sizeof(reply));
			reply.rsp = p->rsp;
			if (p->rsp.format != UET_NH_RSP) {
				reply.data_len = (uint8_t)p->payload_len;
				memcpy(reply.data, p->payload, p->payload_len);
			}
		}
		ini_acked(pds, pdc, ack_psn, p->has_rsp ? &reply : NULL, &nw,
			  now);
		n++;
	}
	if (req == UET_PDS_F_REQ_CLEAR)
		rtb->clear_want = uet_psn_max(rtb->clear_want, ack_psn);
	else if (req == UET_PDS_F_REQ_CLOSE && pdc->ref.initiator)
		pdc->close_wanted = true;
	/* Step 3: everything up to CACK, without a response. */
	for (psn = rtb->base; uet_psn_le(psn, cack); psn++) {
		if (!(uet_rtb_get(rtb, psn)->fl & UET_RTB_ACKED)) {
			ini_acked(pds, pdc, psn, NULL, &nw, now);
			n++;
		}
	}
	/* Step 4: MPR from the newest CACK, then SACK. */
	if (uet_psn_ge(cack, rtb->peer_cack)) {
		rtb->peer_cack = cack;
		if (h->type != UET_PDS_ACK && a->mpr)
			rtb->peer_range = (uint32_t)a->mpr * UET_ACKTR_MPR_UNIT;
	}
	if (h->type != UET_PDS_ACK)
		n += ini_sack(pdc, cack + (uint32_t)(int32_t)a->sack_psn_offset,
			      a->sack_bitmap, &nw, now);
	if (exact == UET_TIME_NONE)
		exact = nw.newest;
	if (exact != UET_TIME_NONE && exact <= now) {
		rtt = now - exact;
		uet_rtt_sample(&pdc->rtt, rtt);
		/* UE 1.0 §3.6.13.1: the network's part, less the time the ACK
		 * was held at the target. */
		if (h->type == UET_PDS_ACK_CC && a->cc_type == UET_CC_NSCC)
			rtt = uet_ini_less_service(rtt, a->cc.service_time);
	}
	/* Step 5: slide; progress restarts the timers of the rest. */
	if (uet_rtb_slide(rtb))
		ini_restart(pds, pdc, now);
	if (n) {
		struct uet_cc_ack ev = {
			.bytes = nw.bytes, .pkts = n, .rtt = rtt,
			.ecn = h->flags & UET_PDS_F_M, .now = now,
		};

		if (h->type == UET_PDS_ACK_CC && a->cc_type == UET_CC_NSCC) {
			ev.pend = a->cc.rcv_cwnd_pend;
			ev.restore = a->cc.restore_cwnd;
		}

		uet_ccc_on_ack(pdc->ccc, &ev);
		/* UE 1.0 §3.6.13.7: a PROBE once the PDC exists. */
		if (pdc->ref.initiator && pdc->state == UET_PDC_EST &&
		    uet_nscc_probe_due(pdc->ccc)) {
			uet_nscc_probe_queued(pdc->ccc);
			uet_pdc_want_ctl(pds, pdc, UET_PDC_CTL_RTT_PROBE);
		}
	}
	if (nw.spurious)
		ini_reorder_learn(pds, pdc, nw.spurious, nw.late);
	/* Any ACK ends a tail probe; what it proves arrived may prove
	 * older packets lost. */
	pdc->tlp_n = 0;
	if (nw.rack != UET_TIME_NONE &&
	    (pdc->rack_tx == UET_TIME_NONE ||
	     ini_later(nw.rack, nw.rack_psn, pdc->rack_tx, pdc->rack_psn))) {
		pdc->rack_tx = nw.rack;
		pdc->rack_psn = nw.rack_psn;
	}
	ini_infer(pds, pdc, now);
	ini_arm_tlp(pds, pdc, now);
	if (n)
		ini_wake_ccc(pds, pdc->ccc);

	/* docs/choices.md §3.5 step 6: CLEAR once every ACK up to the one
	 * asking arrived. */
	if (uet_psn_gt(rtb->clear_want, rtb->clear_sent) &&
	    uet_psn_ge(rtb->base - 1, rtb->clear_want))
		uet_pdc_want_ctl(pds, pdc, UET_PDC_CTL_CLEAR);

	/* Step 7: the ACK of our CLOSE ends the PDC. */
	if (pdc->state == UET_PDC_CLOSING && rtb->base == rtb->next) {
		uet_pdc_free(pds, pdc);
		return 0;
	}
	/* A refusal no PDC keeps (spdcid 0, nack.h): nothing at the target
	 * to overrun; once all is answered this SYN phase is over (its
	 * psn_offset space is finite), a new PDC takes what follows. */
	if (!a->spdcid) {
		rtb->peer_cack = uet_psn_max(rtb->peer_cack, rtb->base - 1);
		if (rtb->base == rtb->next) {
			struct uet_addr peer = pdc->ref.peer;
			bool more = uet_ses_pdc_busy(pds->ses, &pdc->ref);

			uet_pdc_free(pds, pdc);
			if (more)
				uet_pds_wake(pds, &peer, now);
			return 0;
		}
	}
	if (pdc->tx_want)
		uet_pdc_want_tx(pds, pdc);
	uet_pdc_rearm(pds, pdc);
	return 0;
}

int uet_ini_rx_ctrl(struct uet_pds *pds, struct uet_pdc *pdc,
		    const struct uet_pkt_info *pi, const struct uet_pds_hdr *h,
		    uet_time now)
{
	switch (h->next_hdr) {
	case UET_CTL_CLOSE_REQ:
		/* docs/choices.md §2.4: acknowledge, take no new message,
		 * CLOSE once drained. */
		pdc->close_wanted = true;
		pdc->cr_psn = h->ctrl.psn;
		uet_pdc_want_ctl(pds, pdc, UET_PDC_CTL_CRACK);
		break;
	case UET_CTL_CLEAR_REQ:
		uet_pdc_want_ctl(pds, pdc, UET_PDC_CTL_CLEAR);
		break;
	case UET_CTL_ACK_REQ:
	case UET_CTL_CLEAR:
		/* The return direction we receive, like a target its
		 * forward one. */
		uet_ini_heard(pdc, now);
		return uet_tgt_rx_ctrl(pds, pdc, pi, h, now);
	case UET_CTL_CREDIT:
		if (!uet_ccc_credit_paced(pdc->ccc))
			goto unexpected;
		uet_ccc_on_credit(pdc->ccc, h->ctrl.payload, now);
		ini_wake_ccc(pds, pdc->ccc);
		break;
	default:
unexpected:
		/* CLOSE makes no sense at an initiator; PROBE and
		 * CREDIT_REQUEST are the target's to answer. */
		uet_nack_queue(pds, pi, &pdc->ref.peer, UET_NACK_UNEXP_EVENT,
			       h->ctrl.psn, pdc->lid, h->ctrl.spdcid, h->flags,
			       0);
		pds->st->drop_other++;
		return UET_ERR_INVAL;
	}
	pdc->last_act = now;
	uet_ini_heard(pdc, now);
	uet_pdc_rearm(pds, pdc);
	return 0;
}

/* Idle: nothing in flight or queued either way, no control work. */
static bool ini_idle(const struct uet_pdc *pdc)
{
	return (pdc->state == UET_PDC_EST || pdc->state == UET_PDC_SYN) &&
	       !uet_rtb_used(&pdc->rtb) && !pdc->tx_want && !pdc->ctl &&
	       pdc->rx.ack_at == UET_TIME_NONE;
}

/* Close as soon as idle: the peer asked, or another peer waits for a
 * slot of the pool. */
static bool ini_close_now(const struct uet_pds *pds, const struct uet_pdc *pdc)
{
	return pdc->close_wanted || pds->nwaiting;
}

/* When an idle PDC is to be looked at: closed, or (SES busy) probed. */
static uet_time ini_idle_at(const struct uet_pds *pds,
			    const struct uet_pdc *pdc)
{
	if (ini_close_now(pds, pdc))
		return pdc->last_act;
	return pds->cfg.pdc_idle ? pdc->last_act + pds->cfg.pdc_idle :
				   UET_TIME_NONE;
}

uet_time uet_ini_deadline(struct uet_pds *pds, struct uet_pdc *pdc)
{
	uet_time t = uet_ini_send_deadline(pds, pdc), at;

	/* The delayed ACK of return-direction packets. */
	if (!(pdc->ctl & UET_PDC_CTL_ACK) && pdc->rx.ack_at < t)
		t = pdc->rx.ack_at;
	if (ini_idle(pdc)) {
		at = ini_idle_at(pds, pdc);
		if (at < t)
			t = at;
		if (pdc->probe_at < t)
			t = pdc->probe_at;
	}
	return t;
}

/* docs/choices.md §2.4: CLOSE CP with a fresh PSN and AR, tracked like data. */
static void ini_close(struct uet_pds *pds, struct uet_pdc *pdc, uet_time now)
{
	struct uet_rtb_ent *e;

	if (pdc->rtb.next == pdc->rtb.start) {
		/* Never sent anything: the target does not know us. */
		uet_pdc_free(pds, pdc);
		return;
	}
	e = uet_rtb_add(&pdc->rtb);
	assert(e);
	e->fl |= UET_RTB_CLOSE;
	pdc->close_psn = pdc->rtb.next - 1;
	pdc->state = UET_PDC_CLOSING;
	pdc->last_act = now;
	ent_due(pds, pdc, e, UET_RTB_DUE);
}

bool uet_ini_rto(struct uet_pds *pds, struct uet_pdc *pdc, uet_time now)
{
	struct uet_rtb *rtb = &pdc->rtb;
	uint32_t psn;

	if (pdc->rack_at <= now)
		ini_infer(pds, pdc, now);
	if (pdc->tlp_at <= now)
		ini_tlp(pds, pdc, now);
	if (ini_credit_req_at(pds, pdc) <= now) {
		uet_ccc_credit_asked(pdc->ccc, now);	/* again later */
		uet_pdc_want_ctl(pds, pdc, UET_PDC_CTL_CREDIT_REQ);
	}
	if (uet_ccc_pace_at(pdc->ccc) <= now) {
		uet_ccc_pace_over(pdc->ccc);
		ini_wake_ccc(pds, pdc->ccc);
	}

	if (uet_rtb_next_timer(rtb) <= now) {
		/* the walk sets the bound anew: each timer left running
		 * lowers it, and so does each one set meanwhile */
		rtb->rto_at = UET_TIME_NONE;
		for (psn = rtb->base; psn != rtb->next; psn++) {
			struct uet_rtb_ent *e = uet_rtb_get(rtb, psn);

			if (e->fl & UET_RTB_ACKED)
				continue;
			if (e->rto_at > now || ini_restarted(pds, pdc, e, now)) {
				if (e->rto_at < rtb->rto_at)
					rtb->rto_at = e->rto_at;
				continue;
			}
			if (e->backoff) {
				/* A NACK's pause is over: not a loss. */
				e->backoff = false;
				ent_due(pds, pdc, e, UET_RTB_DUE);
				continue;
			}
			/* docs/choices.md §4.1: bounded retries, then close
			 * in error. */
			if (e->retx >= pds->cfg.max_retx) {
				uet_pdc_fail(pds, pdc, 0);
				return false;
			}
			e->retx++;
			if (e->fl & UET_RTB_SACKED) {
				/* It arrived; only its ACK is missing. */
				ent_due(pds, pdc, e, UET_RTB_ACKREQ);
				continue;
			}
			if (e->fl & UET_RTB_FLIGHT)
				pdc->ccc->ops->on_loss(pdc->ccc, e->size,
						       e->sent_at, now);
			/* Its path may be dead: retired (cms/lb.h). */
			ini_feed(pdc, e, UET_LB_TIMEOUT, now);
			ent_land(pdc, e);
			ent_due(pds, pdc, e, UET_RTB_DUE);
		}
	}
	return true;
}

/* SES keeps an idle PDC busy: a message still being put together, or one
 * waiting for something from the target (read data in the return
 * direction, a rendezvous pull). With nothing of ours in flight no RTO
 * would notice a dead target, so after silence (pdc_idle, else rto_max)
 * ask it for the ACK of the last PSN it acknowledged: any answer proves it
 * alive; max_retx + 1 unanswered, backing off like RTOs, fail the PDC,
 * and with it what SES waits for (uet_ses_pdc_closed). Returns false when
 * the PDC failed. */
static bool ini_probe(struct uet_pds *pds, struct uet_pdc *pdc, uet_time now)
{
	uet_time quiet = pds->cfg.pdc_idle ? pds->cfg.pdc_idle :
					     pds->cfg.rto_max;

	if (pdc->state != UET_PDC_EST)
		return true;
	if (now < pdc->heard_at + quiet) {
		pdc->probe_at = pdc->heard_at + quiet;
		return true;
	}
	if (pdc->probe_at != UET_TIME_NONE && now < pdc->probe_at)
		return true;
	if (pdc->probes > pds->cfg.max_retx) {
		uet_pdc_fail(pds, pdc, 0);
		return false;
	}
	pdc->probe_at = now + ini_rto(pds, pdc, pdc->probes);
	pdc->probes++;
	uet_pdc_want_ctl(pds, pdc, UET_PDC_CTL_PROBE);
	return true;
}

void uet_ini_timeout(struct uet_pds *pds, struct uet_pdc *pdc, uet_time now)
{
	if (!uet_ini_rto(pds, pdc, now))
		return;
	uet_tgt_ack_timeout(pds, pdc, now);
	if (!ini_idle(pdc) ||
	    (now < ini_idle_at(pds, pdc) && now < pdc->probe_at))
		return;
	if (uet_ses_pdc_busy(pds->ses, &pdc->ref)) {
		/* Look again later; meanwhile make sure the target is
		 * there. */
		if (now >= ini_idle_at(pds, pdc))
			pdc->last_act = ini_close_now(pds, pdc) ?
				now + pds->cfg.rto_min : now;
		ini_probe(pds, pdc, now);
		return;
	}
	pdc->probe_at = UET_TIME_NONE;
	if (now >= ini_idle_at(pds, pdc))
		ini_close(pds, pdc, now);
}

bool uet_ini_can_send(struct uet_pds *pds, struct uet_pdc *pdc)
{
	const struct uet_rtb *rtb = &pdc->rtb;

	(void)pds;
	if ((pdc->state != UET_PDC_SYN && pdc->state != UET_PDC_EST) ||
	    pdc->close_wanted)
		return false;
	/* docs/choices.md §2.7: the window, the ring, the target's MP_RANGE
	 * from its CACK, and the 12-bit psn_offset while in SYN. */
	return uet_ccc_can_send(pdc->ccc, pdc->ref.initiator) && uet_rtb_used(rtb) <= rtb->mask &&
	       uet_psn_lt(rtb->next, rtb->peer_cack + 1 + rtb->peer_range) &&
	       (pdc->state != UET_PDC_SYN ||
		rtb->next - rtb->start < UET_PDS_SYN_SPAN);
}

/* A control packet of the sending side (docs/protocol.md §4.7): CLOSE,
 * ACK_REQUEST, CLEAR or CREDIT_REQUEST, on this PDC. */
struct ini_cp {
	uint8_t type;			/* enum uet_ctl_type */
	uint8_t flags;			/* UET_PDS_F_* */
	uint32_t psn, payload;
	uint16_t ev;			/* entropy */
	uint16_t opaque;		/* PROBE: echoed in the answer */
};

static ssize_t ini_cp_emit(struct uet_pds *pds, struct uet_pdc *pdc,
			   const struct ini_cp *cp, struct uet_pkt_info *pi,
			   uint8_t *buf, size_t cap, uet_time now)
{
	struct uet_pds_hdr h;

	memset(&h, 0, sizeof(h));
	h.type = UET_PDS_CTRL;
	h.next_hdr = cp->type;
	h.flags = cp->flags;
	h.ctrl.psn = cp->psn;
	h.ctrl.probe_opaque = cp->opaque;
	h.ctrl.spdcid = pdc->lid;
	h.ctrl.dpdcid = pdc->rid;
	h.ctrl.payload = cp->payload;
	return uet_pds_emit(pds, pi, &pdc->ref.peer, cp->ev, &h, NULL, buf,
			    cap, now);
}

/* Build and account the (re)transmission of psn: a request, or the CLOSE
 * CP. */
static ssize_t ini_emit(struct uet_pds *pds, struct uet_pdc *pdc,
			uint32_t psn, struct uet_pkt_info *pi, uint8_t *buf,
			size_t cap, uet_time now)
{
	struct uet_rtb *rtb = &pdc->rtb;
	struct uet_rtb_ent *e = uet_rtb_get(rtb, psn);
	bool resend = e->fl & UET_RTB_SENT, syn;
	uint16_t was_ev = e->fl & UET_RTB_FLIGHT ? e->ev : UET_LB_NONE;
	struct uet_pds_hdr h;
	ssize_t n;
	int hl, sl;

	memset(&h, 0, sizeof(h));
	e->probe = false;
	/* docs/choices.md §3.1: a resend asks for its ACK at once. */
	h.flags = resend ? UET_PDS_F_RETX | UET_PDS_F_AR : 0;
	if (e->fl & UET_RTB_CLOSE) {
		struct ini_cp cp = { .type = UET_CTL_CLOSE, .psn = psn,
				     .flags = h.flags | UET_PDS_F_AR };

		/* Off the path of a CLOSE that went unanswered. */
		cp.ev = uet_lb_resend(ini_lb(pds, pdc),
				      resend ? e->ev : UET_LB_NONE, now);
		n = ini_cp_emit(pds, pdc, &cp, pi, buf, cap, now);
		if (n < 0)
			return n;
		e->ev = cp.ev;
	} else {
		h.type = pdc->rod ? UET_PDS_ROD_REQ : UET_PDS_RUD_REQ;
		/* RCCC: every forward request says how much credit we want
		 * (rccc.c); return data is not credit-paced. */
		if (pdc->ref.initiator && uet_ccc_credit_paced(pdc->ccc)) {
			h.type = pdc->rod ? UET_PDS_ROD_CC_REQ :
					    UET_PDS_RUD_CC_REQ;
			h.req.credit_target =
				uet_ccc_credit_target(pdc->ccc);
			pdc->ccc->rccc.told_q = h.req.credit_target;
		}
		h.next_hdr = e->pkt.next_hdr;
		/* AR on a message's last packet and when the window fills:
		 * nothing else would make the target ACK soon. */
		if (e->pkt.eom || uet_rtb_used(rtb) > rtb->mask ||
		    pdc->ccc->ops->ack_request(pdc->ccc,
			UET_CCC_NOMINAL((uint32_t)cap)))
			h.flags |= UET_PDS_F_AR;
		h.req.psn = psn;
		h.req.spdcid = pdc->lid;
		/* Cumulative CLEAR_PSN: every ACK up to base - 1 is in
		 * (docs/choices.md §3.3, as REF). */
		h.req.clear_psn_offset =
			(int16_t)(int32_t)(rtb->base - 1 - psn);
		syn = pdc->state == UET_PDC_SYN;
		if (syn) {
			/* docs/choices.md §2.3: the target derives
			 * Start_PSN from any SYN. */
			h.flags |= UET_PDS_F_SYN;
			h.req.psn_offset = (uint16_t)(psn - rtb->start);
		} else {
			h.req.dpdcid = pdc->rid;
		}
		hl = uet_pds_hdr_encode(buf, cap, &h);
		if (hl < 0)
			return hl;
		sl = uet_ses_tx_write(pds->ses, &pdc->ref, &e->pkt, buf + hl,
				      cap - (size_t)hl);
		if (sl < 0)
			return sl;
		n = hl + sl;
		memset(pi, 0, sizeof(*pi));
		pi->src = pds->cfg.local;
		pi->dst = pdc->ref.peer;
		/* A resend steps off the entropy that lost it (cms/lb.h).
		 * SYN packets introduce us: from the home port, so that the
		 * target learns our address (pds.h: Addresses); what comes
		 * of them says nothing of a path. */
		pi->entropy = resend ? uet_lb_resend(ini_lb(pds, pdc), e->ev,
						     now) :
				       ini_pick_ev(pds, pdc, e, now);
		e->ev = syn ? UET_LB_NONE : pi->entropy;
		pi->home = syn;
		pi->ecn = pds->cfg.ecn;
		pi->ts = now;
		rtb->clear_sent = uet_psn_max(rtb->clear_sent, rtb->base - 1);
		/* After the message's last packet, so that a short one's
		 * GSO train stays whole; right after the first packet of a
		 * long one (or its run's last, tgt.h; the balancer was set
		 * up by the EV pick above): behind all of it, the ACK would
		 * hold the peer's send completion, and so its next receive,
		 * for the whole message's time. */
		if (pdc->ack_buddy &&
		    (e->pkt.eom || e->pkt.left >= UET_ACK_HOLD_LONG ||
		     ++pdc->ack_buddy_pkts >= pdc->lb.run))
			uet_tgt_ack_with(pds, pdc);
	}
	/* The packet's path: where it is in flight now (cms/lb.h). */
	if (was_ev != UET_LB_NONE)
		uet_lb_landed(&pdc->lb, was_ev);
	if (e->ev != UET_LB_NONE)
		uet_lb_sent(&pdc->lb, e->ev);
	if (!(e->fl & UET_RTB_FLIGHT)) {
		e->fl |= UET_RTB_FLIGHT;
		e->size = (uint16_t)UET_CCC_NOMINAL((uint32_t)n);
		uet_ccc_on_send(pdc->ccc, e->size, resend, pdc->ref.initiator,
				now);
	}
	if (!(e->fl & UET_RTB_SENT))
		e->sent_at = now;
	e->fl |= UET_RTB_SENT;
	uet_rtb_set_timer(rtb, e, now + ini_rto(pds, pdc, e->retx));
	if (resend) {
		ini_count_resend(pds, e->cause);
		if (e->cause != UET_RTB_BY_NACK)
			e->ghost = true;
		/* Two resends: a duplicate no longer tells which copy was
		 * late (ini_dup_ack). */
		if (e->inferred && e->nacks + e->retx > 1) {
			e->inferred = false;
			ini_forget_inferred(pdc, psn);
		}
	} else if (!pdc->ref.initiator)
		pds->st->ret_tx++;
	e->cause = UET_RTB_BY_RTO;
	e->tx_at = now;
	ini_arm_tlp(pds, pdc, now);
	pdc->last_act = now;
	return n;
}

ssize_t uet_ini_poll_ctl(struct uet_pds *pds, struct uet_pdc *pdc,
			 struct uet_pkt_info *pi, uint8_t *buf, size_t cap,
			 uet_time now)
{
	struct uet_rtb *rtb = &pdc->rtb;
	struct uet_pds_hdr h;
	struct uet_lb *lb;
	struct ini_cp cp;

	memset(&h, 0, sizeof(h));
	memset(&cp, 0, sizeof(cp));
	if (pdc->ctl & UET_PDC_CTL_CREDIT_REQ) {
		pdc->ctl &= ~UET_PDC_CTL_CREDIT_REQ;
		if (pdc->state != UET_PDC_EST)
			return 0;
		/* Untracked: the timer asks again while starved. */
		cp.type = UET_CTL_CREDIT_REQ;
		cp.payload = uet_ccc_credit_target(pdc->ccc);
		cp.ev = uet_pdc_entropy(pds, pdc);
		pdc->ccc->rccc.told_q = cp.payload;
		pds->st->credit_req_tx++;
		return ini_cp_emit(pds, pdc, &cp, pi, buf, cap, now);
	}
	if (pdc->ctl & UET_PDC_CTL_PROBE) {
		pdc->ctl &= ~UET_PDC_CTL_PROBE;
		if (pdc->state != UET_PDC_EST)
			return 0;
		/* ini_probe: the ACK of the last PSN acknowledged. */
		cp.type = UET_CTL_ACK_REQ;
		cp.flags = UET_PDS_F_AR;
		cp.psn = rtb->base - 1;
		pdc->last_act = now;
		pds->st->probes_tx++;
		/* Each probe on a fresh pick, off the last one's path if
		 * that went unanswered: a run of them on one dead path
		 * would fail a live PDC. */
		lb = ini_lb(pds, pdc);
		if (pdc->probes > 1 && lb->probe_ev != UET_LB_NONE)
			uet_lb_feed(lb, lb->probe_ev, UET_LB_TIMEOUT, now);
		lb->probe_ev = uet_lb_resend(lb, lb->probe_ev, now);
		cp.ev = lb->probe_ev;
		return ini_cp_emit(pds, pdc, &cp, pi, buf, cap, now);
	}
	if (pdc->ctl & UET_PDC_CTL_RTT_PROBE) {
		pdc->ctl &= ~UET_PDC_CTL_RTT_PROBE;
		if (pdc->state != UET_PDC_EST) {
			pdc->ccc->nscc.probe = UET_NSCC_PROBE_WANT;
			return 0;
		}
		/* Untracked; psn = the last one acknowledged, so that a
		 * target that refuses PROBEs (NACK) names nothing in
		 * flight; payload = the SACK base (wire-format PROBE). */
		cp.type = UET_CTL_PROBE;
		cp.psn = rtb->base - 1;
		cp.payload = rtb->base;
		cp.opaque = uet_nscc_probe_sent(pdc->ccc, now);
		cp.ev = uet_pdc_entropy(pds, pdc);
		return ini_cp_emit(pds, pdc, &cp, pi, buf, cap, now);
	}
	if (pdc->ctl & UET_PDC_CTL_CRACK) {
		pdc->ctl &= ~UET_PDC_CTL_CRACK;
		h.type = UET_PDS_ACK;
		h.ack.cack_psn = pdc->cr_psn;
		h.ack.spdcid = pdc->lid;
		h.ack.dpdcid = pdc->rid;
		pds->st->acks_tx++;
		return uet_pds_emit(pds, pi, &pdc->ref.peer,
				    uet_pdc_entropy(pds, pdc), &h, NULL, buf,
				    cap, now);
	}
	if (pdc->ctl & UET_PDC_CTL_CLEAR) {
		pdc->ctl &= ~UET_PDC_CTL_CLEAR;
		if (pdc->state != UET_PDC_EST && pdc->state != UET_PDC_CLOSING)
			return 0;
		/* docs/protocol.md §4.7, as REF: psn 0, untracked, payload =
		 * CLEAR_PSN. */
		cp.type = UET_CTL_CLEAR;
		cp.payload = rtb->base - 1;
		cp.ev = uet_pdc_entropy(pds, pdc);
		rtb->clear_sent = uet_psn_max(rtb->clear_sent, rtb->base - 1);
		return ini_cp_emit(pds, pdc, &cp, pi, buf, cap, now);
	}
	return 0;
}

ssize_t uet_ini_poll_retx(struct uet_pds *pds, struct uet_pdc *pdc,
			  struct uet_pkt_info *pi, uint8_t *buf, size_t cap,
			  uet_time now)
{
	struct uet_rtb *rtb = &pdc->rtb;
	struct uet_rtb_ent *e;
	struct ini_cp cp;
	uint32_t psn;
	ssize_t n;

	if (!ini_active(pdc) || !uet_rtb_first_due(rtb, &psn))
		return 0;
	e = uet_rtb_get(rtb, psn);
	if (e->fl & UET_RTB_DUE) {
		ent_undue(pdc, e);
		n = ini_emit(pds, pdc, psn, pi, buf, cap, now);
		if (n < 0)
			uet_pdc_fail(pds, pdc, UET_NACK_UNEXP_EVENT);
		return n < 0 ? 0 : n;
	}
	/* docs/choices.md §4.1: SACKed but its ACK is missing: ask for the
	 * ACK. */
	ent_undue(pdc, e);
	memset(&cp, 0, sizeof(cp));
	cp.type = UET_CTL_ACK_REQ;
	cp.psn = psn;
	uet_rtb_set_timer(rtb, e, now + ini_rto(pds, pdc, e->retx));
	pdc->last_act = now;
	/* Not on the path that lost the ACK's request (or the ACK); the
	 * next one, if this goes unanswered too, not on this one's. */
	cp.ev = uet_lb_resend(ini_lb(pds, pdc), e->ev, now);
	e->ev = cp.ev;
	return ini_cp_emit(pds, pdc, &cp, pi, buf, cap, now);
}

/* Payload bytes as the nominal bytes they will take on the wire: packets
 * as full as the PDC's last full one, each with the headers its last
 * data packet had (the largest, 112 bytes, before the first). Exact for
 * the rest of a message, and it must not be more: the target grants up
 * to the largest credit target it heard (../pds/rcp.c), so an excess is
 * credit paced out to a sender that has nothing left to send. The
 * bytes are msgs messages', and each takes a packet at least, an empty
 * one too: counted as nothing, an empty message queued behind another's
 * last packet found less than a packet of credit left and never asked
 * for one. The headers messages cost beyond that count the next
 * packet's target adds. */
static int64_t ini_nominal(const struct uet_pds *pds,
			   const struct uet_pdc *pdc, uint32_t bytes,
			   uint32_t msgs)
{
	uint32_t hdr = pdc->tx_hdr ? pdc->tx_hdr : 112;
	uint32_t per = pdc->tx_full;
	size_t mtu = uet_fep_config_mtu_to(&pds->cfg, &pdc->ref.peer);
	uint64_t pkts;

	if (!per)
		per = mtu > hdr + 16 ? (uint32_t)(mtu - hdr) : 16;
	pkts = ((uint64_t)bytes + per - 1) / per;
	if (pkts < msgs)
		pkts = msgs;
	return (int64_t)bytes + (int64_t)pkts * UET_CCC_NOMINAL(hdr);
}

void uet_ini_more(struct uet_pds *pds, struct uet_pdc *pdc, uet_time now)
{
	const struct uet_ccc *c = pdc->ccc;

	if (c && uet_ccc_credit_paced(c) && c->rccc.backlog < c->mtu)
		uet_ccc_set_backlog(pdc->ccc, c->mtu, now);
	(void)pds;
}

/* pkt.even_max: a held ACK to ride behind our next message goes behind
 * its last packet if that is within the balancer's run, and holds only
 * while the peer has had fewer than ack_every packets; it shares the
 * message's socket only if the message may take its EV (ini_held_ev). */
static uint8_t ini_even_max(struct uet_pds *pds, struct uet_pdc *pdc,
			    uet_time now)
{
	struct uet_lb *lb;
	unsigned k;

	if (!pdc->ack_buddy)
		return 0;
	lb = ini_lb(pds, pdc);
	if (ini_held_ev(lb, uet_tgt_held_entropy(pds, pdc), now) ==
	    UET_LB_NONE)
		return 0;
	k = pds->cfg.ack_every - 1;
	if (k > lb->run)
		k = lb->run;
	return (uint8_t)(k > UINT8_MAX ? UINT8_MAX : k);
}

ssize_t uet_ini_poll_new(struct uet_pds *pds, struct uet_pdc *pdc,
			 struct uet_pkt_info *pi, uint8_t *buf, size_t cap,
			 uet_time now)
{
	struct uet_ses_pkt pkt;
	struct uet_rtb_ent *e;
	uint32_t rest;		/* messages with packets after this one */
	ssize_t n;

	memset(&pkt, 0, sizeof(pkt));
	pkt.even_max = ini_even_max(pds, pdc, now);
	if (uet_ses_tx_next(pds->ses, &pdc->ref, &pkt, now) <= 0) {
		pdc->tx_want = false;
		if (pdc->ref.initiator)
			uet_ccc_set_backlog(pdc->ccc, 0, now);
		return 0;
	}
	e = uet_rtb_add(&pdc->rtb);
	assert(e);
	e->pkt = pkt;
	pdc->tx_left = pkt.len ? (uint32_t)(((uint64_t)pkt.left + pkt.len - 1) /
					    pkt.len) : 0;
	/* RCCC: the request asks for what is left, this packet included */
	if (!pkt.eom && pkt.len)
		pdc->tx_full = (uint16_t)pkt.len;
	rest = pkt.queued + !pkt.eom;
	if (pdc->ref.initiator)
		uet_ccc_set_backlog(pdc->ccc, ini_nominal(pds, pdc, pkt.left +
							   pkt.len, rest + 1),
				    now);
	n = ini_emit(pds, pdc, pdc->rtb.next - 1, pi, buf, cap, now);
	if (n > (ssize_t)pkt.len)
		pdc->tx_hdr = (uint16_t)(n - (ssize_t)pkt.len);
	if (pdc->ref.initiator)
		uet_ccc_set_backlog(pdc->ccc, ini_nominal(pds, pdc, pkt.left,
							   rest), now);
	if (n < 0) {
		/* SES could not write its own packet: nothing will. */
		uet_pdc_fail(pds, pdc, UET_NACK_UNEXP_EVENT);
		return 0;
	}
	return n;
}

void uet_ini_fail_all(struct uet_pds *pds, struct uet_pdc *pdc, uint8_t code)
{
	struct uet_rtb *rtb = &pdc->rtb;
	uint32_t psn;

	for (psn = rtb->base; psn != rtb->next; psn++) {
		struct uet_rtb_ent *e = uet_rtb_get(rtb, psn);

		if (e->fl & UET_RTB_ACKED)
			continue;
		e->fl |= UET_RTB_ACKED;
		if (!(e->fl & UET_RTB_CLOSE))
			uet_ses_tx_failed(pds->ses, &pdc->ref, &e->pkt,
					  UET_ERR_PEER, code);
	}
}

/* NACKs prove the peer alive, so the resends they ask for do not count
 * against max_retx (that bound is for silence, docs/choices.md §4.4): a
 * peer short of buffers is retried, paced up to rto_max, for as long as it
 * answers. */
/* Resend e after base * 2^n (capped at rto_max) instead of now. */
static void ini_pause_from(struct uet_pds *pds, struct uet_pdc *pdc,
			   struct uet_rtb_ent *e, uet_time base, unsigned n,
			   uet_time now)
{
	e->cause = UET_RTB_BY_NACK;
	e->backoff = true;
	ent_land(pdc, e);
	uet_rtb_set_timer(&pdc->rtb, e, now + uet_pds_backoff(pds, base, n));
	if (e->nacks < UINT8_MAX)
		e->nacks++;
	uet_pdc_rearm(pds, pdc);
}

static void ini_pause(struct uet_pds *pds, struct uet_pdc *pdc,
		      struct uet_rtb_ent *e, unsigned n, uet_time now)
{
	ini_pause_from(pds, pdc, e, pds->cfg.rto_min, n, now);
}

bool uet_ini_backoff(struct uet_pds *pds, struct uet_pdc *pdc, uint32_t psn,
		     uint8_t code, uet_time now)
{
	struct uet_rtb_ent *e = uet_rtb_get(&pdc->rtb, psn);
	uet_time base = pds->cfg.rto_min;

	if (e->fl & (UET_RTB_ACKED | UET_RTB_SACKED | UET_RTB_DUE))
		return true;
	/* SES had no buffer for an unexpected message: it has one once the
	 * receive is posted, usually long before rto_min. */
	if (code == UET_NACK_NO_SES_MSG_AVAIL && pds->cfg.nack_retx &&
	    pds->cfg.nack_retx < base)
		base = pds->cfg.nack_retx;
	/* The target is short of something: an immediate resend would be
	 * refused again (spec NACK_RETX_TIME), so pause, doubling. A target
	 * short of a resource says nothing of the network: no CC signal. */
	ini_pause_from(pds, pdc, e, base, e->nacks, now);
	return true;
}

/* The congestion signal of a NACK that asks for a resend. */
static enum uet_cc_nack ini_nack_why(uint8_t code)
{
	switch (code) {
	case UET_NACK_TRIMMED:
		return UET_CC_NACK_TRIM;
	case UET_NACK_TRIMMED_LASTHOP:
		return UET_CC_NACK_TRIM_LASTHOP;
	}
	return UET_CC_NACK_OTHER;
}

bool uet_ini_resend(struct uet_pds *pds, struct uet_pdc *pdc, uint32_t psn,
		    uint8_t code, bool ecn, uet_time now)
{
	struct uet_rtb_ent *e = uet_rtb_get(&pdc->rtb, psn);

	if (e->fl & (UET_RTB_ACKED | UET_RTB_SACKED | UET_RTB_DUE))
		return true;
	/* The target inferred a loss (docs/choices.md §4.2): the same news
	 * as a loss RACK infers, told the same way. */
	if ((e->fl & UET_RTB_FLIGHT) && code == UET_NACK_RCVR_INFER_LOSS) {
		pdc->ccc->ops->on_loss(pdc->ccc, e->size, e->sent_at, now);
		ini_feed(pdc, e, UET_LB_LOSS, now);
	} else if (e->fl & UET_RTB_FLIGHT) {
		uet_time rtt = !e->retx && !e->ghost && e->tx_at <= now ?
			       now - e->tx_at : UET_TIME_NONE;

		pdc->ccc->ops->on_nack(pdc->ccc, e->size, ini_nack_why(code),
				       ecn, rtt, now);
	}
	/* Trimmed on the way: that path is congested (not at the last
	 * hop, which every path shares). */
	if (ini_nack_why(code) == UET_CC_NACK_TRIM)
		ini_feed(pdc, e, UET_LB_TRIM, now);
	/* RCCC, a resend trimmed before the PDC opened: no credit paces
	 * these, and in a large incast every sender's go one after another
	 * into a full queue (1023 senders: a trim every RTT each, for
	 * milliseconds). The next waits rto_min (the first burst's trims
	 * do not count); not doubling, which left the last senders to open
	 * milliseconds behind the others. */
	if (pdc->state == UET_PDC_SYN && uet_ccc_credit_paced(pdc->ccc) &&
	    (e->nacks || e->retx)) {
		ini_pause(pds, pdc, e, 0, now);
		return true;
	}
	/* Trimmed again and again: stop hammering, pace like a back-off,
	 * doubling from rto_min with each NACK beyond max_retx (not with
	 * every NACK the packet ever had: that put a whole incast into
	 * rto_max lockstep). */
	if (e->nacks >= pds->cfg.max_retx) {
		ini_pause(pds, pdc, e, e->nacks - pds->cfg.max_retx, now);
		return true;
	}
	ent_resend(pds, pdc, e, UET_RTB_BY_NACK);
	uet_pdc_rearm(pds, pdc);
	return true;
}

bool uet_ini_rewind(struct uet_pds *pds, struct uet_pdc *pdc, uint32_t psn,
		    uint32_t expected, uet_time now)
{
	struct uet_rtb *rtb = &pdc->rtb;
	uint32_t p;

	(void)psn;
	if (uet_psn_lt(expected, rtb->base))
		expected = rtb->base;
	/* The target NACKs once per expected PSN, and what it expects only
	 * grows: an old or repeated one (a copy, or one that crossed our
	 * last rewind) says nothing new. If the rewind itself got lost, the
	 * RTO takes over. */
	if (!uet_rtb_holds(rtb, expected) ||
	    uet_psn_le(expected, rtb->rewind_psn))
		return true;
	rtb->rewind_psn = expected;
	/* One packet was lost; the rest only came too early: one loss for
	 * the CCC, not one per packet resent. */
	if (uet_rtb_get(rtb, expected)->fl & UET_RTB_FLIGHT) {
		struct uet_rtb_ent *e = uet_rtb_get(rtb, expected);

		pdc->ccc->ops->on_loss(pdc->ccc, e->size, e->sent_at, now);
		ini_feed(pdc, e, UET_LB_LOSS, now);
	}
	/* docs/choices.md §4.3: Go-Back-N from the first PSN the target
	 * lacks. A live peer asked, and rewinds are bounded (expected only
	 * grows): no retry is counted. */
	for (p = expected; p != rtb->next; p++) {
		struct uet_rtb_ent *e = uet_rtb_get(rtb, p);

		if (e->fl & (UET_RTB_ACKED | UET_RTB_SACKED | UET_RTB_DUE) ||
		    !(e->fl & UET_RTB_SENT))
			continue;
		ent_resend(pds, pdc, e, UET_RTB_BY_NACK);
	}
	uet_pdc_rearm(pds, pdc);
	return true;
}
