/* Matching: tags and ignore bits, directed vs any source, posting order,
 * unexpected before/after post, multi-recv, cancel, flush, queue limits,
 * PEEK/CLAIM/DISCARD. Senders A and B, receiver C. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../fixtures/test_loop.h"

#define PA 7001
#define PB 7002
#define PC 7003

static struct tl_ep A, B, C;
static struct tl_link LA, LB;

static void setup(void)
{
	tl_ep_open_at(&A, PA, NULL);
	tl_ep_open_at(&B, PB, NULL);
	tl_ep_open_at(&C, PC, NULL);
	tl_link_open(&LA, &A, &C, 1);
	tl_link_open(&LB, &B, &C, 2);
}

static void teardown(void)
{
	tl_link_close(&LA);
	tl_link_close(&LB);
	tl_ep_close(&A);
	tl_ep_close(&B);
	tl_ep_close(&C);
}

TestSuite(match, .init = setup, .fini = teardown);

/* One tagged message from A with this tag and one byte of payload `v`. */
static void tsend(struct tl_ep *e, struct tl_link *l, uint64_t tag, uint8_t v)
{
	cr_assert_eq(tl_send(e, PC, UET_OP_TSEND, &v, 1, tag, 0, 0, NULL), 0);
	cr_assert_eq(tl_run(l, 0), 0);
}

static void send1(struct tl_ep *e, struct tl_link *l, uint8_t v)
{
	cr_assert_eq(tl_send(e, PC, UET_OP_SEND, &v, 1, 0, 0, 0, NULL), 0);
	cr_assert_eq(tl_run(l, 0), 0);
}

Test(match, tag_matrix)
{
	static const struct {
		uint64_t rtag, ignore, stag;
		bool match;
	} m[] = {
		{ 0x1234, 0, 0x1234, true },
		{ 0x1234, 0, 0x1235, false },
		{ 0x1200, 0xFF, 0x12AB, true },
		{ 0x1200, 0xFF, 0x13AB, false },
		{ 0, ~0ull, 0xDEADBEEFCAFEull, true },
		{ 1ull << 63, 0, 1ull << 63, true },
		{ 1ull << 63, 0, 0, false },
	};
	size_t i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		uint8_t d = 0;
		int c;

		cr_assert_eq(tl_recv(&C, UET_OP_TRECV, &d, 1, m[i].rtag,
				     m[i].ignore, UET_OPF_COMPLETION, 0, &c),
			     0);
		tsend(&A, &LA, m[i].stag, (uint8_t)(i + 1));
		cr_assert_eq(tl_comp(&C, &c) != NULL, m[i].match, "row %zu", i);
		if (m[i].match) {
			cr_assert_eq(d, i + 1);
			cr_assert_eq(tl_comp(&C, &c)->tag, m[i].stag);
		} else {
			cr_assert_eq(d, 0);
			cr_assert_eq(uet_ses_cancel(C.ses, &c), 0);
			/* Take the message off the unexpected list. */
			cr_assert_eq(tl_recv(&C, UET_OP_TRECV, &d, 1,
					     m[i].stag, 0, 0, 0, &c), 0);
			cr_assert_eq(d, i + 1);
		}
		C.ncomp = 0;
	}
}

Test(match, tagged_and_untagged_are_apart)
{
	uint8_t d1 = 0, d2 = 0;
	int c1, c2;

	cr_assert_eq(tl_recv(&C, UET_OP_RECV, &d1, 1, 0, 0,
			     UET_OPF_COMPLETION, 0, &c1), 0);
	tsend(&A, &LA, 0, 5);
	cr_assert_null(tl_comp(&C, &c1), "a tagged message is not untagged");
	cr_assert_eq(tl_recv(&C, UET_OP_TRECV, &d2, 1, 0, 0,
			     UET_OPF_COMPLETION, 0, &c2), 0);
	cr_assert_eq(d2, 5);
	send1(&A, &LA, 6);
	cr_assert_eq(d1, 6);
	cr_assert_eq(tl_comp(&C, &c1)->flags, UET_CF_RECV);
}

Test(match, posting_order_among_equal)
{
	uint8_t d[3] = { 0 };
	int c[3];
	int i;

	for (i = 0; i < 3; i++)
		cr_assert_eq(tl_recv(&C, UET_OP_TRECV, &d[i], 1, 7, 0,
				     UET_OPF_COMPLETION, 0, &c[i]), 0);
	tsend(&A, &LA, 7, 10);
	tsend(&A, &LA, 7, 11);
	tsend(&A, &LA, 7, 12);
	cr_assert_eq(d[0], 10);
	cr_assert_eq(d[1], 11);
	cr_assert_eq(d[2], 12);
	cr_assert_eq(C.comp[0].context, &c[0]);
	cr_assert_eq(C.comp[2].context, &c[2]);
}

Test(match, directed_vs_any_source)
{
	uint8_t dB = 0, dAny = 0;
	int cB, cAny;

	/* Posted first, but only for B: A's message goes to the wildcard. */
	cr_assert_eq(tl_recv(&C, UET_OP_TRECV, &dB, 1, 3, 0,
			     UET_OPF_COMPLETION, PB, &cB), 0);
	cr_assert_eq(tl_recv(&C, UET_OP_TRECV, &dAny, 1, 3, 0,
			     UET_OPF_COMPLETION, 0, &cAny), 0);
	tsend(&A, &LA, 3, 1);
	cr_assert_eq(dAny, 1);
	cr_assert_null(tl_comp(&C, &cB));
	cr_assert(uet_addr_equal(&tl_comp(&C, &cAny)->src, &A.cfg.local));
	tsend(&B, &LB, 3, 2);
	cr_assert_eq(dB, 2);
	cr_assert(uet_addr_equal(&tl_comp(&C, &cB)->src, &B.cfg.local));
}

Test(match, directed_receive_skips_unexpected_from_other)
{
	uint8_t d = 0;
	int c;

	tsend(&A, &LA, 9, 1);		/* unexpected, from A */
	tsend(&B, &LB, 9, 2);		/* unexpected, from B */
	cr_assert_eq(tl_recv(&C, UET_OP_TRECV, &d, 1, 9, 0,
			     UET_OPF_COMPLETION, PB, &c), 0);
	cr_assert_eq(d, 2, "oldest unexpected from B, not A's");
	cr_assert_eq(tl_recv(&C, UET_OP_TRECV, &d, 1, 9, 0,
			     UET_OPF_COMPLETION, 0, &c), 0);
	cr_assert_eq(d, 1);
}

Test(match, unexpected_before_and_after_post)
{
	uint8_t src[5000], d1[5000], d2[5000];
	struct uet_ses_stats st;
	int c1, c2;

	tl_fill(src, sizeof(src), 31);
	/* Whole message before the receive. */
	cr_assert_eq(tl_send(&A, PC, UET_OP_TSEND, src, sizeof(src), 1, 0, 0,
			     NULL), 0);
	cr_assert_eq(tl_run(&LA, 0), 0);
	uet_ses_stats(C.ses, &st);
	cr_assert_eq(st.unexp_msgs, 1);
	cr_assert_gt(st.unexp_bytes, sizeof(src));
	cr_assert_eq(tl_recv(&C, UET_OP_TRECV, d1, sizeof(d1), 1, 0,
			     UET_OPF_COMPLETION, PA, &c1), 0);
	cr_assert_eq(tl_comp(&C, &c1)->len, sizeof(src));
	cr_assert_arr_eq(d1, src, sizeof(src));
	uet_ses_stats(C.ses, &st);
	cr_assert_eq(st.unexp_bytes, 0);

	/* Half of a message before the receive, the rest after. */
	cr_assert_eq(tl_send(&A, PC, UET_OP_TSEND, src, sizeof(src), 2, 0, 0,
			     NULL), 0);
	cr_assert_eq(tl_pull(&LA, SIZE_MAX), 4);
	cr_assert_eq(tl_xfer(&LA, LA.n - 1), 0);
	cr_assert_eq(tl_xfer(&LA, LA.n - 3), 0);
	cr_assert_eq(tl_recv(&C, UET_OP_TRECV, d2, sizeof(d2), 2, 0,
			     UET_OPF_COMPLETION, PA, &c2), 0);
	cr_assert_null(tl_comp(&C, &c2));
	cr_assert_eq(tl_xfer(&LA, LA.n - 4), 0);
	cr_assert_eq(LA.p[LA.n - 4].rsp.list, UET_SES_LIST_EXPECTED);
	cr_assert_eq(tl_xfer(&LA, LA.n - 2), 0);
	cr_assert_eq(tl_comp(&C, &c2)->len, sizeof(src));
	cr_assert_arr_eq(d2, src, sizeof(src));
}

Test(match, multi_recv)
{
	uint8_t buf[1000], msg[5][200], last[200];
	struct uet_iov iov = { buf, sizeof(buf) };
	struct uet_op op;
	int ctx, c2;
	size_t i;

	memset(&op, 0, sizeof(op));
	op.type = UET_OP_RECV;
	op.flags = UET_OPF_MULTI_RECV | UET_OPF_COMPLETION | UET_OPF_PEER_ANY;
	op.context = &ctx;
	op.iov = &iov;
	op.iov_count = 1;
	op.min_multi_recv = 300;
	/* Two messages already waiting are taken at post. */
	for (i = 0; i < 2; i++) {
		memset(msg[i], (int)i + 1, sizeof(msg[i]));
		cr_assert_eq(tl_send(&A, PC, UET_OP_SEND, msg[i],
				     sizeof(msg[i]), 0, 0, 0, NULL), 0);
	}
	cr_assert_eq(tl_run(&LA, 0), 0);
	cr_assert_eq(uet_ses_post(C.ses, &op, 0), 0);
	cr_assert_eq(C.ncomp, 2);
	for (i = 2; i < 5; i++) {
		memset(msg[i], (int)i + 1, sizeof(msg[i]));
		cr_assert_eq(tl_send(&A, PC, UET_OP_SEND, msg[i],
				     sizeof(msg[i]), 0, 0, 0, NULL), 0);
	}
	cr_assert_eq(tl_recv(&C, UET_OP_RECV, last, sizeof(last), 0, 0,
			     UET_OPF_COMPLETION, 0, &c2), 0);
	cr_assert_eq(tl_run(&LA, 0), 0);
	/* 4 x 200 bytes leave 200 < 300 free: released with the 4th; the
	 * 5th goes to the next receive. */
	cr_assert_eq(tl_count(&C, &ctx), 4);
	for (i = 0; i < 4; i++) {
		const struct uet_completion *c = &C.comp[i];

		cr_assert_eq(c->context, &ctx);
		cr_assert_eq(c->buf, buf + 200 * i);
		cr_assert_eq(c->len, 200);
		cr_assert_eq(buf[200 * i], i + 1);
		cr_assert_eq(buf[200 * i + 199], i + 1);
		cr_assert_eq(!!(c->flags & UET_CF_MULTI_RECV), i == 3);
	}
	cr_assert_eq(tl_comp(&C, &c2)->len, 200);
	cr_assert_eq(last[0], 5);
	cr_assert_eq(uet_ses_rx_left(C.ses), C.cfg.rx_depth);
}

Test(match, multi_recv_args)
{
	uint8_t buf[10];
	struct uet_iov iov[2] = { { buf, 5 }, { buf + 5, 5 } };
	struct uet_op op;

	memset(&op, 0, sizeof(op));
	op.type = UET_OP_RECV;
	op.flags = UET_OPF_MULTI_RECV | UET_OPF_PEER_ANY;
	op.iov = iov;
	op.iov_count = 2;
	cr_assert_eq(uet_ses_post(C.ses, &op, 0), UET_ERR_INVAL);
	op.iov_count = 1;
	op.type = UET_OP_TRECV;
	cr_assert_eq(uet_ses_post(C.ses, &op, 0), UET_ERR_INVAL);
	cr_assert_eq(uet_ses_rx_left(C.ses), C.cfg.rx_depth);
}

Test(match, cancel)
{
	uint8_t d = 0;
	int c1, c2;

	cr_assert_eq(tl_recv(&C, UET_OP_TRECV, &d, 1, 1, 0,
			     UET_OPF_COMPLETION, 0, &c1), 0);
	cr_assert_eq(tl_recv(&C, UET_OP_TRECV, &d, 1, 1, 0,
			     UET_OPF_COMPLETION, 0, &c2), 0);
	cr_assert_eq(uet_ses_rx_left(C.ses), C.cfg.rx_depth - 2);
	cr_assert_eq(uet_ses_cancel(C.ses, &c1), 0);
	cr_assert_eq(tl_comp(&C, &c1)->err, UET_ERR_CANCELED);
	cr_assert_eq(tl_comp(&C, &c1)->flags, UET_CF_RECV | UET_CF_TAGGED);
	cr_assert_eq(uet_ses_cancel(C.ses, &c1), UET_ERR_NOENT);
	cr_assert_eq(uet_ses_rx_left(C.ses), C.cfg.rx_depth - 1);
	/* The canceled receive no longer matches: c2 gets the message. */
	tsend(&A, &LA, 1, 4);
	cr_assert_eq(tl_comp(&C, &c2)->err, 0);
	cr_assert_eq(uet_ses_cancel(C.ses, &c2), UET_ERR_NOENT,
		     "matched: too late");
	cr_assert_eq(tl_count(&C, &c1), 1);
}

Test(match, cancel_during_fill_is_too_late)
{
	uint8_t src[3000] = { 0 }, d[3000];
	int c;

	cr_assert_eq(tl_recv(&C, UET_OP_RECV, d, sizeof(d), 0, 0,
			     UET_OPF_COMPLETION, 0, &c), 0);
	cr_assert_eq(tl_send(&A, PC, UET_OP_SEND, src, sizeof(src), 0, 0, 0,
			     NULL), 0);
	cr_assert_eq(tl_pull(&LA, SIZE_MAX), 3);
	cr_assert_eq(tl_xfer(&LA, 0), 0);
	cr_assert_eq(uet_ses_cancel(C.ses, &c), UET_ERR_NOENT);
	cr_assert_eq(tl_xfer(&LA, 1), 0);
	cr_assert_eq(tl_xfer(&LA, 2), 0);
	cr_assert_eq(tl_comp(&C, &c)->err, 0);
}

Test(match, flush)
{
	uint8_t src[3000] = { 0 }, d[3000];
	int s1, s2, r1, r2, i;

	cr_assert_eq(tl_send(&A, PC, UET_OP_SEND, src, sizeof(src), 0, 0, 0,
			     &s1), 0);
	cr_assert_eq(tl_send(&A, PC, UET_OP_SEND, src, 10, 0, 0, 0, &s2), 0);
	cr_assert_eq(tl_recv(&C, UET_OP_RECV, d, sizeof(d), 0, 0, 0, 0, &r1),
		     0);
	cr_assert_eq(tl_recv(&C, UET_OP_TRECV, d, sizeof(d), 0, 0, 0, 0, &r2),
		     0);
	cr_assert_eq(tl_pull(&LA, 2), 2);
	cr_assert_eq(tl_xfer(&LA, 0), 0);	/* r1 is being filled */
	uet_ses_flush(A.ses);
	uet_ses_flush(C.ses);
	cr_assert_eq(tl_comp(&A, &s1)->err, UET_ERR_CANCELED);
	cr_assert_eq(tl_comp(&A, &s2)->err, UET_ERR_CANCELED);
	cr_assert_eq(tl_comp(&C, &r1)->err, UET_ERR_CANCELED);
	cr_assert_eq(tl_comp(&C, &r2)->err, UET_ERR_CANCELED);
	cr_assert_eq(A.ncomp, 2);
	cr_assert_eq(C.ncomp, 2);
	cr_assert_eq(uet_ses_rx_left(C.ses), C.cfg.rx_depth);
	/* Nothing new leaves; what PDS holds is resent flagged IE with no
	 * user data, and its acks are absorbed. */
	cr_assert_eq(tl_pull(&LA, SIZE_MAX), 0);
	cr_assert_eq(tl_deliver(&LA, 1), 0);
	cr_assert(LA.req.flags & UET_SES_F_IE);
	tl_ack(&LA, 1);
	cr_assert_eq(uet_ses_tx_left(A.ses), A.cfg.tx_depth);
	cr_assert_eq(A.ncomp, 2);
	for (i = 0; i < 2; i++)
		cr_assert_eq(tl_count(&A, i ? &s2 : &s1), 1);
}

Test(match, rx_queue_full_again)
{
	uint8_t d;
	unsigned i;

	for (i = 0; i < C.cfg.rx_depth; i++)
		cr_assert_eq(tl_recv(&C, UET_OP_RECV, &d, 1, 0, 0, 0, 0,
				     NULL), 0);
	cr_assert_eq(uet_ses_rx_left(C.ses), 0);
	cr_assert_eq(tl_recv(&C, UET_OP_RECV, &d, 1, 0, 0, 0, 0, NULL),
		     UET_ERR_AGAIN);
	send1(&A, &LA, 1);
	cr_assert_eq(uet_ses_rx_left(C.ses), 1);
	cr_assert_eq(tl_recv(&C, UET_OP_RECV, &d, 1, 0, 0, 0, 0, NULL), 0);
}

static int probe(uint32_t flags, uint64_t tag, void *ctx, void *buf,
		 size_t len)
{
	return tl_recv(&C, UET_OP_TRECV, buf, len, tag, 0, flags, 0, ctx);
}

Test(match, peek_claim_discard)
{
	uint8_t d = 0;
	int p1, p2, p3, p4, p5;

	cr_assert_eq(probe(UET_OPF_PEEK, 5, &p1, NULL, 0), 0);
	cr_assert_eq(tl_comp(&C, &p1)->err, UET_ERR_NOENT);
	cr_assert_eq(tl_send(&A, PC, UET_OP_TSEND, "xy", 2, 5,
			     UET_OPF_CQ_DATA, 99, NULL), 0);
	cr_assert_eq(tl_run(&LA, 0), 0);
	/* PEEK: reports, leaves the message. */
	cr_assert_eq(probe(UET_OPF_PEEK, 5, &p2, NULL, 0), 0);
	cr_assert_eq(tl_comp(&C, &p2)->err, 0);
	cr_assert_eq(tl_comp(&C, &p2)->len, 2);
	cr_assert_eq(tl_comp(&C, &p2)->tag, 5);
	cr_assert_eq(tl_comp(&C, &p2)->data, 99);
	/* PEEK|CLAIM: reserves it; others no longer see it. */
	cr_assert_eq(probe(UET_OPF_PEEK | UET_OPF_CLAIM, 5, &p3, NULL, 0), 0);
	cr_assert_eq(tl_comp(&C, &p3)->err, 0);
	cr_assert_eq(probe(UET_OPF_PEEK, 5, &p4, NULL, 0), 0);
	cr_assert_eq(tl_comp(&C, &p4)->err, UET_ERR_NOENT);
	cr_assert_eq(tl_recv(&C, UET_OP_TRECV, &d, 1, 5, 0, 0, 0, &p5), 0);
	cr_assert_eq(d, 0, "claimed message went to a plain receive");
	cr_assert_eq(uet_ses_cancel(C.ses, &p5), 0);
	/* CLAIM with the same context receives it. */
	{
		uint8_t two[2];
		int n = (int)C.ncomp;

		cr_assert_eq(probe(UET_OPF_CLAIM | UET_OPF_COMPLETION, 5, &p3,
				   two, 2), 0);
		cr_assert_eq(C.ncomp, (size_t)n + 1);
		cr_assert_eq(C.comp[n].context, &p3);
		cr_assert_eq(C.comp[n].len, 2);
		cr_assert_arr_eq(two, "xy", 2);
	}
	cr_assert_eq(probe(UET_OPF_CLAIM, 5, &p3, NULL, 0), UET_ERR_NOENT);
	/* PEEK|DISCARD drops it. */
	cr_assert_eq(tl_send(&A, PC, UET_OP_TSEND, "z", 1, 6, 0, 0, NULL), 0);
	cr_assert_eq(tl_run(&LA, 0), 0);
	C.ncomp = 0;
	cr_assert_eq(probe(UET_OPF_PEEK | UET_OPF_DISCARD, 6, &p1, NULL, 0), 0);
	cr_assert_eq(tl_comp(&C, &p1)->err, 0);
	cr_assert_eq(tl_comp(&C, &p1)->len, 1);
	cr_assert_eq(probe(UET_OPF_PEEK, 6, &p2, NULL, 0), 0);
	cr_assert_eq(tl_comp(&C, &p2)->err, UET_ERR_NOENT);
	/* Probes are tagged only. */
	cr_assert_eq(tl_recv(&C, UET_OP_RECV, NULL, 0, 0, 0, UET_OPF_PEEK, 0,
			     NULL), UET_ERR_INVAL);
	cr_assert_eq(uet_ses_rx_left(C.ses), C.cfg.rx_depth);
}
