/* Receive contexts: a shared receive queue serving two feps (C1, C2) and
 * a fep with several contexts addressed by resource index (D). Sender A.
 * Completions of messages come through the fep that got them, those of
 * the queue itself (cancel, a fep closing) through the queue's cb. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ses_int.h"
#include "../fixtures/test_loop.h"
#include "../fixtures/test_op.h"

#define PA 7101
#define PC1 7102
#define PC2 7103
#define PD 7104

static struct tl_ep A, C1, C2, D;
static struct tl_link L1, L2, LD;
static struct uet_rxq *Q;
/* the queue's own completions */
static struct uet_completion qcomp[8];
static size_t nq;

static void q_complete(void *user, const struct uet_completion *c)
{
	cr_assert_eq(user, &Q);
	cr_assert_lt(nq, 8);
	qcomp[nq++] = *c;
}

static const struct uet_callbacks q_cb = { .complete = q_complete };

static void share(struct uet_fep_config *cfg)
{
	cfg->rxq = Q;
}

static void three_ctx(struct uet_fep_config *cfg)
{
	cfg->rx_ctx_count = 3;
}

static void setup(void)
{
	nq = 0;
	cr_assert_eq(uet_rxq_open(&Q, 8, &q_cb, &Q), 0);
	tl_ep_open_at(&A, PA, NULL);
	tl_ep_open_at(&C1, PC1, share);
	tl_ep_open_at(&C2, PC2, share);
	tl_ep_open_at(&D, PD, three_ctx);
	tl_link_open(&L1, &A, &C1, 1);
	tl_link_open(&L2, &A, &C2, 2);
	tl_link_open(&LD, &A, &D, 3);
}

static void teardown(void)
{
	tl_link_close(&L1);
	tl_link_close(&L2);
	tl_link_close(&LD);
	tl_ep_close(&A);
	tl_ep_close(&C1);
	tl_ep_close(&C2);
	tl_ep_close(&D);
	uet_rxq_close(Q);
}

TestSuite(rxq, .init = setup, .fini = teardown);

static int qrecv(void *buf, size_t len, void *ctx)
{
	struct uet_iov iov = { buf, len };
	struct uet_op op = { 0 };

	test_op_init(&op, UET_OP_RECV, UET_OPF_COMPLETION | UET_OPF_PEER_ANY,
		     ctx, NULL, &iov);
	return uet_rxq_post(Q, &op);
}

/* A sends len bytes of buf to port, receive context ctx there. */
static int send_ctx(uint16_t port, uint16_t ctx, const void *buf, size_t len)
{
	struct uet_iov iov = { (void *)buf, len };
	struct uet_addr peer = tl_addr(port);
	struct uet_op op = { .rx_ctx = ctx };

	test_op_init(&op, UET_OP_SEND, 0, NULL, &peer, &iov);
	return uet_ses_post(A.ses, &op, 0);
}

static int recv_ctx(uint16_t ctx, void *buf, size_t len, void *c)
{
	struct uet_iov iov = { buf, len };
	struct uet_op op = { .rx_ctx = ctx };

	test_op_init(&op, UET_OP_RECV, UET_OPF_COMPLETION | UET_OPF_PEER_ANY,
		     c, NULL, &iov);
	return uet_ses_post(D.ses, &op, 0);
}

Test(rxq, open_refuses_bad_arguments)
{
	static const struct uet_callbacks none = { 0 };
	struct uet_rxq *q = NULL;

	cr_assert_eq(uet_rxq_open(&q, 0, &q_cb, NULL), UET_ERR_INVAL);
	cr_assert_eq(uet_rxq_open(&q, 4, &none, NULL), UET_ERR_INVAL);
	cr_assert_eq(uet_rxq_open(NULL, 4, &q_cb, NULL), UET_ERR_INVAL);
	cr_assert_null(q);
}

/* Receives posted once serve messages to either fep; each completion
 * comes through the fep whose message it took. */
Test(rxq, one_queue_serves_two_feps)
{
	uint8_t a[100], b[200], r1[256], r2[256];
	int x, y;

	tl_fill(a, sizeof(a), 1);
	tl_fill(b, sizeof(b), 2);
	cr_assert_eq(qrecv(r1, sizeof(r1), &x), 0);
	cr_assert_eq(qrecv(r2, sizeof(r2), &y), 0);
	cr_assert_eq(uet_rxq_left(Q), 6);
	cr_assert_eq(tl_send(&A, PC2, UET_OP_SEND, b, sizeof(b), 0, 0, 0,
			     NULL), 0);
	cr_assert_eq(tl_run(&L2, 0), 0);
	cr_assert_eq(tl_send(&A, PC1, UET_OP_SEND, a, sizeof(a), 0, 0, 0,
			     NULL), 0);
	cr_assert_eq(tl_run(&L1, 0), 0);
	/* first posted, first taken: x by C2's message, y by C1's */
	cr_assert_not_null(tl_comp(&C2, &x));
	cr_assert_eq(tl_comp(&C2, &x)->len, sizeof(b));
	cr_assert_eq(tl_comp(&C2, &x)->src.port, PA);
	cr_assert_arr_eq(r1, b, sizeof(b));
	cr_assert_not_null(tl_comp(&C1, &y));
	cr_assert_eq(tl_comp(&C1, &y)->len, sizeof(a));
	cr_assert_arr_eq(r2, a, sizeof(a));
	cr_assert_eq(C1.ncomp + C2.ncomp, 2);
	cr_assert_eq(nq, 0);
	cr_assert_eq(uet_rxq_left(Q), 8);
	/* a fep's own post goes to the shared queue too */
	cr_assert_eq(uet_ses_rx_left(C1.ses), 8);
}

/* Messages that found no receive wait on the queue's one list in arrival
 * order, whichever fep they came to; a receive takes the oldest. */
Test(rxq, unexpected_messages_of_both_feps_in_arrival_order)
{
	uint8_t v1 = 0x11, v2 = 0x22, r[2][8];
	int x, y;

	cr_assert_eq(tl_send(&A, PC2, UET_OP_SEND, &v2, 1, 0, 0, 0, NULL), 0);
	cr_assert_eq(tl_run(&L2, 0), 0);
	cr_assert_eq(tl_send(&A, PC1, UET_OP_SEND, &v1, 1, 0, 0, 0, NULL), 0);
	cr_assert_eq(tl_run(&L1, 0), 0);
	cr_assert_eq(C1.ncomp + C2.ncomp, 0);
	cr_assert_eq(qrecv(r[0], sizeof(r[0]), &x), 0);
	cr_assert_not_null(tl_comp(&C2, &x));
	cr_assert_eq(r[0][0], 0x22);
	cr_assert_eq(qrecv(r[1], sizeof(r[1]), &y), 0);
	cr_assert_not_null(tl_comp(&C1, &y));
	cr_assert_eq(r[1][0], 0x11);
	cr_assert_eq(uet_rxq_left(Q), 8);
}

/* Cancel and flush answer through the queue; a fep's flush leaves the
 * shared receives alone. */
Test(rxq, cancel_and_flush_complete_through_the_queue)
{
	uint8_t r[3][8];
	int x, y, z;

	cr_assert_eq(qrecv(r[0], 8, &x), 0);
	cr_assert_eq(qrecv(r[1], 8, &y), 0);
	cr_assert_eq(qrecv(r[2], 8, &z), 0);
	cr_assert_eq(uet_rxq_cancel(Q, &y), 0);
	cr_assert_eq(uet_rxq_cancel(Q, &y), UET_ERR_NOENT);
	cr_assert_eq(nq, 1);
	cr_assert_eq(qcomp[0].context, &y);
	cr_assert_eq(qcomp[0].err, UET_ERR_CANCELED);
	uet_ses_flush(C1.ses);
	cr_assert_eq(nq, 1);
	cr_assert_eq(uet_ses_cancel(C1.ses, &x), 0);	/* found in Q */
	cr_assert_eq(nq, 2);
	uet_rxq_flush(Q);
	cr_assert_eq(nq, 3);
	cr_assert_eq(qcomp[2].context, &z);
	cr_assert_eq(uet_rxq_left(Q), 8);
}

/* A fep closing with a message half placed into a shared receive: the
 * receive ends, canceled, through the queue (nobody else will finish
 * it), and goes back to the pool. */
Test(rxq, closing_fep_cancels_a_receive_it_was_filling)
{
	uint8_t src[4000], r[4096];
	int x;

	tl_fill(src, sizeof(src), 3);
	cr_assert_eq(qrecv(r, sizeof(r), &x), 0);
	cr_assert_eq(tl_send(&A, PC1, UET_OP_SEND, src, sizeof(src), 0, 0, 0,
			     NULL), 0);
	cr_assert_geq(tl_pull(&L1, SIZE_MAX), 3);
	cr_assert_eq(tl_xfer(&L1, 0), 0);
	cr_assert_eq(C1.ncomp, 0);
	uet_ses_destroy(C1.ses);
	C1.ses = NULL;
	cr_assert_eq(nq, 1);
	cr_assert_eq(qcomp[0].context, &x);
	cr_assert_eq(qcomp[0].err, UET_ERR_CANCELED);
	cr_assert_eq(uet_rxq_left(Q), 8);
	/* the link's target side went with C1 */
	uet_ses_pdc_closed(A.ses, &L1.tpdc);
	memset(&L1.rpdc, 0, sizeof(L1.rpdc));
	cr_assert_eq(uet_ses_create(&C1.ses, &C1.cfg, &C1.cb, &C1,
				    (struct uet_pds *)&C1), 0);
	cr_assert_not_null(C1.ses);
	uet_ses_pdc_open(A.ses, &L1.tpdc);
	uet_ses_pdc_open(C1.ses, &L1.rpdc);
	L1.n = 0;
}

/* D serves resource indices 0..2: a message is matched only in the
 * context its resource_index names; the index is on the wire. */
Test(rxq, contexts_by_resource_index)
{
	uint8_t v0 = 0xA0, v2 = 0xA2, r0[8], r2[8];
	int c0, c2;

	cr_assert_eq(recv_ctx(2, r2, sizeof(r2), &c2), 0);
	cr_assert_eq(send_ctx(PD, 0, &v0, 1), 0);
	cr_assert_eq(tl_run(&LD, 0), 0);
	cr_assert_eq(LD.req.resource_index, 0);
	cr_assert_eq(D.ncomp, 0);		/* context 2's receive waits */
	cr_assert_eq(send_ctx(PD, 2, &v2, 1), 0);
	cr_assert_eq(tl_run(&LD, 0), 0);
	cr_assert_eq(LD.req.resource_index, 2);
	cr_assert_not_null(tl_comp(&D, &c2));
	cr_assert_eq(r2[0], 0xA2);
	/* context 0's message waited on its own unexpected list */
	cr_assert_eq(recv_ctx(0, r0, sizeof(r0), &c0), 0);
	cr_assert_not_null(tl_comp(&D, &c0));
	cr_assert_eq(r0[0], 0xA0);
}

Test(rxq, unknown_context_refused)
{
	uint8_t v = 1, r[8];
	struct uet_ses_stats st;
	int c;

	cr_assert_eq(recv_ctx(3, r, sizeof(r), &c), UET_ERR_INVAL);
	cr_assert_eq(send_ctx(PD, 3, &v, 1), 0);
	tl_pull(&LD, SIZE_MAX);
	cr_assert_eq(tl_deliver(&LD, 0), 0);
	cr_assert_eq(LD.p[0].rsp.return_code, UET_RC_BAD_INDEX);
	uet_ses_stats(D.ses, &st);
	cr_assert_eq(st.bad_index, 1);
	/* one context only: index 1 is another endpoint's */
	cr_assert_eq(send_ctx(PC1, 1, &v, 1), 0);
	tl_pull(&L1, SIZE_MAX);
	cr_assert_eq(tl_deliver(&L1, 0), 0);
	cr_assert_eq(L1.p[0].rsp.return_code, UET_RC_BAD_INDEX);
}
