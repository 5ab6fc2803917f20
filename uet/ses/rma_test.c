/* RMA write and read between two SES instances (test_loop): placement,
 * target-side checks and refusals, completions on both sides, read data in
 * the ACK and in the return direction, fences. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ses_int.h"
#include "../fixtures/test_loop.h"

#define PA 6101
#define PB 6102
#define KEY 0x1234

static struct tl_ep A, B;
static struct tl_link L;
static int mctx;		/* B's region context */

static void setup(void)
{
	tl_pair_open(&A, PA, &B, PB, &L, NULL);
}

static void teardown(void)
{
	tl_pair_close(&A, &B, &L);
}

TestSuite(rma, .init = setup, .fini = teardown);
TestSuite(rmacfg, .fini = teardown);

/* Completions of B's region (target side). */
static size_t remote_count(uint32_t flags)
{
	size_t i, n = 0;

	for (i = 0; i < B.ncomp; i++)
		n += B.comp[i].context == &mctx &&
		     (B.comp[i].flags & flags) == flags;
	return n;
}

/* The access an RMA of type needs, and the one it does not. */
static uint32_t access_for(uint8_t type)
{
	return type == UET_OP_READ ? UET_MR_REMOTE_READ : UET_MR_REMOTE_WRITE;
}

static uint32_t access_not_for(uint8_t type)
{
	return access_for(type == UET_OP_READ ? UET_OP_WRITE : UET_OP_READ);
}

/* B registers mem (len bytes under KEY, open to the RMA of type); A posts
 * that RMA on all of it, from or into buf, with a completion. */
static void rma_whole(uint8_t type, void *buf, void *mem, size_t len,
		      int *ctx)
{
	cr_assert_eq(tl_mr(&B, mem, len, KEY, access_for(type), &mctx), 0);
	cr_assert_eq(tl_rma(&A, PB, type, buf, len, KEY, 0,
			    UET_OPF_COMPLETION, ctx), 0);
}

/* A read of B's region src (bytes v) into dst; the test frees both. */
struct rd {
	size_t len;
	uint8_t *src, *dst;
	int ctx;
};

/* Post a read of that many chunks and carry its requests, acknowledged:
 * the data waits in L's return direction. */
static void rd_requested(struct rd *r, size_t chunks, uint8_t v)
{
	r->len = chunks * UET_SES_READ_CHUNK;
	r->src = malloc(r->len);
	r->dst = calloc(1, r->len);
	memset(r->src, v, r->len);
	rma_whole(UET_OP_READ, r->dst, r->src, r->len, &r->ctx);
	cr_assert_eq(tl_run(&L, 0), 0);
}

/* A write of three packets of byte v into B's region, the first one
 * placed; the test decides what becomes of the other two. */
struct write3 {
	size_t pm;		/* payload per packet */
	uint8_t *src, *dst;
	int ctx;
};

static void write3_start(struct write3 *w, uint8_t v)
{
	size_t len;

	w->pm = uet_ses_payload_max(A.ses);
	len = 3 * w->pm;
	w->src = malloc(len);
	w->dst = calloc(1, len);
	memset(w->src, v, len);
	rma_whole(UET_OP_WRITE, w->src, w->dst, len, &w->ctx);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 3);
	cr_assert_eq(tl_xfer(&L, 0), 0);
}

/* Only the first packet was written, and B completed nothing. */
static void write3_end(struct write3 *w, uint8_t v)
{
	cr_assert_eq(w->dst[0], v);
	cr_assert_eq(w->dst[w->pm], 0);
	cr_assert_eq(w->dst[2 * w->pm], 0);
	cr_assert_eq(remote_count(0), 0);
	free(w->src);
	free(w->dst);
}

Test(rma, write_any_order_completes_both_sides)
{
	size_t pm = uet_ses_payload_max(A.ses), len = 5 * pm - 7, i;
	uint8_t *src = malloc(len), *dst = calloc(1, len + 200);
	const struct uet_completion *c;
	struct uet_ses_stats st;
	int ctx;

	tl_fill(src, len, 5);
	cr_assert_eq(tl_mr(&B, dst, len + 200, KEY, UET_MR_REMOTE_WRITE,
			   &mctx), 0);
	cr_assert_eq(tl_rma(&A, PB, UET_OP_WRITE, src, len, KEY, 100,
			    UET_OPF_COMPLETION | UET_OPF_CQ_DATA, &ctx), 0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 5);
	for (i = 5; i-- > 0;) {
		cr_assert_eq(remote_count(0), 0, "completed before whole");
		cr_assert_eq(tl_xfer(&L, i), 0);
		cr_assert_eq(L.req.opcode, UET_SES_WRITE);
		cr_assert_eq(L.req.match_bits, KEY);
		cr_assert_eq(L.req.buffer_offset, 100);
		cr_assert_eq(L.p[i].rsp.return_code, UET_RC_OK);
		cr_assert_not(L.p[i].gtd);
	}
	cr_assert(!memcmp(dst + 100, src, len));
	cr_assert_eq(dst[99], 0);
	cr_assert_eq(dst[100 + len], 0);
	c = tl_comp(&A, &ctx);
	cr_assert_not_null(c);
	cr_assert_eq(c->err, 0);
	cr_assert_eq(c->flags, UET_CF_WRITE);
	cr_assert_eq(c->len, len);
	cr_assert_eq(remote_count(0), 1);
	c = tl_comp(&B, &mctx);
	cr_assert_eq(c->flags, UET_CF_REMOTE | UET_CF_WRITE | UET_CF_CQ_DATA);
	cr_assert_eq(c->data, 0xC0DA);
	cr_assert_eq(c->len, len);
	cr_assert_eq(c->buf, dst + 100);
	uet_ses_stats(B.ses, &st);
	cr_assert_eq(st.rma_writes, 1);
	cr_assert_not(uet_ses_pdc_busy(B.ses, &L.rpdc));
	free(src);
	free(dst);
}

Test(rma, write_without_cq_data_and_inject)
{
	uint8_t src[32], dst[32] = { 0 };
	int ctx;

	memset(src, 0x11, sizeof(src));
	cr_assert_eq(tl_mr(&B, dst, 32, KEY, UET_MR_REMOTE_WRITE, &mctx), 0);
	cr_assert_eq(tl_rma(&A, PB, UET_OP_WRITE, src, 32, KEY, 0,
			    UET_OPF_COMPLETION | UET_OPF_INJECT, &ctx), 0);
	/* Inject: the buffer is free once posted. */
	memset(src, 0x22, sizeof(src));
	cr_assert_eq(tl_run(&L, 0), 0);
	cr_assert_eq(dst[0], 0x11);
	cr_assert_eq(dst[31], 0x11);
	cr_assert_eq(tl_comp(&B, &mctx)->flags,
		     UET_CF_REMOTE | UET_CF_WRITE);
	cr_assert_eq(tl_comp(&A, &ctx)->err, 0);
	/* INJECT larger than inject_size, or on a read: refused at post. */
	cr_assert_eq(tl_rma(&A, PB, UET_OP_WRITE, dst, 65, KEY, 0,
			    UET_OPF_INJECT, &ctx), UET_ERR_MSGSIZE);
	cr_assert_eq(tl_rma(&A, PB, UET_OP_READ, dst, 8, KEY, 0,
			    UET_OPF_INJECT, &ctx), UET_ERR_INVAL);
}

Test(rma, write_virt_addr_and_zero_length)
{
	uint8_t src[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }, dst[20] = { 0 };
	int c1, c2;

	cr_assert_eq(tl_mr(&B, dst, 20, KEY, UET_MR_REMOTE_WRITE |
			   UET_MR_VIRT_ADDR, &mctx), 0);
	cr_assert_eq(tl_rma(&A, PB, UET_OP_WRITE, src, 10, KEY,
			    (uintptr_t)dst + 5, UET_OPF_COMPLETION, &c1), 0);
	cr_assert_eq(tl_rma(&A, PB, UET_OP_WRITE, NULL, 0, KEY,
			    (uintptr_t)dst + 20, UET_OPF_COMPLETION, &c2), 0);
	cr_assert_eq(tl_run(&L, 0), 0);
	cr_assert_arr_eq(dst + 5, src, 10);
	cr_assert_eq(tl_comp(&A, &c1)->err, 0);
	cr_assert_eq(tl_comp(&A, &c2)->err, 0);
	cr_assert_eq(remote_count(UET_CF_WRITE), 2);
}

/* One refused message: every packet answered with the code, nothing
 * written, the initiator fails with UET_ERR_REMOTE / the code. */
static void refused_write(uint64_t key, uint64_t raddr, size_t len,
			  uint8_t rc)
{
	uint8_t *src = malloc(len), *dst = calloc(1, 4000);
	const struct uet_completion *c;
	size_t i, n, start = L.n;
	int ctx;

	A.ncomp = 0;
	memset(src, 0xEE, len);
	cr_assert_eq(tl_rma(&A, PB, UET_OP_WRITE, src, len, key, raddr,
			    UET_OPF_COMPLETION, &ctx), 0);
	n = tl_pull(&L, SIZE_MAX);
	cr_assert_gt(n, 1);
	for (i = start; i < start + n; i++) {
		cr_assert_eq(tl_xfer(&L, i), 0);
		cr_assert_eq(L.p[i].rsp.return_code, rc, "packet %zu", i);
		cr_assert_eq(L.p[i].rsp.opcode, UET_SES_RESPONSE);
		cr_assert(L.p[i].gtd);
	}
	c = tl_comp(&A, &ctx);
	cr_assert_not_null(c);
	cr_assert_eq(c->err, UET_ERR_REMOTE);
	cr_assert_eq(c->prov_errno, rc);
	cr_assert_eq(remote_count(0), 0);
	free(src);
	free(dst);
}

static uint8_t region[4000];

/* B's region under KEY open to the RMA of type, under KEY + 1 only to the
 * other kind. */
static void region_keys(uint8_t type)
{
	cr_assert_eq(tl_mr(&B, region, sizeof(region), KEY, access_for(type),
			   &mctx), 0);
	cr_assert_eq(tl_mr(&B, region, sizeof(region), KEY + 1,
			   access_not_for(type), &mctx), 0);
}

Test(rma, write_refusals)
{
	struct uet_ses_stats st;
	struct uet_fep_stats fs;

	memset(region, 0, sizeof(region));
	region_keys(UET_OP_WRITE);
	refused_write(KEY + 2, 0, 3000, UET_RC_BAD_MKEY);
	refused_write(KEY + 1, 0, 3000, UET_RC_PERM_VIOLATION);
	/* Only the last bytes fall outside: still nothing written. */
	refused_write(KEY, 1001, 3000, UET_RC_BAD_ADDR);
	for (size_t i = 0; i < sizeof(region); i++)
		cr_assert_eq(region[i], 0, "byte %zu written", i);
	uet_ses_stats(B.ses, &st);
	cr_assert_eq(st.rma_bad_mkey, 3);
	cr_assert_eq(st.rma_perm, 3);
	cr_assert_eq(st.rma_bad_addr, 3);
	cr_assert_eq(st.rma_writes, 0);
	memset(&fs, 0, sizeof(fs));
	uet_ses_stats_fep(B.ses, &fs);
	cr_assert_eq(fs.rma_refused, 9);
	cr_assert_not(uet_ses_pdc_busy(B.ses, &L.rpdc), "records left");
}

/* A refused write still takes its message_id's turn: the send after it is
 * matched even when it arrives first. */
Test(rma, refused_write_keeps_order)
{
	uint8_t s[4] = { 9, 8, 7, 6 }, d[4] = { 0 }, w[4] = { 1 };
	int cs, cr, cw;

	cr_assert_eq(tl_recv(&B, UET_OP_RECV, d, 4, 0, 0, UET_OPF_COMPLETION,
			     PA, &cr), 0);
	cr_assert_eq(tl_rma(&A, PB, UET_OP_WRITE, w, 4, 77, 0,
			    UET_OPF_COMPLETION, &cw), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, s, 4, 0, UET_OPF_COMPLETION,
			     0, &cs), 0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 2);
	cr_assert_eq(tl_xfer(&L, 1), 0);
	cr_assert_null(tl_comp(&B, &cr), "matched before its turn");
	cr_assert_eq(tl_xfer(&L, 0), 0);
	cr_assert_eq(L.p[0].rsp.return_code, UET_RC_BAD_MKEY);
	cr_assert_not_null(tl_comp(&B, &cr));
	cr_assert_arr_eq(d, s, 4);
	cr_assert_eq(tl_comp(&A, &cw)->prov_errno, UET_RC_BAD_MKEY);
}

/* RMA is not held back by an earlier message that has not arrived. */
Test(rma, write_placed_before_its_turn)
{
	uint8_t s[4] = { 1 }, w[4] = { 5, 6, 7, 8 }, dst[4] = { 0 };
	int cw;

	cr_assert_eq(tl_mr(&B, dst, 4, KEY, UET_MR_REMOTE_WRITE, &mctx), 0);
	cr_assert_eq(tl_send(&A, PB, UET_OP_SEND, s, 4, 0, 0, 0, NULL), 0);
	cr_assert_eq(tl_rma(&A, PB, UET_OP_WRITE, w, 4, KEY, 0,
			    UET_OPF_COMPLETION, &cw), 0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 2);
	cr_assert_eq(tl_xfer(&L, 1), 0);
	cr_assert_arr_eq(dst, w, 4);
	cr_assert_eq(remote_count(UET_CF_WRITE), 1);
	cr_assert_eq(tl_xfer(&L, 0), 0);	/* the send, unexpected */
	cr_assert_not(uet_ses_pdc_busy(B.ses, &L.rpdc), "record kept");
}

/* Deregistered mid-message: what was placed stays, the rest is refused
 * (the one partial visibility that cannot be avoided). */
Test(rma, dereg_during_write)
{
	struct write3 w;

	write3_start(&w, 0x33);
	cr_assert_eq(uet_ses_mr_dereg(B.ses, KEY), 0);
	cr_assert_eq(tl_xfer(&L, 1), 0);
	cr_assert_eq(L.p[1].rsp.return_code, UET_RC_BAD_MKEY);
	/* Even if the key came back, the message stays refused. */
	cr_assert_eq(tl_mr(&B, w.dst, 3 * w.pm, KEY, UET_MR_REMOTE_WRITE,
			   &mctx), 0);
	cr_assert_eq(tl_xfer(&L, 2), 0);
	cr_assert_eq(L.p[2].rsp.return_code, UET_RC_BAD_MKEY);
	cr_assert_eq(tl_comp(&A, &w.ctx)->err, UET_ERR_REMOTE);
	write3_end(&w, 0x33);
}

/* ---- Reads ---- */

Test(rma, small_read_in_ack)
{
	uint8_t src[16], dst[16] = { 0 };
	const struct uet_completion *c;
	int ctx;

	tl_fill(src, 16, 9);
	rma_whole(UET_OP_READ, dst, src, 16, &ctx);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 1);
	cr_assert_eq(tl_deliver(&L, 0), 0);
	cr_assert_eq(L.req.opcode, UET_SES_READ);
	cr_assert_eq(L.wlen, UET_SES_STD_LEN, "a read request has payload");
	cr_assert_eq(L.p[0].rsp.format, UET_NH_RSP_DATA);
	cr_assert_eq(L.p[0].rsp.opcode, UET_SES_RESPONSE_W_DATA);
	cr_assert_eq(L.p[0].rsp.modified_length, 16);
	cr_assert(L.p[0].gtd);
	cr_assert_eq(L.p[0].reply.data_len, 16);
	cr_assert_eq(B.wakes_pdc, 0, "small read used the return direction");
	cr_assert_null(tl_comp(&A, &ctx));
	tl_ack(&L, 0);
	c = tl_comp(&A, &ctx);
	cr_assert_not_null(c);
	cr_assert_eq(c->err, 0);
	cr_assert_eq(c->flags, UET_CF_READ);
	cr_assert_arr_eq(dst, src, 16);
	cr_assert_eq(remote_count(UET_CF_READ), 1);
}

/* An ACK that lost the data (no response with data) fails the read. */
Test(rma, small_read_ack_without_data)
{
	uint8_t src[8] = { 1 }, dst[8];
	int ctx;

	rma_whole(UET_OP_READ, dst, src, 8, &ctx);
	cr_assert_eq(tl_pull(&L, 1), 1);
	L.p[0].acked = true;
	uet_ses_tx_acked(A.ses, &L.tpdc, &L.p[0].pkt, NULL, 0);
	cr_assert_eq(tl_comp(&A, &ctx)->err, UET_ERR_REMOTE);
}

/* What the initiator A asks for per READ request: the SOM request the
 * fixed UET_SES_READ_CHUNK, each later one as many of A's return packets
 * as payload_length can name (msg.c), whatever the target's mtu. */
static size_t read_chunk_of_a(void)
{
	size_t pkt = uet_fep_config_mtu_to(&A.cfg, &B.cfg.local) -
		     UET_SES_RET_HDRS_LEN;

	if (pkt > UET_SES_PAYLOAD_LIMIT)
		pkt = UET_SES_PAYLOAD_LIMIT;
	return UET_SES_PAYLOAD_LIMIT / pkt * pkt;
}

static size_t read_nreq(size_t len)
{
	size_t c = read_chunk_of_a();

	if (len <= UET_SES_READ_CHUNK)
		return 1;
	return 1 + (len - UET_SES_READ_CHUNK + c - 1) / c;
}

static size_t read_req_len(size_t len, size_t i)
{
	size_t c = read_chunk_of_a(), off;

	if (!i)
		return len < UET_SES_READ_CHUNK ? len : UET_SES_READ_CHUNK;
	off = UET_SES_READ_CHUNK + (i - 1) * c;
	return len - off < c ? len - off : c;
}

static void big_read(size_t len, bool reverse)
{
	uint8_t *src = malloc(len), *dst = calloc(1, len);
	size_t nreq = read_nreq(len), i;
	const struct uet_completion *c;
	int ctx;

	tl_fill(src, len, 11);
	rma_whole(UET_OP_READ, dst, src, len, &ctx);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), nreq);
	for (i = 0; i < nreq; i++) {
		cr_assert_eq(tl_deliver(&L, i), 0);
		cr_assert_eq(L.wlen, UET_SES_STD_LEN);
		cr_assert_eq(L.p[i].rsp.return_code, UET_RC_OK);
		cr_assert_eq(L.p[i].rsp.format, UET_NH_RSP);
		if (i)
			cr_assert_eq(L.req.payload_length,
				     read_req_len(len, i));
	}
	cr_assert_geq(B.wakes_pdc, 1);
	cr_assert(uet_ses_pdc_busy(B.ses, &L.rpdc));
	tl_ret_pull(&L, SIZE_MAX);
	{
		size_t max = uet_fep_config_mtu_to(&B.cfg, &A.cfg.local) -
			     UET_SES_RET_HDRS_LEN, sum = 0;

		/* Contiguous requests make one job: full return packets. */
		cr_assert_eq(L.rn, (len + max - 1) / max);
		for (i = 0; i < L.rn; i++)
			sum += L.rp[i].pkt.len;
		cr_assert_eq(sum, len);
	}
	for (i = 0; i < L.rn; i++) {
		size_t k = reverse ? L.rn - 1 - i : i;

		cr_assert_eq(tl_ret_deliver(&L, k), 0);
		cr_assert_eq(L.rrsp.read_request_message_id, L.req.message_id);
		cr_assert_eq(L.rrsp.modified_length, len);
	}
	/* Every byte is here, but no request was acknowledged yet. */
	cr_assert_null(tl_comp(&A, &ctx));
	cr_assert_eq(remote_count(0), 0, "served before acknowledged");
	for (i = 0; i < L.rn; i++)
		tl_ret_ack(&L, i);
	cr_assert_eq(remote_count(UET_CF_READ), 1);
	for (i = 0; i + 1 < nreq; i++)
		tl_ack(&L, i);
	cr_assert_null(tl_comp(&A, &ctx));
	tl_ack(&L, nreq - 1);
	c = tl_comp(&A, &ctx);
	cr_assert_not_null(c);
	cr_assert_eq(c->err, 0);
	cr_assert_eq(c->len, len);
	cr_assert(!memcmp(src, dst, len));
	cr_assert_not(uet_ses_pdc_busy(B.ses, &L.rpdc));
	cr_assert_not(uet_ses_pdc_busy(A.ses, &L.tpdc));
	free(src);
	free(dst);
}

Test(rma, big_read_return_direction)
{
	big_read(10 * UET_SES_READ_CHUNK + 17, false);
}

/* Later requests ask for many packets' worth: a 1 MiB read takes a
 * handful of requests per 16 KiB, not a thousand. */
Test(rma, big_read_asks_for_whole_packets)
{
	cr_assert_gt(read_chunk_of_a(), 8 * UET_SES_READ_CHUNK);
	cr_assert_eq(read_chunk_of_a() % (A.cfg.mtu - UET_SES_RET_HDRS_LEN),
		     0);
	big_read(40 * read_chunk_of_a() + 1000, false);
}

Test(rma, big_read_reverse_order)
{
	big_read(3 * UET_SES_READ_CHUNK, true);
}

Test(rma, read_of_17_bytes_uses_return_direction)
{
	big_read(UET_ACK_DATA_MAX + 1, false);
}

static void small_mtu(struct uet_fep_config *c)
{
	c->mtu = 600;
}

/* A target with a small mtu answers one request with several packets:
 * the initiator's bigger requests are safe between unlike ends. */
Test(rmacfg, read_target_small_mtu)
{
	tl_pair_open(&A, PA, &B, PB, &L, small_mtu);
	big_read(5 * read_chunk_of_a() + 3, true);
	cr_assert_gt(L.rn, 5 * (read_chunk_of_a() / 600));
}

static void host_mtu_9000(struct uet_fep_config *c)
{
	c->host_mtu = 9000;
}

/* Both ends on one host (127.0.0.1, test_loop.h): requests ask for, and
 * the target answers with, packets of host_mtu, not mtu. */
Test(rmacfg, read_between_feps_of_one_host)
{
	size_t ret = 9000 - UET_SES_RET_HDRS_LEN;

	tl_ep_open_at(&A, PA, host_mtu_9000);
	tl_ep_open_at(&B, PB, host_mtu_9000);
	tl_link_open(&L, &A, &B, 1);
	cr_assert_eq(read_chunk_of_a(), UET_SES_PAYLOAD_LIMIT / ret * ret);
	big_read(3 * read_chunk_of_a() + 5, false);
	cr_assert_eq(L.rp[0].pkt.len, ret);
}

static void refused_read(uint64_t key, uint64_t raddr, size_t len,
			 uint8_t rc)
{
	uint8_t dst[3000];
	int ctx;
	size_t n, i, start = L.n;

	A.ncomp = 0;
	cr_assert_eq(tl_rma(&A, PB, UET_OP_READ, dst, len, key, raddr,
			    UET_OPF_COMPLETION, &ctx), 0);
	n = tl_run(&L, 0);
	cr_assert_eq(n, 0);
	cr_assert_eq(tl_ret_pull(&L, SIZE_MAX), 0, "refused read sent data");
	for (i = start; i < L.n; i++) {
		cr_assert_eq(L.p[i].rsp.return_code, rc, "packet %zu", i);
		cr_assert(L.p[i].gtd);
	}
	cr_assert_eq(tl_comp(&A, &ctx)->err, UET_ERR_REMOTE);
	cr_assert_eq(tl_comp(&A, &ctx)->prov_errno, rc);
}

Test(rma, read_refusals)
{
	region_keys(UET_OP_READ);
	refused_read(KEY + 5, 0, 3000, UET_RC_BAD_MKEY);
	refused_read(KEY + 1, 0, 3000, UET_RC_PERM_VIOLATION);
	refused_read(KEY, 1001, 3000, UET_RC_BAD_ADDR);
	refused_read(KEY + 1, 0, 8, UET_RC_PERM_VIOLATION);
	cr_assert_eq(remote_count(0), 0);
	cr_assert_not(uet_ses_pdc_busy(B.ses, &L.rpdc));
}

/* modified_length other than the read's length: the read fails. */
Test(rma, read_modified_length_mismatch)
{
	uint8_t dst[2000];
	struct uet_ses_rsp r;
	uint8_t data[100] = { 0 };
	int ctx;

	cr_assert_eq(tl_rma(&A, PB, UET_OP_READ, dst, 2000, KEY, 0,
			    UET_OPF_COMPLETION, &ctx), 0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 2);
	memset(&r, 0, sizeof(r));
	r.format = UET_NH_RSP_DATA;
	r.opcode = UET_SES_RESPONSE_W_DATA;
	r.read_request_message_id = 0;
	r.payload_length = 100;
	r.modified_length = 1999;
	cr_assert_eq(uet_ses_rx_ret(A.ses, &L.tpdc, &r, data, 100, 0), 0);
	tl_ack(&L, 0);
	tl_ack(&L, 1);
	cr_assert_eq(tl_comp(&A, &ctx)->err, UET_ERR_REMOTE);
	/* Late data for it, or for nothing: taken and dropped. */
	r.modified_length = 2000;
	cr_assert_eq(uet_ses_rx_ret(A.ses, &L.tpdc, &r, data, 100, 0), 0);
	r.payload_length = 99;
	cr_assert_eq(uet_ses_rx_ret(A.ses, &L.tpdc, &r, data, 100, 0), 0);
}

/* Deregistered while its data is being returned: the memory is not read
 * again, the rest comes as zeros with RC_BAD_MKEY and the read fails. */
Test(rma, dereg_during_read_return)
{
	struct rd r;
	size_t i;

	rd_requested(&r, 4, 0x44);
	tl_ret_pull(&L, SIZE_MAX);
	cr_assert_eq(tl_ret_deliver(&L, 0), 0);
	tl_ret_ack(&L, 0);
	cr_assert_eq(uet_ses_mr_dereg(B.ses, KEY), 0);
	free(r.src);		/* the user may free it now */
	for (i = 1; i < L.rn; i++) {
		cr_assert_eq(tl_ret_deliver(&L, i), 0);
		cr_assert_eq(L.rrsp.return_code, UET_RC_BAD_MKEY);
		tl_ret_ack(&L, i);
	}
	cr_assert_eq(tl_comp(&A, &r.ctx)->err, UET_ERR_REMOTE);
	cr_assert_eq(tl_comp(&A, &r.ctx)->prov_errno, UET_RC_BAD_MKEY);
	cr_assert_eq(r.dst[0], 0x44);
	cr_assert_eq(remote_count(0), 0);
	free(r.dst);
}

/* The PDC goes away with return data queued: jobs and records are freed
 * (ASan), the initiator's read fails. */
Test(rma, pdc_closed_with_return_data_queued)
{
	struct rd r;

	rd_requested(&r, 3, 0);
	cr_assert_eq(tl_ret_pull(&L, 1), 1);
	cr_assert(uet_ses_pdc_busy(B.ses, &L.rpdc));
	cr_assert(uet_ses_pdc_busy(A.ses, &L.tpdc));
	tl_link_close(&L);
	cr_assert_eq(tl_comp(&A, &r.ctx)->err, UET_ERR_PEER);
	cr_assert_eq(uet_ses_mr_dereg(B.ses, KEY), 0);
	free(r.src);
	free(r.dst);
	tl_link_open(&L, &A, &B, 2);
}

/* UET_OPF_FENCE: the fenced read starts only when the write before it
 * completed; the completion wakes PDS for it. */
Test(rma, fence)
{
	uint8_t w[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, r[8] = { 0 }, dst[8] = { 0 };
	unsigned wakes;
	int cw, cr;

	cr_assert_eq(tl_mr(&B, dst, 8, KEY, UET_MR_REMOTE_WRITE |
			   UET_MR_REMOTE_READ, &mctx), 0);
	cr_assert_eq(tl_rma(&A, PB, UET_OP_WRITE, w, 8, KEY, 0,
			    UET_OPF_COMPLETION, &cw), 0);
	cr_assert_eq(tl_rma(&A, PB, UET_OP_READ, r, 8, KEY, 0,
			    UET_OPF_COMPLETION | UET_OPF_FENCE, &cr), 0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 1, "the fence let the read out");
	cr_assert_eq(tl_deliver(&L, 0), 0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 0);
	wakes = A.wakes;
	tl_ack(&L, 0);
	cr_assert_gt(A.wakes, wakes, "no wake once the fence cleared");
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 1);
	cr_assert_eq(tl_xfer(&L, 1), 0);
	cr_assert_arr_eq(r, w, 8);
	cr_assert_eq(tl_comp(&A, &cr)->err, 0);
}

/* The fep goes away (PDS first, SES without any PDC callback) while a
 * deregistered region still has return data queued: all freed (ASan). */
Test(rma, destroy_with_dead_region_queued)
{
	struct rd r;

	rd_requested(&r, 3, 0);
	cr_assert_eq(tl_ret_pull(&L, 1), 1);
	cr_assert_eq(uet_ses_mr_dereg(B.ses, KEY), 0);
	tl_ep_close(&B);
	free(r.src);
	tl_ep_open_at(&B, PB, NULL);
	free(L.rp);
	free(L.p);
	tl_link_open(&L, &A, &B, 2);
	free(r.dst);
}

/* The initiator flushes a write half sent: the resent packets carry IE,
 * are refused and not written; the target forgets the message once every
 * packet was seen. */
Test(rma, flushed_write_initiator_error)
{
	struct write3 w;

	write3_start(&w, 0x5C);
	uet_ses_flush(A.ses);
	cr_assert_eq(tl_comp(&A, &w.ctx)->err, UET_ERR_CANCELED);
	cr_assert_eq(tl_xfer(&L, 1), 0);
	cr_assert(L.req.flags & UET_SES_F_IE);
	cr_assert_eq(L.p[1].rsp.return_code, UET_RC_INITIATOR_ERR);
	cr_assert(uet_ses_pdc_busy(B.ses, &L.rpdc));
	cr_assert_eq(tl_xfer(&L, 2), 0);
	cr_assert_eq(L.p[2].rsp.return_code, UET_RC_INITIATOR_ERR);
	cr_assert_not(uet_ses_pdc_busy(B.ses, &L.rpdc), "record kept");
	cr_assert_eq(tl_count(&A, &w.ctx), 1);
	write3_end(&w, 0x5C);
}

/* A READ request without SOM names the bytes it asks for in
 * payload_length and carries none: a whole packet of it decodes, one with
 * a payload byte does not. */
Test(rma, read_request_decodes_as_packet)
{
	uint8_t dst[3000], pkt[256];
	struct uet_pkt p, q;
	int ctx, n;

	cr_assert_eq(tl_rma(&A, PB, UET_OP_READ, dst, 3000, KEY, 0, 0, &ctx),
		     0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 2);
	cr_assert_eq(tl_deliver(&L, 1), 0);
	cr_assert_eq(L.req.payload_length, 3000 - UET_SES_READ_CHUNK);
	memset(&p, 0, sizeof(p));
	p.pds.type = UET_PDS_RUD_REQ;
	p.pds.next_hdr = UET_NH_REQ_STD;
	p.pds.req.psn = 100;
	p.pds.req.spdcid = 1;
	p.pds.req.dpdcid = 2;
	p.has_req = true;
	p.req = L.req;
	n = uet_pkt_encode(pkt, sizeof(pkt), &p);
	cr_assert_gt(n, 0);
	cr_assert_eq(uet_pkt_decode(&q, pkt, (size_t)n, 0), n);
	cr_assert_eq(q.req.payload_length, 3000 - UET_SES_READ_CHUNK);
	pkt[n] = 0;
	cr_assert_eq(uet_pkt_decode(&q, pkt, (size_t)n + 1, 0),
		     UET_ERR_WIRE_LENGTH);
}

/* A read flushed while its data is on the way: completes CANCELED at
 * once (its requests were acknowledged), and the data that still comes
 * is taken but never written to the user's buffer. */
Test(rma, flushed_read_drops_late_data)
{
	struct uet_ses_stats st;
	struct rd r;
	size_t i;

	rd_requested(&r, 2, 0x6B);
	cr_assert_null(tl_comp(&A, &r.ctx));
	uet_ses_flush(A.ses);
	cr_assert_eq(tl_comp(&A, &r.ctx)->err, UET_ERR_CANCELED);
	cr_assert_not(uet_ses_pdc_busy(A.ses, &L.tpdc));
	cr_assert_eq(tl_ret_run(&L), 0);
	for (i = 0; i < r.len; i++)
		cr_assert_eq(r.dst[i], 0, "byte %zu written after flush", i);
	uet_ses_stats(A.ses, &st);
	cr_assert_eq(st.ret_stale, L.rn);
	cr_assert_eq(tl_count(&A, &r.ctx), 1);
	free(r.src);
	free(r.dst);
}
