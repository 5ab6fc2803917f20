/* Every allocation the engine makes can fail (cfg.alloc): opening a fep
 * then says UET_ERR_NOMEM, never "invalid"; during an exchange a failed
 * allocation costs at most that packet or that operation (an error
 * completion), never a crash, a double completion or a leak (the
 * sanitizer build checks leaks). And uet_fep_recv's answers mean what
 * they say: a drop is a drop, a caller error is UET_ERR_INVAL.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "uet/err.h"
#include "uet/fep.h"
#include "uet/wire.h"

#include "../fixtures/harness.h"
#include "../fixtures/alloc_fail.h"
#include "../ses/ses.h"
#include "../fixtures/test_op.h"

static struct uet_alloc_fail F;

static void cfg_for(struct uet_fep_config *c, unsigned i)
{
	struct uet_addr a = uet_harness_addr(i);

	uet_fep_config_default(c);
	c->job_id = 7;
	c->pid_on_fep = uet_addr_pid(&a);
	c->resource_index = uet_addr_ri(&a);
	c->tx_depth = c->rx_depth = 32;
	c->pdc_max = 8;
	c->rndv_threshold = 8192;
	c->rto_min = 1 * UET_MSEC;
	c->rto_max = 10 * UET_MSEC;
	c->max_retx = 4;
	c->pdc_idle = 5 * UET_MSEC;
	c->alloc = &F.a;
}

static void cb_complete(void *u, const struct uet_completion *c)
{
	(void)u;
	(void)c;
}

static void cb_rand(void *u, void *b, size_t n)
{
	(void)u;
	memset(b, 0x5a, n);
}

Test(alloc, open_reports_out_of_memory)
{
	static const struct uet_callbacks cb = { cb_complete, cb_rand, NULL };
	struct uet_fep_config c;
	struct uet_fep *fep = NULL;
	long need;

	cfg_for(&c, 0);
	uet_alloc_fail_init(&F, -1);
	cr_assert_eq(uet_fep_open(&fep, &c, &cb, NULL, 0), 0);
	uet_fep_close(fep);
	need = F.calls;
	cr_assert_gt(need, 3, "open allocates through cfg.alloc");
	for (long k = 0; k < need; k++) {
		uet_alloc_fail_init(&F, k);
		fep = NULL;
		cr_assert_eq(uet_fep_open(&fep, &c, &cb, NULL, 0),
			     UET_ERR_NOMEM, "allocation %ld of %ld", k, need);
		cr_assert_null(fep);
		cr_assert_eq(F.failed, 1);
	}
}

/* The exchange: node 0 sends small, medium and rendezvous messages to
 * node 1 and node 1 answers; counted completions per context. */
enum { MSGS = 6 };
static struct {
	struct uet_harness h;
	unsigned done[2][MSGS * 2];
	unsigned stray;
	uint8_t buf[2][MSGS * 2][20000];
} X;

static void x_complete(struct uet_harness *h, unsigned node,
		       const struct uet_completion *c)
{
	unsigned (*d)[MSGS * 2] = X.done;

	(void)h;
	if (node > 1 || (unsigned *)c->context < &d[node][0] ||
	    (unsigned *)c->context >= &d[node][MSGS * 2]) {
		X.stray++;
		return;
	}
	(*(unsigned *)c->context)++;
}

/* Returns how many operations were posted (each must complete once). */
static unsigned exchange(long fail_at, long *calls)
{
	struct uet_fep_config c[2];
	unsigned posted = 0;

	memset(&X, 0, sizeof(X));
	cfg_for(&c[0], 0);
	cfg_for(&c[1], 1);
	uet_alloc_fail_init(&F, -1);
	cr_assert_eq(uet_harness_init_each(&X.h, 2, c, NULL, 3), 0);
	X.h.on_complete = x_complete;
	uet_alloc_fail_init(&F, fail_at);	/* from here on: the exchange */
	for (unsigned k = 0; k < MSGS; k++) {
		size_t len = k * 3000 + 1;	/* 1 .. 15001: rendezvous too */
		struct uet_iov rv = { X.buf[1][k], sizeof(X.buf[1][k]) };
		struct uet_iov sv = { X.buf[0][k], len };
		struct uet_addr to1 = uet_harness_addr(1);
		struct uet_addr to0 = uet_harness_addr(0);
		struct uet_op r = { 0 }, s = { 0 };

		test_op_init(&r, UET_OP_RECV, UET_OPF_COMPLETION,
			     &X.done[1][k], &to0, &rv);
		if (!uet_fep_post(X.h.node[1].fep, &r, X.h.now))
			posted++;
		test_op_init(&s, UET_OP_SEND, UET_OPF_COMPLETION,
			     &X.done[0][k], &to1, &sv);
		if (!uet_fep_post(X.h.node[0].fep, &s, X.h.now))
			posted++;
	}
	uet_harness_run(&X.h, NULL, NULL, X.h.now + 10 * UET_SEC);
	cr_assert_not(X.h.stuck);
	uet_fep_flush(X.h.node[0].fep);
	uet_fep_flush(X.h.node[1].fep);
	uet_harness_run(&X.h, NULL, NULL, X.h.now + 10 * UET_SEC);
	*calls = F.calls;
	return posted;
}

static void check_once(unsigned posted, long k)
{
	unsigned total = 0;

	cr_assert_eq(X.stray, 0, "failing allocation %ld", k);
	for (unsigned n = 0; n < 2; n++)
		for (unsigned i = 0; i < MSGS * 2; i++) {
			cr_assert_leq(X.done[n][i], 1,
				      "failing allocation %ld: op %u/%u "
				      "completed twice", k, n, i);
			total += X.done[n][i];
		}
	cr_assert_eq(total, posted, "failing allocation %ld: %u of %u "
		     "operations completed", k, total, posted);
}

Test(alloc, any_failed_allocation_in_an_exchange, .timeout = 120)
{
	long calls, k;
	unsigned posted = exchange(-1, &calls);

	check_once(posted, -1);
	cr_assert_eq(posted, 2 * MSGS);
	uet_harness_fini(&X.h);
	cr_assert_gt(calls, 10, "the exchange allocates (%ld)", calls);
	for (k = 0; k < calls; k++) {
		long c2;

		posted = exchange(k, &c2);
		check_once(posted, k);
		cr_assert_eq(F.failed, 1, "allocation %ld never came", k);
		uet_harness_fini(&X.h);
	}
}

Test(alloc, recv_answers_mean_what_they_say)
{
	static const struct uet_callbacks cb = { cb_complete, cb_rand, NULL };
	struct uet_fep_config c;
	struct uet_fep *fep = NULL;
	struct uet_pkt_info pi = { 0 };
	uint8_t junk[64];
	int rc;

	cfg_for(&c, 0);
	c.alloc = NULL;
	cr_assert_eq(uet_fep_open(&fep, &c, &cb, NULL, 0), 0);
	pi.src = uet_harness_addr(1);
	pi.dst = uet_harness_addr(0);
	/* the caller's mistakes */
	cr_assert_eq(uet_fep_recv(fep, NULL, junk, 8, 0), UET_ERR_INVAL);
	cr_assert_eq(uet_fep_recv(fep, &pi, NULL, 8, 0), UET_ERR_INVAL);
	/* the packet's: dropped and counted, whatever the reason */
	memset(junk, 0xff, sizeof(junk));
	rc = uet_fep_recv(fep, &pi, junk, sizeof(junk), 0);
	cr_assert(uet_err_is_drop(rc), "junk: %s", uet_err_str(rc));
	cr_assert_neq(rc, UET_ERR_INVAL);
	memset(junk, 0, sizeof(junk));
	junk[0] = UET_PDS_ACK << 3;	/* an ACK for no PDC of ours */
	rc = uet_fep_recv(fep, &pi, junk, 12, 0);
	cr_assert(uet_err_is_drop(rc), "stray ACK: %s", uet_err_str(rc));
	cr_assert_neq(rc, UET_ERR_INVAL);
	cr_assert_not(uet_err_is_drop(UET_ERR_INVAL));
	cr_assert(uet_err_is_fatal(UET_ERR_NOMEM));
	cr_assert_not(uet_err_is_fatal(UET_ERR_DROPPED));
	uet_fep_close(fep);
}
