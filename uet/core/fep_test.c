/* The whole engine, end to end: two (or four) feps with the real SES over
 * the mem port, messages posted with uet_fep_post, under impairments.
 * SES-specific behaviour (matching, SAS, unexpected budget) is tested in
 * uet/ses/fep_test.c; here: what the front door and PDS promise about
 * whole messages (integrity under loss, ROD, dead peers, PDC churn, the
 * pool limit, trace and counters). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "uet/fep.h"
#include "uet/mem.h"
#include "uet/wire.h"

#include "../fixtures/harness.h"
#include "../ses/ses.h"
#include "../fixtures/test_op.h"

#define NODES		4
#define MAXC		2048

struct comp {
	struct uet_completion c;
	uet_time at;
};

static struct {
	struct uet_harness h;
	struct comp c[NODES][MAXC];
	size_t n[NODES];
	uint64_t traced[NODES][2];
	uint64_t trace_bad;
	uint64_t rod_reqs, rud_reqs;	/* sent, by PDS type */
	uint64_t rx_sprayed, rx_home;	/* received requests, by source */
} E;

static void on_complete(struct uet_harness *h, unsigned node,
			const struct uet_completion *c)
{
	cr_assert_lt(E.n[node], MAXC);
	E.c[node][E.n[node]].c = *c;
	E.c[node][E.n[node]++].at = h->now;
}

static void on_trace(struct uet_harness *h, unsigned node, int dir,
		     const struct uet_pkt_info *pi, const uint8_t *pkt,
		     size_t len)
{
	struct uet_pkt p;

	(void)h;
	E.traced[node][dir]++;
	/* Everything sent must decode; what arrives may be cut (trim). */
	if (dir != 1) {
		struct uet_addr home = uet_harness_addr(node ? 0 : 1);

		if (uet_pkt_decode(&p, pkt, len, 0) >= 0 &&
		    p.pds.type == UET_PDS_RUD_REQ) {
			if (uet_addr_equal(&pi->src, &home))
				E.rx_home++;
			else
				E.rx_sprayed++;
		}
		return;
	}
	if (uet_pkt_decode(&p, pkt, len, 0) < 0)
		E.trace_bad++;
	else if (p.pds.type == UET_PDS_ROD_REQ)
		E.rod_reqs++;
	else if (p.pds.type == UET_PDS_RUD_REQ)
		E.rud_reqs++;
}

/* n feps following the addressing rule of ses.h; tweak adjusts configs. */
static void start(unsigned n, void (*tweak)(struct uet_fep_config *c,
					    unsigned i),
		  const struct uet_mem_config *mc)
{
	struct uet_fep_config cfg[NODES];
	unsigned i;

	memset(&E, 0, sizeof(E));
	for (i = 0; i < n; i++) {
		uet_harness_test_cfg(&cfg[i], i);
		if (tweak)
			tweak(&cfg[i], i);
	}
	cr_assert_eq(uet_harness_init_each(&E.h, n, cfg, mc, 11), 0);
	E.h.on_complete = on_complete;
	E.h.on_trace = on_trace;
}

static void stop(void)
{
	uet_harness_fini(&E.h);
}

static void post(unsigned node, unsigned peer, uint8_t type, void *buf,
		 size_t len, uint64_t tag, void *ctx)
{
	struct uet_iov iov = { buf, len };
	struct uet_addr to = uet_harness_addr(peer);
	struct uet_op op = { .tag = tag };

	test_op_init(&op, type, UET_OPF_COMPLETION, ctx, &to, &iov);
	cr_assert_eq(uet_fep_post(E.h.node[node].fep, &op, E.h.now), 0);
}

static const struct comp *find(unsigned node, const void *ctx)
{
	size_t i;

	for (i = 0; i < E.n[node]; i++)
		if (E.c[node][i].c.context == ctx)
			return &E.c[node][i];
	return NULL;
}

static size_t want[NODES];

static bool have_all(struct uet_harness *h, void *arg)
{
	unsigned i;

	(void)arg;
	for (i = 0; i < h->n; i++)
		if (E.n[i] < want[i])
			return false;
	return true;
}

static void run_until(size_t n0, size_t n1, uet_time limit)
{
	memset(want, 0, sizeof(want));
	want[0] = n0;
	want[1] = n1;
	cr_assert(uet_harness_run(&E.h, have_all, NULL, E.h.now + limit),
		  "completions %zu/%zu of %zu/%zu", E.n[0], E.n[1], n0, n1);
	cr_assert_not(E.h.stuck);
}

static uint8_t pattern(unsigned msg, size_t i)
{
	return (uint8_t)(msg * 29u + i * 13u + (i >> 9));
}

TestSuite(engine, .fini = stop, .timeout = 120);

/* Many messages both ways, sizes 0..~40 KB, over a link that loses,
 * duplicates, reorders, trims and marks: every byte arrives, in order
 * of posting for each direction (tags count up). */
static void bidir(void)
{
	enum { M = 60 };
	struct uet_mem_config mc = {
		.seed = 5,
		.pool = 8192,
		.impair = { .drop_ppm = 30000, .dup_ppm = 10000,
			    .reorder_ppm = 50000,
			    .trim_ppm = 10000, .mark_ppm = 20000,
			    .delay = 20 * UET_USEC, .jitter = 5 * UET_USEC },
	};
	static uint8_t *src[2][M], *dst[2][M];
	static int ctx_s[2][M], ctx_r[2][M];
	unsigned d, k;
	size_t i;

	start(2, NULL, &mc);
	for (d = 0; d < 2; d++) {
		for (k = 0; k < M; k++) {
			size_t len = (k * 7919u) % 40000;

			src[d][k] = malloc(len + 1);
			dst[d][k] = calloc(1, 40000);
			for (i = 0; i < len; i++)
				src[d][k][i] = pattern(k + 100 * d, i);
			post(1 - d, d, UET_OP_TRECV, dst[d][k], 40000, k,
			     &ctx_r[d][k]);
			post(d, 1 - d, UET_OP_TSEND, src[d][k], len, k,
			     &ctx_s[d][k]);
		}
	}
	run_until(2 * M, 2 * M, 60 * UET_SEC);
	for (d = 0; d < 2; d++) {
		for (k = 0; k < M; k++) {
			size_t len = (k * 7919u) % 40000;
			const struct comp *s = find(d, &ctx_s[d][k]);
			const struct comp *r = find(1 - d, &ctx_r[d][k]);

			cr_assert_not_null(s);
			cr_assert_not_null(r);
			cr_assert_eq(s->c.err, 0, "send %u/%u: %d", d, k,
				     s->c.err);
			cr_assert_eq(r->c.err, 0);
			cr_assert_eq(r->c.tag, k, "receive %u got tag %lu", k,
				     (unsigned long)r->c.tag);
			cr_assert_eq(r->c.len, len);
			cr_assert(!memcmp(dst[d][k], src[d][k], len),
				  "message %u/%u corrupted", d, k);
			free(src[d][k]);
			free(dst[d][k]);
		}
	}
	cr_assert_eq(E.trace_bad, 0);
}

Test(engine, rud_messages_survive_a_bad_link)
{
	struct uet_fep_stats st;

	bidir();
	uet_fep_stats(E.h.node[0].fep, &st);
	cr_assert_gt(st.retx_rto + st.retx_nack + st.retx_sack +
			     st.retx_tlp, 0, "the link was not bad");
	cr_assert_eq(st.pdc_failed, 0);
}

static void rod_tweak(struct uet_fep_config *c, unsigned i)
{
	(void)i;
	c->rod = true;
}

Test(engine, rod_messages_survive_a_bad_link)
{
	enum { M = 30 };
	struct uet_mem_config mc = {
		.seed = 9,
		.pool = 8192,
		.impair = { .drop_ppm = 30000, .dup_ppm = 10000,
			    .reorder_ppm = 20000, .trim_ppm = 10000 },
	};
	static uint8_t src[M][20000], dst[M][20000];
	static int cs[M], cr[M];
	unsigned k;
	size_t i;

	start(2, rod_tweak, &mc);
	for (k = 0; k < M; k++) {
		for (i = 0; i < sizeof(src[k]); i++)
			src[k][i] = pattern(k, i);
		post(1, 0, UET_OP_RECV, dst[k], sizeof(dst[k]), 0, &cr[k]);
		post(0, 1, UET_OP_SEND, src[k], sizeof(src[k]), 0, &cs[k]);
	}
	run_until(M, M, 60 * UET_SEC);
	for (k = 0; k < M; k++) {
		cr_assert_eq(find(0, &cs[k])->c.err, 0);
		cr_assert_eq(find(1, &cr[k])->c.err, 0);
		cr_assert(!memcmp(src[k], dst[k], sizeof(src[k])), "msg %u", k);
	}
	cr_assert_gt(E.rod_reqs, 0);
	cr_assert_eq(E.rud_reqs, 0, "RUD packets on a ROD endpoint");
}

/* A peer that died: sends complete in error within the RTO budget, the
 * next send tries again and fails the same way; nothing is left. */
Test(engine, dead_peer_sends_fail_in_bounded_time)
{
	static uint8_t buf[10000], rb[10000];
	int c1, c2, c3, r1;
	uet_time t0, span = 0, rto = 1 * UET_MSEC;
	unsigned i;

	start(2, NULL, NULL);
	for (i = 0; i <= 10; i++) {
		span += rto < 100 * UET_MSEC ? rto : 100 * UET_MSEC;
		rto *= 2;
	}
	post(1, 0, UET_OP_RECV, rb, sizeof(rb), 0, &r1);
	post(0, 1, UET_OP_SEND, buf, sizeof(buf), 0, &c1);
	run_until(1, 1, 1 * UET_SEC);
	uet_harness_kill(&E.h, 1);
	t0 = E.h.now;
	post(0, 1, UET_OP_SEND, buf, sizeof(buf), 0, &c2);
	post(0, 1, UET_OP_SEND, buf, 100, 0, &c3);
	run_until(3, 0, 10 * UET_SEC);
	cr_assert_eq(find(0, &c2)->c.err, UET_ERR_PEER);
	cr_assert_eq(find(0, &c3)->c.err, UET_ERR_PEER);
	cr_assert_leq(find(0, &c3)->at - t0, span + 10 * UET_MSEC,
		      "failed after %lu ms",
		      (unsigned long)((find(0, &c3)->at - t0) / UET_MSEC));
	uet_harness_run(&E.h, NULL, NULL, E.h.now + 10 * UET_SEC);
	cr_assert_eq(uet_fep_next_timeout(E.h.node[0].fep), UET_TIME_NONE,
		     "something still ticks for a dead peer");
	cr_assert_eq(uet_fep_tx_left(E.h.node[0].fep),
		     E.h.node[0].cfg.tx_depth, "send descriptors leaked");
}

/* Messages, idle time (both PDCs close), messages again on new PDCs with
 * SES's message numbering restarted: all arrive, in order. */
Test(engine, traffic_across_pdc_close_and_reopen)
{
	static uint8_t src[3][6][3000], dst[3][6][3000];
	static int cs[3][6], cr[3][6];
	struct uet_fep_stats a, b;
	unsigned round, k;

	start(2, NULL, NULL);
	for (round = 0; round < 3; round++) {
		for (k = 0; k < 6; k++) {
			memset(src[round][k], (int)(round * 6 + k + 1),
			       sizeof(src[round][k]));
			post(1, 0, UET_OP_TRECV, dst[round][k], 3000, k,
			     &cr[round][k]);
			post(0, 1, UET_OP_TSEND, src[round][k], 3000, k,
			     &cs[round][k]);
		}
		run_until(6 * (round + 1), 6 * (round + 1), 5 * UET_SEC);
		/* Long enough for the idle close and the target's linger. */
		uet_harness_run(&E.h, NULL, NULL, E.h.now + 2 * UET_SEC);
		cr_assert_eq(uet_fep_next_timeout(E.h.node[0].fep),
			     UET_TIME_NONE);
		cr_assert_eq(uet_fep_next_timeout(E.h.node[1].fep),
			     UET_TIME_NONE);
	}
	for (round = 0; round < 3; round++)
		for (k = 0; k < 6; k++) {
			cr_assert_eq(find(1, &cr[round][k])->c.tag, k);
			cr_assert(!memcmp(src[round][k], dst[round][k], 3000));
		}
	uet_fep_stats(E.h.node[0].fep, &a);
	uet_fep_stats(E.h.node[1].fep, &b);
	cr_assert_eq(a.pdc_open, 3);
	cr_assert_eq(a.pdc_closed, 3);
	cr_assert_eq(b.pdc_open, 3);
	cr_assert_eq(b.pdc_closed, 3);
}

static void small_pool(struct uet_fep_config *c, unsigned i)
{
	if (!i) {
		c->pdc_max = 2;
		c->pdc_idle = 10 * UET_SEC;
	}
}

/* Node 0 talks to three peers with room for two PDCs: the third waits
 * until an idle one is given back. */
Test(engine, more_peers_than_pdcs)
{
	static uint8_t src[3][4][5000], dst[3][4][5000];
	static int cs[3][4], cr[3][4];
	unsigned p, k;

	start(4, small_pool, NULL);
	for (p = 0; p < 3; p++)
		for (k = 0; k < 4; k++) {
			memset(src[p][k], (int)(p * 4 + k + 1), 5000);
			post(p + 1, 0, UET_OP_RECV, dst[p][k], 5000, 0,
			     &cr[p][k]);
			post(0, p + 1, UET_OP_SEND, src[p][k], 5000, 0,
			     &cs[p][k]);
		}
	memset(want, 0, sizeof(want));
	want[0] = 12;
	want[1] = want[2] = want[3] = 4;
	cr_assert(uet_harness_run(&E.h, have_all, NULL, E.h.now + 5 * UET_SEC),
		  "completions %zu %zu %zu %zu", E.n[0], E.n[1], E.n[2],
		  E.n[3]);
	for (p = 0; p < 3; p++)
		for (k = 0; k < 4; k++) {
			cr_assert_eq(find(0, &cs[p][k])->c.err, 0);
			cr_assert(!memcmp(src[p][k], dst[p][k], 5000));
		}
}

/* callbacks.trace sees every packet in and out, and the counters agree
 * with what the driver moved. */
Test(engine, trace_and_counters_agree)
{
	static uint8_t src[50000], dst[50000];
	struct uet_mem_config mc = { .seed = 3,
				     .impair = { .drop_ppm = 20000 } };
	struct uet_fep_stats st;
	unsigned i;
	int cs, cr;

	start(2, NULL, &mc);
	post(1, 0, UET_OP_RECV, dst, sizeof(dst), 0, &cr);
	post(0, 1, UET_OP_SEND, src, sizeof(src), 0, &cs);
	run_until(1, 1, 5 * UET_SEC);
	uet_harness_run(&E.h, NULL, NULL, E.h.now + 1 * UET_SEC);
	for (i = 0; i < 2; i++) {
		uet_fep_stats(E.h.node[i].fep, &st);
		cr_assert_eq(st.tx_pkts, E.h.node[i].tx);
		cr_assert_eq(st.rx_pkts, E.h.node[i].rx);
		cr_assert_eq(E.traced[i][1], st.tx_pkts);
		cr_assert_eq(E.traced[i][0], st.rx_pkts);
		cr_assert_gt(st.tx_bytes, 0);
	}
	uet_fep_stats(E.h.node[0].fep, &st);
	cr_assert_gt(st.acks_rx, 0);
	cr_assert_eq(st.pdc_open, 1);
	cr_assert_eq(E.trace_bad, 0);
}

/* The ports spray (uet/mem.h): most requests arrive from source ports
 * that are not the sender's home port, yet every receive completion names
 * the sender's home address (from the PDC's SYN phase), and answers find
 * their way back. */
Test(engine, sprayed_sender_known_by_home_address)
{
	enum { M = 8 };
	static uint8_t src[2][M][30000], dst[2][M][30000];
	static int cs[2][M], cr[2][M];
	unsigned d, k;

	start(2, NULL, NULL);
	for (d = 0; d < 2; d++) {
		for (k = 0; k < M; k++) {
			memset(src[d][k], (int)(d * 16 + k), sizeof(src[d][k]));
			post(1 - d, d, UET_OP_RECV, dst[d][k],
			     sizeof(dst[d][k]), 0, &cr[d][k]);
			post(d, 1 - d, UET_OP_SEND, src[d][k],
			     sizeof(src[d][k]), 0, &cs[d][k]);
		}
	}
	run_until(2 * M, 2 * M, 5 * UET_SEC);
	for (d = 0; d < 2; d++) {
		struct uet_addr from = uet_harness_addr(d);

		for (k = 0; k < M; k++) {
			const struct comp *r = find(1 - d, &cr[d][k]);

			cr_assert_not_null(r);
			cr_assert_eq(r->c.err, 0);
			cr_assert(uet_addr_equal(&r->c.src, &from),
				  "receive %u/%u: not from the home address",
				  d, k);
			cr_assert(!memcmp(dst[d][k], src[d][k],
					  sizeof(src[d][k])));
			cr_assert_eq(find(d, &cs[d][k])->c.err, 0);
		}
	}
	cr_assert_gt(E.rx_home, 0, "no SYN from home");
	cr_assert_gt(E.rx_sprayed, E.rx_home, "hardly sprayed");
}

static bool data_flowing(struct uet_harness *h, void *arg)
{
	struct uet_fep_stats st;

	(void)arg;
	uet_fep_stats(h->node[0].fep, &st);
	return st.ret_rx >= 50;
}

/* The target of a read dies while its data comes back: the read fails
 * with UET_ERR_PEER in bounded time (its PDC fails, by the RTOs of the
 * read requests still out or by liveness probes, and SES fails what it
 * waits for on it). */
Test(engine, read_from_a_dying_target_fails)
{
	size_t len = 1u << 20;
	uint8_t *src = calloc(1, len), *dst = calloc(1, len);
	struct uet_mr_attr mr = { .base = src, .len = len, .key = 0x55,
				  .access = UET_MR_REMOTE_READ };
	struct uet_iov iov = { dst, len };
	struct uet_addr to = uet_harness_addr(1);
	struct uet_op op = { .rkey = 0x55 };
	const struct comp *c;
	struct uet_fep_stats st;
	uet_time t0, bound;
	int ctx;

	start(2, NULL, NULL);
	cr_assert_eq(uet_fep_mr_reg(E.h.node[1].fep, &mr), 0);
	test_op_init(&op, UET_OP_READ, UET_OPF_COMPLETION, &ctx, &to, &iov);
	cr_assert_eq(uet_fep_post(E.h.node[0].fep, &op, E.h.now), 0);
	cr_assert(uet_harness_run(&E.h, data_flowing, NULL,
				  E.h.now + 5 * UET_SEC));
	uet_harness_kill(&E.h, 1);
	t0 = E.h.now;
	run_until(1, 0, 30 * UET_SEC);
	c = find(0, &ctx);
	cr_assert_not_null(c);
	cr_assert_eq(c->c.err, UET_ERR_PEER, "read: err %d", c->c.err);
	uet_fep_stats(E.h.node[0].fep, &st);
	cr_assert_eq(st.pdc_failed, 1);
	cr_assert_lt(st.ret_rx, len / 1000, "all the data came");
	/* start(): pdc_idle 20 ms, rto_max 100 ms, max_retx 10. */
	bound = 20 * UET_MSEC + 12 * 100 * UET_MSEC;
	cr_assert_leq(c->at - t0, bound, "failed after %lu ns",
		      (unsigned long)(c->at - t0));
	free(src);
	free(dst);
}
