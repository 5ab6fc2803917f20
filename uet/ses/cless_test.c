/* Connectionless delivery end to end (cless.c, uud.c, rudi.c over the
 * real PDS of uet/pds/cl.c): feps on the mem port of the PDS harness.
 *
 * UUD: datagrams matched to posted receives with the sender's home
 * address as source, held for a later receive within the unexpected
 * budget and dropped beyond it, lost when the network
 * loses them (no hang), delivered twice when it duplicates them (UUD is
 * best effort: both copies reach a receive), MSGSIZE above one packet.
 * RUDI: writes and reads without a PDC under loss, duplication and
 * reordering; the target's refusals (key, permission, range, a region
 * that is not IDEMPOTENT); retry exhaustion; fenced and CQ-data
 * operations on a PDC, in fence order. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "uet/fep.h"
#include "uet/mem.h"
#include "uet/wire.h"

#include "../fixtures/harness.h"
#include "ses.h"
#include "ses_int.h"

#define MAXC	512
#define NODES	3

struct txlog {
	uint64_t pkts[NODES][16];	/* by PDS type */
	uint64_t uud_dgram_send;	/* UUD requests with DATAGRAM_SEND */
	uint64_t uud_bad;		/* UUD requests not SOM|EOM */
	uint64_t seq;			/* packets seen, all nodes */
	uint64_t first_rud[NODES];	/* seq of a node's first RUD request */
	uint64_t rudi_rsp_rc[64];	/* RUDI responses by return code */
};

static struct uet_harness H;
static struct {
	struct uet_completion c[NODES][MAXC];
	uint64_t at[NODES][MAXC];	/* TX.seq when it completed */
	size_t n[NODES];
} R;
static struct txlog TX;

static void on_complete(struct uet_harness *h, unsigned node,
			const struct uet_completion *c)
{
	(void)h;
	cr_assert_lt(R.n[node], MAXC);
	R.at[node][R.n[node]] = TX.seq;
	R.c[node][R.n[node]++] = *c;
}

static bool on_tx(struct uet_harness *h, unsigned node,
		  const struct uet_pkt_info *pi, const uint8_t *pkt, size_t len)
{
	struct uet_pkt p;

	(void)h;
	(void)pi;
	TX.seq++;
	if (uet_pkt_decode(&p, pkt, len, 0) < 0)
		return true;
	TX.pkts[node][p.pds.type & 15]++;
	if (p.pds.type == UET_PDS_UUD_REQ && p.has_req) {
		if (p.req.opcode == UET_SES_DATAGRAM_SEND)
			TX.uud_dgram_send++;
		if ((p.req.flags & (UET_SES_F_SOM | UET_SES_F_EOM)) !=
		    (UET_SES_F_SOM | UET_SES_F_EOM))
			TX.uud_bad++;
	}
	if ((p.pds.type == UET_PDS_RUD_REQ || p.pds.type == UET_PDS_ROD_REQ) &&
	    !TX.first_rud[node])
		TX.first_rud[node] = TX.seq;
	if (p.pds.type == UET_PDS_RUDI_RESP && p.has_rsp)
		TX.rudi_rsp_rc[p.rsp.return_code & 63]++;
	return true;
}

/* unexp_max of every node start_n makes (0: the default) */
static size_t cfg_unexp_max;

/* n nodes by the addressing rule of ses.h; uud/rudi per node (bits). */
static void start_n(unsigned n, unsigned uud, unsigned rudi,
		    const struct uet_mem_impair *imp)
{
	struct uet_fep_config cfg[NODES];
	unsigned i;

	memset(&R, 0, sizeof(R));
	memset(&TX, 0, sizeof(TX));
	for (i = 0; i < n; i++) {
		struct uet_addr a = uet_harness_addr(i);

		uet_fep_config_default(&cfg[i]);
		cfg[i].job_id = 0x5151;
		cfg[i].pid_on_fep = uet_addr_pid(&a);
		cfg[i].resource_index = uet_addr_ri(&a);
		cfg[i].uud = (uud >> i) & 1;
		if (cfg_unexp_max)
			cfg[i].unexp_max = cfg_unexp_max;
		cfg[i].rudi = (rudi >> i) & 1;
	}
	cr_assert_eq(uet_harness_init_each(&H, n, cfg, NULL, 11), 0);
	H.on_complete = on_complete;
	H.on_tx = on_tx;
	if (imp)
		for (i = 0; i < n; i++)
			cr_assert_eq(uet_mem_port_set_impair(H.node[i].port,
							     imp), 0);
}

static void start(unsigned uud, unsigned rudi,
		  const struct uet_mem_impair *imp)
{
	start_n(2, uud, rudi, imp);
}

static void stop(void)
{
	uet_harness_fini(&H);
}

static size_t dgram_max(void)
{
	return uet_fep_dgram_max(H.node[0].cfg.mtu);
}

static int post_op(unsigned node, unsigned to, uint8_t type, void *buf,
		   size_t len, uint32_t flags, uint64_t data, void *ctx)
{
	struct uet_iov iov = { buf, len };
	struct uet_op op;

	memset(&op, 0, sizeof(op));
	op.type = type;
	op.flags = flags | UET_OPF_COMPLETION;
	op.context = ctx;
	op.peer = uet_harness_addr(to);
	op.iov = &iov;
	op.iov_count = 1;
	op.cq_data = data;
	return uet_fep_post(H.node[node].fep, &op, H.now);
}

static int send_to(unsigned node, unsigned to, void *buf, size_t len,
		   uint32_t flags, void *ctx)
{
	return post_op(node, to, UET_OP_SEND, buf, len, flags, 0, ctx);
}

static int recv_any(unsigned node, void *buf, size_t len, void *ctx)
{
	return post_op(node, 1 - node, UET_OP_RECV, buf, len,
		       UET_OPF_PEER_ANY, 0, ctx);
}

static int rma(unsigned node, uint8_t type, void *buf, size_t len,
	       uint64_t key, uint64_t raddr, uint32_t flags, void *ctx)
{
	struct uet_iov iov = { buf, len };
	struct uet_op op;

	memset(&op, 0, sizeof(op));
	op.type = type;
	op.flags = flags | UET_OPF_COMPLETION;
	op.context = ctx;
	op.peer = uet_harness_addr(1 - node);
	op.iov = &iov;
	op.iov_count = 1;
	op.rkey = key;
	op.raddr = raddr;
	op.cq_data = 0xDA7A;
	return uet_fep_post(H.node[node].fep, &op, H.now);
}

static void mr(unsigned node, void *base, size_t len, uint64_t key,
	       uint32_t access)
{
	struct uet_mr_attr a = { .base = base, .len = len, .key = key,
				 .access = access, .context = base };

	cr_assert_eq(uet_fep_mr_reg(H.node[node].fep, &a), 0);
}

struct want {
	size_t n[NODES];
};

static bool have_all(struct uet_harness *h, void *arg)
{
	const struct want *w = arg;
	unsigned i;

	(void)h;
	for (i = 0; i < NODES; i++)
		if (R.n[i] < w->n[i])
			return false;
	return true;
}

static void run_until(size_t n0, size_t n1, uet_time limit)
{
	struct want w = { { n0, n1, 0 } };

	cr_assert(uet_harness_run(&H, have_all, &w, H.now + limit),
		  "completions: %zu / %zu", R.n[0], R.n[1]);
	cr_assert_not(H.stuck);
}

/* Run until nothing moves (a bounded time). */
static void run_quiet(void)
{
	cr_assert(uet_harness_run(&H, NULL, NULL, H.now + 30 * UET_SEC),
		  "the engine never went quiet");
	cr_assert_not(H.stuck);
}

static const struct uet_completion *find(unsigned node, const void *ctx)
{
	size_t i;

	for (i = 0; i < R.n[node]; i++)
		if (R.c[node][i].context == ctx)
			return &R.c[node][i];
	return NULL;
}

static size_t find_at(unsigned node, const void *ctx)
{
	size_t i;

	for (i = 0; i < R.n[node]; i++)
		if (R.c[node][i].context == ctx)
			return (size_t)R.at[node][i];
	cr_assert_fail("no completion");
	return 0;
}

static struct uet_fep_stats stats(unsigned node)
{
	struct uet_fep_stats st;

	uet_fep_stats(H.node[node].fep, &st);
	return st;
}

/* Does p hold len bytes of v? (one assertion, not one per byte) */
static bool all_are(const uint8_t *p, size_t len, uint8_t v)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != v)
			return false;
	return true;
}

static void fill(uint8_t *p, size_t len, unsigned seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 31 + seed * 7 + (i >> 8));
}

TestSuite(cless, .fini = stop, .timeout = 120);

/* ---- UUD ---- */

Test(cless, uud_datagrams_matched_with_source)
{
	size_t max, sizes[4] = { 0, 1, 100, 0 };
	uint8_t *src[4], *dst[4];
	int cs[4], cr[4];
	unsigned i;

	start(3, 0, NULL);
	max = dgram_max();
	cr_assert_eq(max, H.node[0].cfg.mtu - UET_PDS_UUD_LEN -
			  UET_SES_STD_LEN);
	sizes[3] = max;
	for (i = 0; i < 4; i++) {
		src[i] = malloc(max);
		dst[i] = calloc(1, max);
		fill(src[i], max, i);
		cr_assert_eq(recv_any(1, dst[i], max, &cr[i]), 0);
	}
	for (i = 0; i < 4; i++)
		cr_assert_eq(send_to(0, 1, src[i], sizes[i], 0, &cs[i]), 0);
	run_until(4, 4, UET_SEC);
	for (i = 0; i < 4; i++) {
		const struct uet_completion *r = find(1, &cr[i]);

		cr_assert_eq(find(0, &cs[i])->err, 0);
		cr_assert(find(0, &cs[i])->flags & UET_CF_SEND);
		cr_assert_eq(r->err, 0);
		/* posted order: receive i takes datagram i */
		cr_assert_eq(r->len, sizes[i], "receive %u", i);
		cr_assert(!memcmp(dst[i], src[i], sizes[i]));
		cr_assert(r->flags & UET_CF_RECV);
		cr_assert(uet_addr_equal(&r->src, &H.node[0].addr),
			  "source is the sender's home address");
		free(src[i]);
		free(dst[i]);
	}
	/* one UUD request each, DATAGRAM_SEND, no PDC anywhere */
	cr_assert_eq(TX.pkts[0][UET_PDS_UUD_REQ], 4);
	cr_assert_eq(TX.uud_dgram_send, 4);
	cr_assert_eq(TX.uud_bad, 0);
	cr_assert_eq(TX.pkts[0][UET_PDS_RUD_REQ], 0);
	cr_assert_eq(TX.pkts[1][UET_PDS_ACK] + TX.pkts[1][UET_PDS_ACK_CC] +
		     TX.pkts[1][UET_PDS_NACK], 0, "a UUD datagram was answered");
	cr_assert_eq(stats(0).pdc_open, 0);
	cr_assert_eq(stats(1).pdc_open, 0);
	cr_assert_eq(stats(0).cl_tx, 4);
	cr_assert_eq(stats(1).cl_rx, 4);
}

Test(cless, uud_longer_than_a_packet_refused)
{
	uint8_t *b;
	int c;

	start(3, 0, NULL);
	b = calloc(1, dgram_max() + 1);
	cr_assert_eq(send_to(0, 1, b, dgram_max() + 1, 0, &c),
		     UET_ERR_MSGSIZE);
	/* nothing to wait for, nothing to order */
	cr_assert_eq(send_to(0, 1, b, 10, UET_OPF_DELIVERY, &c),
		     UET_ERR_INVAL);
	cr_assert_eq(send_to(0, 1, b, 10, UET_OPF_FENCE, &c), UET_ERR_INVAL);
	cr_assert_eq(send_to(0, 1, b, dgram_max(), 0, &c), 0);
	run_until(1, 0, UET_SEC);
	cr_assert_eq(find(0, &c)->err, 0);
	free(b);
}

/* A datagram that comes before its receive waits for it, oldest first,
 * as a socket buffer would keep it. */
Test(cless, uud_without_receive_held_for_a_later_receive)
{
	uint8_t s[3][50], d[3][50];
	int cs[3], cr[3];
	unsigned i;

	start(3, 0, NULL);
	for (i = 0; i < 3; i++)
		memset(s[i], 0x30 + (int)i, sizeof(s[i]));
	for (i = 0; i < 3; i++)
		cr_assert_eq(send_to(0, 1, s[i], 50, 0, &cs[i]), 0);
	run_quiet();
	cr_assert_eq(R.n[0], 3, "sends complete at transmit");
	cr_assert_eq(R.n[1], 0);
	cr_assert_eq(stats(1).drop_other, 0);
	cr_assert_eq(stats(1).cl_rx, 3);
	for (i = 0; i < 3; i++)
		cr_assert_eq(recv_any(1, d[i], sizeof(d[i]), &cr[i]), 0);
	cr_assert_eq(R.n[1], 3, "held datagrams complete at post");
	for (i = 0; i < 3; i++) {
		cr_assert_eq(find(1, &cr[i])->err, 0);
		cr_assert_eq(find(1, &cr[i])->len, 50);
		cr_assert(!memcmp(d[i], s[i], 50), "datagram %u", i);
	}
}

/* Beyond the unexpected budget a datagram with no receive is dropped
 * and counted; what was held is still delivered. */
Test(cless, uud_over_the_budget_dropped_and_counted)
{
	uint8_t s[3][1000], d[1000];
	int cs[3], cr;
	unsigned i;

	cfg_unexp_max = 1000 + 2 * sizeof(struct uet_ses_inmsg);
	start(3, 0, NULL);
	cfg_unexp_max = 0;
	for (i = 0; i < 3; i++) {
		memset(s[i], 0x40 + (int)i, sizeof(s[i]));
		cr_assert_eq(send_to(0, 1, s[i], sizeof(s[i]), 0, &cs[i]), 0);
	}
	run_quiet();
	cr_assert_eq(stats(1).cl_rx, 1);
	cr_assert_eq(stats(1).drop_other, 2);
	cr_assert_eq(recv_any(1, d, sizeof(d), &cr), 0);
	cr_assert_eq(find(1, &cr)->err, 0);
	cr_assert(!memcmp(d, s[0], sizeof(d)));
}

Test(cless, uud_loss_is_a_message_gone)
{
	struct uet_mem_impair imp = { .drop_mask = 2 };	/* second packet */
	uint8_t s[3][64], d[3][64];
	int cs[3], cr[3];
	unsigned i;

	start(3, 0, NULL);
	cr_assert_eq(uet_mem_port_set_impair(H.node[1].port, &imp), 0);
	for (i = 0; i < 3; i++) {
		memset(s[i], 0x61 + (int)i, 64);
		cr_assert_eq(recv_any(1, d[i], 64, &cr[i]), 0);
	}
	for (i = 0; i < 3; i++)
		cr_assert_eq(send_to(0, 1, s[i], 64, 0, &cs[i]), 0);
	run_quiet();
	for (i = 0; i < 3; i++)
		cr_assert_eq(find(0, &cs[i])->err, 0);
	cr_assert_eq(R.n[1], 2, "one datagram lost, nothing resent");
	cr_assert(!memcmp(d[0], s[0], 64));
	cr_assert(!memcmp(d[1], s[2], 64), "the third took the next receive");
	cr_assert_null(find(1, &cr[2]));
	cr_assert_eq(stats(0).retx_rto + stats(0).retx_nack +
		     stats(0).retx_sack + stats(0).retx_tlp, 0);
	/* the receive still waiting can be cancelled */
	cr_assert_eq(uet_fep_cancel(H.node[1].fep, &cr[2]), 0);
	cr_assert_eq(find(1, &cr[2])->err, UET_ERR_CANCELED);
}

/* Best effort both ways: a duplicate is a second datagram, each copy
 * takes a receive (no state at the target to tell them apart). */
Test(cless, uud_duplicate_delivered_twice)
{
	struct uet_mem_impair imp = { .dup_mask = 1 };
	uint8_t s[32], d[2][32];
	int cs, cr[2];

	start(3, 0, NULL);
	cr_assert_eq(uet_mem_port_set_impair(H.node[1].port, &imp), 0);
	memset(s, 0x77, sizeof(s));
	cr_assert_eq(recv_any(1, d[0], 32, &cr[0]), 0);
	cr_assert_eq(recv_any(1, d[1], 32, &cr[1]), 0);
	cr_assert_eq(send_to(0, 1, s, 32, 0, &cs), 0);
	run_until(1, 2, UET_SEC);
	cr_assert(!memcmp(d[0], s, 32));
	cr_assert(!memcmp(d[1], s, 32));
	cr_assert_eq(stats(1).cl_rx, 2);
}

Test(cless, uud_truncated_into_a_short_receive)
{
	uint8_t s[100], d[10];
	int cs, cr;

	start(3, 0, NULL);
	fill(s, sizeof(s), 3);
	cr_assert_eq(recv_any(1, d, sizeof(d), &cr), 0);
	cr_assert_eq(send_to(0, 1, s, sizeof(s), 0, &cs), 0);
	run_until(1, 1, UET_SEC);
	cr_assert_eq(find(0, &cs)->err, 0);
	cr_assert_eq(find(1, &cr)->err, UET_ERR_TRUNC);
	cr_assert_eq(find(1, &cr)->len, 10);
	cr_assert_eq(find(1, &cr)->olen, 90);
	cr_assert(!memcmp(d, s, 10));
}

/* A directed receive takes only its sender's datagrams; CQ data and
 * inject ride along. */
Test(cless, uud_directed_receive_and_cq_data)
{
	uint8_t a[20], b[20], d0[20], d1[20];
	int ca, cb, cr0, cr1;

	start_n(3, 7, 0, NULL);
	memset(a, 0xAA, sizeof(a));
	memset(b, 0xBB, sizeof(b));
	/* first posted: only from node 2 */
	cr_assert_eq(post_op(1, 2, UET_OP_RECV, d0, 20, 0, 0, &cr0), 0);
	cr_assert_eq(recv_any(1, d1, 20, &cr1), 0);
	cr_assert_eq(post_op(0, 1, UET_OP_SEND, a, 20,
			     UET_OPF_CQ_DATA | UET_OPF_INJECT, 0x1234, &ca), 0);
	memset(a, 0, sizeof(a));	/* copied at post */
	run_until(1, 1, UET_SEC);
	cr_assert_null(find(1, &cr0), "node 0's datagram took node 2's "
		       "receive");
	cr_assert_eq(find(1, &cr1)->err, 0);
	cr_assert(find(1, &cr1)->flags & UET_CF_CQ_DATA);
	cr_assert_eq(find(1, &cr1)->data, 0x1234);
	cr_assert_eq(d1[0], 0xAA);
	cr_assert_eq(post_op(2, 1, UET_OP_SEND, b, 20, 0, 0, &cb), 0);
	run_until(1, 2, UET_SEC);
	cr_assert_eq(find(1, &cr0)->err, 0);
	cr_assert(uet_addr_equal(&find(1, &cr0)->src, &H.node[2].addr));
	cr_assert(!memcmp(d0, b, 20));
}

Test(cless, uud_multi_recv_buffer)
{
	uint8_t s[3][700], *d = calloc(1, 3000);
	struct uet_iov iov = { d, 3000 };
	struct uet_op op;
	int cs[3], cr;
	unsigned i;

	start(3, 0, NULL);
	memset(&op, 0, sizeof(op));
	op.type = UET_OP_RECV;
	op.flags = UET_OPF_COMPLETION | UET_OPF_MULTI_RECV | UET_OPF_PEER_ANY;
	op.context = &cr;
	op.iov = &iov;
	op.iov_count = 1;
	op.min_multi_recv = 1000;
	cr_assert_eq(uet_fep_post(H.node[1].fep, &op, H.now), 0);
	for (i = 0; i < 3; i++) {
		memset(s[i], 0x10 + (int)i, 700);
		cr_assert_eq(send_to(0, 1, s[i], 700, 0, &cs[i]), 0);
	}
	run_until(3, 3, UET_SEC);
	for (i = 0; i < 3; i++) {
		cr_assert_eq(R.c[1][i].err, 0);
		cr_assert_eq(R.c[1][i].buf, d + 700 * i);
		cr_assert(!memcmp(d + 700 * i, s[i], 700));
	}
	/* 900 bytes left < 1000: released with the last message */
	cr_assert(R.c[1][2].flags & UET_CF_MULTI_RECV);
	free(d);
}

/* Without cfg.uud at the target PDS drops them; a fep that sends UUD
 * still speaks RUD for its tagged messages. */
Test(cless, uud_off_at_target_dropped_tagged_on_pdc)
{
	uint8_t s[40], d[40];
	int cs, ct, cr, crt;

	start(1, 0, NULL);
	memset(s, 0x42, sizeof(s));
	cr_assert_eq(recv_any(1, d, sizeof(d), &cr), 0);
	cr_assert_eq(send_to(0, 1, s, 40, 0, &cs), 0);
	run_quiet();
	cr_assert_eq(find(0, &cs)->err, 0);
	cr_assert_eq(R.n[1], 0);
	cr_assert_eq(stats(1).drop_other, 1);
	cr_assert_eq(uet_fep_cancel(H.node[1].fep, &cr), 0);
	cr_assert_eq(post_op(1, 0, UET_OP_TRECV, d, 40, UET_OPF_PEER_ANY, 0,
			     &crt), 0);
	cr_assert_eq(post_op(0, 1, UET_OP_TSEND, s, 40, 0, 0, &ct), 0);
	run_until(2, 2, 5 * UET_SEC);
	cr_assert_eq(find(0, &ct)->err, 0);
	cr_assert_eq(find(1, &crt)->err, 0);
	cr_assert(!memcmp(d, s, 40));
	cr_assert_eq(stats(0).pdc_open, 1);
}

Test(cless, uud_other_job_dropped)
{
	uint8_t s[8] = { 1 }, d[8];
	struct uet_fep_config cfg[2];
	int cs, cr;
	unsigned i;

	memset(&R, 0, sizeof(R));
	memset(&TX, 0, sizeof(TX));
	for (i = 0; i < 2; i++) {
		struct uet_addr a = uet_harness_addr(i);

		uet_fep_config_default(&cfg[i]);
		cfg[i].job_id = 7 + i;
		cfg[i].pid_on_fep = uet_addr_pid(&a);
		cfg[i].uud = true;
	}
	cr_assert_eq(uet_harness_init_each(&H, 2, cfg, NULL, 3), 0);
	H.on_complete = on_complete;
	cr_assert_eq(recv_any(1, d, sizeof(d), &cr), 0);
	cr_assert_eq(send_to(0, 1, s, sizeof(s), 0, &cs), 0);
	run_quiet();
	cr_assert_eq(R.n[1], 0);
	cr_assert_eq(stats(1).drop_job, 1);
	cr_assert_eq(stats(1).drop_other, 1);
}

/* ---- RUDI ---- */

#define KEY	(0x4242ull | UET_MKEY_IDEMPOTENT_SAFE)
#define IDEM	(UET_MR_REMOTE_READ | UET_MR_REMOTE_WRITE | UET_MR_IDEMPOTENT)

static size_t rudi_write_pkts(size_t len)
{
	size_t max = H.node[0].cfg.mtu - UET_PDS_RUDI_LEN - UET_SES_STD_LEN;

	return len ? (len + max - 1) / max : 1;
}

static size_t rudi_read_pkts(size_t len)
{
	size_t max = H.node[0].cfg.mtu - UET_PDS_RUDI_LEN -
		     UET_SES_RSP_DATA_LEN;

	if (len <= 1024)
		return 1;
	return 1 + (len - 1024 + max - 1) / max;
}

Test(cless, rudi_write_and_read_without_pdc)
{
	size_t len = 150000, region = 200000;
	uint8_t *tgt = calloc(1, region), *src = malloc(len),
		*back = calloc(1, len), small[8];
	int cw, cr, cs;

	start(0, 3, NULL);
	mr(1, tgt, region, KEY, IDEM);
	fill(src, len, 9);
	cr_assert_eq(rma(0, UET_OP_WRITE, src, len, KEY, 1000, 0, &cw), 0);
	run_until(1, 0, 5 * UET_SEC);
	cr_assert_eq(find(0, &cw)->err, 0);
	cr_assert_eq(find(0, &cw)->len, len);
	cr_assert(find(0, &cw)->flags & UET_CF_WRITE);
	cr_assert(!memcmp(tgt + 1000, src, len));
	cr_assert_eq(tgt[999], 0);
	cr_assert_eq(tgt[1000 + len], 0);
	cr_assert_eq(rma(0, UET_OP_READ, back, len, KEY, 1000, 0, &cr), 0);
	cr_assert_eq(rma(0, UET_OP_READ, small, 8, KEY, 1004, 0, &cs), 0);
	run_until(3, 0, 5 * UET_SEC);
	cr_assert_eq(find(0, &cr)->err, 0);
	cr_assert(find(0, &cr)->flags & UET_CF_READ);
	cr_assert(!memcmp(back, src, len));
	cr_assert_eq(find(0, &cs)->err, 0);
	cr_assert(!memcmp(small, src + 4, 8));
	/* one request per packet, each answered, never a PDC; the target
	 * raises no completion */
	cr_assert_eq(stats(0).cl_tx, rudi_write_pkts(len) +
			rudi_read_pkts(len) + 1);
	cr_assert_eq(stats(1).cl_rx, stats(0).cl_tx);
	cr_assert_eq(TX.pkts[1][UET_PDS_RUDI_RESP], stats(0).cl_tx);
	cr_assert_eq(TX.rudi_rsp_rc[UET_RC_OK], stats(0).cl_tx);
	cr_assert_eq(stats(0).pdc_open + stats(1).pdc_open, 0);
	cr_assert_eq(R.n[1], 0);
	free(tgt);
	free(src);
	free(back);
}

/* Loss, duplication and reordering both ways: resends with the same
 * pkt_id, duplicates re-placed, every byte right. */
Test(cless, rudi_impaired_link)
{
	enum { N = 16, LEN = 20000 };
	struct uet_mem_impair imp;
	uint8_t *tgt = calloc(1, N * LEN), *src = malloc(N * LEN),
		*back = calloc(1, N * LEN);
	int cw[N], cr[N];
	struct uet_mem_stats ms;
	unsigned i;

	memset(&imp, 0, sizeof(imp));
	imp.drop_ppm = 100000;
	imp.dup_ppm = 100000;
	imp.reorder_ppm = 200000;
	imp.delay = 5 * UET_USEC;
	start(0, 3, &imp);
	mr(1, tgt, N * LEN, KEY, IDEM);
	fill(src, N * LEN, 4);
	for (i = 0; i < N; i++)
		cr_assert_eq(rma(0, UET_OP_WRITE, src + i * LEN, LEN, KEY,
				 i * LEN, 0, &cw[i]), 0);
	run_until(N, 0, 60 * UET_SEC);
	for (i = 0; i < N; i++)
		cr_assert_eq(find(0, &cw[i])->err, 0, "write %u", i);
	cr_assert(!memcmp(tgt, src, N * LEN));
	for (i = 0; i < N; i++)
		cr_assert_eq(rma(0, UET_OP_READ, back + i * LEN, LEN, KEY,
				 i * LEN, 0, &cr[i]), 0);
	run_until(2 * N, 0, 60 * UET_SEC);
	for (i = 0; i < N; i++)
		cr_assert_eq(find(0, &cr[i])->err, 0, "read %u", i);
	cr_assert(!memcmp(back, src, N * LEN));
	uet_mem_net_stats(H.net, &ms);
	cr_assert_gt(ms.dropped, 0);
	cr_assert_gt(ms.duplicated, 0);
	cr_assert_gt(ms.reordered, 0);
	cr_assert_gt(stats(0).retx_rto, 0, "nothing was resent");
	/* copies of requests (resends, duplicates) all reached SES */
	cr_assert_gt(stats(1).cl_rx, N * (rudi_write_pkts(LEN) +
					  rudi_read_pkts(LEN)));
	cr_assert_eq(stats(0).pdc_open + stats(1).pdc_open, 0);
	free(tgt);
	free(src);
	free(back);
}

Test(cless, rudi_refusals_fail_and_leave_memory_alone)
{
	uint8_t tgt[4096], ro[4096], b[64];
	uint64_t ro_key = 0x99ull | UET_MKEY_IDEMPOTENT_SAFE;
	int c[4];

	start(0, 3, NULL);
	memset(tgt, 0x11, sizeof(tgt));
	memset(ro, 0x22, sizeof(ro));
	memset(b, 0x33, sizeof(b));
	mr(1, tgt, sizeof(tgt), KEY, IDEM);
	mr(1, ro, sizeof(ro), ro_key,
	   UET_MR_REMOTE_READ | UET_MR_IDEMPOTENT);
	cr_assert_eq(rma(0, UET_OP_WRITE, b, 64, KEY + 1, 0, 0, &c[0]), 0);
	cr_assert_eq(rma(0, UET_OP_WRITE, b, 64, KEY, 4090, 0, &c[1]), 0);
	cr_assert_eq(rma(0, UET_OP_WRITE, b, 64, ro_key, 0, 0, &c[2]), 0);
	cr_assert_eq(rma(0, UET_OP_READ, b, 64, KEY, 4033, 0, &c[3]), 0);
	run_until(4, 0, 5 * UET_SEC);
	cr_assert_eq(find(0, &c[0])->err, UET_ERR_REMOTE);
	cr_assert_eq(find(0, &c[0])->prov_errno, UET_RC_BAD_MKEY);
	cr_assert_eq(find(0, &c[1])->err, UET_ERR_REMOTE);
	cr_assert_eq(find(0, &c[1])->prov_errno, UET_RC_BAD_ADDR);
	cr_assert_eq(find(0, &c[2])->err, UET_ERR_REMOTE);
	cr_assert_eq(find(0, &c[2])->prov_errno, UET_RC_PERM_VIOLATION);
	cr_assert_eq(find(0, &c[3])->err, UET_ERR_REMOTE);
	cr_assert_eq(find(0, &c[3])->prov_errno, UET_RC_BAD_ADDR);
	cr_assert(all_are(tgt, sizeof(tgt), 0x11), "a refused write landed");
	cr_assert(all_are(ro, sizeof(ro), 0x22), "a refused write landed");
	cr_assert_eq(stats(0).pdc_open, 0);
	cr_assert_eq(stats(1).rma_refused, 4);
}

/* A RUDI request for a region registered without IDEMPOTENT (a peer that
 * ignores key bit 63): RC_OP_VIOLATION, nothing placed. */
Test(cless, rudi_to_region_not_idempotent_op_violation)
{
	uint8_t tgt[256], pkt[512];
	struct uet_pkt_info pi;
	struct uet_pkt p;
	int n, c;

	start(0, 3, NULL);
	memset(tgt, 0x5A, sizeof(tgt));
	mr(1, tgt, sizeof(tgt), 0x77, UET_MR_REMOTE_WRITE |
	   UET_MR_REMOTE_READ);
	memset(&p, 0, sizeof(p));
	p.pds.type = UET_PDS_RUDI_REQ;
	p.pds.next_hdr = UET_NH_REQ_STD;
	p.pds.rudi.pkt_id = 0x1234;
	p.has_req = true;
	p.req.format = UET_NH_REQ_STD;
	p.req.opcode = UET_SES_WRITE;
	p.req.flags = UET_SES_F_SOM | UET_SES_F_EOM | UET_SES_F_REL;
	p.req.job_id = 0x5151;
	p.req.pid_on_fep = H.node[1].cfg.pid_on_fep;
	p.req.request_length = 16;
	p.req.match_bits = 0x77;
	n = uet_pkt_encode(pkt, sizeof(pkt), &p);
	cr_assert_gt(n, 0);
	memset(pkt + n, 0xEE, 16);
	memset(&pi, 0, sizeof(pi));
	pi.src = H.node[0].addr;
	pi.dst = H.node[1].addr;
	pi.home = true;
	cr_assert_eq(uet_harness_inject(&H, 1, &pi, pkt, (size_t)n + 16), 0);
	run_quiet();
	cr_assert_eq(TX.rudi_rsp_rc[UET_RC_OP_VIOLATION], 1);
	cr_assert(all_are(tgt, sizeof(tgt), 0x5A), "the refused write landed");
	/* the same region through a PDC is fine */
	cr_assert_eq(rma(0, UET_OP_WRITE, pkt + n, 16, 0x77, 0, 0, &c), 0);
	run_until(1, 0, 5 * UET_SEC);
	cr_assert_eq(find(0, &c)->err, 0);
	cr_assert_eq(tgt[0], 0xEE);
	cr_assert_eq(stats(0).pdc_open, 1);
}

Test(cless, rudi_target_gone_retries_exhausted)
{
	uint8_t tgt[1000], b[1000] = { 1 };
	int c;

	start(0, 3, NULL);
	mr(1, tgt, sizeof(tgt), KEY, IDEM);
	uet_harness_kill(&H, 1);
	cr_assert_eq(rma(0, UET_OP_WRITE, b, sizeof(b), KEY, 0, 0, &c), 0);
	run_until(1, 0, 60 * UET_SEC);
	cr_assert_eq(find(0, &c)->err, UET_ERR_PEER);
	cr_assert_eq(stats(0).retx_rto, H.node[0].cfg.max_retx);
	run_quiet();
}

/* Without cfg.rudi at the target its PDS drops RUDI: the initiator's
 * retries run out (both ends must speak it). */
Test(cless, rudi_off_at_target_fails)
{
	uint8_t tgt[100], b[100] = { 1 };
	int c;

	start(0, 1, NULL);
	mr(1, tgt, sizeof(tgt), KEY, IDEM);
	cr_assert_eq(rma(0, UET_OP_WRITE, b, sizeof(b), KEY, 0, 0, &c), 0);
	run_until(1, 0, 60 * UET_SEC);
	cr_assert_eq(find(0, &c)->err, UET_ERR_PEER);
	cr_assert_gt(stats(1).drop_other, 0);
}

/* Without cfg.rudi at the initiator an idempotent key rides a PDC. */
Test(cless, rudi_off_at_initiator_uses_pdc)
{
	uint8_t tgt[100], b[100];
	int c;

	start(0, 2, NULL);
	memset(b, 0x3C, sizeof(b));
	mr(1, tgt, sizeof(tgt), KEY, IDEM);
	cr_assert_eq(rma(0, UET_OP_WRITE, b, sizeof(b), KEY, 0, 0, &c), 0);
	run_until(1, 1, 5 * UET_SEC);
	cr_assert_eq(find(0, &c)->err, 0);
	cr_assert(!memcmp(tgt, b, sizeof(b)));
	cr_assert_eq(stats(0).cl_tx, 0);
	cr_assert_eq(stats(0).pdc_open, 1);
	/* on a PDC the target completes the write (remote event) */
	cr_assert(R.c[1][0].flags & UET_CF_REMOTE);
}

/* A fenced write waits for every RUDI write before it and goes on a PDC;
 * a write with CQ data too; RUDI writes after the fence wait for it to
 * start. */
Test(cless, rudi_fence_and_cq_data_ride_a_pdc)
{
	enum { LEN = 30000 };
	uint8_t *tgt = calloc(1, 4 * LEN), *src = malloc(4 * LEN);
	int c[4];
	size_t i, fence_first;

	start(0, 3, NULL);
	mr(1, tgt, 4 * LEN, KEY, IDEM);
	fill(src, 4 * LEN, 2);
	cr_assert_eq(rma(0, UET_OP_WRITE, src, LEN, KEY, 0, 0, &c[0]), 0);
	cr_assert_eq(rma(0, UET_OP_WRITE, src + LEN, LEN, KEY, LEN,
			 UET_OPF_FENCE, &c[1]), 0);
	cr_assert_eq(rma(0, UET_OP_WRITE, src + 2 * LEN, LEN, KEY, 2 * LEN,
			 0, &c[2]), 0);
	cr_assert_eq(rma(0, UET_OP_WRITE, src + 3 * LEN, LEN, KEY, 3 * LEN,
			 UET_OPF_CQ_DATA, &c[3]), 0);
	run_until(4, 2, 10 * UET_SEC);
	for (i = 0; i < 4; i++)
		cr_assert_eq(find(0, &c[i])->err, 0, "write %zu", i);
	cr_assert(!memcmp(tgt, src, 4 * LEN));
	fence_first = TX.first_rud[0];
	cr_assert_neq(fence_first, 0, "the fenced write took no PDC");
	cr_assert_lt(find_at(0, &c[0]), fence_first,
		     "the fenced write started before the RUDI write ended");
	/* the CQ-data write and the fenced one: two remote completions */
	cr_assert_eq(R.n[1], 2);
	cr_assert(find(1, tgt) != NULL);
	cr_assert_eq(stats(0).cl_tx, 2 * rudi_write_pkts(LEN));
	free(tgt);
	free(src);
}

/* RUDI writes start however many sends wait for a PDC ahead of them
 * (they wait on a list of their own, pending.c): 200 sends to a peer that
 * answers nothing fill their window and wait, and two writes posted
 * after them complete, in post order, while the sends still wait. */
Test(cless, rudi_passes_sends_waiting_for_a_pdc)
{
	enum { N = 200, LEN = 3000 };
	struct uet_mem_impair deaf = { .drop_mask = ~0ull };
	static uint8_t tgt[2 * LEN], src[2 * LEN], b[16];
	static int s[N];
	int c[2];

	start_n(3, 0, 3, NULL);
	mr(1, tgt, sizeof(tgt), KEY, IDEM);
	fill(src, sizeof(src), 4);
	cr_assert_eq(uet_mem_port_set_impair(H.node[2].port, &deaf), 0);
	for (int i = 0; i < N; i++)
		cr_assert_eq(send_to(0, 2, b, sizeof(b), 0, &s[i]), 0);
	cr_assert_eq(rma(0, UET_OP_WRITE, src, LEN, KEY, 0, 0, &c[0]), 0);
	cr_assert_eq(rma(0, UET_OP_WRITE, src + LEN, LEN, KEY, LEN, 0, &c[1]),
		     0);
	run_until(2, 0, 50 * UET_MSEC);
	cr_assert_eq(R.n[0], 2, "a send completed: its peer answers nothing");
	cr_assert_eq(find(0, &c[0])->err, 0);
	cr_assert_eq(find(0, &c[1])->err, 0);
	/* started in post order, and the link keeps it */
	cr_assert_eq(R.c[0][0].context, &c[0]);
	cr_assert_eq(R.c[0][1].context, &c[1]);
	cr_assert(!memcmp(tgt, src, sizeof(tgt)));
	cr_assert_eq(stats(0).cl_tx, 2 * rudi_write_pkts(LEN));
	/* the sends that never left are cancelled at once */
	uet_fep_flush(H.node[0].fep);
	cr_assert_geq(R.n[0], 2 + N - H.node[0].cfg.window);
}

/* Flush while RUDI requests are unanswered: cancelled at once, the late
 * answers and failures are ignored. */
Test(cless, rudi_flush_cancels)
{
	struct uet_mem_impair imp = { .drop_mask = ~0ull };
	uint8_t tgt[5000], b[5000] = { 9 };
	int c;

	start(0, 3, NULL);
	mr(1, tgt, sizeof(tgt), KEY, IDEM);
	cr_assert_eq(uet_mem_port_set_impair(H.node[0].port, &imp), 0);
	cr_assert_eq(rma(0, UET_OP_READ, b, sizeof(b), KEY, 0, 0, &c), 0);
	uet_harness_run(&H, NULL, NULL, H.now + 50 * UET_MSEC);
	cr_assert_eq(R.n[0], 0);
	uet_fep_flush(H.node[0].fep);
	cr_assert_eq(R.n[0], 1);
	cr_assert_eq(find(0, &c)->err, UET_ERR_CANCELED);
	run_quiet();
	cr_assert_eq(R.n[0], 1);
	cr_assert_eq(uet_fep_tx_left(H.node[0].fep),
		     H.node[0].cfg.tx_depth, "a descriptor leaked");
}
