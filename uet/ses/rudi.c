/* RMA over RUDI, both ends (cless.c; docs/choices.md §8.1,
 * §6.4).
 *
 * Initiator: a write is cut into requests of rudi_max payload bytes; a
 * read into requests without payload, the first asking for
 * UET_SES_READ_CHUNK bytes (the SOM request has no payload_length, so its
 * size is the protocol constant, as on a PDC), every later one for what
 * one RUDI response carries inline (rudi_read_max). PDS resends each
 * until its response comes and hands SES the first one only; the
 * operation completes when every request is answered (read data placed),
 * and fails with the first error code (UET_ERR_REMOTE) or when PDS gives
 * a request up (UET_ERR_PEER).
 *
 * Target: no state at all. Every request that arrives, a duplicate too,
 * is checked on its own - the header (cless.c), the key (RC_BAD_MKEY),
 * the region being IDEMPOTENT (else RC_OP_VIOLATION: the initiator may
 * only use RUDI for such regions), permission (RC_PERM_VIOLATION) and the
 * range of the whole message (RC_BAD_ADDR), as on a PDC - then placed
 * (a duplicate writes the same bytes again) or read into the response.
 * A refusal is a response with the return code, nothing placed. No
 * completion or counter event at the target: with no record of the
 * message it cannot tell when one is whole, or raise it only once.
 */
#include <string.h>

#include "uet/err.h"

#include "ses_int.h"

uint32_t uet_rudi_cut(const struct uet_ses *ses, const struct uet_ses_msg *m)
{
	uint32_t left = m->len - m->sent;
	size_t max = m->opcode == UET_SES_WRITE ? ses->rudi_max :
		     m->sent ? ses->rudi_read_max : UET_SES_READ_CHUNK;

	return left < max ? left : (uint32_t)max;
}

/* ---- Initiator ---- */

void uet_rudi_done(struct uet_ses *ses, struct uet_ses_msg *m,
		   const struct uet_ses_pkt *pkt,
		   const struct uet_ses_rsp *rsp, const uint8_t *data,
		   size_t len)
{
	(void)ses;
	if (m->stop)
		return;
	if (!rsp || (rsp->return_code != UET_RC_OK &&
		     rsp->return_code != UET_RC_NULL)) {
		uet_msg_fail(m, UET_ERR_REMOTE,
			     rsp ? rsp->return_code : UET_RC_NULL);
		return;
	}
	if (m->opcode != UET_SES_READ)
		return;
	/* Exactly the bytes this request asked for. */
	if (rsp->format != UET_NH_RSP_DATA ||
	    rsp->opcode != UET_SES_RESPONSE_W_DATA ||
	    rsp->payload_length != len || len != pkt->len ||
	    rsp->message_offset != pkt->offset ||
	    rsp->modified_length != m->len) {
		uet_msg_fail(m, UET_ERR_REMOTE, UET_RC_UNSUPPORTED_SIZE);
		return;
	}
	if (uet_msg_read_data(m, pkt->offset, data, len) == UET_ERR_NOMEM)
		uet_msg_fail(m, UET_ERR_NOMEM, 0);
}

/* ---- Target ---- */

static void count_refusal(struct uet_ses *ses, uint8_t rc)
{
	ses->st.rudi_refused++;
	switch (rc) {
	case UET_RC_BAD_MKEY: ses->st.rma_bad_mkey++; break;
	case UET_RC_PERM_VIOLATION: ses->st.rma_perm++; break;
	case UET_RC_BAD_ADDR: ses->st.rma_bad_addr++; break;
	case UET_RC_BAD_JOB_ID:
	case UET_RC_BAD_PID:
	case UET_RC_BAD_INDEX:
		break;		/* counted by uet_cless_check */
	default: ses->st.bad_req++; break;
	}
}

/* Bytes [*off, *off + *plen) of the message this request is about, or
 * the code it is refused with. */
static uint8_t rudi_range(const struct uet_ses_req *req, size_t len,
			  size_t cap, uint32_t *off, uint32_t *plen)
{
	bool som = req->flags & UET_SES_F_SOM, eom = req->flags & UET_SES_F_EOM;
	uint32_t total = req->request_length;

	*off = som ? 0 : req->message_offset;
	if (req->opcode == UET_SES_WRITE) {
		*plen = som ? (uint32_t)len : req->payload_length;
		if (*plen != len)
			return UET_RC_OP_VIOLATION;
	} else {
		*plen = som ? (total < UET_SES_READ_CHUNK ? total :
			       UET_SES_READ_CHUNK) : req->payload_length;
		if (len || (!*plen && total) || (som && eom && *plen != total))
			return UET_RC_OP_VIOLATION;
		/* the data must fit the response */
		if (*plen > cap)
			return UET_RC_UNSUPPORTED_SIZE;
	}
	if (*off > total || *plen > total - *off)
		return UET_RC_OP_VIOLATION;
	return UET_RC_OK;
}

static uint8_t rudi_serve(struct uet_ses *ses, const struct uet_addr *peer,
			  const struct uet_ses_req *req,
			  const uint8_t *payload, size_t len,
			  struct uet_cl_reply *reply)
{
	bool write = req->opcode == UET_SES_WRITE;
	struct uet_ses_rsp *rsp = &reply->rsp;
	struct uet_ses_mr *mr;
	uint32_t off, plen;
	uint64_t moff;
	uint8_t rc;

	rc = uet_cless_check(ses, req);
	if (rc != UET_RC_OK)
		return rc;
	if (!write && req->opcode != UET_SES_READ)
		return UET_RC_UNSUPPORTED_OP;
	if (req->request_length > ses->cfg.max_msg_size)
		return UET_RC_UNSUPPORTED_SIZE;
	if (req->flags & UET_SES_F_IE)
		return UET_RC_INITIATOR_ERR;
	rc = rudi_range(req, len, reply->cap, &off, &plen);
	if (rc != UET_RC_OK)
		return rc;
	mr = uet_mr_find(ses, req->match_bits);
	if (!mr)
		return UET_RC_BAD_MKEY;
	/* docs/choices.md §8.1: only a region that says so is targeted by
	 * RUDI */
	if (!(mr->access & UET_MR_IDEMPOTENT))
		return UET_RC_OP_VIOLATION;
	rc = uet_mr_check(ses, req->match_bits, req->buffer_offset,
			  req->request_length,
			  write ? UET_MR_REMOTE_WRITE : UET_MR_REMOTE_READ,
			  peer, &mr, &moff);
	if (rc != UET_RC_OK)
		return rc;
	ses->st.rudi_served++;
	if (write) {
		uet_mr_copy(mr, moff + off, (void *)(uintptr_t)payload, plen,
			    true);
		rsp->modified_length = plen;
		return UET_RC_OK;
	}
	uet_mr_copy(mr, moff + off, reply->data, plen, false);
	reply->data_len = plen;
	rsp->format = UET_NH_RSP_DATA;
	rsp->opcode = UET_SES_RESPONSE_W_DATA;
	rsp->read_request_message_id = req->message_id;
	rsp->payload_length = (uint16_t)plen;
	rsp->modified_length = req->request_length;
	rsp->message_offset = off;
	return UET_RC_OK;
}

int uet_rudi_rx(struct uet_ses *ses, const struct uet_addr *peer,
		const struct uet_ses_req *req, const uint8_t *payload,
		size_t len, struct uet_cl_reply *reply)
{
	struct uet_ses_rsp *rsp = &reply->rsp;
	uint8_t rc;

	rsp->list = UET_SES_LIST_EXPECTED;
	rsp->message_id = req->message_id;
	rsp->job_id = req->job_id & 0xFFFFFF;
	reply->data_len = 0;
	rc = rudi_serve(ses, peer, req, payload, len, reply);
	if (rc != UET_RC_OK) {
		/* docs/choices.md §5.4: an SES error is a response with its
		 * code */
		count_refusal(ses, rc);
		reply->data_len = 0;
		rsp->format = UET_NH_RSP;
		rsp->opcode = UET_SES_RESPONSE;
		rsp->return_code = rc;
		rsp->modified_length = 0;
	}
	return 0;
}
