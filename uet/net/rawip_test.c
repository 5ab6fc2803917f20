/* The raw IP port on loopback: packets with their entropy and ECN, the
 * entropy header on the wire, malformed input dropped and counted, and
 * the errors of a bad open. Needs CAP_NET_RAW; skips without it.
 *
 * Every test takes its own pair of 127/8 addresses (from the pid) and
 * its own protocol number, so concurrent runs never see each other's
 * packets (a raw socket receives every packet of its protocol sent to
 * its address).
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "uet/rawip.h"
#include "uet/wire.h"

static uint8_t test_proto;

static struct uet_addr lo4(uint8_t last)
{
	unsigned pid = (unsigned)getpid();
	struct uet_addr a = { .af = UET_AF_INET,
			      .ip = { 127, (uint8_t)(100 + pid % 100),
				      (uint8_t)(pid / 100 % 250), last } };
	return a;
}

static void need_raw(void)
{
	int fd = socket(AF_INET, SOCK_RAW, UET_RAWIP_PROTO_DEFAULT);

	if (fd < 0 && (errno == EPERM || errno == EACCES))
		cr_skip_test("no CAP_NET_RAW");
	if (fd >= 0)
		close(fd);
	/* 146..252 are unassigned; one per process */
	test_proto = (uint8_t)(146 + getpid() % 100);
}

static struct uet_net *port_open(struct uet_addr a)
{
	struct uet_rawip_config cfg;
	struct uet_net *n = NULL;

	uet_rawip_config_default(&cfg);
	cfg.proto = test_proto;
	cr_assert_eq(uet_rawip_open(&n, &a, &cfg), 0, "%s",
		     uet_rawip_errstr(NULL));
	return n;
}

/* Up to want packets within ~2 s. */
static int recv_some(struct uet_net *n, struct uet_net_msg *m, unsigned want)
{
	int got = 0;

	for (int tries = 0; tries < 2000 && got < (int)want; tries++) {
		int r = n->ops->recv(n, m + got, want - (unsigned)got, 0);

		cr_assert_geq(r, 0);
		got += r;
		if (got < (int)want)
			usleep(1000);
	}
	return got;
}

Test(rawip, packets_keep_entropy_ecn_and_bytes, .init = need_raw)
{
	struct uet_addr a = lo4(1), b = lo4(2);
	struct uet_net *pa = port_open(a), *pb = port_open(b);
	uint8_t out[8][300], in[8][300];
	struct uet_net_msg tx[8], rx[8];
	struct uet_rawip_stats st;

	cr_assert(uet_rawip_is(pa));
	cr_assert_eq(pa->local.port, 0);
	for (int i = 0; i < 8; i++) {
		memset(&tx[i], 0, sizeof(tx[i]));
		for (int j = 0; j < 300; j++)
			out[i][j] = (uint8_t)(i * 13 + j);
		tx[i].buf = out[i];
		tx[i].len = 100 + (size_t)i * 20;
		tx[i].info.dst = b;
		tx[i].info.entropy = (uint16_t)(0xA000 + i);
		tx[i].info.ecn = i == 3 ? UET_ECN_CE : UET_ECN_NOT_ECT;
		rx[i].buf = in[i];
		rx[i].cap = sizeof(in[i]);
	}
	cr_assert_eq(pa->ops->send(pa, tx, 8), 8);
	cr_assert_eq(recv_some(pb, rx, 8), 8);
	for (int i = 0; i < 8; i++) {
		cr_assert_eq(rx[i].len, tx[i].len, "packet %d", i);
		cr_assert_arr_eq(rx[i].buf, out[i], rx[i].len);
		cr_assert_eq(rx[i].info.entropy, 0xA000 + i);
		cr_assert_eq(rx[i].info.ecn,
			     i == 3 ? UET_ECN_CE : UET_ECN_ECT0, "packet %d",
			     i);
		cr_assert(uet_addr_equal(&rx[i].info.src, &a));
		cr_assert(uet_addr_equal(&rx[i].info.dst, &b));
		cr_assert(rx[i].info.home);
	}
	uet_rawip_stats(pb, &st);
	cr_assert_eq(st.received, 8);
	uet_rawip_stats(pa, &st);
	cr_assert_eq(st.sent, 8);
	pa->ops->close(pa);
	pb->ops->close(pb);
}

/* On the wire: IP protocol, then the 4-byte entropy header, then the
 * packet, as a plain raw socket of the protocol sees it. */
Test(rawip, entropy_header_on_the_wire, .init = need_raw)
{
	struct uet_addr a = lo4(3), b = lo4(4);
	struct uet_net *pa = port_open(a);
	struct sockaddr_in sb = { .sin_family = AF_INET };
	uint8_t pkt[16] = "uet-over-ip", buf[128];
	struct uet_net_msg tx = { .buf = pkt, .len = sizeof(pkt) };
	int fd = socket(AF_INET, SOCK_RAW, test_proto);
	ssize_t n;

	cr_assert_geq(fd, 0);
	memcpy(&sb.sin_addr, b.ip, 4);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sb, sizeof(sb)), 0);
	tx.info.dst = b;
	tx.info.entropy = 0x1234;
	cr_assert_eq(pa->ops->send(pa, &tx, 1), 1);
	n = recv(fd, buf, sizeof(buf), 0);
	cr_assert_eq(n, 20 + 4 + (ssize_t)sizeof(pkt));
	cr_assert_eq(buf[9], test_proto);
	cr_assert_eq(buf[20], 0x12);
	cr_assert_eq(buf[21], 0x34);
	cr_assert_eq(buf[22], 0);
	cr_assert_eq(buf[23], 0);
	cr_assert_arr_eq(buf + 24, pkt, sizeof(pkt));
	close(fd);
	pa->ops->close(pa);
}

Test(rawip, malformed_dropped_and_counted, .init = need_raw)
{
	struct uet_addr b = lo4(6);
	struct uet_net *pb = port_open(b);
	struct sockaddr_in sb = { .sin_family = AF_INET };
	uint8_t junk[2] = { 1, 2 }, ok[12] = { 0, 7, 0, 0, 'h', 'i' };
	uint8_t in[2][64];
	struct uet_net_msg rx[2] = { { .buf = in[0], .cap = 64 },
				     { .buf = in[1], .cap = 64 } };
	struct uet_rawip_stats st;
	int fd = socket(AF_INET, SOCK_RAW, test_proto);

	cr_assert_geq(fd, 0);
	memcpy(&sb.sin_addr, b.ip, 4);
	/* too short for an entropy header, then a good one after it */
	cr_assert_eq(sendto(fd, junk, sizeof(junk), 0,
			    (struct sockaddr *)&sb, sizeof(sb)), 2);
	cr_assert_eq(sendto(fd, ok, sizeof(ok), 0, (struct sockaddr *)&sb,
			    sizeof(sb)), (ssize_t)sizeof(ok));
	cr_assert_eq(recv_some(pb, rx, 1), 1);
	cr_assert_eq(rx[0].len, 8);
	cr_assert_eq(rx[0].info.entropy, 7);
	cr_assert_eq(rx[0].buf[0], 'h');
	cr_assert_eq(rx[0].buf, in[0], "buffers stay the caller's");
	uet_rawip_stats(pb, &st);
	cr_assert_eq(st.malformed, 1);
	cr_assert_eq(st.received, 1);
	close(fd);
	pb->ops->close(pb);
}

Test(rawip, ipv6_loopback, .init = need_raw)
{
	struct uet_addr a = { .af = UET_AF_INET6, .ip = { [15] = 1 } };
	struct uet_rawip_config cfg;
	struct uet_net *p = NULL;
	uint8_t pkt[40], in[64];
	struct uet_net_msg tx = { .buf = pkt, .len = sizeof(pkt) };
	struct uet_net_msg rx = { .buf = in, .cap = sizeof(in) };

	uet_rawip_config_default(&cfg);
	cfg.proto = test_proto;
	if (uet_rawip_open(&p, &a, &cfg))
		cr_skip_test("no IPv6 loopback: %s", uet_rawip_errstr(NULL));
	memset(pkt, 0x5a, sizeof(pkt));
	tx.info.dst = a;
	tx.info.entropy = 99;
	tx.info.ecn = UET_ECN_CE;
	cr_assert_eq(p->ops->send(p, &tx, 1), 1);
	/* bound to ::1, the port hears what is sent to ::1 */
	cr_assert_eq(recv_some(p, &rx, 1), 1);
	cr_assert_eq(rx.len, sizeof(pkt));
	cr_assert_eq(rx.info.entropy, 99);
	cr_assert_eq(rx.info.ecn, UET_ECN_CE);
	cr_assert(uet_addr_equal(&rx.info.src, &a));
	p->ops->close(p);
}

Test(rawip, dscp_reported, .init = need_raw)
{
	struct uet_addr a = lo4(7), b = lo4(8);
	struct uet_rawip_config cfg;
	struct uet_net *pa = NULL, *pb = port_open(b);
	uint8_t pkt[20] = { 0 }, in[64];
	struct uet_net_msg tx = { .buf = pkt, .len = sizeof(pkt) };
	struct uet_net_msg rx = { .buf = in, .cap = sizeof(in) };

	uet_rawip_config_default(&cfg);
	cfg.proto = test_proto;
	cfg.dscp = 46;
	cr_assert_eq(uet_rawip_open(&pa, &a, &cfg), 0);
	cr_assert_eq(uet_rawip_proto(pa), test_proto);
	tx.info.dst = b;
	cr_assert_eq(pa->ops->send(pa, &tx, 1), 1);
	cr_assert_eq(recv_some(pb, &rx, 1), 1);
	cr_assert_eq(rx.info.dscp, 46);
	cr_assert_eq(rx.info.ecn, UET_ECN_ECT0);
	pa->ops->close(pa);
	pb->ops->close(pb);
}

Test(rawip, bad_open)
{
	struct uet_net *p = NULL;
	struct uet_addr a = lo4(9);
	struct uet_addr zero = { .af = UET_AF_INET };
	struct uet_rawip_config cfg;

	a.port = 4793;
	cr_assert_eq(uet_rawip_open(&p, &a, NULL), UET_ERR_INVAL);
	cr_assert_str_neq(uet_rawip_errstr(NULL), "");
	cr_assert_eq(uet_rawip_open(&p, &zero, NULL), UET_ERR_INVAL);
	uet_rawip_config_default(&cfg);
	cfg.dscp = 64;
	a.port = 0;
	cr_assert_eq(uet_rawip_open(&p, &a, &cfg), UET_ERR_INVAL);
	cr_assert_null(p);
}
