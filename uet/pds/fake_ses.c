/* Stand-in SES for the PDS tests (see fake_ses.h). */
#include <stdlib.h>
#include <string.h>

#include "uet/err.h"

#include "fake_ses.h"

#define REG_MAX		8

uint32_t fake_ses_seg = 128;

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

struct uet_ses *uet_ses_create(const struct uet_fep_config *cfg,
			       const struct uet_callbacks *cb, void *user,
			       struct uet_pds *pds)
{
	struct uet_ses *ses;
	unsigned i;

	for (i = 0; i < REG_MAX && reg[i].ses; i++)
		;
	if (i == REG_MAX)
		return NULL;
	ses = calloc(1, sizeof(*ses));
	if (!ses)
		return NULL;
	ses->cfg = *cfg;
	ses->cb = cb;
	ses->user = user;
	ses->pds = pds;
	ses->seg = fake_ses_seg;
	reg[i].user = user;
	reg[i].ses = ses;
	return ses;
}

void uet_ses_destroy(struct uet_ses *ses)
{
	unsigned i;

	if (!ses)
		return;
	for (i = 0; i < REG_MAX; i++)
		if (reg[i].ses == ses)
			reg[i].ses = NULL;
	for (i = 0; i < ses->nmsgs; i++)
		free(ses->msgs[i].state);
	for (i = 0; i < ses->nrx; i++)
		free(ses->rx[i].cnt);
	free(ses);
}

int uet_ses_post(struct uet_ses *ses, const struct uet_op *op, uet_time now)
{
	struct fake_msg *m;
	size_t len = 0, i;

	if (op->type == UET_OP_RECV || op->type == UET_OP_TRECV)
		return 0;
	if (op->type != UET_OP_SEND && op->type != UET_OP_TSEND)
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

int uet_ses_tx_next(struct uet_ses *ses, struct uet_pdc_ref *pdc,
		    struct uet_ses_pkt *pkt, uet_time now)
{
	unsigned i;

	(void)now;
	for (i = 0; i < ses->nmsgs; i++) {
		struct fake_msg *m = &ses->msgs[i];
		uint32_t n;

		if (m->done || m->next_off >= m->len ||
		    !uet_addr_equal(&m->peer, &pdc->peer))
			continue;
		n = m->len - m->next_off;
		if (n > ses->seg)
			n = ses->seg;
		pkt->msg = m;
		pkt->offset = m->next_off;
		pkt->len = n;
		pkt->next_hdr = UET_NH_REQ_STD;
		pkt->eom = m->next_off + n == m->len;
		m->next_off += n;
		return 1;
	}
	return 0;
}

int uet_ses_tx_write(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		     const struct uet_ses_pkt *pkt, uint8_t *buf, size_t cap)
{
	const struct fake_msg *m = pkt->msg;
	struct uet_ses_req r;
	uint32_t i;
	int hl;

	(void)pdc;
	memset(&r, 0, sizeof(r));
	r.format = UET_NH_REQ_STD;
	r.opcode = UET_SES_SEND;
	r.flags = (pkt->offset ? 0 : UET_SES_F_SOM) |
		  (pkt->eom ? UET_SES_F_EOM : 0) | UET_SES_F_REL;
	r.message_id = m->id;
	r.request_length = m->len;
	r.job_id = ses->cfg.job_id;
	r.initiator = 1;
	if (pkt->offset) {
		r.payload_length = (uint16_t)pkt->len;
		r.message_offset = pkt->offset;
	}
	hl = uet_ses_req_encode(buf, cap, &r);
	if (hl < 0)
		return hl;
	if ((size_t)hl + pkt->len > cap)
		return UET_ERR_WIRE_NOSPACE;
	for (i = 0; i < pkt->len; i++)
		buf[hl + i] = fake_ses_byte(m->id, pkt->offset + i);
	return hl + (int)pkt->len;
}

static void msg_complete(struct uet_ses *ses, struct fake_msg *m)
{
	struct uet_completion c;

	m->done = true;
	memset(&c, 0, sizeof(c));
	c.context = m->context;
	c.flags = UET_CF_SEND;
	c.err = m->err;
	c.prov_errno = m->code;
	c.len = m->err ? 0 : m->len;
	ses->cb->complete(ses->user, &c);
}

static bool msg_resolve(struct uet_ses *ses, const struct uet_ses_pkt *pkt,
			uint8_t how)
{
	struct fake_msg *m = pkt->msg;
	uint32_t k = pkt->offset / ses->seg;

	if (m->state[k]) {
		ses->resolved_twice++;
		return false;
	}
	m->state[k] = how;
	return true;
}

void uet_ses_tx_acked(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		      const struct uet_ses_pkt *pkt,
		      const struct uet_ses_reply *reply, uet_time now)
{
	const struct uet_ses_rsp *rsp = reply ? &reply->rsp : NULL;
	struct fake_msg *m = pkt->msg;

	(void)pdc;
	(void)now;
	if (!msg_resolve(ses, pkt, 1))
		return;
	ses->acked_pkts++;
	m->acked++;
	if (rsp) {
		m->rsps++;
		m->last_rc = rsp->return_code;
		m->last_opcode = rsp->opcode;
		m->last_len = rsp->modified_length;
		if (rsp->opcode != UET_SES_DEFAULT_RESPONSE &&
		    rsp->return_code != UET_RC_OK &&
		    rsp->return_code != UET_RC_NULL && !m->err) {
			m->err = UET_ERR_REMOTE;
			m->code = rsp->return_code;
		}
	}
	if (!m->done && m->acked + m->failed == m->npkts)
		msg_complete(ses, m);
}

void uet_ses_tx_failed(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		       const struct uet_ses_pkt *pkt, int err, uint8_t code)
{
	struct fake_msg *m = pkt->msg;

	(void)pdc;
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

static void order_check(struct uet_ses *ses, uint32_t pdc, uint64_t key)
{
	unsigned i, free_i = FAKE_SES_PDCS;

	for (i = 0; i < FAKE_SES_PDCS; i++) {
		if (ses->last[i].pdc == pdc) {
			if (key <= ses->last[i].key)
				ses->order_errs++;
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
	order_check(ses, pdc->id, (uint64_t)req->message_id << 32 | off);
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

void uet_ses_pdc_closed(struct uet_ses *ses, struct uet_pdc_ref *pdc)
{
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
	(void)ses; (void)pdc; (void)rsp; (void)payload; (void)len; (void)now;
	return UET_NACK_UNEXP_EVENT;
}
