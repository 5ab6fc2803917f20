/* The I/O loop against its port, on the mem net under the fake clock,
 * with the port's receive replaced by the test's:
 * - a port that fails (not one packet: the socket itself) is said once,
 *   in the log and as an error event on the endpoint's EQ: the
 *   application learns its endpoint cannot work on, instead of waiting
 *   forever;
 * - what a receive brings is stamped after it. */
#include <criterion/criterion.h>
#include <rdma/fi_errno.h>

#include "uet/err.h"
#include "uetp.h"

#include "test_util.h"

static struct {
	struct uetp_test_pair p;	/* its domain; no sides */
	struct fid_ep *ep;
	struct fid_cq *cq;
	struct fid_av *av;
	struct fid_eq *eq;		/* only if asked for */
	struct uet_net_ops ops;		/* the port's, recv replaced */
	const struct uet_net_ops *good;
} P;

/* One endpoint (context ctx) with a CQ, an AV and, if eq, an EQ, whose
 * port receives with recv from now on. */
static struct uetp_ep *port_open(void *ctx, bool eq,
				 int (*recv)(struct uet_net *,
					     struct uet_net_msg *, unsigned,
					     uet_time))
{
	struct fi_info *h = uetp_test_lo_hints(FI_EP_RDM, FI_MSG);
	struct fi_cq_attr ca = { .format = FI_CQ_FORMAT_CONTEXT };
	struct fi_av_attr aa = { .type = FI_AV_TABLE };
	struct fi_eq_attr ea = { .size = 8, .wait_obj = FI_WAIT_UNSPEC };
	struct uetp_ep *ep;

	uetp_test_mem_start(NULL);
	uetp_test_getinfo(&P.p, h);
	uetp_test_domain_open(&P.p);
	cr_assert_eq(fi_endpoint(P.p.domain, P.p.info, &P.ep, ctx), 0);
	cr_assert_eq(fi_cq_open(P.p.domain, &ca, &P.cq, NULL), 0);
	cr_assert_eq(fi_av_open(P.p.domain, &aa, &P.av, NULL), 0);
	cr_assert_eq(fi_ep_bind(P.ep, &P.cq->fid, FI_TRANSMIT | FI_RECV), 0);
	cr_assert_eq(fi_ep_bind(P.ep, &P.av->fid, 0), 0);
	if (eq) {
		cr_assert_eq(fi_eq_open(P.p.fabric, &ea, &P.eq, NULL), 0);
		cr_assert_eq(fi_ep_bind(P.ep, &P.eq->fid, 0), 0);
	}
	cr_assert_eq(fi_enable(P.ep), 0);
	ep = uet_container_of(P.ep, struct uetp_ep, fid);
	P.good = ep->net->ops;
	P.ops = *P.good;
	P.ops.recv = recv;
	ep->net->ops = &P.ops;
	return ep;
}

static void port_close(struct uetp_ep *ep)
{
	ep->net->ops = P.good;
	cr_assert_eq(fi_close(&P.ep->fid), 0);
	cr_assert_eq(fi_close(&P.cq->fid), 0);
	cr_assert_eq(fi_close(&P.av->fid), 0);
	if (P.eq)
		cr_assert_eq(fi_close(&P.eq->fid), 0);
	uetp_test_pair_close(&P.p);
	memset(&P, 0, sizeof(P));
}

static int fails;

static int failing_recv(struct uet_net *net, struct uet_net_msg *m,
			unsigned n, uet_time now)
{
	(void)net;
	(void)m;
	(void)n;
	(void)now;
	fails++;
	return UET_ERR_IO;
}

Test(port, failure_reaches_the_eq)
{
	struct uetp_ep *ep = port_open((void *)0x5e, true, failing_recv);
	struct fi_eq_err_entry err;
	struct fi_eq_entry ev;
	struct fi_cq_entry ce;
	uint32_t event;

	/* the socket broke: every receive fails from now on */
	cr_assert_eq(fi_eq_read(P.eq, &event, &ev, sizeof(ev), 0), -FI_EAGAIN);
	for (int i = 0; i < 5; i++)
		cr_assert_eq(fi_cq_read(P.cq, &ce, 1), -FI_EAGAIN);
	cr_assert_gt(fails, 1);
	cr_assert_eq(fi_eq_read(P.eq, &event, &ev, sizeof(ev), 0),
		     -FI_EAVAIL);
	memset(&err, 0, sizeof(err));
	cr_assert_eq(fi_eq_readerr(P.eq, &err, 0), sizeof(err));
	cr_assert_eq(err.err, FI_EIO);
	cr_assert_eq(err.fid, &P.ep->fid);
	cr_assert_eq(err.context, (void *)0x5e);
	/* said once, however often it fails again */
	cr_assert_eq(fi_eq_read(P.eq, &event, &ev, sizeof(ev), 0), -FI_EAGAIN);
	port_close(ep);
}

/* A receive that takes 1 ms of the fake clock and brings a full batch of
 * junk (dropped and counted), so that the loop receives again; the
 * second call records the time it was given. */
static uet_time slow_returned, slow_given;
static int slow_calls;

static int slow_recv(struct uet_net *net, struct uet_net_msg *m, unsigned n,
		     uet_time now)
{
	(void)net;
	if (slow_calls++) {
		if (slow_calls == 2)
			slow_given = now;
		return 0;
	}
	uetp_tnet.now += UET_MSEC;
	for (unsigned i = 0; i < n; i++) {
		m[i].len = 1;
		m[i].buf[0] = 0xff;
		m[i].ext_len = 0;
		m[i].placed = 0;
	}
	slow_returned = uetp_tnet.now;
	return (int)n;
}

/* What a receive brings is stamped after it, not at the call's start:
 * the target's ACK_CC service time runs from that stamp, and a stamp
 * from before the packet came made a sender's RTT sample, less that
 * service time, read 1 us on a 25 us veth, and NSCC's base RTT and
 * largest window with it, for the rest of the PDC. */
Test(port, a_receive_is_stamped_after_it_returns)
{
	struct uetp_ep *ep = port_open(NULL, false, slow_recv);
	struct fi_cq_entry ce;

	cr_assert_eq(fi_cq_read(P.cq, &ce, 1), -FI_EAGAIN);
	cr_assert_geq(slow_calls, 2);
	cr_assert_geq(slow_given, slow_returned, "stamped %llu us early",
		      (unsigned long long)(slow_returned - slow_given) /
			      UET_USEC);
	port_close(ep);
}
