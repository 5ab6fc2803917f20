/* Outgoing messages: segmentation, headers, message ids, send completions
 * and their errors, queue limits. Two SES instances joined by test_loop. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ses_int.h"
#include "../fixtures/test_loop.h"

#define PA 5001
#define PB 5002

static struct tl_ep A, B;
static struct tl_link L;

static void setup(void)
{
	tl_pair_open(&A, PA, &B, PB, &L, NULL);
}

static void teardown(void)
{
	tl_pair_close(&A, &B, &L);
}

TestSuite(msg, .init = setup, .fini = teardown);
TestSuite(msgcfg, .fini = teardown);

Test(msg, payload_from_mtu)
{
	/* mtu 1500 - PDS request (12) - SES standard header (44). */
	cr_assert_eq(uet_ses_payload_max(A.ses), 1500 - 12 - 44);
}

/* Send len bytes with flags and check every packet's header (payload P
 * bytes each but the last) and the data that arrives. */
static void check_cut(size_t len, size_t P, uint32_t flags)
{
	size_t want = len ? (len + P - 1) / P : 1;
	uint8_t *src = malloc(len + 1), *dst = malloc(len + 1);
	size_t i, n0 = L.n;
	int ctx_s, ctx_r;
	uint16_t mid = 0;

	tl_fill(src, len, (uint32_t)len);
	memset(dst, 0xEE, len + 1);
	cr_assert_eq(tl_recv(&B, UET_OP_RECV, dst, len, 0, 0,
			     UET_OPF_COMPLETION, PA, &ctx_r), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, src, len, 0, flags, 0,
			     &ctx_s), 0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), want, "len %zu", len);
	for (i = n0; i < L.n; i++) {
		const struct uet_ses_req *q = &L.req;
		bool first = i == n0, last = i == L.n - 1;
		size_t off = (i - n0) * P;

		cr_assert_eq(L.p[i].pkt.offset, off);
		cr_assert_eq(L.p[i].pkt.len, last ? len - off : P);
		cr_assert_eq(L.p[i].pkt.eom, last);
		cr_assert_eq(tl_deliver(&L, i), 0);
		cr_assert_eq(q->opcode, UET_SES_SEND);
		cr_assert_eq(!!(q->flags & UET_SES_F_SOM), first);
		cr_assert_eq(!!(q->flags & UET_SES_F_EOM), last);
		cr_assert(q->flags & UET_SES_F_REL);
		cr_assert_not(q->flags & UET_SES_F_HD);
		cr_assert_eq(q->request_length, len);
		if (first)
			mid = q->message_id;
		cr_assert_eq(q->message_id, mid);
		cr_assert_eq(q->job_id, TL_JOB);
		cr_assert_eq(q->pid_on_fep, PB & 0xFFF);
		cr_assert_eq(q->resource_index, 0);
		cr_assert_eq(q->initiator,
			     uet_ses_addr_initiator(&A.cfg.local));
		if (!first) {
			cr_assert_eq(q->message_offset, off);
			cr_assert_eq(q->payload_length, L.p[i].pkt.len);
		}
		cr_assert_eq((size_t)L.wlen, UET_SES_STD_LEN + L.p[i].pkt.len);
		cr_assert_eq(L.p[i].rsp.return_code, UET_RC_OK);
		cr_assert_not(L.p[i].gtd);
		/* The receive completes with the last packet, not before. */
		cr_assert_eq(tl_comp(&B, &ctx_r) != NULL, last);
		tl_ack(&L, i);
		cr_assert_eq(tl_comp(&A, &ctx_s) != NULL,
			     last && (flags & UET_OPF_COMPLETION));
	}
	cr_assert_eq(tl_comp(&B, &ctx_r)->err, 0);
	cr_assert_eq(tl_comp(&B, &ctx_r)->len, len);
	cr_assert_eq(tl_comp(&B, &ctx_r)->olen, 0);
	cr_assert_eq(tl_comp(&B, &ctx_r)->buf, dst);
	cr_assert(uet_addr_equal(&tl_comp(&B, &ctx_r)->src, &A.cfg.local));
	if (flags & UET_OPF_COMPLETION) {
		cr_assert_eq(tl_comp(&A, &ctx_s)->err, 0);
		cr_assert_eq(tl_comp(&A, &ctx_s)->len, len);
		cr_assert_eq(tl_comp(&A, &ctx_s)->flags, UET_CF_SEND);
	}
	cr_assert_arr_eq(dst, src, len);
	cr_assert_eq(dst[len], 0xEE, "wrote past the message");
	free(src);
	free(dst);
}

static void check_segmentation(size_t len)
{
	check_cut(len, uet_ses_payload_max(A.ses), UET_OPF_COMPLETION);
}

Test(msg, seg_0) { check_segmentation(0); }
Test(msg, seg_1) { check_segmentation(1); }
Test(msg, seg_p_minus_1) { check_segmentation(uet_ses_payload_max(A.ses) - 1); }
Test(msg, seg_p) { check_segmentation(uet_ses_payload_max(A.ses)); }
Test(msg, seg_p_plus_1) { check_segmentation(uet_ses_payload_max(A.ses) + 1); }
Test(msg, seg_many) { check_segmentation(7 * uet_ses_payload_max(A.ses) + 13); }

/* msg.c msg_even: with an ACK to ride behind it, a waited message of n
 * packets is cut into k equal ones when k = n or n + 1, within PDS's
 * hint, divides it, so that its last packet is as long as the others. */
Test(msg, even_cut_for_a_held_ack)
{
	size_t P = uet_ses_payload_max(A.ses);

	L.even_max = 15;
	check_cut(2 * P - 2, P - 1, UET_OPF_COMPLETION);
}

Test(msg, even_cut_of_four)
{
	size_t P = uet_ses_payload_max(A.ses);

	L.even_max = 15;
	check_cut(4 * P - 4, P - 1, UET_OPF_COMPLETION);
}

Test(msg, even_cut_into_one_more)
{
	size_t P = uet_ses_payload_max(A.ses), s = 7 * P / 10;

	L.even_max = 15;
	while (5 * s % 4 == 0)
		s++;
	check_cut(5 * s, s, UET_OPF_COMPLETION);		/* 4 -> 5 */
}

Test(msg, no_even_cut_without_a_held_ack)
{
	size_t P = uet_ses_payload_max(A.ses);

	check_cut(2 * P - 2, P, UET_OPF_COMPLETION);
}

/* A message nobody waits for (injected, or no completion asked): PDS
 * sends the held ACK apart from it (pds/ini.c ini_pick_ev). */
Test(msg, no_even_cut_unwaited)
{
	size_t P = uet_ses_payload_max(A.ses);

	L.even_max = 15;
	check_cut(2 * P - 2, P, 0);
}

/* Past the hint: the ACK would not wait for the last packet. */
Test(msg, no_even_cut_past_the_hint)
{
	size_t P = uet_ses_payload_max(A.ses);

	L.even_max = 3;
	check_cut(4 * P - 4, P, UET_OPF_COMPLETION);
}

/* No divisor within one more packet: the usual cut. */
Test(msg, no_even_cut_without_a_divisor)
{
	size_t P = uet_ses_payload_max(A.ses), len = 2 * P + 1;

	L.even_max = 15;
	while (len % 3 == 0 || len % 4 == 0)
		len += 2;
	cr_assert_lt(len, 3 * P);
	check_cut(len, P, UET_OPF_COMPLETION);
}

/* Two more packets cost more than the ACK's datagram saves. */
Test(msg, no_even_cut_into_two_more)
{
	size_t P = uet_ses_payload_max(A.ses), s = 6 * P / 10;

	L.even_max = 15;
	while (6 * s % 4 == 0 || 6 * s % 5 == 0)
		s++;
	cr_assert_eq((6 * s + P - 1) / P, 4);
	check_cut(6 * s, P, UET_OPF_COMPLETION);
}

/* Already full packets stay so. */
Test(msg, full_packets_stay)
{
	size_t P = uet_ses_payload_max(A.ses);

	L.even_max = 15;
	check_cut(3 * P, P, UET_OPF_COMPLETION);
}

/* B posts a receive of len from port from (0: any), A sends src; the
 * packets A sends, pulled. */
static size_t send_one(const uint8_t *src, uint8_t *dst, size_t len,
		       uint16_t from, int *ctx_s, int *ctx_r)
{
	cr_assert_eq(tl_recv(&B, UET_OP_RECV, dst, len, 0, 0,
			     UET_OPF_COMPLETION, from, ctx_r), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, src, len, 0,
			     UET_OPF_COMPLETION, 0, ctx_s), 0);
	return tl_pull(&L, SIZE_MAX);
}

static void host_mtu_4000(struct uet_fep_config *c)
{
	c->host_mtu = 4000;
}

static void elsewhere(struct uet_fep_config *c)
{
	host_mtu_4000(c);
	c->local.ip[3] = 2;	/* 127.0.0.2: not B's host */
}

/* Packets toward a FEP of this host (same FA, test_loop.h) carry
 * host_mtu's payload; toward another host, mtu's. */
static void host_segmentation(void (*tweak_a)(struct uet_fep_config *),
			      size_t mtu)
{
	size_t len = 20000, P = mtu - UET_PDS_REQ_LEN - UET_SES_STD_LEN, i;
	uint8_t *src = malloc(len), *dst = calloc(1, len);
	int ctx_s, ctx_r;

	tl_ep_open_at(&A, PA, tweak_a);
	tl_ep_open_at(&B, PB, host_mtu_4000);
	tl_link_open(&L, &A, &B, 1);
	cr_assert_eq(uet_ses_payload_to(A.ses, &B.cfg.local), P);
	tl_fill(src, len, 3);
	/* from any source: A may be at another address */
	cr_assert_eq(send_one(src, dst, len, 0, &ctx_s, &ctx_r),
		     (len + P - 1) / P);
	for (i = 0; i < L.n; i++) {
		cr_assert_eq(L.p[i].pkt.len, i + 1 < L.n ? P : len - i * P);
		cr_assert_eq(tl_deliver(&L, i), 0);
		tl_ack(&L, i);
	}
	cr_assert_not_null(tl_comp(&B, &ctx_r));
	cr_assert_eq(tl_comp(&B, &ctx_r)->len, len);
	cr_assert_not_null(tl_comp(&A, &ctx_s));
	cr_assert_arr_eq(dst, src, len);
	free(src);
	free(dst);
}

Test(msgcfg, host_mtu_toward_this_host)
{
	host_segmentation(host_mtu_4000, 4000);
}

Test(msgcfg, mtu_toward_another_host)
{
	host_segmentation(elsewhere, 1500);
}

Test(msg, seg_16mib)
{
	size_t len = 16u << 20, P = uet_ses_payload_max(A.ses);
	uint8_t *src = malloc(len), *dst = calloc(1, len);
	int ctx_s, ctx_r;
	size_t i;

	tl_fill(src, len, 16);
	cr_assert_eq(send_one(src, dst, len, PA, &ctx_s, &ctx_r),
		     (len + P - 1) / P);
	for (i = 0; i < L.n; i++) {
		cr_assert_eq(tl_deliver(&L, i), 0);
		cr_assert_eq(L.req.request_length, len);
	}
	cr_assert_not_null(tl_comp(&B, &ctx_r));
	for (i = 0; i < L.n; i++) {
		cr_assert_null(tl_comp(&A, &ctx_s));
		tl_ack(&L, i);
	}
	cr_assert_eq(tl_comp(&A, &ctx_s)->err, 0);
	cr_assert_eq(tl_comp(&B, &ctx_r)->len, len);
	cr_assert(!memcmp(src, dst, len));
	free(src);
	free(dst);
}

Test(msg, message_ids_per_pdc)
{
	uint8_t b[4] = { 0 };
	struct tl_link L2;
	int i;

	for (i = 0; i < 3; i++)
		cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, b, sizeof(b), 0, 0,
				     0, NULL), 0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 3);
	for (i = 0; i < 3; i++) {
		cr_assert_eq(tl_deliver(&L, (size_t)i), 0);
		cr_assert_eq(L.req.message_id, i);
		tl_ack(&L, (size_t)i);
	}
	cr_assert_not(uet_ses_pdc_busy(A.ses, &L.tpdc));
	/* A new PDC numbers from 0 again. */
	tl_link_close(&L);
	tl_link_open(&L2, &A, &B, 2);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, b, sizeof(b), 0, 0, 0,
			     NULL), 0);
	cr_assert_eq(tl_pull(&L2, SIZE_MAX), 1);
	cr_assert_eq(tl_deliver(&L2, 0), 0);
	cr_assert_eq(L2.req.message_id, 0);
	tl_ack(&L2, 0);
	tl_link_close(&L2);
	tl_link_open(&L, &A, &B, 3);
}

Test(msg, tagged_and_cq_data)
{
	uint8_t src[3000], dst[3000];
	int ctx_r;
	size_t i;

	tl_fill(src, sizeof(src), 3);
	cr_assert_eq(tl_recv(&B, UET_OP_TRECV, dst, sizeof(dst), 0xABCD, 0,
			     UET_OPF_COMPLETION, PA, &ctx_r), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_TSEND, src, sizeof(src), 0xABCD,
			     UET_OPF_CQ_DATA, 0x1122334455667788ull, NULL), 0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 3);
	for (i = 0; i < 3; i++) {
		cr_assert_eq(tl_xfer(&L, i), 0);
		cr_assert_eq(L.req.opcode, UET_SES_TAGGED_SEND);
		cr_assert_eq(L.req.match_bits, 0xABCD);
		/* Header data only on the SOM packet. */
		cr_assert_eq(!!(L.req.flags & UET_SES_F_HD), i == 0);
		if (i == 0)
			cr_assert_eq(L.req.header_data, 0x1122334455667788ull);
	}
	cr_assert_eq(tl_comp(&B, &ctx_r)->flags,
		     UET_CF_RECV | UET_CF_TAGGED | UET_CF_CQ_DATA);
	cr_assert_eq(tl_comp(&B, &ctx_r)->data, 0x1122334455667788ull);
	cr_assert_eq(tl_comp(&B, &ctx_r)->tag, 0xABCD);
	cr_assert_arr_eq(dst, src, sizeof(src));
	/* Without UET_OPF_COMPLETION a successful send is silent. */
	cr_assert_eq(A.ncomp, 0);
}

Test(msg, wake_on_post)
{
	uint8_t b[1] = { 0 };

	cr_assert_eq(A.wakes, 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, b, 1, 0, 0, 0, NULL), 0);
	cr_assert_eq(A.wakes, 1);
	cr_assert(uet_addr_equal(&A.wake_peer, &B.cfg.local));
	cr_assert(uet_ses_pdc_busy(A.ses, &L.tpdc));
	cr_assert_eq(tl_run(&L, 0), 0);
	cr_assert_not(uet_ses_pdc_busy(A.ses, &L.tpdc));
	cr_assert_not(uet_ses_pdc_busy(B.ses, &L.rpdc));
}

Test(msg, completion_waits_for_every_ack)
{
	uint8_t src[5000] = { 0 }, dst[5000];
	int ctx;

	cr_assert_eq(tl_recv(&B, UET_OP_RECV, dst, sizeof(dst), 0, 0, 0, 0,
			     NULL), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, src, sizeof(src), 0,
			     UET_OPF_COMPLETION, 0, &ctx), 0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 4);
	/* Acks out of order; the first packet's ack comes last. */
	cr_assert_eq(tl_deliver(&L, 0), 0);
	cr_assert_eq(tl_xfer(&L, 3), 0);
	cr_assert_eq(tl_xfer(&L, 1), 0);
	cr_assert_eq(tl_xfer(&L, 2), 0);
	cr_assert_null(tl_comp(&A, &ctx));
	cr_assert_eq(uet_ses_tx_left(A.ses), A.cfg.tx_depth - 1);
	tl_ack(&L, 0);
	cr_assert_not_null(tl_comp(&A, &ctx));
	cr_assert_eq(uet_ses_tx_left(A.ses), A.cfg.tx_depth);
}

Test(msg, error_rc_fails_send)
{
	uint8_t src[5000] = { 0 };
	struct uet_ses_rsp rsp;
	int ctx, ctx2;

	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, src, sizeof(src), 0,
			     UET_OPF_COMPLETION, 0, &ctx), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, src, 10, 0,
			     UET_OPF_COMPLETION, 0, &ctx2), 0);
	cr_assert_eq(tl_pull(&L, 2), 2);
	memset(&rsp, 0, sizeof(rsp));
	rsp.format = UET_NH_RSP;
	rsp.opcode = UET_SES_RESPONSE;
	rsp.return_code = UET_RC_NO_MATCH;
	uet_ses_tx_acked(A.ses, &L.tpdc, &L.p[1].pkt,
			 &(struct uet_ses_reply){ .rsp = rsp }, 0);
	cr_assert_null(tl_comp(&A, &ctx), "packet 0 still outstanding");
	/* No more packets of the failed message: the next comes. */
	cr_assert_eq(tl_pull(&L, 1), 1);
	cr_assert_neq(L.p[2].pkt.msg, L.p[0].pkt.msg);
	cr_assert_eq(L.p[2].pkt.len, 10);
	rsp.return_code = UET_RC_NULL;	/* a default response is success */
	uet_ses_tx_acked(A.ses, &L.tpdc, &L.p[0].pkt,
			 &(struct uet_ses_reply){ .rsp = rsp }, 0);
	cr_assert_eq(tl_comp(&A, &ctx)->err, UET_ERR_REMOTE);
	cr_assert_eq(tl_comp(&A, &ctx)->prov_errno, UET_RC_NO_MATCH);
	uet_ses_tx_acked(A.ses, &L.tpdc, &L.p[2].pkt, NULL, 0);
	cr_assert_eq(tl_comp(&A, &ctx2)->err, 0);
	/* PDC 1 is left with message ids the target never saw. */
	tl_link_close(&L);
	tl_link_open(&L, &A, &B, 9);
}

Test(msg, tx_failed_fails_send)
{
	uint8_t src[100] = { 0 };
	int ctx;

	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, src, sizeof(src), 0, 0, 0,
			     &ctx), 0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 1);
	uet_ses_tx_failed(A.ses, &L.tpdc, &L.p[0].pkt, UET_ERR_PEER,
			  UET_NACK_NO_PDC_AVAIL);
	/* Errors are reported even without UET_OPF_COMPLETION. */
	cr_assert_eq(tl_comp(&A, &ctx)->err, UET_ERR_PEER);
	cr_assert_eq(tl_comp(&A, &ctx)->prov_errno, UET_NACK_NO_PDC_AVAIL);
	cr_assert_eq(uet_ses_tx_left(A.ses), A.cfg.tx_depth);
	tl_link_close(&L);
	tl_link_open(&L, &A, &B, 9);
}

Test(msg, pdc_failure_fails_partial_and_queued)
{
	uint8_t src[5000] = { 0 };
	int ctx, ctx2;
	unsigned w;

	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, src, sizeof(src), 0, 0, 0,
			     &ctx), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, src, 1, 0,
			     UET_OPF_COMPLETION, 0, &ctx2), 0);
	cr_assert_eq(tl_pull(&L, 2), 2);
	cr_assert_eq(tl_xfer(&L, 0), 0);
	uet_ses_tx_failed(A.ses, &L.tpdc, &L.p[1].pkt, UET_ERR_PEER,
			  UET_NACK_NO_RESOURCE);
	/* Both handed-out packets are settled: it fails without cutting the
	 * other two. */
	cr_assert_eq(tl_comp(&A, &ctx)->err, UET_ERR_PEER);
	cr_assert_eq(tl_comp(&A, &ctx)->prov_errno, UET_NACK_NO_RESOURCE);
	cr_assert_null(tl_comp(&A, &ctx2));
	w = A.wakes;
	tl_link_close(&L);
	/* Queued behind it, for the same unreachable peer. */
	cr_assert_eq(tl_comp(&A, &ctx2)->err, UET_ERR_PEER);
	cr_assert_eq(A.wakes, w);
	cr_assert_eq(uet_ses_tx_left(A.ses), A.cfg.tx_depth);
	tl_link_open(&L, &A, &B, 2);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 0);
}

Test(msg, clean_close_with_queued_rewakes_at_next_post)
{
	uint8_t b[1] = { 0 };
	int ctx;

	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, b, 1, 0, UET_OPF_COMPLETION,
			     0, &ctx), 0);
	cr_assert_eq(A.wakes, 1);
	tl_link_close(&L);		/* nothing was in flight */
	cr_assert_eq(A.ncomp, 0, "still queued");
	cr_assert_eq(tl_send(&A, 5999, UET_OP_SEND, b, 1, 0, 0, 0, NULL), 0);
	/* The new post, then every peer with queued sends: PB, 5999. */
	cr_assert_eq(A.wakes, 4);
	tl_link_open(&L, &A, &B, 2);
	cr_assert_eq(tl_run(&L, 0), 0);
	cr_assert_eq(tl_comp(&A, &ctx)->err, 0);
}

Test(msg, queue_full_again)
{
	uint8_t b[1] = { 0 };
	unsigned i;

	for (i = 0; i < A.cfg.tx_depth; i++)
		cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, b, 1, 0, 0, 0, NULL),
			     0);
	cr_assert_eq(uet_ses_tx_left(A.ses), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, b, 1, 0, 0, 0, NULL),
		     UET_ERR_AGAIN);
	cr_assert_eq(tl_run(&L, 0), 0);
	cr_assert_eq(uet_ses_tx_left(A.ses), A.cfg.tx_depth);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, b, 1, 0, 0, 0, NULL), 0);
}

Test(msg, sizes_and_args)
{
	struct uet_iov iov[UET_SES_IOV_MAX + 1];
	struct uet_op op;
	uint8_t b[128] = { 0 };

	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, b, A.cfg.inject_size + 1,
			     0, UET_OPF_INJECT, 0, NULL), UET_ERR_MSGSIZE);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, b,
			     A.cfg.max_msg_size + 1, 0, 0, 0, NULL),
		     UET_ERR_MSGSIZE);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, b, 1, 0, UET_OPF_MULTI_RECV,
			     0, NULL), UET_ERR_INVAL);
	memset(&op, 0, sizeof(op));
	memset(iov, 0, sizeof(iov));
	op.type = UET_OP_SEND;
	op.peer = tl_addr(PB);
	op.iov = iov;
	op.iov_count = UET_SES_IOV_MAX + 1;
	cr_assert_eq(uet_ses_post(A.ses, &op, 0), UET_ERR_INVAL);
	op.type = 99;
	op.iov_count = 1;
	cr_assert_eq(uet_ses_post(A.ses, &op, 0), UET_ERR_INVAL);
	cr_assert_eq(uet_ses_tx_left(A.ses), A.cfg.tx_depth);
}

Test(msg, inject_copies_at_post)
{
	uint8_t src[64], dst[64], want[64];
	int ctx;

	tl_fill(src, sizeof(src), 9);
	memcpy(want, src, sizeof(src));
	cr_assert_eq(tl_recv(&B, UET_OP_RECV, dst, sizeof(dst), 0, 0,
			     UET_OPF_COMPLETION, PA, &ctx), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, src, sizeof(src), 0,
			     UET_OPF_INJECT, 0, NULL), 0);
	memset(src, 0, sizeof(src));
	cr_assert_eq(tl_run(&L, 0), 0);
	cr_assert_arr_eq(dst, want, sizeof(want));
}

Test(msg, gather_iov)
{
	uint8_t a[1000], b[1000], c[7], dst[2007], want[2007];
	struct uet_iov iov[3] = { { a, 1000 }, { b, 1000 }, { c, 7 } };
	struct uet_op op;
	int ctx;

	tl_fill(a, sizeof(a), 1);
	tl_fill(b, sizeof(b), 2);
	tl_fill(c, sizeof(c), 3);
	memcpy(want, a, 1000);
	memcpy(want + 1000, b, 1000);
	memcpy(want + 2000, c, 7);
	memset(&op, 0, sizeof(op));
	op.type = UET_OP_SEND;
	op.peer = tl_addr(PB);
	op.iov = iov;
	op.iov_count = 3;
	cr_assert_eq(uet_ses_post(A.ses, &op, 0), 0);
	cr_assert_eq(tl_recv(&B, UET_OP_RECV, dst, sizeof(dst), 0, 0,
			     UET_OPF_COMPLETION, PA, &ctx), 0);
	cr_assert_eq(tl_run(&L, 0), 0);
	cr_assert_eq(tl_comp(&B, &ctx)->len, sizeof(dst));
	cr_assert_arr_eq(dst, want, sizeof(want));
}

/* Free lists are LIFO: the next message reuses the descriptor (and its
 * inject slice) and the receive state just released, which are still in
 * cache and paged in, instead of walking through the whole pool. */
Test(msg, free_lists_reuse_the_last_released)
{
	const struct uet_list *rx_head = B.ses->rxq[0]->free.next;
	const struct uet_list *in_head = B.ses->in_free.next;
	const struct uet_ses_msg *m[2];
	uint8_t src[64], dst[64];
	int ctx;

	tl_fill(src, sizeof(src), 4);
	for (int i = 0; i < 2; i++) {
		size_t n0 = L.n;

		cr_assert_eq(tl_recv(&B, UET_OP_RECV, dst, sizeof(dst), 0, 0,
				     UET_OPF_COMPLETION, PA, &ctx), 0);
		cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, src, sizeof(src), 0,
				     UET_OPF_INJECT, 0, NULL), 0);
		cr_assert_eq(tl_pull(&L, SIZE_MAX), 1);
		m[i] = L.p[n0].pkt.msg;
		cr_assert_eq(tl_xfer(&L, n0), 0);
		cr_assert_eq(tl_count(&B, &ctx), (size_t)i + 1);
		cr_assert_eq(B.ses->rxq[0]->free.next, rx_head);
		cr_assert_eq(B.ses->in_free.next, in_head);
	}
	cr_assert_eq(m[0], m[1]);
	cr_assert_eq(uet_ses_tx_left(A.ses), A.cfg.tx_depth);
}

/* uet_ses_pkt.waited: set on the packets of a send whose success is
 * reported when its ACK comes (PDS sends such a message beside an ACK it
 * holds, pds/ini.c), not on an inject's, which completes at post. */
Test(msg, waited_unless_injected)
{
	uint8_t src[3000];
	size_t n0 = L.n, n1;
	int ctx_a, ctx_b;

	tl_fill(src, sizeof(src), 7);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, src, sizeof(src), 0,
			     UET_OPF_COMPLETION, 0, &ctx_a), 0);
	n1 = n0 + tl_pull(&L, SIZE_MAX);
	cr_assert_eq(n1 - n0, 3);
	for (size_t i = n0; i < n1; i++)
		cr_assert(L.p[i].pkt.waited, "packet %zu", i - n0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, src, 64, 0,
			     UET_OPF_COMPLETION | UET_OPF_INJECT, 0, &ctx_b),
		     0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 1);
	cr_assert_not(L.p[n1].pkt.waited);
}
