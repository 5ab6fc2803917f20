/* Triggered operations (fi_trigger.3) through the real engine on the
 * mem net under the fake clock: an operation posted with FI_TRIGGER
 * waits until its counter reaches the threshold, whether fi_cntr_add or
 * completions move it, then runs with the triggered context as its
 * completion context; an alias (fi_ep_alias) gives FI_TRIGGER to
 * fi_write; the errors.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <criterion/criterion.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_trigger.h>

#include "uetp.h"

#include "test_util.h"

#define REGION	4096

static struct {
	struct uetp_test_pair p;
	struct fid_cntr *trig;		/* a counter bound to nothing */
	struct fid_mr *mr;		/* b's region */
	uint8_t mem[REGION], src[REGION];
} tx;

/* On the mem net under the fake clock. */
static void tx_open(void)
{
	struct fi_info *h = uetp_test_lo_hints(FI_EP_RDM, FI_MSG | FI_RMA |
					       FI_TRIGGER);
	struct fi_cntr_attr na = { .events = FI_CNTR_EVENTS_COMP };
	/* each side's counter: FI_SEND | FI_WRITE | FI_RECV */
	struct uetp_test_side_attr sa = {
		.cq = { .format = FI_CQ_FORMAT_CONTEXT, .size = 32 },
		.cntr = na,
		.cntr_flags = FI_SEND | FI_RECV | FI_WRITE,
	};

	uetp_test_mem_start(NULL);
	h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_ALLOCATED |
				  FI_MR_PROV_KEY;
	uetp_test_getinfo(&tx.p, h);
	cr_assert(tx.p.info->caps & FI_TRIGGER, "FI_TRIGGER advertised");
	cr_assert(tx.p.info->tx_attr->caps & FI_TRIGGER);
	uetp_test_pair_open(&tx.p, &sa);
	cr_assert_eq(fi_cntr_open(tx.p.domain, &na, &tx.trig, NULL), 0);
	uetp_test_own(&tx.p, &tx.trig->fid);
	cr_assert_eq(fi_mr_reg(tx.p.domain, tx.mem, REGION, FI_REMOTE_WRITE,
			       0, 0, 0, &tx.mr, NULL), 0);
	uetp_test_own(&tx.p, &tx.mr->fid);
	memset(tx.mem, 0, sizeof(tx.mem));
	for (size_t i = 0; i < sizeof(tx.src); i++)
		tx.src[i] = (uint8_t)(i * 7 + 1);
}

static void tx_close(void)
{
	uetp_test_pair_close(&tx.p);
	memset(&tx, 0, sizeof(tx));
}

TestSuite(trigger, .init = tx_open, .fini = tx_close, .timeout = 60);

/* Run both sides for ms milliseconds; a's completion contexts in ctx
 * (up to max), their number returned. */
static int run_for(int ms, void **ctx, int max)
{
	uet_time end = uetp_now() + (uet_time)ms * UET_MSEC;
	struct fi_cq_entry e;
	int n = 0;

	while (uetp_now() < end) {
		if (fi_cq_read(tx.p.a.cq, &e, 1) == 1 && n < max)
			ctx[n++] = e.op_context;
		fi_cq_read(tx.p.b.cq, &e, 0);
		uetp_test_idle(tx.p.domain);
	}
	return n;
}

/* Run until a has `want` completions (10 s at most). */
static int run_until(int want, void **ctx, int max)
{
	uet_time end = uetp_now() + 10 * UET_SEC;
	struct fi_cq_entry e;
	int n = 0;

	while (n < want && uetp_now() < end) {
		if (fi_cq_read(tx.p.a.cq, &e, 1) == 1 && n < max)
			ctx[n++] = e.op_context;
		fi_cq_read(tx.p.b.cq, &e, 0);
		uetp_test_idle(tx.p.domain);
	}
	return n;
}

/* b's next completion in *e (10 s at most), a progressing too. */
static bool b_completes(struct fi_cq_entry *e)
{
	uet_time end = uetp_now() + 10 * UET_SEC;

	while (uetp_now() < end) {
		fi_cq_read(tx.p.a.cq, e, 1);
		if (fi_cq_read(tx.p.b.cq, e, 1) == 1)
			return true;
		uetp_test_idle(tx.p.domain);
	}
	return false;
}

static ssize_t trig_write(struct fid_ep *ep, struct fi_triggered_context *tc,
			  size_t off, size_t len)
{
	struct iovec iov = { .iov_base = tx.src + off, .iov_len = len };
	struct fi_rma_iov riov = { .addr = off, .len = len,
				   .key = fi_mr_key(tx.mr) };
	struct fi_msg_rma m = {
		.msg_iov = &iov, .iov_count = 1, .addr = tx.p.a.peer,
		.rma_iov = &riov, .rma_iov_count = 1, .context = tc,
	};

	return fi_writemsg(ep, &m, FI_TRIGGER | FI_COMPLETION);
}

static void tc_set(struct fi_triggered_context *tc, struct fid_cntr *c,
		   size_t threshold)
{
	memset(tc, 0, sizeof(*tc));
	tc->event_type = FI_TRIGGER_THRESHOLD;
	tc->trigger.threshold.cntr = c;
	tc->trigger.threshold.threshold = threshold;
}

Test(trigger, write_waits_for_cntr_add)
{
	struct fi_triggered_context tc;
	void *ctx[4];

	tc_set(&tc, tx.trig, 2);
	cr_assert_eq(trig_write(tx.p.a.ep, &tc, 0, 256), 0);
	cr_assert_eq(run_for(100, ctx, 4), 0, "ran before its threshold");
	cr_assert_eq(tx.mem[0], 0);
	cr_assert_eq(fi_cntr_add(tx.trig, 1), 0);
	cr_assert_eq(run_for(50, ctx, 4), 0, "ran at 1 of 2");
	cr_assert_eq(fi_cntr_add(tx.trig, 1), 0);
	cr_assert_eq(run_until(1, ctx, 4), 1);
	cr_assert_eq(ctx[0], &tc, "the triggered context completes");
	cr_assert_arr_eq(tx.mem, tx.src, 256);
	cr_assert_eq(fi_cntr_read(tx.p.a.cntr), 1);
}

Test(trigger, set_reaches_threshold)
{
	struct fi_triggered_context tc;
	void *ctx[2];

	tc_set(&tc, tx.trig, 5);
	cr_assert_eq(trig_write(tx.p.a.ep, &tc, 0, 64), 0);
	cr_assert_eq(fi_cntr_set(tx.trig, 4), 0);
	cr_assert_eq(run_for(50, ctx, 2), 0);
	cr_assert_eq(fi_cntr_set(tx.trig, 9), 0);
	cr_assert_eq(run_until(1, ctx, 2), 1);
	cr_assert_arr_eq(tx.mem, tx.src, 64);
}

/* fi_rdm_rma_trigger's pattern: the triggered write waits for the
 * completion of the plain one posted after it, so lands second. */
Test(trigger, completion_fires_in_order)
{
	struct fi_triggered_context tc;
	struct iovec iov = { .iov_base = tx.src + 100, .iov_len = 32 };
	void *ctx[4];
	uint64_t start = fi_cntr_read(tx.p.a.cntr);

	tc_set(&tc, tx.p.a.cntr, start + 1);
	/* the triggered one writes src[0..31] at 0, the plain one
	 * src[100..131] at 0: the last writer wins */
	cr_assert_eq(trig_write(tx.p.a.ep, &tc, 0, 32), 0);
	cr_assert_eq(fi_writev(tx.p.a.ep, &iov, NULL, 1, tx.p.a.peer, 0,
			       fi_mr_key(tx.mr), (void *)0x11), 0);
	/* a CQ read runs progress, and the queue after it */
	cr_assert_eq(run_until(2, ctx, 4), 2);
	cr_assert_eq(fi_cntr_read(tx.p.a.cntr), start + 2);
	cr_assert_eq(ctx[0], (void *)0x11);
	cr_assert_eq(ctx[1], &tc);
	cr_assert_arr_eq(tx.mem, tx.src, 32);
}

Test(trigger, send_and_recv)
{
	struct fi_triggered_context ts, tr;
	char rbuf[32] = { 0 };
	struct iovec siov = { .iov_base = tx.src, .iov_len = 32 };
	struct iovec riov = { .iov_base = rbuf, .iov_len = sizeof(rbuf) };
	struct fi_msg sm = { .msg_iov = &siov, .iov_count = 1,
			     .addr = tx.p.a.peer, .context = &ts };
	struct fi_msg rm = { .msg_iov = &riov, .iov_count = 1,
			     .addr = FI_ADDR_UNSPEC, .context = &tr };
	struct fi_cq_entry e;

	tc_set(&ts, tx.trig, 1);
	tc_set(&tr, tx.trig, 1);
	cr_assert_eq(fi_recvmsg(tx.p.b.ep, &rm, FI_TRIGGER), 0);
	cr_assert_eq(fi_sendmsg(tx.p.a.ep, &sm, FI_TRIGGER), 0);
	cr_assert_eq(fi_cntr_add(tx.trig, 1), 0);
	cr_assert(b_completes(&e));
	cr_assert_eq(e.op_context, &tr);
	cr_assert_arr_eq(rbuf, tx.src, 32);
}

Test(trigger, threshold_met_posts_now)
{
	struct fi_triggered_context tc;
	void *ctx[2];

	cr_assert_eq(fi_cntr_set(tx.trig, 3), 0);
	tc_set(&tc, tx.trig, 3);
	cr_assert_eq(trig_write(tx.p.a.ep, &tc, 0, 16), 0);
	cr_assert_eq(run_until(1, ctx, 2), 1);
	cr_assert_eq(ctx[0], &tc);
}

Test(trigger, alias_gives_fi_write_the_flag)
{
	struct uetp_ep *ep = uet_container_of(tx.p.a.ep, struct uetp_ep, fid);
	struct fi_triggered_context tc;
	struct fid *alias = NULL;
	struct fi_alias arg = { .fid = &alias,
				.flags = FI_TRANSMIT | FI_TRIGGER };
	struct fid_ep *aep;
	void *ctx[2];

	cr_assert_eq(uetp_alias_open(ep, &arg), 0);
	aep = uet_container_of(alias, struct fid_ep, fid);
	tc_set(&tc, tx.trig, 1);
	cr_assert_eq(fi_write(aep, tx.src, 48, NULL, tx.p.a.peer, 0,
			      fi_mr_key(tx.mr), &tc), 0);
	cr_assert_eq(run_for(50, ctx, 2), 0, "queued, not posted");
	cr_assert_eq(fi_cntr_add(tx.trig, 1), 0);
	cr_assert_eq(run_until(1, ctx, 2), 1);
	cr_assert_eq(ctx[0], &tc);
	cr_assert_arr_eq(tx.mem, tx.src, 48);
	cr_assert_eq(fi_close(alias), 0);
	arg.flags = FI_TRANSMIT | FI_CLAIM;
	cr_assert_eq(uetp_alias_open(ep, &arg), -FI_EBADFLAGS);
}

Test(trigger, errors)
{
	struct fi_triggered_context tc;
	struct fid_cntr *other;
	struct fi_cntr_attr na = { .events = FI_CNTR_EVENTS_COMP };

	cr_assert_eq(trig_write(tx.p.a.ep, NULL, 0, 16), -FI_EINVAL,
		     "FI_TRIGGER needs its context");
	tc_set(&tc, tx.trig, 1);
	tc.event_type = FI_TRIGGER_XPU;
	cr_assert_eq(trig_write(tx.p.a.ep, &tc, 0, 16), -FI_ENOSYS);
	tc_set(&tc, (struct fid_cntr *)tx.p.a.cq, 1);
	cr_assert_eq(trig_write(tx.p.a.ep, &tc, 0, 16), -FI_EINVAL,
		     "not a counter");
	/* the counter stays open while an operation waits on it */
	cr_assert_eq(fi_cntr_open(tx.p.domain, &na, &other, NULL), 0);
	tc_set(&tc, other, 1);
	cr_assert_eq(trig_write(tx.p.a.ep, &tc, 0, 16), 0);
	cr_assert_eq(fi_close(&other->fid), -FI_EBUSY);
	cr_assert_eq(fi_cntr_add(other, 1), 0);
	{
		void *ctx[1];

		cr_assert_eq(run_until(1, ctx, 1), 1);
	}
	cr_assert_eq(fi_close(&other->fid), 0);
}

/* An endpoint that closes drops what still waits for it (the hook its
 * fi_close calls). */
Test(trigger, ep_close_drops_waiting)
{
	struct uetp_ep *ep = uet_container_of(tx.p.a.ep, struct uetp_ep, fid);
	struct fi_triggered_context tc;
	struct fid_cntr *c;
	struct fi_cntr_attr na = { .events = FI_CNTR_EVENTS_COMP };
	void *ctx[1];

	cr_assert_eq(fi_cntr_open(tx.p.domain, &na, &c, NULL), 0);
	tc_set(&tc, c, 1);
	cr_assert_eq(trig_write(tx.p.a.ep, &tc, 0, 16), 0);
	cr_assert_eq(fi_close(&c->fid), -FI_EBUSY);
	uetp_trigger_ep_close(ep);
	cr_assert_eq(fi_cntr_add(c, 1), 0);
	cr_assert_eq(run_for(50, ctx, 1), 0, "dropped, never posted");
	cr_assert_eq(tx.mem[0], 0);
	cr_assert_eq(fi_close(&c->fid), 0);
}

/* An alias has its endpoint's op tables: a send and a receive without a
 * flags argument take the alias's flags (FI_TRIGGER here, both
 * directions), and its name is the endpoint's. */
Test(trigger, alias_send_and_recv_take_its_flags)
{
	struct uetp_ep *ea = uet_container_of(tx.p.a.ep, struct uetp_ep, fid);
	struct uetp_ep *eb = uet_container_of(tx.p.b.ep, struct uetp_ep, fid);
	struct fi_alias arg = { .flags = FI_TRIGGER };
	struct fi_triggered_context ts, tr;
	struct fid *sa = NULL, *ra = NULL;
	char rbuf[32] = { 0 }, n1[64], n2[64];
	size_t l1 = sizeof(n1), l2 = sizeof(n2);
	struct fi_cq_entry e;
	void *ctx[2];

	arg.fid = &sa;
	cr_assert_eq(uetp_alias_open(ea, &arg), 0);
	arg.fid = &ra;
	cr_assert_eq(uetp_alias_open(eb, &arg), 0);
	cr_assert_eq(fi_getname(sa, n1, &l1), 0);
	cr_assert_eq(fi_getname(&tx.p.a.ep->fid, n2, &l2), 0);
	cr_assert_eq(l1, l2);
	cr_assert_arr_eq(n1, n2, l1);
	tc_set(&ts, tx.trig, 1);
	tc_set(&tr, tx.trig, 1);
	cr_assert_eq(fi_recv(uet_container_of(ra, struct fid_ep, fid), rbuf,
			     sizeof(rbuf), NULL, FI_ADDR_UNSPEC, &tr), 0);
	cr_assert_eq(fi_send(uet_container_of(sa, struct fid_ep, fid),
			     tx.src, 32, NULL, tx.p.a.peer, &ts), 0);
	cr_assert_eq(run_for(50, ctx, 2), 0, "queued, not posted");
	cr_assert_eq(fi_cntr_add(tx.trig, 1), 0);
	cr_assert(b_completes(&e));
	cr_assert_eq(e.op_context, &tr);
	cr_assert_arr_eq(rbuf, tx.src, 32);
	cr_assert_eq(fi_close(sa), 0);
	cr_assert_eq(fi_close(ra), 0);
}
