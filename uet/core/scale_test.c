/* 1024 peers into one fep (issue 14 point 3): a driver of its own (the
 * harness holds four feps), packets passed in memory with a fixed delay
 * under one fake clock. With the default table every sender keeps its
 * PDC: no NACK, no PDC opened twice. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "uet/fep.h"
#include "uet/rand.h"

#include "../ses/ses.h"
#include "../fixtures/test_op.h"

#define SENDERS		1024u
#define NFEP		(SENDERS + 1)
#define MSGS		3u
#define DELAY		(5 * UET_USEC)
#define PKT_MAX		2048

struct inflight {
	unsigned to;
	struct uet_pkt_info pi;
	uet_time at;
	size_t len;
	uint8_t buf[PKT_MAX];
};

static struct {
	struct uet_fep *fep[NFEP];
	uint64_t rnd[NFEP];
	size_t done[NFEP];
	size_t errs;
	struct inflight *q;		/* FIFO: one delay for all */
	size_t qhead, qn, qcap;
	uet_time now;
	uet_time last;			/* of the latest completion */
} S;

static void on_complete(void *user, const struct uet_completion *c)
{
	unsigned i = (unsigned)(uintptr_t)user;

	S.done[i]++;
	S.last = S.now;
	if (c->err)
		S.errs++;
}

static void on_rand(void *user, void *buf, size_t len)
{
	uet_rand_fill(&S.rnd[(uintptr_t)user], buf, len);
}

static const struct uet_callbacks cbs = {
	.complete = on_complete,
	.rand = on_rand,
};

/* Fep i lives at 10.(i >> 8).(i & 255).1:4793. */
static struct uet_addr addr_of(unsigned i)
{
	struct uet_addr a;

	memset(&a, 0, sizeof(a));
	a.af = UET_AF_INET;
	a.ip[0] = 10;
	a.ip[1] = (uint8_t)(i >> 8);
	a.ip[2] = (uint8_t)i;
	a.ip[3] = 1;
	a.port = 4793;
	return a;
}

static unsigned index_of(const struct uet_addr *a)
{
	return (unsigned)a->ip[1] << 8 | a->ip[2];
}

static void drain(unsigned i)
{
	for (;;) {
		struct inflight *f;
		ssize_t n;

		if (S.qn == S.qcap) {
			size_t k;
			struct inflight *nq = calloc(2 * S.qcap, sizeof(*nq));

			cr_assert_not_null(nq);
			for (k = 0; k < S.qn; k++)
				nq[k] = S.q[(S.qhead + k) % S.qcap];
			free(S.q);
			S.q = nq;
			S.qhead = 0;
			S.qcap *= 2;
		}
		f = &S.q[(S.qhead + S.qn) % S.qcap];
		n = uet_fep_poll_tx(S.fep[i], &f->pi, f->buf, sizeof(f->buf),
				    S.now);
		cr_assert_geq(n, 0);
		if (!n)
			return;
		f->len = (size_t)n;
		f->to = index_of(&f->pi.dst);
		f->at = S.now + DELAY;
		cr_assert_lt(f->to, NFEP);
		S.qn++;
	}
}

static bool all_done(void)
{
	unsigned i;

	if (S.done[0] < SENDERS * MSGS)
		return false;
	for (i = 1; i < NFEP; i++)
		if (S.done[i] < MSGS)
			return false;
	return true;
}

/* One step: deliver what is due, run due timeouts, send; then move the
 * clock to the next event. */
static bool step(uet_time limit)
{
	uet_time next = UET_TIME_NONE;
	unsigned i;

	while (S.qn && S.q[S.qhead].at <= S.now) {
		struct inflight *f = &S.q[S.qhead];

		f->pi.ts = S.now;
		uet_fep_recv(S.fep[f->to], &f->pi, f->buf, f->len, S.now);
		S.qhead = (S.qhead + 1) % S.qcap;
		S.qn--;
	}
	for (i = 0; i < NFEP; i++) {
		if (uet_fep_next_timeout(S.fep[i]) <= S.now)
			uet_fep_handle_timeout(S.fep[i], S.now);
		drain(i);
	}
	if (S.qn)
		next = S.q[S.qhead].at;
	for (i = 0; i < NFEP; i++) {
		uet_time t = uet_fep_next_timeout(S.fep[i]);

		if (t < next)
			next = t;
	}
	if (next == UET_TIME_NONE || next > limit)
		return false;
	S.now = next > S.now ? next : S.now;
	return true;
}

Test(scale, peers_1024_into_one, .timeout = 300)
{
	static uint8_t src[64], dst[SENDERS * MSGS][64];
	struct uet_fep_stats st;
	unsigned i, k;

	memset(&S, 0, sizeof(S));
	S.qcap = 4096;
	S.q = calloc(S.qcap, sizeof(*S.q));
	cr_assert_not_null(S.q);
	for (i = 0; i < NFEP; i++) {
		struct uet_fep_config cfg;

		uet_fep_config_default(&cfg);
		cfg.local = addr_of(i);
		cfg.job_id = 7;
		cfg.pid_on_fep = uet_addr_pid(&cfg.local);
		cfg.resource_index = uet_addr_ri(&cfg.local);
		/* Small tables for the senders: one PDC each is all they
		 * need; the sink keeps the default. */
		if (i) {
			cfg.pdc_max = 4;
			cfg.window = 8;
			cfg.tx_depth = cfg.rx_depth = 8;
		} else {
			cfg.rx_depth = SENDERS * MSGS;
		}
		S.rnd[i] = 0x9E3779B97F4A7C15ull * (i + 1);
		cr_assert_eq(uet_fep_open(&S.fep[i], &cfg, &cbs,
					  (void *)(uintptr_t)i, 0), 0);
	}
	for (k = 0; k < SENDERS * MSGS; k++) {
		struct uet_iov iov = { dst[k], sizeof(dst[k]) };
		struct uet_op op = { 0 };

		test_op_init(&op, UET_OP_RECV,
			     UET_OPF_COMPLETION | UET_OPF_PEER_ANY, NULL, NULL,
			     &iov);
		cr_assert_eq(uet_fep_post(S.fep[0], &op, S.now), 0);
	}
	for (k = 0; k < MSGS; k++) {
		for (i = 1; i < NFEP; i++) {
			struct uet_iov iov = { src, sizeof(src) };
			struct uet_addr to = addr_of(0);
			struct uet_op op = { 0 };

			test_op_init(&op, UET_OP_SEND, UET_OPF_COMPLETION,
				     NULL, &to, &iov);
			cr_assert_eq(uet_fep_post(S.fep[i], &op, S.now), 0);
		}
		/* Let each round go before the next: a PDC the sink still
		 * has is found again, not opened anew. */
		while (!all_done() && S.done[0] < (k + 1) * SENDERS &&
		       step(S.now + 60 * UET_SEC))
			;
	}
	while (!all_done() && step(S.now + 60 * UET_SEC))
		;
	cr_assert(all_done(), "sink %zu of %u", S.done[0], SENDERS * MSGS);
	cr_assert_eq(S.errs, 0);
	uet_fep_stats(S.fep[0], &st);
	cr_log_info("1024 senders x %u: %llu us engine time, sink: %llu "
		    "PDCs opened, %llu NACKs", MSGS,
		    (unsigned long long)(S.last / UET_USEC),
		    (unsigned long long)st.pdc_open,
		    (unsigned long long)st.nacks_tx);
	cr_assert_eq(st.pdc_open, SENDERS, "the table churned");
	cr_assert_eq(st.nacks_tx, 0);
	for (i = 0; i < NFEP; i++)
		uet_fep_close(S.fep[i]);
	free(S.q);
}
