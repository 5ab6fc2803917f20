/* Rendezvous sends between two SES instances: A sends, B receives and
 * reads the rest on its own PDC to A (link R, B -> A), with the return
 * data in R's return direction. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ses_int.h"
#include "../fixtures/test_loop.h"

#define PA 6301
#define PB 6302
#define THRESH 2000

static struct tl_ep A, B;
static struct tl_link L, R;	/* A -> B, B -> A */
static struct tl_link *LR[2] = { &L, &R };

static void rndv_cfg(struct uet_fep_config *c)
{
	c->rndv_threshold = THRESH;
}

static void setup(void)
{
	tl_ep_open_at(&A, PA, rndv_cfg);
	tl_ep_open_at(&B, PB, rndv_cfg);
	tl_link_open(&L, &A, &B, 1);
	tl_link_open(&R, &B, &A, 2);
}

static void teardown(void)
{
	tl_link_close(&L);
	tl_link_close(&R);
	tl_ep_close(&A);
	tl_ep_close(&B);
}

TestSuite(rndv, .init = setup, .fini = teardown);

static size_t eager_len(void)
{
	return uet_ses_payload_max(A.ses) - UET_SES_RNDV_EXT_LEN;
}

/* B posts a receive of room bytes from A, then A sends len bytes to B;
 * both untagged, with completions. */
static void recv_then_send(uint8_t *dst, size_t room, const uint8_t *src,
			   size_t len, int *cr, int *cs)
{
	cr_assert_eq(tl_recv(&B, UET_OP_RECV, dst, room, 0, 0,
			     UET_OPF_COMPLETION, PA, cr), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, src, len, 0,
			     UET_OPF_COMPLETION, 0, cs), 0);
}

/* A message of len bytes (a pattern) from A to a receive on B as big. */
struct rmsg {
	size_t len;
	uint8_t *src, *dst;
	int cs, cr;
};

/* Post m (recv_then_send), then carry A's packets and B's read requests,
 * acknowledged; the read data (R's return direction) is left to the
 * test. */
static void rmsg_until_read(struct rmsg *m, size_t len)
{
	size_t i;

	m->len = len;
	m->src = malloc(len);
	m->dst = calloc(1, len);
	for (i = 0; i < len; i++)
		m->src[i] = (uint8_t)(i * 31 + (i >> 12));
	recv_then_send(m->dst, len, m->src, len, &m->cr, &m->cs);
	cr_assert_eq(tl_run(&L, 0), 0);
	cr_assert_eq(tl_run(&R, 0), 0);
}

static void rmsg_free(struct rmsg *m)
{
	free(m->src);
	free(m->dst);
}

Test(rndv, expected_receive)
{
	size_t len = 50000;
	uint8_t *src = malloc(len), *dst = calloc(1, len);
	const struct uet_completion *c;
	struct uet_ses_stats st;
	int cs, cr;

	tl_fill(src, len, 21);
	cr_assert_eq(tl_recv(&B, UET_OP_TRECV, dst, len, 5, 0,
			     UET_OPF_COMPLETION, PA, &cr), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_TSEND, src, len, 5,
			     UET_OPF_COMPLETION | UET_OPF_CQ_DATA, 99, &cs), 0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 1, "rendezvous is one packet");
	cr_assert_eq(tl_xfer(&L, 0), 0);
	cr_assert_eq(L.req.opcode, UET_SES_RENDEZVOUS_TSEND);
	cr_assert_eq(L.req.request_length, len);
	cr_assert_eq(L.req.rndv.eager_length, eager_len());
	cr_assert_eq(L.req.rndv.read_offset, eager_len());
	cr_assert_eq(L.req.rndv.read_pid_on_fep,
		     uet_addr_pid(&A.cfg.local));
	cr_assert_eq(L.req.rndv.read_match_bits & UET_MKEY_VENDOR_MASK,
		     UET_SES_MKEY_RNDV, "not an engine key");
	cr_assert_eq((size_t)L.wlen,
		     UET_SES_STD_LEN + UET_SES_RNDV_EXT_LEN + eager_len());
	/* Eager part acknowledged, nothing read yet: neither completes. */
	cr_assert_null(tl_comp(&A, &cs));
	cr_assert_null(tl_comp(&B, &cr));
	cr_assert_geq(B.wakes, 1, "the read did not wake PDS");
	tl_run_all(LR, 2);
	c = tl_comp(&B, &cr);
	cr_assert_not_null(c);
	cr_assert_eq(c->err, 0);
	cr_assert_eq(c->len, len);
	cr_assert_eq(c->tag, 5);
	cr_assert_eq(c->data, 99);
	cr_assert(c->flags & UET_CF_CQ_DATA);
	cr_assert(!memcmp(src, dst, len));
	c = tl_comp(&A, &cs);
	cr_assert_not_null(c);
	cr_assert_eq(c->err, 0);
	cr_assert_eq(c->len, len);
	cr_assert_eq(c->flags, UET_CF_SEND | UET_CF_TAGGED);
	/* Reads of the engine's region are no remote reads of the user's. */
	cr_assert_eq(A.ncomp, 1);
	cr_assert_eq(B.ncomp, 1);
	/* The reads: requests on R (the first for UET_SES_READ_CHUNK, the
	 * rest for several return packets each), data in R's return
	 * direction. */
	{
		size_t pkt = B.cfg.mtu - UET_SES_RET_HDRS_LEN, rest;
		size_t chunk = UET_SES_PAYLOAD_LIMIT / pkt * pkt;

		rest = len - eager_len() - UET_SES_READ_CHUNK;
		cr_assert_eq(R.n, 1 + (rest + chunk - 1) / chunk);
	}
	cr_assert_geq(R.rn, 1);
	uet_ses_stats(A.ses, &st);
	cr_assert_eq(st.rndv_tx, 1);
	/* The region is gone with the send. */
	cr_assert_null(uet_mr_find(A.ses, L.req.rndv.read_match_bits));
	cr_assert_eq(tl_count(&B, &cr), 1);
	cr_assert_not(uet_ses_pdc_busy(A.ses, &L.tpdc));
	cr_assert_not(uet_ses_pdc_busy(B.ses, &R.tpdc));
	free(src);
	free(dst);
}

Test(rndv, unexpected_then_receive_multi_iov)
{
	size_t len = 9000;
	uint8_t *src = malloc(len), *dst = calloc(1, len);
	struct uet_iov iov[3] = { { src, 100 }, { src + 100, 5000 },
				  { src + 5100, 3900 } };
	struct uet_op op;
	int cs, cr;

	tl_fill(src, len, 22);
	memset(&op, 0, sizeof(op));
	op.type = UET_OP_SEND;
	op.flags = UET_OPF_COMPLETION;
	op.context = &cs;
	op.peer = tl_addr(PB);
	op.iov = iov;
	op.iov_count = 3;
	cr_assert_eq(uet_ses_post(A.ses, &op, 0), 0);
	tl_run_all(LR, 2);
	cr_assert_eq(L.req.opcode, UET_SES_RENDEZVOUS_SEND);
	cr_assert_eq(R.n, 0, "read before any receive");
	cr_assert_null(tl_comp(&A, &cs));
	cr_assert_eq(tl_recv(&B, UET_OP_RECV, dst, len, 0, 0,
			     UET_OPF_COMPLETION, 0, &cr), 0);
	tl_run_all(LR, 2);
	cr_assert_eq(tl_comp(&B, &cr)->err, 0);
	cr_assert_eq(tl_comp(&B, &cr)->len, len);
	cr_assert(!memcmp(src, dst, len));
	cr_assert_eq(tl_comp(&A, &cs)->err, 0);
	free(src);
	free(dst);
}

/* A receive shorter than the message reads only what fits; the sender
 * still completes (successfully: libfabric truncates at the receiver). */
Test(rndv, truncated_reads_what_fits)
{
	size_t len = 20000, room = 7000, i;
	uint8_t *src = malloc(len), *dst = calloc(1, len);
	const struct uet_completion *c;
	uint32_t asked = 0;
	int cs, cr;

	tl_fill(src, len, 23);
	recv_then_send(dst, room, src, len, &cr, &cs);
	tl_run_all(LR, 2);
	c = tl_comp(&B, &cr);
	cr_assert_eq(c->err, UET_ERR_TRUNC);
	cr_assert_eq(c->len, room);
	cr_assert_eq(c->olen, len - room);
	cr_assert(!memcmp(src, dst, room));
	cr_assert_eq(dst[room], 0);
	cr_assert_eq(tl_comp(&A, &cs)->err, 0);
	for (i = 0; i < R.rn; i++)
		asked += R.rp[i].pkt.len;
	cr_assert_eq(asked, room - eager_len());
	free(src);
	free(dst);
}

static void released_by_empty_read(void)
{
	cr_assert_eq(R.n, 1);
	cr_assert_eq(R.rn, 0, "an empty read returned data");
	cr_assert_eq(R.p[0].rsp.format, UET_NH_RSP_DATA);
	cr_assert_eq(R.p[0].reply.data_len, 0);
}

Test(rndv, receive_within_eager_part)
{
	size_t len = 5000;
	uint8_t *src = malloc(len), dst[100];
	int cs, cr;

	tl_fill(src, len, 24);
	recv_then_send(dst, 100, src, len, &cr, &cs);
	tl_run_all(LR, 2);
	cr_assert_eq(tl_comp(&B, &cr)->err, UET_ERR_TRUNC);
	cr_assert_arr_eq(dst, src, 100);
	cr_assert_eq(tl_comp(&A, &cs)->err, 0);
	released_by_empty_read();
	free(src);
}

/* PEEK|DISCARD drops an unexpected rendezvous message: the sender is
 * released all the same. */
Test(rndv, discarded_releases_sender)
{
	size_t len = 5000;
	uint8_t *src = malloc(len);
	struct uet_op op;
	int cs, cp;

	tl_fill(src, len, 25);
	cr_assert_eq(tl_send(&A, PB, UET_OP_TSEND, src, len, 3,
			     UET_OPF_COMPLETION, 0, &cs), 0);
	tl_run_all(LR, 2);
	memset(&op, 0, sizeof(op));
	op.type = UET_OP_TRECV;
	op.flags = UET_OPF_PEEK | UET_OPF_DISCARD | UET_OPF_PEER_ANY;
	op.context = &cp;
	op.tag = 3;
	cr_assert_eq(uet_ses_post(B.ses, &op, 0), 0);
	cr_assert_eq(tl_comp(&B, &cp)->len, len);
	tl_run_all(LR, 2);
	cr_assert_eq(tl_comp(&A, &cs)->err, 0);
	released_by_empty_read();
	free(src);
}

Test(rndv, below_threshold_is_eager)
{
	uint8_t src[THRESH] = { 1 }, dst[THRESH];
	int cs, cr;

	recv_then_send(dst, THRESH, src, THRESH, &cr, &cs);
	tl_run_all(LR, 2);
	cr_assert_eq(L.req.opcode, UET_SES_SEND);
	cr_assert_eq(R.n, 0);
	cr_assert_eq(tl_comp(&B, &cr)->err, 0);
	cr_assert_eq(tl_comp(&A, &cs)->err, 0);
}

/* Only the message's target may read the region. */
Test(rndv, region_only_for_its_target)
{
	size_t len = 5000;
	uint8_t *src = calloc(1, len);
	struct uet_ses_reply reply;
	struct uet_pdc_ref other;
	struct uet_ses_req q;
	int cs;

	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, src, len, 0,
			     UET_OPF_COMPLETION, 0, &cs), 0);
	cr_assert_eq(tl_run(&L, 0), 0);
	memset(&other, 0, sizeof(other));
	other.id = 9;
	other.peer = tl_addr(6399);
	uet_ses_pdc_open(A.ses, &other);
	memset(&q, 0, sizeof(q));
	q.format = UET_NH_REQ_STD;
	q.opcode = UET_SES_READ;
	q.flags = UET_SES_F_REL | UET_SES_F_SOM | UET_SES_F_EOM;
	q.request_length = 8;
	q.job_id = TL_JOB;
	q.pid_on_fep = uet_addr_pid(&A.cfg.local);
	q.match_bits = L.req.rndv.read_match_bits;
	q.buffer_offset = L.req.rndv.read_offset;
	cr_assert_eq(uet_ses_rx(A.ses, &other, &q, NULL, 0, &reply, 0), 0);
	cr_assert_eq(reply.rsp.return_code, UET_RC_PERM_VIOLATION);
	cr_assert_null(tl_comp(&A, &cs), "a stranger's read ended the send");
	uet_ses_pdc_closed(A.ses, &other);
	free(src);
}

/* The target's read refused by the sender (here: past the region):
 * both sides fail with the return code. */
Test(rndv, refused_read_fails_both)
{
	size_t len = 5000;
	uint8_t *src = calloc(1, len), *dst = malloc(len);
	int cs, cr;

	recv_then_send(dst, len, src, len, &cr, &cs);
	cr_assert_eq(tl_pull(&L, 1), 1);
	cr_assert_eq(tl_xfer(&L, 0), 0);
	/* B's read is queued; make it ask beyond the region. */
	{
		struct uet_list *pos = B.ses->tx_pending.next;
		struct uet_ses_msg *m =
			uet_container_of(pos, struct uet_ses_msg, link);

		cr_assert(m->internal);
		m->raddr += 1;
	}
	tl_run_all(LR, 2);
	cr_assert_eq(tl_comp(&B, &cr)->err, UET_ERR_REMOTE);
	cr_assert_eq(tl_comp(&B, &cr)->prov_errno, UET_RC_BAD_ADDR);
	cr_assert_eq(tl_comp(&A, &cs)->err, UET_ERR_REMOTE);
	cr_assert_eq(tl_comp(&A, &cs)->prov_errno, UET_RC_BAD_ADDR);
	free(src);
	free(dst);
}

/* The sender cancels (flush) while the rest is being read: its region
 * goes, the read fails with RC_BAD_MKEY, the receive with it. */
Test(rndv, sender_flush_fails_receive)
{
	struct rmsg m;

	rmsg_until_read(&m, 8000);
	uet_ses_flush(A.ses);
	cr_assert_eq(tl_comp(&A, &m.cs)->err, UET_ERR_CANCELED);
	tl_run_all(LR, 2);
	cr_assert_eq(tl_comp(&B, &m.cr)->err, UET_ERR_REMOTE);
	cr_assert_eq(tl_comp(&B, &m.cr)->prov_errno, UET_RC_BAD_MKEY);
	rmsg_free(&m);
}

/* The PDC of the read fails: the receive fails, and so does the send
 * whose return data could not be delivered. */
Test(rndv, read_pdc_failure)
{
	struct rmsg m;

	rmsg_until_read(&m, 8000);
	cr_assert_gt(tl_ret_pull(&R, 2), 0);
	tl_link_close(&R);
	cr_assert_eq(tl_comp(&B, &m.cr)->err, UET_ERR_PEER);
	cr_assert_eq(tl_comp(&A, &m.cs)->err, UET_ERR_PEER);
	tl_link_open(&R, &B, &A, 3);
	rmsg_free(&m);
}

/* 16 MiB (the test config's max_msg_size): many read chunks, return jobs
 * and packets, out of order in the return direction. */
Test(rndv, sixteen_mib)
{
	struct rmsg m;
	size_t i;

	rmsg_until_read(&m, 16u << 20);
	tl_ret_pull(&R, SIZE_MAX);
	for (i = R.rn; i-- > 0;) {
		cr_assert_eq(tl_ret_deliver(&R, i), 0);
		tl_ret_ack(&R, i);
	}
	cr_assert_eq(tl_comp(&B, &m.cr)->err, 0);
	cr_assert_eq(tl_comp(&B, &m.cr)->len, m.len);
	cr_assert(!memcmp(m.src, m.dst, m.len));
	cr_assert_eq(tl_comp(&A, &m.cs)->err, 0);
	rmsg_free(&m);
}
