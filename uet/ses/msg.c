/* Outgoing messages: post, segmentation into packets with the standard SES
 * header, message_id per PDC, completion once every packet is acknowledged
 * (ses-and-libfabric-mapping §6.2, §6.3).
 *
 * A message is started on the first PDC to the peer that asks for a packet
 * (uet_ses_tx_next) and gets that PDC's next message_id; its packets then
 * all travel on that PDC, one message after the other, so the target can
 * match them in message_id order (FI_ORDER_SAS). Packets are not copied:
 * uet_ses_tx_write reads the user's buffer (or the inject copy) each time
 * PDS (re)sends.
 */
#include <string.h>

#include "ses_int.h"

static struct uet_ses_msg *msg_alloc(struct uet_ses *ses)
{
	struct uet_dlist *n = uet_dlist_pop(&ses->tx_free);

	if (!n)
		return NULL;
	ses->tx_free_n--;
	return uet_dlist_entry(n, struct uet_ses_msg, link);
}

static void msg_release(struct uet_ses *ses, struct uet_ses_msg *m)
{
	uint8_t *inject = m->inject;

	uet_dlist_del(&m->link);
	memset(m, 0, sizeof(*m));
	m->inject = inject;
	uet_dlist_add_tail(&ses->tx_free, &m->link);
	ses->tx_free_n++;
	ses->st.tx_msgs++;
}

static void msg_report(struct uet_ses *ses, struct uet_ses_msg *m)
{
	struct uet_completion c;

	if (m->reported)
		return;
	m->reported = true;
	if (!m->err && !(m->flags & UET_OPF_COMPLETION))
		return;
	memset(&c, 0, sizeof(c));
	c.context = m->context;
	c.flags = UET_CF_SEND;
	if (m->opcode == UET_SES_TAGGED_SEND)
		c.flags |= UET_CF_TAGGED;
	c.err = m->err;
	c.prov_errno = m->prov_errno;
	c.len = m->err ? 0 : m->len;
	uet_ses_complete(ses, &c);
}

/* Complete and recycle m once PDS holds none of its packets and no more
 * will be cut. */
static void msg_maybe_done(struct uet_ses *ses, struct uet_ses_msg *m)
{
	if (!(m->all_sent || m->stop) || m->done != m->handed)
		return;
	if (m->pdc && m->pdc->cur == m)
		m->pdc->cur = NULL;
	msg_report(ses, m);
	msg_release(ses, m);
}

static void msg_fail(struct uet_ses_msg *m, int err, int prov_errno)
{
	if (!m->err) {
		m->err = err;
		m->prov_errno = prov_errno;
	}
	m->stop = true;
}

int uet_msg_post(struct uet_ses *ses, const struct uet_op *op, uet_time now)
{
	const uint32_t ok = UET_OPF_COMPLETION | UET_OPF_INJECT |
			    UET_OPF_CQ_DATA | UET_OPF_DELIVERY;
	struct uet_ses_msg *m;
	size_t len = 0, i;

	if ((op->flags & ~ok) || op->iov_count > UET_SES_IOV_MAX ||
	    (op->iov_count && !op->iov) || op->peer.af == UET_AF_NONE)
		return UET_ERR_INVAL;
	for (i = 0; i < op->iov_count; i++) {
		if (op->iov[i].len && !op->iov[i].base)
			return UET_ERR_INVAL;
		if (op->iov[i].len > SIZE_MAX - len)
			return UET_ERR_MSGSIZE;
		len += op->iov[i].len;
	}
	if (len > ses->cfg.max_msg_size)
		return UET_ERR_MSGSIZE;
	if ((op->flags & UET_OPF_INJECT) && len > ses->cfg.inject_size)
		return UET_ERR_MSGSIZE;
	m = msg_alloc(ses);
	if (!m)
		return UET_ERR_AGAIN;

	m->context = op->context;
	m->flags = op->flags;
	m->opcode = op->type == UET_OP_TSEND ? UET_SES_TAGGED_SEND :
					       UET_SES_SEND;
	m->peer = op->peer;
	m->tag = op->type == UET_OP_TSEND ? op->tag : 0;
	m->cq_data = op->cq_data;
	m->len = (uint32_t)len;
	if (op->flags & UET_OPF_INJECT) {
		size_t off = 0;

		for (i = 0; i < op->iov_count; i++) {
			if (op->iov[i].len)
				memcpy(m->inject + off, op->iov[i].base,
				       op->iov[i].len);
			off += op->iov[i].len;
		}
		m->iov[0].base = m->inject;
		m->iov[0].len = len;
		m->iov_count = 1;
	} else {
		for (i = 0; i < op->iov_count; i++)
			m->iov[i] = op->iov[i];
		m->iov_count = op->iov_count;
	}
	uet_dlist_add_tail(&ses->tx_pending, &m->link);
	uet_pds_wake(ses->pds, &m->peer, now);
	uet_msg_rewake(ses, now);
	return 0;
}

bool uet_msg_pending(const struct uet_ses *ses, const struct uet_addr *peer)
{
	const struct uet_dlist *pos;

	for (pos = ses->tx_pending.next; pos != &ses->tx_pending;
	     pos = pos->next) {
		const struct uet_ses_msg *m =
			uet_dlist_entry(pos, struct uet_ses_msg, link);

		if (uet_addr_equal(&m->peer, peer))
			return true;
	}
	return false;
}

/* The oldest pending message for the PDC's peer, started on it. */
static struct uet_ses_msg *msg_start(struct uet_ses *ses,
				     struct uet_ses_pdc *ps)
{
	struct uet_dlist *pos;

	for (pos = ses->tx_pending.next; pos != &ses->tx_pending;
	     pos = pos->next) {
		struct uet_ses_msg *m =
			uet_dlist_entry(pos, struct uet_ses_msg, link);

		if (!uet_addr_equal(&m->peer, &ps->ref->peer))
			continue;
		uet_dlist_del(&m->link);
		uet_dlist_add_tail(&ps->tx_msgs, &m->link);
		m->pdc = ps;
		m->msg_id = ps->tx_msg_id++;
		m->started = true;
		return m;
	}
	return NULL;
}

int uet_ses_tx_next(struct uet_ses *ses, struct uet_pdc_ref *pdc,
		    struct uet_ses_pkt *pkt, uet_time now)
{
	struct uet_ses_pdc *ps;
	struct uet_ses_msg *m;
	uint32_t len;

	(void)now;
	if (!pdc->initiator)
		return 0;
	ps = uet_ses_pdc_state(ses, pdc);
	if (!ps)
		return 0;
	m = ps->cur;
	if (m && (m->all_sent || m->stop))
		m = ps->cur = NULL;
	if (!m) {
		m = msg_start(ses, ps);
		if (!m)
			return 0;
		ps->cur = m;
	}
	len = m->len - m->sent;
	if (len > ses->payload_max)
		len = (uint32_t)ses->payload_max;
	pkt->msg = m;
	pkt->offset = m->sent;
	pkt->len = len;
	pkt->next_hdr = UET_NH_REQ_STD;
	pkt->eom = m->sent + len == m->len;
	m->sent += len;
	m->handed++;
	if (pkt->eom) {
		m->all_sent = true;
		ps->cur = NULL;
	}
	return 1;
}

/* Copy len message bytes from offset off out of the iov. */
static void msg_gather(const struct uet_ses_msg *m, uint8_t *dst, size_t off,
		       size_t len)
{
	size_t i;

	for (i = 0; i < m->iov_count && len; i++) {
		size_t n;

		if (off >= m->iov[i].len) {
			off -= m->iov[i].len;
			continue;
		}
		n = m->iov[i].len - off;
		if (n > len)
			n = len;
		memcpy(dst, (const uint8_t *)m->iov[i].base + off, n);
		dst += n;
		len -= n;
		off = 0;
	}
}

int uet_ses_tx_write(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		     const struct uet_ses_pkt *pkt, uint8_t *buf, size_t cap)
{
	const struct uet_ses_msg *m = pkt->msg;
	struct uet_ses_req req;
	bool som = pkt->offset == 0;
	int n;

	memset(&req, 0, sizeof(req));
	req.format = UET_NH_REQ_STD;
	req.opcode = m->opcode;
	/* We address job-relative (ses-and-libfabric-mapping §1.2). */
	req.flags = UET_SES_F_REL;
	if (som)
		req.flags |= UET_SES_F_SOM;
	if (pkt->eom)
		req.flags |= UET_SES_F_EOM;
	if (m->flags & UET_OPF_DELIVERY)
		req.flags |= UET_SES_F_DC;
	/* Flushed: the user's buffer is no longer ours to read; a resend
	 * tells the target the message ended in error (mapping §4.9). */
	if (m->reported)
		req.flags |= UET_SES_F_IE;
	req.message_id = m->msg_id;
	req.request_length = m->len;
	req.job_id = ses->cfg.job_id & 0xFFFFFF;
	req.pid_on_fep = uet_ses_addr_pid(&pdc->peer);
	req.resource_index = uet_ses_addr_ri(&pdc->peer);
	req.initiator = ses->initiator;
	req.match_bits = m->tag;
	if (som) {
		if (m->flags & UET_OPF_CQ_DATA) {
			req.flags |= UET_SES_F_HD;
			req.header_data = m->cq_data;
		}
	} else {
		req.payload_length = (uint16_t)pkt->len;
		req.message_offset = pkt->offset;
	}
	if (cap < UET_SES_STD_LEN + (size_t)pkt->len)
		return UET_ERR_WIRE_NOSPACE;
	n = uet_ses_req_encode(buf, cap, &req);
	if (n < 0)
		return n;
	if (m->reported)
		memset(buf + n, 0, pkt->len);
	else
		msg_gather(m, buf + n, pkt->offset, pkt->len);
	return n + (int)pkt->len;
}

void uet_ses_tx_acked(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		      const struct uet_ses_pkt *pkt,
		      const struct uet_ses_reply *reply, uet_time now)
{
	const struct uet_ses_rsp *rsp = reply ? &reply->rsp : NULL;
	struct uet_ses_msg *m = pkt->msg;

	(void)pdc;
	(void)now;
	m->done++;
	/* An SES error arrives as a response with an error return code
	 * (mapping §6.1); the whole message then fails. */
	if (rsp && rsp->return_code != UET_RC_OK &&
	    rsp->return_code != UET_RC_NULL)
		msg_fail(m, UET_ERR_REMOTE, rsp->return_code);
	msg_maybe_done(ses, m);
}

void uet_ses_tx_failed(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		       const struct uet_ses_pkt *pkt, int err, uint8_t code)
{
	struct uet_ses_pdc *ps = pdc->ses_state;
	struct uet_ses_msg *m = pkt->msg;

	(void)err;
	if (ps) {
		ps->failed = true;
		ps->fail_code = code;
	}
	m->done++;
	msg_fail(m, UET_ERR_PEER, code);
	msg_maybe_done(ses, m);
}

/* PDS holds no packet of this PDC any more: what is still open on it will
 * never be acknowledged. */
void uet_msg_pdc_closed(struct uet_ses *ses, struct uet_ses_pdc *ps)
{
	struct uet_dlist *pos, *tmp;

	uet_dlist_foreach_safe(pos, tmp, &ps->tx_msgs) {
		struct uet_ses_msg *m =
			uet_dlist_entry(pos, struct uet_ses_msg, link);

		ps->failed = true;
		msg_fail(m, UET_ERR_PEER, ps->fail_code);
		m->done = m->handed;
		m->pdc = NULL;
		msg_maybe_done(ses, m);
	}
	ps->cur = NULL;
}

void uet_msg_flush(struct uet_ses *ses)
{
	struct uet_dlist *pos, *tmp, *p2, *t2;

	uet_dlist_foreach_safe(pos, tmp, &ses->tx_pending) {
		struct uet_ses_msg *m =
			uet_dlist_entry(pos, struct uet_ses_msg, link);

		msg_fail(m, UET_ERR_CANCELED, 0);
		msg_maybe_done(ses, m);
	}
	uet_dlist_foreach_safe(pos, tmp, &ses->pdcs) {
		struct uet_ses_pdc *ps =
			uet_dlist_entry(pos, struct uet_ses_pdc, link);

		uet_dlist_foreach_safe(p2, t2, &ps->tx_msgs) {
			struct uet_ses_msg *m =
				uet_dlist_entry(p2, struct uet_ses_msg, link);

			msg_fail(m, UET_ERR_CANCELED, 0);
			/* Report now; the descriptor stays until PDS lets go
			 * of its packets. */
			msg_report(ses, m);
			msg_maybe_done(ses, m);
		}
	}
}

/* The PDC to peer failed: what is queued for it fails too (in post order,
 * after the messages that were on the PDC). */
void uet_msg_fail_pending(struct uet_ses *ses, const struct uet_addr *peer,
			  int err, int prov_errno)
{
	struct uet_dlist *pos, *tmp;

	uet_dlist_foreach_safe(pos, tmp, &ses->tx_pending) {
		struct uet_ses_msg *m =
			uet_dlist_entry(pos, struct uet_ses_msg, link);

		if (!uet_addr_equal(&m->peer, peer))
			continue;
		msg_fail(m, err, prov_errno);
		msg_maybe_done(ses, m);
	}
}

/* PDS closed a PDC while sends were queued behind it (it should not: it
 * asks uet_ses_pdc_busy first). SES cannot wake PDS from inside that call
 * without a current time, so it does it at the next post, which has one
 * and is not inside a PDS call. */
void uet_msg_rewake(struct uet_ses *ses, uet_time now)
{
	struct uet_dlist *pos;
	const struct uet_addr *last = NULL;

	if (!ses->rewake)
		return;
	ses->rewake = false;
	for (pos = ses->tx_pending.next; pos != &ses->tx_pending;
	     pos = pos->next) {
		struct uet_ses_msg *m =
			uet_dlist_entry(pos, struct uet_ses_msg, link);

		if (last && uet_addr_equal(last, &m->peer))
			continue;
		last = &m->peer;
		uet_pds_wake(ses->pds, &m->peer, now);
	}
}
