/* Poll sets and wait sets (fi_poll.3) over two endpoints (poll sets on
 * the mem net under the fake clock, wait sets on loopback sockets):
 * fi_poll reports the CQs and counters that have something to read and
 * drives progress for them; fi_wait sleeps on the set's fd and wakes
 * when a packet turns into a completion, including one that arrives
 * while it sleeps; fi_trywait and FI_GETWAIT on the set; the set's
 * bookkeeping errors.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <rdma/fi_errno.h>

#include "uetp.h"

#include "test_util.h"

static struct {
	struct uetp_test_pair p;
	struct fid_wait *ws;		/* NULL: plain wait objects */
	char buf[64];
} px;

/* A side whose CQ and counter (FI_SEND | FI_RECV) tell themselves apart
 * by their contexts, ctx and ctx + 1; in the wait set if there is one. */
static void pside_open(struct uetp_test_side *s, char *ctx)
{
	struct uetp_test_side_attr sa = {
		.cq = { .format = FI_CQ_FORMAT_CONTEXT, .size = 16,
			.wait_obj = FI_WAIT_NONE },
		.cq_ctx = ctx,
		.cntr = { .events = FI_CNTR_EVENTS_COMP,
			  .wait_obj = FI_WAIT_NONE },
		.cntr_ctx = ctx + 1,
		.cntr_flags = FI_SEND | FI_RECV,
	};

	if (px.ws) {
		sa.cq.wait_obj = FI_WAIT_SET;
		sa.cq.wait_set = px.ws;
		sa.cntr.wait_obj = FI_WAIT_SET;
		sa.cntr.wait_set = px.ws;
	}
	uetp_test_side_open(s, px.p.domain, px.p.info, &sa);
}

/* Contexts that tell the objects apart in fi_poll's answer. */
static char ctx_a[2], ctx_b[2];

static void px_open_with(bool waitset)
{
	struct fi_wait_attr wa = { .wait_obj = FI_WAIT_UNSPEC };

	uetp_test_getinfo(&px.p, uetp_test_lo_hints(FI_EP_RDM, FI_MSG));
	uetp_test_domain_open(&px.p);
	if (waitset) {
		cr_assert_eq(fi_wait_open(px.p.fabric, &wa, &px.ws), 0);
		uetp_test_own(&px.p, &px.ws->fid);
	}
	pside_open(&px.p.a, ctx_a);
	pside_open(&px.p.b, ctx_b);
	uetp_test_link(&px.p.a, &px.p.b);
	uetp_test_link(&px.p.b, &px.p.a);
}

/* Poll sets on the mem net under the fake clock; wait sets sleep on the
 * sockets, in real time. */
static void px_open(void)
{
	uetp_test_mem_start(NULL);
	px_open_with(false);
}

static void px_open_ws(void)
{
	px_open_with(true);
}

static void px_close(void)
{
	uetp_test_pair_close(&px.p);
	memset(&px, 0, sizeof(px));
}

TestSuite(poll, .init = px_open, .fini = px_close, .timeout = 60);
TestSuite(waitset, .init = px_open_ws, .fini = px_close, .timeout = 60);

static void send_a_to_b(void)
{
	static char rbuf[64];

	cr_assert_eq(fi_recv(px.p.b.ep, rbuf, sizeof(rbuf), NULL, FI_ADDR_UNSPEC,
			     (void *)0x2), 0);
	cr_assert_eq(fi_send(px.p.a.ep, px.buf, 16, NULL, px.p.a.peer,
			     (void *)0x1), 0);
}

static bool has(void **ctx, int n, void *want)
{
	for (int i = 0; i < n; i++)
		if (ctx[i] == want)
			return true;
	return false;
}

/* ---- poll sets ---- */

Test(poll, reports_cqs_and_counters_until_read)
{
	struct fid_poll *ps;
	struct fi_poll_attr pa = { 0 };
	struct fi_cq_entry e;
	void *ctx[8];
	uet_time end;
	int n = 0;
	bool cq_a = false, cq_b = false, cn_b = false;

	cr_assert_eq(fi_poll_open(px.p.domain, &pa, &ps), 0);
	cr_assert_eq(fi_poll_add(ps, &px.p.a.cq->fid, 0), 0);
	cr_assert_eq(fi_poll_add(ps, &px.p.b.cq->fid, 0), 0);
	cr_assert_eq(fi_poll_add(ps, &px.p.b.cntr->fid, 0), 0);
	cr_assert_eq(fi_poll(ps, ctx, 8), 0, "nothing happened yet");
	send_a_to_b();
	/* fi_poll alone moves the packets: no CQ is read meanwhile */
	end = uetp_now() + 10 * UET_SEC;
	while (!(cq_a && cq_b && cn_b) && uetp_now() < end) {
		n = fi_poll(ps, ctx, 8);
		cr_assert_geq(n, 0);
		cq_a |= has(ctx, n, ctx_a);
		cq_b |= has(ctx, n, ctx_b);
		cn_b |= has(ctx, n, ctx_b + 1);
		if (!n)
			uetp_test_idle(px.p.domain);
	}
	cr_assert(cq_a && cq_b && cn_b, "a cq %d, b cq %d, b cntr %d", cq_a,
		  cq_b, cn_b);
	/* the entries stay for the application; reported until read */
	n = fi_poll(ps, ctx, 8);
	cr_assert(has(ctx, n, ctx_b) && has(ctx, n, ctx_b + 1));
	cr_assert_eq(fi_poll(ps, ctx, 1), 1, "count bounds the answer");
	cr_assert_eq(fi_cq_read(px.p.b.cq, &e, 1), 1);
	cr_assert_eq(e.op_context, (void *)0x2);
	cr_assert_eq(fi_cntr_read(px.p.b.cntr), 1);
	cr_assert_eq(fi_cq_read(px.p.a.cq, &e, 1), 1);
	cr_assert_eq(e.op_context, (void *)0x1);
	n = fi_poll(ps, ctx, 8);
	cr_assert_eq(n, 0, "all read, still %d reported", n);
	cr_assert_eq(fi_poll_del(ps, &px.p.a.cq->fid, 0), 0);
	cr_assert_eq(fi_poll_del(ps, &px.p.b.cq->fid, 0), 0);
	cr_assert_eq(fi_poll_del(ps, &px.p.b.cntr->fid, 0), 0);
	cr_assert_eq(fi_close(&ps->fid), 0);
}

Test(poll, counter_add_is_an_event)
{
	struct fid_poll *ps;
	struct fi_poll_attr pa = { 0 };
	void *ctx[2];

	cr_assert_eq(fi_poll_open(px.p.domain, &pa, &ps), 0);
	cr_assert_eq(fi_poll_add(ps, &px.p.a.cntr->fid, 0), 0);
	cr_assert_eq(fi_poll(ps, ctx, 2), 0);
	cr_assert_eq(fi_cntr_add(px.p.a.cntr, 3), 0);
	cr_assert_eq(fi_poll(ps, ctx, 2), 1);
	cr_assert_eq(ctx[0], ctx_a + 1);
	cr_assert_eq(fi_cntr_read(px.p.a.cntr), 3);
	cr_assert_eq(fi_poll(ps, ctx, 2), 0);
	cr_assert_eq(fi_cntr_adderr(px.p.a.cntr, 1), 0);
	cr_assert_eq(fi_poll(ps, ctx, 2), 1, "a new error is an event too");
	cr_assert_eq(fi_close(&ps->fid), 0);
}

Test(poll, membership_rules)
{
	struct fid_poll *ps;
	struct fi_poll_attr pa = { 0 };
	struct fi_eq_attr ea = { .wait_obj = FI_WAIT_NONE };
	struct fid_eq *eq;

	pa.flags = 1;
	cr_assert_eq(fi_poll_open(px.p.domain, &pa, &ps), -FI_EBADFLAGS);
	pa.flags = 0;
	cr_assert_eq(fi_poll_open(px.p.domain, &pa, &ps), 0);
	cr_assert_eq(fi_poll_add(ps, &px.p.a.cq->fid, 0), 0);
	cr_assert_eq(fi_poll_add(ps, &px.p.a.cq->fid, 0), -FI_EALREADY);
	cr_assert_eq(fi_poll_del(ps, &px.p.b.cq->fid, 0), -FI_EINVAL);
	cr_assert_eq(fi_eq_open(px.p.fabric, &ea, &eq, NULL), 0);
	cr_assert_eq(fi_poll_add(ps, &eq->fid, 0), -FI_EINVAL);
	cr_assert_eq(fi_close(&eq->fid), 0);
	/* closing the set lets its members go (the fixture closes a.cq) */
	cr_assert_eq(fi_close(&ps->fid), 0);
}

Test(poll, member_close_refused)
{
	struct fid_poll *ps;
	struct fi_poll_attr pa = { 0 };
	struct fi_cq_attr ca = { .format = FI_CQ_FORMAT_CONTEXT, .size = 4 };
	struct fid_cq *cq;

	cr_assert_eq(fi_cq_open(px.p.domain, &ca, &cq, NULL), 0);
	cr_assert_eq(fi_poll_open(px.p.domain, &pa, &ps), 0);
	cr_assert_eq(fi_poll_add(ps, &cq->fid, 0), 0);
	cr_assert_eq(fi_close(&cq->fid), -FI_EBUSY);
	cr_assert_eq(fi_poll_del(ps, &cq->fid, 0), 0);
	cr_assert_eq(fi_close(&cq->fid), 0);
	cr_assert_eq(fi_close(&ps->fid), 0);
}

/* ---- wait sets ---- */

Test(waitset, times_out_then_wakes_on_completion)
{
	struct fi_cq_entry e;
	uet_time t0;
	int ret;

	t0 = uetp_now();
	cr_assert_eq(fi_wait(px.ws, 50), -FI_ETIMEDOUT);
	cr_assert_geq(uetp_now() - t0, 50 * UET_MSEC);
	send_a_to_b();
	t0 = uetp_now();
	/* returns as soon as any member has something; two completions
	 * (a's send, b's receive) and two counter events come in */
	for (int got = 0; got < 2;) {
		ret = fi_wait(px.ws, 5000);
		cr_assert_eq(ret, 0, "fi_wait: %d", ret);
		if (fi_cq_read(px.p.a.cq, &e, 1) == 1)
			got++;
		if (fi_cq_read(px.p.b.cq, &e, 1) == 1)
			got++;
	}
	cr_assert_lt(uetp_now() - t0, 5 * UET_SEC);
	fi_cntr_read(px.p.a.cntr);
	fi_cntr_read(px.p.b.cntr);
	cr_assert_eq(fi_wait(px.ws, 0), -FI_ETIMEDOUT, "all read");
}

static void *waiter(void *arg)
{
	uet_time t0 = uetp_now();
	int ret = fi_wait(px.ws, 10000);

	*(uet_time *)arg = uetp_now() - t0;
	return (void *)(intptr_t)ret;
}

/* The packet arrives while fi_wait sleeps in epoll: the sockets of the
 * members' endpoints are in the set's fd, so it wakes and runs
 * progress instead of sleeping to its timeout. */
Test(waitset, wakes_when_data_arrives_while_sleeping)
{
	static char rbuf[64];
	pthread_t t;
	uet_time took = 0;
	void *ret;

	/* only b's objects count: a's send side must not be what wakes */
	uetp_test_side_close(&px.p.a);
	{
		struct fi_cq_attr ca = { .format = FI_CQ_FORMAT_CONTEXT,
					 .size = 16 };
		struct fi_av_attr aa = { .type = FI_AV_TABLE };

		cr_assert_eq(fi_endpoint(px.p.domain, px.p.info, &px.p.a.ep, NULL),
			     0);
		cr_assert_eq(fi_av_open(px.p.domain, &aa, &px.p.a.av, NULL), 0);
		cr_assert_eq(fi_cq_open(px.p.domain, &ca, &px.p.a.cq, NULL), 0);
		cr_assert_eq(fi_ep_bind(px.p.a.ep, &px.p.a.av->fid, 0), 0);
		cr_assert_eq(fi_ep_bind(px.p.a.ep, &px.p.a.cq->fid,
					FI_TRANSMIT | FI_RECV), 0);
		cr_assert_eq(fi_enable(px.p.a.ep), 0);
		uetp_test_link(&px.p.a, &px.p.b);
	}
	cr_assert_eq(fi_recv(px.p.b.ep, rbuf, sizeof(rbuf), NULL,
			     FI_ADDR_UNSPEC, NULL), 0);
	cr_assert_eq(pthread_create(&t, NULL, waiter, &took), 0);
	usleep(200 * 1000);
	cr_assert_eq(fi_send(px.p.a.ep, px.buf, 16, NULL, px.p.a.peer, NULL),
		     0);
	cr_assert_eq(pthread_join(t, &ret), 0);
	cr_assert_eq((intptr_t)ret, 0, "fi_wait: %d", (int)(intptr_t)ret);
	cr_assert_lt(took, 5 * UET_SEC, "woke after %llu ms",
		     (unsigned long long)(took / UET_MSEC));
	cr_assert_eq(fi_cntr_read(px.p.b.cntr), 1);
}

Test(waitset, getwait_and_trywait)
{
	struct fid *f = &px.ws->fid;
	enum fi_wait_obj wo;
	struct pollfd pfd = { .events = POLLIN };
	struct fi_cq_entry e;
	uet_time end;
	int fd = -1, cqfd = -1;

	cr_assert_eq(fi_control(&px.ws->fid, FI_GETWAIT, &fd), 0);
	cr_assert_geq(fd, 0);
	cr_assert_eq(fi_control(&px.ws->fid, FI_GETWAITOBJ, &wo), 0);
	cr_assert_eq(wo, FI_WAIT_FD);
	/* a member's fd is the set's */
	cr_assert_eq(fi_control(&px.p.b.cq->fid, FI_GETWAIT, &cqfd), 0);
	cr_assert_eq(cqfd, fd);
	cr_assert_eq(fi_control(&px.p.b.cq->fid, FI_GETWAITOBJ, &wo), 0);
	cr_assert_eq(wo, FI_WAIT_SET);
	cr_assert_eq(fi_trywait(px.p.fabric, &f, 1), 0, "idle: may sleep");
	send_a_to_b();
	/* the fd turns readable; trywait then runs progress and says no */
	pfd.fd = fd;
	cr_assert_eq(poll(&pfd, 1, 5000), 1);
	end = uetp_now() + 5 * UET_SEC;
	while (fi_trywait(px.p.fabric, &f, 1) == 0 && uetp_now() < end)
		poll(&pfd, 1, 10);
	cr_assert_eq(fi_trywait(px.p.fabric, &f, 1), -FI_EAGAIN);
	while (fi_cq_read(px.p.b.cq, &e, 1) != 1 && uetp_now() < end)
		;
	cr_assert_eq(e.op_context, (void *)0x2);
}

Test(waitset, rules)
{
	struct fi_wait_attr wa = { .wait_obj = FI_WAIT_MUTEX_COND };
	struct fi_cq_attr ca = { .format = FI_CQ_FORMAT_CONTEXT, .size = 4,
				 .wait_obj = FI_WAIT_SET };
	struct fi_cntr_attr na = { .events = FI_CNTR_EVENTS_COMP,
				   .wait_obj = FI_WAIT_SET };
	struct fid_wait *ws;
	struct fid_cq *cq;
	struct fid_cntr *cntr;

	cr_assert_eq(fi_wait_open(px.p.fabric, &wa, &ws), -FI_ENOSYS);
	wa.wait_obj = FI_WAIT_FD;
	wa.flags = 1;
	cr_assert_eq(fi_wait_open(px.p.fabric, &wa, &ws), -FI_EBADFLAGS);
	/* FI_WAIT_SET needs a set, ours */
	cr_assert_eq(fi_cq_open(px.p.domain, &ca, &cq, NULL), -FI_EINVAL);
	cr_assert_eq(fi_cntr_open(px.p.domain, &na, &cntr, NULL), -FI_EINVAL);
	ca.wait_set = (struct fid_wait *)&px.p.a.cq->fid;
	cr_assert_eq(fi_cq_open(px.p.domain, &ca, &cq, NULL), -FI_EINVAL);
	wa.flags = 0;
	cr_assert_eq(fi_wait_open(px.p.fabric, &wa, &ws), 0);
	ca.wait_set = ws;
	cr_assert_eq(fi_cq_open(px.p.domain, &ca, &cq, NULL), 0);
	cr_assert_eq(fi_close(&ws->fid), -FI_EBUSY, "a CQ waits on it");
	cr_assert_eq(fi_close(&cq->fid), 0);
	cr_assert_eq(fi_close(&ws->fid), 0);
}
