/* Shared contexts and scalable endpoints through the public API, both
 * ends in one process on the mem net under the fake clock: a shared
 * receive context serving two endpoints (RDM and DGRAM: receives posted
 * once, each completion in the CQ of the endpoint the message came to,
 * messages that came first waiting for the next receive, cancel), a
 * shared transmit context (each endpoint still sends as itself), and a
 * scalable endpoint whose receive contexts are reached with fi_rx_addr
 * (each context matches only its own messages) and whose transmit
 * contexts complete into their own CQs; the API refusals of each. */
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>

#include <criterion/criterion.h>
#include <rdma/fi_errno.h>

#include "uet/wire.h"
#include "uetp.h"

#include "test_util.h"

#define NCQ	8

static struct {
	struct uetp_test_pair p;	/* its domain; the sides unused */
	struct fid_cq *cqs[NCQ];	/* every CQ, to run progress on */
	size_t ncq;
} cx;

/* On the mem net under the fake clock. */
static void cx_open(struct fi_info *h)
{
	uetp_test_mem_start(NULL);
	uetp_test_getinfo(&cx.p, h);
	uetp_test_domain_open(&cx.p);
}

static void cx_close(void)
{
	/* a failed test leaves its endpoints: close what will close */
	for (size_t i = 0; i < cx.ncq; i++)
		fi_close(&cx.cqs[i]->fid);
	if (cx.p.domain)
		fi_close(&cx.p.domain->fid);
	if (cx.p.fabric)
		fi_close(&cx.p.fabric->fid);
	fi_freeinfo(cx.p.info);
	memset(&cx, 0, sizeof(cx));
	uetp_test_mem_stop();
}

TestSuite(ctx, .fini = cx_close, .timeout = 60);

static struct fid_cq *cq_new(void)
{
	struct fi_cq_attr ca = { .format = FI_CQ_FORMAT_TAGGED, .size = 64 };
	struct fid_cq *cq;

	cr_assert_lt(cx.ncq, NCQ);
	cr_assert_eq(fi_cq_open(cx.p.domain, &ca, &cq, NULL), 0);
	cx.cqs[cx.ncq++] = cq;
	return cq;
}

static struct fid_av *av_new(int rx_ctx_bits)
{
	struct fi_av_attr aa = { .type = FI_AV_TABLE,
				 .rx_ctx_bits = rx_ctx_bits };
	struct fid_av *av;

	cr_assert_eq(fi_av_open(cx.p.domain, &aa, &av, NULL), 0);
	return av;
}

static fi_addr_t learn(struct fid_av *av, struct fid *named)
{
	struct sockaddr_in sa;
	size_t len = sizeof(sa);
	fi_addr_t a;

	cr_assert_eq(fi_getname(named, &sa, &len), 0);
	cr_assert_eq(fi_av_insert(av, &sa, 1, &a, 0, NULL), 1);
	return a;
}

/* An endpoint with av and one CQ for both directions, not enabled. */
static struct fid_ep *ep_new(struct fid_av *av, struct fid_cq *cq)
{
	struct fid_ep *ep;

	cr_assert_eq(fi_endpoint(cx.p.domain, cx.p.info, &ep, NULL), 0);
	cr_assert_eq(fi_ep_bind(ep, &av->fid, 0), 0);
	cr_assert_eq(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV), 0);
	return ep;
}

/* Read one entry from want, running progress on every CQ meanwhile. */
static ssize_t cq_wait(struct fid_cq *want, struct fi_cq_tagged_entry *e,
		       fi_addr_t *src, int ms)
{
	uet_time end = uetp_now() + (uet_time)ms * UET_MSEC;
	fi_addr_t junk;
	ssize_t ret;

	do {
		ret = fi_cq_readfrom(want, e, 1, src ? src : &junk);
		if (ret != -FI_EAGAIN)
			return ret;
		for (size_t i = 0; i < cx.ncq; i++)
			if (cx.cqs[i] != want)
				fi_cq_read(cx.cqs[i], NULL, 0);
		uetp_test_idle(cx.p.domain);
	} while (uetp_now() < end);
	return -FI_EAGAIN;
}

static void cq_expect(struct fid_cq *cq, struct fi_cq_tagged_entry *e,
		      fi_addr_t *src)
{
	ssize_t ret = cq_wait(cq, e, src, 10000);

	cr_assert_eq(ret, 1, "no completion (%zd)", ret);
}

static void cq_none(struct fid_cq *cq, int ms)
{
	struct fi_cq_tagged_entry e;

	cr_assert_eq(cq_wait(cq, &e, NULL, ms), -FI_EAGAIN);
}

/* ---- shared receive context ---- */

/* Receiver: srx shared by r[0], r[1] (CQs rcq[0], rcq[1]); sender s. */
static struct {
	struct fid_ep *srx, *r[2], *s;
	struct fid_cq *rcq[2], *scq;
	struct fid_av *rav, *sav;
	fi_addr_t to[2], from_s[2];
} sh;

static void srx_open(enum fi_ep_type type)
{
	struct fi_info *h = uetp_test_lo_hints(type, FI_MSG);

	h->ep_attr->rx_ctx_cnt = FI_SHARED_CONTEXT;
	cx_open(h);
	cr_assert_eq(cx.p.info->ep_attr->rx_ctx_cnt, FI_SHARED_CONTEXT);
	cr_assert_eq(fi_srx_context(cx.p.domain, cx.p.info->rx_attr, &sh.srx,
				    NULL), 0);
	sh.rav = av_new(0);
	sh.sav = av_new(0);
	sh.scq = cq_new();
	sh.s = ep_new(sh.sav, sh.scq);
	cr_assert_eq(fi_enable(sh.s), 0);
	for (int i = 0; i < 2; i++) {
		sh.rcq[i] = cq_new();
		sh.r[i] = ep_new(sh.rav, sh.rcq[i]);
		cr_assert_eq(fi_ep_bind(sh.r[i], &sh.srx->fid, 0), 0);
		cr_assert_eq(fi_enable(sh.r[i]), 0);
		sh.to[i] = learn(sh.sav, &sh.r[i]->fid);
	}
	sh.from_s[0] = learn(sh.rav, &sh.s->fid);
}

static void srx_close(void)
{
	/* bound endpoints keep it open */
	cr_assert_eq(fi_close(&sh.srx->fid), -FI_EBUSY);
	for (int i = 0; i < 2; i++)
		cr_assert_eq(fi_close(&sh.r[i]->fid), 0);
	cr_assert_eq(fi_close(&sh.s->fid), 0);
	cr_assert_eq(fi_close(&sh.srx->fid), 0);
	cr_assert_eq(fi_close(&sh.rav->fid), 0);
	cr_assert_eq(fi_close(&sh.sav->fid), 0);
	memset(&sh, 0, sizeof(sh));
}

static void srx_exchange(void)
{
	struct fi_cq_tagged_entry e;
	char rx[3][16] = { "", "", "" };
	int c[3];
	fi_addr_t src;

	/* receives posted once, taken by whichever endpoint's message */
	for (int i = 0; i < 2; i++)
		cr_assert_eq(fi_recv(sh.srx, rx[i], 16, NULL, FI_ADDR_UNSPEC,
				     &c[i]), 0);
	cr_assert_eq(fi_send(sh.s, "to-r1", 6, NULL, sh.to[1], NULL), 0);
	cq_expect(sh.rcq[1], &e, &src);
	cr_assert_eq(e.op_context, &c[0]);
	cr_assert_eq(e.len, 6);
	cr_assert_str_eq(rx[0], "to-r1");
	cr_assert_eq(src, sh.from_s[0]);
	cq_expect(sh.scq, &e, NULL);
	cr_assert_eq(fi_send(sh.s, "to-r0", 6, NULL, sh.to[0], NULL), 0);
	cq_expect(sh.rcq[0], &e, NULL);
	cr_assert_eq(e.op_context, &c[1]);
	cr_assert_str_eq(rx[1], "to-r0");
	cq_expect(sh.scq, &e, NULL);
	cq_none(sh.rcq[1], 50);
	/* a message before its receive waits for the next one posted */
	cr_assert_eq(fi_send(sh.s, "early", 6, NULL, sh.to[0], NULL), 0);
	cq_expect(sh.scq, &e, NULL);
	cq_none(sh.rcq[0], 200);
	cr_assert_eq(fi_recv(sh.srx, rx[2], 16, NULL, FI_ADDR_UNSPEC, &c[2]),
		     0);
	cq_expect(sh.rcq[0], &e, NULL);
	cr_assert_eq(e.op_context, &c[2]);
	cr_assert_str_eq(rx[2], "early");
}

Test(ctx, srx_rdm_serves_both_endpoints)
{
	srx_open(FI_EP_RDM);
	srx_exchange();
	srx_close();
}

Test(ctx, srx_dgram_serves_both_endpoints)
{
	srx_open(FI_EP_DGRAM);
	srx_exchange();
	srx_close();
}

Test(ctx, srx_cancel_and_refusals)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry ee = { 0 };
	char buf[16];
	int c;

	srx_open(FI_EP_RDM);
	cr_assert_eq(fi_recv(sh.srx, buf, 16, NULL, FI_ADDR_UNSPEC, &c), 0);
	cr_assert_eq(fi_cancel(&sh.srx->fid, &c), 0);
	cr_assert_eq(fi_cancel(&sh.srx->fid, &c), -FI_ENOENT);
	/* reported to the first bound endpoint */
	cr_assert_eq(cq_wait(sh.rcq[0], &e, NULL, 1000), -FI_EAVAIL);
	cr_assert_eq(fi_cq_readerr(sh.rcq[0], &ee, 0), 1);
	cr_assert_eq(ee.err, FI_ECANCELED);
	cr_assert_eq(ee.op_context, &c);
	/* receives only; binding is for endpoints not enabled yet */
	cr_assert_eq(fi_send(sh.srx, buf, 1, NULL, 0, NULL), -FI_ENOSYS);
	cr_assert_eq(fi_ep_bind(sh.r[0], &sh.srx->fid, 0), -FI_EOPBADSTATE);
	srx_close();
}

/* ---- shared transmit context ---- */

Test(ctx, stx_endpoints_still_send_as_themselves)
{
	struct fi_info *h = uetp_test_lo_hints(FI_EP_RDM, FI_MSG);
	struct fid_stx *stx;
	struct fid_ep *t[2], *r;
	struct fid_cq *tcq[2], *rcq;
	struct fid_av *tav, *rav;
	struct fi_cq_tagged_entry e;
	fi_addr_t to, from[2], src;
	char rx[2][8];

	h->ep_attr->tx_ctx_cnt = FI_SHARED_CONTEXT;
	cx_open(h);
	cr_assert_eq(fi_stx_context(cx.p.domain, cx.p.info->tx_attr, &stx, NULL),
		     0);
	tav = av_new(0);
	rav = av_new(0);
	rcq = cq_new();
	r = ep_new(rav, rcq);
	cr_assert_eq(fi_enable(r), 0);
	for (int i = 0; i < 2; i++) {
		tcq[i] = cq_new();
		t[i] = ep_new(tav, tcq[i]);
		cr_assert_eq(fi_ep_bind(t[i], &stx->fid, 0), 0);
		cr_assert_eq(fi_enable(t[i]), 0);
		from[i] = learn(rav, &t[i]->fid);
	}
	cr_assert_neq(from[0], from[1]);
	to = learn(tav, &r->fid);
	for (int i = 0; i < 2; i++)
		cr_assert_eq(fi_recv(r, rx[i], 8, NULL, FI_ADDR_UNSPEC, NULL),
			     0);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(fi_send(t[i], "x", 2, NULL, to, &tcq[i]), 0);
		cq_expect(tcq[i], &e, NULL);
		cr_assert_eq(e.op_context, &tcq[i]);
		cq_expect(rcq, &e, &src);
		cr_assert_eq(src, from[i], "the sender's own name");
	}
	cr_assert_eq(fi_close(&stx->fid), -FI_EBUSY);
	for (int i = 0; i < 2; i++)
		cr_assert_eq(fi_close(&t[i]->fid), 0);
	cr_assert_eq(fi_close(&stx->fid), 0);
	cr_assert_eq(fi_close(&r->fid), 0);
	cr_assert_eq(fi_close(&tav->fid), 0);
	cr_assert_eq(fi_close(&rav->fid), 0);
}

/* ---- scalable endpoints ---- */

static struct {
	struct fid_ep *sep, *tx[2], *rx[2], *s;
	struct fid_cq *txcq[2], *rxcq[2], *scq;
	struct fid_av *av, *sav;
	fi_addr_t to_sep, to_s;
} sc;

static void sep_open(void)
{
	struct fi_info *h = uetp_test_lo_hints(FI_EP_RDM, FI_MSG | FI_NAMED_RX_CTX);
	struct fi_info *si;

	cx_open(h);
	si = fi_dupinfo(cx.p.info);
	si->ep_attr->tx_ctx_cnt = 2;
	si->ep_attr->rx_ctx_cnt = 2;
	cr_assert_eq(fi_scalable_ep(cx.p.domain, si, &sc.sep, NULL), 0);
	fi_freeinfo(si);
	sc.av = av_new(0);
	sc.sav = av_new(2);		/* fi_rx_addr with 2 bits */
	cr_assert_eq(fi_scalable_ep_bind(sc.sep, &sc.av->fid, 0), 0);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(fi_tx_context(sc.sep, i, NULL, &sc.tx[i], NULL),
			     0);
		cr_assert_eq(fi_rx_context(sc.sep, i, NULL, &sc.rx[i], NULL),
			     0);
		sc.txcq[i] = cq_new();
		sc.rxcq[i] = cq_new();
		cr_assert_eq(fi_ep_bind(sc.tx[i], &sc.txcq[i]->fid, FI_SEND),
			     0);
		cr_assert_eq(fi_ep_bind(sc.rx[i], &sc.rxcq[i]->fid, FI_RECV),
			     0);
		cr_assert_eq(fi_enable(sc.tx[i]), 0);
		cr_assert_eq(fi_enable(sc.rx[i]), 0);
	}
	cr_assert_eq(fi_enable(sc.sep), 0);
	sc.scq = cq_new();
	sc.s = ep_new(sc.sav, sc.scq);
	cr_assert_eq(fi_enable(sc.s), 0);
	sc.to_sep = learn(sc.sav, &sc.sep->fid);
	sc.to_s = learn(sc.av, &sc.s->fid);
}

static void sep_close(void)
{
	cr_assert_eq(fi_close(&sc.sep->fid), -FI_EBUSY);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(fi_close(&sc.tx[i]->fid), 0);
		cr_assert_eq(fi_close(&sc.rx[i]->fid), 0);
	}
	cr_assert_eq(fi_close(&sc.sep->fid), 0);
	cr_assert_eq(fi_close(&sc.s->fid), 0);
	cr_assert_eq(fi_close(&sc.av->fid), 0);
	cr_assert_eq(fi_close(&sc.sav->fid), 0);
	memset(&sc, 0, sizeof(sc));
}

/* fi_rx_addr picks the receive context; each matches only its own. */
Test(ctx, sep_rx_contexts_by_rx_addr)
{
	struct fi_cq_tagged_entry e;
	char r0[8] = "", r1[8] = "";

	sep_open();
	/* to context 1 first, while only context 0 has a receive */
	cr_assert_eq(fi_recv(sc.rx[0], r0, 8, NULL, FI_ADDR_UNSPEC, &sc.rx[0]),
		     0);
	cr_assert_eq(fi_send(sc.s, "one", 4, NULL,
			     fi_rx_addr(sc.to_sep, 1, 2), NULL), 0);
	cq_expect(sc.scq, &e, NULL);
	cq_none(sc.rxcq[0], 200);
	cr_assert_eq(fi_recv(sc.rx[1], r1, 8, NULL, FI_ADDR_UNSPEC, &sc.rx[1]),
		     0);
	cq_expect(sc.rxcq[1], &e, NULL);
	cr_assert_eq(e.op_context, &sc.rx[1]);
	cr_assert_str_eq(r1, "one");
	cr_assert_eq(fi_send(sc.s, "zero", 5, NULL,
			     fi_rx_addr(sc.to_sep, 0, 2), NULL), 0);
	cq_expect(sc.rxcq[0], &e, NULL);
	cr_assert_str_eq(r0, "zero");
	cq_expect(sc.scq, &e, NULL);
	sep_close();
}

/* Both transmit contexts send from the one endpoint, completing into
 * their own CQs; a context the target does not have is an error. */
Test(ctx, sep_tx_contexts_and_unknown_rx_context)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry ee = { 0 };
	fi_addr_t src[2];
	char rx[2][8];

	sep_open();
	for (int i = 0; i < 2; i++)
		cr_assert_eq(fi_recv(sc.s, rx[i], 8, NULL, FI_ADDR_UNSPEC,
				     NULL), 0);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(fi_send(sc.tx[i], "t", 2, NULL, sc.to_s,
				     &sc.tx[i]), 0);
		cq_expect(sc.txcq[i], &e, NULL);
		cr_assert_eq(e.op_context, &sc.tx[i]);
		cq_expect(sc.scq, &e, &src[i]);
	}
	cr_assert_eq(src[0], src[1]);
	cr_assert_eq(src[0], sc.to_sep);
	cq_none(sc.txcq[0], 20);
	/* context 3 of a 2-context endpoint: refused (RC_BAD_INDEX) */
	cr_assert_eq(fi_send(sc.s, "x", 2, NULL, fi_rx_addr(sc.to_sep, 3, 2),
			     NULL), 0);
	cr_assert_eq(cq_wait(sc.scq, &e, NULL, 10000), -FI_EAVAIL);
	cr_assert_eq(fi_cq_readerr(sc.scq, &ee, 0), 1);
	cr_assert_eq(ee.err, FI_EADDRNOTAVAIL);
	cr_assert_eq(ee.prov_errno, UET_RC_BAD_INDEX);
	sep_close();
}

Test(ctx, sep_refusals)
{
	struct fid_ep *ep;
	struct fid_av *av;
	struct fi_av_attr aa = { .type = FI_AV_TABLE, .rx_ctx_bits = 13 };

	sep_open();
	cr_assert_eq(fi_tx_context(sc.sep, 2, NULL, &ep, NULL), -FI_EINVAL);
	cr_assert_eq(fi_rx_context(sc.sep, -1, NULL, &ep, NULL), -FI_EINVAL);
	cr_assert_eq(fi_rx_context(sc.sep, 1, NULL, &ep, NULL), -FI_EBUSY);
	cr_assert_eq(fi_send(sc.sep, "x", 2, NULL, sc.to_s, NULL),
		     -FI_ENOSYS);
	cr_assert_eq(fi_recv(sc.tx[0], NULL, 0, NULL, FI_ADDR_UNSPEC, NULL),
		     -FI_ENOSYS);
	cr_assert_eq(fi_send(sc.rx[0], "x", 2, NULL, sc.to_s, NULL),
		     -FI_ENOSYS);
	cr_assert_eq(fi_scalable_ep_bind(sc.sep, &sc.scq->fid, FI_SEND),
		     -FI_EINVAL);
	cr_assert_eq(fi_av_open(cx.p.domain, &aa, &av, NULL), -FI_EINVAL);
	/* more than one context is for scalable endpoints only */
	cx.p.info->ep_attr->rx_ctx_cnt = 2;
	cr_assert_eq(fi_endpoint(cx.p.domain, cx.p.info, &ep, NULL), -FI_EINVAL);
	cx.p.info->ep_attr->rx_ctx_cnt = UETP_SEP_CTX_MAX + 1;
	cr_assert_eq(fi_scalable_ep(cx.p.domain, cx.p.info, &ep, NULL),
		     -FI_EINVAL);
	sep_close();
}
