/* Direct placement (docs/choices.md §2.9) through the whole engine: the
 * harness receives as the provider does over UDP (uet/fixtures/harness.h,
 * place): a plan before each receive, payloads written where it says
 * whatever they turn out to be, every placed packet checked, a batch
 * that fails put back together. Whatever the link does, every message
 * arrives whole; plans are made and used; a wrong guess costs a copy. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "uet/fep.h"
#include "uet/mem.h"

#include "../fixtures/harness.h"
#include "../fixtures/test_op.h"

#define P_MSGS		24
#define P_MAXC		256

static struct {
	struct uet_harness h;
	struct uet_completion c[2][P_MAXC];
	size_t n[2];
} P;

static void p_complete(struct uet_harness *h, unsigned node,
		       const struct uet_completion *c)
{
	(void)h;
	cr_assert_lt(P.n[node], P_MAXC);
	P.c[node][P.n[node]++] = *c;
}

/* Two feps; trace: with a trace callback (which needs packets whole). */
static void p_start(const struct uet_mem_config *mc, bool trace)
{
	struct uet_fep_config cfg[2];
	unsigned i;

	memset(&P, 0, sizeof(P));
	for (i = 0; i < 2; i++) {
		uet_harness_test_cfg(&cfg[i], i);
		cfg[i].max_retx = 20;
	}
	cr_assert_eq(trace ? uet_harness_init_each(&P.h, 2, cfg, mc, 3) :
			     uet_harness_init_sg(&P.h, 2, cfg, mc, 3), 0);
	P.h.on_complete = p_complete;
	P.h.place = true;
}

static void p_stop(void)
{
	uet_harness_fini(&P.h);
}

static size_t p_want[2];

static bool p_done(struct uet_harness *h, void *arg)
{
	(void)h;
	(void)arg;
	return P.n[0] >= p_want[0] && P.n[1] >= p_want[1];
}

static void p_run(size_t n0, size_t n1)
{
	p_want[0] = n0;
	p_want[1] = n1;
	cr_assert(uet_harness_run(&P.h, p_done, NULL, P.h.now + 60 * UET_SEC),
		  "completions %zu/%zu of %zu/%zu", P.n[0], P.n[1], n0, n1);
	for (unsigned d = 0; d < 2; d++)
		for (size_t i = 0; i < P.n[d]; i++)
			cr_assert_eq(P.c[d][i].err, 0, "node %u: err %d", d,
				     P.c[d][i].err);
}

static void p_post(unsigned node, uint8_t type, void *buf, size_t len,
		   uint64_t key, void *ctx)
{
	struct uet_iov iov = { buf, len };
	struct uet_addr to = uet_harness_addr(1 - node);
	struct uet_op op = { .rkey = key };

	test_op_init(&op, type, UET_OPF_COMPLETION, ctx, &to, &iov);
	cr_assert_eq(uet_fep_post(P.h.node[node].fep, &op, P.h.now), 0);
}

static const struct uet_completion *p_find(unsigned node, const void *ctx)
{
	for (size_t i = 0; i < P.n[node]; i++)
		if (P.c[node][i].context == ctx)
			return &P.c[node][i];
	return NULL;
}

static uint8_t p_byte(unsigned msg, size_t i)
{
	return (uint8_t)(msg * 37u + i * 11u + (i >> 10));
}

TestSuite(place, .fini = p_stop, .timeout = 120);

/* Sends of 1 to ~96 KB node 0 -> node 1 into receives of 100 KB. */
static void p_sends(void)
{
	static uint8_t src[P_MSGS][100000], dst[P_MSGS][100000];
	static int cs[P_MSGS], cr[P_MSGS];
	unsigned k;
	size_t i;

	for (k = 0; k < P_MSGS; k++) {
		size_t len = 1 + (k * 40009u) % 96000;

		for (i = 0; i < len; i++)
			src[k][i] = p_byte(k, i);
		memset(dst[k], 0xEE, sizeof(dst[k]));
		p_post(1, UET_OP_RECV, dst[k], sizeof(dst[k]), 0, &cr[k]);
		p_post(0, UET_OP_SEND, src[k], len, 0, &cs[k]);
	}
	p_run(P_MSGS, P_MSGS);
	for (k = 0; k < P_MSGS; k++) {
		size_t len = 1 + (k * 40009u) % 96000;
		const struct uet_completion *c = p_find(1, &cr[k]);

		cr_assert_not_null(c);
		cr_assert_eq(c->len, len);
		cr_assert(!memcmp(src[k], dst[k], len), "message %u", k);
		for (i = len; i < sizeof(dst[k]); i++)
			cr_assert_eq(dst[k][i], 0xEE,
				     "message %u: byte %zu past its end", k, i);
	}
}

Test(place, sends_land_in_their_receives)
{
	p_start(NULL, false);
	p_sends();
	/* ~800 packets; a message's first ones come before any plan */
	cr_assert_gt(P.h.placed, 400, "placed %llu",
		     (unsigned long long)P.h.placed);
	cr_assert_eq(P.h.misplaced, 0);
}

/* Loss, duplicates, reordering, trims and marks: guesses go wrong, their
 * bytes land where a message has yet to write, and nothing shows. */
Test(place, a_bad_link_costs_copies_not_data)
{
	struct uet_mem_config mc = {
		.seed = 7,
		.pool = 8192,
		.impair = { .drop_ppm = 20000, .dup_ppm = 20000,
			    .reorder_ppm = 50000, .trim_ppm = 10000,
			    .mark_ppm = 20000, .delay = 20 * UET_USEC,
			    .jitter = 5 * UET_USEC },
	};

	p_start(&mc, false);
	p_sends();
	cr_log_info("placed %llu, misfit %llu, misplaced %llu",
		    (unsigned long long)P.h.placed,
		    (unsigned long long)P.h.misfit,
		    (unsigned long long)P.h.misplaced);
	cr_assert_gt(P.h.placed, 100);
	cr_assert_gt(P.h.misfit, 0, "no datagram missed its plan");
	cr_assert_gt(P.h.misplaced, 0, "no placed packet failed its check");
}

/* Read data lands in the reader's buffer. */
Test(place, reads_land_in_their_buffers)
{
	size_t len = 1u << 20;
	uint8_t *src = malloc(len), *dst = calloc(1, len);
	struct uet_mr_attr mr = { .base = src, .len = len, .key = 0x77,
				  .access = UET_MR_REMOTE_READ };
	size_t i;
	int ctx;

	for (i = 0; i < len; i++)
		src[i] = p_byte(5, i);
	p_start(NULL, false);
	cr_assert_eq(uet_fep_mr_reg(P.h.node[1].fep, &mr), 0);
	p_post(0, UET_OP_READ, dst, len, 0x77, &ctx);
	p_run(1, 0);
	cr_assert(!memcmp(src, dst, len));
	cr_assert_gt(P.h.placed, 100);
	free(src);
	free(dst);
}

/* A region an RMA write goes to is the application's to read at any
 * time: never a guess's. */
Test(place, rma_writes_are_not_placed)
{
	size_t len = 1u << 18;
	uint8_t *src = malloc(len), *dst = calloc(1, len);
	struct uet_mr_attr mr = { .base = dst, .len = len, .key = 0x78,
				  .access = UET_MR_REMOTE_WRITE };
	size_t i;
	int ctx;

	for (i = 0; i < len; i++)
		src[i] = p_byte(6, i);
	p_start(NULL, false);
	cr_assert_eq(uet_fep_mr_reg(P.h.node[1].fep, &mr), 0);
	p_post(0, UET_OP_WRITE, src, len, 0x78, &ctx);
	p_run(1, 0);
	cr_assert(!memcmp(src, dst, len));
	cr_assert_eq(P.h.placed + P.h.misfit + P.h.misplaced, 0);
	free(src);
	free(dst);
}

/* A fep with a trace callback wants every packet whole: no plan. */
Test(place, none_with_a_trace_callback)
{
	p_start(NULL, true);
	P.h.on_trace = NULL;
	p_sends();
	cr_assert_eq(P.h.placed + P.h.misfit + P.h.misplaced, 0);
}
