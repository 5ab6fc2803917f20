/* Incoming messages: reassembly in any order, duplicates, refusals of
 * foreign requests, truncation, remote CQ data, FI_ORDER_SAS, the
 * unexpected budget. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "uet/rand.h"

#include "ses_int.h"
#include "../fixtures/test_loop.h"

#define PA 6001
#define PB 6002

static struct tl_ep A, B;
static struct tl_link L;

static void open_pair(void (*tweak)(struct uet_fep_config *))
{
	tl_pair_open(&A, PA, &B, PB, &L, tweak);
}

static void setup(void)
{
	open_pair(NULL);
}

static void teardown(void)
{
	tl_pair_close(&A, &B, &L);
}

TestSuite(rx, .init = setup, .fini = teardown);
/* Tests that open their own pair with a changed target config. */
TestSuite(rxcfg, .fini = teardown);

Test(rx, reverse_order)
{
	size_t len = 10 * uet_ses_payload_max(A.ses) - 5;
	uint8_t *src = malloc(len), *dst = calloc(1, len);
	int ctx;
	size_t i;

	tl_fill(src, len, 77);
	cr_assert_eq(tl_recv(&B, UET_OP_RECV, dst, len, 0, 0,
			     UET_OPF_COMPLETION, PA, &ctx), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, src, len, 0, 0, 0, NULL), 0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 10);
	for (i = 10; i-- > 0;) {
		cr_assert_null(tl_comp(&B, &ctx));
		cr_assert_eq(tl_xfer(&L, i), 0);
	}
	cr_assert_eq(tl_comp(&B, &ctx)->len, len);
	cr_assert(!memcmp(src, dst, len));
	cr_assert_eq(tl_count(&B, &ctx), 1);
	free(src);
	free(dst);
}

Test(rx, random_order_duplicates)
{
	enum { N = 200 };
	size_t len = (N - 1) * uet_ses_payload_max(A.ses) + 1;
	uint8_t *src = malloc(len), *dst = calloc(1, len);
	unsigned order[2 * N], i;
	struct uet_ses_stats st;
	uint64_t rs = 4242;
	int ctx;

	tl_fill(src, len, 78);
	for (i = 0; i < N; i++)
		order[i] = order[N + i] = i;
	uet_rand_shuffle(&rs, order, 2 * N);
	cr_assert_eq(tl_recv(&B, UET_OP_RECV, dst, len, 0, 0,
			     UET_OPF_COMPLETION, PA, &ctx), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, src, len, 0, 0, 0, NULL), 0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), N);
	/* The sender's packets stay valid until acked: ack at the end. */
	for (i = 0; i < 2 * N; i++)
		cr_assert_eq(tl_deliver(&L, order[i]), 0);
	for (i = 0; i < N; i++)
		tl_ack(&L, i);
	cr_assert_eq(tl_count(&B, &ctx), 1);
	cr_assert_eq(tl_comp(&B, &ctx)->len, len);
	cr_assert(!memcmp(src, dst, len));
	uet_ses_stats(B.ses, &st);
	/* N duplicates: those of the message in progress by reassembly,
	 * those after it completed by message_id. */
	cr_assert_eq(st.dup_pkts, N);
	cr_assert_eq(st.rx_msgs, 1);
	free(src);
	free(dst);
}

/* A send refused for its address: error response, kept by PDS, receive
 * untouched, sender fails with the return code. */
enum which { W_JOB, W_PID, W_INDEX };

static void check_refused(uint8_t rc, enum which w)
{
	uint8_t src[3000] = { 1 }, dst[3000];
	struct uet_ses_stats st;
	int ctx_s, ctx_r;
	size_t i;

	cr_assert_eq(tl_recv(&B, UET_OP_RECV, dst, sizeof(dst), 0, 0,
			     UET_OPF_COMPLETION, 0, &ctx_r), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, src, sizeof(src), 0,
			     UET_OPF_COMPLETION, 0, &ctx_s), 0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 3);
	for (i = 0; i < 3; i++) {
		cr_assert_eq(tl_xfer(&L, i), 0);
		cr_assert_eq(L.p[i].rsp.return_code, rc);
		cr_assert_eq(L.p[i].rsp.opcode, UET_SES_RESPONSE);
		cr_assert(L.p[i].gtd);
	}
	cr_assert_null(tl_comp(&B, &ctx_r));
	cr_assert_eq(tl_comp(&A, &ctx_s)->err, UET_ERR_REMOTE);
	cr_assert_eq(tl_comp(&A, &ctx_s)->prov_errno, rc);
	uet_ses_stats(B.ses, &st);
	cr_assert_eq(st.bad_job, w == W_JOB ? 3 : 0);
	cr_assert_eq(st.bad_pid, w == W_PID ? 3 : 0);
	cr_assert_eq(st.bad_index, w == W_INDEX ? 3 : 0);
	cr_assert_eq(st.unexp_msgs + st.rx_msgs, 0);
}

static void bad_job(struct uet_fep_config *c) { c->job_id = 0x654321; }
static void bad_pid(struct uet_fep_config *c) { c->pid_on_fep ^= 1; }
static void bad_ri(struct uet_fep_config *c) { c->resource_index = 7; }

Test(rxcfg, bad_job_id)
{
	open_pair(bad_job);
	check_refused(UET_RC_BAD_JOB_ID, W_JOB);
}

Test(rxcfg, bad_pid)
{
	open_pair(bad_pid);
	check_refused(UET_RC_BAD_PID, W_PID);
}

Test(rxcfg, bad_index)
{
	struct uet_fep_stats fs;

	open_pair(bad_ri);
	check_refused(UET_RC_BAD_INDEX, W_INDEX);
	memset(&fs, 0, sizeof(fs));
	uet_ses_stats_fep(B.ses, &fs);
	cr_assert_eq(fs.drop_job, 3);
}

Test(rx, truncation)
{
	uint8_t src[4000], dst[1000 + 1];
	uint32_t placed = 0;
	int ctx_s, ctx_r;
	size_t i;

	tl_fill(src, sizeof(src), 5);
	memset(dst, 0xEE, sizeof(dst));
	cr_assert_eq(tl_recv(&B, UET_OP_RECV, dst, 1000, 0, 0,
			     UET_OPF_COMPLETION, PA, &ctx_r), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, src, sizeof(src), 0,
			     UET_OPF_COMPLETION, 0, &ctx_s), 0);
	cr_assert_eq(tl_run(&L, 0), 0);
	for (i = 0; i < L.n; i++) {
		cr_assert_eq(L.p[i].rsp.return_code, UET_RC_OK);
		placed += L.p[i].rsp.modified_length;
	}
	cr_assert_eq(placed, 1000, "modified_length: bytes placed");
	cr_assert_eq(tl_comp(&B, &ctx_r)->err, UET_ERR_TRUNC);
	cr_assert_eq(tl_comp(&B, &ctx_r)->len, 1000);
	cr_assert_eq(tl_comp(&B, &ctx_r)->olen, 3000);
	cr_assert_arr_eq(dst, src, 1000);
	cr_assert_eq(dst[1000], 0xEE);
	cr_assert_eq(tl_comp(&A, &ctx_s)->err, 0, "the sender succeeds");
}

Test(rx, empty_with_cq_data)
{
	int ctx;

	cr_assert_eq(tl_recv(&B, UET_OP_RECV, NULL, 0, 0, 0,
			     UET_OPF_COMPLETION, PA, &ctx), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, NULL, 0, 0, UET_OPF_CQ_DATA,
			     42, NULL), 0);
	cr_assert_eq(tl_run(&L, 0), 0);
	cr_assert_eq(L.n, 1);
	cr_assert_eq(tl_comp(&B, &ctx)->len, 0);
	cr_assert_eq(tl_comp(&B, &ctx)->flags, UET_CF_RECV | UET_CF_CQ_DATA);
	cr_assert_eq(tl_comp(&B, &ctx)->data, 42);
}

/* FI_ORDER_SAS: message 1's packets first, message 0's after: the first
 * posted receive still gets message 0. */
Test(rx, sas_order_when_later_som_first)
{
	uint8_t m0[3000], m1[100], d0[3000], d1[3000];
	struct uet_ses_stats st;
	int c0, c1;
	size_t i;

	tl_fill(m0, sizeof(m0), 10);
	tl_fill(m1, sizeof(m1), 11);
	cr_assert_eq(tl_recv(&B, UET_OP_TRECV, d0, sizeof(d0), 0, ~0ull,
			     UET_OPF_COMPLETION, 0, &c0), 0);
	cr_assert_eq(tl_recv(&B, UET_OP_TRECV, d1, sizeof(d1), 0, ~0ull,
			     UET_OPF_COMPLETION, 0, &c1), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_TSEND, m0, sizeof(m0), 1, 0, 0,
			     NULL), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_TSEND, m1, sizeof(m1), 2, 0, 0,
			     NULL), 0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 4);
	cr_assert_eq(tl_xfer(&L, 3), 0);	/* message 1, whole */
	cr_assert_eq(B.ncomp, 0, "held until message 0 is matched");
	uet_ses_stats(B.ses, &st);
	cr_assert_eq(st.held_msgs, 1);
	cr_assert_eq(tl_xfer(&L, 2), 0);	/* message 0, last packet */
	/* Message 0 matched c0, so message 1 (whole) completed c1. */
	cr_assert_not_null(tl_comp(&B, &c1));
	cr_assert_null(tl_comp(&B, &c0));
	cr_assert_eq(tl_xfer(&L, 1), 0);
	cr_assert_eq(tl_xfer(&L, 0), 0);
	cr_assert_eq(tl_comp(&B, &c0)->tag, 1);
	cr_assert_eq(tl_comp(&B, &c0)->len, sizeof(m0));
	cr_assert_arr_eq(d0, m0, sizeof(m0));
	cr_assert_eq(tl_comp(&B, &c1)->tag, 2);
	cr_assert_arr_eq(d1, m1, sizeof(m1));
	uet_ses_stats(B.ses, &st);
	cr_assert_eq(st.unexp_bytes, 0, "held buffer released");
	for (i = 0; i < 4; i++)
		cr_assert(L.p[i].acked);
}

static void small_budget(struct uet_fep_config *c)
{
	c->unexp_max = sizeof(struct uet_ses_inmsg) + 100;
}

/* Budget for one 100-byte message: the second is NACKed until a receive
 * takes the first; then its retry succeeds. Nothing is lost. */
Test(rxcfg, unexpected_budget_nack_then_retry)
{
	uint8_t m0[100], m1[50], d0[100], d1[100];
	struct uet_ses_stats st;
	int c0, c1;

	open_pair(small_budget);
	tl_fill(m0, sizeof(m0), 20);
	tl_fill(m1, sizeof(m1), 21);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, m0, sizeof(m0), 0, 0, 0,
			     NULL), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, m1, sizeof(m1), 0, 0, 0,
			     NULL), 0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 2);
	cr_assert_eq(tl_xfer(&L, 0), 0);
	cr_assert_eq(L.p[0].rsp.list, UET_SES_LIST_OVERFLOW);
	cr_assert_eq(L.p[0].rsp.modified_length, 100);
	cr_assert_eq(tl_xfer(&L, 1), UET_NACK_NO_SES_MSG_AVAIL);
	cr_assert_eq(tl_xfer(&L, 1), UET_NACK_NO_SES_MSG_AVAIL);
	uet_ses_stats(B.ses, &st);
	cr_assert_eq(st.unexp_nacks, 2);
	cr_assert_eq(st.unexp_bytes, sizeof(struct uet_ses_inmsg) + 100);
	cr_assert_eq(tl_recv(&B, UET_OP_RECV, d0, sizeof(d0), 0, 0,
			     UET_OPF_COMPLETION, PA, &c0), 0);
	cr_assert_eq(tl_comp(&B, &c0)->len, sizeof(m0));
	cr_assert_arr_eq(d0, m0, sizeof(m0));
	uet_ses_stats(B.ses, &st);
	cr_assert_eq(st.unexp_bytes, 0);
	cr_assert_eq(tl_xfer(&L, 1), 0, "retry fits now");
	cr_assert_eq(tl_recv(&B, UET_OP_RECV, d1, sizeof(d1), 0, 0,
			     UET_OPF_COMPLETION, PA, &c1), 0);
	cr_assert_eq(tl_comp(&B, &c1)->len, sizeof(m1));
	cr_assert_arr_eq(d1, m1, sizeof(m1));
}

Test(rxcfg, held_message_needs_budget_too)
{
	uint8_t m[300] = { 0 }, d[300];
	int c0, c1;

	open_pair(small_budget);
	cr_assert_eq(tl_recv(&B, UET_OP_RECV, d, sizeof(d), 0, 0, 0, 0, &c0),
		     0);
	cr_assert_eq(tl_recv(&B, UET_OP_RECV, d, sizeof(d), 0, 0, 0, 0, &c1),
		     0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, m, 10, 0, 0, 0, NULL), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, m, 300, 0, 0, 0, NULL), 0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 2);
	/* Message 1 first: it must be held, and 300 bytes do not fit. */
	cr_assert_eq(tl_xfer(&L, 1), UET_NACK_NO_SES_MSG_AVAIL);
	cr_assert_eq(tl_xfer(&L, 0), 0);
	/* Now it is expected: no budget needed. */
	cr_assert_eq(tl_xfer(&L, 1), 0);
	cr_assert_eq(L.p[1].rsp.list, UET_SES_LIST_EXPECTED);
}

/* Hand-made request on the B side of L. */
static int rx_raw(uint8_t opcode, uint16_t msg_id, uint8_t flags,
		  uint32_t total, uint32_t off, const uint8_t *pl, size_t plen,
		  struct uet_ses_rsp *rsp, bool *gtd)
{
	struct uet_ses_reply reply;
	struct uet_ses_req q;
	int ret;

	memset(&q, 0, sizeof(q));
	q.format = UET_NH_REQ_STD;
	q.opcode = opcode;
	q.flags = flags | UET_SES_F_REL;
	q.message_id = msg_id;
	q.request_length = total;
	q.job_id = TL_JOB;
	q.pid_on_fep = PB & 0xFFF;
	if (!(flags & UET_SES_F_SOM)) {
		q.message_offset = off;
		q.payload_length = (uint16_t)plen;
	}
	ret = uet_ses_rx(B.ses, &L.rpdc, &q, pl, plen, &reply, 0);
	*rsp = reply.rsp;
	*gtd = reply.gtd;
	return ret;
}

Test(rx, refused_message_keeps_its_turn)
{
	const uint8_t one[4] = { 1, 2, 3, 4 };
	uint8_t d[4];
	struct uet_ses_rsp rsp;
	bool gtd;
	int c;

	cr_assert_eq(tl_recv(&B, UET_OP_RECV, d, sizeof(d), 0, 0,
			     UET_OPF_COMPLETION, PA, &c), 0);
	/* Message 1 (a send) arrives before message 0 (a deferrable send,
	 * which this SES does not serve). */
	cr_assert_eq(rx_raw(UET_SES_SEND, 1,
			    UET_SES_F_SOM | UET_SES_F_EOM, 4, 0, one, 4, &rsp,
			    &gtd), 0);
	cr_assert_null(tl_comp(&B, &c));
	cr_assert_eq(rx_raw(UET_SES_DEFERRABLE_SEND, 0,
			    UET_SES_F_SOM | UET_SES_F_EOM, 4, 0, one, 4, &rsp,
			    &gtd), 0);
	cr_assert_eq(rsp.return_code, UET_RC_UNSUPPORTED_OP);
	cr_assert(gtd);
	cr_assert_not_null(tl_comp(&B, &c));
	cr_assert_arr_eq(d, one, 4);
}

Test(rx, oversize_and_malformed)
{
	uint8_t pl[8] = { 0 };
	struct uet_ses_reply reply;
	struct uet_ses_rsp rsp;
	struct uet_ses_req q;
	bool gtd;

	cr_assert_eq(rx_raw(UET_SES_SEND, 0, UET_SES_F_SOM,
			    (uint32_t)B.cfg.max_msg_size + 1, 0, pl, 8, &rsp,
			    &gtd), 0);
	cr_assert_eq(rsp.return_code, UET_RC_UNSUPPORTED_SIZE);
	cr_assert(gtd);
	/* Payload past request_length. */
	cr_assert_eq(rx_raw(UET_SES_SEND, 1, 0, 10, 6, pl, 8, &rsp, &gtd), 0);
	cr_assert_eq(rsp.return_code, UET_RC_OP_VIOLATION);
	/* Medium header: not taken. */
	memset(&q, 0, sizeof(q));
	q.format = UET_NH_REQ_MEDIUM;
	q.opcode = UET_SES_SEND;
	q.flags = UET_SES_F_SOM | UET_SES_F_EOM;
	q.job_id = TL_JOB;
	q.pid_on_fep = PB & 0xFFF;
	cr_assert_eq(uet_ses_rx(B.ses, &L.rpdc, &q, pl, 0, &reply, 0), 0);
	cr_assert_eq(reply.rsp.return_code, UET_RC_UNSUPPORTED_OP);
	cr_assert(reply.gtd);
}

Test(rx, initiator_error_fails_receive)
{
	uint8_t pl[1000] = { 0 }, d[2000];
	struct uet_ses_rsp rsp;
	bool gtd;
	int c;

	cr_assert_eq(tl_recv(&B, UET_OP_RECV, d, sizeof(d), 0, 0, 0, PA, &c),
		     0);
	cr_assert_eq(rx_raw(UET_SES_SEND, 0, UET_SES_F_SOM, 2000, 0, pl, 1000,
			    &rsp, &gtd), 0);
	cr_assert_eq(rsp.return_code, UET_RC_OK);
	cr_assert_eq(rx_raw(UET_SES_SEND, 0, UET_SES_F_EOM | UET_SES_F_IE,
			    2000, 1000, pl, 1000, &rsp, &gtd), 0);
	cr_assert_eq(rsp.return_code, UET_RC_INITIATOR_ERR);
	cr_assert(gtd);
	cr_assert_eq(tl_comp(&B, &c)->err, UET_ERR_REMOTE);
	cr_assert_eq(tl_comp(&B, &c)->prov_errno, UET_RC_INITIATOR_ERR);
	cr_assert_eq(uet_ses_rx_left(B.ses), B.cfg.rx_depth);
}

Test(rx, pdc_close_delivers_whole_held_messages)
{
	const uint8_t one[3] = { 7, 8, 9 };
	struct uet_ses_rsp rsp;
	uint8_t d[3];
	bool gtd;
	int c;

	cr_assert_eq(tl_recv(&B, UET_OP_RECV, d, sizeof(d), 0, 0,
			     UET_OPF_COMPLETION, PA, &c), 0);
	cr_assert_eq(rx_raw(UET_SES_SEND, 1, UET_SES_F_SOM | UET_SES_F_EOM, 3,
			    0, one, 3, &rsp, &gtd), 0);
	cr_assert(uet_ses_pdc_busy(B.ses, &L.rpdc));
	cr_assert_null(tl_comp(&B, &c));
	/* Message 0 will never come. */
	uet_ses_pdc_closed(B.ses, &L.rpdc);
	cr_assert_not_null(tl_comp(&B, &c));
	cr_assert_arr_eq(d, one, 3);
	uet_ses_pdc_open(B.ses, &L.rpdc);
}

Test(rx, pdc_close_fails_partial_receive)
{
	uint8_t pl[100] = { 0 }, d[200];
	struct uet_ses_rsp rsp;
	bool gtd;
	int c;

	cr_assert_eq(tl_recv(&B, UET_OP_RECV, d, sizeof(d), 0, 0, 0, PA, &c),
		     0);
	cr_assert_eq(rx_raw(UET_SES_SEND, 0, UET_SES_F_SOM, 200, 0, pl, 100,
			    &rsp, &gtd), 0);
	uet_ses_pdc_closed(B.ses, &L.rpdc);
	cr_assert_eq(tl_comp(&B, &c)->err, UET_ERR_PEER);
	cr_assert_eq(uet_ses_rx_left(B.ses), B.cfg.rx_depth);
	uet_ses_pdc_open(B.ses, &L.rpdc);
}

/* A message too big to buffer must not hold up the ones behind it (MPI:
 * receive tag 2 first, then tag 1): it keeps its place as a header, its
 * packets are NACKed until a receive takes it. */
Test(rxcfg, big_unexpected_does_not_block_later_messages)
{
	uint8_t big[3000], small[10], dbig[3000], dsmall[10];
	struct uet_ses_stats st;
	int cb, cs;
	size_t i;

	open_pair(small_budget);
	tl_fill(big, sizeof(big), 40);
	tl_fill(small, sizeof(small), 41);
	cr_assert_eq(tl_send(&A, PB, UET_OP_TSEND, big, sizeof(big), 1, 0, 0,
			     NULL), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_TSEND, small, sizeof(small), 2, 0,
			     0, NULL), 0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 4);
	for (i = 0; i < 3; i++)
		cr_assert_eq(tl_xfer(&L, i), UET_NACK_NO_SES_MSG_AVAIL);
	uet_ses_stats(B.ses, &st);
	cr_assert_eq(st.unexp_msgs, 1);
	cr_assert_eq(st.unexp_bytes, sizeof(struct uet_ses_inmsg),
		     "a header, no data");
	cr_assert_eq(tl_recv(&B, UET_OP_TRECV, dsmall, sizeof(dsmall), 2, 0,
			     UET_OPF_COMPLETION, PA, &cs), 0);
	cr_assert_eq(tl_xfer(&L, 3), 0);
	cr_assert_eq(tl_comp(&B, &cs)->len, sizeof(small));
	cr_assert_arr_eq(dsmall, small, sizeof(small));
	/* Now the big one: its resent packets land in place. */
	cr_assert_eq(tl_recv(&B, UET_OP_TRECV, dbig, sizeof(dbig), 1, 0,
			     UET_OPF_COMPLETION, PA, &cb), 0);
	cr_assert_null(tl_comp(&B, &cb));
	for (i = 3; i-- > 0;)
		cr_assert_eq(tl_xfer(&L, i), 0);
	cr_assert_eq(tl_comp(&B, &cb)->len, sizeof(big));
	cr_assert_arr_eq(dbig, big, sizeof(big));
	uet_ses_stats(B.ses, &st);
	cr_assert_eq(st.unexp_bytes, 0);
}
