/* Incoming messages: checks of every request, ordering of the messages of a
 * PDC, placement of packets in any order, completion when whole
 * (docs/choices.md §5).
 *
 * FI_ORDER_SAS over RUD: the initiator numbers the messages of a PDC 0, 1,
 * 2 ... (msg.c). A message is matched (against the posted receives, else
 * put on the unexpected list) when the first of its packets arrives and
 * every earlier message of the PDC has been matched; a message whose
 * predecessor has not shown up yet is held, buffered like an unexpected
 * one, and matched as soon as the predecessor is. Once matched, packets go
 * straight to the receive buffer.
 *
 * Responses: success is a DEFAULT_RESPONSE with RC_OK; a packet that was
 * cut by truncation, or that landed on the unexpected list, gets a
 * RESPONSE (modified_length = bytes of it placed or buffered, list
 * EXPECTED/OVERFLOW); a refused one a RESPONSE with the error code, kept by
 * PDS until cleared (*gtd, docs/choices.md §5.4).
 */
#include <stdlib.h>
#include <string.h>

#include "uet/alloc.h"
#include "ses_int.h"

/* ---- Descriptors ---- */

struct uet_ses_inmsg *uet_rx_alloc(struct uet_ses *ses)
{
	struct uet_list *n = uet_list_pop(&ses->in_free);
	struct uet_ses_inmsg *in;

	if (n) {
		in = uet_container_of(n, struct uet_ses_inmsg, pdc_link);
		memset(in, 0, sizeof(*in));
	} else {
		/* More messages in progress than posted receives (multi-recv):
		 * one descriptor per message, not per packet. */
		in = uet_calloc(1, sizeof(*in));
		if (!in)
			return NULL;
		in->heap = true;
	}
	uet_list_init(&in->pdc_link);
	uet_list_init(&in->unexp_link);
	return in;
}

void uet_rx_free(struct uet_ses *ses, struct uet_ses_inmsg *in)
{
	if (in->rread)
		in->rread->rin = NULL;
	uet_list_del(&in->pdc_link);
	uet_list_del(&in->unexp_link);
	uet_reasm_fini(&in->reasm);
	if (in->buf || in->charge)
		uet_unexp_drop_buf(ses, in);
	if (in->heap) {
		uet_free(in);
	} else {
		memset(in, 0, sizeof(*in));
		uet_list_init(&in->unexp_link);
		uet_list_add(&ses->in_free, &in->pdc_link);
	}
}

struct uet_ses_inmsg *uet_rx_find(struct uet_ses_pdc *ps, uint16_t id)
{
	struct uet_list *pos;

	for (pos = ps->rx_msgs.next; pos != &ps->rx_msgs; pos = pos->next) {
		struct uet_ses_inmsg *in =
			uet_container_of(pos, struct uet_ses_inmsg, pdc_link);

		if (in->msg_id == id)
			return in;
	}
	return NULL;
}

/* ---- Placement and completion ---- */

/* Write len bytes at byte pos of the receive's iov. */
void uet_rx_scatter(struct uet_ses_recv *r, size_t pos, const uint8_t *src,
		    size_t len)
{
	size_t i;

	for (i = 0; i < r->iov_count && len; i++) {
		size_t n;

		if (pos >= r->iov[i].len) {
			pos -= r->iov[i].len;
			continue;
		}
		n = r->iov[i].len - pos;
		if (n > len)
			n = len;
		/* already there: placed by the port (uet/net.h) */
		if ((uint8_t *)r->iov[i].base + pos != src)
			memcpy((uint8_t *)r->iov[i].base + pos, src, n);
		src += n;
		len -= n;
		pos = 0;
	}
}

/* Place payload [off, off + len); returns the bytes kept. */
static size_t in_place(struct uet_ses_inmsg *in, uint32_t off,
		       const uint8_t *data, size_t len)
{
	size_t n;

	if (in->discard)
		return 0;
	if (in->recv) {
		if (off >= in->room)
			return 0;
		n = in->room - off < len ? in->room - off : len;
		uet_rx_scatter(in->recv, in->base + off, data, n);
		return n;
	}
	if (len)
		memcpy(in->buf + off, data, len);
	return len;
}

/* The receive of in is finished (err 0 or UET_ERR_TRUNC when whole, else
 * the reason): report it and let go of it. */
void uet_rx_recv_done(struct uet_ses *ses, struct uet_ses_inmsg *in,
		      int err, int prov_errno)
{
	struct uet_ses_recv *r = in->recv;
	struct uet_completion c;
	bool release;

	memset(&c, 0, sizeof(c));
	c.context = r->context;
	c.flags = UET_CF_RECV;
	if (r->tagged)
		c.flags |= UET_CF_TAGGED;
	c.err = err;
	c.prov_errno = prov_errno;
	if (r->iov_count)
		c.buf = (uint8_t *)r->iov[0].base + in->base;
	if (!err || err == UET_ERR_TRUNC) {
		c.len = in->room;
		c.olen = in->total - in->room;
		if (in->hd) {
			c.flags |= UET_CF_CQ_DATA;
			c.data = in->data;
		}
	}
	c.tag = in->tag;
	c.src = in->src;
	in->recv = NULL;
	r->refs--;
	if (r->flags & UET_OPF_MULTI_RECV) {
		release = !r->linked && !r->refs;
		if (release)
			c.flags |= UET_CF_MULTI_RECV;
	} else {
		release = true;
	}
	ses->st.rx_msgs++;
	if (err == UET_ERR_TRUNC)
		ses->st.truncated++;
	if (err || (r->flags & UET_OPF_COMPLETION) ||
	    (c.flags & UET_CF_MULTI_RECV))
		uet_ses_complete(ses, &c);
	if (release)
		uet_match_recv_free(ses, r);
}

static void in_complete(struct uet_ses *ses, struct uet_ses_inmsg *in)
{
	/* Rendezvous: the eager part is in; the rest is read (rndv.c). */
	if (in->rndv) {
		uet_rndv_start(ses, in);
		return;
	}
	uet_rx_recv_done(ses, in, in->room < in->total ? UET_ERR_TRUNC : 0, 0);
	uet_rx_free(ses, in);
}

/* Whole message arrived: deliver, or leave it waiting on the unexpected
 * list without its PDC (no packet of it can come any more). */
static void in_whole(struct uet_ses *ses, struct uet_ses_inmsg *in)
{
	if (!in->processed)
		return;		/* held: matched when its turn comes */
	if (in->recv) {
		in_complete(ses, in);
	} else if (in->discard && in->rndv && in->rc == UET_RC_OK) {
		uet_rndv_discard(ses, in);
	} else if (in->discard) {
		uet_rx_free(ses, in);
	} else {
		uet_list_del(&in->pdc_link);
		in->pdc = NULL;
	}
}

void uet_rx_bind(struct uet_ses *ses, struct uet_ses_inmsg *in,
		 struct uet_ses_recv *r)
{
	size_t avail;

	in->processed = true;
	uet_list_del(&in->unexp_link);
	if (r->flags & UET_OPF_MULTI_RECV) {
		/* Each message takes the next region of the buffer; below
		 * min_multi_recv free bytes the buffer takes no more. */
		in->base = r->used;
		avail = r->len - r->used;
		in->room = in->total < avail ? in->total : avail;
		r->used += in->room;
		if (uet_match_multi_full(r, r->used))
			uet_match_unlink(r);
	} else {
		in->base = 0;
		in->room = in->total < r->len ? in->total : r->len;
		uet_match_unlink(r);
	}
	r->refs++;
	in->recv = r;
	if (in->buf) {
		/* Bytes not arrived yet are garbage here and get overwritten
		 * when their packets come. A rendezvous message buffered
		 * only its eager part. */
		size_t n = in->room < in->reasm.total ? in->room :
							in->reasm.total;

		if (n)
			uet_rx_scatter(r, in->base, in->buf, n);
	}
	if (in->buf || in->charge)
		uet_unexp_drop_buf(ses, in);
	if (uet_reasm_done(&in->reasm))
		in_complete(ses, in);
}

/* Match in now that its turn has come (docs/choices.md §5.2, §5.3). */
static void in_process(struct uet_ses *ses, struct uet_ses_pdc *ps,
		       struct uet_ses_inmsg *in)
{
	struct uet_ses_recv *r;

	in->processed = true;
	ps->rx_next = (uint16_t)(in->msg_id + 1);
	if (in->rma) {
		/* RMA takes its turn only; placed or served already. */
		uet_rma_settle(ses, in);
		return;
	}
	if (in->discard) {
		/* A refused message only kept its place in the order. */
		if (in->rc != UET_RC_OK || uet_reasm_done(&in->reasm))
			uet_rx_free(ses, in);
		return;
	}
	r = uet_match_posted(ses, in);
	if (r) {
		uet_rx_bind(ses, in, r);
		return;
	}
	uet_match_unexp(ses, in);
	if (uet_reasm_done(&in->reasm))
		in_whole(ses, in);
}

/* Match the held messages whose predecessors are now all matched. */
void uet_rx_advance(struct uet_ses *ses, struct uet_ses_pdc *ps)
{
	struct uet_ses_inmsg *in;

	while ((in = uet_rx_find(ps, ps->rx_next)) && !in->processed)
		in_process(ses, ps, in);
}

/* Fail a message in progress: its receive gets err, its data is dropped.
 * A held one keeps its place in the order as a refused record. */
static void in_abort(struct uet_ses *ses, struct uet_ses_inmsg *in, int err,
		     uint8_t rc)
{
	if (in->recv)
		uet_rx_recv_done(ses, in, err, rc);
	uet_list_del(&in->unexp_link);
	if (in->processed) {
		uet_rx_free(ses, in);
		return;
	}
	uet_free(in->buf);
	in->buf = NULL;
	in->discard = true;
	in->rc = rc;
}

/* ---- Receive path ---- */

static int refuse(struct uet_ses_rsp *rsp, bool *gtd, uint8_t rc)
{
	rsp->opcode = UET_SES_RESPONSE;
	rsp->return_code = rc;
	rsp->modified_length = 0;
	*gtd = true;
	return 0;
}

/* A message refused for what it is (not for whom it is): it still takes
 * its message_id's turn, or later messages of the PDC would wait for it
 * forever. Returns 0 or a NACK code. */
int uet_rx_refuse_msg(struct uet_ses *ses, struct uet_ses_pdc *ps,
		      const struct uet_ses_req *req, struct uet_ses_rsp *rsp,
		      bool *gtd, uint8_t rc)
{
	ses->st.bad_req++;
	return uet_rx_refuse_turn(ses, ps, req, rsp, gtd, rc);
}

/* The same without counting it as a bad request (RMA refusals have their
 * own counters). */
int uet_rx_refuse_turn(struct uet_ses *ses, struct uet_ses_pdc *ps,
		       const struct uet_ses_req *req, struct uet_ses_rsp *rsp,
		       bool *gtd, uint8_t rc)
{
	struct uet_ses_inmsg *in = uet_rx_find(ps, req->message_id);
	int16_t d = (int16_t)(req->message_id - ps->rx_next);

	if (in && in->rma) {
		if (in->rc == UET_RC_OK)
			in->rc = rc;
		uet_rma_settle(ses, in);
	} else if (in) {
		if (!in->discard || in->rc == UET_RC_OK)
			in_abort(ses, in, UET_ERR_REMOTE, rc);
	} else if (d == 0) {
		ps->rx_next++;
		uet_rx_advance(ses, ps);
	} else if (d > 0) {
		in = uet_unexp_alloc(ses, 0);
		if (!in) {
			ses->st.unexp_nacks++;
			return UET_NACK_NO_SES_MSG_AVAIL;
		}
		in->msg_id = req->message_id;
		in->pdc = ps;
		in->discard = true;
		in->rc = rc;
		uet_list_add_tail(&ps->rx_msgs, &in->pdc_link);
	}
	return refuse(rsp, gtd, rc);
}

static bool is_send(uint8_t opcode)
{
	return opcode == UET_SES_SEND || opcode == UET_SES_TAGGED_SEND ||
	       opcode == UET_SES_RENDEZVOUS_SEND ||
	       opcode == UET_SES_RENDEZVOUS_TSEND;
}

static bool is_rndv(uint8_t opcode)
{
	return opcode == UET_SES_RENDEZVOUS_SEND ||
	       opcode == UET_SES_RENDEZVOUS_TSEND;
}

/* Matching sees a rendezvous send as the send it stands for. */
static uint8_t base_opcode(uint8_t opcode)
{
	if (opcode == UET_SES_RENDEZVOUS_TSEND)
		return UET_SES_TAGGED_SEND;
	if (opcode == UET_SES_RENDEZVOUS_SEND)
		return UET_SES_SEND;
	return opcode;
}

/* First packet of a message we have not seen: decide where it goes. */
static struct uet_ses_inmsg *in_new(struct uet_ses *ses,
				    struct uet_ses_pdc *ps,
				    const struct uet_ses_req *req, bool now)
{
	struct uet_ses_inmsg probe, *in;
	struct uet_ses_recv *r = NULL;
	uint8_t opcode = base_opcode(req->opcode);
	bool rndv = is_rndv(req->opcode);
	/* A rendezvous message brings (and buffers) its eager part only. */
	uint32_t carried = rndv ? req->rndv.eager_length : req->request_length;

	memset(&probe, 0, sizeof(probe));
	probe.opcode = opcode;
	probe.tag = req->match_bits;
	probe.src = ps->ref->peer;
	(void)uet_ses_rx_ctx(ses, req->resource_index, &probe.rx_ctx);
	if (now)
		r = uet_match_posted(ses, &probe);
	in = r ? uet_rx_alloc(ses) : uet_unexp_alloc(ses, carried);
	if (!in)
		return NULL;
	in->pdc = ps;
	in->src = ps->ref->peer;
	in->rx_ctx = probe.rx_ctx;
	in->msg_id = req->message_id;
	in->opcode = opcode;
	in->rc = UET_RC_OK;
	in->tag = opcode == UET_SES_TAGGED_SEND ? req->match_bits : 0;
	in->initiator = req->initiator;
	in->total = req->request_length;
	uet_reasm_init(&in->reasm, carried);
	if (rndv) {
		in->rndv = true;
		in->eager = carried;
		in->rd_key = req->rndv.read_match_bits;
		in->rd_off = req->rndv.read_offset;
	}
	uet_list_add_tail(&ps->rx_msgs, &in->pdc_link);
	if (!now) {
		ses->st.held_msgs++;
		return in;
	}
	in->processed = true;
	ps->rx_next++;
	if (r)
		uet_rx_bind(ses, in, r);
	else
		uet_match_unexp(ses, in);
	return in;
}

bool uet_ses_rx_admit(struct uet_ses *ses, const struct uet_ses_req *req,
		      struct uet_ses_rsp *rsp)
{
	uint8_t rc = UET_RC_OK;

	memset(rsp, 0, sizeof(*rsp));
	rsp->format = UET_NH_RSP;
	rsp->list = UET_SES_LIST_EXPECTED;
	rsp->opcode = UET_SES_DEFAULT_RESPONSE;
	rsp->return_code = UET_RC_OK;
	rsp->message_id = req->message_id;
	rsp->job_id = req->job_id & 0xFFFFFF;
	/* Only the standard header carries a message_id (docs/protocol.md
	 * §5.3); we neither send nor take the others. */
	if (req->format != UET_NH_REQ_STD) {
		ses->st.bad_req++;
		rc = UET_RC_UNSUPPORTED_OP;
	} else if (req->job_id != (ses->cfg.job_id & 0xFFFFFF)) {
		/* Not ours: refused, never delivered, no state (docs/choices.md
		 * §1.4). */
		ses->st.bad_job++;
		rc = UET_RC_BAD_JOB_ID;
	} else if (req->pid_on_fep != (ses->cfg.pid_on_fep & 0xFFF)) {
		ses->st.bad_pid++;
		rc = UET_RC_BAD_PID;
	} else if (!uet_ses_rx_ctx(ses, req->resource_index,
				   &(uint16_t){ 0 })) {
		ses->st.bad_index++;
		rc = UET_RC_BAD_INDEX;
	}
	if (rc == UET_RC_OK)
		return true;
	rsp->opcode = UET_SES_RESPONSE;
	rsp->return_code = rc;
	return false;
}

int uet_ses_rx(struct uet_ses *ses, struct uet_pdc_ref *pdc,
	       const struct uet_ses_req *req, const uint8_t *payload,
	       size_t len, struct uet_ses_reply *reply, uet_time now)
{
	struct uet_ses_rsp *rsp = &reply->rsp;
	bool *gtd = &reply->gtd;
	struct uet_ses_pdc *ps;
	struct uet_ses_inmsg *in;
	bool som = req->flags & UET_SES_F_SOM;
	uint32_t off = som ? 0 : req->message_offset;
	size_t plen = som ? len : req->payload_length;
	size_t kept;
	int16_t d;
	int ret;

	if (now > ses->now)
		ses->now = now;
	*gtd = false;
	reply->data_len = 0;
	memset(rsp, 0, sizeof(*rsp));
	rsp->format = UET_NH_RSP;
	rsp->list = UET_SES_LIST_EXPECTED;
	rsp->opcode = UET_SES_DEFAULT_RESPONSE;
	rsp->return_code = UET_RC_OK;
	rsp->message_id = req->message_id;
	rsp->job_id = req->job_id & 0xFFFFFF;

	if (!uet_ses_rx_admit(ses, req, rsp)) {
		/* Kept until CLEAR like every refusal (the ACK of a later
		 * PSN must not pass it); PDS caps what one PDC may keep. */
		*gtd = true;
		return 0;
	}

	ps = uet_ses_pdc_state(ses, pdc);
	if (!ps)
		return UET_NACK_NO_RESOURCE;
	switch (req->opcode) {
	case UET_SES_WRITE:
	case UET_SES_READ:
	case UET_SES_ATOMIC:
	case UET_SES_FETCHING_ATOMIC:
		return uet_rma_rx(ses, ps, req, payload, len, reply, now);
	default:
		break;
	}
	if (!is_send(req->opcode))
		return uet_rx_refuse_msg(ses, ps, req, rsp, gtd,
					 UET_RC_UNSUPPORTED_OP);
	if (req->request_length > ses->cfg.max_msg_size)
		return uet_rx_refuse_msg(ses, ps, req, rsp, gtd,
					 UET_RC_UNSUPPORTED_SIZE);
	if (req->flags & UET_SES_F_IE)
		return uet_rx_refuse_msg(ses, ps, req, rsp, gtd,
					 UET_RC_INITIATOR_ERR);
	if (plen > len || off > req->request_length ||
	    plen > req->request_length - off)
		return uet_rx_refuse_msg(ses, ps, req, rsp, gtd,
					 UET_RC_OP_VIOLATION);
	/* Rendezvous: one packet carrying exactly its eager part. */
	if (is_rndv(req->opcode) &&
	    ((req->flags & (UET_SES_F_SOM | UET_SES_F_EOM)) !=
		     (UET_SES_F_SOM | UET_SES_F_EOM) ||
	     req->rndv.eager_length != plen))
		return uet_rx_refuse_msg(ses, ps, req, rsp, gtd,
					 UET_RC_OP_VIOLATION);

	in = uet_rx_find(ps, req->message_id);
	if (in && (in->rc != UET_RC_OK || in->rma || in->rndv ||
		   in->opcode != req->opcode ||
		   in->total != req->request_length))
		return uet_rx_refuse_msg(ses, ps, req, rsp, gtd,
					 in->rc != UET_RC_OK ? in->rc :
							UET_RC_OP_VIOLATION);
	if (!in) {
		d = (int16_t)(req->message_id - ps->rx_next);
		if (d < 0) {
			/* A message already matched and finished. */
			ses->st.dup_pkts++;
			return 0;
		}
		in = in_new(ses, ps, req, d == 0);
		if (!in) {
			/* Unexpected budget exhausted: PDS NACKs, the
			 * initiator retries later. */
			ses->st.unexp_nacks++;
			return UET_NACK_NO_SES_MSG_AVAIL;
		}
	}

	if (in->hdr_only && !in->recv && !in->discard) {
		/* Known and in line, but no room for its data: resent once a
		 * receive has taken it. */
		ses->st.unexp_nacks++;
		uet_rx_advance(ses, ps);
		return UET_NACK_NO_SES_MSG_AVAIL;
	}
	ret = uet_reasm_add(&in->reasm, off, (uint32_t)plen);
	if (ret == UET_ERR_NOMEM)
		return UET_NACK_NO_RESOURCE;
	if (ret < 0)
		return uet_rx_refuse_msg(ses, ps, req, rsp, gtd,
					 UET_RC_OP_VIOLATION);
	if (ret == 0) {
		ses->st.dup_pkts++;
		return 0;
	}
	if (som && (req->flags & UET_SES_F_HD)) {
		in->hd = true;
		in->data = req->header_data;
	}
	kept = in_place(in, off, payload, plen);
	rsp->modified_length = (uint32_t)kept;
	if (!in->recv && !in->discard) {
		rsp->opcode = UET_SES_RESPONSE;
		rsp->list = UET_SES_LIST_OVERFLOW;
	} else if (kept < plen) {
		rsp->opcode = UET_SES_RESPONSE;
	}
	if (uet_reasm_done(&in->reasm))
		in_whole(ses, in);
	uet_rx_advance(ses, ps);
	return 0;
}

/* ---- PDC closed, flush ---- */

void uet_rx_pdc_closed(struct uet_ses *ses, struct uet_ses_pdc *ps)
{
	struct uet_list *pos, *tmp;
	struct uet_ses_inmsg *in;

	/* Held messages whose predecessors will never come: match what is
	 * whole in message_id order, skipping the gaps. */
	for (;;) {
		struct uet_ses_inmsg *first = NULL;
		int16_t best = INT16_MAX;

		uet_rx_advance(ses, ps);
		for (pos = ps->rx_msgs.next; pos != &ps->rx_msgs;
		     pos = pos->next) {
			int16_t d;

			in = uet_container_of(pos, struct uet_ses_inmsg,
					     pdc_link);
			d = (int16_t)(in->msg_id - ps->rx_next);
			if (!in->processed && d < best) {
				best = d;
				first = in;
			}
		}
		if (!first)
			break;
		if (!uet_reasm_done(&first->reasm))
			first->discard = true;
		in_process(ses, ps, first);
	}
	/* What is still in progress will not be completed. */
	uet_list_foreach_safe(pos, tmp, &ps->rx_msgs) {
		in = uet_container_of(pos, struct uet_ses_inmsg, pdc_link);
		if (in->recv)
			uet_rx_recv_done(ses, in, UET_ERR_PEER, 0);
		uet_rx_free(ses, in);
	}
}

void uet_rx_flush(struct uet_ses *ses)
{
	struct uet_list *pos, *p2;

	for (pos = ses->pdcs.next; pos != &ses->pdcs; pos = pos->next) {
		struct uet_ses_pdc *ps =
			uet_container_of(pos, struct uet_ses_pdc, link);

		for (p2 = ps->rx_msgs.next; p2 != &ps->rx_msgs;
		     p2 = p2->next) {
			struct uet_ses_inmsg *in = uet_container_of(
				p2, struct uet_ses_inmsg, pdc_link);

			if (in->recv) {
				uet_rx_recv_done(ses, in, UET_ERR_CANCELED, 0);
				in->discard = true;
			}
		}
	}
}
