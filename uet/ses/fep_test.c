/* SES inside the whole engine: two feps over the mem port (the PDS
 * harness), messages through real PDCs with loss, duplication and
 * reordering; FI_ORDER_SAS and the unexpected budget end to end. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "uet/fep.h"
#include "uet/mem.h"
#include "uet/wire.h"

#include "../fixtures/harness.h"
#include "ses.h"
#include "../fixtures/test_op.h"

#define MAXC 64

struct rec {
	struct uet_completion c[2][MAXC];
	size_t n[2];
};

static struct uet_harness H;
static struct rec R;
static unsigned window;		/* 0: the default */

static void on_complete(struct uet_harness *h, unsigned node,
			const struct uet_completion *c)
{
	(void)h;
	cr_assert_lt(R.n[node], MAXC);
	R.c[node][R.n[node]++] = *c;
}

/* Node i's defaults, with the ids of the addressing rule of ses.h. */
static void node_cfg(struct uet_fep_config *cfg, unsigned i)
{
	struct uet_addr a = uet_harness_addr(i);

	uet_fep_config_default(cfg);
	cfg->job_id = 0xABCDE;
	cfg->pid_on_fep = uet_addr_pid(&a);
	cfg->resource_index = uet_addr_ri(&a);
}

static void start_cfgs(const struct uet_fep_config cfg[2], unsigned seed)
{
	memset(&R, 0, sizeof(R));
	cr_assert_eq(uet_harness_init_each(&H, 2, cfg, NULL, seed), 0);
	H.on_complete = on_complete;
}

/* Two nodes of node_cfg with this budget; imp on the link into node 1. */
static void start(size_t unexp_max, const struct uet_mem_impair *imp)
{
	struct uet_fep_config cfg[2];
	unsigned i;

	for (i = 0; i < 2; i++) {
		node_cfg(&cfg[i], i);
		cfg[i].unexp_max = unexp_max;
		if (window)
			cfg[i].window = window;
	}
	start_cfgs(cfg, 7);
	if (imp)
		cr_assert_eq(uet_mem_port_set_impair(H.node[1].port, imp), 0);
}

static void stop(void)
{
	uet_harness_fini(&H);
}

/* Post op (its type's own fields set) of node's on the one buffer buf,
 * to the other node, with a completion. */
static int post_op(unsigned node, struct uet_op *op, uint8_t type,
		   void *buf, size_t len, uint32_t flags, void *ctx)
{
	struct uet_iov iov = { buf, len };
	struct uet_addr peer = uet_harness_addr(1 - node);

	test_op_init(op, type, flags | UET_OPF_COMPLETION, ctx, &peer, &iov);
	return uet_fep_post(H.node[node].fep, op, H.now);
}

static int post(unsigned node, uint8_t type, void *buf, size_t len,
		uint64_t tag, uint64_t ignore, uint32_t flags, void *ctx)
{
	struct uet_op op = { .tag = tag, .ignore = ignore,
			     .cq_data = tag * 3 };

	return post_op(node, &op, type, buf, len, flags, ctx);
}

struct want {
	size_t n0, n1;
};

static bool have_all(struct uet_harness *h, void *arg)
{
	const struct want *w = arg;

	(void)h;
	return R.n[0] >= w->n0 && R.n[1] >= w->n1;
}

static const struct uet_completion *find(unsigned node, const void *ctx)
{
	size_t i;

	for (i = 0; i < R.n[node]; i++)
		if (R.c[node][i].context == ctx)
			return &R.c[node][i];
	return NULL;
}

/* len bytes of a pattern of its own for each seed. */
static uint8_t *pattern(size_t len, unsigned seed)
{
	uint8_t *p = malloc(len);
	size_t i;

	cr_assert_not_null(p);
	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * seed + (i >> 11));
	return p;
}

TestSuite(fep, .fini = stop, .timeout = 60);

Test(fep, big_tagged_message)
{
	size_t len = 3u << 20;
	uint8_t *src = pattern(len, 7), *dst = calloc(1, len);
	struct want w = { 1, 1 };
	int cs, cr;

	start(4u << 20, NULL);
	cr_assert_eq(post(1, UET_OP_TRECV, dst, len, 77, 0, 0, &cr), 0);
	cr_assert_eq(post(0, UET_OP_TSEND, src, len, 77, 0, UET_OPF_CQ_DATA,
			  &cs), 0);
	cr_assert(uet_harness_run(&H, have_all, &w, H.now + 30 * UET_SEC));
	cr_assert_eq(find(0, &cs)->err, 0);
	cr_assert_eq(find(1, &cr)->err, 0);
	cr_assert_eq(find(1, &cr)->len, len);
	cr_assert_eq(find(1, &cr)->data, 77 * 3);
	cr_assert(find(1, &cr)->flags & UET_CF_CQ_DATA);
	cr_assert(uet_addr_equal(&find(1, &cr)->src, &H.node[0].addr));
	cr_assert(!memcmp(src, dst, len));
	free(src);
	free(dst);
}

/* The whole engine under each congestion control: full packets fit
 * whatever request header the algorithm needs (RCCC's *_CC_REQ is 4
 * bytes longer), over a lossy link. */
static void message_under(uint8_t cca)
{
	struct uet_mem_impair imp = { .delay = 10 * UET_USEC,
				      .drop_ppm = 20000 };
	struct uet_fep_config cfg[2];
	size_t len = 2u << 20;
	uint8_t *src = pattern(len, 11), *dst = calloc(1, len);
	struct want w = { 1, 1 };
	int cs, cr;

	for (unsigned i = 0; i < 2; i++) {
		node_cfg(&cfg[i], i);
		cfg[i].cca = cca;
		cfg[i].link_bps = 10000000000ull;
		cfg[i].base_rtt = 40 * UET_USEC;
	}
	start_cfgs(cfg, 9);
	cr_assert_eq(uet_mem_port_set_impair(H.node[1].port, &imp), 0);
	cr_assert_eq(uet_mem_port_set_impair(H.node[0].port, &imp), 0);
	cr_assert_eq(post(1, UET_OP_RECV, dst, len, 0, 0, 0, &cr), 0);
	cr_assert_eq(post(0, UET_OP_SEND, src, len, 0, 0, 0, &cs), 0);
	cr_assert(uet_harness_run(&H, have_all, &w, H.now + 30 * UET_SEC));
	cr_assert_eq(find(0, &cs)->err, 0, "cca %u: err %d", cca,
		     find(0, &cs)->err);
	cr_assert_eq(find(1, &cr)->len, len);
	cr_assert(!memcmp(src, dst, len));
	free(src);
	free(dst);
}

Test(fep, message_under_nscc)
{
	message_under(UET_CCA_NSCC);
}

Test(fep, message_under_rccc)
{
	message_under(UET_CCA_RCCC);
}

Test(fep, message_under_nscc_rccc)
{
	message_under(UET_CCA_NSCC_RCCC);
}

/* A message without payload still needs a packet's credit under RCCC.
 * Queued behind others, it must be counted in the credit they ask for:
 * the grants cover the data asked for and no more, so a message that
 * added no bytes to the backlog found less than a packet of credit left
 * and never asked (an MPI barrier after a transfer hung). Sends of
 * 1 MiB, 1000 B (into a 100-byte receive) and none, posted at once. */
static void empty_after(uint8_t cca)
{
	static const size_t sizes[] = { 1u << 20, 1000, 0, 0, 1u << 16, 0 };
	struct uet_fep_config cfg[2];
	size_t len = 1u << 20, i;
	uint8_t *src = pattern(len, 5), *dst = calloc(6, len);
	struct want w = { 6, 6 };
	int ctx[2][6];

	for (i = 0; i < 2; i++) {
		node_cfg(&cfg[i], (unsigned)i);
		cfg[i].cca = cca;
		cfg[i].link_bps = 10000000000ull;
		cfg[i].base_rtt = 40 * UET_USEC;
	}
	start_cfgs(cfg, 3);
	for (i = 0; i < 6; i++)
		cr_assert_eq(post(1, UET_OP_RECV, dst + i * len,
				  sizes[i] == 1000 ? 100 : len, 0, 0, 0,
				  &ctx[1][i]), 0);
	for (i = 0; i < 6; i++)
		cr_assert_eq(post(0, UET_OP_SEND, src, sizes[i], 0, 0, 0,
				  &ctx[0][i]), 0);
	cr_assert(uet_harness_run(&H, have_all, &w, H.now + UET_SEC),
		  "cca %u: %zu of 6 sends, %zu of 6 receives done", cca,
		  R.n[0], R.n[1]);
	for (i = 0; i < 6; i++) {
		cr_assert_eq(find(0, &ctx[0][i])->err, 0);
		cr_assert_eq(find(1, &ctx[1][i])->err,
			     sizes[i] == 1000 ? UET_ERR_TRUNC : 0);
		cr_assert_eq(find(1, &ctx[1][i])->len,
			     sizes[i] == 1000 ? 100 : sizes[i]);
	}
	cr_assert(!memcmp(src, dst, len));
	cr_assert(!memcmp(src, dst + 4 * len, 1u << 16));
	free(src);
	free(dst);
}

Test(fep, empty_message_under_rccc)
{
	empty_after(UET_CCA_RCCC);
}

Test(fep, empty_message_under_nscc_rccc)
{
	empty_after(UET_CCA_NSCC_RCCC);
}

/* Eight messages of mixed sizes over a lossy, duplicating, reordering
 * link; half arrive before their receives. Wildcard receives must get them
 * in send order (FI_ORDER_SAS). */
Test(fep, sas_over_impaired_link)
{
	static const size_t sizes[8] = { 0, 1, 1395, 1396, 1397, 70000,
					 300000, 5 };
	struct uet_mem_impair imp;
	struct want w = { 8, 8 };
	uint8_t *src[8], *dst[8];
	int cs[8], cr[8];
	size_t i;

	memset(&imp, 0, sizeof(imp));
	imp.drop_ppm = 20000;
	imp.dup_ppm = 20000;
	imp.reorder_ppm = 200000;
	imp.delay = 5 * UET_USEC;
	start(4u << 20, &imp);
	for (i = 0; i < 8; i++) {
		src[i] = malloc(sizes[i] + 1);
		dst[i] = calloc(1, 300000);
		memset(src[i], (int)i + 1, sizes[i] + 1);
	}
	for (i = 0; i < 4; i++)
		cr_assert_eq(post(1, UET_OP_TRECV, dst[i], 300000, 0, ~0ull, 0,
				  &cr[i]), 0);
	for (i = 0; i < 8; i++)
		cr_assert_eq(post(0, UET_OP_TSEND, src[i], sizes[i], i, 0, 0,
				  &cs[i]), 0);
	uet_harness_run(&H, NULL, NULL, H.now + 2 * UET_MSEC);
	for (i = 4; i < 8; i++)
		cr_assert_eq(post(1, UET_OP_TRECV, dst[i], 300000, 0, ~0ull, 0,
				  &cr[i]), 0);
	cr_assert(uet_harness_run(&H, have_all, &w, H.now + 30 * UET_SEC),
		  "completions: %zu / %zu", R.n[0], R.n[1]);
	{
		struct uet_mem_stats ms;

		uet_mem_net_stats(H.net, &ms);
		cr_assert_gt(ms.dropped, 0);
		cr_assert_gt(ms.duplicated, 0);
		cr_assert_gt(ms.reordered, 0);
	}
	for (i = 0; i < 8; i++) {
		const struct uet_completion *c = find(1, &cr[i]);

		cr_assert_eq(find(0, &cs[i])->err, 0, "send %zu", i);
		cr_assert_eq(c->err, 0);
		cr_assert_eq(c->tag, i, "receive %zu got message %lu", i,
			     (unsigned long)c->tag);
		cr_assert_eq(c->len, sizes[i]);
		cr_assert(!memcmp(dst[i], src[i], sizes[i]));
		free(src[i]);
		free(dst[i]);
	}
}

/* A 64 KiB budget and six 20 KB messages before any receive: the target
 * NACKs what it cannot buffer, PDS retries, every message arrives. */
Test(fep, unexpected_budget_end_to_end)
{
	enum { N = 6, LEN = 20000 };
	struct want w = { N, N };
	uint8_t *src[N], *dst[N];
	int cs[N], cr[N];
	size_t i;

	start(64u << 10, NULL);
	for (i = 0; i < N; i++) {
		src[i] = malloc(LEN);
		dst[i] = calloc(1, LEN);
		memset(src[i], (int)i + 0x40, LEN);
		cr_assert_eq(post(0, UET_OP_SEND, src[i], LEN, 0, 0, 0,
				  &cs[i]), 0);
	}
	uet_harness_run(&H, NULL, NULL, H.now + 20 * UET_MSEC);
	cr_assert_eq(R.n[1], 0);
	for (i = 0; i < N; i++)
		cr_assert_eq(post(1, UET_OP_RECV, dst[i], LEN, 0, 0, 0,
				  &cr[i]), 0);
	cr_assert(uet_harness_run(&H, have_all, &w, H.now + 30 * UET_SEC),
		  "completions: %zu / %zu", R.n[0], R.n[1]);
	{
		struct uet_fep_stats st;

		uet_fep_stats(H.node[1].fep, &st);
		cr_assert_gt(st.nacks_tx, 0, "the budget was never exceeded");
		cr_assert_geq(st.unexp_msgs, 1);
	}
	for (i = 0; i < N; i++) {
		cr_assert_eq(find(0, &cs[i])->err, 0);
		cr_assert_eq(find(1, &cr[i])->err, 0);
		cr_assert(!memcmp(dst[i], src[i], LEN), "message %zu", i);
		free(src[i]);
		free(dst[i]);
	}
}

/* MPI's ping-pong: a message above the target's budget arrives before its
 * receive is posted, and its packets are refused. Once the receive is
 * there the rest must follow within about NACK_RETX_TIME (1 ms), not an
 * RTO (rto_min, 20 ms, here the engine's default). */
Test(fep, unexpected_over_budget_resumes_after_recv)
{
	enum { LEN = 256 << 10 };
	struct want w = { 1, 1 };
	uint8_t *src = pattern(LEN, 3), *dst = calloc(1, LEN);
	struct uet_fep_stats st;
	uet_time posted;
	int cs, cr;

	cr_assert_not_null(dst);
	start(64u << 10, NULL);
	cr_assert_eq(post(0, UET_OP_SEND, src, LEN, 0, 0, 0, &cs), 0);
	uet_harness_run(&H, NULL, NULL, H.now + 200 * UET_USEC);
	uet_fep_stats(H.node[1].fep, &st);
	cr_assert_gt(st.nacks_tx, 0, "the budget was never exceeded");
	cr_assert_eq(R.n[1], 0);
	cr_assert_eq(post(1, UET_OP_RECV, dst, LEN, 0, 0, 0, &cr), 0);
	posted = H.now;
	cr_assert(uet_harness_run(&H, have_all, &w, posted + 5 * UET_MSEC),
		  "not delivered 5 ms after the receive: %zu / %zu", R.n[0],
		  R.n[1]);
	cr_assert_eq(find(0, &cs)->err, 0);
	cr_assert_eq(find(1, &cr)->err, 0);
	cr_assert(!memcmp(dst, src, LEN));
	uet_fep_stats(H.node[0].fep, &st);
	cr_assert_eq(st.retx_rto, 0);
	free(src);
	free(dst);
}

/* A peer of another job: the send fails with the SES return code. */
Test(fep, foreign_job_refused)
{
	struct uet_fep_config cfg[2];
	struct want w = { 1, 0 };
	uint8_t b[10] = { 0 }, d[10];
	int cs, cr;
	unsigned i;

	for (i = 0; i < 2; i++) {
		node_cfg(&cfg[i], i);
		cfg[i].job_id = 100 + i;
	}
	start_cfgs(cfg, 3);
	cr_assert_eq(post(1, UET_OP_RECV, d, sizeof(d), 0, 0, 0, &cr), 0);
	cr_assert_eq(post(0, UET_OP_SEND, b, sizeof(b), 0, 0, 0, &cs), 0);
	cr_assert(uet_harness_run(&H, have_all, &w, H.now + 5 * UET_SEC));
	cr_assert_eq(find(0, &cs)->err, UET_ERR_REMOTE);
	cr_assert_eq(find(0, &cs)->prov_errno, UET_RC_BAD_JOB_ID);
	cr_assert_eq(R.n[1], 0);
}

/* MPI-style: a big tag-1 message then a small tag-2 one; the receiver asks
 * for tag 2 first and only then for tag 1. SES keeps the unbuffered tag-1
 * message's place and NACKs its packets, so tag 2 is matched. (The PDS
 * window must let tag 2's packet past tag 1's NACKed ones: a tag-1
 * message of more packets than the window blocks the PDC until a receive
 * takes it, and PDS gives up after max_retx backoffs.) */
Test(fep, receive_later_tag_first)
{
	enum { BIG = 80000 };	/* > the 64 KiB budget, < 64 packets */
	uint8_t *big = malloc(BIG), *dbig = calloc(1, BIG);
	uint8_t small[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, dsmall[8];
	struct want w1 = { 0, 1 }, w2 = { 2, 2 };
	int cs1, cs2, cr1, cr2;

	memset(big, 0x5A, BIG);
	window = 64;
	cr_assert_lt(BIG / 1396 + 1, window);
	start(64u << 10, NULL);
	cr_assert_eq(post(0, UET_OP_TSEND, big, BIG, 1, 0, 0, &cs1), 0);
	cr_assert_eq(post(0, UET_OP_TSEND, small, 8, 2, 0, 0, &cs2), 0);
	cr_assert_eq(post(1, UET_OP_TRECV, dsmall, 8, 2, 0, 0, &cr2), 0);
	cr_assert(uet_harness_run(&H, have_all, &w1, H.now + 10 * UET_SEC),
		  "tag 2 stuck behind the unbuffered tag 1");
	cr_assert_eq(find(1, &cr2)->err, 0);
	cr_assert_arr_eq(dsmall, small, 8);
	cr_assert_eq(post(1, UET_OP_TRECV, dbig, BIG, 1, 0, 0, &cr1), 0);
	cr_assert(uet_harness_run(&H, have_all, &w2, H.now + 30 * UET_SEC));
	cr_assert_eq(find(1, &cr1)->err, 0);
	cr_assert_eq(find(0, &cs1)->err, 0);
	cr_assert_eq(find(0, &cs2)->err, 0);
	cr_assert(!memcmp(big, dbig, BIG));
	free(big);
	free(dbig);
}

/* ---- RMA, atomics and rendezvous through the whole engine ---- */

static int mreg(unsigned node, void *base, size_t len, uint64_t key,
		uint32_t access, void *ctx)
{
	struct uet_mr_attr a = { .base = base, .len = len, .key = key,
				 .access = access, .context = ctx };

	return uet_fep_mr_reg(H.node[node].fep, &a);
}

static int rma(unsigned node, uint8_t type, void *buf, size_t len,
	       uint64_t key, uint64_t raddr, uint32_t flags, void *ctx)
{
	struct uet_op op = { .rkey = key, .raddr = raddr, .cq_data = 0xDA7A };

	return post_op(node, &op, type, buf, len, flags, ctx);
}

static int amo(unsigned node, uint8_t type, uint8_t aop, uint8_t dt,
	       void *buf, size_t len, void *res, void *cmp, uint64_t key,
	       uint64_t raddr, void *ctx)
{
	struct uet_iov riov = { res, len }, ciov = { cmp, len };
	struct uet_op op = { .rkey = key, .raddr = raddr };

	test_op_amo(&op, aop, dt, &riov, &ciov);
	return post_op(node, &op, type, buf, len, 0, ctx);
}

static struct uet_mem_impair lossy(void)
{
	struct uet_mem_impair imp;

	memset(&imp, 0, sizeof(imp));
	imp.drop_ppm = 20000;
	imp.dup_ppm = 20000;
	imp.reorder_ppm = 100000;
	imp.delay = 5 * UET_USEC;
	return imp;
}

/* A 2 MiB write with CQ data over a lossy link (into node 1), a refused
 * one, and the target-side completion. */
Test(fep, rma_write)
{
	size_t len = 2u << 20;
	uint8_t *src = pattern(len, 13), *dst = calloc(1, len + 64);
	struct uet_mem_impair imp = lossy();
	struct uet_fep_stats st;
	struct want w = { 2, 1 };
	int cw, cb, mctx;

	start(4u << 20, &imp);
	cr_assert_eq(mreg(1, dst, len + 64, 0x55, UET_MR_REMOTE_WRITE |
			  UET_MR_VIRT_ADDR, &mctx), 0);
	cr_assert_eq(rma(0, UET_OP_WRITE, src, len, 0x55,
			 (uintptr_t)dst + 64, UET_OPF_CQ_DATA, &cw), 0);
	cr_assert_eq(rma(0, UET_OP_WRITE, src, 100, 0x56, 0, 0, &cb), 0);
	cr_assert(uet_harness_run(&H, have_all, &w, H.now + 30 * UET_SEC),
		  "completions: %zu / %zu", R.n[0], R.n[1]);
	cr_assert_eq(find(0, &cw)->err, 0);
	cr_assert_eq(find(0, &cb)->err, UET_ERR_REMOTE);
	cr_assert_eq(find(0, &cb)->prov_errno, UET_RC_BAD_MKEY);
	cr_assert(!memcmp(dst + 64, src, len));
	cr_assert_eq(find(1, &mctx)->flags,
		     UET_CF_REMOTE | UET_CF_WRITE | UET_CF_CQ_DATA);
	cr_assert_eq(find(1, &mctx)->data, 0xDA7A);
	cr_assert_eq(find(1, &mctx)->len, len);
	uet_fep_stats(H.node[1].fep, &st);
	cr_assert_eq(st.rma_rx, 1);
	cr_assert_eq(st.rma_refused, 1);
	cr_assert_eq(uet_fep_mr_dereg(H.node[1].fep, 0x55), 0);
	cr_assert_eq(uet_fep_mr_dereg(H.node[1].fep, 0x55), UET_ERR_NOENT);
	free(src);
	free(dst);
}

/* Fifty non-fetching atomics on one counter. */
Test(fep, atomic_sum)
{
	static _Alignas(8) uint64_t counter;
	struct want w = { 50, 0 };
	uint64_t one = 1;
	int ctx[50], i;

	counter = 0;
	start(4u << 20, NULL);
	cr_assert_eq(mreg(1, &counter, 8, 7, UET_MR_REMOTE_ATOMIC |
			  UET_MR_REMOTE_WRITE, NULL), 0);
	for (i = 0; i < 50; i++)
		cr_assert_eq(amo(0, UET_OP_ATOMIC, UET_AMO_SUM, UET_AMO_UINT64,
				 &one, 8, NULL, NULL, 7, 0, &ctx[i]), 0);
	cr_assert(uet_harness_run(&H, have_all, &w, H.now + 10 * UET_SEC));
	for (i = 0; i < 50; i++)
		cr_assert_eq(find(0, &ctx[i])->err, 0);
	cr_assert_eq(counter, 50);
	cr_assert_eq(uet_fep_amo_max(H.node[0].fep, UET_OP_FETCH_ATOMIC,
				     UET_AMO_SUM, UET_AMO_UINT64), 2);
}

/* ---- These need PDS to carry SES response data in ACKs (reads of up
 * to 16 bytes, fetched atomic values) and the return direction (longer
 * reads, rendezvous). ---- */

Test(fep, small_read_and_fetch_in_ack)
{
	static _Alignas(8) uint64_t word = 0x1122334455667788ull;
	uint64_t got = 0, add = 5, old = 0, cmp, swp = 99, prev = 0;
	struct want w1 = { 1, 0 }, w2 = { 2, 0 }, w3 = { 3, 0 };
	int cr, cf, cc;

	start(4u << 20, NULL);
	cr_assert_eq(mreg(1, &word, 8, 9, UET_MR_REMOTE_READ |
			  UET_MR_REMOTE_WRITE | UET_MR_REMOTE_ATOMIC, NULL),
		     0);
	cr_assert_eq(rma(0, UET_OP_READ, &got, 8, 9, 0, 0, &cr), 0);
	cr_assert(uet_harness_run(&H, have_all, &w1, H.now + 10 * UET_SEC));
	cr_assert_eq(find(0, &cr)->err, 0);
	cr_assert_eq(got, 0x1122334455667788ull);
	cr_assert_eq(amo(0, UET_OP_FETCH_ATOMIC, UET_AMO_SUM, UET_AMO_UINT64,
			 &add, 8, &old, NULL, 9, 0, &cf), 0);
	cr_assert(uet_harness_run(&H, have_all, &w2, H.now + 10 * UET_SEC));
	cr_assert_eq(find(0, &cf)->err, 0);
	cr_assert_eq(old, 0x1122334455667788ull);
	cmp = 0x1122334455667788ull + 5;
	cr_assert_eq(amo(0, UET_OP_CMP_ATOMIC, UET_AMO_CSWAP, UET_AMO_UINT64,
			 &swp, 8, &prev, &cmp, 9, 0, &cc), 0);
	cr_assert(uet_harness_run(&H, have_all, &w3, H.now + 10 * UET_SEC));
	cr_assert_eq(find(0, &cc)->err, 0);
	cr_assert_eq(prev, cmp);
	cr_assert_eq(word, 99);
}

Test(fep, big_read_over_lossy_link)
{
	size_t len = 3u << 20;
	uint8_t *src = pattern(len, 29), *dst = calloc(1, len);
	struct uet_mem_impair imp = lossy();
	struct want w = { 1, 1 };
	int cr, mctx;

	start(4u << 20, NULL);
	/* Loss both ways: the return data crosses into node 0. */
	cr_assert_eq(uet_mem_port_set_impair(H.node[0].port, &imp), 0);
	cr_assert_eq(uet_mem_port_set_impair(H.node[1].port, &imp), 0);
	cr_assert_eq(mreg(1, src, len, 0x77, UET_MR_REMOTE_READ, &mctx), 0);
	cr_assert_eq(rma(0, UET_OP_READ, dst, len, 0x77, 0, 0, &cr), 0);
	cr_assert(uet_harness_run(&H, have_all, &w, H.now + 60 * UET_SEC),
		  "completions: %zu / %zu (err %d rc %d)", R.n[0], R.n[1],
		  R.n[0] ? R.c[0][0].err : 0,
		  R.n[0] ? R.c[0][0].prov_errno : 0);
	cr_assert_eq(find(0, &cr)->err, 0, "read: err %d rc %d",
		     find(0, &cr)->err, find(0, &cr)->prov_errno);
	cr_assert_eq(find(0, &cr)->len, len);
	cr_assert(!memcmp(src, dst, len));
	cr_assert_eq(find(1, &mctx)->flags, UET_CF_REMOTE | UET_CF_READ);
	{
		struct uet_mem_stats ms;
		struct uet_fep_stats st;

		uet_mem_net_stats(H.net, &ms);
		cr_assert_gt(ms.dropped, 0);
		cr_assert_gt(ms.duplicated, 0);
		uet_fep_stats(H.node[1].fep, &st);
		cr_assert_gt(st.retx_rto + st.retx_nack + st.retx_sack +
			     st.retx_tlp, 0,
			     "no return packet was resent");
	}
	free(src);
	free(dst);
}

/* A 24 MiB tagged send by rendezvous over a lossy link both ways, the
 * receive posted late, then a truncated one. */
Test(fep, rendezvous_send)
{
	struct uet_mem_impair imp = lossy();
	struct uet_fep_config cfg[2];
	size_t len = 24u << 20, room = 1u << 20;
	uint8_t *src = pattern(len, 7), *dst = calloc(1, len);
	struct want w1 = { 0, 0 }, w2 = { 1, 1 }, w3 = { 2, 2 };
	int cs1, cr1, cs2, cr2;
	unsigned i;

	for (i = 0; i < 2; i++) {
		node_cfg(&cfg[i], i);
		cfg[i].rndv_threshold = 8192;
		cfg[i].max_msg_size = 64u << 20;
	}
	start_cfgs(cfg, 11);
	cr_assert_eq(uet_mem_port_set_impair(H.node[0].port, &imp), 0);
	cr_assert_eq(uet_mem_port_set_impair(H.node[1].port, &imp), 0);
	cr_assert_eq(post(0, UET_OP_TSEND, src, len, 4, 0, 0, &cs1), 0);
	uet_harness_run(&H, NULL, &w1, H.now + 5 * UET_MSEC);
	cr_assert_eq(post(1, UET_OP_TRECV, dst, len, 4, 0, 0, &cr1), 0);
	cr_assert(uet_harness_run(&H, have_all, &w2, H.now + 120 * UET_SEC),
		  "completions: %zu / %zu (err %d rc %d)", R.n[0], R.n[1],
		  R.n[0] ? R.c[0][0].err : 0,
		  R.n[0] ? R.c[0][0].prov_errno : 0);
	cr_assert_eq(find(0, &cs1)->err, 0);
	cr_assert_eq(find(1, &cr1)->err, 0);
	cr_assert_eq(find(1, &cr1)->len, len);
	/* The engine's own region is no region of the user's: no remote
	 * read completions for it. */
	cr_assert_eq(R.n[0], 1);
	cr_assert_eq(R.n[1], 1);
	cr_assert(!memcmp(src, dst, len));
	memset(dst, 0, room + 1);
	cr_assert_eq(post(1, UET_OP_TRECV, dst, room, 5, 0, 0, &cr2), 0);
	cr_assert_eq(post(0, UET_OP_TSEND, src, len, 5, 0, 0, &cs2), 0);
	cr_assert(uet_harness_run(&H, have_all, &w3, H.now + 60 * UET_SEC));
	cr_assert_eq(find(0, &cs2)->err, 0);
	cr_assert_eq(find(1, &cr2)->err, UET_ERR_TRUNC);
	cr_assert_eq(find(1, &cr2)->len, room);
	cr_assert(!memcmp(src, dst, room));
	cr_assert_eq(dst[room], 0);
	free(src);
	free(dst);
}

/* Reads under a congestion control, with each node's read data coming
 * back on the other's PDC, which under RCCC shares its CCC with that
 * node's own forward traffic. */
struct reads_case {
	uint8_t cca;
	unsigned n;		/* reads in a round, from each side that reads */
	size_t len;
	uint32_t mtu;
	uint64_t link_bps;
	unsigned rounds;
	bool both;		/* node 1 reads too; else it sends n messages */
};

static int reads_ctx[2][64];
static int recv_ctx[64];	/* node 0's receives when node 1 sends */
static unsigned reads_n[2];

static unsigned reads_count(unsigned node)
{
	unsigned c = 0;

	for (unsigned k = 0; k < reads_n[node]; k++)
		c += find(node, &reads_ctx[node][k]) != NULL;
	return c;
}

static bool reads_done(struct uet_harness *h, void *arg)
{
	(void)h;
	(void)arg;
	return reads_count(0) == reads_n[0] && reads_count(1) == reads_n[1];
}

static void reads_under(const struct reads_case *rc)
{
	struct uet_mem_config mc = { .mtu = UET_MEM_MTU_MAX };
	struct uet_fep_config cfg[2];
	size_t len = rc->len;
	uint8_t *reg[2], *dst[2];
	unsigned i, k, r;

	cr_assert_leq(rc->n, 64);
	for (i = 0; i < 2; i++) {
		node_cfg(&cfg[i], i);
		cfg[i].cca = rc->cca;
		cfg[i].mtu = rc->mtu;
		cfg[i].link_bps = rc->link_bps;
	}
	memset(&R, 0, sizeof(R));
	cr_assert_eq(uet_harness_init_each(&H, 2, cfg, &mc, 11), 0);
	H.on_complete = on_complete;
	for (i = 0; i < 2; i++) {
		struct uet_mem_impair link = { .delay = 5 * UET_USEC,
					       .rate = rc->link_bps / 8 };

		cr_assert_eq(uet_mem_port_set_impair(H.node[i].port, &link),
			     0);
		reg[i] = pattern(len, 40 + i);
		dst[i] = calloc(rc->n, len);
		cr_assert_eq(mreg(i, reg[i], len, 0x90 + i,
				  UET_MR_REMOTE_READ, NULL), 0);
	}
	for (r = 0; r < rc->rounds; r++) {
		memset(&R, 0, sizeof(R));
		reads_n[0] = reads_n[1] = rc->n;
		for (k = 0; k < rc->n; k++) {
			cr_assert_eq(rma(0, UET_OP_READ, dst[0] + k * len, len,
					 0x91, 0, 0, &reads_ctx[0][k]), 0);
			if (rc->both)
				cr_assert_eq(rma(1, UET_OP_READ,
						 dst[1] + k * len, len, 0x90,
						 0, 0, &reads_ctx[1][k]), 0);
			else
				cr_assert_eq(post(1, UET_OP_SEND, reg[1], len,
						  0, 0, 0, &reads_ctx[1][k]),
					     0);
		}
		if (!rc->both)
			for (k = 0; k < rc->n; k++)
				cr_assert_eq(post(0, UET_OP_RECV,
						  dst[1] + k * len, len, 0, 0,
						  0, &recv_ctx[k]), 0);
		cr_assert(uet_harness_run(&H, reads_done, NULL,
					  H.now + 10 * UET_SEC),
			  "cca %u round %u: %u / %u of %u done", rc->cca, r,
			  reads_count(0), reads_count(1), rc->n);
		for (i = 0; i < 2; i++)
			for (k = 0; k < rc->n; k++)
				cr_assert_eq(find(i, &reads_ctx[i][k])->err, 0);
		for (k = 0; !rc->both && k < rc->n; k++)
			cr_assert_eq(find(0, &recv_ctx[k])->err, 0);
		for (k = 0; k < rc->n; k++) {
			cr_assert(!memcmp(dst[0] + k * len, reg[1], len));
			cr_assert(!memcmp(dst[1] + k * len, reg[rc->both ? 0 : 1],
					  len));
		}
	}
	for (i = 0; i < 2; i++) {
		free(reg[i]);
		free(dst[i]);
	}
	stop();
}

static const uint8_t all_ccas[] = { UET_CCA_FIXED, UET_CCA_NSCC,
				    UET_CCA_RCCC, UET_CCA_NSCC_RCCC };

/* Both ends read 16 x 1 MiB from each other, twice, 9000-byte packets
 * on a 10 Gb/s link: RCCC's half a BDP of speculative credit is less
 * than a packet there, and nothing was sent at all. */
Test(fep, reads_both_ways_under_cc)
{
	for (size_t c = 0; c < sizeof(all_ccas); c++) {
		struct reads_case rc = { all_ccas[c], 16, 1u << 20, 9000,
					 10000000000ull, 2, true };

		reads_under(&rc);
	}
}

/* Node 0 reads from node 1 while node 1 sends to node 0 on a 1 Gb/s
 * link, where NSCC's window is under two packets and paced: the CCC of
 * node 1 carries both its own sends, short of credit, and the read
 * data, which needs none. */
Test(fep, reads_against_sends_under_cc)
{
	for (size_t c = 0; c < sizeof(all_ccas); c++) {
		struct reads_case rc = { all_ccas[c], 16, 64u << 10, 1452,
					 1000000000ull, 3, false };

		reads_under(&rc);
	}
}
