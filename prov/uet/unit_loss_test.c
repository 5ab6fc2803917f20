/* Two endpoints of one process on the mem net under the fake clock:
 * messages and RMA both ways, a dropped packet sent again, a peer that
 * went silent turning every pending operation into an error completion.
 * The engine's timers run on the test's clock, so a resend after a 1 s
 * RTO and a retry budget of many seconds take no wall-clock time.
 */
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>

#include <criterion/criterion.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "uet/err.h"
#include "uetp.h"

#include "test_util.h"

#define REGION		4096
#define RTO_MS		1000		/* FI_UET_RTO_MS of these tests */

static struct {
	struct uetp_test_pair p;
	struct fid_mr *mr;		/* b's region */
	uint8_t mem[REGION], buf[REGION];
} lx;

static void lx_open(void)
{
	struct fi_info *h = uetp_test_lo_hints(FI_EP_RDM, FI_MSG | FI_RMA);
	const struct uetp_test_side_attr sa = {
		.cq = { .format = FI_CQ_FORMAT_DATA, .size = 64 },
	};

	setenv("FI_UET_RTO_MS", "1000", 1);
	uetp_test_mem_start(NULL);
	h->domain_attr->mr_mode = FI_MR_PROV_KEY;
	uetp_test_getinfo(&lx.p, h);
	uetp_test_pair_open(&lx.p, &sa);
	cr_assert_eq(fi_mr_reg(lx.p.domain, lx.mem, REGION, FI_REMOTE_READ |
			       FI_REMOTE_WRITE, 0, 0, 0, &lx.mr, NULL), 0);
	uetp_test_own(&lx.p, &lx.mr->fid);
}

static void lx_close(void)
{
	uetp_test_pair_close(&lx.p);
}

TestSuite(loss, .init = lx_open, .fini = lx_close, .timeout = 60);

/* s's next completion, good (1) or bad (-FI_EAVAIL, the entry in *ee),
 * reading both CQs and moving the fake clock when nothing happens; fails
 * after `limit` of fake time. */
static ssize_t next_comp(struct uetp_test_side *s, struct fi_cq_data_entry *e,
			 struct fi_cq_err_entry *ee, uet_time limit)
{
	uet_time end = uetp_now() + limit;
	ssize_t ret;

	do {
		ret = fi_cq_read(s->cq, e, 1);
		if (ret == -FI_EAVAIL) {
			memset(ee, 0, sizeof(*ee));
			cr_assert_eq(fi_cq_readerr(s->cq, ee, 0), 1);
			return ret;
		}
		if (ret != -FI_EAGAIN)
			break;
		fi_cq_read(s == &lx.p.a ? lx.p.b.cq : lx.p.a.cq, NULL, 0);
		uetp_test_idle(lx.p.domain);
	} while (uetp_now() < end);
	cr_assert_eq(ret, 1, "no completion (%zd)", ret);
	return ret;
}

static void expect_ok(struct uetp_test_side *s, void *ctx)
{
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry ee;

	cr_assert_eq(next_comp(s, &e, &ee, 10 * UET_SEC), 1,
		     "error %d (prov_errno %d)", ee.err, ee.prov_errno);
	cr_assert_eq(e.op_context, ctx);
}

/* The next two completions of s, good, with contexts c1 and c2 in either
 * order (a send's and a receive's share the CQ). */
static void expect_two(struct uetp_test_side *s, void *c1, void *c2)
{
	struct fi_cq_data_entry e[2];
	struct fi_cq_err_entry ee;

	for (int i = 0; i < 2; i++)
		cr_assert_eq(next_comp(s, &e[i], &ee, 10 * UET_SEC), 1,
			     "error %d (prov_errno %d)", ee.err,
			     ee.prov_errno);
	cr_assert((e[0].op_context == c1 && e[1].op_context == c2) ||
		  (e[0].op_context == c2 && e[1].op_context == c1));
}

static struct uet_fep_stats stats_of(struct uetp_test_side *s)
{
	struct uet_fep_stats st;

	uet_fep_stats(uetp_test_ep(s->ep)->fep, &st);
	return st;
}

static struct uet_mem_stats net_stats(void)
{
	struct uet_mem_stats st;

	uet_mem_net_stats(uetp_tnet.net, &st);
	return st;
}

Test(loss, messages_and_rma_both_ways)
{
	char ra[16] = "", rb[16] = "";

	cr_assert_eq(uetp_test_port(lx.p.a.ep)->ops->fd(
			uetp_test_port(lx.p.a.ep)), -1, "not on the mem net");
	cr_assert_eq(fi_recv(lx.p.b.ep, rb, sizeof(rb), NULL, FI_ADDR_UNSPEC,
			     (void *)1), 0);
	cr_assert_eq(fi_recv(lx.p.a.ep, ra, sizeof(ra), NULL, FI_ADDR_UNSPEC,
			     (void *)2), 0);
	cr_assert_eq(fi_send(lx.p.a.ep, "to b", 5, NULL, lx.p.a.peer,
			     (void *)3), 0);
	cr_assert_eq(fi_send(lx.p.b.ep, "to a", 5, NULL, lx.p.b.peer,
			     (void *)4), 0);
	expect_two(&lx.p.a, (void *)2, (void *)3);
	expect_two(&lx.p.b, (void *)1, (void *)4);
	cr_assert_str_eq(rb, "to b");
	cr_assert_str_eq(ra, "to a");

	for (size_t i = 0; i < REGION; i++)
		lx.buf[i] = (uint8_t)(i * 13 + 5);
	cr_assert_eq(fi_write(lx.p.a.ep, lx.buf, REGION, NULL, lx.p.a.peer,
			      0, fi_mr_key(lx.mr), (void *)5), 0);
	expect_ok(&lx.p.a, (void *)5);
	cr_assert_arr_eq(lx.mem, lx.buf, REGION);
	memset(lx.buf, 0, REGION);
	cr_assert_eq(fi_read(lx.p.a.ep, lx.buf + 16, 64, NULL, lx.p.a.peer,
			     100, fi_mr_key(lx.mr), (void *)6), 0);
	expect_ok(&lx.p.a, (void *)6);
	cr_assert_arr_eq(lx.buf + 16, lx.mem + 100, 64);
	cr_assert_eq(lx.buf[15], 0);
	cr_assert_eq(lx.buf[80], 0);
	cr_assert_eq(net_stats().dropped, 0);
	cr_assert_eq(stats_of(&lx.p.a).retx_rto, 0, "a resend on a clean net");
}

/* The first packet into b is lost: a sends it again when its RTO (1 s)
 * expires on the fake clock, and the message arrives, with no second
 * of real time spent. */
Test(loss, dropped_packet_resent)
{
	const struct uet_mem_impair drop_first = { .drop_mask = 1 };
	uet_time t0 = uetp_now(), w0 = uetp_clock_monotonic();
	struct uet_fep_stats st;
	char rb[16] = "";

	cr_assert_eq(uet_mem_port_set_impair(uetp_test_port(lx.p.b.ep),
					     &drop_first), 0);
	cr_assert_eq(fi_recv(lx.p.b.ep, rb, sizeof(rb), NULL, FI_ADDR_UNSPEC,
			     (void *)1), 0);
	cr_assert_eq(fi_send(lx.p.a.ep, "again", 6, NULL, lx.p.a.peer,
			     (void *)2), 0);
	expect_ok(&lx.p.b, (void *)1);
	cr_assert_str_eq(rb, "again");
	expect_ok(&lx.p.a, (void *)2);
	st = stats_of(&lx.p.a);
	cr_assert_eq(net_stats().dropped, 1);
	cr_assert_eq(st.retx_rto, 1, "%llu resends on RTO",
		     (unsigned long long)st.retx_rto);
	cr_assert_geq(uetp_now() - t0, RTO_MS * UET_MSEC,
		      "resent before the RTO");
	cr_assert_lt(uetp_clock_monotonic() - w0, RTO_MS * UET_MSEC,
		     "waited for real");
}

/* b goes silent (its link drops everything): a's send, write and read
 * fail with FI_EHOSTUNREACH once a PDC has spent its retries, and not
 * before max_retx RTOs have passed on the fake clock. */
Test(loss, dead_peer_fails_pending_ops)
{
	const struct uet_mem_impair black_hole = { .drop_mask = ~0ull };
	const uet_time budget = (uet_time)uetp_test_ep(lx.p.a.ep)->cfg.max_retx *
				RTO_MS * UET_MSEC;
	uet_time t0 = uetp_now(), w0 = uetp_clock_monotonic();
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry ee;
	bool failed[3] = { false, false, false };

	cr_assert_eq(uet_mem_port_set_impair(uetp_test_port(lx.p.b.ep),
					     &black_hole), 0);
	cr_assert_eq(fi_send(lx.p.a.ep, "anyone?", 8, NULL, lx.p.a.peer,
			     &failed[0]), 0);
	cr_assert_eq(fi_write(lx.p.a.ep, lx.buf, 64, NULL, lx.p.a.peer, 0,
			      fi_mr_key(lx.mr), &failed[1]), 0);
	cr_assert_eq(fi_read(lx.p.a.ep, lx.buf, 64, NULL, lx.p.a.peer, 0,
			     fi_mr_key(lx.mr), &failed[2]), 0);
	for (int n = 0; n < 3; n++) {
		cr_assert_eq(next_comp(&lx.p.a, &e, &ee, 600 * UET_SEC),
			     -FI_EAVAIL, "op %d completed", n);
		cr_assert_eq(ee.err, FI_EHOSTUNREACH, "err %d", ee.err);
		cr_assert_eq(ee.prov_errno, UET_ERR_PEER, "prov_errno %d",
			     ee.prov_errno);
		cr_assert(ee.op_context >= (void *)&failed[0] &&
			  ee.op_context <= (void *)&failed[2]);
		cr_assert_not(*(bool *)ee.op_context, "failed twice");
		*(bool *)ee.op_context = true;
		cr_assert_geq(uetp_now() - t0, budget, "gave up early");
	}
	cr_assert_eq(fi_cq_read(lx.p.a.cq, &e, 1), -FI_EAGAIN);
	cr_assert_eq(stats_of(&lx.p.b).rx_pkts, 0, "b heard something");
	cr_assert_geq(stats_of(&lx.p.a).retx_rto,
		      uetp_test_ep(lx.p.a.ep)->cfg.max_retx);
	cr_assert_eq(stats_of(&lx.p.a).pdc_failed, 1);
	cr_assert_lt(uetp_clock_monotonic() - w0, budget, "waited for real");
}
