/* The target side of RMA and atomics, and read data in both directions
 * (docs/choices.md §6, §3.4).
 *
 * Every packet is checked against the key table (mr.c): no region ->
 * RC_BAD_MKEY, access missing -> RC_PERM_VIOLATION, outside the region ->
 * RC_BAD_ADDR. The range checked is the whole message, [buffer_offset,
 * buffer_offset + request_length), on every packet, so the packets of one
 * message are all accepted or all refused: a refused WRITE writes nothing
 * and leaves nothing of it visible. (The one exception cannot be avoided:
 * a region deregistered, or re-registered, while a write is arriving keeps
 * the packets placed before.) A refusal is a guaranteed response with the
 * return code; the message keeps a record so its later packets get the
 * same answer, and still takes its message_id's turn in the PDC's order
 * (rx.c), though RMA is never held back by it: data is placed, served or
 * operated on as it arrives.
 *
 * Completions at the target (for the provider's counters; a CQ entry only
 * for writes with CQ data): UET_CF_REMOTE with WRITE, READ or ATOMIC, once
 * the whole message is placed (write), every byte has been acknowledged
 * (read) or the operation ran (atomic); context is the region's.
 *
 * Reads: a message of up to UET_ACK_DATA_MAX bytes (one request packet)
 * gets its data in the ACK (response with data, guaranteed); a longer one
 * gets all its data in the return direction of the same PDC: each request
 * packet's range is queued as a return job (contiguous ranges of one
 * message extend one job) and PDS pulls RSP_DATA packets with
 * uet_ses_tx_next on the target side of the PDC. The initiator places
 * them (uet_ses_rx_ret) and completes the read once every request packet
 * is acknowledged and every byte has arrived.
 *
 * Atomics: one packet (SOM and EOM), the atomic extension naming op and
 * type; operands and results as amo.c says; fetched values return in the
 * ACK.
 */
#include <stdlib.h>
#include <string.h>

#include "uet/alloc.h"
#include "ses_int.h"

/* ---- Records ---- */

/* A record goes once its turn has passed and nothing needs it: placed or
 * served, or refused and every packet of it seen (so the late ones get
 * the same refusal, not a fresh look). */
void uet_rma_settle(struct uet_ses *ses, struct uet_ses_inmsg *in)
{
	if (in->processed && !in->jobs &&
	    (in->rma_done ||
	     (in->rc != UET_RC_OK && uet_reasm_done(&in->reasm))))
		uet_rx_free(ses, in);
}

static void count_refusal(struct uet_ses *ses, uint8_t rc)
{
	switch (rc) {
	case UET_RC_BAD_MKEY: ses->st.rma_bad_mkey++; break;
	case UET_RC_PERM_VIOLATION: ses->st.rma_perm++; break;
	case UET_RC_BAD_ADDR: ses->st.rma_bad_addr++; break;
	case UET_RC_AMO_UNSUPPORTED_OP: ses->st.amo_bad_op++; break;
	case UET_RC_AMO_UNSUPPORTED_DT: ses->st.amo_bad_dt++; break;
	case UET_RC_AMO_UNSUPPORTED_SIZE: ses->st.amo_bad_size++; break;
	case UET_RC_AMO_UNALIGNED: ses->st.amo_unaligned++; break;
	default: ses->st.bad_req++; break;
	}
}

static int refuse(struct uet_ses *ses, struct uet_ses_pdc *ps,
		  const struct uet_ses_req *req, struct uet_ses_reply *reply,
		  uint8_t rc)
{
	count_refusal(ses, rc);
	return uet_rx_refuse_turn(ses, ps, req, &reply->rsp, &reply->gtd, rc);
}

static void remote_complete(struct uet_ses *ses, struct uet_ses_pdc *ps,
			    void *ctx, uint32_t flags, void *buf, size_t len,
			    const struct uet_ses_inmsg *in)
{
	struct uet_completion c;

	memset(&c, 0, sizeof(c));
	c.context = ctx;
	c.flags = UET_CF_REMOTE | flags;
	c.buf = buf;
	c.len = len;
	c.src = ps->ref->peer;
	if (in && in->hd) {
		c.flags |= UET_CF_CQ_DATA;
		c.data = in->data;
	}
	uet_ses_complete(ses, &c);
}

/* A message without a record takes its turn now (d == 0), holds its place
 * with a finished record (d > 0), or is long past (d < 0). */
static int take_turn(struct uet_ses *ses, struct uet_ses_pdc *ps,
		     const struct uet_ses_req *req)
{
	int16_t d = (int16_t)(req->message_id - ps->rx_next);
	struct uet_ses_inmsg *in;

	if (d == 0) {
		ps->rx_next++;
		uet_rx_advance(ses, ps);
	} else if (d > 0) {
		in = uet_rx_alloc(ses);
		if (!in)
			return UET_NACK_NO_RESOURCE;
		in->pdc = ps;
		in->msg_id = req->message_id;
		in->opcode = req->opcode;
		in->rc = UET_RC_OK;
		in->rma = in->rma_done = true;
		uet_list_add_tail(&ps->rx_msgs, &in->pdc_link);
	}
	return 0;
}

/* The record of a multi-packet WRITE or READ, found or made. Returns 0
 * with *inp (NULL: a packet of a message long finished), a NACK code, or
 * a negative RC to refuse with. */
static int record(struct uet_ses *ses, struct uet_ses_pdc *ps,
		  const struct uet_ses_req *req, void *ctx,
		  struct uet_ses_inmsg **inp)
{
	struct uet_ses_inmsg *in = uet_rx_find(ps, req->message_id);
	int16_t d;

	*inp = NULL;
	if (in) {
		if (!in->rma || in->opcode != req->opcode ||
		    in->total != req->request_length ||
		    in->boff != req->buffer_offset)
			return -UET_RC_OP_VIOLATION;
		/* A key changed mid-message (docs/choices.md §6.1). */
		if (in->key != req->match_bits)
			return -UET_RC_PERM_VIOLATION;
		in->mr_ctx = ctx;
		*inp = in;
		return 0;
	}
	d = (int16_t)(req->message_id - ps->rx_next);
	if (d < 0)
		return 0;
	in = uet_rx_alloc(ses);
	if (!in)
		return UET_NACK_NO_RESOURCE;
	in->pdc = ps;
	in->src = ps->ref->peer;
	in->msg_id = req->message_id;
	in->opcode = req->opcode;
	in->rc = UET_RC_OK;
	in->rma = true;
	in->total = req->request_length;
	in->key = req->match_bits;
	in->boff = req->buffer_offset;
	in->mr_ctx = ctx;
	uet_reasm_init(&in->reasm, in->total);
	uet_list_add_tail(&ps->rx_msgs, &in->pdc_link);
	if (d == 0) {
		in->processed = true;
		ps->rx_next++;
		uet_rx_advance(ses, ps);
	}
	*inp = in;
	return 0;
}

/* Refuse packet [off, off + len) of a message that has (or may get) a
 * record; the record counts it as seen. */
static int refuse_rec(struct uet_ses *ses, struct uet_ses_pdc *ps,
		      const struct uet_ses_req *req,
		      struct uet_ses_reply *reply, uint8_t rc, uint32_t off,
		      uint32_t len)
{
	struct uet_ses_inmsg *in = uet_rx_find(ps, req->message_id);

	if (in && in->rma) {
		if (in->rc == UET_RC_OK)
			in->rc = rc;
		if (in->total == req->request_length)
			uet_reasm_add(&in->reasm, off, len);
	}
	return refuse(ses, ps, req, reply, rc);
}

/* ---- WRITE ---- */

static int rx_write(struct uet_ses *ses, struct uet_ses_pdc *ps,
		    const struct uet_ses_req *req, const uint8_t *payload,
		    size_t len, struct uet_ses_reply *reply)
{
	bool som = req->flags & UET_SES_F_SOM;
	uint32_t off = som ? 0 : req->message_offset;
	size_t plen = som ? len : req->payload_length;
	struct uet_ses_inmsg *in = uet_rx_find(ps, req->message_id);
	struct uet_ses_mr *mr;
	uint64_t moff;
	uint8_t rc;
	int ret;

	if (plen > len || off > req->request_length ||
	    plen > req->request_length - off)
		return uet_rx_refuse_msg(ses, ps, req, &reply->rsp,
					 &reply->gtd, UET_RC_OP_VIOLATION);
	if (req->flags & UET_SES_F_IE)
		return refuse_rec(ses, ps, req, reply, UET_RC_INITIATOR_ERR,
				  off, (uint32_t)plen);
	if (in && in->rc != UET_RC_OK)
		return refuse_rec(ses, ps, req, reply, in->rc, off,
				  (uint32_t)plen);
	rc = uet_mr_check(ses, req->match_bits, req->buffer_offset,
			  req->request_length, UET_MR_REMOTE_WRITE,
			  &ps->ref->peer, &mr, &moff);
	if (rc != UET_RC_OK)
		return refuse_rec(ses, ps, req, reply, rc, off, (uint32_t)plen);
	ret = record(ses, ps, req, mr->context, &in);
	if (ret < 0)
		return refuse_rec(ses, ps, req, reply, (uint8_t)-ret, off,
				  (uint32_t)plen);
	if (ret > 0 || !in)
		return ret;		/* NACK, or long finished */
	ret = uet_reasm_add(&in->reasm, off, (uint32_t)plen);
	if (ret == UET_ERR_NOMEM)
		return UET_NACK_NO_RESOURCE;
	if (ret < 0)
		return refuse_rec(ses, ps, req, reply, UET_RC_OP_VIOLATION,
				  0, 0);
	if (ret == 0) {
		ses->st.dup_pkts++;
		return 0;
	}
	uet_mr_copy(mr, moff + off, (void *)(uintptr_t)payload, plen, true);
	if (som && (req->flags & UET_SES_F_HD)) {
		in->hd = true;
		in->data = req->header_data;
	}
	if (uet_reasm_done(&in->reasm)) {
		ses->st.rma_writes++;
		in->rma_done = true;
		remote_complete(ses, ps, mr->context, UET_CF_WRITE,
				uet_mr_ptr(mr, moff, in->total), in->total,
				in);
		uet_rma_settle(ses, in);
	}
	return 0;
}

/* ---- READ ---- */

/* Queue [off, off + len) of the read in for the return direction. */
static int ret_queue(struct uet_ses_pdc *ps, struct uet_ses_inmsg *in, struct uet_ses_mr *mr,
		     uint64_t moff, uint32_t off, uint32_t len)
{
	struct uet_ses_ret *j = NULL;

	if (!uet_list_empty(&ps->ret_q))
		j = uet_container_of(ps->ret_q.prev, struct uet_ses_ret, link);
	if (j && j->rec == in && j->mr == mr && j->end == off) {
		j->end += len;
		return 0;
	}
	j = uet_calloc(1, sizeof(*j));
	if (!j)
		return UET_NACK_NO_RESOURCE;
	j->rec = in;
	j->mr = mr;
	mr->refs++;
	j->moff = moff;
	j->msg_id = in->msg_id;
	j->total = in->total;
	j->cut = off;
	j->end = off + len;
	in->jobs++;
	uet_list_add_tail(&ps->ret_q, &j->link);
	return 0;
}

static void read_served(struct uet_ses *ses, struct uet_ses_pdc *ps,
			struct uet_ses_mr *mr, uint32_t len, void *buf)
{
	/* A rendezvous region is the engine's: its send completes, the
	 * user sees no remote read. */
	if (mr->owner) {
		uet_rndv_served(ses, mr, 0, 0);
		return;
	}
	ses->st.rma_reads++;
	remote_complete(ses, ps, mr->context, UET_CF_READ, buf, len, NULL);
}

static int rx_read(struct uet_ses *ses, struct uet_ses_pdc *ps,
		   const struct uet_ses_req *req, size_t len,
		   struct uet_ses_reply *reply, uet_time now)
{
	bool som = req->flags & UET_SES_F_SOM, eom = req->flags & UET_SES_F_EOM;
	uint32_t total = req->request_length, off, plen;
	struct uet_ses_inmsg *in = uet_rx_find(ps, req->message_id);
	struct uet_ses_rsp *rsp = &reply->rsp;
	struct uet_ses_mr *mr;
	uint64_t moff;
	uint8_t rc;
	int ret;

	/* The SOM request asks for the first chunk (ses_int.h). */
	off = som ? 0 : req->message_offset;
	plen = som ? (total < UET_SES_READ_CHUNK ? total : UET_SES_READ_CHUNK) :
		     req->payload_length;
	if (len || off > total || plen > total - off ||
	    (!plen && total) || (som && eom && plen != total) ||
	    (total <= UET_ACK_DATA_MAX && !(som && eom)))
		return uet_rx_refuse_msg(ses, ps, req, rsp, &reply->gtd,
					 UET_RC_OP_VIOLATION);
	if (req->flags & UET_SES_F_IE)
		return refuse_rec(ses, ps, req, reply, UET_RC_INITIATOR_ERR,
				  off, plen);
	if (in && in->rc != UET_RC_OK)
		return refuse_rec(ses, ps, req, reply, in->rc, off, plen);
	rc = uet_mr_check(ses, req->match_bits, req->buffer_offset, total,
			  UET_MR_REMOTE_READ, &ps->ref->peer, &mr, &moff);
	if (rc != UET_RC_OK) {
		/* A rendezvous sender learns its region was refused. */
		mr = uet_mr_find(ses, req->match_bits);
		if (mr && mr->owner && uet_addr_equal(&mr->peer, &ps->ref->peer))
			uet_rndv_served(ses, mr, UET_ERR_REMOTE, rc);
		return refuse_rec(ses, ps, req, reply, rc, off, plen);
	}

	if (total <= UET_ACK_DATA_MAX) {
		/* Small: the data rides in the ACK (docs/choices.md §3.4). */
		ret = take_turn(ses, ps, req);
		if (ret)
			return ret;
		uet_mr_copy(mr, moff, reply->data, total, false);
		reply->data_len = (uint8_t)total;
		reply->gtd = true;
		rsp->format = UET_NH_RSP_DATA;
		rsp->opcode = UET_SES_RESPONSE_W_DATA;
		rsp->read_request_message_id = req->message_id;
		rsp->payload_length = (uint16_t)total;
		rsp->modified_length = total;
		read_served(ses, ps, mr, total, uet_mr_ptr(mr, moff, total));
		return 0;
	}

	ret = record(ses, ps, req, mr->context, &in);
	if (ret < 0)
		return refuse_rec(ses, ps, req, reply, (uint8_t)-ret, off,
				  plen);
	if (ret > 0 || !in)
		return ret;
	ret = uet_reasm_add(&in->reasm, off, plen);
	if (ret == UET_ERR_NOMEM)
		return UET_NACK_NO_RESOURCE;
	if (ret < 0)
		return refuse_rec(ses, ps, req, reply, UET_RC_OP_VIOLATION,
				  0, 0);
	if (ret == 0) {
		ses->st.dup_pkts++;
		return 0;
	}
	ret = ret_queue(ps, in, mr, moff, off, plen);
	if (ret)
		return ret;
	uet_pds_wake_pdc(ses->pds, ps->ref, now);
	return 0;
}

/* ---- Return direction: the target sends read data ---- */

int uet_rma_ret_next(struct uet_ses *ses, struct uet_ses_pdc *ps,
		     struct uet_ses_pkt *pkt)
{
	struct uet_ses_ret *j;
	uint32_t len, max = (uint32_t)uet_ses_ret_payload_to(ses,
							      &ps->ref->peer);

	if (uet_list_empty(&ps->ret_q))
		return 0;
	j = uet_container_of(ps->ret_q.next, struct uet_ses_ret, link);
	len = j->end - j->cut < max ? j->end - j->cut : max;
	pkt->msg = j;
	pkt->offset = j->cut;
	pkt->len = len;
	pkt->next_hdr = UET_NH_RSP_DATA;
	pkt->eom = j->cut + len == j->total;
	j->cut += len;
	j->handed++;
	ses->st.ret_pkts++;
	if (j->cut == j->end) {
		uet_list_del(&j->link);
		uet_list_add_tail(&ps->ret_sent, &j->link);
	}
	return 1;
}

int uet_rma_ret_write(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		      const struct uet_ses_pkt *pkt, uint8_t *buf, size_t cap,
		      struct uet_iov *ext)
{
	const struct uet_ses_ret *j = pkt->msg;
	struct uet_ses_rsp rsp;
	void *src;
	int n;

	(void)pdc;
	memset(&rsp, 0, sizeof(rsp));
	rsp.format = UET_NH_RSP_DATA;
	rsp.list = UET_SES_LIST_EXPECTED;
	rsp.opcode = UET_SES_RESPONSE_W_DATA;
	/* Deregistered meanwhile: zeros, and the initiator fails the read. */
	rsp.return_code = j->mr->dead ? UET_RC_BAD_MKEY : UET_RC_OK;
	rsp.message_id = j->msg_id;
	rsp.job_id = ses->cfg.job_id & 0xFFFFFF;
	rsp.read_request_message_id = j->msg_id;
	rsp.payload_length = (uint16_t)pkt->len;
	rsp.modified_length = j->total;
	rsp.message_offset = pkt->offset;
	if (cap < UET_SES_RSP_DATA_LEN + (size_t)pkt->len)
		return UET_ERR_WIRE_NOSPACE;
	n = uet_ses_rsp_encode(buf, cap, &rsp);
	if (n < 0)
		return n;
	/* Left in the region (uet_ses_tx_ext) when in one piece; a dead
	 * region gives NULL and uet_mr_copy its zeros. */
	if (ext && pkt->len >= UET_SES_ZCOPY_MIN &&
	    (src = uet_mr_ptr(j->mr, j->moff + pkt->offset, pkt->len))) {
		ext->base = src;
		ext->len = pkt->len;
	} else {
		uet_mr_copy(j->mr, j->moff + pkt->offset, buf + n, pkt->len,
			    false);
	}
	return n + (int)pkt->len;
}

static void job_free(struct uet_ses *ses, struct uet_ses_ret *j)
{
	struct uet_ses_inmsg *in = j->rec;

	uet_list_del(&j->link);
	uet_mr_unref(j->mr);
	in->jobs--;
	uet_free(j);
	uet_rma_settle(ses, in);
}

void uet_rma_ret_done(struct uet_ses *ses, struct uet_ses_pdc *ps,
		      const struct uet_ses_pkt *pkt, bool ok)
{
	struct uet_ses_ret *j = pkt->msg;
	struct uet_ses_inmsg *in = j->rec;
	struct uet_ses_mr *mr = j->mr;

	j->done++;
	if (ok && in->rc == UET_RC_OK) {
		in->served += pkt->len;
		if (in->served == in->total && !in->rma_done) {
			in->rma_done = true;
			if (!mr->dead)
				read_served(ses, ps, mr, in->total,
					    uet_mr_ptr(mr, j->moff, in->total));
		}
	} else if (!ok) {
		if (in->rc == UET_RC_OK && mr->owner)
			uet_rndv_served(ses, mr, UET_ERR_PEER, 0);
		if (in->rc == UET_RC_OK)
			in->rc = UET_RC_UNDELIVERABLE;
	}
	if (j->cut == j->end && j->done == j->handed)
		job_free(ses, j);
}

/* PDS holds no packet of this PDC any more. */
void uet_rma_pdc_closed(struct uet_ses *ses, struct uet_ses_pdc *ps)
{
	struct uet_list *heads[2] = { &ps->ret_q, &ps->ret_sent };
	struct uet_list *pos, *tmp;
	int i;

	for (i = 0; i < 2; i++) {
		uet_list_foreach_safe(pos, tmp, heads[i]) {
			struct uet_ses_ret *j =
				uet_container_of(pos, struct uet_ses_ret, link);

			if (j->rec->rc == UET_RC_OK && !j->rec->rma_done) {
				if (j->mr->owner)
					uet_rndv_served(ses, j->mr,
							UET_ERR_PEER, 0);
				j->rec->rc = UET_RC_UNDELIVERABLE;
			}
			job_free(ses, j);
		}
	}
}

bool uet_rma_busy(const struct uet_ses_pdc *ps)
{
	return !uet_list_empty(&ps->ret_q) || !uet_list_empty(&ps->ret_sent);
}

/* ---- The initiator gets read data in the return direction ---- */

int uet_ses_rx_ret(struct uet_ses *ses, struct uet_pdc_ref *pdc,
		   const struct uet_ses_rsp *rsp, const uint8_t *payload,
		   size_t len, uet_time now)
{
	struct uet_ses_pdc *ps;
	struct uet_ses_msg *m;

	if (now > ses->now)
		ses->now = now;
	ps = uet_ses_pdc_state(ses, pdc);
	if (!ps)
		return UET_NACK_NO_RESOURCE;
	/* Only the standard-header form names the read (docs/protocol.md
	 * §5.10); anything else is taken and dropped, never retried. */
	if (!pdc->initiator || rsp->format != UET_NH_RSP_DATA ||
	    rsp->opcode != UET_SES_RESPONSE_W_DATA ||
	    rsp->payload_length != len) {
		ses->st.bad_req++;
		return 0;
	}
	m = uet_msg_find(ps, rsp->read_request_message_id);
	if (!m || m->opcode != UET_SES_READ ||
	    rsp->message_offset > m->len ||
	    len > m->len - rsp->message_offset) {
		/* Late data of a read already finished (or failed). */
		ses->st.ret_stale++;
		return 0;
	}
	if (rsp->return_code != UET_RC_OK && rsp->return_code != UET_RC_NULL)
		uet_msg_fail(m, UET_ERR_REMOTE, rsp->return_code);
	else if (rsp->modified_length != m->len)
		uet_msg_fail(m, UET_ERR_REMOTE, UET_RC_UNSUPPORTED_SIZE);
	else if (!m->stop && uet_msg_read_data(m, rsp->message_offset,
					       payload, len) == UET_ERR_NOMEM)
		return UET_NACK_NO_RESOURCE;
	uet_msg_maybe_done(ses, m);
	return 0;
}

/* ---- Atomics ---- */

static int rx_amo(struct uet_ses *ses, struct uet_ses_pdc *ps,
		  const struct uet_ses_req *req, const uint8_t *payload,
		  size_t len, struct uet_ses_reply *reply)
{
	const struct uet_ses_amo_ext *a = &req->amo;
	bool fetch = req->opcode == UET_SES_FETCHING_ATOMIC;
	bool cswap = uet_ses_req_ext(req->opcode, a->op) == UET_SES_EXT_CSWAP;
	size_t size = uet_amo_size(a->dt), total = req->request_length;
	struct uet_ses_rsp *rsp = &reply->rsp;
	uint32_t need = UET_MR_REMOTE_ATOMIC, cf = UET_CF_ATOMIC;
	struct uet_ses_mr *mr;
	uint64_t moff;
	uint8_t rc;
	void *p;
	int ret;

	if ((req->flags & (UET_SES_F_SOM | UET_SES_F_EOM)) !=
	    (UET_SES_F_SOM | UET_SES_F_EOM))
		return uet_rx_refuse_msg(ses, ps, req, rsp, &reply->gtd,
					 UET_RC_OP_VIOLATION);
	if (req->flags & UET_SES_F_IE)
		return uet_rx_refuse_msg(ses, ps, req, rsp, &reply->gtd,
					 UET_RC_INITIATOR_ERR);
	if (!size)
		return refuse(ses, ps, req, reply, UET_RC_AMO_UNSUPPORTED_DT);
	if (!uet_amo_supported(a->op, a->dt))
		return refuse(ses, ps, req, reply, UET_RC_AMO_UNSUPPORTED_OP);
	if (!total || total % size || (cswap && total != size) ||
	    (fetch && total > UET_ACK_DATA_MAX))
		return refuse(ses, ps, req, reply,
			      UET_RC_AMO_UNSUPPORTED_SIZE);
	/* Operands: none for READ and compare ops (in the extension). */
	if (len != (a->op == UET_AMO_READ || cswap ? 0 : total))
		return uet_rx_refuse_msg(ses, ps, req, rsp, &reply->gtd,
					 UET_RC_OP_VIOLATION);
	if (a->op != UET_AMO_READ) {
		need |= UET_MR_REMOTE_WRITE;
		cf |= UET_CF_WRITE;
	}
	if (fetch) {
		need |= UET_MR_REMOTE_READ;
		cf |= UET_CF_READ;
	}
	rc = uet_mr_check(ses, req->match_bits, req->buffer_offset, total,
			  need, &ps->ref->peer, &mr, &moff);
	if (rc != UET_RC_OK)
		return refuse(ses, ps, req, reply, rc);
	p = uet_mr_ptr(mr, moff, total);
	if (!p)
		return refuse(ses, ps, req, reply, UET_RC_BAD_ADDR);
	if ((uintptr_t)p % uet_amo_align(a->dt))
		return refuse(ses, ps, req, reply, UET_RC_AMO_UNALIGNED);
	if ((int16_t)(req->message_id - ps->rx_next) < 0 &&
	    !uet_rx_find(ps, req->message_id)) {
		/* Ran already: never twice (PDS replays its response). */
		ses->st.dup_pkts++;
		return 0;
	}
	ret = take_turn(ses, ps, req);
	if (ret)
		return ret;
	uet_amo_exec(a->op, a->dt, p,
		     cswap ? a->swap + 16 - size : len ? payload : NULL,
		     cswap ? a->compare + 16 - size : NULL,
		     fetch ? reply->data : NULL, total / size);
	ses->st.amo_ops++;
	if (fetch) {
		reply->data_len = (uint8_t)total;
		reply->gtd = true;
		rsp->format = UET_NH_RSP_DATA;
		rsp->opcode = UET_SES_RESPONSE_W_DATA;
		rsp->read_request_message_id = req->message_id;
		rsp->payload_length = (uint16_t)total;
		rsp->modified_length = (uint32_t)total;
	}
	remote_complete(ses, ps, mr->context, cf, p, total, NULL);
	return 0;
}

int uet_rma_rx(struct uet_ses *ses, struct uet_ses_pdc *ps,
	       const struct uet_ses_req *req, const uint8_t *payload,
	       size_t len, struct uet_ses_reply *reply, uet_time now)
{
	if (req->request_length > ses->cfg.max_msg_size)
		return uet_rx_refuse_msg(ses, ps, req, &reply->rsp,
					 &reply->gtd,
					 UET_RC_UNSUPPORTED_SIZE);
	switch (req->opcode) {
	case UET_SES_WRITE:
		return rx_write(ses, ps, req, payload, len, reply);
	case UET_SES_READ:
		return rx_read(ses, ps, req, len, reply, now);
	default:
		return rx_amo(ses, ps, req, payload, len, reply);
	}
}
