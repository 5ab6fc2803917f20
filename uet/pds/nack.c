/* NACK queue and the initiator's reaction to NACKs (see nack.h). */
#include <string.h>

#include "uet/err.h"

#include "cl.h"
#include "ini.h"
#include "nack.h"
#include "pds.h"

enum uet_nack_class uet_nack_class(uint8_t code)
{
	switch (code) {
	/* The packet is known lost: resend at once (trimming exists so
	 * that this is fast, docs/choices.md §4.4). */
	case UET_NACK_TRIMMED:
	case UET_NACK_TRIMMED_LASTHOP:
	case UET_NACK_TRIMMED_ACK:
	case UET_NACK_PKT_NOT_RCVD:
	case UET_NACK_RCVR_INFER_LOSS:
	case UET_NACK_ACK_WITH_DATA:
	case UET_NACK_EXP_NORMAL:
		return UET_NACK_RESEND;
	/* The target is short of a resource: an immediate resend would be
	 * refused again, so back off like an RTO (spec NACK_RETX_TIME). */
	case UET_NACK_NO_PDC_AVAIL:
	case UET_NACK_NO_CCC_AVAIL:
	case UET_NACK_NO_BITMAP:
	case UET_NACK_NO_PKT_BUFFER:
	case UET_NACK_NO_GTD_DEL_AVAIL:
	case UET_NACK_NO_SES_MSG_AVAIL:
	case UET_NACK_NO_RESOURCE:
	case UET_NACK_PSN_OOR_WINDOW:
	case UET_NACK_EXP_ERR:
		return UET_NACK_BACKOFF;
	case UET_NACK_ROD_OOO:
		return UET_NACK_REWIND;
	case UET_NACK_RCVD_SES_PROCG:
		return UET_NACK_IGNORE;
	/* INV_DPDCID, PDC_HDR_MISMATCH, INVALID_SYN, PDC_MODE_MISMATCH,
	 * CLOSING, CLOSING_IN_ERR, GTD_RESP_UNAVAIL, UNEXP_EVENT,
	 * NEW_START_PSN (uet has no secure PDCs), EXP_FATAL, unknown. */
	default:
		return UET_NACK_FATAL;
	}
}

static struct uet_nack_ent *nack_push(struct uet_pds *pds,
				       const struct uet_pkt_info *pi,
				       const struct uet_addr *dst,
				       uint8_t code, uint32_t psn,
				       uint16_t our_id, uint16_t their_id,
				       uint8_t req_flags, uint32_t payload)
{
	struct uet_nack_q *q = &pds->nacks;
	struct uet_nack_ent *n;

	if (q->n == q->cap) {
		/* The initiator's RTO covers a NACK we could not send. */
		pds->st->drop_other++;
		return NULL;
	}
	n = &q->ring[(q->head + q->n++) % q->cap];
	memset(n, 0, sizeof(*n));
	n->dst = dst ? *dst : pi->src;
	n->psn = psn;
	n->payload = payload;
	n->spdcid = our_id;
	n->dpdcid = their_id;
	/* The offending packet's entropy and RETX (docs/protocol.md §4.5). */
	n->entropy = pi->entropy;
	n->code = code;
	n->flags = (req_flags & UET_PDS_F_RETX) |
		   (pi->ecn == UET_ECN_CE ? UET_PDS_F_M : 0);
	return n;
}

void uet_nack_queue(struct uet_pds *pds, const struct uet_pkt_info *pi,
		    const struct uet_addr *dst, uint8_t code, uint32_t psn,
		    uint16_t our_id, uint16_t their_id, uint8_t req_flags,
		    uint32_t payload)
{
	nack_push(pds, pi, dst, code, psn, our_id, their_id, req_flags,
		  payload);
}

void uet_nack_queue_refusal(struct uet_pds *pds, const struct uet_pkt_info *pi,
			    const struct uet_pds_hdr *h,
			    const struct uet_ses_rsp *rsp)
{
	struct uet_nack_ent *n;

	n = nack_push(pds, pi, NULL, 0, h->req.psn, 0, h->req.spdcid,
		      h->flags, 0);
	if (!n)
		return;
	n->refusal = true;
	n->rsp = *rsp;
	n->cack = h->req.psn - h->req.psn_offset - 1;
}

/* The stateless answer of a refused SYN: no PDC, so spdcid 0 (the
 * initiator stays in its SYN phase) and nothing cumulative. */
static ssize_t nack_refusal(struct uet_pds *pds, struct uet_pkt_info *pi,
			    const struct uet_nack_ent *n, uint8_t *buf,
			    size_t cap, uet_time now)
{
	struct uet_ses_reply reply;
	struct uet_pds_hdr h;

	memset(&h, 0, sizeof(h));
	memset(&reply, 0, sizeof(reply));
	reply.rsp = n->rsp;
	h.type = UET_PDS_ACK;
	h.next_hdr = UET_NH_RSP;
	h.flags = n->flags;
	h.ack.ack_psn_offset = (int16_t)(n->psn - n->cack);
	h.ack.cack_psn = n->cack;
	h.ack.dpdcid = n->dpdcid;
	return uet_pds_emit(pds, pi, &n->dst, n->entropy, &h, &reply, buf,
			    cap, now);
}

ssize_t uet_nack_poll(struct uet_pds *pds, struct uet_pkt_info *pi,
		      uint8_t *buf, size_t cap, uet_time now)
{
	struct uet_nack_q *q = &pds->nacks;
	const struct uet_nack_ent *n;
	struct uet_pds_hdr h;
	ssize_t len;

	if (!q->n)
		return 0;
	n = &q->ring[q->head];
	if (n->refusal) {
		len = nack_refusal(pds, pi, n, buf, cap, now);
		if (len < 0)
			return len;
		q->head = (q->head + 1) % q->cap;
		q->n--;
		pds->st->acks_tx++;
		return len;
	}
	memset(&h, 0, sizeof(h));
	h.type = UET_PDS_NACK;
	h.flags = n->flags;
	h.nack.code = n->code;
	h.nack.psn = n->psn;
	h.nack.spdcid = n->spdcid;
	h.nack.dpdcid = n->dpdcid;
	h.nack.payload = n->payload;
	len = uet_pds_emit(pds, pi, &n->dst, n->entropy, &h, NULL, buf, cap,
			   now);
	if (len < 0)
		return len;
	q->head = (q->head + 1) % q->cap;
	q->n--;
	pds->st->nacks_tx++;
	return len;
}

int uet_nack_rx(struct uet_pds *pds, const struct uet_pkt_info *pi,
		const struct uet_pds_hdr *h, uet_time now)
{
	const struct uet_pds_nack *k = &h->nack;
	enum uet_nack_class cls = uet_nack_class(k->code);
	struct uet_rtb_ent *e;
	struct uet_pdc *pdc;

	if (h->flags & UET_PDS_F_NT)
		return uet_cl_rx_nack(pds, pi, h, now);
	/* By our id and the peer's FA (pds.h: Addresses); a NACK names
	 * the peer's PDC unless the peer had none (spdcid 0). At an
	 * initiator PDC it is about the forward direction, at a target PDC
	 * about the return direction we send. */
	pdc = uet_pdc_find_id(pds, k->dpdcid);
	if (!pdc || !uet_pdc_fa_is(pdc, &pi->src) ||
	    (k->spdcid && pdc->rid && k->spdcid != pdc->rid) ||
	    (pdc->ref.initiator ? pdc->state != UET_PDC_SYN &&
	     pdc->state != UET_PDC_EST && pdc->state != UET_PDC_CLOSING :
	     pdc->state != UET_PDC_EST)) {
		pds->st->drop_pdc++;
		return UET_ERR_INVAL;
	}
	pds->st->nacks_rx++;
	if (pdc->ref.initiator) {
		/* The target is there. If it refuses a liveness probe (the
		 * PSN before base) for good, it forgot the PDC. */
		bool probe = pdc->probes && k->psn == pdc->rtb.base - 1;

		uet_ini_heard(pdc, now);
		if (probe && cls == UET_NACK_FATAL) {
			uet_pdc_fail(pds, pdc, k->code);
			return 0;
		}
	}
	/* docs/choices.md §2.7 (a spec MUST): a NACK outside what is in
	 * flight, or for a packet already acknowledged, changes nothing. */
	if (!uet_rtb_holds(&pdc->rtb, k->psn))
		return 0;
	e = uet_rtb_get(&pdc->rtb, k->psn);
	if (e->fl & UET_RTB_ACKED)
		return 0;
	/* A NACK of the first copy once a resend is out is stale. */
	if ((cls == UET_NACK_RESEND || cls == UET_NACK_BACKOFF) &&
	    !(h->flags & UET_PDS_F_RETX) && (e->retx || e->nacks))
		return 0;

	switch (cls) {
	case UET_NACK_RESEND:
		uet_ini_resend(pds, pdc, k->psn, k->code,
			       h->flags & UET_PDS_F_M, now);
		break;
	case UET_NACK_BACKOFF:
		uet_ini_backoff(pds, pdc, k->psn, k->code, now);
		break;
	case UET_NACK_REWIND:
		if (pdc->rod)
			uet_ini_rewind(pds, pdc, k->psn, k->payload, now);
		else
			uet_ini_resend(pds, pdc, k->psn, k->code,
				       h->flags & UET_PDS_F_M, now);
		break;
	case UET_NACK_IGNORE:
		break;
	case UET_NACK_FATAL:
	default:
		if (pdc->state == UET_PDC_CLOSING &&
		    (e->fl & UET_RTB_CLOSE) &&
		    (k->code == UET_NACK_INV_DPDCID ||
		     k->code == UET_NACK_CLOSING)) {
			/* The target forgot the PDC already: closed. */
			uet_pdc_free(pds, pdc);
			break;
		}
		if (k->code == UET_NACK_INV_DPDCID && pdc->ref.initiator &&
		    pdc->state != UET_PDC_CLOSING) {
			/* The target has no state for it (restarted at the
			 * same address, or reaped it): what it cannot have
			 * delivered goes again, on a new PDC. */
			uet_pdc_lost(pds, pdc, now);
			break;
		}
		uet_pdc_fail(pds, pdc, k->code);
		break;
	}
	return 0;
}
