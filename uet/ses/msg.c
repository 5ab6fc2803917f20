/* Outgoing messages: post, segmentation into packets with the standard SES
 * header, message_id per PDC, completion once every packet is acknowledged
 * (docs/choices.md §5.5), for every operation an
 * initiator starts: sends (eager or rendezvous), RMA writes and reads,
 * atomics.
 *
 * A message is started on the first PDC to the peer that asks for a packet
 * (uet_ses_tx_next) and gets that PDC's next message_id; its packets then
 * all travel on that PDC, one message after the other, so the target can
 * match them in message_id order (FI_ORDER_SAS). Packets are not copied:
 * uet_ses_tx_write reads the user's buffer (or the inject copy) each time
 * PDS (re)sends, or with uet_ses_tx_ext leaves the payload there for the
 * port to gather (zero-copy send).
 *
 * Per type:
 * - WRITE: cut like a send; mem_key = rkey, buffer_offset = raddr, each
 *   packet lands at buffer_offset + message_offset (docs/choices.md §6.1);
 * - READ: request packets without payload; the first asks for
 *   UET_SES_READ_CHUNK bytes (the SOM request has no length field), each
 *   later one for as many full return packets as payload_length can name
 *   (read_chunk; the last for the rest); the data comes in
 *   the ACK (<= UET_ACK_DATA_MAX bytes) or in the return direction
 *   (uet_ses_rx_ret); complete when every request packet is acknowledged
 *   and every byte arrived (docs/choices.md §6.2);
 * - atomics: one packet with the atomic or compare-and-swap extension,
 *   operands big-endian (amo.c); fetched values come in the ACK;
 * - rendezvous sends (rndv.c): one eager packet with the rendezvous
 *   extension; complete when it is acknowledged and the target has read
 *   the rest.
 * UET_OPF_FENCE holds a message (and every later one to the peer) until
 * nothing earlier to that peer is in flight.
 *
 * Connectionless messages (RUDI, UUD: cless.c) wait on the same pending
 * list but are started by PDS's connectionless pull, never on a PDC; a
 * fence counts them like the others.
 */
#include <stdlib.h>
#include <string.h>

#include "uet/alloc.h"
#include "iov.h"
#include "ses_int.h"

static struct uet_ses_msg *msg_alloc(struct uet_ses *ses)
{
	struct uet_list *n = uet_list_pop(&ses->tx_free);

	if (!n)
		return NULL;
	ses->tx_free_n--;
	return uet_container_of(n, struct uet_ses_msg, link);
}

/* The oldest message waiting for a PDC to peer (connectionless ones need
 * none), or NULL. */
static const struct uet_ses_msg *msg_first_pending(const struct uet_ses *ses,
						   const struct uet_addr *peer)
{
	const struct uet_ses_peer *q = uet_pending_peer(ses, peer);
	const struct uet_list *pos;

	if (!q)
		return NULL;
	for (pos = q->pending.next; pos != &q->pending; pos = pos->next) {
		const struct uet_ses_msg *m =
			uet_container_of(pos, struct uet_ses_msg, plink);

		if (!m->cl_mode)
			return m;
	}
	return NULL;
}

static bool fence_pending(const struct uet_ses *ses,
			  const struct uet_addr *peer)
{
	const struct uet_ses_msg *m = msg_first_pending(ses, peer);

	return m && (m->flags & UET_OPF_FENCE);
}

static void msg_release(struct uet_ses *ses, struct uet_ses_msg *m)
{
	uint8_t *inject = m->inject;
	struct uet_addr peer = m->peer;
	bool started = m->started;

	uet_pending_del(m);
	uet_reasm_fini(&m->rx);
	if (m->rmr)
		uet_rndv_unexpose(ses, m);
	ses->st.tx_msgs++;
	if (m->internal) {
		uet_free(m);
	} else {
		memset(m, 0, sizeof(*m));
		m->inject = inject;
		uet_list_add(&ses->tx_free, &m->link);
		ses->tx_free_n++;
	}
	/* A fenced message may start now that this one is gone. */
	if (started && fence_pending(ses, &peer))
		uet_pds_wake(ses->pds, &peer, ses->now);
}

static uint32_t msg_cf(const struct uet_ses_msg *m)
{
	switch (m->type) {
	case UET_OP_TSEND:
		return UET_CF_SEND | UET_CF_TAGGED;
	case UET_OP_WRITE:
		return UET_CF_WRITE;
	case UET_OP_READ:
		return UET_CF_READ;
	case UET_OP_ATOMIC:
		return UET_CF_ATOMIC | UET_CF_WRITE;
	case UET_OP_FETCH_ATOMIC:
	case UET_OP_CMP_ATOMIC:
		return UET_CF_ATOMIC | UET_CF_READ;
	default:
		return UET_CF_SEND;
	}
}

static void msg_report(struct uet_ses *ses, struct uet_ses_msg *m)
{
	struct uet_completion c;

	if (m->reported)
		return;
	m->reported = true;
	if (m->internal) {
		uet_rndv_read_done(ses, m);
		return;
	}
	if (!m->err && !(m->flags & UET_OPF_COMPLETION))
		return;
	memset(&c, 0, sizeof(c));
	c.context = m->context;
	c.flags = msg_cf(m);
	c.err = m->err;
	c.prov_errno = m->prov_errno;
	c.len = m->err ? 0 : m->len;
	uet_ses_complete(ses, &c);
}

/* Has everything the message waits for arrived? */
static bool msg_whole(const struct uet_ses_msg *m)
{
	if (m->stop)
		return true;
	if (m->opcode == UET_SES_READ)
		return uet_reasm_done(&m->rx);
	if (m->rmr)
		return m->read_done;
	return true;
}

/* Complete and recycle m once PDS holds none of its packets, no more
 * will be cut and nothing else is awaited. */
void uet_msg_maybe_done(struct uet_ses *ses, struct uet_ses_msg *m)
{
	if (!(m->all_sent || m->stop) || m->done != m->handed ||
	    !msg_whole(m))
		return;
	if (m->pdc && m->pdc->cur == m)
		m->pdc->cur = NULL;
	if (ses->cl_cur == m)
		ses->cl_cur = NULL;
	msg_report(ses, m);
	msg_release(ses, m);
}

void uet_msg_fail(struct uet_ses_msg *m, int err, int prov_errno)
{
	if (!m->err) {
		m->err = err;
		m->prov_errno = prov_errno;
	}
	m->stop = true;
}

static int iov_sum(const struct uet_iov *iov, size_t n, size_t *len)
{
	size_t i;

	*len = 0;
	if (n > UET_SES_IOV_MAX || (n && !iov))
		return UET_ERR_INVAL;
	for (i = 0; i < n; i++) {
		if (iov[i].len && !iov[i].base)
			return UET_ERR_INVAL;
		if (iov[i].len > SIZE_MAX - *len)
			return UET_ERR_MSGSIZE;
		*len += iov[i].len;
	}
	return 0;
}

/* Copy len bytes between buf and an iov from its offset off: into the
 * iov (scatter) or out of it (gather). */
static void iov_copy(const struct uet_iov *iov, size_t n, size_t off,
		     uint8_t *buf, size_t len, bool scatter)
{
	size_t i;

	for (i = 0; i < n && len; i++) {
		uint8_t *p;
		size_t k;

		if (off >= iov[i].len) {
			off -= iov[i].len;
			continue;
		}
		p = (uint8_t *)iov[i].base + off;
		k = iov[i].len - off;
		if (k > len)
			k = len;
		if (p == buf)
			;	/* already there (direct placement) */
		else if (scatter)
			memcpy(p, buf, k);
		else
			memcpy(buf, p, k);
		buf += k;
		len -= k;
		off = 0;
	}
}

/* Atomics: element counts and operands (uet_ses_amo_valid says what may
 * be posted). len is the operand bytes of op->iov. */
static int amo_post(struct uet_ses *ses, struct uet_ses_msg *m,
		    const struct uet_op *op, size_t len)
{
	size_t size = uet_amo_size(op->amo_dt), res, cmp, count, max;
	uint8_t tmp[16];
	int rc;

	if (!size)
		return UET_ERR_INVAL;
	if (op->type != UET_OP_ATOMIC) {
		rc = iov_sum(op->result_iov, op->result_count, &res);
		if (rc)
			return rc;
		/* READ sends no operand: its count is the result's. */
		count = op->amo_op == UET_AMO_READ ? res / size : len / size;
		if (res != count * size)
			return UET_ERR_INVAL;
	} else {
		count = len / size;
	}
	if (op->amo_op != UET_AMO_READ && len != count * size)
		return UET_ERR_INVAL;
	max = uet_ses_amo_valid(op->amo_op, op->amo_dt, op->type,
				ses->cfg.mtu);
	if (!count || count > max)
		return UET_ERR_INVAL;
	m->amo_op = op->amo_op;
	m->amo_dt = op->amo_dt;
	m->len = (uint32_t)(count * size);
	if (op->type == UET_OP_CMP_ATOMIC) {
		rc = iov_sum(op->compare_iov, op->compare_count, &cmp);
		if (rc || cmp != size)
			return UET_ERR_INVAL;
		iov_copy(op->compare_iov, op->compare_count, 0, tmp, size,
			 false);
		uet_amo_to_wire(m->amo_dt, m->amo_cmp + 16 - size, tmp, 1);
		iov_copy(op->iov, op->iov_count, 0, tmp, size, false);
		uet_amo_to_wire(m->amo_dt, m->amo_swp + 16 - size, tmp, 1);
	}
	if (op->type != UET_OP_ATOMIC) {
		memcpy(m->res, op->result_iov,
		       op->result_count * sizeof(*op->result_iov));
		m->res_count = op->result_count;
	}
	m->opcode = op->type == UET_OP_ATOMIC ? UET_SES_ATOMIC :
						UET_SES_FETCHING_ATOMIC;
	return 0;
}

static uint32_t post_flags_ok(uint8_t type)
{
	switch (type) {
	case UET_OP_SEND:
	case UET_OP_TSEND:
	case UET_OP_WRITE:
		return UET_OPF_COMPLETION | UET_OPF_INJECT | UET_OPF_CQ_DATA |
		       UET_OPF_DELIVERY | UET_OPF_FENCE;
	case UET_OP_READ:
		return UET_OPF_COMPLETION | UET_OPF_DELIVERY | UET_OPF_FENCE;
	default:
		return UET_OPF_COMPLETION | UET_OPF_INJECT |
		       UET_OPF_DELIVERY | UET_OPF_FENCE;
	}
}

static int msg_fill(struct uet_ses *ses, struct uet_ses_msg *m,
		    const struct uet_op *op, size_t len)
{
	size_t i;
	int rc;

	m->context = op->context;
	m->flags = op->flags;
	m->type = op->type;
	m->peer = op->peer;
	m->rx_ctx = op->rx_ctx;
	m->cq_data = op->cq_data;
	m->len = (uint32_t)len;
	m->rkey = op->rkey;
	m->raddr = op->raddr;
	switch (op->type) {
	case UET_OP_TSEND:
		m->opcode = UET_SES_TAGGED_SEND;
		m->tag = op->tag;
		break;
	case UET_OP_WRITE:
		m->opcode = UET_SES_WRITE;
		break;
	case UET_OP_READ:
		m->opcode = UET_SES_READ;
		break;
	case UET_OP_ATOMIC:
	case UET_OP_FETCH_ATOMIC:
	case UET_OP_CMP_ATOMIC:
		rc = amo_post(ses, m, op, len);
		if (rc)
			return rc;
		break;
	default:
		/* docs/protocol.md §5.1: a UUD datagram is a DATAGRAM_SEND */
		m->opcode = m->cl_mode == UET_CL_UUD ? UET_SES_DATAGRAM_SEND :
						       UET_SES_SEND;
		break;
	}
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
	if (m->opcode == UET_SES_READ)
		uet_reasm_init(&m->rx, m->len);
	/* Large sends: the rest is read by the target (rndv.c). */
	if ((op->type == UET_OP_SEND || op->type == UET_OP_TSEND) &&
	    ses->cfg.rndv_threshold && len > ses->cfg.rndv_threshold &&
	    !(op->flags & UET_OPF_INJECT) && !m->cl_mode)
		return uet_rndv_expose(ses, m);
	return 0;
}

int uet_msg_post(struct uet_ses *ses, const struct uet_op *op, uet_time now)
{
	struct uet_ses_msg *m;
	uint8_t mode;
	size_t len;
	int rc;

	if ((op->flags & ~post_flags_ok(op->type)) ||
	    op->peer.af == UET_AF_NONE)
		return UET_ERR_INVAL;
	rc = iov_sum(op->iov, op->iov_count, &len);
	if (rc)
		return rc;
	if (len > ses->cfg.max_msg_size)
		return UET_ERR_MSGSIZE;
	if ((op->flags & UET_OPF_INJECT) && len > ses->cfg.inject_size)
		return UET_ERR_MSGSIZE;
	rc = uet_cless_mode(ses, op, len, &mode);
	if (rc)
		return rc;
	m = msg_alloc(ses);
	if (!m)
		return UET_ERR_AGAIN;
	uet_pending_sweep(ses);
	m->cl_mode = mode;
	rc = msg_fill(ses, m, op, len);
	if (!rc) {
		rc = uet_msg_queue(ses, m, now);
		if (rc && m->rmr)
			uet_rndv_unexpose(ses, m);
	}
	if (rc) {
		/* as if never posted */
		uint8_t *inject = m->inject;

		uet_reasm_fini(&m->rx);
		memset(m, 0, sizeof(*m));
		m->inject = inject;
		uet_list_add(&ses->tx_free, &m->link);
		ses->tx_free_n++;
	}
	return rc;
}

int uet_msg_queue(struct uet_ses *ses, struct uet_ses_msg *m, uet_time now)
{
	int rc = uet_pending_add(ses, m);

	if (rc)
		return rc;
	if (m->cl_mode)
		uet_pds_wake_cl(ses->pds, now);
	else
		uet_pds_wake(ses->pds, &m->peer, now);
	uet_msg_rewake(ses, now);
	return 0;
}

bool uet_msg_pending(const struct uet_ses *ses, const struct uet_addr *peer)
{
	return msg_first_pending(ses, peer) != NULL;
}

/* Is anything to peer started and not finished (FENCE)? */
static bool peer_busy(const struct uet_ses *ses, const struct uet_addr *peer)
{
	const struct uet_list *pos;

	for (pos = ses->pdcs.next; pos != &ses->pdcs; pos = pos->next) {
		const struct uet_ses_pdc *ps =
			uet_container_of(pos, struct uet_ses_pdc, link);

		if (ps->ref && ps->ref->initiator &&
		    uet_addr_equal(&ps->ref->peer, peer) &&
		    !uet_list_empty(&ps->tx_msgs))
			return true;
	}
	return uet_cless_busy(ses, peer);
}

/* The oldest pending message for the PDC's peer, started on it. */
static struct uet_ses_msg *msg_start(struct uet_ses *ses,
				     struct uet_ses_pdc *ps)
{
	struct uet_ses_peer *q = uet_pending_peer(ses, &ps->ref->peer);
	struct uet_list *pos;
	bool cl_ahead = false;

	if (!q)
		return NULL;
	for (pos = q->pending.next; pos != &q->pending; pos = pos->next) {
		struct uet_ses_msg *m =
			uet_container_of(pos, struct uet_ses_msg, plink);

		if (m->cl_mode) {
			cl_ahead = true;	/* PDS pulls it separately */
			continue;
		}
		/* A fence holds it, and what follows it, until the peer has
		 * nothing of ours in flight (msg_release wakes PDS). */
		if ((m->flags & UET_OPF_FENCE) &&
		    (cl_ahead || peer_busy(ses, &m->peer)))
			return NULL;
		uet_pending_del(m);
		uet_list_add_tail(&ps->tx_msgs, &m->link);
		m->pdc = ps;
		m->msg_id = ps->tx_msg_id++;
		m->started = true;
		/* connectionless messages behind the fence may go now */
		if (m->flags & UET_OPF_FENCE)
			uet_pds_wake_cl(ses->pds, ses->now);
		return m;
	}
	return NULL;
}

/* Bytes a READ request after the first asks for: as many return packets
 * of our size as the 14-bit payload_length can name. The target cuts its
 * answer into packets of its own size (rma.c), so ends with different
 * MTUs still agree; a request per packet would cap reads at one
 * request's round of the window. */
static uint32_t read_chunk(const struct uet_ses *ses,
			   const struct uet_addr *peer)
{
	size_t pkt = uet_ses_ret_payload_to(ses, peer);

	return (uint32_t)(UET_SES_PAYLOAD_LIMIT / pkt * pkt);
}

/* Is m's success reported when its ACKs come (UET_OPF_COMPLETION), not
 * at post (UET_OPF_INJECT)? Then its sender waits for those ACKs. */
static bool msg_waited(const struct uet_ses_msg *m)
{
	return (m->flags & (UET_OPF_COMPLETION | UET_OPF_INJECT)) ==
	       UET_OPF_COMPLETION;
}

/* A message of n - 1 full packets and a short one, whose sender waits
 * for its ACK, while the peer's ACK for our last receive waits to ride
 * behind it (pkt->even_max, from PDS): a GSO train takes one short
 * packet only, at its end, so that ACK would leave as a datagram of its
 * own, and the peer's send completion waits for it. Cut into k equal
 * packets instead, k = n or n + 1 dividing len (and within the hint),
 * and the ACK ends the train. pp_median, 6 interleaved rounds: 16 KiB on
 * loopback (2 packets) 25.9 -> 16.9 us, 32 KiB (3 -> 4) 32.5 -> 22.9;
 * across a veth at MTU 1500, 4 KiB (3 -> 4) 18.8 -> 14.8, 5000 B (4)
 * 20.4 -> 16.4. Two more packets (8 KiB there, 6 -> 8) gained nothing,
 * three (12 KiB, 9 -> 12) lost. */
static uint32_t msg_even(const struct uet_ses_msg *m, size_t max,
			 unsigned even_max)
{
	uint32_t n, k, top;

	if (!even_max || m->len <= max || !msg_waited(m))
		return 0;
	n = (uint32_t)((m->len + max - 1) / max);
	if (m->len % n == 0 && m->len / n == max)
		return 0;	/* already even */
	top = n + 1 < even_max ? n + 1 : even_max;
	for (k = n; k <= top; k++)
		if (m->len % k == 0)
			return m->len / k;
	return 0;
}

/* Payload (READ: requested) bytes of the next packet of m. */
static uint32_t msg_cut(const struct uet_ses *ses, struct uet_ses_msg *m,
			unsigned even_max)
{
	uint32_t left = m->len - m->sent, chunk;
	size_t max;

	switch (m->opcode) {
	case UET_SES_READ:
		chunk = m->sent ? read_chunk(ses, &m->peer) :
				  UET_SES_READ_CHUNK;
		return left < chunk ? left : chunk;
	case UET_SES_ATOMIC:
	case UET_SES_FETCHING_ATOMIC:
		/* One packet; READ and compare ops carry no payload. */
		return m->amo_op == UET_AMO_READ ||
		       uet_ses_req_ext(m->opcode, m->amo_op) ==
			       UET_SES_EXT_CSWAP ? 0 : left;
	case UET_SES_RENDEZVOUS_SEND:
	case UET_SES_RENDEZVOUS_TSEND:
		return m->eager;
	default:
		max = uet_ses_payload_to(ses, &m->peer);
		if (!m->sent)
			m->seg = msg_even(m, max, even_max);
		if (m->seg)
			max = m->seg;
		return left < max ? left : (uint32_t)max;
	}
}

/* The messages waiting for peer: their payload bytes in pkt->left, how
 * many in pkt->queued. */
static void msg_queued(const struct uet_ses *ses, const struct uet_addr *peer,
		       struct uet_ses_pkt *pkt)
{
	const struct uet_ses_peer *q = uet_pending_peer(ses, peer);
	uint64_t n = q ? q->bytes : 0;

	pkt->left = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	pkt->queued = !q ? 0 : q->msgs > UINT8_MAX ? UINT8_MAX :
		      (uint8_t)q->msgs;
}

int uet_ses_tx_next(struct uet_ses *ses, struct uet_pdc_ref *pdc,
		    struct uet_ses_pkt *pkt, uet_time now)
{
	struct uet_ses_pdc *ps;
	struct uet_ses_msg *m;
	uint32_t len;

	if (now > ses->now)
		ses->now = now;
	ps = uet_ses_pdc_state(ses, pdc);
	if (!ps)
		return 0;
	if (!pdc->initiator)
		return uet_rma_ret_next(ses, ps, pkt);
	m = ps->cur;
	if (m && (m->all_sent || m->stop))
		m = ps->cur = NULL;
	if (!m) {
		m = msg_start(ses, ps);
		if (!m)
			return 0;
		ps->cur = m;
	}
	len = msg_cut(ses, m, pkt->even_max);
	pkt->msg = m;
	pkt->offset = m->sent;
	pkt->len = len;
	pkt->next_hdr = UET_NH_REQ_STD;
	switch (m->opcode) {
	case UET_SES_ATOMIC:
	case UET_SES_FETCHING_ATOMIC:
	case UET_SES_RENDEZVOUS_SEND:
	case UET_SES_RENDEZVOUS_TSEND:
		/* Single-packet messages. */
		m->sent = m->len;
		break;
	default:
		m->sent += len;
		break;
	}
	pkt->eom = m->sent == m->len;
	pkt->waited = msg_waited(m);
	m->handed++;
	pkt->left = m->len - m->sent;
	if (pkt->eom) {
		m->all_sent = true;
		ps->cur = NULL;
		msg_queued(ses, &ps->ref->peer, pkt);
	}
	return 1;
}

/* Copy len message bytes from offset off out of the iov. */
static void msg_gather(const struct uet_ses_msg *m, uint8_t *dst, size_t off,
		       size_t len)
{
	iov_copy(m->iov, m->iov_count, off, dst, len, false);
}

static void req_fill(struct uet_ses *ses, const struct uet_addr *peer,
		     const struct uet_ses_msg *m, const struct uet_ses_pkt *pkt,
		     struct uet_ses_req *req)
{
	bool som = pkt->offset == 0;

	memset(req, 0, sizeof(*req));
	req->format = UET_NH_REQ_STD;
	req->opcode = m->opcode;
	/* We address job-relative (docs/choices.md §1.4). */
	req->flags = UET_SES_F_REL;
	if (som)
		req->flags |= UET_SES_F_SOM;
	if (pkt->eom)
		req->flags |= UET_SES_F_EOM;
	if (m->flags & UET_OPF_DELIVERY)
		req->flags |= UET_SES_F_DC;
	/* Flushed: the user's buffer is no longer ours to read; a resend
	 * tells the target the message ended in error (docs/choices.md
	 * §5.6). */
	if (m->reported && !m->internal)
		req->flags |= UET_SES_F_IE;
	req->message_id = m->msg_id;
	req->request_length = m->len;
	req->job_id = ses->cfg.job_id & 0xFFFFFF;
	req->pid_on_fep = uet_addr_pid(peer);
	req->resource_index = (uint16_t)((uet_addr_ri(peer) + m->rx_ctx) &
					 0xFFF);
	req->initiator = ses->initiator;
	switch (m->opcode) {
	case UET_SES_WRITE:
	case UET_SES_READ:
	case UET_SES_ATOMIC:
	case UET_SES_FETCHING_ATOMIC:
		req->match_bits = m->rkey;
		req->buffer_offset = m->raddr;
		break;
	default:
		req->match_bits = m->tag;
		break;
	}
	if (som) {
		if (m->flags & UET_OPF_CQ_DATA) {
			req->flags |= UET_SES_F_HD;
			req->header_data = m->cq_data;
		}
	} else {
		req->payload_length = (uint16_t)pkt->len;
		req->message_offset = pkt->offset;
	}
	switch (uet_ses_req_ext(m->opcode, m->amo_op)) {
	case UET_SES_EXT_CSWAP:
		memcpy(req->amo.compare, m->amo_cmp, 16);
		memcpy(req->amo.swap, m->amo_swp, 16);
		/* fall through */
	case UET_SES_EXT_AMO:
		req->amo.op = m->amo_op;
		req->amo.dt = m->amo_dt;
		break;
	case UET_SES_EXT_RNDV:
		req->rndv.eager_length = m->eager;
		req->rndv.read_pid_on_fep = ses->cfg.pid_on_fep & 0xFFF;
		req->rndv.read_resource_index = ses->cfg.resource_index & 0xFFF;
		req->rndv.read_offset = m->eager;
		req->rndv.read_match_bits = m->rmr->key;
		break;
	default:
		break;
	}
}

void uet_ses_tx_ext(struct uet_ses *ses, struct uet_iov *ext)
{
	ses->tx_ext = ext;
}

int uet_ses_tx_write(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		     const struct uet_ses_pkt *pkt, uint8_t *buf, size_t cap)
{
	/* Each write says whether its payload stayed out: one that copies
	 * must not leave an earlier write's ext standing. */
	if (ses->tx_ext)
		*ses->tx_ext = (struct uet_iov){ NULL, 0 };
	if (pkt->next_hdr == UET_NH_RSP_DATA)
		return uet_rma_ret_write(ses, pdc, pkt, buf, cap, ses->tx_ext);
	return uet_msg_write(ses, &pdc->peer, pkt, buf, cap, ses->tx_ext);
}

/* The request header and payload of a packet of ours to peer (on a PDC,
 * or connectionless); with ext, the payload may stay where it is
 * (uet_ses_tx_ext). */
int uet_msg_write(struct uet_ses *ses, const struct uet_addr *peer,
		  const struct uet_ses_pkt *pkt, uint8_t *buf, size_t cap,
		  struct uet_iov *ext)
{
	const struct uet_ses_msg *m = pkt->msg;
	bool amo = m->opcode == UET_SES_ATOMIC ||
		   m->opcode == UET_SES_FETCHING_ATOMIC;
	struct uet_ses_req req;
	size_t plen;
	void *src;
	int n;

	req_fill(ses, peer, m, pkt, &req);
	/* A read request carries no payload. */
	plen = m->opcode == UET_SES_READ ? 0 : pkt->len;
	if (cap < (size_t)uet_ses_req_len(&req) + plen)
		return UET_ERR_WIRE_NOSPACE;
	n = uet_ses_req_encode(buf, cap, &req);
	if (n < 0)
		return n;
	if (m->reported && !m->internal) {
		memset(buf + n, 0, plen);
	} else if (ext && !amo && plen >= UET_SES_ZCOPY_MIN &&
		   (src = uet_iov_span(m->iov, m->iov_count, pkt->offset,
				    plen))) {
		ext->base = src;
		ext->len = plen;
	} else {
		msg_gather(m, buf + n, pkt->offset, plen);
	}
	if (plen && amo)
		uet_amo_to_wire(m->amo_dt, buf + n, buf + n,
				plen / uet_amo_size(m->amo_dt));
	return n + (int)plen;
}

/* Read data for [off, off + len) of m arrived (ACK or return direction):
 * into the user's buffer, or the rendezvous receive's; counted once. */
int uet_msg_read_data(struct uet_ses_msg *m, uint32_t off,
		      const uint8_t *data, size_t len)
{
	int ret = uet_reasm_add(&m->rx, off, (uint32_t)len);

	if (ret <= 0 || m->reported)
		return ret;
	if (m->internal)
		uet_rndv_place(m, off, data, len);
	else
		iov_copy(m->iov, m->iov_count, off, (uint8_t *)data, len,
			 true);
	return ret;
}

/* Data a read or a fetching atomic got back in the ACK. */
static void msg_ack_data(struct uet_ses_msg *m, const struct uet_ses_pkt *pkt,
			 const struct uet_ses_reply *reply)
{
	const struct uet_ses_rsp *rsp = reply ? &reply->rsp : NULL;
	size_t n = reply ? reply->data_len : 0;
	uint8_t tmp[UET_ACK_DATA_MAX];

	if (m->stop)
		return;
	if (!rsp || rsp->opcode != UET_SES_RESPONSE_W_DATA ||
	    n > UET_ACK_DATA_MAX) {
		/* The target always answers these with data: an ACK
		 * without it (e.g. coalesced) lost the result. */
		if (m->opcode != UET_SES_READ || m->len > UET_ACK_DATA_MAX)
			return;
		uet_msg_fail(m, UET_ERR_REMOTE, UET_RC_NULL);
		return;
	}
	if (n != m->len || (rsp->format == UET_NH_RSP_DATA &&
			    rsp->modified_length != m->len)) {
		uet_msg_fail(m, UET_ERR_REMOTE, UET_RC_UNSUPPORTED_SIZE);
		return;
	}
	if (m->opcode == UET_SES_READ) {
		if (uet_msg_read_data(m, 0, reply->data, n) == UET_ERR_NOMEM)
			uet_msg_fail(m, UET_ERR_NOMEM, 0);
		return;
	}
	(void)pkt;
	if (m->reported)
		return;
	uet_amo_from_wire(m->amo_dt, tmp, reply->data,
			  n / uet_amo_size(m->amo_dt));
	iov_copy(m->res, m->res_count, 0, tmp, n, true);
}

void uet_ses_tx_acked(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		      const struct uet_ses_pkt *pkt,
		      const struct uet_ses_reply *reply, uet_time now)
{
	const struct uet_ses_rsp *rsp = reply ? &reply->rsp : NULL;
	struct uet_ses_msg *m = pkt->msg;

	if (now > ses->now)
		ses->now = now;
	if (pkt->next_hdr == UET_NH_RSP_DATA) {
		if (pdc->ses_state)
			uet_rma_ret_done(ses, pdc->ses_state, pkt, true);
		return;
	}
	m->done++;
	/* An SES error arrives as a response with an error return code
	 * (docs/choices.md §5.4); the whole message then fails. */
	if (rsp && rsp->return_code != UET_RC_OK &&
	    rsp->return_code != UET_RC_NULL)
		uet_msg_fail(m, UET_ERR_REMOTE, rsp->return_code);
	else if (m->opcode == UET_SES_FETCHING_ATOMIC ||
		 (m->opcode == UET_SES_READ &&
		  m->len <= UET_ACK_DATA_MAX))
		msg_ack_data(m, pkt, reply);
	uet_msg_maybe_done(ses, m);
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
	if (pkt->next_hdr == UET_NH_RSP_DATA) {
		if (ps)
			uet_rma_ret_done(ses, ps, pkt, false);
		return;
	}
	m->done++;
	uet_msg_fail(m, UET_ERR_PEER, code);
	uet_msg_maybe_done(ses, m);
}

struct uet_ses_msg *uet_msg_find(struct uet_ses_pdc *ps, uint16_t id)
{
	struct uet_list *pos;

	for (pos = ps->tx_msgs.next; pos != &ps->tx_msgs; pos = pos->next) {
		struct uet_ses_msg *m =
			uet_container_of(pos, struct uet_ses_msg, link);

		if (m->msg_id == id)
			return m;
	}
	return NULL;
}

/* PDS holds no packet of this PDC any more: what is still open on it will
 * never be acknowledged. */
void uet_msg_pdc_closed(struct uet_ses *ses, struct uet_ses_pdc *ps)
{
	struct uet_list *pos, *tmp;

	uet_list_foreach_safe(pos, tmp, &ps->tx_msgs) {
		struct uet_ses_msg *m =
			uet_container_of(pos, struct uet_ses_msg, link);

		ps->failed = true;
		uet_msg_fail(m, UET_ERR_PEER, ps->fail_code);
		m->done = m->handed;
		m->pdc = NULL;
		uet_msg_maybe_done(ses, m);
	}
	ps->cur = NULL;
}

void uet_ses_pdc_lost(struct uet_ses *ses, struct uet_pdc_ref *pdc)
{
	struct uet_ses_pdc *ps = pdc->ses_state;
	struct uet_list *pos, *tmp, *at = &ses->tx_pending, *pat;
	struct uet_ses_peer *q;

	if (!ps)
		return;
	/* its entry may have been swept while its messages were out */
	q = uet_pending_entry(ses, &pdc->peer);
	pat = q ? &q->pending : NULL;
	ps->cur = NULL;
	uet_list_foreach_safe(pos, tmp, &ps->tx_msgs) {
		struct uet_ses_msg *m =
			uet_container_of(pos, struct uet_ses_msg, link);

		/* without an entry to wait on (out of memory) it is lost
		 * with the PDC too */
		if (m->done || m->stop || m->internal || !q) {
			uet_msg_fail(m, UET_ERR_PEER, UET_NACK_INV_DPDCID);
			m->done = m->handed;
			m->pdc = NULL;
			uet_msg_maybe_done(ses, m);
			continue;
		}
		/* Whole again, ahead of what was posted after it. */
		uet_list_del(&m->link);
		uet_pending_insert(at, pat, q, m);
		pat = &m->plink;
		at = &m->link;
		m->pdc = NULL;
		m->msg_id = 0;
		m->sent = 0;
		m->handed = 0;
		m->started = false;
		m->all_sent = false;
	}
}

/* Cancel every message of a list; report: at once, for messages whose
 * descriptor stays until PDS lets go of their packets. */
static void msg_cancel_all(struct uet_ses *ses, struct uet_list *head,
			   bool report)
{
	struct uet_list *pos, *tmp;

	uet_list_foreach_safe(pos, tmp, head) {
		struct uet_ses_msg *m =
			uet_container_of(pos, struct uet_ses_msg, link);

		uet_msg_fail(m, UET_ERR_CANCELED, 0);
		if (report)
			msg_report(ses, m);
		uet_msg_maybe_done(ses, m);
	}
}

void uet_msg_flush(struct uet_ses *ses)
{
	struct uet_list *pos, *tmp;

	msg_cancel_all(ses, &ses->tx_pending, false);
	uet_list_foreach_safe(pos, tmp, &ses->pdcs)
		msg_cancel_all(ses, &uet_container_of(pos, struct uet_ses_pdc,
						      link)->tx_msgs, true);
	msg_cancel_all(ses, &ses->cl_msgs, true);
}

/* The PDC to peer failed: what is queued for it fails too (in post order,
 * after the messages that were on the PDC). */
void uet_msg_fail_pending(struct uet_ses *ses, const struct uet_addr *peer,
			  int err, int prov_errno)
{
	struct uet_ses_peer *q = uet_pending_peer(ses, peer);
	struct uet_list *pos, *tmp;

	if (!q)
		return;
	uet_list_foreach_safe(pos, tmp, &q->pending) {
		struct uet_ses_msg *m =
			uet_container_of(pos, struct uet_ses_msg, plink);

		/* connectionless ones have their own retries */
		if (m->cl_mode)
			continue;
		uet_msg_fail(m, err, prov_errno);
		uet_msg_maybe_done(ses, m);
	}
}

/* PDS closed a PDC while sends were queued behind it (it should not: it
 * asks uet_ses_pdc_busy first). SES cannot wake PDS from inside that call
 * without a current time, so it does it at the next post, which has one
 * and is not inside a PDS call. */
void uet_msg_rewake(struct uet_ses *ses, uet_time now)
{
	struct uet_list *pos;
	const struct uet_addr *last = NULL;

	if (!ses->rewake)
		return;
	ses->rewake = false;
	for (pos = ses->tx_pending.next; pos != &ses->tx_pending;
	     pos = pos->next) {
		struct uet_ses_msg *m =
			uet_container_of(pos, struct uet_ses_msg, link);

		if (m->cl_mode || (last && uet_addr_equal(last, &m->peer)))
			continue;
		last = &m->peer;
		uet_pds_wake(ses->pds, &m->peer, now);
	}
}
