/* SES of one fep: creation, the post/cancel/flush entry points, PDC life,
 * counters and the addressing rule (see ses.h). */
#include <stdlib.h>
#include <string.h>

#include "uet/alloc.h"
#include "ses_int.h"

/* ---- Addressing ---- */

bool uet_ses_rx_ctx(const struct uet_ses *ses, uint16_t resource_index,
		    uint16_t *ctx)
{
	uint16_t d = (uint16_t)((resource_index - ses->cfg.resource_index) &
				0xFFF);

	if (d >= ses->rxq_n)
		return false;
	*ctx = d;
	return true;
}

uint32_t uet_ses_addr_initiator(const struct uet_addr *a)
{
	uint32_t h = 2166136261u;	/* FNV-1a 32 */
	size_t n = a->af == UET_AF_INET ? 4 : a->af == UET_AF_INET6 ? 16 : 0;
	uint8_t b[19];
	size_t i;

	b[0] = a->af;
	memcpy(b + 1, a->ip, n);
	b[1 + n] = (uint8_t)(a->port >> 8);
	b[2 + n] = (uint8_t)a->port;
	for (i = 0; i < n + 3; i++) {
		h ^= b[i];
		h *= 16777619u;
	}
	return h;
}

/* ---- Life ---- */

/* The receive contexts: context 0 may be a shared queue, the others (and
 * 0 otherwise) are the fep's own, each of cfg.rx_depth receives. */
static int ses_rxq_create(struct uet_ses *ses, const struct uet_fep_config *cfg,
			  const struct uet_callbacks *cb, void *user)
{
	uint16_t n = cfg->rx_ctx_count ? cfg->rx_ctx_count : 1;
	uint16_t i;

	if (n > 0x1000)
		return UET_ERR_INVAL;	/* 12-bit resource indices */
	ses->rxq = uet_calloc(n, sizeof(*ses->rxq));
	if (!ses->rxq)
		return UET_ERR_NOMEM;
	ses->rxq_n = n;
	for (i = 0; i < n; i++) {
		if (i == 0 && cfg->rxq) {
			ses->rxq[0] = cfg->rxq;
			cfg->rxq->users++;
			continue;
		}
		ses->rxq[i] = uet_malloc(sizeof(*ses->rxq[i]));
		if (!ses->rxq[i] ||
		    uet_rxq_init(ses->rxq[i], cfg->rx_depth, cb, user)) {
			uet_free(ses->rxq[i]);
			ses->rxq[i] = NULL;
			return UET_ERR_NOMEM;
		}
	}
	return 0;
}

/* Unexpected messages of this fep leave its contexts (a shared one keeps
 * the others'); its own contexts go. */
static void ses_rxq_destroy(struct uet_ses *ses,
			    void (*free_in)(struct uet_ses_inmsg *))
{
	struct uet_list *pos, *tmp;
	uint16_t i;

	for (i = 0; i < ses->rxq_n; i++) {
		struct uet_rxq *q = ses->rxq[i];

		if (!q)
			continue;
		uet_list_foreach_safe(pos, tmp, &q->unexp) {
			struct uet_ses_inmsg *in = uet_container_of(
				pos, struct uet_ses_inmsg, unexp_link);

			if (in->owner != ses)
				continue;
			uet_list_del(&in->unexp_link);
			free_in(in);
		}
		if (q->shared) {
			q->users--;
			continue;
		}
		uet_rxq_fini(q);
		uet_free(q);
	}
	uet_free(ses->rxq);
	ses->rxq = NULL;
}

/* Payload bytes of a full request packet of mtu bytes (> the headers). */
static size_t ses_payload_of(const struct uet_fep_config *cfg, size_t mtu)
{
	size_t n = mtu - UET_SES_HDRS_LEN;

	/* RCCC sends *_CC_REQ, whose PDS header is 4 bytes longer */
	if (cfg->cca == UET_CCA_RCCC || cfg->cca == UET_CCA_NSCC_RCCC)
		n -= UET_PDS_CC_REQ_LEN - UET_PDS_REQ_LEN;
	return n > UET_SES_PAYLOAD_LIMIT ? UET_SES_PAYLOAD_LIMIT : n;
}

size_t uet_ses_payload_to(const struct uet_ses *ses,
			  const struct uet_addr *peer)
{
	return uet_fep_config_mtu_to(&ses->cfg, peer) > ses->cfg.mtu ?
	       ses->host_payload_max : ses->payload_max;
}

size_t uet_ses_ret_payload_to(const struct uet_ses *ses,
			      const struct uet_addr *peer)
{
	size_t n = uet_fep_config_mtu_to(&ses->cfg, peer) -
		   UET_SES_RET_HDRS_LEN;

	return n > UET_SES_PAYLOAD_LIMIT ? UET_SES_PAYLOAD_LIMIT : n;
}

int uet_ses_create(struct uet_ses **out, const struct uet_fep_config *cfg,
		   const struct uet_callbacks *cb, void *user,
		   struct uet_pds *pds)
{
	struct uet_ses *ses;
	unsigned i;
	int rc;

	if (!cfg || !cfg->tx_depth || !cfg->rx_depth ||
	    cfg->mtu <= UET_SES_HDRS_LEN)
		return UET_ERR_INVAL;
	ses = uet_calloc(1, sizeof(*ses));
	if (!ses)
		return UET_ERR_NOMEM;
	ses->cfg = *cfg;
	/* request_length is 32 bits (docs/protocol.md §5.3). */
	if (ses->cfg.max_msg_size > UINT32_MAX)
		ses->cfg.max_msg_size = UINT32_MAX;
	ses->cb = cb;
	ses->user = user;
	ses->pds = pds;
	ses->payload_max = ses_payload_of(cfg, cfg->mtu);
	ses->host_payload_max = ses_payload_of(cfg,
					       uet_fep_config_mtu_max(cfg));
	ses->initiator = uet_ses_addr_initiator(&cfg->local);
	ses->dgram_max = uet_fep_dgram_max(cfg->mtu);
	/* mtu > UET_SES_HDRS_LEN, so the RUDI headers (shorter) fit too */
	ses->rudi_max = cfg->mtu - UET_PDS_RUDI_LEN - UET_SES_STD_LEN;
	if (ses->rudi_max > UET_SES_PAYLOAD_LIMIT)
		ses->rudi_max = UET_SES_PAYLOAD_LIMIT;
	ses->rudi_read_max = cfg->mtu - UET_PDS_RUDI_LEN - UET_SES_RSP_DATA_LEN;
	if (ses->rudi_read_max > UET_SES_PAYLOAD_LIMIT)
		ses->rudi_read_max = UET_SES_PAYLOAD_LIMIT;
	uet_list_init(&ses->cl_msgs);
	uet_list_init(&ses->pdcs);
	uet_list_init(&ses->tx_free);
	uet_list_init(&ses->tx_pending);
	uet_list_init(&ses->cl_pending);
	uet_list_init(&ses->in_free);

	ses->tx_pool = uet_calloc(cfg->tx_depth, sizeof(*ses->tx_pool));
	ses->in_pool = uet_calloc(cfg->rx_depth, sizeof(*ses->in_pool));
	if (cfg->inject_size)
		ses->inject_slab = uet_malloc(cfg->inject_size * cfg->tx_depth);
	if (!ses->tx_pool || !ses->in_pool ||
	    (cfg->inject_size && !ses->inject_slab))
		rc = UET_ERR_NOMEM;
	else
		rc = ses_rxq_create(ses, cfg, cb, user);
	if (rc) {
		uet_ses_destroy(ses);
		return rc;
	}
	for (i = 0; i < cfg->tx_depth; i++) {
		if (ses->inject_slab)
			ses->tx_pool[i].inject =
				ses->inject_slab + (size_t)i * cfg->inject_size;
		uet_list_add_tail(&ses->tx_free, &ses->tx_pool[i].link);
	}
	for (i = 0; i < cfg->rx_depth; i++)
		uet_list_add_tail(&ses->in_free, &ses->in_pool[i].pdc_link);
	ses->tx_free_n = cfg->tx_depth;
	/* PDS sends RUDI and UUD only with cfg.rudi / cfg.uud (cless.c) */
	if (pds)
		uet_pds_cl_attach(pds, &uet_cless_ops);
	*out = ses;
	return 0;
}

static void free_inmsg_mem(struct uet_ses_inmsg *in)
{
	uet_reasm_fini(&in->reasm);
	uet_free(in->buf);
	if (in->heap)
		uet_free(in);
}

/* Outgoing descriptors hold read bitmaps; internal ones (rendezvous
 * reads) are allocated with the receive they fill. */
static void free_msgs(struct uet_list *head)
{
	struct uet_list *pos, *tmp;

	uet_list_foreach_safe(pos, tmp, head) {
		struct uet_ses_msg *m =
			uet_container_of(pos, struct uet_ses_msg, link);

		uet_list_del(&m->link);
		uet_reasm_fini(&m->rx);
		if (!m->internal)
			continue;
		if (m->rin)
			free_inmsg_mem(m->rin);
		uet_free(m);
	}
}

static void free_jobs(struct uet_list *head)
{
	struct uet_list *pos, *tmp;

	uet_list_foreach_safe(pos, tmp, head) {
		struct uet_ses_ret *j =
			uet_container_of(pos, struct uet_ses_ret, link);

		uet_list_del(pos);
		/* Frees a deregistered region only this job kept. */
		uet_mr_unref(j->mr);
		uet_free(j);
	}
}

void uet_ses_destroy(struct uet_ses *ses)
{
	struct uet_list *pos, *tmp, *p2, *t2;

	if (!ses)
		return;
	free_msgs(&ses->tx_pending);
	uet_pending_fini(ses);
	free_msgs(&ses->cl_msgs);
	uet_list_foreach_safe(pos, tmp, &ses->pdcs) {
		struct uet_ses_pdc *ps =
			uet_container_of(pos, struct uet_ses_pdc, link);

		free_msgs(&ps->tx_msgs);
		free_jobs(&ps->ret_q);
		free_jobs(&ps->ret_sent);

		uet_list_foreach_safe(p2, t2, &ps->rx_msgs) {
			struct uet_ses_inmsg *in = uet_container_of(
				p2, struct uet_ses_inmsg, pdc_link);

			uet_list_del(&in->pdc_link);
			uet_list_del(&in->unexp_link);
			/* a shared queue's receive outlives this fep */
			if (in->recv && in->recv->q->shared)
				uet_match_orphan(in);
			free_inmsg_mem(in);
		}
		/* ps->ref may be gone already: PDS is destroyed first. */
		uet_free(ps);
	}
	ses_rxq_destroy(ses, free_inmsg_mem);
	uet_mr_fini(ses);
	uet_free(ses->tx_pool);
	uet_free(ses->in_pool);
	uet_free(ses->inject_slab);
	uet_free(ses);
}

void uet_ses_complete(struct uet_ses *ses, const struct uet_completion *c)
{
	if (ses->cb && ses->cb->complete)
		ses->cb->complete(ses->user, c);
}

/* ---- Front door ---- */

int uet_ses_post(struct uet_ses *ses, const struct uet_op *op, uet_time now)
{
	if (!op)
		return UET_ERR_INVAL;
	if (now > ses->now)
		ses->now = now;
	switch (op->type) {
	case UET_OP_SEND:
	case UET_OP_TSEND:
	case UET_OP_WRITE:
	case UET_OP_READ:
	case UET_OP_ATOMIC:
	case UET_OP_FETCH_ATOMIC:
	case UET_OP_CMP_ATOMIC:
		return uet_msg_post(ses, op, now);
	case UET_OP_RECV:
	case UET_OP_TRECV:
		if (op->rx_ctx >= ses->rxq_n)
			return UET_ERR_INVAL;
		return uet_match_post(ses->rxq[op->rx_ctx], op);
	}
	return UET_ERR_INVAL;
}

int uet_ses_cancel(struct uet_ses *ses, void *context)
{
	uint16_t i;

	for (i = 0; i < ses->rxq_n; i++)
		if (!uet_match_cancel(ses->rxq[i], context))
			return 0;
	return UET_ERR_NOENT;
}

void uet_ses_flush(struct uet_ses *ses)
{
	uint16_t i;

	uet_msg_flush(ses);
	uet_rx_flush(ses);
	/* a shared queue's receives are not this fep's to end */
	for (i = 0; i < ses->rxq_n; i++)
		if (!ses->rxq[i]->shared)
			uet_match_flush(ses->rxq[i]);
}

size_t uet_ses_tx_left(const struct uet_ses *ses)
{
	return ses->tx_free_n;
}

size_t uet_ses_rx_left(const struct uet_ses *ses)
{
	return ses->rxq[0]->free_n;
}

size_t uet_ses_payload_max(const struct uet_ses *ses)
{
	return ses->payload_max;
}

void uet_ses_stats(const struct uet_ses *ses, struct uet_ses_stats *st)
{
	*st = ses->st;
	st->unexp_bytes = ses->unexp_used;
}

void uet_ses_stats_fep(const struct uet_ses *ses, struct uet_fep_stats *st)
{
	const struct uet_ses_stats *s = &ses->st;

	st->drop_job += s->bad_job + s->bad_pid + s->bad_index;
	st->unexp_msgs += s->unexp_msgs;
	st->rma_rx += s->rma_writes + s->rma_reads + s->amo_ops;
	st->rma_refused += s->rma_bad_mkey + s->rma_perm + s->rma_bad_addr +
			   s->amo_bad_op + s->amo_bad_dt + s->amo_bad_size +
			   s->amo_unaligned;
}

/* ---- PDC life ---- */

struct uet_ses_pdc *uet_ses_pdc_state(struct uet_ses *ses,
				      struct uet_pdc_ref *pdc)
{
	struct uet_ses_pdc *ps = pdc->ses_state;

	if (ps)
		return ps;
	/* One allocation per PDC (not per packet); PDS normally calls
	 * uet_ses_pdc_open first, this covers a failed one. */
	ps = uet_calloc(1, sizeof(*ps));
	if (!ps)
		return NULL;
	ps->ref = pdc;
	uet_list_init(&ps->tx_msgs);
	uet_list_init(&ps->rx_msgs);
	uet_list_init(&ps->ret_q);
	uet_list_init(&ps->ret_sent);
	uet_list_add_tail(&ses->pdcs, &ps->link);
	pdc->ses_state = ps;
	return ps;
}

void uet_ses_pdc_open(struct uet_ses *ses, struct uet_pdc_ref *pdc)
{
	/* A new PDC numbers its messages from 0 (sublayer.h). */
	pdc->ses_state = NULL;
	uet_ses_pdc_state(ses, pdc);
}

void uet_ses_pdc_closed(struct uet_ses *ses, struct uet_pdc_ref *pdc)
{
	struct uet_ses_pdc *ps = pdc->ses_state;
	bool failed;

	if (!ps)
		return;
	uet_msg_pdc_closed(ses, ps);
	uet_rma_pdc_closed(ses, ps);
	uet_rx_pdc_closed(ses, ps);
	failed = ps->failed;
	uet_list_del(&ps->link);
	pdc->ses_state = NULL;
	/* Sends queued for the peer of a failed PDC fail with it (the peer
	 * is unreachable); after a clean close they need a new PDC. */
	if (pdc->initiator && failed)
		uet_msg_fail_pending(ses, &pdc->peer, UET_ERR_PEER,
				     ps->fail_code);
	else if (pdc->initiator && uet_msg_pending(ses, &pdc->peer))
		ses->rewake = true;
	uet_free(ps);
}

bool uet_ses_pdc_busy(struct uet_ses *ses, const struct uet_pdc_ref *pdc)
{
	const struct uet_ses_pdc *ps = pdc->ses_state;

	if (ps && (ps->cur || !uet_list_empty(&ps->tx_msgs) ||
		   !uet_list_empty(&ps->rx_msgs) || uet_rma_busy(ps)))
		return true;
	return pdc->initiator && uet_msg_pending(ses, &pdc->peer);
}
