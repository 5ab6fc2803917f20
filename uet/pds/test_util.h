/* Shared pieces of the PDS tests: a context with the harness, a log of
 * every packet sent (decoded), completions per node, and helpers to post,
 * run, count and inject. Everything is static inline: each test file gets
 * its own copy and its own context T (Criterion runs tests in separate
 * processes).
 */
#ifndef UET_PDS_TEST_UTIL_H
#define UET_PDS_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "uet/fep.h"
#include "uet/mem.h"
#include "uet/wire.h"

#include "fake_ses.h"
#include "harness.h"

#define T_LIMIT		(60 * UET_SEC)

struct tlog {
	unsigned node;			/* sender */
	uet_time t;
	struct uet_pkt_info pi;
	struct uet_pkt p;		/* headers only (payload NULL) */
	size_t len;
	bool dropped;			/* by T.drop */
};

struct tctx {
	struct uet_harness h;
	struct tlog *log;
	size_t nlog, caplog;
	unsigned ncomp[UET_HARNESS_MAX], nerr[UET_HARNESS_MAX];
	struct uet_completion last[UET_HARNESS_MAX];
	uet_time last_at[UET_HARNESS_MAX];
	/* Optional filter: return true to drop this packet. */
	bool (*drop)(const struct tlog *e);
	uint64_t rx_errs[UET_HARNESS_MAX];
};

static struct tctx T;

static inline void t_complete(struct uet_harness *h, unsigned node,
			      const struct uet_completion *c)
{
	T.ncomp[node]++;
	if (c->err)
		T.nerr[node]++;
	T.last[node] = *c;
	T.last_at[node] = h->now;
}

static inline bool t_tx(struct uet_harness *h, unsigned node,
			const struct uet_pkt_info *pi, const uint8_t *pkt,
			size_t len)
{
	struct tlog *e;

	if (T.nlog == T.caplog) {
		T.caplog = T.caplog ? 2 * T.caplog : 1024;
		T.log = realloc(T.log, T.caplog * sizeof(*T.log));
		cr_assert_not_null(T.log);
	}
	e = &T.log[T.nlog++];
	memset(e, 0, sizeof(*e));
	e->node = node;
	e->t = h->now;
	e->pi = *pi;
	e->len = len;
	/* What the engine sends must always decode. */
	cr_assert_geq(uet_pkt_decode(&e->p, pkt, len, 0), 0,
		      "node %u sent an undecodable packet", node);
	e->p.payload = NULL;
	e->dropped = T.drop && T.drop(e);
	return !e->dropped;
}

static inline void t_rx(struct uet_harness *h, unsigned node,
			const struct uet_pkt_info *pi, const uint8_t *pkt,
			size_t len, int rc)
{
	(void)h;
	(void)pi;
	(void)pkt;
	(void)len;
	if (rc)
		T.rx_errs[node]++;
}

/* Test config: small, fast numbers the tests reason about. */
static inline struct uet_fep_config t_cfg(void)
{
	struct uet_fep_config c;

	uet_fep_config_default(&c);
	c.job_id = 1;
	c.rto_min = 1 * UET_MSEC;
	c.rto_max = 64 * UET_MSEC;
	c.max_retx = 5;
	c.ack_delay = 100 * UET_USEC;
	c.ack_every = 16;
	c.pdc_idle = 100 * UET_MSEC;
	c.window = 32;
	/* These suites pin down the RTO machinery packet by packet; the
	 * loss inference suite (infer_test.c) turns inference on. */
	c.loss_infer = false;
	return c;
}

static inline void t_init_each(unsigned n, const struct uet_fep_config *cfgs,
			       const struct uet_mem_config *mcfg)
{
	memset(&T, 0, sizeof(T));
	cr_assert_eq(uet_harness_init_each(&T.h, n, cfgs, mcfg, 42), 0);
	T.h.on_complete = t_complete;
	T.h.on_tx = t_tx;
	T.h.on_rx = t_rx;
}

static inline void t_init(unsigned n, const struct uet_fep_config *cfg,
			  const struct uet_mem_config *mcfg)
{
	struct uet_fep_config cfgs[UET_HARNESS_MAX];
	unsigned i;

	for (i = 0; i < n; i++)
		cfgs[i] = cfg ? *cfg : t_cfg();
	t_init_each(n, cfgs, mcfg);
}

static inline void t_fini(void)
{
	uet_harness_fini(&T.h);
	free(T.log);
	T.log = NULL;
}

static inline struct uet_ses *t_ses(unsigned node)
{
	struct uet_ses *s = fake_ses_of(&T.h.node[node]);

	cr_assert_not_null(s);
	return s;
}

static inline struct uet_fep_stats t_stats(unsigned node)
{
	struct uet_fep_stats st;

	uet_fep_stats(T.h.node[node].fep, &st);
	return st;
}

/* Post a send of len bytes from node `from` to node `to`. */
static inline void t_send(unsigned from, unsigned to, size_t len)
{
	static uint8_t buf[1];
	struct uet_iov iov = { .base = buf, .len = len };
	struct uet_op op = {
		.type = UET_OP_SEND,
		.peer = T.h.node[to].addr,
		.iov = &iov,
		.iov_count = 1,
		.context = (void *)(uintptr_t)(T.ncomp[from] + 1),
	};

	cr_assert_eq(uet_fep_post(T.h.node[from].fep, &op, T.h.now), 0);
}

static inline bool t_all_done(struct uet_harness *h, void *arg)
{
	unsigned i;

	(void)arg;
	for (i = 0; i < h->n; i++)
		if (h->node[i].fep && !fake_ses_all_done(t_ses(i)))
			return false;
	return true;
}

/* Run until every posted send completed. */
static inline void t_run_done(uet_time limit)
{
	cr_assert(uet_harness_run(&T.h, t_all_done, NULL, limit),
		  "sends not done by %lu ns (now %lu)", (unsigned long)limit,
		  (unsigned long)T.h.now);
	cr_assert_not(T.h.stuck);
}

/* Run until nothing is pending at all (or limit). */
static inline void t_run_quiet(uet_time limit)
{
	uet_harness_run(&T.h, NULL, NULL, limit);
	cr_assert_not(T.h.stuck);
}

/* Every message from `from` arrived at `to` exactly once, intact. */
static inline void t_check_delivery(unsigned from, unsigned to)
{
	struct uet_ses *tx = t_ses(from), *rx = t_ses(to);
	unsigned i;

	cr_assert_eq(rx->rx_dups, 0, "%lu duplicates reached SES",
		     (unsigned long)rx->rx_dups);
	cr_assert_eq(rx->rx_bad, 0, "payload corrupted");
	for (i = 0; i < tx->nmsgs; i++) {
		const struct fake_msg *m = &tx->msgs[i];
		const struct fake_rx *r =
			fake_ses_rx_find(rx, &T.h.node[from].addr, m->id);

		if (!uet_addr_equal(&m->peer, &T.h.node[to].addr))
			continue;
		cr_assert(m->done, "message %u not done", i);
		cr_assert_eq(m->err, 0, "message %u failed: %d code %u", i,
			     m->err, m->code);
		cr_assert_not_null(r, "message %u never arrived", i);
		cr_assert_eq(r->got, m->npkts, "message %u: %u of %u packets",
			     i, r->got, m->npkts);
	}
	cr_assert_eq(tx->resolved_twice, 0);
}

/* Packets sent by node of a PDS type (0: any), with all of `flags` set. */
static inline size_t t_count(unsigned node, int type, uint8_t flags)
{
	size_t i, n = 0;

	for (i = 0; i < T.nlog; i++) {
		const struct tlog *e = &T.log[i];

		if (e->node == node && (!type || e->p.pds.type == type) &&
		    (e->p.pds.flags & flags) == flags)
			n++;
	}
	return n;
}

static inline bool t_is_req(const struct tlog *e)
{
	return e->p.pds.type == UET_PDS_RUD_REQ ||
	       e->p.pds.type == UET_PDS_ROD_REQ;
}

static inline bool t_is_ack(const struct tlog *e)
{
	return e->p.pds.type == UET_PDS_ACK || e->p.pds.type == UET_PDS_ACK_CC;
}

/* Data packets node sent, counting first sends and resends. */
static inline size_t t_reqs(unsigned node)
{
	size_t i, n = 0;

	for (i = 0; i < T.nlog; i++)
		if (T.log[i].node == node && t_is_req(&T.log[i]))
			n++;
	return n;
}

/* The k-th (from 0) packet node sent of type (0: any); the test fails
 * when there is none. */
static inline const struct tlog *t_nth(unsigned node, int type, size_t k)
{
	size_t i, want = k;

	for (i = 0; i < T.nlog; i++) {
		const struct tlog *e = &T.log[i];

		if (e->node == node && (!type || e->p.pds.type == type) &&
		    !k--)
			return e;
	}
	cr_assert_fail("node %u sent no packet #%zu of type %d", node, want,
		       type);
	return NULL;
}

/* Impair the link into node. */
static inline void t_impair(unsigned node, const struct uet_mem_impair *imp)
{
	cr_assert_eq(uet_mem_port_set_impair(T.h.node[node].port, imp), 0);
}

/* Encode a request as an initiator would: PDS header + the fake SES's
 * std header for (msg id, offset) of a len-byte message + payload. */
static inline size_t t_craft_req(uint8_t *buf, size_t cap,
				 const struct uet_pds_hdr *h, uint16_t id,
				 uint32_t msg_len, uint32_t off, uint32_t plen,
				 bool eom)
{
	struct uet_ses_req r;
	int hl, sl;
	uint32_t i;

	memset(&r, 0, sizeof(r));
	r.format = UET_NH_REQ_STD;
	r.opcode = UET_SES_SEND;
	r.flags = (off ? 0 : UET_SES_F_SOM) | (eom ? UET_SES_F_EOM : 0) |
		  UET_SES_F_REL;
	r.message_id = id;
	r.request_length = msg_len;
	r.job_id = 1;
	r.initiator = 1;
	if (off) {
		r.payload_length = (uint16_t)plen;
		r.message_offset = off;
	}
	hl = uet_pds_hdr_encode(buf, cap, h);
	cr_assert_gt(hl, 0);
	sl = uet_ses_req_encode(buf + hl, cap - (size_t)hl, &r);
	cr_assert_gt(sl, 0);
	for (i = 0; i < plen; i++)
		buf[hl + sl + (int)i] = fake_ses_byte(id, off + i);
	return (size_t)(hl + sl) + plen;
}

/* pkt_info of a packet from node `from`'s address. */
static inline struct uet_pkt_info t_pi_from(unsigned from, unsigned to)
{
	struct uet_pkt_info pi;

	memset(&pi, 0, sizeof(pi));
	pi.src = uet_harness_addr(from);
	pi.dst = uet_harness_addr(to);
	pi.ts = T.h.now;
	return pi;
}

/* The latest packet node sent of a type; the test fails when none. */
static inline const struct tlog *t_last(unsigned node, int type)
{
	size_t i;

	for (i = T.nlog; i-- > 0;)
		if (T.log[i].node == node && T.log[i].p.pds.type == type)
			return &T.log[i];
	cr_assert_fail("node %u sent no packet of type %d", node, type);
	return NULL;
}



#ifndef T_SEG
#define T_SEG	128
#endif


/* Open the PDC from->to with a one-packet message, then forget the log. */
static inline void t_establish(unsigned from, unsigned to)
{
	t_send(from, to, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	T.nlog = 0;
}

/* ACK_PSN of a logged ACK. */
static inline uint32_t t_ack_psn(const struct tlog *e)
{
	return e->p.pds.ack.cack_psn +
	       (uint32_t)(int32_t)e->p.pds.ack.ack_psn_offset;
}

/* t_establish, and what the PDC is: the initiator's id, the target's id,
 * and the next PSN the initiator will use. */
struct t_pdc {
	uint16_t iid, tid;
	uint32_t next;
};

static inline struct t_pdc t_establish_ids(unsigned from, unsigned to)
{
	struct t_pdc p = { 0, 0, 0 };
	size_t i;

	t_send(from, to, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	for (i = 0; i < T.nlog; i++) {
		const struct tlog *e = &T.log[i];

		if (e->node == from && t_is_req(e)) {
			p.iid = e->p.pds.req.spdcid;
			p.next = e->p.pds.req.psn + 1;
		}
		if (e->node == to && t_is_ack(e))
			p.tid = e->p.pds.ack.spdcid;
	}
	cr_assert(p.iid && p.tid);
	T.nlog = 0;
	return p;
}

/* A plain (non-SYN) RUD request header on an established PDC. */
static inline struct uet_pds_hdr t_req_hdr(uint8_t type, uint32_t psn,
					   uint16_t spdcid, uint16_t dpdcid)
{
	struct uet_pds_hdr h;

	memset(&h, 0, sizeof(h));
	h.type = type;
	h.next_hdr = UET_NH_REQ_STD;
	h.req.psn = psn;
	h.req.spdcid = spdcid;
	h.req.dpdcid = dpdcid;
	h.req.clear_psn_offset = -1;
	return h;
}

/* Inject a one-packet message (fake SES id) with header h into node to. */
static inline int t_inject_req(unsigned from, unsigned to,
			       const struct uet_pds_hdr *h, uint16_t id)
{
	uint8_t buf[512];
	struct uet_pkt_info pi = t_pi_from(from, to);
	size_t n = t_craft_req(buf, sizeof(buf), h, id, T_SEG, 0, T_SEG, true);

	return uet_harness_inject(&T.h, to, &pi, buf, n);
}

#endif
