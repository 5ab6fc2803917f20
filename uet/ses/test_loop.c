/* SES test harness: see test_loop.h. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test_loop.h"
#include "test_op.h"

/* The PDS side of the contract, played by the test: count wakes. */
void uet_pds_wake(struct uet_pds *pds, const struct uet_addr *peer,
		  uet_time now)
{
	struct tl_ep *e = (struct tl_ep *)pds;

	(void)now;
	e->wakes++;
	e->wake_peer = *peer;
}

void uet_pds_wake_pdc(struct uet_pds *pds, struct uet_pdc_ref *pdc,
		      uet_time now)
{
	struct tl_ep *e = (struct tl_ep *)pds;

	(void)pdc;
	(void)now;
	e->wakes_pdc++;
}

/* Room for element n of an array p of *cap elements of size bytes. */
static void *grow(void *p, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? 2 * *cap : 64;
	p = realloc(p, *cap * size);
	cr_assert(p);
	return p;
}

/* Connectionless delivery is not played here (cless_test.c runs it over
 * the real PDS). */
void uet_pds_cl_attach(struct uet_pds *pds, const struct uet_ses_cl_ops *ops)
{
	(void)pds;
	(void)ops;
}

void uet_pds_wake_cl(struct uet_pds *pds, uet_time now)
{
	(void)pds;
	(void)now;
}

static void tl_complete(void *user, const struct uet_completion *c)
{
	struct tl_ep *e = user;

	e->comp = grow(e->comp, e->ncomp, &e->capcomp, sizeof(*e->comp));
	e->comp[e->ncomp++] = *c;
}

struct uet_addr tl_addr(uint16_t port)
{
	struct uet_addr a;

	memset(&a, 0, sizeof(a));
	a.af = UET_AF_INET;
	a.port = port;
	a.ip[0] = 127;
	a.ip[3] = 1;
	return a;
}

void tl_cfg(struct uet_fep_config *cfg, uint16_t port)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->local = tl_addr(port);
	cfg->job_id = TL_JOB;
	cfg->pid_on_fep = uet_ses_addr_pid(&cfg->local);
	cfg->resource_index = uet_ses_addr_ri(&cfg->local);
	cfg->mtu = 1500;
	cfg->max_msg_size = 16u << 20;
	cfg->inject_size = 64;
	cfg->tx_depth = 64;
	cfg->rx_depth = 64;
	cfg->unexp_max = 64u << 20;
}

void tl_ep_open(struct tl_ep *e, const struct uet_fep_config *cfg)
{
	memset(e, 0, sizeof(*e));
	e->cfg = *cfg;
	e->cb.complete = tl_complete;
	cr_assert_eq(uet_ses_create(&e->ses, &e->cfg, &e->cb, e,
				    (struct uet_pds *)e), 0);
}

void tl_ep_close(struct tl_ep *e)
{
	uet_ses_destroy(e->ses);
	free(e->comp);
	e->comp = NULL;
}

void tl_ep_open_at(struct tl_ep *e, uint16_t port,
		   void (*tweak)(struct uet_fep_config *))
{
	struct uet_fep_config cfg;

	tl_cfg(&cfg, port);
	if (tweak)
		tweak(&cfg);
	tl_ep_open(e, &cfg);
}

void tl_pair_open(struct tl_ep *a, uint16_t pa, struct tl_ep *b,
		  uint16_t pb, struct tl_link *l,
		  void (*tweak_b)(struct uet_fep_config *))
{
	tl_ep_open_at(a, pa, NULL);
	tl_ep_open_at(b, pb, tweak_b);
	tl_link_open(l, a, b, 1);
}

void tl_pair_close(struct tl_ep *a, struct tl_ep *b, struct tl_link *l)
{
	tl_link_close(l);
	tl_ep_close(a);
	tl_ep_close(b);
}

void tl_link_open(struct tl_link *l, struct tl_ep *tx, struct tl_ep *rx,
		  uint32_t id)
{
	memset(l, 0, sizeof(*l));
	l->tx = tx;
	l->rx = rx;
	l->tpdc.id = id;
	l->tpdc.peer = rx->cfg.local;
	l->tpdc.initiator = true;
	l->rpdc.id = id;
	l->rpdc.peer = tx->cfg.local;
	l->rpdc.initiator = false;
	uet_ses_pdc_open(tx->ses, &l->tpdc);
	uet_ses_pdc_open(rx->ses, &l->rpdc);
}

void tl_link_close(struct tl_link *l)
{
	uet_ses_pdc_closed(l->tx->ses, &l->tpdc);
	uet_ses_pdc_closed(l->rx->ses, &l->rpdc);
	free(l->p);
	l->p = NULL;
	l->n = l->cap = 0;
	free(l->rp);
	l->rp = NULL;
	l->rn = l->rcap = 0;
}

/* Pull up to max packets from e's side of a link (its PDC pdc) into the
 * list *p of *n (capacity *cap); a return direction sends only read
 * data. */
static size_t pull(struct tl_ep *e, struct uet_pdc_ref *pdc, bool ret,
		   struct tl_pkt **p, size_t *n, size_t *cap, size_t max)
{
	size_t got = 0;

	while (got < max) {
		struct uet_ses_pkt pkt;

		if (!uet_ses_tx_next(e->ses, pdc, &pkt, 0))
			break;
		if (ret)
			cr_assert_eq(pkt.next_hdr, UET_NH_RSP_DATA);
		*p = grow(*p, *n, cap, sizeof(**p));
		memset(&(*p)[*n], 0, sizeof((*p)[*n]));
		(*p)[(*n)++].pkt = pkt;
		got++;
	}
	return got;
}

/* Write packet p of e's side into l->buf: at least min bytes, within e's
 * mtu under a PDS request header. Returns the length. */
static int write_pkt(struct tl_link *l, struct tl_ep *e,
		     struct uet_pdc_ref *pdc, struct tl_pkt *p, int min)
{
	int n = uet_ses_tx_write(e->ses, pdc, &p->pkt, l->buf,
				 sizeof(l->buf));

	cr_assert_geq(n, min, "tx_write: %d", n);
	cr_assert_leq((size_t)n + UET_PDS_REQ_LEN, e->cfg.mtu);
	return n;
}

size_t tl_pull(struct tl_link *l, size_t max)
{
	return pull(l->tx, &l->tpdc, false, &l->p, &l->n, &l->cap, max);
}

int tl_deliver(struct tl_link *l, size_t i)
{
	struct tl_pkt *p = &l->p[i];
	struct uet_ses_reply reply;
	int hlen, ret;

	cr_assert_lt(i, l->n);
	l->wlen = write_pkt(l, l->tx, &l->tpdc, p, UET_SES_STD_LEN);
	hlen = uet_ses_req_decode(&l->req, UET_NH_REQ_STD, l->buf,
				  (size_t)l->wlen);
	cr_assert_geq(hlen, UET_SES_STD_LEN, "decode: %d", hlen);
	cr_assert_eq(hlen, uet_ses_req_len(&l->req));
	memset(&reply, 0x5A, sizeof(reply));
	ret = uet_ses_rx(l->rx->ses, &l->rpdc, &l->req, l->buf + hlen,
			 (size_t)l->wlen - hlen, &reply, 0);
	p->rsp = reply.rsp;
	p->gtd = reply.gtd;
	p->reply = reply;
	cr_assert_geq(ret, 0);
	p->nack = (uint8_t)ret;
	if (!ret) {
		uint8_t rbuf[UET_SES_RSP_DATA_LEN];
		int want = p->rsp.format == UET_NH_RSP_DATA ?
			UET_SES_RSP_DATA_LEN : UET_SES_RSP_LEN;

		/* What SES answers must be encodable as it stands; data
		 * only with a data format and within the ACK limit. */
		cr_assert_eq(uet_ses_rsp_encode(rbuf, sizeof(rbuf), &p->rsp),
			     want);
		cr_assert_leq(reply.data_len, UET_ACK_DATA_MAX);
		if (p->rsp.format == UET_NH_RSP)
			cr_assert_eq(reply.data_len, 0);
		else
			cr_assert_eq(p->rsp.payload_length, reply.data_len);
	}
	return ret;
}

void tl_ack(struct tl_link *l, size_t i)
{
	cr_assert_not(l->p[i].acked, "packet %zu acked twice", i);
	l->p[i].acked = true;
	l->p[i].reply.rsp = l->p[i].rsp;
	uet_ses_tx_acked(l->tx->ses, &l->tpdc, &l->p[i].pkt, &l->p[i].reply,
			 0);
}

int tl_xfer(struct tl_link *l, size_t i)
{
	int ret = tl_deliver(l, i);

	if (!ret)
		tl_ack(l, i);
	return ret;
}

size_t tl_run(struct tl_link *l, unsigned tries)
{
	size_t i, left = 0, start = l->n;
	unsigned t;

	tl_pull(l, SIZE_MAX);
	for (t = 0; t <= tries; t++) {
		left = 0;
		for (i = start; i < l->n; i++) {
			if (l->p[i].acked)
				continue;
			if (tl_xfer(l, i))
				left++;
		}
		if (!left)
			break;
		/* Packets released by acks may let more out. */
		tl_pull(l, SIZE_MAX);
	}
	return left;
}

/* Post op (its type's own fields set) on the one buffer buf, to or from
 * the endpoint at port; port 0: any source. */
static int post(struct tl_ep *e, uint16_t port, struct uet_op *op,
		uint8_t type, void *buf, size_t len, uint32_t flags,
		void *ctx)
{
	struct uet_iov iov = { buf, len };
	struct uet_addr peer = tl_addr(port);

	test_op_init(op, type, port ? flags : flags | UET_OPF_PEER_ANY, ctx,
		     port ? &peer : NULL, &iov);
	return uet_ses_post(e->ses, op, 0);
}

int tl_send(struct tl_ep *e, uint16_t to, uint8_t type, const void *buf,
	    size_t len, uint64_t tag, uint32_t flags, uint64_t cq_data,
	    void *ctx)
{
	struct uet_op op = { .tag = tag, .cq_data = cq_data };

	return post(e, to, &op, type, (void *)buf, len, flags, ctx);
}

int tl_recv(struct tl_ep *e, uint8_t type, void *buf, size_t len,
	    uint64_t tag, uint64_t ignore, uint32_t flags, uint16_t from,
	    void *ctx)
{
	struct uet_op op = { .tag = tag, .ignore = ignore };

	return post(e, from, &op, type, buf, len, flags, ctx);
}

const struct uet_completion *tl_comp(const struct tl_ep *e, const void *ctx)
{
	size_t i;

	for (i = 0; i < e->ncomp; i++)
		if (e->comp[i].context == ctx)
			return &e->comp[i];
	return NULL;
}

size_t tl_count(const struct tl_ep *e, const void *ctx)
{
	size_t i, n = 0;

	for (i = 0; i < e->ncomp; i++)
		n += e->comp[i].context == ctx;
	return n;
}

void tl_fill(uint8_t *buf, size_t len, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (uint8_t)x;
	}
}

/* ---- Return direction ---- */

size_t tl_ret_pull(struct tl_link *l, size_t max)
{
	return pull(l->rx, &l->rpdc, true, &l->rp, &l->rn, &l->rcap, max);
}

int tl_ret_deliver(struct tl_link *l, size_t i)
{
	struct tl_pkt *p = &l->rp[i];
	int n, hlen, ret;

	cr_assert_lt(i, l->rn);
	n = write_pkt(l, l->rx, &l->rpdc, p, UET_SES_RSP_DATA_LEN);
	hlen = uet_ses_rsp_decode(&l->rrsp, UET_NH_RSP_DATA, l->buf,
				  (size_t)n);
	cr_assert_eq(hlen, UET_SES_RSP_DATA_LEN);
	ret = uet_ses_rx_ret(l->tx->ses, &l->tpdc, &l->rrsp, l->buf + hlen,
			     (size_t)(n - hlen), 0);
	cr_assert_geq(ret, 0);
	p->nack = (uint8_t)ret;
	return ret;
}

void tl_ret_ack(struct tl_link *l, size_t i)
{
	cr_assert_not(l->rp[i].acked, "return packet %zu acked twice", i);
	l->rp[i].acked = true;
	uet_ses_tx_acked(l->rx->ses, &l->rpdc, &l->rp[i].pkt, NULL, 0);
}

size_t tl_ret_run(struct tl_link *l)
{
	size_t i, left = 0;

	tl_ret_pull(l, SIZE_MAX);
	for (i = 0; i < l->rn; i++) {
		if (l->rp[i].acked)
			continue;
		if (tl_ret_deliver(l, i))
			left++;
		else
			tl_ret_ack(l, i);
	}
	return left;
}

void tl_run_all(struct tl_link **links, size_t n)
{
	size_t i, before, after;
	unsigned rounds = 0;

	do {
		before = after = 0;
		for (i = 0; i < n; i++)
			before += links[i]->n + links[i]->rn;
		for (i = 0; i < n; i++) {
			tl_run(links[i], 0);
			tl_ret_run(links[i]);
		}
		for (i = 0; i < n; i++)
			after += links[i]->n + links[i]->rn;
		cr_assert_lt(++rounds, 100000);
	} while (after != before);
}

int tl_mr(struct tl_ep *e, void *base, size_t len, uint64_t key,
	  uint32_t access, void *ctx)
{
	struct uet_mr_attr a = { .base = base, .len = len, .key = key,
				 .access = access, .context = ctx };

	return uet_ses_mr_reg(e->ses, &a);
}

int tl_rma(struct tl_ep *e, uint16_t to, uint8_t type, void *buf,
	   size_t len, uint64_t key, uint64_t raddr, uint32_t flags,
	   void *ctx)
{
	struct uet_op op = { .rkey = key, .raddr = raddr, .cq_data = 0xC0DA };

	return post(e, to, &op, type, buf, len, flags, ctx);
}

int tl_amo(struct tl_ep *e, uint16_t to, uint8_t type, uint8_t op,
	   uint8_t dt, const void *buf, size_t len, void *res, size_t rlen,
	   const void *cmp, size_t clen, uint64_t key, uint64_t raddr,
	   void *ctx)
{
	struct uet_iov iov = { (void *)buf, len }, riov = { res, rlen };
	struct uet_iov ciov = { (void *)cmp, clen };
	struct uet_addr peer = tl_addr(to);
	struct uet_op o = { .rkey = key, .raddr = raddr };

	test_op_init(&o, type, UET_OPF_COMPLETION, ctx, &peer, &iov);
	o.iov_count = buf || len ? 1 : 0;
	test_op_amo(&o, op, dt, &riov, &ciov);
	return uet_ses_post(e->ses, &o, 0);
}
