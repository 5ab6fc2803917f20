/* Connectionless delivery, the SES side (sublayer.h "Connectionless
 * delivery"; UE 1.0 §3.5.7.3, §3.5.7.4; docs/choices.md §8): which
 * operations leave without a PDC, and the table of functions
 * PDS pulls their packets with and hands their answers to.
 *
 * - UUD (cfg.uud): every UET_OP_SEND is one datagram, a DATAGRAM_SEND
 *   with the standard header, SOM and EOM, of at most
 *   uet_fep_dgram_max(mtu) bytes (longer: UET_ERR_MSGSIZE at post); it
 *   completes once PDS has handed it to the port. uud.c receives them.
 * - RUDI (cfg.rudi): RMA writes and reads whose rkey has
 *   UET_MKEY_IDEMPOTENT_SAFE, one request per packet, complete when every
 *   packet is answered (rudi.c). Not for a fenced operation (it goes on a
 *   PDC, after everything earlier), nor for a write with CQ data: the
 *   target keeps no state, so it could not raise that event exactly once.
 *
 * The messages wait on tx_pending with the others, in post order, and on
 * cl_pending by themselves (pending.c); the first one no fence holds
 * back is started when PDS asks (next), takes
 * the next per-fep message_id (informative: no PDC numbers them, answers
 * find their request by pkt_id) and moves to cl_msgs until every packet
 * handed out was reported by done or failed. At most UET_SES_CL_WINDOW
 * packets are out at a time (ses_int.h).
 */
#include <string.h>

#include "uet/err.h"

#include "ses_int.h"

int uet_cless_mode(const struct uet_ses *ses, const struct uet_op *op,
		   size_t len, uint8_t *mode)
{
	*mode = 0;
	switch (op->type) {
	case UET_OP_SEND:
		if (!ses->cfg.uud)
			return 0;
		/* nothing to wait for at the target, nothing to order */
		if (op->flags & (UET_OPF_DELIVERY | UET_OPF_FENCE))
			return UET_ERR_INVAL;
		if (len > ses->dgram_max)
			return UET_ERR_MSGSIZE;
		*mode = UET_CL_UUD;
		return 0;
	case UET_OP_WRITE:
	case UET_OP_READ:
		if (ses->cfg.rudi && (op->rkey & UET_MKEY_IDEMPOTENT_SAFE) &&
		    !(op->flags & (UET_OPF_FENCE | UET_OPF_CQ_DATA)))
			*mode = UET_CL_RUDI;
		return 0;
	}
	return 0;
}

bool uet_cless_busy(const struct uet_ses *ses, const struct uet_addr *peer)
{
	const struct uet_list *pos;

	for (pos = ses->cl_msgs.next; pos != &ses->cl_msgs; pos = pos->next) {
		const struct uet_ses_msg *m =
			uet_container_of(pos, struct uet_ses_msg, link);

		if (uet_addr_equal(&m->peer, peer))
			return true;
	}
	return false;
}

/* The header checks every request gets (docs/choices.md §1.4): RC_OK or the
 * code it is refused with, counted. */
uint8_t uet_cless_check(struct uet_ses *ses, const struct uet_ses_req *req)
{
	if (req->format != UET_NH_REQ_STD) {
		ses->st.bad_req++;
		return UET_RC_UNSUPPORTED_OP;
	}
	if (req->job_id != (ses->cfg.job_id & 0xFFFFFF)) {
		ses->st.bad_job++;
		return UET_RC_BAD_JOB_ID;
	}
	if (req->pid_on_fep != (ses->cfg.pid_on_fep & 0xFFF)) {
		ses->st.bad_pid++;
		return UET_RC_BAD_PID;
	}
	if (!uet_ses_rx_ctx(ses, req->resource_index, &(uint16_t){ 0 })) {
		ses->st.bad_index++;
		return UET_RC_BAD_INDEX;
	}
	return UET_RC_OK;
}

/* Is a fenced message to m's peer waiting ahead of m? */
static bool fenced_ahead(const struct uet_ses_msg *m)
{
	const struct uet_list *pos;

	for (pos = m->pq->pending.next; pos != &m->plink; pos = pos->next) {
		const struct uet_ses_msg *q =
			uet_container_of(pos, struct uet_ses_msg, plink);

		if (!q->cl_mode && (q->flags & UET_OPF_FENCE))
			return true;
	}
	return false;
}

static struct uet_ses_msg *cless_start(struct uet_ses *ses)
{
	struct uet_list *pos;

	for (pos = ses->cl_pending.next; pos != &ses->cl_pending;
	     pos = pos->next) {
		struct uet_ses_msg *m =
			uet_container_of(pos, struct uet_ses_msg, clink);

		if (fenced_ahead(m))
			continue;
		uet_pending_del(m);
		uet_list_add_tail(&ses->cl_msgs, &m->link);
		m->msg_id = ses->cl_msg_id++;
		m->started = true;
		return m;
	}
	return NULL;
}

static int cless_next(struct uet_ses *ses, struct uet_cl_pkt *cp,
		      uet_time now)
{
	struct uet_ses_msg *m = ses->cl_cur;
	uint32_t len;

	if (now > ses->now)
		ses->now = now;
	if (ses->cl_inflight >= UET_SES_CL_WINDOW) {
		ses->cl_blocked = true;	/* done() wakes PDS again */
		return 0;
	}
	if (m && (m->all_sent || m->stop))
		m = ses->cl_cur = NULL;
	if (!m) {
		m = cless_start(ses);
		if (!m)
			return 0;
		ses->cl_cur = m;
	}
	len = m->cl_mode == UET_CL_UUD ? m->len : uet_rudi_cut(ses, m);
	cp->pkt.msg = m;
	cp->pkt.offset = m->sent;
	cp->pkt.len = len;
	cp->pkt.next_hdr = UET_NH_REQ_STD;
	m->sent += len;
	cp->pkt.eom = m->sent == m->len;
	cp->peer = m->peer;
	cp->mode = m->cl_mode;
	m->handed++;
	ses->cl_inflight++;
	if (cp->pkt.eom) {
		m->all_sent = true;
		ses->cl_cur = NULL;
	}
	return 1;
}

/* A packet is over: room in the window. */
static void cless_settle(struct uet_ses *ses)
{
	ses->cl_inflight--;
	if (ses->cl_blocked) {
		ses->cl_blocked = false;
		uet_pds_wake_cl(ses->pds, ses->now);
	}
}

static int cless_write(struct uet_ses *ses, const struct uet_cl_pkt *cp,
		       uint8_t *buf, size_t cap)
{
	return uet_msg_write(ses, &cp->peer, &cp->pkt, buf, cap, NULL);
}

static void cless_done(struct uet_ses *ses, const struct uet_cl_pkt *cp,
		       const struct uet_ses_rsp *rsp, const uint8_t *data,
		       size_t len, uet_time now)
{
	struct uet_ses_msg *m = cp->pkt.msg;

	if (now > ses->now)
		ses->now = now;
	cless_settle(ses);
	m->done++;
	if (m->cl_mode == UET_CL_RUDI)
		uet_rudi_done(ses, m, &cp->pkt, rsp, data, len);
	uet_msg_maybe_done(ses, m);
}

static void cless_failed(struct uet_ses *ses, const struct uet_cl_pkt *cp,
			 int err, uint8_t code)
{
	struct uet_ses_msg *m = cp->pkt.msg;

	cless_settle(ses);
	m->done++;
	/* PDS gave up (UET_ERR_PEER), or the packet could not be built */
	uet_msg_fail(m, err, code);
	uet_msg_maybe_done(ses, m);
}

static int cless_rx(struct uet_ses *ses, const struct uet_addr *peer,
		    uint8_t mode, const struct uet_ses_req *req,
		    const uint8_t *payload, size_t len,
		    struct uet_cl_reply *reply, uet_time now)
{
	if (now > ses->now)
		ses->now = now;
	if (mode == UET_CL_UUD)
		return uet_uud_rx(ses, peer, req, payload, len);
	return uet_rudi_rx(ses, peer, req, payload, len, reply);
}

const struct uet_ses_cl_ops uet_cless_ops = {
	.next = cless_next,
	.write = cless_write,
	.done = cless_done,
	.failed = cless_failed,
	.rx = cless_rx,
};
