/* Stand-in SES for the PDS tests (see fake_ses.h). */
#include <stdlib.h>
#include <string.h>

#include "uet/err.h"

#include "fake_ses.h"

#define REG_MAX		8

uint32_t fake_ses_seg = 128;

static const struct uet_ses_cl_ops fake_ses_cl_ops;

static struct {
	void *user;
	struct uet_ses *ses;
} reg[REG_MAX];

struct uet_ses *fake_ses_of(void *user)
{
	unsigned i;

	for (i = 0; i < REG_MAX; i++)
		if (reg[i].ses && reg[i].user == user)
			return reg[i].ses;
	return NULL;
}

uint8_t fake_ses_byte(uint16_t id, uint32_t off)
{
	return (uint8_t)(id * 131u + off * 7u + (off >> 8));
}

uint8_t fake_ses_ret_byte(uint16_t id, uint32_t off)
{
	return (uint8_t)(id * 17u + off * 11u + (off >> 9) + 0x5A);
}

int uet_ses_create(struct uet_ses **out, const struct uet_fep_config *cfg,
		   const struct uet_callbacks *cb, void *user,
		   struct uet_pds *pds)
{
	struct uet_ses *ses;
	unsigned i;

	for (i = 0; i < REG_MAX && reg[i].ses; i++)
		;
	if (i == REG_MAX)
		return UET_ERR_NOMEM;
	ses = calloc(1, sizeof(*ses));
	if (!ses)
		return UET_ERR_NOMEM;
	ses->cfg = *cfg;
	ses->cb = cb;
	ses->user = user;
	ses->pds = pds;
	ses->seg = fake_ses_seg;
	reg[i].user = user;
	reg[i].ses = ses;
	uet_pds_cl_attach(pds, &fake_ses_cl_ops);
	*out = ses;
	return 0;
}

void uet_ses_destroy(struct uet_ses *ses)
{
	unsigned i;

	if (!ses)
		return;
	for (i = 0; i < REG_MAX; i++)
		if (reg[i].ses == ses)
			reg[i].ses = NULL;
	for (i = 0; i < ses->nmsgs; i++) {
		free(ses->msgs[i].state);
		free(ses->msgs[i].ret_cnt);
	}
	for (i = 0; i < ses->nrx; i++)
		free(ses->rx[i].cnt);
	for (i = 0; i < ses->nrets; i++)
		free(ses->rets[i].state);
	free(ses);
}

int uet_ses_post(struct uet_ses *ses, const struct uet_op *op, uet_time now)
{
	struct fake_msg *m;
	size_t len = 0, i;

	if (op->type == UET_OP_RECV || op->type == UET_OP_TRECV)
		return 0;
	if (op->type != UET_OP_SEND && op->type != UET_OP_TSEND &&
	    op->type != UET_OP_READ)
		return UET_ERR_INVAL;
	if (ses->nmsgs == FAKE_SES_MSGS)
		return UET_ERR_AGAIN;
	for (i = 0; i < op->iov_count; i++)
		len += op->iov[i].len;
	if (!len)
		return UET_ERR_INVAL;
	m = &ses->msgs[ses->nmsgs];
	memset(m, 0, sizeof(*m));
	m->id = (uint16_t)ses->nmsgs++;
	m->peer = op->peer;
	m->context = op->context;
	m->len = (uint32_t)len;
	m->npkts = (m->len + ses->seg - 1) / ses->seg;
	if (op->type == UET_OP_READ) {
		/* One request packet; the data comes back. */
		m->read = true;
		m->nret = m->npkts;
		m->npkts = 1;
		m->ret_cnt = calloc(m->nret, 1);
		if (!m->ret_cnt)
			return UET_ERR_NOMEM;
	}
	m->state = calloc(m->npkts, 1);
	if (!m->state)
		return UET_ERR_NOMEM;
	uet_pds_wake(ses->pds, &op->peer, now);
	return 0;
}

int uet_ses_cancel(struct uet_ses *ses, void *context)
{
	(void)ses;
	(void)context;
	return UET_ERR_NOENT;
}

void uet_ses_flush(struct uet_ses *ses)
{
	(void)ses;
}

size_t uet_ses_tx_left(const struct uet_ses *ses)
{
	return FAKE_SES_MSGS - ses->nmsgs;
}

size_t uet_ses_rx_left(const struct uet_ses *ses)
{
	(void)ses;
	return FAKE_SES_RX;
}

void uet_ses_stats_fep(const struct uet_ses *ses, struct uet_fep_stats *st)
{
	(void)ses;
	(void)st;
}

bool fake_ses_all_done(const struct uet_ses *ses)
{
	unsigned i;

	for (i = 0; i < ses->nmsgs; i++)
		if (!ses->msgs[i].done)
			return false;
	return true;
}

/* The next segment (at *off) of msg, len bytes long, into pkt. */
static int take_seg(const struct uet_ses *ses, void *msg, uint32_t len,
		    uint32_t *off, uint8_t next_hdr, struct uet_ses_pkt *pkt)
{
	uint32_t n = len - *off;

	if (n > ses->seg)
		n = ses->seg;
	pkt->msg = msg;
	pkt->offset = *off;
	pkt->len = n;
	pkt->next_hdr = next_hdr;
	pkt->eom = *off + n == len;
	*off += n;
	return 1;
}

/* The next return packet of a read served on pdc. */
static int ret_next(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		    struct uet_ses_pkt *pkt)
{
	unsigned i;

	for (i = 0; i < ses->nrets; i++) {
		struct fake_ret *j = &ses->rets[i];

		if (j->pdc == pdc && j->next_off < j->len)
			return take_seg(ses, j, j->len, &j->next_off,
					UET_NH_RSP_DATA, pkt);
	}
	return 0;
}

static uint32_t fake_left(const struct uet_ses *ses,
			  const struct uet_addr *peer)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < ses->nmsgs; i++) {
		const struct fake_msg *m = &ses->msgs[i];

		if (!m->done && !m->read && m->next_off < m->len &&
		    uet_addr_equal(&m->peer, peer))
			n += m->len - m->next_off;
	}
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

int uet_ses_tx_next(struct uet_ses *ses, struct uet_pdc_ref *pdc,
		    struct uet_ses_pkt *pkt, uet_time now)
{
	unsigned i;

	(void)now;
	if (!pdc->initiator)
		return ret_next(ses, pdc, pkt);
	for (i = 0; i < ses->nmsgs; i++) {
		struct fake_msg *m = &ses->msgs[i];

		if (m->done || m->next_off >= m->len ||
		    !uet_addr_equal(&m->peer, &pdc->peer))
			continue;
		if (m->read) {
			pkt->msg = m;
			pkt->offset = 0;
			pkt->len = 0;
			pkt->next_hdr = UET_NH_REQ_STD;
			pkt->eom = true;
			m->next_off = m->len;
			return 1;
		}
		if (!take_seg(ses, m, m->len, &m->next_off, UET_NH_REQ_STD,
			      pkt))
			return 0;
		/* what is left for the peer: this message's rest, then the
		 * rest of the queue (RCCC's backlog) */
		pkt->left = fake_left(ses, &pdc->peer);
		return 1;
	}
	return 0;
}

/* After a header of hl bytes (or its error) in buf: len payload bytes
 * byte(id, off + i). Returns the packet's length or an error. */
static int put_payload(uint8_t *buf, size_t cap, int hl, uint32_t len,
		       uint8_t (*byte)(uint16_t, uint32_t), uint16_t id,
		       uint32_t off)
{
	uint32_t i;

	if (hl < 0)
		return hl;
	if ((size_t)hl + len > cap)
		return UET_ERR_WIRE_NOSPACE;
	for (i = 0; i < len; i++)
		buf[hl + i] = byte(id, off + i);
	return hl + (int)len;
}

/* A standard request header of ours for message id of len bytes. */
static void req_init(struct uet_ses_req *r, const struct uet_ses *ses,
		     uint8_t opcode, uint8_t flags, uint16_t id, uint32_t len)
{
	memset(r, 0, sizeof(*r));
	r->format = UET_NH_REQ_STD;
	r->opcode = opcode;
	r->flags = flags | UET_SES_F_REL;
	r->message_id = id;
	r->request_length = len;
	r->job_id = ses->cfg.job_id;
	r->initiator = 1;
}

/* A return packet: response with data, then the bytes. */
static int ret_write(struct uet_ses *ses, const struct uet_ses_pkt *pkt,
		     uint8_t *buf, size_t cap)
{
	const struct fake_ret *j = pkt->msg;
	struct uet_ses_rsp r;

	memset(&r, 0, sizeof(r));
	r.format = UET_NH_RSP_DATA;
	r.opcode = UET_SES_RESPONSE_W_DATA;
	r.return_code = UET_RC_OK;
	r.job_id = ses->cfg.job_id;
	r.read_request_message_id = j->id;
	r.payload_length = (uint16_t)pkt->len;
	r.modified_length = j->len;
	r.message_offset = pkt->offset;
	return put_payload(buf, cap, uet_ses_rsp_encode(buf, cap, &r),
			   pkt->len, fake_ses_ret_byte, j->id, pkt->offset);
}

int uet_ses_tx_write(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		     const struct uet_ses_pkt *pkt, uint8_t *buf, size_t cap)
{
	const struct fake_msg *m = pkt->msg;
	struct uet_ses_req r;

	if (!pdc->initiator)
		return ret_write(ses, pkt, buf, cap);
	req_init(&r, ses, m->read ? UET_SES_READ : UET_SES_SEND,
		 (pkt->offset ? 0 : UET_SES_F_SOM) |
		 (pkt->eom ? UET_SES_F_EOM : 0), m->id, m->len);
	if (pkt->offset) {
		r.payload_length = (uint16_t)pkt->len;
		r.message_offset = pkt->offset;
	}
	return put_payload(buf, cap, uet_ses_req_encode(buf, cap, &r),
			   pkt->len, fake_ses_byte, m->id, pkt->offset);
}

/* The completion of a send or read of len bytes that ended with err and
 * code. */
static void complete(struct uet_ses *ses, void *ctx, bool read, int err,
		     uint8_t code, uint32_t len)
{
	struct uet_completion c;

	memset(&c, 0, sizeof(c));
	c.context = ctx;
	c.flags = read ? UET_CF_READ : UET_CF_SEND;
	c.err = err;
	c.prov_errno = code;
	c.len = err ? 0 : len;
	ses->cb->complete(ses->user, &c);
}

static void msg_complete(struct uet_ses *ses, struct fake_msg *m)
{
	m->done = true;
	complete(ses, m->context, m->read, m->err, m->code, m->len);
}

/* Mark packet pkt of a message (or return job) whose per-packet states
 * are state as resolved how (1 acked, 2 failed); false if it already
 * was (counted). */
static bool resolve_once(struct uet_ses *ses, uint8_t *state,
			 const struct uet_ses_pkt *pkt, uint8_t how)
{
	uint32_t k = pkt->offset / ses->seg;

	if (state[k]) {
		ses->resolved_twice++;
		return false;
	}
	state[k] = how;
	return true;
}

static bool msg_resolve(struct uet_ses *ses, const struct uet_ses_pkt *pkt,
			uint8_t how)
{
	return resolve_once(ses, ((struct fake_msg *)pkt->msg)->state, pkt,
			    how);
}

/* A read is done once its request was acknowledged and all its data
 * came back. */
static bool msg_whole(const struct fake_msg *m)
{
	return m->acked + m->failed == m->npkts &&
	       (!m->read || m->ret_got == m->nret);
}

/* A return packet resolved at the target: once only. */
static void ret_resolve(struct uet_ses *ses, const struct uet_ses_pkt *pkt,
			uint8_t how)
{
	struct fake_ret *j = pkt->msg;

	if (!resolve_once(ses, j->state, pkt, how))
		return;
	if (how == 1) {
		j->acked++;
		ses->ret_acked++;
	} else {
		j->failed++;
		ses->ret_failed++;
	}
}

void uet_ses_tx_acked(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		      const struct uet_ses_pkt *pkt,
		      const struct uet_ses_reply *reply, uet_time now)
{
	const struct uet_ses_rsp *rsp = reply ? &reply->rsp : NULL;
	struct fake_msg *m = pkt->msg;

	(void)now;
	if (!pdc->initiator) {
		ret_resolve(ses, pkt, 1);
		return;
	}
	if (!msg_resolve(ses, pkt, 1))
		return;
	ses->acked_pkts++;
	m->acked++;
	if (rsp) {
		m->rsps++;
		m->last_rc = rsp->return_code;
		m->last_opcode = rsp->opcode;
		m->last_len = rsp->modified_length;
		if (rsp->format != UET_NH_RSP) {
			m->data_rsps++;
			m->data_fmt = rsp->format;
			m->data_len = reply->data_len;
			memcpy(m->data, reply->data, reply->data_len);
		}
		if (rsp->opcode != UET_SES_DEFAULT_RESPONSE &&
		    rsp->return_code != UET_RC_OK &&
		    rsp->return_code != UET_RC_NULL && !m->err) {
			m->err = UET_ERR_REMOTE;
			m->code = rsp->return_code;
		}
	}
	if (!m->done && msg_whole(m))
		msg_complete(ses, m);
}

void uet_ses_tx_failed(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		       const struct uet_ses_pkt *pkt, int err, uint8_t code)
{
	struct fake_msg *m = pkt->msg;

	if (!pdc->initiator) {
		ret_resolve(ses, pkt, 2);
		return;
	}
	if (!msg_resolve(ses, pkt, 2))
		return;
	ses->failed_pkts++;
	m->failed++;
	if (m->done)
		return;
	m->err = err;
	m->code = code;
	m->next_off = m->len;	/* send no more of it */
	msg_complete(ses, m);
}

static struct fake_rx *rx_get(struct uet_ses *ses, const struct uet_addr *peer,
			      const struct uet_ses_req *req)
{
	struct fake_rx *r;
	unsigned i;

	for (i = 0; i < ses->nrx; i++) {
		r = &ses->rx[i];
		if (r->id == req->message_id && uet_addr_equal(&r->peer, peer))
			return r;
	}
	if (ses->nrx == FAKE_SES_RX)
		return NULL;
	r = &ses->rx[ses->nrx++];
	memset(r, 0, sizeof(*r));
	r->peer = *peer;
	r->id = req->message_id;
	r->len = req->request_length;
	r->npkts = (r->len + ses->seg - 1) / ses->seg;
	r->cnt = calloc(r->npkts ? r->npkts : 1, 1);
	return r;
}

const struct fake_rx *fake_ses_rx_find(const struct uet_ses *ses,
				       const struct uet_addr *peer,
				       uint16_t id)
{
	unsigned i;

	for (i = 0; i < ses->nrx; i++)
		if (ses->rx[i].id == id &&
		    uet_addr_equal(&ses->rx[i].peer, peer))
			return &ses->rx[i];
	return NULL;
}

static void order_check(struct uet_ses *ses, uint32_t pdc, uint64_t key,
			uint64_t *errs)
{
	unsigned i, free_i = FAKE_SES_PDCS;

	for (i = 0; i < FAKE_SES_PDCS; i++) {
		if (ses->last[i].pdc == pdc) {
			if (key <= ses->last[i].key)
				(*errs)++;
			ses->last[i].key = key;
			return;
		}
		if (!ses->last[i].pdc && free_i == FAKE_SES_PDCS)
			free_i = i;
	}
	if (free_i < FAKE_SES_PDCS) {
		ses->last[free_i].pdc = pdc;
		ses->last[free_i].key = key;
	}
}

/* A read request: queue its return packets on pdc and wake it. */
static int read_serve(struct uet_ses *ses, struct uet_pdc_ref *pdc,
		      const struct uet_ses_req *req, uet_time now)
{
	struct fake_ret *j;

	if (ses->nrets == FAKE_SES_RETS)
		return UET_NACK_NO_SES_MSG_AVAIL;
	j = &ses->rets[ses->nrets];
	memset(j, 0, sizeof(*j));
	j->pdc = pdc;
	j->id = req->message_id;
	j->len = req->request_length;
	j->npkts = (j->len + ses->seg - 1) / ses->seg;
	j->state = calloc(j->npkts ? j->npkts : 1, 1);
	if (!j->state)
		return UET_NACK_NO_RESOURCE;
	ses->nrets++;
	ses->rx_pkts++;
	uet_pds_wake_pdc(ses->pds, pdc, now);
	return 0;
}

bool uet_ses_rx_admit(struct uet_ses *ses, const struct uet_ses_req *req,
		      struct uet_ses_rsp *rsp)
{
	/* The stand-in takes every job: refusals are its hooks' to make. */
	(void)ses;
	memset(rsp, 0, sizeof(*rsp));
	rsp->format = UET_NH_RSP;
	rsp->opcode = UET_SES_DEFAULT_RESPONSE;
	rsp->return_code = UET_RC_OK;
	rsp->message_id = req->message_id;
	rsp->job_id = req->job_id;
	return true;
}

int uet_ses_rx(struct uet_ses *ses, struct uet_pdc_ref *pdc,
	       const struct uet_ses_req *req, const uint8_t *payload,
	       size_t len, struct uet_ses_reply *reply, uet_time now)
{
	struct uet_ses_rsp *rsp = &reply->rsp;
	bool *gtd = &reply->gtd;
	uint32_t off = req->flags & UET_SES_F_SOM ? 0 : req->message_offset;
	struct fake_rx *r;
	uint32_t k, i;

	(void)now;
	memset(rsp, 0, sizeof(*rsp));
	rsp->format = UET_NH_RSP;
	rsp->opcode = UET_SES_RESPONSE;
	rsp->return_code = UET_RC_OK;
	rsp->message_id = req->message_id;
	rsp->job_id = req->job_id;
	rsp->modified_length = (uint32_t)len;
	*gtd = false;
	reply->data_len = 0;
	if (ses->rx_hook) {
		int code = ses->rx_hook(ses, pdc, req, off, rsp, gtd);

		if (code)
			return code;
	}
	if (ses->reply_hook) {
		int code = ses->reply_hook(ses, pdc, req, off, reply);

		if (code)
			return code;
	}
	if (req->opcode == UET_SES_READ)
		return read_serve(ses, pdc, req, now);
	r = rx_get(ses, &pdc->peer, req);
	if (!r)
		return UET_NACK_NO_SES_MSG_AVAIL;
	ses->rx_pkts++;
	k = off / ses->seg;
	if (k >= r->npkts) {
		ses->rx_bad++;
		return 0;
	}
	if (r->cnt[k]++)
		ses->rx_dups++;
	else
		r->got++;
	for (i = 0; i < len; i++) {
		if (payload[i] != fake_ses_byte(req->message_id, off + i)) {
			ses->rx_bad++;
			break;
		}
	}
	order_check(ses, pdc->id, (uint64_t)req->message_id << 32 | off,
		    &ses->order_errs);
	return 0;
}

void uet_ses_pdc_open(struct uet_ses *ses, struct uet_pdc_ref *pdc)
{
	ses->pdc_opens++;
	ses->pdc_now++;
	if (ses->pdc_now > ses->pdc_peak)
		ses->pdc_peak = ses->pdc_now;
	pdc->ses_state = ses;
}

void uet_ses_pdc_lost(struct uet_ses *ses, struct uet_pdc_ref *pdc)
{
	unsigned i;

	/* Messages to the peer nothing of which was acknowledged start
	 * over; the others fail (the packets PDS forgets are settled). */
	for (i = 0; i < ses->nmsgs; i++) {
		struct fake_msg *m = &ses->msgs[i];

		if (m->done || !uet_addr_equal(&m->peer, &pdc->peer) ||
		    !m->next_off)
			continue;
		if (m->acked || m->failed || m->read) {
			m->err = UET_ERR_PEER;
			m->code = UET_NACK_INV_DPDCID;
			m->next_off = m->len;
			msg_complete(ses, m);
			continue;
		}
		m->next_off = 0;
		memset(m->state, 0, m->npkts);
	}
}

void uet_ses_pdc_closed(struct uet_ses *ses, struct uet_pdc_ref *pdc)
{
	unsigned i;

	/* Target: the PDC's reads are over. Initiator: what it still
	 * waits for never comes. */
	for (i = 0; i < ses->nrets; i++)
		if (ses->rets[i].pdc == pdc)
			ses->rets[i].pdc = NULL;
	for (i = 0; pdc->initiator && i < ses->nmsgs; i++) {
		struct fake_msg *m = &ses->msgs[i];

		if (m->read && !m->done &&
		    uet_addr_equal(&m->peer, &pdc->peer)) {
			m->err = UET_ERR_PEER;
			msg_complete(ses, m);
		}
	}
	ses->pdc_closes++;
	ses->pdc_now--;
	if (pdc->ses_state != ses)
		ses->pdc_bad_close++;
	pdc->ses_state = NULL;
}

bool uet_ses_pdc_busy(struct uet_ses *ses, const struct uet_pdc_ref *pdc)
{
	unsigned i;

	if (ses->force_busy)
		return true;
	for (i = 0; i < ses->nrets; i++)
		if (ses->rets[i].pdc == pdc &&
		    ses->rets[i].acked + ses->rets[i].failed <
		    ses->rets[i].npkts)
			return true;
	for (i = 0; i < ses->nmsgs; i++)
		if (!ses->msgs[i].done &&
		    uet_addr_equal(&ses->msgs[i].peer, &pdc->peer))
			return true;
	return false;
}

int uet_ses_rx_ret(struct uet_ses *ses, struct uet_pdc_ref *pdc,
		   const struct uet_ses_rsp *rsp, const uint8_t *payload,
		   size_t len, uet_time now)
{
	struct fake_msg *m = NULL;
	uint32_t k, i;
	unsigned n;

	(void)now;
	if (ses->ret_hook) {
		int code = ses->ret_hook(ses, pdc, rsp);

		if (code)
			return code;
	}
	ses->ret_rx++;
	for (n = 0; n < ses->nmsgs; n++) {
		if (ses->msgs[n].read &&
		    ses->msgs[n].id == rsp->read_request_message_id &&
		    uet_addr_equal(&ses->msgs[n].peer, &pdc->peer)) {
			m = &ses->msgs[n];
			break;
		}
	}
	if (!m || !pdc->initiator || rsp->format != UET_NH_RSP_DATA) {
		ses->ret_stray++;
		return 0;
	}
	k = rsp->message_offset / ses->seg;
	if (k >= m->nret || len != rsp->payload_length) {
		ses->ret_bad++;
		return 0;
	}
	for (i = 0; i < len; i++) {
		if (payload[i] !=
		    fake_ses_ret_byte(m->id, rsp->message_offset + i)) {
			ses->ret_bad++;
			break;
		}
	}
	order_check(ses, pdc->id | 0x80000000u,
		    (uint64_t)m->id << 32 | rsp->message_offset,
		    &ses->ret_order_errs);
	if (m->ret_cnt[k]++) {
		ses->ret_dups++;
		return 0;
	}
	m->ret_got++;
	if (!m->done && msg_whole(m))
		msg_complete(ses, m);
	return 0;
}

/* ---- Connectionless (sublayer.h) ---- */

/* Message ids of connectionless packets: apart from the PDC messages'. */
#define CL_ID_BASE	0x8000u

int fake_ses_cl_send(struct uet_ses *ses, const struct uet_addr *peer,
		     uint8_t mode, uint32_t len, bool read, uet_time now)
{
	struct fake_cl *c;

	if (ses->ncls == FAKE_SES_CLS)
		return UET_ERR_AGAIN;
	if (len > ses->seg || (read && mode != UET_CL_RUDI))
		return UET_ERR_INVAL;
	c = &ses->cls[ses->ncls];
	memset(c, 0, sizeof(*c));
	c->id = (uint16_t)(CL_ID_BASE + ses->ncls);
	c->peer = *peer;
	c->mode = mode;
	c->read = read;
	c->len = len;
	uet_pds_wake_cl(ses->pds, now);
	return (int)ses->ncls++;
}

unsigned fake_ses_cl_copies(const struct uet_ses *ses,
			    const struct uet_addr *peer, uint16_t id)
{
	unsigned i;

	for (i = 0; i < ses->nclrx; i++)
		if (ses->clrx[i].id == id &&
		    uet_addr_equal(&ses->clrx[i].peer, peer))
			return ses->clrx[i].cnt;
	return 0;
}

static int cl_next(struct uet_ses *ses, struct uet_cl_pkt *cp, uet_time now)
{
	unsigned i;

	(void)now;
	for (i = 0; i < ses->ncls; i++) {
		struct fake_cl *c = &ses->cls[i];

		if (c->sent)
			continue;
		c->sent = true;
		cp->pkt.msg = c;
		cp->pkt.offset = 0;
		cp->pkt.len = c->read ? 0 : c->len;
		cp->pkt.next_hdr = UET_NH_REQ_STD;
		cp->pkt.eom = true;
		cp->peer = c->peer;
		cp->mode = c->mode;
		return 1;
	}
	return 0;
}

static int cl_write(struct uet_ses *ses, const struct uet_cl_pkt *cp,
		    uint8_t *buf, size_t cap)
{
	struct fake_cl *c = cp->pkt.msg;
	struct uet_ses_req r;

	c->pkt_id = cp->pkt_id;
	req_init(&r, ses, c->read ? UET_SES_READ : UET_SES_SEND,
		 UET_SES_F_SOM | UET_SES_F_EOM, c->id, c->len);
	return put_payload(buf, cap, uet_ses_req_encode(buf, cap, &r),
			   cp->pkt.len, fake_ses_byte, c->id, 0);
}

static void cl_complete(struct uet_ses *ses, struct fake_cl *c)
{
	c->done = true;
	complete(ses, c, c->read, c->err, c->code, c->len);
}

static void cl_done(struct uet_ses *ses, const struct uet_cl_pkt *cp,
		    const struct uet_ses_rsp *rsp, const uint8_t *data,
		    size_t len, uet_time now)
{
	struct fake_cl *c = cp->pkt.msg;
	uint32_t i;

	(void)now;
	c->dones++;
	if (c->done) {
		ses->cl_done_twice++;
		return;
	}
	if (rsp) {
		c->rc = rsp->return_code;
		c->data_len = (uint32_t)len;
		if (c->read && (rsp->format == UET_NH_RSP || len != c->len))
			c->data_bad = true;
		for (i = 0; i < len; i++)
			if (data[i] != fake_ses_ret_byte(c->id, i))
				c->data_bad = true;
	} else if (c->mode == UET_CL_RUDI) {
		c->data_bad = true;	/* RUDI always has a response */
	}
	cl_complete(ses, c);
}

static void cl_failed(struct uet_ses *ses, const struct uet_cl_pkt *cp,
		      int err, uint8_t code)
{
	struct fake_cl *c = cp->pkt.msg;

	c->fails++;
	if (c->done) {
		ses->cl_done_twice++;
		return;
	}
	c->err = err;
	c->code = code;
	cl_complete(ses, c);
}

static int cl_rx(struct uet_ses *ses, const struct uet_addr *peer,
		 uint8_t mode, const struct uet_ses_req *req,
		 const uint8_t *payload, size_t len,
		 struct uet_cl_reply *reply, uet_time now)
{
	struct fake_cl_rx *r = NULL;
	uint32_t i, n;

	(void)now;
	if ((mode == UET_CL_RUDI) != (reply != NULL)) {
		ses->cl_rx_bad++;
		return UET_NACK_UNEXP_EVENT;
	}
	if (ses->cl_hook) {
		int code = ses->cl_hook(ses, peer, mode, req);

		if (code)
			return code;
	}
	for (i = 0; i < ses->nclrx; i++)
		if (ses->clrx[i].id == req->message_id &&
		    uet_addr_equal(&ses->clrx[i].peer, peer))
			r = &ses->clrx[i];
	if (!r && ses->nclrx < FAKE_SES_CLS) {
		r = &ses->clrx[ses->nclrx++];
		memset(r, 0, sizeof(*r));
		r->peer = *peer;
		r->mode = mode;
		r->id = req->message_id;
	}
	if (r)
		r->cnt++;
	ses->cl_rx++;
	if (req->opcode == UET_SES_SEND) {
		if (len != req->request_length)
			ses->cl_rx_bad++;
		for (i = 0; i < len; i++)
			if (payload[i] != fake_ses_byte(req->message_id, i))
				ses->cl_rx_bad++;
	}
	if (!reply)
		return 0;
	reply->rsp.message_id = req->message_id;
	reply->rsp.job_id = req->job_id;
	reply->rsp.modified_length = req->request_length;
	if (req->opcode != UET_SES_READ)
		return 0;
	/* Read data inline, as much as one packet holds. */
	n = req->request_length;
	if (n > reply->cap)
		n = (uint32_t)reply->cap;
	reply->rsp.format = UET_NH_RSP_DATA;
	reply->rsp.opcode = UET_SES_RESPONSE_W_DATA;
	reply->rsp.read_request_message_id = req->message_id;
	reply->rsp.message_id = 0;
	for (i = 0; i < n; i++)
		reply->data[i] = fake_ses_ret_byte(req->message_id, i);
	reply->data_len = n;
	return 0;
}

static const struct uet_ses_cl_ops fake_ses_cl_ops = {
	.next = cl_next,
	.write = cl_write,
	.done = cl_done,
	.failed = cl_failed,
	.rx = cl_rx,
};
