/* Zero-copy transmit (uet_fep_poll_tx_sg, uet_ses_tx_ext): every scenario
 * runs twice from the same seed, once copying every payload and once
 * letting the engine leave payloads where they are (the harness copies
 * them behind the headers as a port without scatter-gather would). The
 * two runs must put the same bytes on the wire, packet for packet,
 * first sends and resends alike; and the ext parts must appear exactly
 * where they may: a payload in one piece, of UET_SES_ZCOPY_MIN bytes or
 * more, of a send, a write, the inject copy or a region read back, never
 * an atomic's, a flushed message's zeros, nor with a trace callback. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "uet/fep.h"
#include "uet/mem.h"

#include "../fixtures/harness.h"
#include "../fixtures/test_op.h"
#include "ses_int.h"

/* Every packet a run sent, flattened, in order: node, length, bytes. */
struct zc_log {
	uint8_t *b;
	size_t len, cap;
	size_t pkts;
};

static struct uet_harness Z;
static struct zc_log L;
static size_t ncomp[2];
static int comp_err;

static void zc_complete(struct uet_harness *h, unsigned node,
			const struct uet_completion *c)
{
	(void)h;
	ncomp[node]++;
	if (c->err && !comp_err)
		comp_err = c->err;
}

static void zc_put(const void *p, size_t len)
{
	if (L.len + len > L.cap) {
		L.cap = (L.len + len) * 2;
		L.b = realloc(L.b, L.cap);
		cr_assert_not_null(L.b);
	}
	memcpy(L.b + L.len, p, len);
	L.len += len;
}

static bool zc_tx(struct uet_harness *h, unsigned node,
		  const struct uet_pkt_info *pi, const uint8_t *pkt, size_t len)
{
	uint32_t n = (uint32_t)len;

	(void)h;
	(void)pi;
	zc_put(&node, sizeof(node));
	zc_put(&n, sizeof(n));
	zc_put(pkt, len);
	L.pkts++;
	return true;
}

static void zc_trace(struct uet_harness *h, unsigned node, int dir,
		     const struct uet_pkt_info *pi, const uint8_t *pkt,
		     size_t len)
{
	(void)h;
	(void)node;
	(void)dir;
	(void)pi;
	(void)pkt;
	(void)len;
}

static void zc_start(bool sg, const struct uet_mem_impair *imp,
		     uet_time rto_min)
{
	struct uet_fep_config cfg[2];

	for (unsigned i = 0; i < 2; i++) {
		struct uet_addr a = uet_harness_addr(i);

		uet_fep_config_default(&cfg[i]);
		cfg[i].job_id = 0x2468;
		cfg[i].pid_on_fep = uet_addr_pid(&a);
		cfg[i].resource_index = uet_addr_ri(&a);
		cfg[i].inject_size = 2048;
		if (rto_min)
			cfg[i].rto_min = rto_min;
	}
	free(L.b);
	memset(&L, 0, sizeof(L));
	memset(ncomp, 0, sizeof(ncomp));
	comp_err = 0;
	if (sg)
		cr_assert_eq(uet_harness_init_sg(&Z, 2, cfg, NULL, 11), 0);
	else
		cr_assert_eq(uet_harness_init_each(&Z, 2, cfg, NULL, 11), 0);
	Z.on_complete = zc_complete;
	Z.on_tx = zc_tx;
	if (imp)
		cr_assert_eq(uet_mem_port_set_impair(Z.node[1].port, imp), 0);
}

static void zc_stop(void)
{
	uet_harness_fini(&Z);
	free(L.b);
	memset(&L, 0, sizeof(L));
}

static void zc_fini(void)
{
	if (Z.n)
		zc_stop();
}

TestSuite(zcopy, .fini = zc_fini, .timeout = 60);

static bool zc_done(struct uet_harness *h, void *arg)
{
	const size_t *want = arg;

	(void)h;
	return ncomp[0] >= want[0] && ncomp[1] >= want[1];
}

static void zc_run(size_t n0, size_t n1)
{
	size_t want[2] = { n0, n1 };

	cr_assert(uet_harness_run(&Z, zc_done, want, Z.now + 30 * UET_SEC),
		  "completions %zu/%zu of %zu/%zu", ncomp[0], ncomp[1], n0,
		  n1);
	cr_assert_eq(comp_err, 0, "a completion failed: %d", comp_err);
}

static int zc_post(unsigned node, uint8_t type, const struct uet_iov *iov,
		   size_t niov, uint32_t flags, struct uet_op *op)
{
	struct uet_addr peer = uet_harness_addr(1 - node);

	test_op_init(op, type, flags | UET_OPF_COMPLETION, NULL, &peer, iov);
	op->iov_count = niov;
	return uet_fep_post(Z.node[node].fep, op, Z.now);
}

static void fill(uint8_t *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * seed + (i >> 9) + 1);
}

/* What one run leaves to compare with the other. */
struct zc_out {
	struct zc_log log;
	uint64_t tx[2], ext[2];
	struct uet_iov last_ext[2];
	uint64_t retx;
};

static void zc_collect(struct zc_out *o)
{
	struct uet_fep_stats st;

	o->log = L;
	memset(&L, 0, sizeof(L));
	for (unsigned i = 0; i < 2; i++) {
		o->tx[i] = Z.node[i].tx;
		o->ext[i] = Z.node[i].tx_ext;
		o->last_ext[i] = Z.node[i].last_ext;
	}
	uet_fep_stats(Z.node[0].fep, &st);
	o->retx = st.retx_rto + st.retx_nack + st.retx_sack + st.retx_tlp;
	zc_stop();
}

/* The copying run and the zero-copy run sent the same packets. */
static void zc_same(const struct zc_out *c, const struct zc_out *z)
{
	cr_assert_eq(c->ext[0] + c->ext[1], 0, "no ext without sg");
	cr_assert_eq(c->log.pkts, z->log.pkts, "packets: %zu vs %zu",
		     c->log.pkts, z->log.pkts);
	cr_assert_eq(c->log.len, z->log.len);
	cr_assert(!memcmp(c->log.b, z->log.b, c->log.len),
		  "the wire differs between copy and zero-copy");
	free(c->log.b);
	free(z->log.b);
}

static bool within(const struct uet_iov *e, const void *base, size_t len)
{
	const uint8_t *p = e->base, *b = base;

	return p >= b && p + e->len <= b + len;
}

/* ---- sends ---- */

enum { BIG = 256 * 1024 };

/* A 256 KiB send from one buffer, over a link that drops and reorders:
 * the same bytes on the wire, first sends and resends; every full
 * packet's payload left in the user's buffer. */
static void big_send(bool sg, struct zc_out *o, uint8_t *src, uint8_t *dst)
{
	struct uet_mem_impair imp = { .drop_ppm = 30000, .dup_ppm = 10000,
				      .reorder_ppm = 50000,
				      .delay = 5 * UET_USEC };
	struct uet_iov s = { src, BIG }, r = { dst, BIG };
	struct uet_op os = { 0 }, orc = { 0 };

	memset(dst, 0, BIG);
	zc_start(sg, &imp, 0);
	cr_assert_eq(zc_post(1, UET_OP_RECV, &r, 1, 0, &orc), 0);
	cr_assert_eq(zc_post(0, UET_OP_SEND, &s, 1, 0, &os), 0);
	zc_run(1, 1);
	cr_assert(!memcmp(src, dst, BIG));
	zc_collect(o);
}

Test(zcopy, send_same_bytes_first_sends_and_resends)
{
	uint8_t *src = malloc(BIG), *dst = malloc(BIG);
	struct zc_out c, z;

	fill(src, BIG, 7);
	big_send(false, &c, src, dst);
	big_send(true, &z, src, dst);
	cr_assert_gt(z.retx, 0, "the link made no resend");
	/* Data packets: at least BIG / mtu; ACKs from node 1 carry none. */
	cr_assert_geq(z.ext[0], BIG / 4096);
	cr_assert_eq(z.ext[1], 0);
	cr_assert(within(&z.last_ext[0], src, BIG));
	zc_same(&c, &z);
	free(src);
	free(dst);
}

/* Two iov entries split inside a packet: that packet is copied, every
 * other full one is not. */
static void split_send(bool sg, size_t cut, struct zc_out *o, uint8_t *src,
		       uint8_t *dst)
{
	struct uet_iov s[2] = { { src, cut }, { src + cut, BIG - cut } };
	struct uet_iov r = { dst, BIG };
	struct uet_op os = { 0 }, orc = { 0 };

	memset(dst, 0, BIG);
	zc_start(sg, NULL, 0);
	cr_assert_eq(zc_post(1, UET_OP_RECV, &r, 1, 0, &orc), 0);
	cr_assert_eq(zc_post(0, UET_OP_SEND, s, cut < BIG ? 2 : 1, 0, &os),
		     0);
	zc_run(1, 1);
	cr_assert(!memcmp(src, dst, BIG));
	zc_collect(o);
}

Test(zcopy, payload_across_iov_entries_is_copied)
{
	uint8_t *src = malloc(BIG), *dst = malloc(BIG);
	struct zc_out whole, c, z;

	fill(src, BIG, 5);
	split_send(true, BIG, &whole, src, dst);
	split_send(false, 100000, &c, src, dst);
	split_send(true, 100000, &z, src, dst);
	cr_assert_eq(z.tx[0], whole.tx[0]);
	cr_assert_eq(z.ext[0], whole.ext[0] - 1,
		     "one packet straddles the cut: %llu vs %llu",
		     (unsigned long long)z.ext[0],
		     (unsigned long long)whole.ext[0]);
	zc_same(&c, &z);
	free(whole.log.b);
	free(src);
	free(dst);
}

/* Small payloads are copied; an inject send's payload of 512 bytes or
 * more is left in the engine's inject copy, not the user's buffer (free
 * again once the post returned). */
static void small_sends(bool sg, struct zc_out *o, uint8_t *src,
			uint8_t *dst)
{
	struct uet_iov s1 = { src, UET_SES_ZCOPY_MIN - 1 };
	struct uet_iov s2 = { src, 1200 };
	struct uet_iov r1 = { dst, 4096 }, r2 = { dst + 4096, 4096 };
	struct uet_op o1 = { 0 }, o2 = { 0 }, o3 = { 0 }, o4 = { 0 };

	zc_start(sg, NULL, 0);
	cr_assert_eq(zc_post(1, UET_OP_RECV, &r1, 1, 0, &o3), 0);
	cr_assert_eq(zc_post(1, UET_OP_RECV, &r2, 1, 0, &o4), 0);
	cr_assert_eq(zc_post(0, UET_OP_SEND, &s1, 1, 0, &o1), 0);
	zc_run(1, 1);
	cr_assert_eq(Z.node[0].tx_ext, 0, "a small payload is copied");
	cr_assert_eq(zc_post(0, UET_OP_SEND, &s2, 1, UET_OPF_INJECT, &o2),
		     0);
	/* The application reuses its buffer at once. */
	memset(src, 0xEE, 1200);
	zc_run(2, 2);
	fill(src, 1200, 3);
	cr_assert(!memcmp(dst + 4096, src, 1200), "inject data");
	if (sg) {
		cr_assert_eq(Z.node[0].tx_ext, 1);
		cr_assert(!within(&Z.node[0].last_ext, src, 4096),
			  "ext points at the user's buffer, not the copy");
		cr_assert_eq(Z.node[0].last_ext.len, 1200);
	}
	zc_collect(o);
}

Test(zcopy, small_copied_inject_from_its_copy)
{
	uint8_t src[4096], dst[8192];
	struct zc_out c, z;

	fill(src, sizeof(src), 3);
	small_sends(false, &c, src, dst);
	fill(src, sizeof(src), 3);
	small_sends(true, &z, src, dst);
	zc_same(&c, &z);
}

/* ---- RMA and atomics ---- */

/* A 128 KiB write and a 128 KiB read: the write's payload from the
 * user's buffer, the read's return data from the registered region at
 * the target. */
static void rma_run(bool sg, struct zc_out *o, uint8_t *src, uint8_t *reg,
		    uint8_t *dst)
{
	enum { LEN = 128 * 1024 };
	struct uet_mr_attr a = { .base = reg, .len = 2 * LEN, .key = 0x31,
				 .access = UET_MR_REMOTE_READ |
					   UET_MR_REMOTE_WRITE };
	struct uet_iov w = { src, LEN }, r = { dst, LEN };
	struct uet_op ow = { .rkey = 0x31, .raddr = 0 };
	struct uet_op orr = { .rkey = 0x31, .raddr = LEN };

	memset(dst, 0, LEN);
	memset(reg, 0, LEN);
	zc_start(sg, NULL, 0);
	cr_assert_eq(uet_fep_mr_reg(Z.node[1].fep, &a), 0);
	cr_assert_eq(zc_post(0, UET_OP_WRITE, &w, 1, 0, &ow), 0);
	zc_run(1, 0);
	cr_assert(!memcmp(reg, src, LEN));
	if (sg) {
		cr_assert_geq(Z.node[0].tx_ext, LEN / 4096);
		cr_assert(within(&Z.node[0].last_ext, src, LEN));
		cr_assert_eq(Z.node[1].tx_ext, 0);
	}
	cr_assert_eq(zc_post(0, UET_OP_READ, &r, 1, 0, &orr), 0);
	zc_run(2, 0);
	cr_assert(!memcmp(dst, reg + LEN, LEN));
	if (sg) {
		cr_assert_geq(Z.node[1].tx_ext, LEN / 4096,
			      "return data copied");
		cr_assert(within(&Z.node[1].last_ext, reg + LEN, LEN));
	}
	zc_collect(o);
}

Test(zcopy, write_from_buffer_read_from_region)
{
	enum { LEN = 128 * 1024 };
	uint8_t *src = malloc(LEN), *reg = malloc(2 * LEN), *dst = malloc(LEN);
	struct zc_out c, z;

	fill(src, LEN, 9);
	fill(reg + LEN, LEN, 11);
	rma_run(false, &c, src, reg, dst);
	rma_run(true, &z, src, reg, dst);
	zc_same(&c, &z);
	free(src);
	free(reg);
	free(dst);
}

/* An atomic of 512 bytes of operands (byte order converted): copied. */
static void amo_run(bool sg, struct zc_out *o, uint64_t *ops,
		    uint64_t *target)
{
	enum { N = 64 };
	struct uet_mr_attr a = { .base = target, .len = N * 8, .key = 0x41,
				 .access = UET_MR_REMOTE_ATOMIC |
					   UET_MR_REMOTE_WRITE };
	struct uet_iov v = { ops, N * 8 }, none = { NULL, 0 };
	struct uet_op op = { .rkey = 0x41 };

	memset(target, 0, N * 8);
	zc_start(sg, NULL, 0);
	cr_assert_geq(uet_fep_amo_max(Z.node[0].fep, UET_OP_ATOMIC,
				      UET_AMO_SUM, UET_AMO_UINT64), N);
	cr_assert_eq(uet_fep_mr_reg(Z.node[1].fep, &a), 0);
	test_op_amo(&op, UET_AMO_SUM, UET_AMO_UINT64, &none, &none);
	cr_assert_eq(zc_post(0, UET_OP_ATOMIC, &v, 1, 0, &op), 0);
	zc_run(1, 0);
	for (unsigned i = 0; i < N; i++)
		cr_assert_eq(target[i], ops[i]);
	cr_assert_eq(Z.node[0].tx_ext, 0, "an atomic's operands are copied");
	zc_collect(o);
}

Test(zcopy, atomics_copied)
{
	static uint64_t ops[64], target[64];
	struct zc_out c, z;

	for (unsigned i = 0; i < 64; i++)
		ops[i] = 0x0102030405060708ull * (i + 1);
	amo_run(false, &c, ops, target);
	amo_run(true, &z, ops, target);
	zc_same(&c, &z);
}

/* ---- when the bytes must be in buf ---- */

/* A message flushed while its packets are lost: its resends carry zeros
 * (docs/choices.md §5.6), written into buf, never read from the buffer
 * the application got back. */
static void flushed_run(bool sg, struct zc_out *o, uint8_t *src)
{
	enum { LEN = 64 * 1024 };
	struct uet_mem_impair all = { .drop_mask = ~0ull }, none = { 0 };
	struct uet_iov s = { src, LEN };
	struct uet_op os = { 0 };
	uint64_t ext_before;

	zc_start(sg, &all, 2 * UET_MSEC);
	cr_assert_eq(zc_post(0, UET_OP_SEND, &s, 1, 0, &os), 0);
	uet_harness_flush(&Z);
	if (sg)
		cr_assert_gt(Z.node[0].tx_ext, 0);
	uet_fep_flush(Z.node[0].fep);
	cr_assert_eq(ncomp[0], 1, "flushed");
	comp_err = 0;
	ext_before = Z.node[0].tx_ext;
	cr_assert_eq(uet_mem_port_set_impair(Z.node[1].port, &none), 0);
	memset(src, 0xAB, LEN);		/* the buffer is the user's again */
	/* The target refuses the message ended in error; the run only has
	 * to resend. */
	(void)uet_harness_run(&Z, NULL, NULL, Z.now + 2 * UET_SEC);
	cr_assert_eq(Z.node[0].tx_ext, ext_before,
		     "a flushed message's resend read its buffer");
	zc_collect(o);
	cr_assert_gt(o->retx, 0);
}

Test(zcopy, flushed_message_resends_zeros_from_buf)
{
	static uint8_t src[64 * 1024];
	struct zc_out c, z;

	fill(src, sizeof(src), 13);
	flushed_run(false, &c, src);
	fill(src, sizeof(src), 13);
	flushed_run(true, &z, src);
	zc_same(&c, &z);
}

/* A trace callback sees whole packets: nothing is left out. */
Test(zcopy, trace_callback_gets_whole_packets)
{
	uint8_t *src = malloc(BIG), *dst = malloc(BIG);
	struct uet_iov s = { src, BIG }, r = { dst, BIG };
	struct uet_op os = { 0 }, orc = { 0 };

	fill(src, BIG, 17);
	zc_start(false, NULL, 0);
	Z.sg = true;			/* and the harness's trace is set */
	Z.on_trace = zc_trace;
	cr_assert_eq(zc_post(1, UET_OP_RECV, &r, 1, 0, &orc), 0);
	cr_assert_eq(zc_post(0, UET_OP_SEND, &s, 1, 0, &os), 0);
	zc_run(1, 1);
	cr_assert(!memcmp(src, dst, BIG));
	cr_assert_gt(Z.node[0].tx, BIG / 4096);
	cr_assert_eq(Z.node[0].tx_ext, 0);
	zc_stop();
	free(src);
	free(dst);
}
