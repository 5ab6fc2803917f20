/* The PDS of a fep: creation, SES's wake-up, control-packet demux, the
 * transmit phases and the timer heap (see pds.h). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "uet/alloc.h"
#include "uet/err.h"

#include "ini.h"
#include "pds.h"
#include "psn.h"
#include "rcp.h"
#include "tgt.h"

#define GTD_SLOTS_MIN	64u
#define MTU_MIN		(UET_PDS_ACK_CC_LEN + UET_SES_RSP_DATA_LEN)
#define MTU_MAX		65535u
#define RETX_MAX	31u

uint32_t uet_pds_rand32(struct uet_pds *pds)
{
	uint8_t b[4] = { 0 };

	pds->cb->rand(pds->user, b, sizeof(b));
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

uet_time uet_pds_backoff(const struct uet_pds *pds, uet_time base, unsigned n)
{
	uet_time t = base;

	while (n-- && t < pds->cfg.rto_max)
		t = t > pds->cfg.rto_max / 2 ? pds->cfg.rto_max : 2 * t;
	return t < pds->cfg.rto_max ? t : pds->cfg.rto_max;
}

uet_time uet_pds_rto(const struct uet_pds *pds, unsigned n)
{
	return uet_pds_backoff(pds, pds->cfg.rto_min, n);
}

static bool cfg_ok(const struct uet_fep_config *c)
{
	return c->pdc_max && c->pdc_max < 0xFFFF && c->window &&
	       c->window <= UET_PDS_SYN_SPAN && c->rto_min &&
	       c->rto_max >= c->rto_min && c->rto_max != UET_TIME_NONE &&
	       c->max_retx <= RETX_MAX && c->ack_every &&
	       c->entropy_count && c->mtu >= MTU_MIN && c->mtu <= MTU_MAX &&
	       (!c->host_mtu ||
		(c->host_mtu >= c->mtu && c->host_mtu <= MTU_MAX)) &&
	       c->ecn <= UET_ECN_CE && uet_cc_ops_for(c->cca);
}

static void pds_timing(struct uet_pds *pds)
{
	const struct uet_fep_config *c = &pds->cfg;
	unsigned i;

	/* First send to failure: one RTO per try (docs/choices.md §4.1), at
	 * worst: the RTT estimate may lift every one of them up to
	 * rto_max. */
	pds->retry_span = 0;
	for (i = 0; i <= c->max_retx; i++)
		pds->retry_span += c->rto_max;
	/* The initiator closes an idle PDC after pdc_idle and may retry its
	 * CLOSE for retry_span: only a target that heard nothing for longer
	 * than both (twice, for slack) forgets the PDC. */
	pds->reap = c->pdc_idle ? 2 * (c->pdc_idle + pds->retry_span) :
				  UET_TIME_NONE;
	/* A closed target PDC answers a resent CLOSE (its ACK was lost) and
	 * NACKs CLOSING for as long as the initiator may retry. */
	pds->linger = pds->retry_span;
	/* A half-open PDC's initiator either got our ACK and sends without
	 * SYN within pdc_idle (data, a probe or its CLOSE), or still resends
	 * its SYN packets, for retry_span at most: a copy that came after we
	 * forgot the PDC would make a new one and be delivered twice. */
	pds->half_reap = pds->retry_span + c->pdc_idle;
}

int uet_pds_create(struct uet_pds **pdsp, const struct uet_fep_config *cfg,
		   const struct uet_callbacks *cb, void *user,
		   struct uet_fep_stats *st, uet_time now)
{
	struct uet_pds *pds;
	unsigned ngtd;
	int rc;

	if (!cfg_ok(cfg) || !cb || !cb->rand)
		return UET_ERR_INVAL;
	pds = uet_calloc(1, sizeof(*pds));
	if (!pds)
		return UET_ERR_NOMEM;
	pds->cfg = *cfg;
	pds->cb = cb;
	pds->user = user;
	pds->st = st;
	pds->now = now;
	uet_list_init(&pds->ctl_q);
	uet_list_init(&pds->retx_q);
	uet_list_init(&pds->ready_q);
	uet_list_init(&pds->rc_active);
	pds_timing(pds);

	/* Guaranteed responses live about one RTT (until CLEAR). */
	ngtd = 4 * cfg->window;
	if (ngtd < GTD_SLOTS_MIN)
		ngtd = GTD_SLOTS_MIN;
	/* No PDC keeps more than a quarter of them: one whose peer never
	 * advances CLEAR_PSN must not starve the others. */
	pds->gtd_share = ngtd / 4;
	/* Half-open PDCs (a SYN flood) take at most half of the pool: the
	 * rest stays for peers that answered and for our own sends. */
	pds->half_max = cfg->pdc_max < 32 ? cfg->pdc_max : cfg->pdc_max / 2;
	rc = uet_pdc_pool_init(pds);
	if (!rc)
		rc = uet_acktr_pool_init(&pds->gtd, ngtd);
	if (!rc)
		rc = uet_cl_init(pds);
	if (!rc) {
		pds->nacks.cap = UET_NACK_Q_MIN + 4 * cfg->window;
		pds->nacks.ring = uet_calloc(pds->nacks.cap,
					 sizeof(*pds->nacks.ring));
		rc = pds->nacks.ring ? 0 : UET_ERR_NOMEM;
	}
	if (!rc)
		rc = uet_heap_init(&pds->timers, cfg->pdc_max);
	if (!rc) {
		pds->due = uet_calloc(cfg->pdc_max, sizeof(*pds->due));
		rc = pds->due ? 0 : UET_ERR_NOMEM;
	}
	if (rc) {
		uet_pds_destroy(pds);
		return rc;
	}
	*pdsp = pds;
	return 0;
}

size_t uet_pds_cc_info(const struct uet_pds *pds, struct uet_cc_info *out,
		       size_t max)
{
	return uet_ccc_table_info(&pds->cccs, out, max);
}

void uet_pds_attach(struct uet_pds *pds, struct uet_ses *ses)
{
	pds->ses = ses;
}

void uet_pds_destroy(struct uet_pds *pds)
{
	if (!pds)
		return;
	uet_free(pds->due);
	uet_free(pds->nacks.ring);
	uet_cl_fini(pds);
	uet_heap_fini(&pds->timers);
	uet_acktr_pool_fini(&pds->gtd);
	uet_pdc_pool_fini(pds);
	uet_free(pds);
}

static void pds_tick(struct uet_pds *pds, uet_time now)
{
	/* Time is the caller's and only moves forward (docs/architecture.md
	 * §2). */
	assert(now >= pds->now);
	pds->now = now;
}

void uet_pds_reclaim(struct uet_pds *pds, bool own)
{
	unsigned i;

	for (i = 0; i < pds->npdc; i++) {
		struct uet_pdc *pdc = &pds->pdcs[i];

		if (pdc->state == UET_PDC_CLOSED) {
			uet_pdc_free(pds, pdc);
			return;
		}
	}
	for (i = 0; own && i < pds->npdc; i++) {
		struct uet_pdc *pdc = &pds->pdcs[i];

		if (pdc->ref.initiator && pdc->state == UET_PDC_EST &&
		    !pdc->close_wanted && !pdc->tx_want &&
		    !uet_rtb_used(&pdc->rtb) &&
		    !uet_ses_pdc_busy(pds->ses, &pdc->ref)) {
			pdc->close_wanted = true;
			uet_pdc_rearm(pds, pdc);
			return;
		}
	}
}

uet_time uet_pds_linger_until(const struct uet_pds *pds, uet_time quiet)
{
	uet_time end = 0, t;

	for (unsigned i = 0; i < pds->npdc; i++) {
		const struct uet_pdc *pdc = &pds->pdcs[i];
		const struct uet_acktr *rx = &pdc->rx;

		if (pdc->state == UET_PDC_FREE || pdc->state == UET_PDC_DEAD)
			continue;
		/* Its CLEAR_PSN behind what we took: the sender may lack our
		 * ACK and resend. A closed PDC: our ACK of its CLOSE may be
		 * lost. */
		if (pdc->state != UET_PDC_CLOSED &&
		    !uet_psn_gt(rx->cack, rx->clear) &&
		    !uet_psn_gt(rx->max, rx->clear))
			continue;
		/* Each resend in a row doubles the sender's next wait. */
		t = pdc->last_act +
		    (quiet << (pdc->rx_resends < 4 ? pdc->rx_resends : 4));
		if (t > end)
			end = t;
	}
	return end;
}

void uet_pds_wake(struct uet_pds *pds, const struct uet_addr *peer,
		  uet_time now)
{
	struct uet_pdc *pdc;

	/* SES may wake us from any callback, with the last time it saw
	 * (uet_ses_pdc_closed has none): never move our clock back. */
	if (now < pds->now)
		now = pds->now;
	pds_tick(pds, now);
	pdc = uet_pdc_find_ini(pds, peer);
	if (!pdc && uet_pdc_unreachable(pds, peer)) {
		uet_pdc_fail_fast(pds, peer, now);
		return;
	}
	if (!pdc) {
		uint32_t start = UET_PDS_START_MIN + uet_pds_rand32(pds) %
				 (UET_PDS_START_MAX - UET_PDS_START_MIN);

		pdc = uet_pdc_open(pds, peer, true, pds->cfg.rod, 0, start,
				   now);
		if (!pdc) {
			uet_pdc_wait(pds, peer);
			uet_pds_reclaim(pds, true);
			return;
		}
	}
	uet_pdc_want_tx(pds, pdc);
	uet_ini_more(pds, pdc, now);
	uet_pdc_rearm(pds, pdc);
}

int uet_pds_rx_ctrl(struct uet_pds *pds, const struct uet_pkt_info *pi,
		    const struct uet_pds_hdr *h, uet_time now)
{
	const struct uet_pds_ctrl *c = &h->ctrl;
	struct uet_pdc *pdc;

	pds_tick(pds, now);
	/* uet never sends a CP in the SYN phase: nothing can be for us. */
	pdc = h->flags & UET_PDS_F_SYN ? NULL : uet_pdc_find_id(pds, c->dpdcid);
	if (pdc && pdc->state != UET_PDC_DEAD && !uet_pdc_fa_is(pdc, &pi->src)) {
		/* Someone else claims our PDC: never answered (pds.h). */
		pds->st->drop_pdc++;
		return UET_ERR_INVAL;
	}
	if (!pdc || pdc->state == UET_PDC_DEAD ||
	    (pdc->rid && c->spdcid != pdc->rid)) {
		pds->st->drop_pdc++;
		/* CLEAR is untracked (docs/protocol.md §4.7): nobody waits. */
		if (h->next_hdr != UET_CTL_CLEAR)
			uet_nack_queue(pds, pi, NULL, UET_NACK_INV_DPDCID,
				       c->psn, 0, c->spdcid, h->flags, 0);
		return UET_ERR_INVAL;
	}
	return pdc->ref.initiator ? uet_ini_rx_ctrl(pds, pdc, pi, h, now) :
				    uet_tgt_rx_ctrl(pds, pdc, pi, h, now);
}

int uet_pds_rx_trimmed(struct uet_pds *pds, const struct uet_pkt_info *pi,
		       const uint8_t *pkt, size_t len, uet_time now)
{
	struct uet_pds_hdr h;
	int rc;

	pds_tick(pds, now);
	rc = uet_pds_hdr_decode(&h, pkt, len);
	if (rc < 0) {
		pds->st->drop_malformed++;
		return rc;
	}
	if (uet_pds_is_req(h.type))
		return uet_tgt_rx_trimmed(pds, pi, &h, now);
	if (h.type == UET_PDS_RUDI_REQ || h.type == UET_PDS_UUD_REQ)
		return uet_cl_rx_trimmed(pds, pi, &h, now);
	/* ACKs, NACKs and CPs are too short to trim; nothing to answer. */
	pds->st->drop_other++;
	return UET_ERR_INVAL;
}

ssize_t uet_pds_poll_ctl(struct uet_pds *pds, struct uet_pkt_info *pi,
			 uint8_t *buf, size_t cap, uet_time now)
{
	struct uet_list *l;

	pds_tick(pds, now);
	/* The common case, on every packet a sender makes: nothing to say. */
	if (uet_list_empty(&pds->ctl_q) && !pds->cl.ans_n)
		return 0;
	while ((l = uet_list_first(&pds->ctl_q))) {
		struct uet_pdc *pdc = uet_container_of(l, struct uet_pdc,
						       ctl_link);
		ssize_t n;

		/* Both directions: the ACKs of the one we receive, the
		 * CPs of the one we send. */
		n = uet_tgt_poll_ctl(pds, pdc, pi, buf, cap, now);
		if (!n)
			n = uet_ini_poll_ctl(pds, pdc, pi, buf, cap, now);
		/* Round robin: a PDC with more to say goes to the back. */
		uet_list_del(&pdc->ctl_link);
		if (!n)
			pdc->ctl = 0;
		if (pdc->ctl)
			uet_list_add_tail(&pds->ctl_q, &pdc->ctl_link);
		uet_pdc_rearm(pds, pdc);
		if (n)
			return n;
	}
	/* RUDI answers, like ACKs and NACKs. */
	return uet_cl_poll_answer(pds, pi, buf, cap, now);
}

ssize_t uet_pds_poll_retx(struct uet_pds *pds, struct uet_pkt_info *pi,
			  uint8_t *buf, size_t cap, uet_time now)
{
	struct uet_list *l;

	pds_tick(pds, now);
	if (uet_list_empty(&pds->retx_q) && !pds->cl.ndue)
		return 0;
	while ((l = uet_list_first(&pds->retx_q))) {
		struct uet_pdc *pdc = uet_container_of(l, struct uet_pdc,
						       retx_link);
		ssize_t n;

		uet_list_del(&pdc->retx_link);
		n = uet_ini_poll_retx(pds, pdc, pi, buf, cap, now);
		uet_pdc_want_retx(pds, pdc);
		uet_pdc_rearm(pds, pdc);
		if (n)
			return n;
	}
	return uet_cl_poll_retx(pds, pi, buf, cap, now);
}

/* Has the PDC's last new packet ended its entropy run? */
static bool pds_run_over(const struct uet_pdc *pdc)
{
	return pdc->lb.run && uet_lb_run_left(&pdc->lb) == pdc->lb.run;
}

/* cfg.run_whole: must the PDC, about to send a burst, wait until the
 * window holds what is left of its entropy run (or of what SES has to
 * send, if less)? Only while a whole run is in flight, so that ACKs
 * will come to open the window; a window smaller than a run never
 * waits (docs/choices.md §2.8). */
static bool pds_run_waits(const struct uet_pds *pds,
			  const struct uet_pdc *pdc)
{
	const struct uet_ccc *c = pdc->ccc;
	unsigned run = pds->cfg.entropy_run;
	int64_t left;

	if (!pds->cfg.run_whole || pdc->tx_burst || !c || run < 2 ||
	    c->inflight_pkts < run)
		return false;
	left = pdc->lb.run ? uet_lb_run_left(&pdc->lb) : run;
	if (pdc->tx_left < left)
		left = pdc->tx_left;
	return uet_ccc_room(c) < left;
}

ssize_t uet_pds_poll_new(struct uet_pds *pds, struct uet_pkt_info *pi,
			 uint8_t *buf, size_t cap, uet_time now)
{
	struct uet_list *l;
	ssize_t n;

	pds_tick(pds, now);
	/* Connectionless packets take every other turn with the PDCs. */
	pds->cl.turn = !pds->cl.turn;
	if (pds->cl.turn && pds->cl.want) {
		n = uet_cl_poll_new(pds, pi, buf, cap, now);
		if (n)
			return n;
	}
	/* Every PDC visited leaves the queue, so this ends; those that sent
	 * a run of packets go to the back (round robin), blocked ones come
	 * back when an ACK opens their window, idle ones when SES wakes
	 * them. A run is what one entropy carries (cfg.entropy_run): one
	 * socket, so one system call or GSO train, where two PDCs taking
	 * turns packet by packet (a fep that reads and answers reads at
	 * once) made a system call of every packet. */
	while ((l = uet_list_first(&pds->ready_q))) {
		struct uet_pdc *pdc = uet_container_of(l, struct uet_pdc,
						       ready_link);

		uet_list_del(&pdc->ready_link);
		if (!pdc->tx_want || !uet_ini_can_send(pds, pdc) ||
		    pds_run_waits(pds, pdc)) {
			pdc->tx_burst = 0;
			continue;
		}
		n = uet_ini_poll_new(pds, pdc, pi, buf, cap, now);
		if (n > 0 && pdc->tx_want) {
			/* The turn ends with the EV's run, so that the next
			 * turn begins a run (cfg.run_whole waits for all of
			 * it). */
			if (++pdc->tx_burst < pds->cfg.entropy_run &&
			    !pds_run_over(pdc)) {
				uet_list_add(&pds->ready_q, &pdc->ready_link);
			} else {
				pdc->tx_burst = 0;
				uet_list_add_tail(&pds->ready_q,
						  &pdc->ready_link);
			}
		} else {
			pdc->tx_burst = 0;
		}
		uet_pdc_rearm(pds, pdc);
		if (n)
			return n;
	}
	return pds->cl.turn || !pds->cl.want ? 0 :
	       uet_cl_poll_new(pds, pi, buf, cap, now);
}

uet_time uet_pds_next_timeout(const struct uet_pds *pds)
{
	const struct uet_heap_node *nd = uet_heap_top(&pds->timers);
	uet_time t = nd ? nd->key : UET_TIME_NONE, c;

	c = uet_cl_next_timeout(pds);
	if (c < t)
		t = c;
	c = uet_rcp_next(pds);
	return c < t ? c : t;
}

void uet_pds_handle_timeout(struct uet_pds *pds, uet_time now)
{
	struct uet_heap_node *nd;
	unsigned n = 0, i;

	pds_tick(pds, now);
	/* Take every due PDC off the heap first, so that each is handled at
	 * most once per call whatever its handler re-arms. */
	while ((nd = uet_heap_top(&pds->timers)) && nd->key <= now) {
		struct uet_pdc *pdc = uet_container_of(nd, struct uet_pdc,
						       timer);

		uet_heap_set(&pds->timers, nd, UET_TIME_NONE);
		pdc->due = true;
		pds->due[n++] = pdc;
	}
	for (i = 0; i < n; i++) {
		struct uet_pdc *pdc = pds->due[i];

		/* A handler may have freed (or reused) a later slot. */
		if (!pdc->due)
			continue;
		pdc->due = false;
		uet_pdc_timeout(pds, pdc, now);
	}
	uet_cl_timeout(pds, now);
	uet_rcp_run(pds, now);
}

ssize_t uet_pds_emit(struct uet_pds *pds, struct uet_pkt_info *pi,
		     const struct uet_addr *dst, uint16_t entropy,
		     const struct uet_pds_hdr *h,
		     const struct uet_ses_reply *reply, uint8_t *buf,
		     size_t cap, uet_time now)
{
	size_t dlen = 0;
	struct uet_pkt p;
	int n;

	memset(&p, 0, sizeof(p));
	p.pds = *h;
	if (reply) {
		p.has_rsp = true;
		p.rsp = reply->rsp;
		/* The data is the payload; its length is the SES header's. */
		if (p.rsp.format != UET_NH_RSP) {
			dlen = reply->data_len;
			p.rsp.payload_length = (uint16_t)dlen;
		}
	}
	n = uet_pkt_encode(buf, cap, &p);
	if (n < 0)
		return n;
	if ((size_t)n + dlen > cap)
		return UET_ERR_WIRE_NOSPACE;
	if (dlen)
		memcpy(buf + n, reply->data, dlen);
	n += (int)dlen;
	memset(pi, 0, sizeof(*pi));
	pi->src = pds->cfg.local;
	pi->dst = *dst;
	pi->entropy = entropy;
	pi->ecn = pds->cfg.ecn;
	pi->ts = now;
	return n;
}

void uet_pds_wake_pdc(struct uet_pds *pds, struct uet_pdc_ref *ref,
		      uet_time now)
{
	struct uet_pdc *pdc = uet_container_of(ref, struct uet_pdc, ref);

	if (now < pds->now)
		now = pds->now;
	pds_tick(pds, now);
	/* Return data rides a live target PDC only: a closed or failing
	 * one has told SES (uet_ses_pdc_closed) or is telling it. */
	if (ref->initiator || pdc->state != UET_PDC_EST)
		return;
	uet_pdc_want_tx(pds, pdc);
	uet_pdc_rearm(pds, pdc);
}
