/* Golden protocol traces (issue 15): establish, loss, close, rendezvous
 * and RUDI exchanges of the whole engine over the mem net, every packet
 * in uetdump's one-line format, compared line by line with the references
 * in uet/fixtures/traces/ (README there). A change of behaviour on the
 * wire fails here as a diff; UET_TRACE_UPDATE=1 rewrites the references
 * once the change is meant. Each test also checks its outcome, so a
 * reference is never the only thing that says the exchange worked. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uet/fep.h"
#include "uet/mem.h"

#include "../fixtures/harness.h"
#include "../fixtures/test_op.h"
#include "../fixtures/trace.h"
#include "../ses/ses.h"

#define MAXC	16
#define SEED	5
#define DELAY	(10 * UET_USEC)		/* one way, every link */
#define RATE	1250000000ull		/* 10 Gb/s: arrivals spaced */
#define JOB	0x7ace

#define KEY	(0x51ull | UET_MKEY_IDEMPOTENT_SAFE)
#define IDEM	(UET_MR_REMOTE_READ | UET_MR_REMOTE_WRITE | \
		 UET_MR_IDEMPOTENT)

static struct {
	struct uet_harness h;
	struct uet_trace t;
	struct uet_completion c[2][MAXC];
	size_t n[2];
} X;

static const char *const op_name[] = {
	[UET_OP_SEND] = "SEND", [UET_OP_TSEND] = "TSEND",
	[UET_OP_RECV] = "RECV", [UET_OP_TRECV] = "TRECV",
	[UET_OP_WRITE] = "WRITE", [UET_OP_READ] = "READ",
};

static void on_complete(struct uet_harness *h, unsigned node,
			const struct uet_completion *c)
{
	cr_assert_lt(X.n[node], MAXC);
	X.c[node][X.n[node]++] = *c;
	uet_trace_note(&X.t, "n%u completes %s: err %d len %zu", node,
		       c->flags & UET_CF_RECV ? "a receive" : "an op",
		       c->err, c->len);
	(void)h;
}

static void node_cfg(struct uet_fep_config *c, unsigned i)
{
	struct uet_addr a = uet_harness_addr(i);

	uet_fep_config_default(c);
	c->job_id = JOB;
	c->pid_on_fep = uet_addr_pid(&a);
	c->resource_index = uet_addr_ri(&a);
}

/* Two nodes of cfg (NULL: node_cfg), links of RATE and DELAY both ways
 * plus imp on the link into node 1, traced from the start. */
static void start(const struct uet_fep_config *cfg,
		  const struct uet_mem_impair *imp)
{
	struct uet_mem_impair link = { .delay = DELAY, .rate = RATE };
	struct uet_fep_config c[2];
	unsigned i;

	memset(&X, 0, sizeof(X));
	for (i = 0; i < 2; i++)
		if (cfg)
			c[i] = cfg[i];
		else
			node_cfg(&c[i], i);
	cr_assert_eq(uet_harness_init_each(&X.h, 2, c, NULL, SEED), 0);
	X.h.on_complete = on_complete;
	cr_assert_eq(uet_trace_start(&X.t, &X.h), 0);
	cr_assert_eq(uet_mem_port_set_impair(X.h.node[0].port, &link), 0);
	if (imp) {
		link = *imp;
		link.delay = DELAY;
		link.rate = RATE;
	}
	cr_assert_eq(uet_mem_port_set_impair(X.h.node[1].port, &link), 0);
}

static void stop(void)
{
	uet_trace_fini(&X.t);
	uet_harness_fini(&X.h);
}

TestSuite(trace, .fini = stop, .timeout = 60);

static void post(unsigned node, uint8_t type, void *buf, size_t len,
		 uint64_t tag, uint64_t key, uint64_t raddr)
{
	struct uet_iov iov = { buf, len };
	struct uet_addr peer = uet_harness_addr(1 - node);
	struct uet_op op = { .tag = tag, .rkey = key, .raddr = raddr };

	test_op_init(&op, type, UET_OPF_COMPLETION, buf, &peer, &iov);
	uet_trace_note(&X.t, "n%u posts %s of %zu bytes", node, op_name[type],
		       len);
	cr_assert_eq(uet_fep_post(X.h.node[node].fep, &op, X.h.now), 0);
}

static size_t want[2];

static bool have_all(struct uet_harness *h, void *arg)
{
	(void)h;
	(void)arg;
	return X.n[0] >= want[0] && X.n[1] >= want[1];
}

/* Run until node 0 has n0 completions and node 1 n1, then on for
 * `after` (delayed ACKs, closes): what the trace shows ends there. */
static void run(size_t n0, size_t n1, uet_time after)
{
	want[0] = n0;
	want[1] = n1;
	cr_assert(uet_harness_run(&X.h, have_all, NULL, X.h.now + 10 * UET_SEC),
		  "completions: %zu / %zu", X.n[0], X.n[1]);
	uet_harness_run(&X.h, NULL, NULL, X.h.now + after);
	cr_assert_not(X.h.stuck);
}

static uint8_t *pattern(size_t len, unsigned seed)
{
	uint8_t *p = malloc(len);
	size_t i;

	cr_assert_not_null(p);
	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 31 + seed);
	return p;
}

static struct uet_fep_stats stats(unsigned node)
{
	struct uet_fep_stats st;

	uet_fep_stats(X.h.node[node].fep, &st);
	return st;
}

static void check(const char *name)
{
	cr_assert(uet_trace_check(&X.t, name), "trace %s: see the diff above",
		  name);
}

/* A PDC opens: the SYN requests, each ACKed, then a request after the
 * SYN phase ended, addressed to the target's PDC. */
Test(trace, establish)
{
	uint8_t *a = pattern(3000, 1), *b = pattern(100, 2);
	uint8_t ra[3000], rb[100], rc[100];

	start(NULL, NULL);
	post(1, UET_OP_TRECV, ra, sizeof(ra), 1, 0, 0);
	post(1, UET_OP_TRECV, rb, sizeof(rb), 2, 0, 0);
	post(0, UET_OP_TSEND, a, 3000, 1, 0, 0);
	post(0, UET_OP_TSEND, b, 100, 2, 0, 0);
	run(2, 2, 0);
	post(1, UET_OP_TRECV, rc, sizeof(rc), 3, 0, 0);
	post(0, UET_OP_TSEND, b, 100, 3, 0, 0);
	run(3, 3, 5 * UET_MSEC);
	cr_assert(!memcmp(ra, a, sizeof(ra)));
	cr_assert(!memcmp(rb, b, sizeof(rb)));
	cr_assert(!memcmp(rc, b, sizeof(rc)));
	cr_assert_eq(stats(0).pdc_open, 1);
	check("establish");
	free(a);
	free(b);
}

/* The fourth packet into node 1 is dropped: SACK and loss inference (or
 * the RTO) resend exactly that one. */
Test(trace, loss)
{
	struct uet_mem_impair imp = { .drop_mask = 1u << 3 };
	size_t len = 8000;
	uint8_t *a = pattern(len, 3), *r = calloc(1, len);

	start(NULL, &imp);
	post(1, UET_OP_TRECV, r, len, 7, 0, 0);
	post(0, UET_OP_TSEND, a, len, 7, 0, 0);
	run(1, 1, 5 * UET_MSEC);
	cr_assert(!memcmp(r, a, len));
	cr_assert_eq(stats(0).retx_rto + stats(0).retx_nack +
		     stats(0).retx_sack + stats(0).retx_tlp, 1);
	check("loss");
	free(a);
	free(r);
}

/* An idle PDC closes: the initiator's close request and the target's
 * answer, after pdc_idle. */
Test(trace, close)
{
	struct uet_fep_config c[2];
	uint8_t a[64] = { 1 }, r[64];
	unsigned i;

	for (i = 0; i < 2; i++) {
		node_cfg(&c[i], i);
		c[i].pdc_idle = 50 * UET_MSEC;
	}
	start(c, NULL);
	post(1, UET_OP_TRECV, r, sizeof(r), 3, 0, 0);
	post(0, UET_OP_TSEND, a, sizeof(a), 3, 0, 0);
	run(1, 1, 0);
	cr_assert(uet_harness_run(&X.h, NULL, NULL, X.h.now + 10 * UET_SEC),
		  "the engine never went quiet");
	cr_assert_eq(stats(0).pdc_open, 1);
	cr_assert_eq(stats(0).pdc_closed, 1);
	check("close");
}

/* A send above rndv_threshold: the eager part with the rendezvous
 * extension, the target's reads of the rest, their responses. */
Test(trace, rendezvous)
{
	struct uet_fep_config c[2];
	size_t len = 12000;
	uint8_t *a = pattern(len, 4), *r = calloc(1, len);
	unsigned i;

	for (i = 0; i < 2; i++) {
		node_cfg(&c[i], i);
		c[i].rndv_threshold = 4096;
	}
	start(c, NULL);
	post(1, UET_OP_TRECV, r, len, 9, 0, 0);
	post(0, UET_OP_TSEND, a, len, 9, 0, 0);
	run(1, 1, 5 * UET_MSEC);
	cr_assert(!memcmp(r, a, len));
	check("rendezvous");
	free(a);
	free(r);
}

/* RMA to an IDEMPOTENT_SAFE key without a PDC: RUDI requests, one
 * response each. */
Test(trace, rudi)
{
	struct uet_fep_config c[2];
	struct uet_mr_attr mr;
	size_t len = 2500, region = 4096;
	uint8_t *tgt = calloc(1, region), *a = pattern(len, 5),
		*back = calloc(1, len);
	unsigned i;

	for (i = 0; i < 2; i++) {
		node_cfg(&c[i], i);
		c[i].rudi = true;
	}
	start(c, NULL);
	mr = (struct uet_mr_attr){ .base = tgt, .len = region, .key = KEY,
				   .access = IDEM };
	cr_assert_eq(uet_fep_mr_reg(X.h.node[1].fep, &mr), 0);
	post(0, UET_OP_WRITE, a, len, 0, KEY, 100);
	run(1, 0, 0);
	post(0, UET_OP_READ, back, len, 0, KEY, 100);
	run(2, 0, 5 * UET_MSEC);
	cr_assert(!memcmp(tgt + 100, a, len));
	cr_assert(!memcmp(back, a, len));
	cr_assert_eq(stats(0).pdc_open, 0);
	check("rudi");
	free(tgt);
	free(a);
	free(back);
}

static unsigned refused;

/* Refuses node 1's first packet: the harness, not the net, loses it. */
static bool refuse_first_of_n1(struct uet_harness *h, unsigned node,
			       const struct uet_pkt_info *pi,
			       const uint8_t *pkt, size_t len)
{
	(void)h;
	(void)pi;
	(void)pkt;
	(void)len;
	return node != 1 || refused++;
}

/* Every fate the trace can tell, on one message into node 1: its second
 * packet trimmed, third duplicated, fourth CE-marked, fifth held back;
 * node 1's first answer lost in the harness. */
Test(trace, impair)
{
	struct uet_mem_impair imp = { .trim_mask = 1u << 1,
				      .dup_mask = 1u << 2,
				      .mark_mask = 1u << 3,
				      .reorder_mask = 1u << 4 };
	struct uet_fep_config c[2];
	size_t len = 8000;
	uint8_t *a = pattern(len, 6), *r = calloc(1, len);
	unsigned i;

	for (i = 0; i < 2; i++) {
		node_cfg(&c[i], i);
		c[i].trimming = true;
	}
	start(c, &imp);
	refused = 0;
	X.h.on_tx = refuse_first_of_n1;
	post(1, UET_OP_TRECV, r, len, 8, 0, 0);
	post(0, UET_OP_TSEND, a, len, 8, 0, 0);
	run(1, 1, 5 * UET_MSEC);
	cr_assert(!memcmp(r, a, len));
	cr_assert_eq(X.h.hook_drops, 1);
	cr_assert_geq(stats(1).dup_rx, 1);
	check("impair");
	free(a);
	free(r);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* The comparison itself: UET_TRACE_UPDATE=1 writes the reference, the
 * same trace passes, one changed line fails and shows as a -/+ pair with
 * its context, a missing reference fails. */
Test(trace, check_fails_on_one_changed_line)
{
	char dir[] = P_tmpdir "/uet-trace-XXXXXX", path[sizeof(dir) + 16];
	char *diff = NULL;
	size_t diff_len = 0;
	FILE *out;

	start(NULL, NULL);
	out = open_memstream(&diff, &diff_len);
	cr_assert_not_null(out);
	X.t.diff_out = out;
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/self.txt", dir);
	/* (each test is a process of its own: the environment is ours) */
	cr_assert_eq(setenv("UET_TRACE_DIR", dir, 1), 0);
	uet_trace_note(&X.t, "one");
	uet_trace_note(&X.t, "two");
	uet_trace_note(&X.t, "three");
	cr_assert_eq(setenv("UET_TRACE_UPDATE", "1", 1), 0);
	cr_assert(uet_trace_check(&X.t, "self"));
	cr_assert_eq(unsetenv("UET_TRACE_UPDATE"), 0);
	cr_assert(uet_trace_check(&X.t, "self"));
	write_file(path, "0.000000000 # one\n0.000000000 # TWO\n"
			 "0.000000000 # three\n");
	cr_assert_not(uet_trace_check(&X.t, "self"));
	cr_assert_not(uet_trace_check(&X.t, "none"));
	cr_assert_eq(fclose(out), 0);
	X.t.diff_out = NULL;
	cr_assert_not_null(strstr(diff, "trace: wrote "), "%s", diff);
	cr_assert_not_null(strstr(diff, "at line 2 "), "%s", diff);
	cr_assert_not_null(strstr(diff, "@@ -1,3 +1,3 @@\n"
					" 0.000000000 # one\n"
					"-0.000000000 # TWO\n"
					"+0.000000000 # two\n"
					" 0.000000000 # three\n"), "%s", diff);
	cr_assert_not_null(strstr(diff, "trace none: no reference"), "%s",
			   diff);
	free(diff);
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(rmdir(dir), 0);
}
