/* Corking (FI_UET_CORK_US, FI_MORE): the sends of a burst wait in the
 * engine for the next progress call and then leave together; the first
 * send of a burst and a lone send leave at once; nothing corked is ever
 * stranded (the rescue thread sends it while the application is away).
 * The packet counts come from the mem net under the fake clock; the
 * stranded burst runs over real loopback sockets and the real clock.
 */
#include <criterion/criterion.h>
#include <rdma/fi_errno.h>

#include "uet/err.h"
#include "uetp.h"

#include "test_util.h"

#define NMSG		8
#define MSG_LEN		64

static struct {
	struct uetp_test_pair p;
	uint8_t tx[NMSG][MSG_LEN], rx[NMSG][MSG_LEN];
} ck;

static void ck_open(bool mem)
{
	struct fi_info *h = uetp_test_lo_hints(FI_EP_RDM, FI_MSG);
	const struct uetp_test_side_attr sa = {
		.cq = { .format = FI_CQ_FORMAT_CONTEXT, .size = 64 },
	};

	if (mem)
		uetp_test_mem_start(NULL);
	uetp_test_getinfo(&ck.p, h);
	uetp_test_pair_open(&ck.p, &sa);
	for (int i = 0; i < NMSG; i++)
		memset(ck.tx[i], 0xa0 + i, MSG_LEN);
}

static void ck_close(void)
{
	uetp_test_pair_close(&ck.p);
}

/* Packets the mem net has taken from all its ports so far. */
static uint64_t sent(void)
{
	struct uet_mem_stats st;

	uet_mem_net_stats(uetp_tnet.net, &st);
	return st.sent;
}

static void post_recvs(void)
{
	for (int i = 0; i < NMSG; i++)
		cr_assert_eq(fi_recv(ck.p.b.ep, ck.rx[i], MSG_LEN, NULL,
				     FI_ADDR_UNSPEC, &ck.rx[i]), 0);
}

/* n completions on side s within 10 s (fake or real); only the other
 * side's CQ is read besides, if given. */
static void drain(struct uetp_test_side *s, struct uetp_test_side *other,
		  int n)
{
	uet_time end = uetp_now() + 10 * UET_SEC;
	struct fi_cq_entry e;
	int got = 0;

	while (got < n && uetp_now() < end) {
		ssize_t r = fi_cq_read(s->cq, &e, 1);

		cr_assert(r == 1 || r == -FI_EAGAIN, "cq: %zd", r);
		got += r == 1;
		if (other)
			fi_cq_read(other->cq, NULL, 0);
		uetp_test_idle(ck.p.domain);
	}
	cr_assert_eq(got, n, "%d of %d completions", got, n);
}

/* One message each way first: the PDC is open, the next sends are one
 * packet each. */
static void warm_up(void)
{
	cr_assert_eq(fi_recv(ck.p.b.ep, ck.rx[0], MSG_LEN, NULL,
			     FI_ADDR_UNSPEC, NULL), 0);
	cr_assert_eq(fi_send(ck.p.a.ep, ck.tx[0], MSG_LEN, NULL, ck.p.a.peer,
			     NULL), 0);
	drain(&ck.p.a, &ck.p.b, 1);
	drain(&ck.p.b, &ck.p.a, 1);
}

static void check_data(void)
{
	for (int i = 0; i < NMSG; i++)
		cr_assert_arr_eq(ck.rx[i], ck.tx[i], MSG_LEN, "message %d", i);
}

/* A pair on the mem net with FI_UET_CORK_US=cork, its PDC open, NMSG
 * receives posted at b; returns the packets sent so far. */
static uint64_t ready(const char *cork)
{
	setenv("FI_UET_CORK_US", cork, 1);
	ck_open(true);
	warm_up();
	post_recvs();
	return sent();
}

Test(cork, burst_leaves_at_the_next_progress_call)
{
	uint64_t before = ready("1000");

	for (int i = 0; i < NMSG; i++)
		cr_assert_eq(fi_send(ck.p.a.ep, ck.tx[i], MSG_LEN, NULL,
				     ck.p.a.peer, NULL), 0);
	/* the first left at once, the rest wait */
	cr_assert_eq(sent() - before, 1);
	{
		struct fi_cq_entry e;

		cr_assert_eq(fi_cq_read(ck.p.a.cq, &e, 1), -FI_EAGAIN);
	}
	cr_assert_eq(sent() - before, NMSG);
	drain(&ck.p.b, &ck.p.a, NMSG);
	drain(&ck.p.a, &ck.p.b, NMSG);
	check_data();
	ck_close();
}

Test(cork, off_sends_each_at_once)
{
	uint64_t before = ready("0");

	for (int i = 0; i < NMSG; i++) {
		cr_assert_eq(fi_send(ck.p.a.ep, ck.tx[i], MSG_LEN, NULL,
				     ck.p.a.peer, NULL), 0);
		cr_assert_eq(sent() - before, (uint64_t)i + 1);
	}
	drain(&ck.p.b, &ck.p.a, NMSG);
	check_data();
	ck_close();
}

/* A send longer than UETP_CORK_MAX_LEN fills packets by itself: it leaves
 * at once even in a burst. */
Test(cork, long_send_is_not_corked)
{
	static uint8_t big[2][UETP_CORK_MAX_LEN + 1], in[2][sizeof(big[0])];
	uint64_t before;

	setenv("FI_UET_CORK_US", "1000", 1);
	ck_open(true);
	warm_up();
	for (int i = 0; i < 2; i++) {
		memset(big[i], 0x11 * (i + 1), sizeof(big[i]));
		cr_assert_eq(fi_recv(ck.p.b.ep, in[i], sizeof(in[i]), NULL,
				     FI_ADDR_UNSPEC, NULL), 0);
	}
	cr_assert_eq(fi_send(ck.p.a.ep, big[0], sizeof(big[0]), NULL,
			     ck.p.a.peer, NULL), 0);
	before = sent();
	cr_assert_eq(fi_send(ck.p.a.ep, big[1], sizeof(big[1]), NULL,
			     ck.p.a.peer, NULL), 0);
	cr_assert_gt(sent(), before);
	drain(&ck.p.b, &ck.p.a, 2);
	cr_assert_arr_eq(in[0], big[0], sizeof(big[0]));
	cr_assert_arr_eq(in[1], big[1], sizeof(big[1]));
	ck_close();
}

/* FI_MORE holds even the first send, until a send without it. */
Test(cork, fi_more_holds_until_a_send_without_it)
{
	struct iovec iov;
	struct fi_msg m = { .msg_iov = &iov, .iov_count = 1 };
	uint64_t before = ready("0");

	m.addr = ck.p.a.peer;
	for (int i = 0; i < NMSG; i++) {
		iov = (struct iovec){ ck.tx[i], MSG_LEN };
		m.context = ck.tx[i];
		cr_assert_eq(fi_sendmsg(ck.p.a.ep, &m, i < NMSG - 1 ?
					FI_MORE : 0), 0);
		cr_assert_eq(sent() - before, i < NMSG - 1 ? 0 : NMSG);
	}
	drain(&ck.p.b, &ck.p.a, NMSG);
	check_data();
	ck_close();
}

/* Real sockets and clock: a burst posted just before the application
 * turns away from a (it reads only b's CQ) still arrives, sent by the
 * rescue thread. */
Test(cork, rescue_sends_a_burst_left_behind, .timeout = 30)
{
	setenv("FI_UET_CORK_US", "100000", 1);
	setenv("FI_UET_RESCUE_MS", "5", 1);
	ck_open(false);
	warm_up();
	post_recvs();
	for (int i = 0; i < NMSG; i++)
		cr_assert_eq(fi_send(ck.p.a.ep, ck.tx[i], MSG_LEN, NULL,
				     ck.p.a.peer, NULL), 0);
	drain(&ck.p.b, NULL, NMSG);
	check_data();
	drain(&ck.p.a, NULL, NMSG);
	ck_close();
}
