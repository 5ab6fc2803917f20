/* Hostile, dead and many peers, the whole engine over the mem port with
 * the fake clock: a PDC that never clears its refusals, a SYN flood with
 * the right and the wrong JobID, a dead peer's verdict, 1024 peers into
 * one fep. Honest traffic must go on as if nothing happened. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "uet/fep.h"
#include "uet/mem.h"
#include "uet/wire.h"

#include "../fixtures/harness.h"
#include "../ses/ses.h"
#include "../fixtures/test_op.h"

#define JOB	0x4242u
#define MAXC	512

static struct uet_harness H;
static struct {
	struct uet_completion c[UET_HARNESS_MAX][MAXC];
	size_t n[UET_HARNESS_MAX];
} R;

static void on_complete(struct uet_harness *h, unsigned node,
			const struct uet_completion *c)
{
	(void)h;
	cr_assert_lt(R.n[node], MAXC);
	R.c[node][R.n[node]++] = *c;
}

static void node_cfg(struct uet_fep_config *cfg, unsigned i)
{
	struct uet_addr a = uet_harness_addr(i);

	uet_fep_config_default(cfg);
	cfg->job_id = JOB;
	cfg->pid_on_fep = uet_addr_pid(&a);
	cfg->resource_index = uet_addr_ri(&a);
}

static void start(unsigned n, void (*tweak)(struct uet_fep_config *, unsigned))
{
	/* A link of 10 us each way: the ping-pong takes time to measure. */
	struct uet_mem_config mc = {
		.seed = 3,
		.pool = 4096,
		.impair = { .delay = 10 * UET_USEC },
	};
	struct uet_fep_config cfg[UET_HARNESS_MAX];
	unsigned i;

	memset(&R, 0, sizeof(R));
	for (i = 0; i < n; i++) {
		node_cfg(&cfg[i], i);
		if (tweak)
			tweak(&cfg[i], i);
	}
	cr_assert_eq(uet_harness_init_each(&H, n, cfg, &mc, 7), 0);
	H.on_complete = on_complete;
}

static void stop(void)
{
	uet_harness_fini(&H);
}

TestSuite(peers, .fini = stop, .timeout = 120);

struct want {
	unsigned node;
	size_t n;
	size_t n1;		/* and node 1 at least so many */
};

static bool have(struct uet_harness *h, void *arg)
{
	const struct want *w = arg;

	(void)h;
	return R.n[w->node] >= w->n && R.n[1] >= w->n1;
}

static void post(unsigned node, unsigned peer, uint8_t type, void *buf,
		 size_t len, void *ctx)
{
	struct uet_iov iov = { buf, len };
	struct uet_addr to = uet_harness_addr(peer);
	struct uet_op op = { 0 };

	test_op_init(&op, type, UET_OPF_COMPLETION, ctx, &to, &iov);
	cr_assert_eq(uet_fep_post(H.node[node].fep, &op, H.now), 0);
}

/* n round trips of a 64-byte message between nodes 0 and 1; returns the
 * engine time they took. between(k) runs before round k (attacks). */
static uet_time pingpong(unsigned n, void (*between)(unsigned k))
{
	static uint8_t a[64], b[64];
	uet_time t0 = H.now;
	unsigned k;
	int c;

	for (k = 0; k < n; k++) {
		struct want w1 = { 0, R.n[0] + 1, R.n[1] + 1 };
		struct want w0 = { 0, R.n[0] + 2, R.n[1] + 2 };

		if (between)
			between(k);
		post(1, 0, UET_OP_RECV, b, sizeof(b), &c);
		post(0, 1, UET_OP_SEND, a, sizeof(a), &c);
		cr_assert(uet_harness_run(&H, have, &w1, H.now + 60 * UET_SEC),
			  "ping %u", k);
		post(0, 1, UET_OP_RECV, a, sizeof(a), &c);
		post(1, 0, UET_OP_SEND, b, sizeof(b), &c);
		cr_assert(uet_harness_run(&H, have, &w0, H.now + 60 * UET_SEC),
			  "pong %u", k);
	}
	for (k = 0; k < 2; k++)
		for (c = 0; (size_t)c < R.n[k]; c++)
			cr_assert_eq(R.c[k][c].err, 0, "node %u: %d", k,
				     R.c[k][c].err);
	return H.now - t0;
}

/* A request from node `from` to node `to` crafted by hand: a 0-byte send
 * (message id), SYN with its psn_offset when syn, CLEAR_PSN = start - 1
 * forever (never cleared). */
static void inject(unsigned from, unsigned to, uint16_t spdcid,
		   uint16_t dpdcid, uint32_t start, uint32_t off, bool syn,
		   uint32_t job, uint16_t msg_id)
{
	struct uet_addr ta = uet_harness_addr(to);
	struct uet_pkt_info pi;
	struct uet_pds_hdr h;
	struct uet_ses_req r;
	uint8_t buf[256];
	int hl, sl;

	memset(&h, 0, sizeof(h));
	h.type = UET_PDS_RUD_REQ;
	h.next_hdr = UET_NH_REQ_STD;
	h.flags = syn ? UET_PDS_F_SYN | UET_PDS_F_AR : UET_PDS_F_AR;
	h.req.psn = start + off;
	h.req.psn_offset = syn ? (uint16_t)off : 0;
	h.req.spdcid = spdcid;
	h.req.dpdcid = dpdcid;
	h.req.clear_psn_offset = (int16_t)(-(int32_t)off - 1);
	memset(&r, 0, sizeof(r));
	r.format = UET_NH_REQ_STD;
	r.opcode = UET_SES_SEND;
	r.flags = UET_SES_F_SOM | UET_SES_F_EOM | UET_SES_F_REL;
	r.message_id = msg_id;
	r.job_id = job;
	r.pid_on_fep = uet_addr_pid(&ta);
	r.resource_index = uet_addr_ri(&ta);
	r.initiator = 1;
	hl = uet_pds_hdr_encode(buf, sizeof(buf), &h);
	cr_assert_gt(hl, 0);
	sl = uet_ses_req_encode(buf + hl, sizeof(buf) - (size_t)hl, &r);
	cr_assert_gt(sl, 0);
	memset(&pi, 0, sizeof(pi));
	pi.src = uet_harness_addr(from);
	pi.dst = ta;
	pi.ts = H.now;
	uet_harness_inject(&H, to, &pi, buf, (size_t)(hl + sl));
}

static struct uet_fep_stats stats(unsigned node)
{
	struct uet_fep_stats st;

	uet_fep_stats(H.node[node].fep, &st);
	return st;
}

/* Issue 14 point 1: node 2 opens one PDC to node 1 with the right job,
 * then sprays 300 wrong-JobID requests on it and never clears their
 * refusals. Node 1 keeps at most its share of guaranteed responses for
 * that PDC; the 0<->1 ping-pong takes no longer than without the attack
 * (before: the pool ran dry and every peer was NACKed until the reap). */
static const uint32_t hostile_start = 0x100000;

static void spray_wrong_job(unsigned k)
{
	unsigned i;

	if (k)
		return;
	inject(2, 1, 77, 0, hostile_start, 0, true, JOB, 0);
	for (i = 1; i <= 300; i++)
		inject(2, 1, 77, 0, hostile_start, i, true, JOB + 1,
		       (uint16_t)i);
}

Test(peers, refusals_keep_a_share)
{
	uet_time quiet, attacked;
	struct uet_fep_stats st;

	start(3, NULL);
	quiet = pingpong(20, NULL);
	attacked = pingpong(20, spray_wrong_job);
	st = stats(1);
	cr_log_info("ping-pong x20: quiet %llu us, attacked %llu us",
		    (unsigned long long)(quiet / UET_USEC),
		    (unsigned long long)(attacked / UET_USEC));
	/* A quarter of the 256 slots kept, the rest NACKed before SES. */
	cr_assert_geq(st.drop_job, 63);
	cr_assert_leq(st.drop_job, 64);
	cr_assert_geq(st.nacks_tx, 300 - 64,
		      "the hostile PDC was never held back");
	cr_assert_leq(attacked, 2 * quiet, "quiet %llu attacked %llu",
		      (unsigned long long)quiet,
		      (unsigned long long)attacked);
}

/* Issue 14 point 2, wrong JobID: SYNs of another job make no PDC at all;
 * each gets its refusal (an ACK without a PDC) and the honest ping-pong
 * goes on. */
static void flood_wrong_job(unsigned k)
{
	unsigned i;

	for (i = 0; i < 150; i++)
		inject(2, 1, (uint16_t)(1000 + k * 150 + i), 0,
		       hostile_start + i, 0, true, JOB + 1, 0);
}

Test(peers, syn_flood_wrong_job)
{
	uet_time quiet, attacked;
	struct uet_fep_stats st;

	start(3, NULL);
	quiet = pingpong(20, NULL);
	st = stats(1);
	attacked = pingpong(20, flood_wrong_job);
	cr_log_info("ping-pong x20: quiet %llu us, wrong-job flood %llu us",
		    (unsigned long long)(quiet / UET_USEC),
		    (unsigned long long)(attacked / UET_USEC));
	cr_assert_eq(stats(1).pdc_open, st.pdc_open,
		     "a foreign SYN made a PDC");
	cr_assert_geq(stats(1).drop_job, 20 * 150);
	cr_assert_geq(stats(1).acks_tx - st.acks_tx, 20 * 150,
		      "foreign SYNs unanswered");
	cr_assert_leq(attacked, 2 * quiet);
}

/* Right JobID, a flood of SYNs that never go further: half-open PDCs take
 * at most half of the pool, are forgotten once no initiator could still
 * resend (retry span + pdc_idle, not the 20 s reap), and no PDC in use is
 * evicted for them. pdc_max 64: 32 half-open at most. */
static void small_pool(struct uet_fep_config *c, unsigned i)
{
	(void)i;
	c->pdc_max = 64;
}

static void flood_right_job(unsigned k)
{
	unsigned i;

	for (i = 0; i < 150; i++)
		inject(2, 1, (uint16_t)(1000 + k * 150 + i), 0,
		       hostile_start + i, 0, true, JOB, 0);
}

Test(peers, syn_flood_right_job)
{
	uet_time quiet, attacked;
	struct uet_fep_stats st;

	start(3, small_pool);
	quiet = pingpong(20, NULL);
	st = stats(1);
	attacked = pingpong(20, flood_right_job);
	cr_log_info("ping-pong x20: quiet %llu us, right-job flood %llu us",
		    (unsigned long long)(quiet / UET_USEC),
		    (unsigned long long)(attacked / UET_USEC));
	cr_assert_leq(stats(1).pdc_open - st.pdc_open, 32,
		      "half-open PDCs beyond their quota: %llu",
		      (unsigned long long)(stats(1).pdc_open - st.pdc_open));
	cr_assert_gt(stats(1).nacks_tx, st.nacks_tx);
	cr_assert_leq(attacked, 2 * quiet);
	/* The half-open ones go after 9 + 1 s of silence, not after the
	 * 20 s reap: new peers get in. */
	uet_harness_run(&H, NULL, NULL, H.now + 11 * UET_SEC);
	st = stats(1);
	flood_right_job(0);
	uet_harness_run(&H, NULL, NULL, H.now + 10 * UET_MSEC);
	cr_assert_eq(stats(1).pdc_open - st.pdc_open, 32);
}

/* Issue 14 point 5: once a send to a dead peer failed (the retry budget),
 * the next send fails at once, for cfg.unreach_hold; a sign of life
 * (the peer restarted and talks to us) clears the verdict. */
static void fast_retry(struct uet_fep_config *c, unsigned i)
{
	(void)i;
	c->rto_min = 1 * UET_MSEC;
	c->rto_max = 10 * UET_MSEC;
	c->max_retx = 4;
	c->unreach_hold = 1 * UET_SEC;
}

Test(peers, dead_peer_fails_fast)
{
	static uint8_t a[64], b[64];
	struct want w = { 0, 1, 0 };
	uet_time t0, first, again;
	int c1, c2, c3, c4, c5;

	start(2, fast_retry);
	uet_harness_kill(&H, 1);
	t0 = H.now;
	post(0, 1, UET_OP_SEND, a, sizeof(a), &c1);
	cr_assert(uet_harness_run(&H, have, &w, H.now + 10 * UET_SEC));
	first = H.now - t0;
	cr_assert_eq(R.c[0][0].err, UET_ERR_PEER);
	/* Again: the verdict holds, no packet, no wait. */
	t0 = H.now;
	post(0, 1, UET_OP_SEND, a, sizeof(a), &c2);
	w.n = 2;
	cr_assert(uet_harness_run(&H, have, &w, H.now + 10 * UET_SEC));
	again = H.now - t0;
	cr_assert_eq(R.c[0][1].err, UET_ERR_PEER);
	cr_log_info("dead peer: first send failed after %llu us, the next "
		    "after %llu us", (unsigned long long)(first / UET_USEC),
		    (unsigned long long)(again / UET_USEC));
	cr_assert_gt(first, 10 * UET_MSEC);
	cr_assert_eq(again, 0);
	/* After the hold the budget applies again. */
	H.now += 2 * UET_SEC;
	t0 = H.now;
	post(0, 1, UET_OP_SEND, a, sizeof(a), &c3);
	w.n = 3;
	cr_assert(uet_harness_run(&H, have, &w, H.now + 10 * UET_SEC));
	cr_assert_gt(H.now - t0, 10 * UET_MSEC);
	/* Life: the peer comes back and sends to us; ours go through. */
	cr_assert_eq(uet_harness_revive(&H, 1), 0);
	post(0, 1, UET_OP_RECV, a, sizeof(a), &c4);
	post(1, 0, UET_OP_SEND, b, sizeof(b), &c4);
	w.n = 4;
	cr_assert(uet_harness_run(&H, have, &w, H.now + 10 * UET_SEC));
	post(1, 0, UET_OP_RECV, b, sizeof(b), &c5);
	post(0, 1, UET_OP_SEND, a, sizeof(a), &c5);
	w.n = 5;
	cr_assert(uet_harness_run(&H, have, &w, H.now + 10 * UET_SEC));
	cr_assert_eq(R.c[0][4].err, 0);
}

/* Issue 11 point 4: the peer restarted at the same address. Our PDC to it
 * is stale: the new process answers NACK INV_DPDCID; the PDC goes, the
 * messages go again on a new one, each delivered once, no error. */
Test(peers, restarted_peer_reached)
{
	static uint8_t src[3][5000], dst[3][5000];
	static const size_t len[3] = { 64, 5000, 0 };
	struct uet_fep_stats st0;
	int cs[3], cr[3];
	unsigned k;
	size_t i;

	start(2, NULL);
	pingpong(1, NULL);
	uet_harness_kill(&H, 1);
	cr_assert_eq(uet_harness_revive(&H, 1), 0);
	memset(&R.n[1], 0, sizeof(R.n[1]));
	for (k = 0; k < 3; k++) {
		for (i = 0; i < len[k]; i++)
			src[k][i] = (uint8_t)(k * 31 + i * 7);
		post(1, 0, UET_OP_RECV, dst[k], sizeof(dst[k]), &cr[k]);
	}
	R.n[0] = 0;
	for (k = 0; k < 3; k++)
		post(0, 1, UET_OP_SEND, src[k], len[k], &cs[k]);
	{
		struct want w = { 0, 3, 3 };

		cr_assert(uet_harness_run(&H, have, &w, H.now + 10 * UET_SEC),
			  "completions %zu / %zu", R.n[0], R.n[1]);
	}
	uet_harness_run(&H, NULL, NULL, H.now + 100 * UET_MSEC);
	cr_assert_eq(R.n[0], 3);
	cr_assert_eq(R.n[1], 3, "a message delivered twice");
	for (k = 0; k < 3; k++) {
		cr_assert_eq(R.c[0][k].err, 0, "send %u: %d/%d", k,
			     R.c[0][k].err, R.c[0][k].prov_errno);
		cr_assert_eq(R.c[1][k].err, 0);
		cr_assert_eq(R.c[1][k].len, len[k]);
		cr_assert(!memcmp(dst[k], src[k], len[k]));
	}
	st0 = stats(0);
	cr_assert_eq(st0.pdc_failed, 0);
	cr_assert_eq(stats(1).unexp_msgs, 0);
}

/* Sends to a peer of another job: each is refused (RC_BAD_JOB_ID), none
 * waits, however many (the target keeps no PDC: the initiator's SYN
 * phase must not run out of window or PSN offsets). */
static void other_job(struct uet_fep_config *c, unsigned i)
{
	c->job_id = JOB + i;
	c->tx_depth = 512;
}

Test(peers, foreign_job_many_sends)
{
	static uint8_t a[64];
	struct want w = { 0, 300, 0 };
	int ctx;
	unsigned k;

	start(2, other_job);
	for (k = 0; k < 300; k++)
		post(0, 1, UET_OP_SEND, a, sizeof(a), &ctx);
	cr_assert(uet_harness_run(&H, have, &w, H.now + 10 * UET_SEC),
		  "%zu of 300 sends completed", R.n[0]);
	for (k = 0; k < 300; k++) {
		cr_assert_eq(R.c[0][k].err, UET_ERR_REMOTE);
		cr_assert_eq(R.c[0][k].prov_errno, UET_RC_BAD_JOB_ID);
	}
	cr_assert_eq(stats(1).pdc_open, 0);
	cr_assert_eq(R.n[1], 0);
}
