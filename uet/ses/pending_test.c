/* Messages waiting to start, by peer (pending.c): each peer's messages
 * start in post order whatever was posted to others between them, a
 * fence holds its own peer only, what a PDC lost goes back ahead of its
 * peer's later messages, and the bytes said to be queued are the peer's
 * own. Many peers make the index grow. */
#include <criterion/criterion.h>
#include <string.h>

#include "ses_int.h"
#include "../fixtures/test_loop.h"

#define PA 5101
#define PB 5102
#define PC 5103

static struct tl_ep A, B, C;
static struct tl_link LB, LC;

/* room for a thousand messages in wait */
static void deep(struct uet_fep_config *c)
{
	c->tx_depth = 1024;
}

static void setup(void)
{
	tl_ep_open_at(&A, PA, deep);
	tl_ep_open_at(&B, PB, NULL);
	tl_ep_open_at(&C, PC, NULL);
	tl_link_open(&LB, &A, &B, 1);
	tl_link_open(&LC, &A, &C, 2);
}

static void teardown(void)
{
	tl_link_close(&LB);
	tl_link_close(&LC);
	tl_ep_close(&A);
	tl_ep_close(&B);
	tl_ep_close(&C);
}

TestSuite(pending, .init = setup, .fini = teardown);

static uint8_t buf[8192];

static void post(uint16_t to, size_t len, uint32_t flags, void *ctx)
{
	cr_assert_eq(tl_send(&A, to, UET_OP_SEND, buf, len, 0,
			     flags | UET_OPF_COMPLETION, 0, ctx), 0);
}

/* Deliver packet i of l and say which message (by length) it was. */
static uint32_t msg_len_of(struct tl_link *l, size_t i)
{
	cr_assert_eq(tl_xfer(l, i), 0);
	return l->req.request_length;
}

Test(pending, each_peer_in_post_order)
{
	size_t n;

	/* B 10, C 20, B 11, C 21, B 12: one packet each */
	post(PB, 10, 0, NULL);
	post(PC, 20, 0, NULL);
	post(PB, 11, 0, NULL);
	post(PC, 21, 0, NULL);
	post(PB, 12, 0, NULL);
	n = tl_pull(&LC, SIZE_MAX);
	cr_assert_eq(n, 2);
	/* at a message's end: the bytes still queued for that peer only */
	cr_assert_eq(LC.p[0].pkt.left, 21);
	cr_assert_eq(LC.p[1].pkt.left, 0);
	cr_assert_eq(msg_len_of(&LC, 0), 20);
	cr_assert_eq(LC.req.message_id, 0);
	cr_assert_eq(msg_len_of(&LC, 1), 21);
	cr_assert_eq(LC.req.message_id, 1);
	cr_assert_eq(tl_pull(&LB, SIZE_MAX), 3);
	cr_assert_eq(LB.p[0].pkt.left, 11 + 12);
	for (size_t i = 0; i < 3; i++) {
		cr_assert_eq(msg_len_of(&LB, i), 10 + i);
		cr_assert_eq(LB.req.message_id, i);
	}
	cr_assert_not(uet_ses_pdc_busy(A.ses, &LB.tpdc));
	cr_assert_not(uet_ses_pdc_busy(A.ses, &LC.tpdc));
}

Test(pending, a_fence_holds_its_peer_only)
{
	int c1, c2;

	post(PB, 10, 0, &c1);
	post(PB, 11, UET_OPF_FENCE, &c2);
	post(PC, 20, 0, NULL);
	/* the first to B is in flight: the fenced one waits ... */
	cr_assert_eq(tl_pull(&LB, SIZE_MAX), 1);
	cr_assert(uet_msg_pending(A.ses, &B.cfg.local));
	/* ... but not C's, posted after it */
	cr_assert_eq(tl_pull(&LC, SIZE_MAX), 1);
	cr_assert_eq(msg_len_of(&LC, 0), 20);
	cr_assert_eq(tl_pull(&LB, SIZE_MAX), 0);
	cr_assert_eq(tl_xfer(&LB, 0), 0);
	cr_assert_eq(tl_comp(&A, &c1)->err, 0);
	cr_assert_eq(tl_pull(&LB, SIZE_MAX), 1);
	cr_assert_eq(msg_len_of(&LB, 1), 11);
	cr_assert_eq(tl_comp(&A, &c2)->err, 0);
	cr_assert_not(uet_msg_pending(A.ses, &B.cfg.local));
}

Test(pending, a_lost_pdc_requeues_ahead_of_its_peer)
{
	size_t P = uet_ses_payload_max(A.ses);
	struct tl_link L2;

	post(PB, 3 * P, 0, NULL);	/* three packets */
	post(PC, 20, 0, NULL);
	post(PB, 11, 0, NULL);
	cr_assert_eq(tl_pull(&LB, 2), 2);	/* part of the first */
	cr_assert_eq(LB.p[0].pkt.left, 2 * P);
	uet_ses_pdc_lost(A.ses, &LB.tpdc);
	tl_link_close(&LB);
	tl_link_open(&L2, &A, &B, 3);
	/* whole again, first, then the later one; C's untouched */
	cr_assert_eq(tl_pull(&L2, SIZE_MAX), 4);
	cr_assert_eq(L2.p[0].pkt.offset, 0);
	cr_assert_eq(L2.p[2].pkt.left, 11);
	cr_assert_eq(msg_len_of(&L2, 0), 3 * P);
	cr_assert_eq(L2.req.message_id, 0);
	cr_assert_eq(msg_len_of(&L2, 3), 11);
	cr_assert_eq(L2.req.message_id, 1);
	cr_assert_eq(tl_pull(&LC, SIZE_MAX), 1);
	cr_assert_eq(msg_len_of(&LC, 0), 20);
	tl_link_close(&L2);
	tl_link_open(&LB, &A, &B, 1);
}

/* 500 peers, two messages each, posted round robin: the index grows past
 * its first sizes and still finds each peer's own, in order. */
Test(pending, many_peers)
{
	const unsigned n = 500;

	for (unsigned r = 0; r < 2; r++)
		for (unsigned i = 0; i < n; i++)
			post(i == 7 ? PB : (uint16_t)(6000 + i),
			     100 * r + (i % 50) + 1, 0, NULL);
	cr_assert_gt(A.ses->peers_cap, 256);
	cr_assert_eq(A.ses->peers_n, n);
	cr_assert_eq(tl_pull(&LB, SIZE_MAX), 2);
	cr_assert_eq(LB.p[0].pkt.left, 108);
	cr_assert_eq(msg_len_of(&LB, 0), 8);
	cr_assert_eq(msg_len_of(&LB, 1), 108);
	for (unsigned i = 0; i < n; i++) {
		struct uet_addr a = tl_addr(i == 7 ? PB : (uint16_t)(6000 + i));
		struct uet_ses_peer *q = uet_pending_peer(A.ses, &a);

		cr_assert_not_null(q);
		cr_assert_eq(q->bytes, i == 7 ? 0 : 100 + 2 * ((i % 50) + 1));
	}
}

/* Post len bytes to a new peer at port, start the message on a PDC of
 * its own and acknowledge it: the peer then has nothing waiting. */
static void meet_peer(uint16_t port, uint32_t id, size_t len)
{
	struct uet_ses_reply rep;
	struct uet_ses_pkt pkt;
	struct uet_pdc_ref r;

	post(port, len, 0, NULL);
	memset(&r, 0, sizeof(r));
	r.id = id;
	r.peer = tl_addr(port);
	r.initiator = true;
	uet_ses_pdc_open(A.ses, &r);
	cr_assert_eq(uet_ses_tx_next(A.ses, &r, &pkt, 0), 1);
	cr_assert_eq(pkt.len, len);
	memset(&rep, 0, sizeof(rep));
	rep.rsp.format = UET_NH_RSP;
	rep.rsp.opcode = UET_SES_DEFAULT_RESPONSE;
	rep.rsp.return_code = UET_RC_OK;
	uet_ses_tx_acked(A.ses, &r, &pkt, &rep, 0);
	uet_ses_pdc_closed(A.ses, &r);
}

/* 3000 peers met one after the other, each message started at once: the
 * entries of peers with nothing waiting go, a peer with a message still
 * waiting keeps its entry (and its message), and the table stays near
 * its floor of 1024 idle entries. */
Test(pending, idle_peers_are_forgotten)
{
	struct uet_ses_peer *q;
	struct uet_addr a;
	unsigned most = 0;

	post(PC, 20, 0, NULL);		/* waits all along */
	for (unsigned i = 0; i < 3000; i++) {
		meet_peer((uint16_t)(10000 + i), 100 + i, 32);
		if (A.ses->peers_n > most)
			most = A.ses->peers_n;
	}
	cr_assert_leq(most, 1025, "entries: %u", most);
	cr_assert_lt(A.ses->peers_n, 1025);
	a = tl_addr(PC);
	q = uet_pending_peer(A.ses, &a);
	cr_assert_not_null(q);
	cr_assert_eq(q->bytes, 20);
	cr_assert_eq(tl_pull(&LC, SIZE_MAX), 1);
	cr_assert_eq(msg_len_of(&LC, 0), 20);
}

/* A PDC lost after its peer's entry was swept (its messages were all
 * out): they wait again, first, on a new entry. */
Test(pending, a_lost_pdc_after_its_peer_was_forgotten)
{
	size_t P = uet_ses_payload_max(A.ses);
	struct uet_addr b = tl_addr(PB);
	struct tl_link L2;

	post(PB, 3 * P, 0, NULL);
	cr_assert_eq(tl_pull(&LB, 2), 2);	/* started: B's list empty */
	for (unsigned i = 0; i < 1100; i++)
		meet_peer((uint16_t)(20000 + i), 100 + i, 8);
	cr_assert_null(uet_pending_peer(A.ses, &b), "swept");
	uet_ses_pdc_lost(A.ses, &LB.tpdc);
	tl_link_close(&LB);
	tl_link_open(&L2, &A, &B, 3);
	cr_assert_eq(tl_pull(&L2, SIZE_MAX), 3);
	cr_assert_eq(L2.p[0].pkt.offset, 0);
	cr_assert_eq(msg_len_of(&L2, 0), 3 * P);
	tl_link_close(&L2);
	tl_link_open(&LB, &A, &B, 1);
}
