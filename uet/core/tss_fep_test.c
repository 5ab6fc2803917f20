/* Transport security through the whole engine: two feps with the real
 * SES over the mem port, every packet sealed. Messages survive a bad
 * link; nothing leaves in clear; tampered, replayed, clear, foreign-key
 * and foreign-job packets are dropped and counted, never delivered.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "uet/fep.h"
#include "uet/mem.h"
#include "uet/wire.h"

#include "../fixtures/harness.h"
#include "../ses/ses.h"
#include "../fixtures/test_op.h"

#define NODES	2
#define MAXC	1024
#define CAPT	64		/* packets kept from node 0's sends */

static struct {
	struct uet_harness h;
	struct uet_completion c[NODES][MAXC];
	size_t n[NODES];
	uint64_t sent_clear, sent_sealed;
	const uint8_t *secret;	/* bytes that must never be seen on the wire */
	size_t secret_len;
	uint64_t secret_seen;
	uint8_t capt[CAPT][UET_HARNESS_PKT_MAX];
	size_t capt_len[CAPT];
	struct uet_pkt_info capt_pi[CAPT];
	unsigned ncapt;
	unsigned drop_first;	/* of node 0's packets: captured, not sent */
} T;

static struct uet_tss_cfg tcfg[NODES];

static void on_complete(struct uet_harness *h, unsigned node,
			const struct uet_completion *c)
{
	(void)h;
	cr_assert_lt(T.n[node], MAXC);
	T.c[node][T.n[node]++] = *c;
}

static bool on_tx(struct uet_harness *h, unsigned node,
		  const struct uet_pkt_info *pi, const uint8_t *pkt,
		  size_t len)
{
	(void)h;
	if (len && pkt[0] >> 3 == UET_PDS_TYPE_TSS)
		T.sent_sealed++;
	else
		T.sent_clear++;
	if (T.secret && len >= T.secret_len)
		for (size_t i = 0; i + T.secret_len <= len; i++)
			if (!memcmp(pkt + i, T.secret, T.secret_len))
				T.secret_seen++;
	if (node == 0 && T.ncapt < CAPT) {
		memcpy(T.capt[T.ncapt], pkt, len);
		T.capt_len[T.ncapt] = len;
		T.capt_pi[T.ncapt] = *pi;
		if (T.ncapt++ < T.drop_first)
			return false;
	}
	return true;
}

static void key_fill(uint8_t *k, uint8_t seed)
{
	for (int i = 0; i < UET_TSS_KEY_LEN; i++)
		k[i] = (uint8_t)(seed + 3 * i);
}

/* Start the feps with uet_harness_init_sg: TSS must still copy. */
static bool start_sg;
/* Each node's mtu; 0: the default. */
static size_t node_mtu[NODES];

/* Secured (or not) feps; keys by seed, so a test can make them differ. */
static void start(const bool secured[NODES], const uint8_t key_seed[NODES],
		  enum uet_tss_mode mode, const uint32_t sd_job[NODES],
		  const struct uet_mem_config *mc)
{
	struct uet_fep_config cfg[NODES];

	memset(&T, 0, sizeof(T));
	for (unsigned i = 0; i < NODES; i++) {
		uet_harness_test_cfg(&cfg[i], i);
		cfg[i].rto_max = 20 * UET_MSEC;
		cfg[i].max_retx = 6;
		if (node_mtu[i])
			cfg[i].mtu = node_mtu[i];
		memset(&tcfg[i], 0, sizeof(tcfg[i]));
		if (!secured[i])
			continue;
		tcfg[i].mode = mode;
		tcfg[i].sdi = 0x000042;
		tcfg[i].job = sd_job ? sd_job[i] : 0x1234;
		tcfg[i].has_key[0] = true;
		key_fill(tcfg[i].key[0], key_seed[i]);
		tcfg[i].ssi = 0x5150 + i;
		tcfg[i].tsc_start = 1000u * (i + 1);
		tcfg[i].rekey_shift = mode == UET_TSS_CLUSTER ? 6 : 0;
		cfg[i].tss = &tcfg[i];
	}
	if (start_sg)
		cr_assert_eq(uet_harness_init_sg(&T.h, NODES, cfg, mc, 7), 0);
	else
		cr_assert_eq(uet_harness_init_each(&T.h, NODES, cfg, mc, 7),
			     0);
	T.h.on_complete = on_complete;
	T.h.on_tx = on_tx;
}

static void stop(void)
{
	uet_harness_fini(&T.h);
}

TestSuite(tss_fep, .fini = stop, .timeout = 120);

static void post(unsigned node, unsigned peer, uint8_t type, void *buf,
		 size_t len, void *ctx)
{
	struct uet_iov iov = { buf, len };
	struct uet_addr to = uet_harness_addr(peer);
	struct uet_op op = { .tag = 0 };

	test_op_init(&op, type, UET_OPF_COMPLETION, ctx, &to, &iov);
	cr_assert_eq(uet_fep_post(T.h.node[node].fep, &op, T.h.now), 0);
}

static size_t want0, want1;

static bool have_all(struct uet_harness *h, void *arg)
{
	(void)h;
	(void)arg;
	return T.n[0] >= want0 && T.n[1] >= want1;
}

static void run_until(size_t n0, size_t n1, uet_time limit)
{
	want0 = n0;
	want1 = n1;
	cr_assert(uet_harness_run(&T.h, have_all, NULL, T.h.now + limit),
		  "completions %zu/%zu of %zu/%zu", T.n[0], T.n[1], n0, n1);
}

static const bool both[NODES] = { true, true };
static const uint8_t same_key[NODES] = { 9, 9 };

static void messages_over_a_bad_link(enum uet_tss_mode mode)
{
	enum { M = 40, LEN = 30000 };
	struct uet_mem_config mc = {
		.seed = 3, .pool = 8192,
		.impair = { .drop_ppm = 30000, .dup_ppm = 10000,
			    .reorder_ppm = 50000, .trim_ppm = 10000,
			    .mark_ppm = 20000 },
	};
	static uint8_t src[M][LEN], dst[M][LEN];
	static int cs[M], cr[M];
	struct uet_tss_stats ts;
	struct uet_fep_stats st;

	start_sg = true;	/* sealing needs the payload in buf */
	start(both, same_key, mode, NULL, &mc);
	start_sg = false;
	for (unsigned k = 0; k < M; k++) {
		for (size_t i = 0; i < LEN; i++)
			src[k][i] = (uint8_t)(k * 31 + i * 7 + (i >> 8));
		post(1, 0, UET_OP_RECV, dst[k], LEN, &cr[k]);
		post(0, 1, UET_OP_SEND, src[k], LEN, &cs[k]);
	}
	/* a run of the first message's bytes, as a plaintext marker */
	T.secret = src[0] + 1000;
	T.secret_len = 24;
	run_until(M, M, 30 * UET_SEC);
	for (unsigned k = 0; k < M; k++) {
		cr_assert_eq(T.c[0][k].err, 0);
		cr_assert_eq(T.c[1][k].err, 0);
		cr_assert(!memcmp(src[k], dst[k], LEN), "message %u", k);
	}
	cr_assert_eq(T.sent_clear, 0, "every packet sealed");
	cr_assert_eq(T.h.node[0].tx_ext + T.h.node[1].tx_ext, 0,
		     "a payload left out of a sealed packet");
	cr_assert_gt(T.sent_sealed, M * (LEN / 1400));
	cr_assert_eq(T.secret_seen, 0, "payload seen in clear on the wire");
	cr_assert_eq(uet_fep_tss_stats(T.h.node[1].fep, &ts), 0);
	cr_assert_gt(ts.in_auth_pkts, 0);
	cr_assert_eq(ts.in_auth_fail_pkts, 0);
	uet_fep_stats(T.h.node[1].fep, &st);
	/* trimmed packets cannot be authenticated: dropped, recovered */
	cr_assert_gt(st.drop_tss, 0);
	uet_fep_stats(T.h.node[0].fep, &st);
	cr_assert_eq(st.pdc_failed, 0);
}

Test(tss_fep, direct_mode_messages_over_a_bad_link)
{
	messages_over_a_bad_link(UET_TSS_DIRECT);
}

Test(tss_fep, cluster_mode_messages_over_a_bad_link)
{
	struct uet_tss_stats ts;

	messages_over_a_bad_link(UET_TSS_CLUSTER);
	cr_assert_eq(uet_fep_tss_stats(T.h.node[0].fep, &ts), 0);
	cr_assert_gt(ts.keys_derived, 1, "rekeyed as the TSC moved");
}

/* A peer's packets may be larger than our mtu (its mtu, host_mtu): they
 * open into a buffer for any datagram, not one of our mtu, which they
 * overran. */
Test(tss_fep, packets_larger_than_our_mtu_open)
{
	enum { LEN = 20000 };
	static uint8_t src[LEN], dst[LEN];
	int cs, cr;

	node_mtu[0] = 9000;
	start_sg = true;
	start(both, same_key, UET_TSS_DIRECT, NULL, NULL);
	start_sg = false;
	node_mtu[0] = 0;
	for (size_t i = 0; i < LEN; i++)
		src[i] = (uint8_t)(i * 13 + 5);
	post(1, 0, UET_OP_RECV, dst, LEN, &cr);
	post(0, 1, UET_OP_SEND, src, LEN, &cs);
	run_until(1, 1, 5 * UET_SEC);
	cr_assert_eq(T.c[0][0].err, 0);
	cr_assert_eq(T.c[1][0].err, 0);
	cr_assert(!memcmp(src, dst, LEN));
	cr_assert_lt(T.sent_sealed, LEN / 1400, "sent in packets of 9000");
}

/* Captured packets of a finished exchange, modified or replayed, and
 * handed to the receiver: all refused, counted, nothing delivered. The
 * first few never reached it (PDS resent them under new TSCs): changed,
 * they fail authentication; the others are replays. */
Test(tss_fep, tampered_and_replayed_packets_refused)
{
	static uint8_t src[4000], dst[4000], spare[4000], bad[UET_HARNESS_PKT_MAX];
	static int cs, cr, cr2;
	struct uet_tss_stats ts;
	struct uet_fep_stats st;
	uint64_t refused = 0;

	memset(src, 0xab, sizeof(src));
	start(both, same_key, UET_TSS_DIRECT, NULL, NULL);
	T.drop_first = 2;
	post(1, 0, UET_OP_RECV, dst, sizeof(dst), &cr);
	post(0, 1, UET_OP_SEND, src, sizeof(src), &cs);
	run_until(1, 1, 5 * UET_SEC);
	cr_assert_gt(T.ncapt, T.drop_first + 1);
	cr_assert(!memcmp(src, dst, sizeof(src)));
	/* a receive that a replayed or forged message could land in */
	post(1, 0, UET_OP_RECV, spare, sizeof(spare), &cr2);
	for (unsigned i = 0; i < T.ncapt; i++) {
		struct uet_pkt_info pi = T.capt_pi[i];

		pi.src = uet_harness_addr(0);
		/* replayed as is */
		if (i >= T.drop_first) {
			cr_assert_eq(uet_harness_inject(&T.h, 1, &pi,
							T.capt[i],
							T.capt_len[i]),
				     UET_ERR_TSS_REPLAY);
			refused++;
		}
		/* one byte changed, at a few places */
		for (size_t at = 0; at < T.capt_len[i]; at += 97) {
			memcpy(bad, T.capt[i], T.capt_len[i]);
			bad[at] ^= 0x20;
			cr_assert_lt(uet_harness_inject(&T.h, 1, &pi, bad,
							T.capt_len[i]), 0);
			refused++;
		}
	}
	uet_harness_run(&T.h, NULL, NULL, T.h.now + 100 * UET_MSEC);
	cr_assert_eq(T.n[1], 1, "nothing more delivered");
	uet_fep_stats(T.h.node[1].fep, &st);
	cr_assert_geq(st.drop_tss, refused);
	cr_assert_eq(uet_fep_tss_stats(T.h.node[1].fep, &ts), 0);
	cr_assert_geq(ts.in_replay_pkts, T.ncapt - T.drop_first);
	cr_assert_gt(ts.in_auth_fail_pkts, 0);
	/* the ones that never arrived authenticate, and PDS sees
	 * duplicates of what it already has: still nothing delivered */
	uint64_t auth_before = ts.in_auth_pkts;

	for (unsigned i = 0; i < T.drop_first; i++) {
		struct uet_pkt_info pi = T.capt_pi[i];

		pi.src = uet_harness_addr(0);
		(void)uet_harness_inject(&T.h, 1, &pi, T.capt[i],
					 T.capt_len[i]);
	}
	uet_harness_run(&T.h, NULL, NULL, T.h.now + 100 * UET_MSEC);
	cr_assert_eq(T.n[1], 1);
	cr_assert_eq(uet_fep_tss_stats(T.h.node[1].fep, &ts), 0);
	cr_assert_eq(ts.in_auth_pkts, auth_before + T.drop_first);
}

/* A fep without TSS cannot reach a secured one, nor one with another
 * key; its sends fail as to a dead peer, the target counts why. */
static void unreachable(const bool secured[NODES], const uint8_t keys[NODES],
			const uint32_t sd_job[NODES])
{
	static uint8_t src[1000], dst[1000];
	static int cs, cr;

	start(secured, keys, UET_TSS_DIRECT, sd_job, NULL);
	post(1, 0, UET_OP_RECV, dst, sizeof(dst), &cr);
	post(0, 1, UET_OP_SEND, src, sizeof(src), &cs);
	run_until(1, 0, 10 * UET_SEC);
	cr_assert_eq(T.c[0][0].err, UET_ERR_PEER);
	cr_assert_eq(T.n[1], 0);
}

Test(tss_fep, clear_sender_refused)
{
	static const bool one[NODES] = { false, true };
	struct uet_tss_stats ts;

	unreachable(one, same_key, NULL);
	cr_assert_eq(uet_fep_tss_stats(T.h.node[0].fep, &ts), UET_ERR_INVAL);
	cr_assert_eq(uet_fep_tss_stats(T.h.node[1].fep, &ts), 0);
	cr_assert_gt(ts.in_bypass_pkts, 0);
	cr_assert_eq(ts.in_auth_pkts, 0);
}

Test(tss_fep, other_key_refused)
{
	static const uint8_t keys[NODES] = { 9, 10 };
	struct uet_tss_stats ts;

	unreachable(both, keys, NULL);
	cr_assert_eq(uet_fep_tss_stats(T.h.node[1].fep, &ts), 0);
	cr_assert_gt(ts.in_auth_fail_pkts, 0);
	cr_assert_eq(ts.in_auth_pkts, 0);
}

/* The receiver's domain belongs to another job: the sender's requests
 * authenticate but carry a JobID the domain is not bound to. */
Test(tss_fep, job_not_bound_to_the_domain_refused)
{
	static const uint32_t jobs[NODES] = { 0x1234, 0x777 };
	struct uet_tss_stats ts;

	unreachable(both, same_key, jobs);
	cr_assert_eq(uet_fep_tss_stats(T.h.node[1].fep, &ts), 0);
	cr_assert_gt(ts.in_binding_failure_pkts, 0);
}
