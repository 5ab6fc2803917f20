/* Target role of a PDC (see tgt.h). */
#include <assert.h>
#include <string.h>

#include "uet/err.h"

#include "ini.h"
#include "pds.h"
#include "rcp.h"
#include "tgt.h"

/* ACK flags copied from the request that triggers the ACK. */
#define ACK_FLAGS_MASK	(UET_PDS_F_M | UET_PDS_F_RETX)

static uint8_t ack_flags_of(const struct uet_pkt_info *pi, uint8_t req_flags)
{
	return (pi->ecn == UET_ECN_CE ? UET_PDS_F_M : 0) |
	       (req_flags & UET_PDS_F_RETX);
}

/* What a duplicate gets when its real response is gone (docs/choices.md §3.6).
 * uet answers RC_OK (REF uses RC_NULL, docs/choices.md §10.5); SES treats any
 * DEFAULT_RESPONSE as success. */
static void default_rsp(struct uet_ses_rsp *rsp, const struct uet_ses_req *req)
{
	memset(rsp, 0, sizeof(*rsp));
	rsp->format = UET_NH_RSP;
	rsp->opcode = UET_SES_DEFAULT_RESPONSE;
	rsp->return_code = UET_RC_OK;
	rsp->list = UET_SES_LIST_EXPECTED;
	if (req) {
		rsp->message_id = req->message_id;
		rsp->job_id = req->job_id;
	}
}

/* A ROD request, with or without CC state. */
static bool tgt_rod(const struct uet_pds_hdr *h)
{
	return h->type == UET_PDS_ROD_REQ || h->type == UET_PDS_ROD_CC_REQ;
}

/* How long an ACK was held, in ACK_CC units, saturating. */
static uint16_t tgt_service(uet_time held)
{
	uet_time u = held / UET_CCC_SERVICE_NS;

	return u > UINT16_MAX ? UINT16_MAX : (uint16_t)u;
}

/* Make the next regular ACK about psn (rsp NULL: no SES response), and
 * send it now or after ack_delay. */
static void tgt_ack(struct uet_pds *pds, struct uet_pdc *pdc, uint32_t psn,
		    const struct uet_ses_rsp *rsp, uint8_t flags,
		    uint16_t entropy, bool now_too, uet_time now)
{
	struct uet_acktr *rx = &pdc->rx;

	if (rx->ack_dup && (pdc->ctl & UET_PDC_CTL_ACK) && rx->ack.psn != psn) {
		rx->dup = rx->ack;
		rx->dup.flags &= UET_PDS_F_RETX;
		uet_pdc_want_ctl(pds, pdc, UET_PDC_CTL_DUP);
	}
	rx->ack_dup = false;
	rx->ack.psn = psn;
	rx->ack_rx_at = now;
	rx->ack.has_rsp = rsp != NULL;
	if (rsp)
		rx->ack.rsp = *rsp;
	/* M sticks until an ACK carries it; RETX is about ACK_PSN only. */
	rx->ack.flags = (rx->ack.flags & UET_PDS_F_M) | flags;
	rx->ack.entropy = entropy;
	if (now_too || !pds->cfg.ack_delay) {
		uet_pdc_want_ctl(pds, pdc, UET_PDC_CTL_ACK);
		rx->ack_at = UET_TIME_NONE;
	} else if (rx->ack_at == UET_TIME_NONE) {
		rx->ack_at = now + pds->cfg.ack_delay;
	}
}

/* docs/choices.md §3.1: an ACK that AR alone asks for waits up to
 * ack_hold for a packet of ours to the same peer (uet_tgt_ack_with), so
 * that a response is not queued behind it. No initiator PDC to that peer:
 * at once. */
static bool tgt_hold_ack(struct uet_pds *pds, struct uet_pdc *pdc,
			 uet_time now)
{
	struct uet_acktr *rx = &pdc->rx;
	struct uet_pdc *ini;

	if (!pds->cfg.ack_hold || pdc->ref.initiator)
		return false;
	ini = uet_pdc_find_ini(pds, &pdc->ref.peer);
	if (!ini)
		return false;
	ini->ack_buddy = pdc->lid;
	ini->ack_buddy_pkts = 0;
	if (rx->ack_at == UET_TIME_NONE || rx->ack_at > now + pds->cfg.ack_hold)
		rx->ack_at = now + pds->cfg.ack_hold;
	return true;
}

/* The target PDC holding an ACK for ini's next packet, or NULL. */
static struct uet_pdc *tgt_holder(const struct uet_pds *pds,
				  const struct uet_pdc *ini)
{
	struct uet_pdc *pdc;

	if (!ini->ack_buddy)
		return NULL;
	pdc = uet_pdc_find_id(pds, ini->ack_buddy);
	if (!pdc || pdc->ref.initiator || pdc->rx.ack_at == UET_TIME_NONE ||
	    !uet_addr_equal(&pdc->ref.peer, &ini->ref.peer))
		return NULL;
	return pdc;
}

uint16_t uet_tgt_held_entropy(const struct uet_pds *pds,
			      const struct uet_pdc *ini)
{
	const struct uet_pdc *pdc = tgt_holder(pds, ini);

	return pdc ? pdc->rx.ack.entropy : UET_LB_NONE;
}

void uet_tgt_ack_with(struct uet_pds *pds, struct uet_pdc *ini)
{
	struct uet_pdc *pdc = tgt_holder(pds, ini);

	ini->ack_buddy = 0;
	if (!pdc)
		return;
	pdc->rx.ack_at = UET_TIME_NONE;
	uet_pdc_want_ctl(pds, pdc, UET_PDC_CTL_ACK);
	uet_pdc_rearm(pds, pdc);
}

static void tgt_nack(struct uet_pds *pds, const struct uet_pkt_info *pi,
		     const struct uet_pds_hdr *h, const struct uet_pdc *pdc,
		     uint8_t code, uint32_t payload)
{
	uet_nack_queue(pds, pi, pdc ? &pdc->ref.peer : NULL, code, h->req.psn,
		       pdc ? pdc->lid : 0, h->req.spdcid, h->flags, payload);
}

/* docs/choices.md §4.2: one hole at most per packet that arrives, each
 * hole once, never in ROD (which has ROD_OOO). The NACK carries neither
 * RETX (a resend already out makes it stale at the initiator) nor M (the
 * ACK reports the packet's mark). */
static void tgt_infer(struct uet_pds *pds, const struct uet_pkt_info *pi,
		      struct uet_pdc *pdc)
{
	struct uet_pkt_info npi = *pi;
	uint32_t lost;

	if (!pds->cfg.rcv_infer || pdc->rod ||
	    !uet_acktr_infer(&pdc->rx, pds->cfg.rcv_infer, &lost))
		return;
	npi.ecn = UET_ECN_NOT_ECT;
	uet_nack_queue(pds, &npi, &pdc->ref.peer, UET_NACK_RCVR_INFER_LOSS,
		       lost, pdc->lid, pdc->rid, 0, 0);
}

/* Find the PDC of a request: by {peer, SPDCID} and Start_PSN for SYN
 * (creating it; a SYN leaves from the initiator's home port), by DPDCID and
 * the peer's FA otherwise (docs/choices.md §2.1, pds.h: Addresses). NULL
 * with *handled set: answered and counted, return that. NACKs what it
 * cannot map, to where it came from; a packet from another FA that claims
 * one of our PDCs is only dropped: answering it would let anyone make us
 * fail the PDCs of a peer whose ids it guessed. */
static struct uet_pdc *tgt_pdc(struct uet_pds *pds,
			       const struct uet_pkt_info *pi,
			       const struct uet_pkt *p, int *handled,
			       uet_time now)
{
	const struct uet_pds_hdr *h = &p->pds;
	const struct uet_pds_req *r = &h->req;
	struct uet_ses_rsp rsp;
	struct uet_pdc *pdc;
	uint32_t start;

	if (!(h->flags & UET_PDS_F_SYN)) {
		pdc = uet_pdc_find_id(pds, r->dpdcid);
		if (!pdc || pdc->ref.initiator || pdc->state == UET_PDC_DEAD) {
			tgt_nack(pds, pi, h, NULL, UET_NACK_INV_DPDCID, 0);
			return NULL;
		}
		if (!uet_pdc_fa_is(pdc, &pi->src))
			return NULL;
		if (r->spdcid != pdc->rid) {
			tgt_nack(pds, pi, h, NULL, UET_NACK_PDC_HDR_MISMATCH,
				 0);
			return NULL;
		}
		uet_pdc_proven(pds, pdc);
		return pdc;
	}
	/* uet uses no reserved PDCs (docs/choices.md §10.4). */
	if (r->pdc_info) {
		tgt_nack(pds, pi, h, NULL, UET_NACK_UNEXP_EVENT, 0);
		return NULL;
	}
	start = r->psn - r->psn_offset;
	pdc = uet_pdc_find_tgt(pds, &pi->src, r->spdcid);
	if (pdc && pdc->state == UET_PDC_CLOSED && pdc->rx.start != start) {
		/* The initiator reused its id for a new PDC. */
		uet_pdc_free(pds, pdc);
		pdc = NULL;
	}
	if (pdc) {
		if (pdc->rx.start == start)
			return pdc;
		tgt_nack(pds, pi, h, pdc, UET_NACK_INVALID_SYN, 0);
		return NULL;
	}
	/* Nothing is made for a SYN a new PDC would not track
	 * (docs/choices.md §2.7)... */
	if (r->psn_offset >= UET_ACKTR_RANGE) {
		tgt_nack(pds, pi, h, NULL, UET_NACK_PSN_OOR_WINDOW, 0);
		pds->st->drop_psn++;
		*handled = UET_ERR_INVAL;
		return NULL;
	}
	/* ... nor for a request that is not for us (JobID, PID, RI): it
	 * gets its refusal in an ACK that no PDC keeps, as often as it
	 * comes. */
	if (!uet_ses_rx_admit(pds->ses, &p->req, &rsp)) {
		uet_nack_queue_refusal(pds, pi, h, &rsp);
		*handled = 0;
		return NULL;
	}
	/* Half-open PDCs have a quota of the pool; past it, newcomers wait
	 * (NACK, backing off) and no PDC in use gives its slot up. */
	pdc = pds->nhalf < pds->half_max ?
		uet_pdc_open(pds, &pi->src, false, tgt_rod(h), r->spdcid,
			     start, now) : NULL;
	if (!pdc && pds->nhalf < pds->half_max) {
		/* A lingering closed PDC may give its slot up. */
		uet_pds_reclaim(pds, false);
		pdc = uet_pdc_open(pds, &pi->src, false,
				   tgt_rod(h), r->spdcid, start,
				   now);
	}
	if (!pdc)
		tgt_nack(pds, pi, h, NULL, UET_NACK_NO_PDC_AVAIL, 0);
	return pdc;
}

/* Find the initiator PDC a return-direction packet (read data) is for:
 * by DPDCID and the peer's FA, like any established packet. A PDC still
 * in its SYN phase learns the target's id from it: the ACK that would
 * have told was lost, and the target names its PDC here just as well. */
static struct uet_pdc *ret_pdc(struct uet_pds *pds,
			       const struct uet_pkt_info *pi,
			       const struct uet_pds_hdr *h)
{
	const struct uet_pds_req *r = &h->req;
	struct uet_pdc *pdc;

	if (h->flags & UET_PDS_F_SYN) {
		/* The return direction has no SYN phase of its own. */
		tgt_nack(pds, pi, h, NULL, UET_NACK_INVALID_SYN, 0);
		return NULL;
	}
	pdc = uet_pdc_find_id(pds, r->dpdcid);
	if (!pdc || !pdc->ref.initiator ||
	    (pdc->state != UET_PDC_SYN && pdc->state != UET_PDC_EST &&
	     pdc->state != UET_PDC_CLOSING)) {
		tgt_nack(pds, pi, h, NULL, UET_NACK_INV_DPDCID, 0);
		return NULL;
	}
	if (!uet_pdc_fa_is(pdc, &pi->src))
		return NULL;
	if (pdc->state == UET_PDC_SYN && r->spdcid) {
		pdc->rid = r->spdcid;
		pdc->state = UET_PDC_EST;
	} else if (r->spdcid != pdc->rid) {
		tgt_nack(pds, pi, h, NULL, UET_NACK_PDC_HDR_MISMATCH, 0);
		return NULL;
	}
	return pdc;
}

/* Room for one more kept response of pdc: a free slot, and fewer than
 * its share held (a peer that never clears must not starve the rest). */
static bool tgt_gtd_room(const struct uet_pds *pds, const struct uet_pdc *pdc)
{
	const struct uet_gtd *g;
	unsigned n = 0;

	if (!pds->gtd.nfree)
		return false;
	for (g = pdc->rx.gtd; g; g = g->next)
		if (++n >= pds->gtd_share)
			return false;
	return true;
}

/* A new request for SES: the forward direction's SES request (its reply
 * in *reply), or return-direction read data (no reply). 0, or the NACK
 * code to refuse it with. */
static int tgt_deliver(struct uet_pds *pds, struct uet_pdc *pdc,
		       const struct uet_pkt *p, struct uet_ses_reply *reply,
		       uet_time now)
{
	int code;

	if (!pdc->ref.initiator) {
		memset(reply, 0, sizeof(*reply));
		default_rsp(&reply->rsp, &p->req);
		code = uet_ses_rx(pds->ses, &pdc->ref, &p->req, p->payload,
				  p->payload_len, reply, now);
		/* sublayer.h: data rides in a response-with-data header, at
		 * most Max_ACK_Data_Size of it. */
		assert(reply->data_len <= UET_ACK_DATA_MAX);
		assert(!reply->data_len || reply->rsp.format != UET_NH_RSP);
		/* A response with data is kept like a guaranteed one
		 * whatever SES said: a duplicate must get the same bytes
		 * back, and SES cannot produce them twice (a fetched atomic
		 * value). */
		if (reply->rsp.format != UET_NH_RSP)
			reply->gtd = true;
		return code;
	}
	code = uet_ses_rx_ret(pds->ses, &pdc->ref, &p->rsp, p->payload,
			      p->payload_len, now);
	if (!code)
		pds->st->ret_rx++;
	return code;
}

unsigned uet_tgt_place(struct uet_pds *pds, uint16_t lid,
		       const struct uet_addr *src, uint16_t rid, bool ret,
		       uint32_t psn, unsigned n, struct uet_pdc_ref **ref)
{
	struct uet_pdc *pdc = uet_pdc_find_id(pds, lid);
	unsigned k;

	if (!pdc || pdc->rod || pdc->rid != rid || pdc->ref.initiator != ret ||
	    !uet_pdc_fa_is(pdc, src) ||
	    (ret ? pdc->state != UET_PDC_EST && pdc->state != UET_PDC_CLOSING :
		   pdc->state != UET_PDC_EST))
		return 0;
	for (k = 0; k < n; k++)
		if (uet_acktr_classify(&pdc->rx, psn + k, false) !=
		    UET_ACKTR_NEW)
			break;
	*ref = &pdc->ref;
	return k;
}

int uet_tgt_rx_req(struct uet_pds *pds, const struct uet_pkt_info *pi,
		   const struct uet_pkt *p, uet_time now)
{
	const struct uet_pds_hdr *h = &p->pds;
	uint32_t psn = h->req.psn;
	uint8_t aflags = ack_flags_of(pi, h->flags);
	struct uet_ses_reply reply;
	struct uet_ses_rsp rsp;
	struct uet_acktr *rx;
	struct uet_pdc *pdc;
	bool ret = p->has_rsp, filled, ack_now;
	int handled = 1;
	int code;

	if (!p->has_req && !p->has_rsp) {
		/* A request that carries no SES header at all. */
		tgt_nack(pds, pi, h, NULL, UET_NACK_UNEXP_EVENT, 0);
		pds->st->drop_other++;
		return UET_ERR_INVAL;
	}
	/* A response with data is the return direction (docs/choices.md §2.5):
	 * read data from the target of one of our PDCs. */
	pdc = ret ? ret_pdc(pds, pi, h) : tgt_pdc(pds, pi, p, &handled, now);
	if (handled <= 0)
		return handled;
	if (!pdc) {
		pds->st->drop_pdc++;
		return UET_ERR_INVAL;
	}
	if (tgt_rod(h) != pdc->rod) {
		tgt_nack(pds, pi, h, pdc, UET_NACK_PDC_MODE_MISMATCH, 0);
		pds->st->drop_pdc++;
		return UET_ERR_INVAL;
	}
	rx = &pdc->rx;
	pdc->last_act = now;
	/* Resends in a row: the peer's backoff, which a closing end's
	 * linger must outlast (uet_pds_linger_until). */
	if (h->flags & UET_PDS_F_RETX)
		pdc->rx_resends += pdc->rx_resends < UINT8_MAX;
	else
		pdc->rx_resends = 0;
	if (ret)
		uet_ini_heard(pdc, now);
	else
		uet_pdc_alive(pds, &pdc->ref.peer);
	/* RCCC: how much credit the sender wants (rcp.h). */
	if (h->type == UET_PDS_RUD_CC_REQ || h->type == UET_PDS_ROD_CC_REQ)
		uet_rcp_want(pds, pdc, h->req.credit_target, now);
	if (pdc->state == UET_PDC_CLOSED) {
		/* docs/choices.md §2.4: nothing after the CLOSE; a late
		 * copy of what came before is only a duplicate. */
		if (uet_psn_gt(psn, pdc->close_psn)) {
			tgt_nack(pds, pi, h, pdc, UET_NACK_CLOSING, 0);
			pds->st->drop_pdc++;
			uet_pdc_rearm(pds, pdc);
			return UET_ERR_INVAL;
		}
		pds->st->dup_rx++;
		default_rsp(&rsp, &p->req);
		tgt_ack(pds, pdc, psn, &rsp, aflags, pi->entropy, true, now);
		uet_pdc_rearm(pds, pdc);
		return 0;
	}
	/* Every request carries CLEAR_PSN (docs/choices.md §3.3). */
	uet_acktr_clear(rx, &pds->gtd,
			psn + (uint32_t)(int32_t)h->req.clear_psn_offset);

	switch (uet_acktr_classify(rx, psn, pdc->rod)) {
	case UET_ACKTR_NEW:
		break;
	case UET_ACKTR_DUP: {
		/* docs/choices.md §3.6: never to SES twice; the kept ACK,
		 * or a default one (none in the return direction: SES
		 * answers read data with nothing). */
		struct uet_gtd *g = uet_acktr_gtd(rx, psn);

		pds->st->dup_rx++;
		if (g) {
			g->resend = true;
			g->flags = aflags;
			g->entropy = pi->entropy;
			uet_pdc_want_ctl(pds, pdc, UET_PDC_CTL_GTD);
		} else {
			/* A refusal that needs no state is made again. */
			if (ret || uet_ses_rx_admit(pds->ses, &p->req, &rsp))
				default_rsp(&rsp, &p->req);
			tgt_ack(pds, pdc, psn, ret ? NULL : &rsp, aflags,
				pi->entropy, true, now);
			rx->ack_dup = true;
		}
		uet_pdc_rearm(pds, pdc);
		return 0;
	}
	case UET_ACKTR_OOO:
		/* ROD: Go-Back-N (docs/choices.md §4.3); payload = the PSN
		 * we wait for. Once per expected PSN: one rewind per loss,
		 * not one per packet behind it. */
		if (uet_acktr_expected(rx) != rx->rod_nacked) {
			rx->rod_nacked = uet_acktr_expected(rx);
			tgt_nack(pds, pi, h, pdc, UET_NACK_ROD_OOO,
				 rx->rod_nacked);
		}
		pds->st->drop_psn++;
		uet_pdc_rearm(pds, pdc);
		return UET_ERR_INVAL;
	case UET_ACKTR_OOR:
	default:
		tgt_nack(pds, pi, h, pdc, h->flags & UET_PDS_F_SYN ?
			 UET_NACK_INVALID_SYN : UET_NACK_PSN_OOR_WINDOW, 0);
		pds->st->drop_psn++;
		uet_pdc_rearm(pds, pdc);
		return UET_ERR_INVAL;
	}

	/* SES may want its response kept: have room before it acts, within
	 * this PDC's share of the pool. */
	if (!ret && !tgt_gtd_room(pds, pdc)) {
		tgt_nack(pds, pi, h, pdc, UET_NACK_NO_GTD_DEL_AVAIL, 0);
		pds->st->drop_other++;
		uet_pdc_rearm(pds, pdc);
		return UET_ERR_AGAIN;
	}
	code = tgt_deliver(pds, pdc, p, &reply, now);
	if (code) {
		/* SES refused it for now: not received (sublayer.h). */
		tgt_nack(pds, pi, h, pdc, code > 0 && code <= 0xFF ?
			 (uint8_t)code : UET_NACK_UNEXP_EVENT, 0);
		pds->st->drop_other++;
		uet_pdc_rearm(pds, pdc);
		return UET_ERR_AGAIN;
	}
	filled = uet_acktr_mark(rx, psn);
	uet_acktr_received(rx, UET_CCC_NOMINAL(p->hdr_len + p->payload_len));
	rx->unacked++;
	if (filled && !(h->flags & UET_PDS_F_RETX))
		uet_acktr_reordered(rx, psn);
	tgt_infer(pds, pi, pdc);
	if (!ret && reply.gtd) {
		/* docs/choices.md §3.3: keep it (before CACK may move), ACK
		 * at once with REQ=CLEAR. */
		struct uet_gtd *g = uet_acktr_keep(rx, &pds->gtd, psn, &reply);

		g->resend = true;
		g->flags = aflags;
		g->entropy = pi->entropy;
		uet_pdc_want_ctl(pds, pdc, UET_PDC_CTL_GTD);
	}
	uet_acktr_advance(rx);
	/* docs/choices.md §3.1 triggers: AR, SYN, RETX, ECN-CE, every
	 * ack_every packets, and a filled hole (the initiator is waiting on
	 * it). */
	ack_now = (h->flags & (UET_PDS_F_SYN | UET_PDS_F_RETX)) ||
		  pi->ecn == UET_ECN_CE || filled ||
		  rx->unacked >= pds->cfg.ack_every;
	if (!ack_now && (h->flags & UET_PDS_F_AR))
		ack_now = !tgt_hold_ack(pds, pdc, now);
	if (ret)
		tgt_ack(pds, pdc, psn, NULL, aflags, pi->entropy, ack_now, now);
	else if (!reply.gtd)
		tgt_ack(pds, pdc, psn, &reply.rsp, aflags, pi->entropy,
			ack_now, now);
	uet_pdc_rearm(pds, pdc);
	return 0;
}

int uet_tgt_rx_trimmed(struct uet_pds *pds, const struct uet_pkt_info *pi,
		       const struct uet_pds_hdr *h, uet_time now)
{
	const struct uet_pds_req *r = &h->req;
	struct uet_pdc *pdc;

	(void)now;
	pdc = h->flags & UET_PDS_F_SYN ?
		uet_pdc_find_tgt(pds, &pi->src, r->spdcid) :
		uet_pdc_find_id(pds, r->dpdcid);
	if (pdc && !uet_pdc_fa_is(pdc, &pi->src)) {
		pds->st->drop_pdc++;
		return UET_ERR_INVAL;
	}
	/* docs/choices.md §4.4: the payload is gone, ask for it again at
	 * once (of either direction: return data reaches an initiator
	 * PDC). */
	tgt_nack(pds, pi, h, pdc, UET_NACK_TRIMMED, 0);
	/* Asked for: not to be inferred lost as well. */
	if (pdc)
		uet_acktr_ask(&pdc->rx, r->psn);
	return 0;
}

int uet_tgt_rx_ctrl(struct uet_pds *pds, struct uet_pdc *pdc,
		    const struct uet_pkt_info *pi, const struct uet_pds_hdr *h,
		    uet_time now)
{
	const struct uet_pds_ctrl *c = &h->ctrl;
	struct uet_acktr *rx = &pdc->rx;
	uint8_t aflags = ack_flags_of(pi, h->flags);
	struct uet_gtd *g;

	pdc->last_act = now;
	uet_pdc_proven(pds, pdc);
	switch (h->next_hdr) {
	case UET_CTL_ACK_REQ:
		/* docs/choices.md §3.6: resend the ACK of c->psn, or say it
		 * never came. */
		if (!uet_acktr_has(rx, c->psn)) {
			uet_nack_queue(pds, pi, &pdc->ref.peer,
				       UET_NACK_PKT_NOT_RCVD, c->psn, pdc->lid,
				       c->spdcid, h->flags, 0);
			break;
		}
		g = uet_acktr_gtd(rx, c->psn);
		if (g) {
			g->resend = true;
			uet_pdc_want_ctl(pds, pdc, UET_PDC_CTL_GTD);
		} else {
			tgt_ack(pds, pdc, c->psn, NULL, aflags, pi->entropy,
				true, now);
		}
		break;
	case UET_CTL_CLEAR:
		/* CACK may move past kept responses: tell at once. */
		if (pdc->state != UET_PDC_CLOSED &&
		    uet_acktr_clear(rx, &pds->gtd, c->payload))
			tgt_ack(pds, pdc, rx->cack, NULL, 0, pi->entropy, true,
				now);
		break;
	case UET_CTL_CLOSE:
		if (pdc->state == UET_PDC_CLOSED) {
			if (c->psn != pdc->close_psn) {
				uet_nack_queue(pds, pi, &pdc->ref.peer,
					       UET_NACK_CLOSING, c->psn,
					       pdc->lid, c->spdcid, h->flags,
					       0);
				break;
			}
		} else if (uet_rtb_used(&pdc->rtb) || pdc->tx_want) {
			/* docs/choices.md §2.4: return data still un-ACKed
			 * or to send: close in error; SES hears of every
			 * such packet. */
			uet_nack_queue(pds, pi, &pdc->ref.peer,
				       UET_NACK_CLOSING_IN_ERR, c->psn,
				       pdc->lid, c->spdcid, h->flags,
				       uet_rtb_used(&pdc->rtb));
			uet_pdc_fail(pds, pdc, UET_NACK_CLOSING_IN_ERR);
			return 0;
		} else {
			/* docs/choices.md §2.4: every forward PSN counts as
			 * cleared; ACK the CLOSE, keep the PDC a while for
			 * late copies, let SES go now. */
			uet_acktr_close(rx, &pds->gtd, c->psn);
			pdc->close_psn = c->psn;
			pdc->state = UET_PDC_CLOSED;
			pdc->linger_until = now + pds->linger;
			if (pdc->ses_open) {
				pdc->ses_open = false;
				uet_ses_pdc_closed(pds->ses, &pdc->ref);
			}
		}
		tgt_ack(pds, pdc, c->psn, NULL, aflags, pi->entropy, true, now);
		break;
	case UET_CTL_PROBE:
		/* UE 1.0 §3.6.13.7: an ACK_CC with flag P echoing the
		 * opaque value, with our CACK and SACK state. */
		if (pdc->state == UET_PDC_CLOSED)
			goto unexpected;
		rx->probe_opaque = c->probe_opaque;
		rx->probe_rx_at = now;
		uet_pdc_want_ctl(pds, pdc, UET_PDC_CTL_PROBE_ACK);
		break;
	case UET_CTL_CREDIT_REQ:
		/* A sender short of credit: what it wants, and an answer
		 * even if nothing new is granted (a CREDIT got lost). */
		if (!uet_rcp_on(pds))
			goto unexpected;
		uet_rcp_want(pds, pdc, c->payload, now);
		uet_pdc_want_ctl(pds, pdc, UET_PDC_CTL_CREDIT);
		break;
	default:
unexpected:
		/* CREDIT, NOOP, CLOSE_REQ: not supported here. */
		uet_nack_queue(pds, pi, &pdc->ref.peer, UET_NACK_UNEXP_EVENT,
			       c->psn, pdc->lid, c->spdcid, h->flags, 0);
		pds->st->drop_other++;
		uet_pdc_rearm(pds, pdc);
		return UET_ERR_INVAL;
	}
	uet_pdc_rearm(pds, pdc);
	return 0;
}

/* When a target PDC ends: its linger, or the reap of a silent initiator
 * (never while return data is in flight or queued: its RTOs watch the
 * initiator), perhaps deferred once (uet_tgt_timeout). */
static uet_time tgt_end(const struct uet_pds *pds, const struct uet_pdc *pdc)
{
	uet_time t;

	if (pdc->state == UET_PDC_CLOSED)
		return pdc->linger_until;
	if (uet_rtb_used(&pdc->rtb) || pdc->tx_want)
		return UET_TIME_NONE;
	/* Initiators that never close (pdc_idle 0) may stay silent. */
	if (pds->reap == UET_TIME_NONE)
		return UET_TIME_NONE;
	/* Half-open and nothing in progress at SES: soon. */
	if (pdc->half && !uet_ses_pdc_busy(pds->ses, &pdc->ref))
		return pdc->last_act + pds->half_reap;
	t = pdc->last_act + pds->reap;
	return pdc->reap_at > t ? pdc->reap_at : t;
}

uet_time uet_tgt_deadline(struct uet_pds *pds, struct uet_pdc *pdc)
{
	uet_time t = pdc->ctl & UET_PDC_CTL_ACK ? UET_TIME_NONE :
						    pdc->rx.ack_at;
	uet_time end = tgt_end(pds, pdc), rto = uet_ini_send_deadline(pds, pdc);

	if (rto < t)
		t = rto;
	return end < t ? end : t;
}

void uet_tgt_ack_timeout(struct uet_pds *pds, struct uet_pdc *pdc,
			 uet_time now)
{
	if (pdc->rx.ack_at <= now) {
		pdc->rx.ack_at = UET_TIME_NONE;
		uet_pdc_want_ctl(pds, pdc, UET_PDC_CTL_ACK);
	}
}

void uet_tgt_timeout(struct uet_pds *pds, struct uet_pdc *pdc, uet_time now)
{
	if (tgt_end(pds, pdc) <= now) {
		/* SES still busy on it (sublayer.h): one more reap period.
		 * Only one per silence: a live initiator that keeps the PDC
		 * probes it (ini.c), so long silence means it is gone, and
		 * its half-sent message must not hold the slot forever. */
		if (pdc->state != UET_PDC_CLOSED &&
		    pdc->reap_at < pdc->last_act + pds->reap &&
		    uet_ses_pdc_busy(pds->ses, &pdc->ref)) {
			pdc->reap_at = now + pds->reap;
		} else {
			/* Closed and lingered, or the initiator went
			 * silent. */
			uet_pdc_free(pds, pdc);
			return;
		}
	}
	/* The return direction's RTOs (read data we send). */
	if (!uet_ini_rto(pds, pdc, now))
		return;
	uet_tgt_ack_timeout(pds, pdc, now);
}

/* The EV an ACK leaves on: the request's, unless our initiator PDC to
 * the same peer lost packets on it lately (cfg.ack_steer). */
static uint16_t tgt_ack_ev(const struct uet_pds *pds,
			   const struct uet_pdc *pdc, uint16_t entropy,
			   uet_time now)
{
	const struct uet_pdc *ini;

	if (!pds->cfg.ack_steer)
		return entropy;
	ini = uet_pdc_find_ini(pds, &pdc->ref.peer);
	return ini && ini->lb.ops ? uet_lb_steer(&ini->lb, entropy, now)
				  : entropy;
}

/* The SACK bitmap of an ACK_CC about psn, and its offset from CACK
 * (uet_acktr_sack_base). */
static void tgt_sack(struct uet_pds_ack *a, const struct uet_acktr *rx,
		     uint32_t psn, unsigned *gaps)
{
	uint32_t base = uet_acktr_sack_base(rx, psn);

	a->sack_psn_offset = (int16_t)(base - rx->cack);
	a->sack_bitmap = uet_acktr_sack(rx, base, gaps);
}

/* One ACK: ACK_CC with a SACK bitmap when PSNs above CACK arrived, and
 * for the first ACK of a PDC (its mpr tells the initiator our MP_RANGE,
 * docs/choices.md §3.2); plain ACK otherwise (docs/protocol.md §4.2,
 * §4.3). */
static ssize_t tgt_emit_ack(struct uet_pds *pds, struct uet_pdc *pdc,
			    uint32_t psn, const struct uet_ses_reply *reply,
			    uint8_t flags, uint16_t entropy,
			    struct uet_pkt_info *pi, uint8_t *buf, size_t cap,
			    uet_time now)
{
	struct uet_acktr *rx = &pdc->rx;
	int32_t off = uet_psn_diff(psn, rx->cack);
	struct uet_pds_hdr h;
	unsigned gaps = 0;
	ssize_t n;

	memset(&h, 0, sizeof(h));
	if (off < INT16_MIN || off > INT16_MAX) {
		/* Too far from CACK to name: CACK alone says enough. */
		off = 0;
		reply = NULL;
	}
	/* A sender with congestion control needs ACK_CC's service time
	 * (UE 1.0 §3.6.13.1); the algorithm is the job's, the same at both
	 * ends. */
	h.type = uet_acktr_holes(rx) || !rx->mpr_told ||
		 pds->cfg.cca != UET_CCA_FIXED ? UET_PDS_ACK_CC : UET_PDS_ACK;
	h.next_hdr = reply ? reply->rsp.format : UET_NH_NONE;
	h.flags = flags & (ACK_FLAGS_MASK | UET_PDS_F_REQ_MASK);
	h.ack.ack_psn_offset = (int16_t)off;
	h.ack.cack_psn = rx->cack;
	h.ack.spdcid = pdc->lid;
	h.ack.dpdcid = pdc->rid;
	if (h.type == UET_PDS_ACK_CC) {
		h.ack.cc_type = UET_CC_NSCC;
		h.ack.mpr = UET_ACKTR_RANGE / UET_ACKTR_MPR_UNIT;
		/* off 0: psn is CACK, or too far from it to name */
		tgt_sack(&h.ack, rx, off ? psn : rx->cack, &gaps);
		if (psn == rx->ack.psn && rx->ack_rx_at <= now)
			h.ack.cc.service_time = tgt_service(now -
							    rx->ack_rx_at);
		h.ack.cc.rcvd_bytes = uet_acktr_rcvd_q(rx);
		h.ack.cc.ooo_count = uet_acktr_ooo(rx);
		/* RCCC: the marks echoed steer the grant rate (rcp.h) */
		uet_rcp_heard(pds, rx, h.flags & UET_PDS_F_M);
	}
	n = uet_pds_emit(pds, pi, &pdc->ref.peer,
			 tgt_ack_ev(pds, pdc, entropy, now), &h, reply, buf,
			 cap, now);
	if (n > 0) {
		pds->st->acks_tx++;
		pds->st->sack_gaps += gaps;
		if (h.type == UET_PDS_ACK_CC)
			rx->mpr_told = true;
	}
	return n;
}

/* The answer to a PROBE: ACK_CC with flag P, probe_opaque where
 * ack_psn_offset would be (the PSN means nothing), CACK and SACK as
 * now, the time held as service time. */
static ssize_t tgt_emit_probe_ack(struct uet_pds *pds, struct uet_pdc *pdc,
				  struct uet_pkt_info *pi, uint8_t *buf,
				  size_t cap, uet_time now)
{
	struct uet_acktr *rx = &pdc->rx;
	struct uet_pds_hdr h;
	unsigned gaps = 0;
	ssize_t n;

	memset(&h, 0, sizeof(h));
	h.type = UET_PDS_ACK_CC;
	h.next_hdr = UET_NH_NONE;
	h.flags = UET_PDS_F_P;
	h.ack.probe_opaque = rx->probe_opaque;
	h.ack.cack_psn = rx->cack;
	h.ack.spdcid = pdc->lid;
	h.ack.dpdcid = pdc->rid;
	h.ack.cc_type = UET_CC_NSCC;
	h.ack.mpr = UET_ACKTR_RANGE / UET_ACKTR_MPR_UNIT;
	tgt_sack(&h.ack, rx, rx->cack, &gaps);	/* from CACK + 1 */
	if (rx->probe_rx_at <= now)
		h.ack.cc.service_time = tgt_service(now - rx->probe_rx_at);
	h.ack.cc.rcvd_bytes = uet_acktr_rcvd_q(rx);
	h.ack.cc.ooo_count = uet_acktr_ooo(rx);
	n = uet_pds_emit(pds, pi, &pdc->ref.peer, uet_pdc_entropy(pds, pdc),
			 &h, NULL, buf, cap, now);
	if (n > 0)
		pds->st->acks_tx++;
	return n;
}

/* The ACK a name says (acktr.h). */
static ssize_t tgt_emit_named(struct uet_pds *pds, struct uet_pdc *pdc,
			      const struct uet_acktr_name *a,
			      struct uet_pkt_info *pi, uint8_t *buf,
			      size_t cap, uet_time now)
{
	struct uet_ses_reply reply;

	memset(&reply, 0, sizeof(reply));
	reply.rsp = a->rsp;
	return tgt_emit_ack(pds, pdc, a->psn, a->has_rsp ? &reply : NULL,
			    a->flags, a->entropy, pi, buf, cap, now);
}

ssize_t uet_tgt_poll_ctl(struct uet_pds *pds, struct uet_pdc *pdc,
			 struct uet_pkt_info *pi, uint8_t *buf, size_t cap,
			 uet_time now)
{
	struct uet_acktr *rx = &pdc->rx;
	struct uet_gtd *g;

	if (pdc->ctl & UET_PDC_CTL_CREDIT) {
		struct uet_pds_hdr h;

		pdc->ctl &= ~UET_PDC_CTL_CREDIT;
		if (pdc->state != UET_PDC_EST)
			return 0;
		/* Untracked like CLEAR: payload = cumulative grant. */
		memset(&h, 0, sizeof(h));
		h.type = UET_PDS_CTRL;
		h.next_hdr = UET_CTL_CREDIT;
		h.ctrl.spdcid = pdc->lid;
		h.ctrl.dpdcid = pdc->rid;
		h.ctrl.payload = pdc->rc_granted_q;
		return uet_pds_emit(pds, pi, &pdc->ref.peer,
				    uet_pdc_entropy(pds, pdc), &h, NULL, buf,
				    cap, now);
	}
	if (pdc->ctl & UET_PDC_CTL_PROBE_ACK) {
		pdc->ctl &= ~UET_PDC_CTL_PROBE_ACK;
		return tgt_emit_probe_ack(pds, pdc, pi, buf, cap, now);
	}
	if (pdc->ctl & UET_PDC_CTL_GTD) {
		for (g = rx->gtd; g && !g->resend; g = g->next)
			;
		if (g) {
			g->resend = false;
			return tgt_emit_ack(pds, pdc, g->psn, &g->reply,
					    g->flags | UET_PDS_F_REQ_CLEAR,
					    g->entropy, pi, buf, cap, now);
		}
		pdc->ctl &= ~UET_PDC_CTL_GTD;
	}
	if (pdc->ctl & UET_PDC_CTL_DUP) {
		pdc->ctl &= ~UET_PDC_CTL_DUP;
		return tgt_emit_named(pds, pdc, &rx->dup, pi, buf, cap, now);
	}
	if (pdc->ctl & UET_PDC_CTL_ACK) {
		ssize_t n;

		pdc->ctl &= ~UET_PDC_CTL_ACK;
		n = tgt_emit_named(pds, pdc, &rx->ack, pi, buf, cap, now);
		rx->ack.flags = 0;
		rx->ack.has_rsp = false;
		rx->ack_dup = false;
		rx->unacked = 0;
		rx->ack_at = UET_TIME_NONE;
		return n;
	}
	return 0;
}
