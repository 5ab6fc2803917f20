/* Zero-copy send (FI_UET_TX_ZCOPY): a packet whose payload is still the
 * application's buffer (uet_fep_poll_tx_sg) never outlives the progress
 * call that polled it; what the socket did not take is copied whole
 * into its own buffer first, so the application may reuse its buffer as
 * soon as it has its completion. Side a runs on a mem port dressed as a
 * scatter-gather one, whose send this test can make find the socket
 * full; the fake clock of the mem net. */
#include <criterion/criterion.h>
#include <rdma/fi_errno.h>

#include "uet/err.h"
#include "uetp.h"

#include "test_util.h"

#define LEN	8192

static struct {
	struct uetp_test_pair p;
	uint8_t tx[LEN], rx[LEN], want[LEN];
	const struct uet_net_ops *mem_ops;
	struct uet_net_ops sg_ops;
	bool full;			/* the socket takes nothing */
	unsigned refused;		/* send calls that took nothing */
	unsigned ext_taken;		/* packets taken with an ext part */
} zc;

/* Takes packets with an ext part, as the UDP port does: copies each
 * whole packet, then the mem port takes it. */
static int sg_send(struct uet_net *net, const struct uet_net_msg *msgs,
		   unsigned n)
{
	static uint8_t pkt[UETP_BATCH][UET_MEM_MTU_MAX];
	struct uet_net_msg flat[UETP_BATCH];

	if (zc.full) {
		zc.refused++;
		return 0;
	}
	if (n > UETP_BATCH)
		n = UETP_BATCH;
	for (unsigned i = 0; i < n; i++) {
		flat[i] = msgs[i];
		if (!msgs[i].ext_len)
			continue;
		zc.ext_taken++;
		cr_assert_leq(uet_net_msg_len(&msgs[i]), sizeof(pkt[i]));
		memcpy(pkt[i], msgs[i].buf, msgs[i].len);
		memcpy(pkt[i] + msgs[i].len, msgs[i].ext, msgs[i].ext_len);
		flat[i].buf = pkt[i];
		flat[i].cap = sizeof(pkt[i]);
		flat[i].len = uet_net_msg_len(&msgs[i]);
		flat[i].ext = NULL;
		flat[i].ext_len = 0;
	}
	return zc.mem_ops->send(net, flat, n);
}

static void zc_open(void)
{
	struct fi_info *h = uetp_test_lo_hints(FI_EP_RDM, FI_MSG);
	const struct uetp_test_side_attr sa = {
		.cq = { .format = FI_CQ_FORMAT_CONTEXT, .size = 64 },
	};
	struct uet_net *net;

	setenv("FI_UET_CORK_US", "0", 1);
	uetp_test_mem_start(NULL);
	uetp_test_getinfo(&zc.p, h);
	uetp_test_pair_open(&zc.p, &sa);
	net = uetp_test_port(zc.p.a.ep);
	zc.mem_ops = net->ops;
	zc.sg_ops = *net->ops;
	zc.sg_ops.caps |= UET_NET_CAP_SG;
	zc.sg_ops.send = sg_send;
	net->ops = &zc.sg_ops;
}

static void zc_close(void)
{
	uetp_test_port(zc.p.a.ep)->ops = zc.mem_ops;
	uetp_test_pair_close(&zc.p);
	unsetenv("FI_UET_CORK_US");
}

/* A completion on side s (and progress on other) within 10 s. */
static void drain(struct uetp_test_side *s, struct uetp_test_side *other)
{
	uet_time end = uetp_now() + 10 * UET_SEC;
	struct fi_cq_entry e;

	for (;;) {
		ssize_t r = fi_cq_read(s->cq, &e, 1);

		cr_assert(r == 1 || r == -FI_EAGAIN, "cq: %zd", r);
		if (r == 1)
			return;
		cr_assert_lt(uetp_now(), end, "no completion");
		fi_cq_read(other->cq, NULL, 0);
		uetp_test_idle(zc.p.domain);
	}
}

static void send_one(void)
{
	memset(zc.rx, 0, LEN);
	cr_assert_eq(fi_recv(zc.p.b.ep, zc.rx, LEN, NULL, FI_ADDR_UNSPEC,
			     NULL), 0);
	cr_assert_eq(fi_send(zc.p.a.ep, zc.tx, LEN, NULL, zc.p.a.peer, NULL),
		     0);
}

TestSuite(zcopy, .init = zc_open, .fini = zc_close, .timeout = 30);

/* The payload leaves from the application's buffer. */
Test(zcopy, payload_goes_from_the_buffer)
{
	for (size_t i = 0; i < LEN; i++)
		zc.tx[i] = (uint8_t)(i * 7 + 1);
	send_one();
	drain(&zc.p.b, &zc.p.a);
	drain(&zc.p.a, &zc.p.b);
	cr_assert_arr_eq(zc.rx, zc.tx, LEN);
	cr_assert_gt(zc.ext_taken, 0, "no packet had an ext part");
}

/* The socket is full when the send is posted: its packets wait in the
 * endpoint. The application then overwrites its buffer (as it may once
 * it has its completion); the packets that waited still carry what the
 * buffer held when they were made. */
Test(zcopy, packet_left_by_a_full_socket_keeps_its_bytes)
{
	struct uetp_ep *ep = uetp_test_ep(zc.p.a.ep);

	for (size_t i = 0; i < LEN; i++)
		zc.want[i] = zc.tx[i] = (uint8_t)(i * 13 + 5);
	zc.full = true;
	send_one();
	cr_assert_gt(zc.refused, 0);
	cr_assert_gt(ep->tx_pending, ep->tx_off, "nothing waits");
	for (unsigned i = ep->tx_off; i < ep->tx_pending; i++)
		cr_assert_eq(ep->tx_msgs[i].ext_len, 0,
			     "packet %u still points at the buffer", i);
	memset(zc.tx, 0xA5, LEN);
	zc.full = false;
	drain(&zc.p.b, &zc.p.a);
	drain(&zc.p.a, &zc.p.b);
	cr_assert_arr_eq(zc.rx, zc.want, LEN, "a waiting packet read the "
			 "reused buffer");
}
