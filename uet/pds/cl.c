/* Connectionless delivery: RUDI and UUD (see cl.h, sublayer.h). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "uet/alloc.h"
#include "uet/err.h"

#include "cl.h"
#include "nack.h"
#include "pds.h"

#define SLOT_BITS	8
#define SLOT_MASK	((1u << SLOT_BITS) - 1)
#define GEN_MAX		(1u << (32 - SLOT_BITS))

static_assert(UET_CL_SLOTS == 1u << SLOT_BITS, "pkt_id: gen << 8 | slot");

int uet_cl_init(struct uet_pds *pds)
{
	struct uet_cl *cl = &pds->cl;
	size_t room = UET_PDS_RUDI_LEN + UET_SES_RSP_DATA_LEN;
	unsigned i;

	/* Read data inline: what fits in one packet after the headers. */
	cl->data_cap = pds->cfg.mtu > room ? pds->cfg.mtu - room : 0;
	cl->ans_data = uet_malloc(UET_CL_ANSWERS * (cl->data_cap ? cl->data_cap :
						1));
	if (!cl->ans_data)
		return UET_ERR_NOMEM;
	for (i = 0; i < UET_CL_SLOTS; i++) {
		cl->ents[i].gen = 1;
		cl->ents[i].rto_at = UET_TIME_NONE;
	}
	cl->rto_at = UET_TIME_NONE;
	return 0;
}

void uet_cl_fini(struct uet_pds *pds)
{
	uet_free(pds->cl.ans_data);
	pds->cl.ans_data = NULL;
}

void uet_pds_cl_attach(struct uet_pds *pds, const struct uet_ses_cl_ops *ops)
{
	pds->cl.ops = ops;
}

void uet_pds_wake_cl(struct uet_pds *pds, uet_time now)
{
	(void)now;
	pds->cl.want = true;
}

/* Does this fep speak mode (cfg, and a SES that serves it)? */
static bool cl_speaks(const struct uet_pds *pds, uint8_t mode)
{
	if (!pds->cl.ops)
		return false;
	return mode == UET_CL_RUDI ? pds->cfg.rudi : pds->cfg.uud;
}

static uint32_t cl_pkt_id(const struct uet_cl *cl, const struct uet_cl_ent *e)
{
	return e->gen << SLOT_BITS | (uint32_t)(e - cl->ents);
}

/* The request a pkt_id names, if it is still in flight. */
static struct uet_cl_ent *cl_find(struct uet_cl *cl, uint32_t pkt_id)
{
	struct uet_cl_ent *e = &cl->ents[pkt_id & SLOT_MASK];

	return e->used && cl_pkt_id(cl, e) == pkt_id ? e : NULL;
}

/* Set e's timer and keep cl->rto_at the earliest (a rescan only when
 * the earliest one moves later). */
static void cl_set_timer(struct uet_cl *cl, struct uet_cl_ent *e,
			 uet_time at)
{
	uet_time old = e->rto_at, t = UET_TIME_NONE;
	unsigned i;

	e->rto_at = at;
	if (at < cl->rto_at) {
		cl->rto_at = at;
		return;
	}
	if (old != cl->rto_at || at == old)
		return;
	for (i = 0; i < UET_CL_SLOTS; i++)
		if (cl->ents[i].used && cl->ents[i].rto_at < t)
			t = cl->ents[i].rto_at;
	if (e->rto_at < t)	/* e may be on its way out (not used) */
		t = e->rto_at;
	cl->rto_at = t;
}

static void cl_due(struct uet_cl *cl, struct uet_cl_ent *e)
{
	if (!e->due) {
		e->due = true;
		cl->ndue++;
	}
	cl_set_timer(cl, e, UET_TIME_NONE);
}

/* The request is over: SES heard done or failed. */
static void cl_release(struct uet_cl *cl, struct uet_cl_ent *e)
{
	if (e->due)
		cl->ndue--;
	cl_set_timer(cl, e, UET_TIME_NONE);
	e->used = e->due = e->backoff = e->by_nack = false;
	/* A late answer for this user must not match the next one. */
	e->gen = e->gen + 1 < GEN_MAX ? e->gen + 1 : 1;
	cl->nused--;
}

static void cl_fail(struct uet_pds *pds, struct uet_cl_ent *e, int err,
		    uint8_t code)
{
	struct uet_cl_pkt cp = e->cp;

	/* Free first: SES may wake us from the callback. */
	cl_release(&pds->cl, e);
	pds->cl.ops->failed(pds->ses, &cp, err, code);
}

/* ---- Receive ---- */

/* Target: queue an answer to a RUDI request; NULL when the ring is full
 * (the initiator's RTO covers it). */
static struct uet_cl_answer *cl_answer(struct uet_pds *pds,
				       const struct uet_pkt_info *pi,
				       const struct uet_pds_hdr *h,
				       uint8_t code, uint8_t **data)
{
	struct uet_cl *cl = &pds->cl;
	unsigned slot;
	struct uet_cl_answer *a;

	if (cl->ans_n == UET_CL_ANSWERS)
		return NULL;
	slot = (cl->ans_head + cl->ans_n) % UET_CL_ANSWERS;
	a = &cl->ans[slot];
	memset(a, 0, sizeof(*a));
	/* The request left from its sender's home port (sublayer.h). */
	a->dst = pi->src;
	a->pkt_id = h->rudi.pkt_id;
	a->entropy = pi->entropy;
	a->code = code;
	a->flags = (h->flags & UET_PDS_F_RETX) |
		   (pi->ecn == UET_ECN_CE ? UET_PDS_F_M : 0);
	if (data)
		*data = cl->ans_data + (size_t)slot * cl->data_cap;
	return a;
}

static void cl_answer_commit(struct uet_cl *cl)
{
	cl->ans_n++;
}

static int cl_rx_req(struct uet_pds *pds, const struct uet_pkt_info *pi,
		     const struct uet_pkt *p, uet_time now)
{
	struct uet_cl *cl = &pds->cl;
	uint8_t mode = p->pds.type == UET_PDS_RUDI_REQ ? UET_CL_RUDI :
							UET_CL_UUD;
	struct uet_cl_answer *a;
	struct uet_cl_reply reply;
	uint8_t *data = NULL;
	int code;

	if (!p->has_req) {
		pds->st->drop_other++;
		return UET_ERR_INVAL;
	}
	if (mode == UET_CL_UUD) {
		code = cl->ops->rx(pds->ses, &pi->src, mode, &p->req,
				   p->payload, p->payload_len, NULL, now);
		if (code) {
			pds->st->drop_other++;
			return UET_ERR_AGAIN;
		}
		pds->st->cl_rx++;
		return 0;
	}
	/* Room for the answer before SES acts: it keeps no state, so an
	 * answer we could not send would be work done for nothing. */
	a = cl_answer(pds, pi, &p->pds, 0, &data);
	if (!a) {
		pds->st->drop_other++;
		return UET_ERR_AGAIN;
	}
	memset(&reply, 0, sizeof(reply));
	reply.rsp.format = UET_NH_RSP;
	reply.rsp.opcode = UET_SES_RESPONSE;
	reply.rsp.return_code = UET_RC_OK;
	reply.data = data;
	reply.cap = cl->data_cap;
	code = cl->ops->rx(pds->ses, &pi->src, mode, &p->req, p->payload,
			   p->payload_len, &reply, now);
	assert(reply.data_len <= reply.cap);
	assert(!reply.data_len || reply.rsp.format != UET_NH_RSP);
	if (code) {
		/* docs/choices.md §8.1: refused; a NACK tells the initiator
		 * at once. */
		a->code = code > 0 && code <= 0xFF ? (uint8_t)code :
						     UET_NACK_UNEXP_EVENT;
		pds->st->drop_other++;
		cl_answer_commit(cl);
		return UET_ERR_AGAIN;
	}
	a->rsp = reply.rsp;
	a->data_len = reply.rsp.format == UET_NH_RSP ? 0 : reply.data_len;
	cl_answer_commit(cl);
	pds->st->cl_rx++;
	return 0;
}

/* Initiator: the response to one of our requests (the first one only). */
static int cl_rx_resp(struct uet_pds *pds, const struct uet_pkt_info *pi,
		      const struct uet_pkt *p, uet_time now)
{
	struct uet_cl *cl = &pds->cl;
	struct uet_cl_ent *e = cl_find(cl, p->pds.rudi.pkt_id);
	struct uet_cl_pkt cp;

	if (!e || !p->has_rsp || e->cp.peer.af != pi->src.af ||
	    memcmp(e->cp.peer.ip, pi->src.ip,
		   pi->src.af == UET_AF_INET ? 4 : 16)) {
		/* Unknown, answered already, or not from its target. */
		pds->st->drop_other++;
		return UET_ERR_INVAL;
	}
	pds->st->acks_rx++;
	cp = e->cp;
	cl_release(cl, e);
	cl->ops->done(pds->ses, &cp, &p->rsp, p->payload, p->payload_len,
		      now);
	return 0;
}

int uet_cl_rx(struct uet_pds *pds, const struct uet_pkt_info *pi,
	      const struct uet_pkt *p, uet_time now)
{
	uint8_t mode = p->pds.type == UET_PDS_UUD_REQ ? UET_CL_UUD :
							UET_CL_RUDI;

	if (!cl_speaks(pds, mode)) {
		pds->st->drop_other++;
		return UET_ERR_INVAL;
	}
	if (p->pds.type == UET_PDS_RUDI_RESP)
		return cl_rx_resp(pds, pi, p, now);
	return cl_rx_req(pds, pi, p, now);
}

int uet_cl_rx_nack(struct uet_pds *pds, const struct uet_pkt_info *pi,
		   const struct uet_pds_hdr *h, uet_time now)
{
	struct uet_cl *cl = &pds->cl;
	struct uet_cl_ent *e;

	if (!cl_speaks(pds, UET_CL_RUDI) ||
	    !(e = cl_find(cl, h->nack.psn)) ||
	    e->cp.peer.af != pi->src.af ||
	    memcmp(e->cp.peer.ip, pi->src.ip,
		   pi->src.af == UET_AF_INET ? 4 : 16)) {
		pds->st->drop_other++;
		return UET_ERR_INVAL;
	}
	pds->st->nacks_rx++;
	/* A NACK of the first copy once a resend is out is stale. */
	if (e->due || (!(h->flags & UET_PDS_F_RETX) && (e->retx || e->nacks)))
		return 0;
	switch (uet_nack_class(h->nack.code)) {
	case UET_NACK_RESEND:
	case UET_NACK_REWIND:
		/* Lost for sure (trimmed): resend now, paced after
		 * max_retx of them, as on a PDC. */
		if (e->nacks < pds->cfg.max_retx) {
			e->nacks++;
			e->by_nack = true;
			e->backoff = false;
			cl_due(cl, e);
			break;
		}
		/* fall through */
	case UET_NACK_BACKOFF:
		/* The target is short of something: pause, doubling. */
		cl_set_timer(cl, e, now + uet_pds_rto(pds, e->nacks));
		if (e->nacks < UINT8_MAX)
			e->nacks++;
		e->by_nack = true;
		e->backoff = true;
		break;
	case UET_NACK_IGNORE:
		break;
	case UET_NACK_FATAL:
	default:
		cl_fail(pds, e, UET_ERR_PEER, h->nack.code);
		break;
	}
	return 0;
}

int uet_cl_rx_trimmed(struct uet_pds *pds, const struct uet_pkt_info *pi,
		      const struct uet_pds_hdr *h, uet_time now)
{
	struct uet_cl_answer *a;

	(void)now;
	/* UUD has no way back: a cut datagram is just lost. */
	if (h->type != UET_PDS_RUDI_REQ || !cl_speaks(pds, UET_CL_RUDI)) {
		pds->st->drop_other++;
		return UET_ERR_INVAL;
	}
	a = cl_answer(pds, pi, h, UET_NACK_TRIMMED, NULL);
	if (!a) {
		pds->st->drop_other++;
		return UET_ERR_AGAIN;
	}
	cl_answer_commit(&pds->cl);
	return 0;
}

/* ---- Transmit ---- */

ssize_t uet_cl_poll_answer(struct uet_pds *pds, struct uet_pkt_info *pi,
			   uint8_t *buf, size_t cap, uet_time now)
{
	struct uet_cl *cl = &pds->cl;
	const struct uet_cl_answer *a;
	const uint8_t *data;
	struct uet_pkt p;
	int n;

	if (!cl->ans_n)
		return 0;
	a = &cl->ans[cl->ans_head];
	data = cl->ans_data + (size_t)cl->ans_head * cl->data_cap;
	cl->ans_head = (cl->ans_head + 1) % UET_CL_ANSWERS;
	cl->ans_n--;
	memset(&p, 0, sizeof(p));
	if (a->code) {
		/* docs/protocol.md §4.5: NT set, pkt_id in the PSN slot,
		 * PDCIDs 0. */
		p.pds.type = UET_PDS_NACK;
		p.pds.flags = a->flags | UET_PDS_F_NT;
		p.pds.nack.code = a->code;
		p.pds.nack.psn = a->pkt_id;
		pds->st->nacks_tx++;
	} else {
		p.pds.type = UET_PDS_RUDI_RESP;
		p.pds.next_hdr = a->rsp.format;
		p.pds.flags = a->flags;
		p.pds.rudi.pkt_id = a->pkt_id;
		p.has_rsp = true;
		p.rsp = a->rsp;
		if (p.rsp.format != UET_NH_RSP)
			p.rsp.payload_length = (uint16_t)a->data_len;
		pds->st->acks_tx++;
	}
	n = uet_pkt_encode(buf, cap, &p);
	if (n < 0)
		return n;
	if (!a->code && a->data_len) {
		if ((size_t)n + a->data_len > cap)
			return UET_ERR_WIRE_NOSPACE;
		memcpy(buf + n, data, a->data_len);
		n += (int)a->data_len;
	}
	memset(pi, 0, sizeof(*pi));
	pi->src = pds->cfg.local;
	pi->dst = a->dst;
	pi->entropy = a->entropy;
	pi->ecn = pds->cfg.ecn;
	pi->ts = now;
	return n;
}

/* Build a request (RUDI or UUD) of cp; RETX on a resend. */
static ssize_t cl_emit(struct uet_pds *pds, const struct uet_cl_pkt *cp,
		       bool resend, struct uet_pkt_info *pi, uint8_t *buf,
		       size_t cap, uet_time now)
{
	struct uet_pds_hdr h;
	int hl, sl;

	memset(&h, 0, sizeof(h));
	h.type = cp->mode == UET_CL_RUDI ? UET_PDS_RUDI_REQ : UET_PDS_UUD_REQ;
	h.next_hdr = cp->pkt.next_hdr;
	if (cp->mode == UET_CL_RUDI) {
		h.rudi.pkt_id = cp->pkt_id;
		if (resend)
			h.flags = UET_PDS_F_RETX;
	}
	hl = uet_pds_hdr_encode(buf, cap, &h);
	if (hl < 0)
		return hl;
	sl = pds->cl.ops->write(pds->ses, cp, buf + hl, cap - (size_t)hl);
	if (sl < 0)
		return sl;
	memset(pi, 0, sizeof(*pi));
	pi->src = pds->cfg.local;
	pi->dst = cp->peer;
	/* sublayer.h: so that the target learns where to answer. */
	pi->home = true;
	pi->ecn = pds->cfg.ecn;
	pi->ts = now;
	return hl + sl;
}

ssize_t uet_cl_poll_retx(struct uet_pds *pds, struct uet_pkt_info *pi,
			 uint8_t *buf, size_t cap, uet_time now)
{
	struct uet_cl *cl = &pds->cl;
	unsigned i;
	ssize_t n;

	for (i = 0; cl->ndue && i < UET_CL_SLOTS; i++) {
		struct uet_cl_ent *e = &cl->ents[i];

		if (!e->used || !e->due)
			continue;
		e->due = false;
		cl->ndue--;
		n = cl_emit(pds, &e->cp, true, pi, buf, cap, now);
		if (n < 0) {
			cl_fail(pds, e, (int)n, 0);
			continue;
		}
		if (e->by_nack)
			pds->st->retx_nack++;
		else
			pds->st->retx_rto++;
		e->by_nack = false;
		cl_set_timer(cl, e, now + uet_pds_rto(pds, e->retx));
		return n;
	}
	return 0;
}

ssize_t uet_cl_poll_new(struct uet_pds *pds, struct uet_pkt_info *pi,
			uint8_t *buf, size_t cap, uet_time now)
{
	struct uet_cl *cl = &pds->cl;
	struct uet_cl_pkt cp;
	unsigned i;
	ssize_t n;

	while (cl->want && cl->ops && cl->nused < UET_CL_SLOTS) {
		struct uet_cl_ent *e = NULL;

		memset(&cp, 0, sizeof(cp));
		if (cl->ops->next(pds->ses, &cp, now) <= 0) {
			cl->want = false;
			return 0;
		}
		if (!cl_speaks(pds, cp.mode)) {
			cl->ops->failed(pds->ses, &cp, UET_ERR_NOSYS, 0);
			continue;
		}
		if (cp.mode == UET_CL_RUDI) {
			for (i = 0; cl->ents[i].used; i++)
				;
			e = &cl->ents[i];
			e->used = true;
			e->retx = e->nacks = 0;
			cp.pkt_id = cl_pkt_id(cl, e);
			e->cp = cp;
			cl->nused++;
		}
		n = cl_emit(pds, &cp, false, pi, buf, cap, now);
		if (n < 0) {
			if (e)
				cl_fail(pds, e, (int)n, 0);
			else
				cl->ops->failed(pds->ses, &cp, (int)n, 0);
			continue;
		}
		pds->st->cl_tx++;
		if (e)
			cl_set_timer(cl, e, now + uet_pds_rto(pds, 0));
		else	/* UUD: complete once handed to the port */
			cl->ops->done(pds->ses, &cp, NULL, NULL, 0, now);
		return n;
	}
	return 0;
}

uet_time uet_cl_next_timeout(const struct uet_pds *pds)
{
	return pds->cl.rto_at;
}

void uet_cl_timeout(struct uet_pds *pds, uet_time now)
{
	struct uet_cl *cl = &pds->cl;
	unsigned i;

	if (uet_cl_next_timeout(pds) > now)
		return;
	for (i = 0; i < UET_CL_SLOTS; i++) {
		struct uet_cl_ent *e = &cl->ents[i];

		if (!e->used || e->rto_at > now)
			continue;
		if (e->backoff) {
			/* A NACK's pause is over: not a loss. */
			e->backoff = false;
			cl_due(cl, e);
			continue;
		}
		/* docs/choices.md §8.1: the PDC path's limit, then SES
		 * hears of it. */
		if (e->retx >= pds->cfg.max_retx) {
			cl_fail(pds, e, UET_ERR_PEER, 0);
			continue;
		}
		e->retx++;
		cl_due(cl, e);
	}
}
