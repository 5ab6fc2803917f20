/* Tests of the UDP port on loopback (127.0.0.1 and ::1): batches both
 * ways, entropy in the source port (spray sockets) and the home port,
 * answers to spray ports, ECN, the home port rules, errors that must not
 * fail the port, and bad input.
 * Ports are chosen by the code under test (and by the kernel for the
 * plain sockets used as independent witnesses), except the IANA port. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "uet/udp.h"

#define PKT_MAX 9216
#define WAIT_MS 3000

static uint8_t bufs[2][1024][PKT_MAX];	/* rx, tx */

static struct uet_addr lo(uint8_t af)
{
	struct uet_addr a = { .af = af };

	if (af == UET_AF_INET) {
		a.ip[0] = 127;
		a.ip[3] = 1;
	} else {
		a.ip[15] = 1;
	}
	return a;
}

static struct uet_udp_config cfg_k(unsigned k)
{
	struct uet_udp_config c;

	uet_udp_config_default(&c);
	c.entropy_bits = k;
	c.prefer_iana = false;	/* only the IANA tests may take 4793 */
	return c;
}

static struct uet_net *open_ok(uint8_t af, const struct uet_udp_config *c)
{
	struct uet_addr a = lo(af);
	struct uet_net *p = NULL;
	int rc = uet_udp_open(&p, &a, c);

	cr_assert_eq(rc, 0, "open: %d %s", rc, uet_udp_errstr(NULL));
	cr_assert_not_null(p);
	cr_assert_str_eq(p->ops->name, "udp");
	return p;
}

static void fill(uint8_t *buf, size_t len, uint32_t id)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = i < 4 ? (uint8_t)(id >> (8 * i)) :
				 (uint8_t)(id * 31 + i);
}

static uint32_t id_of(const uint8_t *buf)
{
	return (uint32_t)buf[0] | (uint32_t)buf[1] << 8 |
	       (uint32_t)buf[2] << 16 | (uint32_t)buf[3] << 24;
}

/* Copied into buf, or lent by the port (rx_lend). */
static void check_bytes(const struct uet_net_msg *m)
{
	static uint8_t want[PKT_MAX];
	const uint8_t *b = uet_net_msg_rx(m);
	size_t len = uet_net_msg_len(m);

	cr_assert_geq(len, 4);
	fill(want, len, id_of(b));
	cr_assert_arr_eq(b, want, len, "bytes of packet %u", id_of(b));
}

static void rx_init(struct uet_net_msg *m, unsigned n, size_t cap)
{
	unsigned i;

	memset(m, 0, n * sizeof(*m));
	for (i = 0; i < n; i++) {
		m[i].buf = bufs[0][i];
		m[i].cap = cap;
	}
}

/* A tx packet: id, len bytes, to dst with entropy e. */
static void tx_set(struct uet_net_msg *m, unsigned slot, uint32_t id,
		   size_t len, const struct uet_addr *dst, uint16_t e)
{
	memset(m, 0, sizeof(*m));
	m->buf = bufs[1][slot];
	m->len = len;
	m->cap = PKT_MAX;
	fill(m->buf, len, id);
	m->info.dst = *dst;
	m->info.entropy = e;
}

/* Receive until `want` packets came or WAIT_MS passed; every call must
 * succeed. Returns the count. */
static unsigned recv_wait(struct uet_net *p, struct uet_net_msg *m,
			  unsigned want, uet_time now)
{
	struct pollfd pfd = { .fd = p->ops->fd(p), .events = POLLIN };
	unsigned got = 0, waited = 0;
	int r;

	while (got < want) {
		r = p->ops->recv(p, m + got, want - got, now);
		cr_assert_geq(r, 0, "recv: %d %s", r, uet_udp_errstr(p));
		got += (unsigned)r;
		if (got == want || waited >= WAIT_MS)
			break;
		if (!r) {
			poll(&pfd, 1, 10);
			waited += 10;
		}
	}
	return got;
}

static void send_all(struct uet_net *p, const struct uet_net_msg *m,
		     unsigned n)
{
	int r = p->ops->send(p, m, n);

	cr_assert_eq(r, (int)n, "send: %d of %u: %s", r, n,
		     uet_udp_errstr(p));
}

/* A plain socket on loopback, port picked by the kernel (or `port`). */
static int plain_socket(uint8_t af, uint16_t port, uint16_t *bound)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1;

	memset(&ss, 0, sizeof(ss));
	fd = socket(af == UET_AF_INET ? AF_INET : AF_INET6, SOCK_DGRAM, 0);
	cr_assert_geq(fd, 0);
	if (af == UET_AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)&ss;

		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		s->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(*s);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;

		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		s->sin6_family = AF_INET6;
		s->sin6_port = htons(port);
		s->sin6_addr = in6addr_loopback;
		len = sizeof(*s);
	}
	if (bind(fd, (struct sockaddr *)&ss, len)) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	len = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &len);
	if (bound)
		*bound = ntohs(af == UET_AF_INET ?
			       ((struct sockaddr_in *)&ss)->sin_port :
			       ((struct sockaddr_in6 *)&ss)->sin6_port);
	return fd;
}

static bool port_free(uint8_t af, uint16_t port)
{
	int fd = plain_socket(af, port, NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* The source port of a packet, by entropy or home, as send() picks it. */
static uint16_t txp(const struct uet_net *p, uint16_t e, bool home)
{
	struct uet_pkt_info i = { .entropy = e, .home = home };

	return uet_udp_tx_port(p, &i);
}

/* 2^k spray ports, distinct, none of them home; e % 2^k picks one. */
Test(udp, spray_ports_distinct)
{
	struct uet_udp_config c = cfg_k(3);
	struct uet_net *p = open_ok(UET_AF_INET, &c), *q;
	uint16_t ports[8];
	unsigned i, j;

	for (i = 0; i < 8; i++) {
		ports[i] = txp(p, (uint16_t)i, false);
		cr_assert_neq(ports[i], 0);
		cr_assert_neq(ports[i], p->local.port);
		cr_assert_not(port_free(UET_AF_INET, ports[i]),
			      "spray port %u not bound", ports[i]);
		for (j = 0; j < i; j++)
			cr_assert_neq(ports[i], ports[j]);
		cr_assert_eq(txp(p, (uint16_t)(i + 8), false), ports[i]);
		cr_assert_eq(txp(p, (uint16_t)(i + 0xfff8), false), ports[i]);
		cr_assert_eq(txp(p, (uint16_t)i, true), p->local.port);
	}
	c = cfg_k(0);
	q = open_ok(UET_AF_INET, &c);
	for (i = 0; i < 4; i++)
		cr_assert_eq(txp(q, (uint16_t)(i * 1000), false),
			     q->local.port, "k = 0 sprays nothing");
	p->ops->close(p);
	q->ops->close(q);
}

static void exchange(uint8_t af)
{
	struct uet_udp_config c = cfg_k(3);
	struct uet_net *p[2], *from, *to;
	static struct uet_net_msg tx[96], rx[96];
	struct uet_addr want;
	uint32_t next_e[8];
	bool seen[96];
	unsigned dir, i, b, got;

	p[0] = open_ok(af, &c);
	p[1] = open_ok(af, &c);
	cr_assert_neq(p[0]->local.port, p[1]->local.port);
	for (dir = 0; dir < 2; dir++) {
		from = p[dir];
		to = p[1 - dir];
		for (i = 0; i < 96; i++)
			tx_set(&tx[i], i, dir << 16 | i, 4 + (i * 97) % 1500,
			       &to->local, (uint16_t)(i * 7 + dir));
		memset(seen, 0, sizeof(seen));
		memset(next_e, 0, sizeof(next_e));
		for (b = 0; b < 96; b += 32) {
			uet_time now = 1000 + b;

			send_all(from, &tx[b], 32);
			rx_init(rx, 32, PKT_MAX);
			got = recv_wait(to, rx, 32, now);
			cr_assert_eq(got, 32, "dir %u batch %u: got %u", dir,
				     b, got);
			for (i = 0; i < got; i++) {
				uint32_t id = id_of(rx[i].buf);
				unsigned k = id & 0xffff, s;

				check_bytes(&rx[i]);
				cr_assert_eq(id >> 16, dir);
				cr_assert_lt(k, 96);
				cr_assert_not(seen[k], "packet %u twice", k);
				seen[k] = true;
				cr_assert_eq(rx[i].len, tx[k].len);
				s = (k * 7 + dir) % 8;
				want = from->local;
				want.port = txp(from, (uint16_t)(k * 7 + dir),
						false);
				cr_assert(uet_addr_equal(&rx[i].info.src,
							 &want));
				cr_assert(uet_addr_equal(&rx[i].info.dst,
							 &to->local));
				cr_assert(rx[i].info.home);
				cr_assert_eq(rx[i].info.ts, now);
				cr_assert_eq(rx[i].info.entropy, want.port);
				cr_assert_eq(rx[i].info.ecn, UET_ECN_ECT0);
				cr_assert_not(rx[i].info.trimmed);
				/* one source socket keeps its order */
				cr_assert_geq(k, next_e[s], "order of port +%u",
					      s);
				next_e[s] = k + 1;
			}
		}
		for (i = 0; i < 96; i++)
			cr_assert(seen[i], "packet %u lost", i);
	}
	p[0]->ops->close(p[0]);
	p[1]->ops->close(p[1]);
}

Test(udp, exchange_batches_v4)
{
	exchange(UET_AF_INET);
}

Test(udp, exchange_batches_v6)
{
	exchange(UET_AF_INET6);
}

/* Every entropy value leaves from spray socket e % 2^k, a packet with
 * home from the home port (both seen by a plain socket, the witness), and
 * the receiver reports the raw source port: it cannot know the sender's
 * home port from a sprayed packet. */
static void entropy_ports(uint8_t af, unsigned k)
{
	struct uet_udp_config c = cfg_k(k);
	struct uet_net *a, *b;
	struct uet_net_msg tx, rx;
	struct sockaddr_storage ss;
	struct uet_addr wdst;
	uint16_t wport, sport;
	unsigned e, n = 2u << k, h;
	socklen_t len;
	uint8_t buf[64];
	int w, i;

	a = open_ok(af, &c);
	b = open_ok(af, &c);
	w = plain_socket(af, 0, &wport);
	cr_assert_geq(w, 0);
	wdst = lo(af);
	wdst.port = wport;

	for (h = 0; h < 2; h++) {
		for (e = 0; e <= n; e++) {
			uint16_t ev = e == n ? 0xffff : (uint16_t)e;
			uint16_t want = txp(a, ev, h);

			cr_assert_eq(want, h || !k ? a->local.port :
				     txp(a, (uint16_t)(ev % (1u << k)), false));
			tx_set(&tx, 0, e, 32, &b->local, ev);
			tx.info.home = h;
			send_all(a, &tx, 1);
			rx_init(&rx, 1, PKT_MAX);
			cr_assert_eq(recv_wait(b, &rx, 1, 7), 1);
			cr_assert_eq(id_of(rx.buf), e);
			cr_assert_eq(rx.info.entropy, want, "e %u", ev);
			cr_assert_eq(rx.info.src.port, want, "e %u", ev);

			/* The witness sees the same source port. */
			tx_set(&tx, 0, e, 32, &wdst, ev);
			tx.info.home = h;
			send_all(a, &tx, 1);
			for (i = 0; i < WAIT_MS; i++) {
				struct pollfd pfd = { .fd = w,
						      .events = POLLIN };

				if (poll(&pfd, 1, 1) > 0)
					break;
			}
			len = sizeof(ss);
			cr_assert_eq(recvfrom(w, buf, sizeof(buf),
					      MSG_DONTWAIT,
					      (struct sockaddr *)&ss, &len),
				     32);
			sport = ntohs(af == UET_AF_INET ?
				      ((struct sockaddr_in *)&ss)->sin_port :
				      ((struct sockaddr_in6 *)&ss)->sin6_port);
			cr_assert_eq(sport, want, "e %u: source port %u", ev,
				     sport);
		}
	}

	/* A foreign sender at port wport: reported as it is. */
	{
		struct sockaddr_storage to;
		struct uet_addr bl = b->local;

		memset(&to, 0, sizeof(to));
		if (af == UET_AF_INET) {
			struct sockaddr_in *s = (struct sockaddr_in *)&to;

			s->sin_family = AF_INET;
			s->sin_port = htons(bl.port);
			memcpy(&s->sin_addr, bl.ip, 4);
			len = sizeof(*s);
		} else {
			struct sockaddr_in6 *s = (struct sockaddr_in6 *)&to;

			s->sin6_family = AF_INET6;
			s->sin6_port = htons(bl.port);
			memcpy(&s->sin6_addr, bl.ip, 16);
			len = sizeof(*s);
		}
		fill(buf, 16, 77);
		cr_assert_eq(sendto(w, buf, 16, 0, (struct sockaddr *)&to, len),
			     16);
		rx_init(&rx, 1, PKT_MAX);
		cr_assert_eq(recv_wait(b, &rx, 1, 9), 1);
		cr_assert_eq(rx.info.entropy, wport);
		cr_assert_eq(rx.info.src.port, wport);
		cr_assert_eq(rx.info.ecn, UET_ECN_NOT_ECT);
	}
	close(w);
	a->ops->close(a);
	b->ops->close(b);
}

Test(udp, entropy_source_ports_v4_k3)
{
	entropy_ports(UET_AF_INET, 3);
}

Test(udp, entropy_source_ports_v6_k3)
{
	entropy_ports(UET_AF_INET6, 3);
}

Test(udp, entropy_source_ports_v4_k5)
{
	entropy_ports(UET_AF_INET, 5);
}

Test(udp, entropy_source_ports_v6_k0)
{
	entropy_ports(UET_AF_INET6, 0);
}

static void ecn_roundtrip(uint8_t af)
{
	static const uint8_t cps[] = { UET_ECN_NOT_ECT, UET_ECN_ECT1,
				       UET_ECN_ECT0, UET_ECN_CE };
	struct uet_udp_config c = cfg_k(2);
	struct uet_net *exact, *def, *rcv;
	struct uet_net_msg tx, rx;
	unsigned i;

	c.ecn = UET_ECN_NOT_ECT;
	exact = open_ok(af, &c);
	c = cfg_k(2);
	c.dscp = 46;	/* EF: the ECN bits must stay apart from it */
	def = open_ok(af, &c);
	c = cfg_k(2);
	rcv = open_ok(af, &c);

	for (i = 0; i < 4; i++) {
		tx_set(&tx, 0, i, 100, &rcv->local, (uint16_t)i);
		tx.info.ecn = cps[i];
		send_all(exact, &tx, 1);
		rx_init(&rx, 1, PKT_MAX);
		cr_assert_eq(recv_wait(rcv, &rx, 1, 1), 1);
		cr_assert_eq(rx.info.ecn, cps[i], "sent %u got %u", cps[i],
			     rx.info.ecn);
		cr_assert_eq(rx.info.dscp, 0);

		/* The default config sends ECT(0) for "not set". */
		send_all(def, &tx, 1);
		rx_init(&rx, 1, PKT_MAX);
		cr_assert_eq(recv_wait(rcv, &rx, 1, 1), 1);
		cr_assert_eq(rx.info.ecn, cps[i] == UET_ECN_NOT_ECT ?
			     UET_ECN_ECT0 : cps[i], "default, sent %u",
			     cps[i]);
		cr_assert_eq(rx.info.src.port, txp(def, (uint16_t)i, false));
		cr_assert_eq(rx.info.dscp, 46, "the DSCP it arrived with");
	}
	exact->ops->close(exact);
	def->ops->close(def);
	rcv->ops->close(rcv);
}

Test(udp, ecn_roundtrip_v4)
{
	ecn_roundtrip(UET_AF_INET);
}

Test(udp, ecn_roundtrip_v6)
{
	ecn_roundtrip(UET_AF_INET6);
}

Test(udp, recv_empty_does_not_block)
{
	struct uet_udp_config c = cfg_k(3);
	struct uet_net *p = open_ok(UET_AF_INET, &c);
	struct uet_net_msg rx[8];
	struct pollfd pfd;
	int fd = p->ops->fd(p), i;

	cr_assert_geq(fd, 0);
	cr_assert(fcntl(fd, F_GETFL) & O_NONBLOCK);
	cr_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	for (i = 0; i < 3; i++) {
		rx_init(rx, 8, PKT_MAX);
		cr_assert_eq(p->ops->recv(p, rx, 8, 5), 0);
	}
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	cr_assert_eq(poll(&pfd, 1, 0), 0, "fd readable with nothing sent");
	p->ops->close(p);
}

Test(udp, fd_readable_when_packets_wait)
{
	struct uet_udp_config c = cfg_k(1);
	struct uet_net *a = open_ok(UET_AF_INET6, &c), *b;
	struct uet_net_msg tx, rx;
	struct pollfd pfd;

	b = open_ok(UET_AF_INET6, &c);
	tx_set(&tx, 0, 1, 64, &b->local, 1);
	send_all(a, &tx, 1);
	pfd = (struct pollfd){ .fd = b->ops->fd(b), .events = POLLIN };
	cr_assert_eq(poll(&pfd, 1, WAIT_MS), 1);
	rx_init(&rx, 1, PKT_MAX);
	cr_assert_eq(b->ops->recv(b, &rx, 1, 0), 1);
	pfd.revents = 0;
	cr_assert_eq(poll(&pfd, 1, 0), 0);
	a->ops->close(a);
	b->ops->close(b);
}

/* More than the receiver holds, in one call: the sender takes what the
 * kernel takes (all of it on loopback, which never pushes back) without
 * an error, the receiver gets what fit, and the kernel's drop count
 * accounts for the rest. Both ports work afterwards. */
Test(udp, oversized_batch_is_best_effort)
{
	struct uet_udp_config c = cfg_k(3);
	static struct uet_net_msg tx[1024], rx[1024];
	struct uet_udp_stats st;
	struct uet_net *a, *b;
	unsigned i, got, total = 0;
	int r, r2;

	c.sndbuf = 1;		/* the kernel's minimum */
	/* The kernel counts a dropped GSO train once: one datagram per
	 * packet keeps the drop count exact. */
	c.gso = false;
	a = open_ok(UET_AF_INET, &c);
	c = cfg_k(3);
	c.rcvbuf = 1;
	b = open_ok(UET_AF_INET, &c);
	for (i = 0; i < 1024; i++)
		tx_set(&tx[i], i, i, 8192, &b->local, (uint16_t)(i / 128));
	r = a->ops->send(a, tx, 1024);
	cr_assert_geq(r, 0, "send: %d %s", r, uet_udp_errstr(a));
	cr_assert_leq(r, 1024);
	cr_assert_gt(r, 0);
	/* Drain until nothing came for 100 ms. */
	for (;;) {
		struct pollfd pfd = { .fd = b->ops->fd(b), .events = POLLIN };

		rx_init(rx, 1024, PKT_MAX);
		r2 = b->ops->recv(b, rx, 1024, 0);
		cr_assert_geq(r2, 0, "recv: %s", uet_udp_errstr(b));
		got = (unsigned)r2;
		for (i = 0; i < got; i++)
			check_bytes(&rx[i]);
		total += got;
		if (!got && poll(&pfd, 1, 100) == 0)
			break;
	}
	cr_assert_gt(total, 0);
	cr_assert_lt(total, (unsigned)r, "a %u-byte buffer held %u packets",
		     c.rcvbuf, total);

	/* One more packet carries the drop count; it must be exact. */
	tx_set(&tx[0], 0, 5000, 64, &b->local, 0);
	send_all(a, tx, 1);
	rx_init(rx, 1, PKT_MAX);
	cr_assert_eq(recv_wait(b, rx, 1, 0), 1);
	cr_assert_eq(id_of(rx[0].buf), 5000);
	uet_udp_stats(b, &st);
	cr_assert_eq(st.received, total + 1);
	cr_assert_eq(st.rx_dropped, (unsigned)r - total,
		     "dropped %llu of %d, received %u",
		     (unsigned long long)st.rx_dropped, r, total);
	uet_udp_stats(a, &st);
	cr_assert_eq(st.sent, (unsigned)r + 1);
	a->ops->close(a);
	b->ops->close(b);
}

/* The trains of trains_sg by packets in each: 6 and 6 (bucket 4-7), 15
 * (8-15), 21 (16-31). */
static void train_hist_is(const uint64_t *h, const char *what)
{
	static const uint64_t want[UET_UDP_TRAIN_BUCKETS] = {
		0, 0, 2, 1, 1, 0, 0
	};

	for (unsigned b = 0; b < UET_UDP_TRAIN_BUCKETS; b++)
		cr_assert_eq(h[b], want[b], "%s, %u+ packets: %llu", what,
			     1u << b, (unsigned long long)h[b]);
}

Test(udp, train_buckets)
{
	static const unsigned pkts[] = { 0, 1, 2, 3, 4, 7, 8, 63, 64, 65,
					 1000 };
	static const unsigned want[] = { 0, 0, 1, 1, 2, 2, 3, 5, 6, 6, 6 };

	for (unsigned i = 0; i < sizeof(pkts) / sizeof(pkts[0]); i++)
		cr_assert_eq(uet_udp_train_bucket(pkts[i]), want[i],
			     "%u packets", pkts[i]);
}

/* GSO trains and GRO receives: runs of equal packets of one socket leave
 * as one message and come back out packet by packet, in order, with their
 * own lengths, source port and ECN; a short packet ends a train, another
 * TOS starts one. rx_n: packets asked for per recv call. sg: each
 * packet's payload after a header of 40 to 42 bytes is its ext part
 * (UET_NET_CAP_SG), in memory of its own, the copy behind the header
 * overwritten: the kernel cuts the train wherever the entries begin. */
static void trains_sg(uint8_t af, unsigned rx_n, size_t cap, bool sg,
		      bool lend)
{
	struct uet_udp_config c = cfg_k(3);
	static struct uet_net_msg tx[48], rx[48];
	static uint8_t ext[48][PKT_MAX];
	struct uet_udp_stats st;
	struct uet_net *a, *b;
	unsigned i, got = 0;

	a = open_ok(af, &c);
	c.rx_lend = lend;
	b = open_ok(af, &c);
	for (i = 0; i < 48; i++) {
		/* 20 x 1200 + 300 on entropy 5; 12 x 1000 on 6, the last 6
		 * CE; 15 x 900 from home */
		size_t len = i < 20 ? 1200 : i == 20 ? 300 : i < 33 ? 1000 : 900;

		tx_set(&tx[i], i, i, len, &b->local, i <= 20 ? 5 : 6);
		if (i >= 27 && i < 33)
			tx[i].info.ecn = UET_ECN_CE;
		tx[i].info.home = i >= 33;
		if (sg) {
			size_t h = 40 + i % 3;

			memcpy(ext[i], tx[i].buf + h, len - h);
			memset(tx[i].buf + h, 0xEE, len - h);
			tx[i].ext = ext[i];
			tx[i].ext_len = len - h;
			tx[i].len = h;
		}
	}
	cr_assert(a->ops->caps & UET_NET_CAP_SG);
	send_all(a, tx, 48);
	uet_udp_stats(a, &st);
	cr_assert_eq(st.sent, 48);
	cr_assert_eq(st.gso_off, 0, "GSO turned off: errno %u", st.gso_off);
	cr_assert_eq(st.gso_trains, 4, "trains sent: %llu",
		     (unsigned long long)st.gso_trains);
	/* 21 on entropy 5, 6 + 6 on 6 (the TOS changes), 15 from home */
	train_hist_is(st.gso_pkts, "sent");
	while (got < 48) {
		unsigned want = 48 - got < rx_n ? 48 - got : rx_n;
		unsigned n;

		rx_init(rx + got, want, cap);
		for (i = 0; i < want; i++)
			rx[got + i].buf = bufs[0][got + i];
		n = recv_wait(b, rx + got, want, 7);
		cr_assert_gt(n, 0, "got %u of 48", got);
		/* what a port lends lasts until its next recv */
		for (i = got; lend && i < got + n; i++) {
			cr_assert_eq(rx[i].len, 0);
			memcpy(rx[i].buf, rx[i].ext, rx[i].ext_len);
			rx[i].len = rx[i].ext_len;
			rx[i].ext = NULL;
			rx[i].ext_len = 0;
		}
		got += n;
	}
	for (i = 0; i < 48; i++) {
		struct uet_addr want = a->local;
		size_t whole = uet_net_msg_len(&tx[i]);
		size_t len = whole < cap ? whole : cap;

		want.port = txp(a, tx[i].info.entropy, tx[i].info.home);
		cr_assert_eq(id_of(rx[i].buf), i, "packet %u out of order", i);
		cr_assert_eq(rx[i].len, len, "packet %u: %zu bytes", i,
			     rx[i].len);
		if (len == whole)
			check_bytes(&rx[i]);
		cr_assert(uet_addr_equal(&rx[i].info.src, &want));
		cr_assert_eq(rx[i].info.entropy, want.port);
		cr_assert_eq(rx[i].info.ecn, tx[i].info.ecn == UET_ECN_CE ?
			     UET_ECN_CE : UET_ECN_ECT0, "ecn of %u", i);
		cr_assert_eq(rx[i].info.ts, 7);
	}
	uet_udp_stats(b, &st);
	cr_assert_eq(st.received, 48);
	cr_assert_eq(st.gro_trains, 4, "trains received: %llu",
		     (unsigned long long)st.gro_trains);
	train_hist_is(st.gro_pkts, "received");
	cr_assert_eq(st.truncated, cap < 1200 ? 20 + 12 + 15 : 0);
	a->ops->close(a);
	b->ops->close(b);
}

static void trains(uint8_t af, unsigned rx_n, size_t cap)
{
	trains_sg(af, rx_n, cap, false, false);
}

Test(udp, gso_trains_v4)
{
	trains(UET_AF_INET, 48, PKT_MAX);
}

Test(udp, gso_trains_with_ext_parts_v4)
{
	trains_sg(UET_AF_INET, 48, PKT_MAX, true, false);
}

Test(udp, gso_trains_with_ext_parts_v6)
{
	trains_sg(UET_AF_INET6, 48, PKT_MAX, true, false);
}

Test(udp, gro_lends_packets_v4)
{
	trains_sg(UET_AF_INET, 48, PKT_MAX, false, true);
}

Test(udp, gro_lends_packets_v6)
{
	trains_sg(UET_AF_INET6, 48, PKT_MAX, false, true);
}

Test(udp, gro_lends_packets_one_at_a_time)
{
	trains_sg(UET_AF_INET, 1, PKT_MAX, false, true);
}

Test(udp, gro_lent_packets_are_cut_to_cap)
{
	trains_sg(UET_AF_INET, 5, 800, false, true);
}

/* A call that lent packets reads no datagram into the memory they lie
 * in: with more coalesced datagrams waiting than the port reads at once
 * (8), every packet a call handed out is still whole when it returns,
 * and the next call brings the rest. */
Test(udp, gro_lent_packets_outlast_their_call)
{
	struct uet_udp_config c = cfg_k(0);
	static struct uet_net_msg tx[96], rx[96];
	struct uet_net *a, *b;
	unsigned i, got = 0, calls = 0;

	a = open_ok(UET_AF_INET, &c);
	c.rx_lend = true;
	b = open_ok(UET_AF_INET, &c);
	/* 12 trains of 8: each train its own size, so that no two merge */
	for (i = 0; i < 96; i++)
		tx_set(&tx[i], i, i, 600 + 40 * (i / 8), &b->local, 0);
	for (i = 0; i < 12; i++)
		send_all(a, tx + 8 * i, 8);
	rx_init(rx, 96, PKT_MAX);
	while (got < 96 && calls < 1000) {
		struct pollfd pfd = { .fd = b->ops->fd(b), .events = POLLIN };
		int n = b->ops->recv(b, rx + got, 96 - got, 0);

		cr_assert_geq(n, 0);
		calls++;
		if (!n) {
			poll(&pfd, 1, 10);
			continue;
		}
		for (i = got; i < got + (unsigned)n; i++) {
			cr_assert_eq(id_of(uet_net_msg_rx(&rx[i])), i);
			check_bytes(&rx[i]);
		}
		cr_assert_leq(n, 64, "%d packets from one call", n);
		got += (unsigned)n;
	}
	cr_assert_eq(got, 96);
	a->ops->close(a);
	b->ops->close(b);
}

Test(udp, gso_trains_v6)
{
	trains(UET_AF_INET6, 48, PKT_MAX);
}

Test(udp, gro_handed_out_one_at_a_time)
{
	trains(UET_AF_INET, 1, PKT_MAX);
}

Test(udp, gro_truncates_each_packet)
{
	trains(UET_AF_INET, 5, 800);
}

/* Planes (UE 1.0 §3.6.16.6): each EV has exactly one plane, EV mod planes,
 * and every plane carries some. */
Test(udp, plane_is_ev_mod_planes)
{
	unsigned n, e, used;

	cr_assert_eq(uet_udp_plane(7, 0), 0);
	cr_assert_eq(uet_udp_plane(7, 1), 0);
	for (n = 2; n <= UET_UDP_PLANES_MAX; n++) {
		used = 0;
		for (e = 0; e < 256; e++) {
			unsigned pl = uet_udp_plane((uint16_t)e, n);

			cr_assert_lt(pl, n);
			cr_assert_eq(pl, e % n, "ev %u, %u planes", e, n);
			used |= 1u << pl;
		}
		cr_assert_eq(used, (1u << n) - 1, "%u planes: unused plane", n);
	}
}

/* Packets of one spray socket but of two planes never share a GSO train;
 * every packet still arrives, from the one FA, whatever its plane. The
 * planes are all loopback here (IP_PKTINFO names it), so only the train
 * cut is seen: 12 on EV 1, 12 alternating EV 9 and 1, 8 on EV 9; with 8
 * spray sockets all leave from socket 1. 3 planes: 1 and 9 are planes 1
 * and 0, two trains. 2 planes: both plane 1, one train of 32, as without
 * planes. */
static void plane_trains(uint8_t af, unsigned nplanes, unsigned want_trains)
{
	struct uet_udp_config c = cfg_k(3), c0 = cfg_k(0);
	static struct uet_net_msg tx[32], rx[32];
	struct uet_udp_stats st;
	struct uet_net *a, *b;
	unsigned i, got;

	c.nplanes = nplanes;
	for (i = 0; i < nplanes; i++)
		c.plane_ifindex[i] = if_nametoindex("lo");
	cr_assert(!nplanes || c.plane_ifindex[0], "no lo interface");
	a = open_ok(af, &c);
	b = open_ok(af, &c0);
	for (i = 0; i < 32; i++) {
		uint16_t e = i < 12 ? 1 : i < 24 ? (i % 2 ? 1 : 9) : 9;

		tx_set(&tx[i], i, i, 1000, &b->local, e);
	}
	send_all(a, tx, 32);
	uet_udp_stats(a, &st);
	cr_assert_eq(st.gso_off, 0, "GSO turned off: errno %u", st.gso_off);
	cr_assert_eq(st.gso_trains, want_trains, "trains sent: %llu",
		     (unsigned long long)st.gso_trains);
	rx_init(rx, 32, PKT_MAX);
	got = recv_wait(b, rx, 32, 0);
	cr_assert_eq(got, 32, "got %u of 32", got);
	for (i = 0; i < 32; i++) {
		struct uet_addr want = a->local;

		want.port = txp(a, 1, false);
		cr_assert_eq(id_of(rx[i].buf), i, "packet %u out of order", i);
		check_bytes(&rx[i]);
		cr_assert(uet_addr_equal(&rx[i].info.src, &want));
	}
	a->ops->close(a);
	b->ops->close(b);
}

/* Spray socket i's port is i modulo nplanes: a peer's ACK, which
 * echoes the raw source port as its entropy, takes the request's plane. */
Test(udp, spray_ports_keep_their_plane)
{
	struct uet_udp_config c = cfg_k(3);
	struct uet_net *a;

	for (unsigned n = 2; n <= 5; n++) {
		c.nplanes = n;
		for (unsigned i = 0; i < n; i++)
			c.plane_ifindex[i] = if_nametoindex("lo");
		a = open_ok(UET_AF_INET, &c);
		for (uint16_t e = 0; e < 8; e++)
			cr_assert_eq(txp(a, e, false) % n, uet_udp_plane(e, n),
				     "%u planes, ev %u: port %u", n, e,
				     txp(a, e, false));
		a->ops->close(a);
	}
}

/* An answer whose entropy echoes a source port heard at that address
 * leaves by the plane that port's packets came in by, not by arithmetic:
 * a peer's home port has no residue, and its SYN phase must be answered
 * on a plane it found alive. Planes [lo, lo]: arrivals count as plane 0.
 * The peer's home port H is odd, so H and H + 8 (the same spray socket)
 * are plane 1 by arithmetic: one train of 16 without learning, two
 * once H was heard (H on plane 0, H + 8 on plane 1). */
static void plane_learnt(uint8_t af)
{
	struct uet_udp_config c = cfg_k(3), c0 = cfg_k(0);
	static struct uet_net_msg tx[16], rx[16];
	struct uet_udp_stats st;
	struct uet_net *a, *b;
	uint16_t h;
	unsigned i, tries = 0;

	c.nplanes = 2;
	c.plane_ifindex[0] = c.plane_ifindex[1] = if_nametoindex("lo");
	a = open_ok(af, &c);
	do {
		b = open_ok(af, &c0);
		h = b->local.port;
		if (!(h & 1))
			b->ops->close(b);
	} while (!(h & 1) && ++tries < 100);
	cr_assert(h & 1, "no odd port in 100 tries");
	for (int learnt = 0; learnt < 2; learnt++) {
		if (learnt) {	/* b's home port speaks to a's home */
			struct uet_addr to = a->local;

			tx_set(&tx[0], 0, 99, 100, &to, 0);
			tx[0].info.home = true;
			send_all(b, tx, 1);
			rx_init(rx, 1, PKT_MAX);
			cr_assert_eq(recv_wait(a, rx, 1, 0), 1);
			cr_assert_eq(rx[0].info.src.port, h);
		}
		for (i = 0; i < 16; i++)
			tx_set(&tx[i], i, i, 1000, &b->local,
			       (uint16_t)(i < 8 ? h : h + 8));
		uet_udp_stats(a, &st);
		send_all(a, tx, 16);
		{
			uint64_t before = st.gso_trains;

			uet_udp_stats(a, &st);
			cr_assert_eq(st.gso_trains - before, learnt ? 2 : 1,
				     "learnt %d: %llu trains", learnt,
				     (unsigned long long)(st.gso_trains -
							  before));
		}
		rx_init(rx, 16, PKT_MAX);
		cr_assert_eq(recv_wait(b, rx, 16, 0), 16);
		for (i = 0; i < 16; i++)
			check_bytes(&rx[i]);
	}
	a->ops->close(a);
	b->ops->close(b);
}

Test(udp, plane_of_an_answer_is_learnt_v4)
{
	plane_learnt(UET_AF_INET);
}

Test(udp, plane_of_an_answer_is_learnt_v6)
{
	plane_learnt(UET_AF_INET6);
}

Test(udp, planes_split_trains_v4)
{
	plane_trains(UET_AF_INET, 3, 2);
}

Test(udp, planes_split_trains_v6)
{
	plane_trains(UET_AF_INET6, 3, 2);
}

Test(udp, planes_dividing_sockets_keep_trains)
{
	plane_trains(UET_AF_INET, 2, 1);
	plane_trains(UET_AF_INET, 0, 1);
}

/* Off: one datagram per packet both ways. */
Test(udp, gso_off)
{
	struct uet_udp_config c = cfg_k(0);
	static struct uet_net_msg tx[16], rx[16];
	struct uet_udp_stats st;
	struct uet_net *a, *b;
	unsigned i;

	c.gso = false;
	a = open_ok(UET_AF_INET, &c);
	b = open_ok(UET_AF_INET, &c);
	for (i = 0; i < 16; i++)
		tx_set(&tx[i], i, i, 1000, &b->local, 0);
	send_all(a, tx, 16);
	rx_init(rx, 16, PKT_MAX);
	cr_assert_eq(recv_wait(b, rx, 16, 0), 16);
	for (i = 0; i < 16; i++)
		check_bytes(&rx[i]);
	uet_udp_stats(a, &st);
	cr_assert_eq(st.gso_trains, 0);
	uet_udp_stats(b, &st);
	cr_assert_eq(st.gro_trains, 0);
	a->ops->close(a);
	b->ops->close(b);
}

static void closed_peer(uint8_t af)
{
	struct uet_udp_config c = cfg_k(3);
	static struct uet_net_msg tx[16], rx[16];
	struct uet_addr gone;
	struct uet_udp_stats st;
	struct uet_net *a, *b, *d;
	int i, r;

	a = open_ok(af, &c);
	b = open_ok(af, &c);
	gone = b->local;
	b->ops->close(b);
	for (i = 0; i < 16; i++)
		tx_set(&tx[i], i, i, 200, &gone, (uint16_t)i);
	/* Twice: the second batch meets whatever ICMP the first caused. */
	send_all(a, tx, 16);
	usleep(20000);
	send_all(a, tx, 16);
	usleep(20000);
	for (i = 0; i < 4; i++) {
		rx_init(rx, 16, PKT_MAX);
		r = a->ops->recv(a, rx, 16, 0);
		cr_assert_eq(r, 0, "recv after ICMP: %d %s", r,
			     uet_udp_errstr(a));
	}
	uet_udp_stats(a, &st);
	cr_assert_eq(st.unreachable, 0);
	cr_assert_eq(st.sent, 32);

	/* The port still talks both ways. */
	d = open_ok(af, &c);
	tx_set(&tx[0], 0, 42, 300, &a->local, 3);
	send_all(d, tx, 1);
	rx_init(rx, 1, PKT_MAX);
	cr_assert_eq(recv_wait(a, rx, 1, 0), 1);
	cr_assert_eq(id_of(rx[0].buf), 42);
	tx_set(&tx[0], 0, 43, 300, &d->local, 5);
	send_all(a, tx, 1);
	rx_init(rx, 1, PKT_MAX);
	cr_assert_eq(recv_wait(d, rx, 1, 0), 1);
	cr_assert_eq(id_of(rx[0].buf), 43);
	a->ops->close(a);
	d->ops->close(d);
}

Test(udp, send_to_closed_port_v4)
{
	closed_peer(UET_AF_INET);
}

Test(udp, send_to_closed_port_v6)
{
	closed_peer(UET_AF_INET6);
}

/* An explicit home port that is taken fails; the sockets made for the
 * attempt are given back. */
Test(udp, taken_port_refused)
{
	struct uet_udp_config c = cfg_k(3);
	struct uet_addr a = lo(UET_AF_INET6);
	struct uet_net *p, *q = NULL;
	uint16_t home, spray[8];
	unsigned i;

	p = open_ok(UET_AF_INET6, &c);
	home = p->local.port;
	for (i = 0; i < 8; i++)
		spray[i] = txp(p, (uint16_t)i, false);
	c.port = home;
	cr_assert_eq(uet_udp_open(&q, &a, &c), UET_ERR_INVAL);
	cr_assert_null(q);
	cr_assert(strlen(uet_udp_errstr(NULL)) > 0);
	/* A spray port is taken as well. */
	c = cfg_k(0);
	c.port = spray[5];
	cr_assert_eq(uet_udp_open(&q, &a, &c), UET_ERR_INVAL);
	cr_assert_null(q);
	p->ops->close(p);
	for (i = 0; i < 8; i++)
		cr_assert(port_free(UET_AF_INET6, spray[i]),
			  "spray port %u still held", spray[i]);
	cr_assert(port_free(UET_AF_INET6, home));
}

Test(udp, close_releases_ports)
{
	struct uet_udp_config c = cfg_k(3);
	struct uet_net *p;
	uint16_t home, spray[8];
	unsigned i;

	p = open_ok(UET_AF_INET, &c);
	home = p->local.port;
	for (i = 0; i < 8; i++)
		spray[i] = txp(p, (uint16_t)i, false);
	p->ops->close(p);
	cr_assert(port_free(UET_AF_INET, home));
	for (i = 0; i < 8; i++)
		cr_assert(port_free(UET_AF_INET, spray[i]), "port %u",
			  spray[i]);
	c.port = home;
	p = open_ok(UET_AF_INET, &c);
	cr_assert_eq(p->local.port, home);
	p->ops->close(p);
}

/* An answer sent to the address a sprayed packet came from (a NACK for
 * an unknown PDC) reaches the port: recv() hands it out with the spray
 * address in info.dst, fd() wakes for it and goes quiet once read. */
Test(udp, spray_ports_receive_answers)
{
	struct uet_udp_config c = cfg_k(3);
	struct uet_net *a, *b;
	struct uet_net_msg tx, rx[2];
	struct uet_udp_stats st;
	struct uet_addr back;
	struct pollfd pfd;

	a = open_ok(UET_AF_INET, &c);
	b = open_ok(UET_AF_INET, &c);
	tx_set(&tx, 0, 1, 100, &b->local, 5);
	send_all(a, &tx, 1);
	rx_init(rx, 1, PKT_MAX);
	cr_assert_eq(recv_wait(b, rx, 1, 0), 1);
	back = rx[0].info.src;
	cr_assert_eq(back.port, txp(a, 5, false));

	tx_set(&tx, 0, 2, 100, &back, 0);
	send_all(b, &tx, 1);
	pfd = (struct pollfd){ .fd = a->ops->fd(a), .events = POLLIN };
	cr_assert_eq(poll(&pfd, 1, WAIT_MS), 1, "fd did not wake");
	rx_init(rx, 2, PKT_MAX);
	cr_assert_eq(recv_wait(a, rx, 1, 3), 1);
	cr_assert_eq(id_of(rx[0].buf), 2);
	cr_assert(uet_addr_equal(&rx[0].info.dst, &back));
	cr_assert_not(rx[0].info.home);
	cr_assert_eq(rx[0].info.src.port, txp(b, 0, false));
	check_bytes(&rx[0]);
	pfd.revents = 0;
	cr_assert_eq(poll(&pfd, 1, 0), 0, "readable after the answer");
	uet_udp_stats(a, &st);
	cr_assert_eq(st.spray_received, 1);
	cr_assert_eq(st.received, 1);

	/* The home port still receives, with home set, also when both
	 * have something in one call. */
	tx_set(&tx, 0, 3, 100, &back, 1);
	send_all(b, &tx, 1);
	tx_set(&tx, 0, 4, 100, &a->local, 1);
	send_all(b, &tx, 1);
	rx_init(rx, 2, PKT_MAX);
	cr_assert_eq(recv_wait(a, rx, 2, 4), 2);
	cr_assert(rx[0].info.home != rx[1].info.home);
	cr_assert_eq(id_of(rx[rx[0].info.home ? 0 : 1].buf), 4);
	a->ops->close(a);
	b->ops->close(b);
}

static void jumbo(uint8_t af)
{
	struct uet_udp_config c = cfg_k(3);
	struct uet_net *a, *b;
	struct uet_net_msg tx, rx;
	struct uet_udp_stats st;

	a = open_ok(af, &c);
	b = open_ok(af, &c);
	tx_set(&tx, 0, 9000, 9000, &b->local, 6);
	send_all(a, &tx, 1);
	rx_init(&rx, 1, PKT_MAX);
	cr_assert_eq(recv_wait(b, &rx, 1, 0), 1);
	cr_assert_eq(rx.len, 9000);
	check_bytes(&rx);

	/* A short buffer gets the head of the packet. */
	send_all(a, &tx, 1);
	rx_init(&rx, 1, 100);
	cr_assert_eq(recv_wait(b, &rx, 1, 0), 1);
	cr_assert_eq(rx.len, 100);
	check_bytes(&rx);
	uet_udp_stats(b, &st);
	cr_assert_eq(st.truncated, 1);
	cr_assert_eq(st.received, 2);
	a->ops->close(a);
	b->ops->close(b);
}

Test(udp, datagram_9000_v4)
{
	jumbo(UET_AF_INET);
}

Test(udp, datagram_9000_v6)
{
	jumbo(UET_AF_INET6);
}

static void open_bad(struct uet_addr a, const struct uet_udp_config *c,
		     const char *what)
{
	struct uet_net *p = NULL;
	int rc = uet_udp_open(&p, &a, c);

	cr_assert_eq(rc, UET_ERR_INVAL, "%s: %d", what, rc);
	cr_assert_null(p, "%s", what);
	cr_assert(strlen(uet_udp_errstr(NULL)) > 0, "%s: no message", what);
}

Test(udp, bad_address_refused)
{
	struct uet_udp_config c = cfg_k(3);
	struct uet_addr a;
	FILE *f;
	int nonlocal = 0;

	a = (struct uet_addr){ .af = UET_AF_NONE };
	open_bad(a, &c, "no family");
	a = (struct uet_addr){ .af = 5, .ip = { 127, 0, 0, 1 } };
	open_bad(a, &c, "family 5");
	a = (struct uet_addr){ .af = UET_AF_INET };
	open_bad(a, &c, "0.0.0.0");
	a = (struct uet_addr){ .af = UET_AF_INET, .ip = { 224, 0, 0, 1 } };
	open_bad(a, &c, "multicast");
	a = (struct uet_addr){ .af = UET_AF_INET,
			       .ip = { 255, 255, 255, 255 } };
	open_bad(a, &c, "broadcast");
	a = (struct uet_addr){ .af = UET_AF_INET6 };
	open_bad(a, &c, "::");
	a = (struct uet_addr){ .af = UET_AF_INET6, .ip = { 0xff, 0x02,
							   [15] = 1 } };
	open_bad(a, &c, "ff02::1");
	a = (struct uet_addr){ .af = UET_AF_INET6,
			       .ip = { [10] = 0xff, 0xff, 127, 0, 0, 1 } };
	open_bad(a, &c, "::ffff:127.0.0.1");
	a = (struct uet_addr){ .af = UET_AF_INET6, .ip = { 0xfe, 0x80,
							   [15] = 1 } };
	open_bad(a, &c, "fe80::1");
	a = lo(UET_AF_INET);
	a.port = 5000;
	open_bad(a, &c, "port in the address");

	/* TEST-NET-2 is on no interface here: bind must fail (unless the
	 * host lets anyone bind foreign addresses). */
	f = fopen("/proc/sys/net/ipv4/ip_nonlocal_bind", "r");
	if (f) {
		if (fscanf(f, "%d", &nonlocal) != 1)
			nonlocal = 0;
		fclose(f);
	}
	a = (struct uet_addr){ .af = UET_AF_INET, .ip = { 198, 51, 100, 7 } };
	if (nonlocal)
		cr_log_info("ip_nonlocal_bind=1: foreign address not tested");
	else
		open_bad(a, &c, "198.51.100.7 (not local)");

	a = lo(UET_AF_INET);
	c.entropy_bits = UET_UDP_ENTROPY_BITS_MAX + 1;
	open_bad(a, &c, "entropy_bits");
	c = cfg_k(3);
	c.ecn = 4;
	open_bad(a, &c, "ecn 4");
	c = cfg_k(3);
	c.dscp = 64;
	open_bad(a, &c, "dscp 64");
	c = cfg_k(3);
	c.batch = UET_UDP_BATCH_MAX + 1;
	open_bad(a, &c, "batch");
	c = cfg_k(3);
	c.nplanes = UET_UDP_PLANES_MAX + 1;
	open_bad(a, &c, "nplanes");
	c = cfg_k(3);
	c.nplanes = 2;
	c.plane_ifindex[0] = 1;
	open_bad(a, &c, "plane without ifindex");
	c.plane_ifindex[1] = 1000000;	/* no such interface */
	open_bad(a, &c, "plane of no interface");
}

Test(udp, bad_packets_refused)
{
	struct uet_udp_config c = cfg_k(2);
	struct uet_net *a = open_ok(UET_AF_INET, &c), *b;
	struct uet_net_msg tx[3], rx;
	struct uet_addr v6 = lo(UET_AF_INET6), noport;
	struct uet_udp_stats st;

	b = open_ok(UET_AF_INET, &c);
	v6.port = b->local.port;
	noport = b->local;
	noport.port = 0;

	tx_set(&tx[0], 0, 1, 64, &v6, 0);
	cr_assert_eq(a->ops->send(a, tx, 1), UET_ERR_INVAL);
	cr_assert(strlen(uet_udp_errstr(a)) > 0);
	tx_set(&tx[0], 0, 1, 64, &noport, 0);
	cr_assert_eq(a->ops->send(a, tx, 1), UET_ERR_INVAL);
	tx_set(&tx[0], 0, 1, 64, &b->local, 0);
	tx[0].len = 0;
	cr_assert_eq(a->ops->send(a, tx, 1), UET_ERR_INVAL);
	tx[0].len = 65508;		/* one more than IPv4 carries */
	cr_assert_eq(a->ops->send(a, tx, 1), UET_ERR_INVAL);
	tx[0].len = 64;
	tx[0].buf = NULL;
	cr_assert_eq(a->ops->send(a, tx, 1), UET_ERR_INVAL);

	/* Good, good (other source port), bad: two taken, in order. */
	tx_set(&tx[0], 0, 10, 64, &b->local, 0);
	tx_set(&tx[1], 1, 11, 64, &b->local, 1);
	tx_set(&tx[2], 2, 12, 64, &v6, 1);
	cr_assert_eq(a->ops->send(a, tx, 3), 2);
	cr_assert_eq(a->ops->send(a, &tx[2], 1), UET_ERR_INVAL);
	rx_init(&rx, 1, PKT_MAX);
	cr_assert_eq(recv_wait(b, &rx, 1, 0), 1);
	cr_assert_eq(id_of(rx.buf), 10);
	rx_init(&rx, 1, PKT_MAX);
	cr_assert_eq(recv_wait(b, &rx, 1, 0), 1);
	cr_assert_eq(id_of(rx.buf), 11);
	uet_udp_stats(a, &st);
	cr_assert_eq(st.sent, 2);
	cr_assert_eq(a->ops->send(a, tx, 0), 0);
	a->ops->close(a);
	b->ops->close(b);
}

/* 4793 when free, whatever k; a second port falls back to the kernel. */
static void iana_preferred(unsigned k)
{
	struct uet_udp_config c = cfg_k(k);
	struct uet_net *p, *q;

	c.prefer_iana = true;
	if (!port_free(UET_AF_INET, UET_UDP_IANA_PORT))
		cr_log_info("127.0.0.1:%u is busy on this host: not checking "
			    "that it is preferred", UET_UDP_IANA_PORT);
	p = open_ok(UET_AF_INET, &c);
	q = open_ok(UET_AF_INET, &c);
	if (p->local.port != UET_UDP_IANA_PORT &&
	    port_free(UET_AF_INET, UET_UDP_IANA_PORT))
		cr_assert_fail("4793 was free but %u was chosen",
			       p->local.port);
	cr_assert_neq(q->local.port, UET_UDP_IANA_PORT);
	cr_assert_neq(q->local.port, 0);
	cr_assert_neq(q->local.port, p->local.port);
	q->ops->close(q);
	c.prefer_iana = false;
	q = open_ok(UET_AF_INET, &c);
	cr_assert_neq(q->local.port, UET_UDP_IANA_PORT);
	cr_assert_neq(q->local.port, 0);
	q->ops->close(q);
	p->ops->close(p);
}

Test(udp, iana_port_preferred_k0)
{
	iana_preferred(0);
}

Test(udp, iana_port_preferred_k3)
{
	iana_preferred(3);
}

/* NULL config: k = 3, the IANA port preferred, on ::1. */
Test(udp, defaults_v6)
{
	struct uet_addr a = lo(UET_AF_INET6);
	struct uet_net *p = NULL, *q = NULL;
	struct uet_net_msg tx, rx;
	struct uet_udp_config d;

	uet_udp_config_default(&d);
	cr_assert_eq(d.entropy_bits, UET_UDP_ENTROPY_BITS_DEFAULT);
	cr_assert_eq(d.ecn, UET_ECN_ECT0);
	cr_assert(d.prefer_iana);
	cr_assert_eq(uet_udp_open(&p, &a, NULL), 0, "%s",
		     uet_udp_errstr(NULL));
	cr_assert_eq(uet_udp_open(&q, &a, NULL), 0, "%s",
		     uet_udp_errstr(NULL));
	cr_assert_eq(p->local.af, UET_AF_INET6);
	cr_assert_eq(p->local.ip[15], 1);
	cr_assert_neq(p->local.port, q->local.port);
	cr_assert(p->local.port == UET_UDP_IANA_PORT ||
		  q->local.port != UET_UDP_IANA_PORT);
	tx_set(&tx, 0, 3, 1000, &q->local, 0x1234);
	send_all(p, &tx, 1);
	rx_init(&rx, 1, PKT_MAX);
	cr_assert_eq(recv_wait(q, &rx, 1, 0), 1);
	cr_assert_eq(rx.info.entropy, txp(p, 4, false));
	cr_assert_eq(rx.info.src.port, txp(p, 0x1234, false));
	cr_assert_neq(rx.info.src.port, p->local.port);
	check_bytes(&rx);
	p->ops->close(p);
	q->ops->close(q);
}

Test(udp, errstr_and_stats_of_other_ports)
{
	static const struct uet_net_ops other = { .name = "other" };
	struct uet_net n = { .ops = &other };
	struct uet_udp_stats st;

	memset(&st, 0xff, sizeof(st));
	uet_udp_stats(&n, &st);
	cr_assert_eq(st.sent, 0);
	cr_assert_eq(st.spray_received, 0);
	cr_assert_str_eq(uet_udp_errstr(&n), "not a udp port");
	cr_assert_eq(txp(&n, 1, false), 0);
}

/* ---- Direct placement (uet_udp_place) ---- */

/* One recv() with plan pl, once b has something to read. */
static unsigned place_recv(struct uet_net *b, const struct uet_net_place *pl,
			   struct uet_net_msg *rx, unsigned n)
{
	struct pollfd pfd = { .fd = b->ops->fd(b), .events = POLLIN };
	int r;

	cr_assert_eq(poll(&pfd, 1, WAIT_MS), 1, "nothing to read");
	uet_udp_place(b, pl);
	r = b->ops->recv(b, rx, n, 3);
	cr_assert_gt(r, 0, "recv: %d %s", r, uet_udp_errstr(b));
	return (unsigned)r;
}

/* A train of 10 packets of 1000 bytes and one of 500 from a to b. */
static void place_train(struct uet_net *a, struct uet_net *b,
			struct uet_net_msg *tx)
{
	unsigned i;

	for (i = 0; i < 11; i++)
		tx_set(&tx[i], i, 100 + i, i < 10 ? 1000 : 500, &b->local, 5);
	send_all(a, tx, 11);
}

/* The plan for place_train's packets read as 40 bytes of header and the
 * rest: payloads of 960 (the last 460) at dst. */
static struct uet_net_place place_plan(const struct uet_net *a, uint8_t *dst,
				       unsigned n, size_t last)
{
	struct uet_net_place pl = {
		.src = a->local, .hdr_len = 40, .seg = 960, .last = last,
		.n = n, .dst = dst,
	};

	pl.src.port = 0;
	return pl;
}

static struct uet_net *place_open(uint8_t af, struct uet_net **a)
{
	struct uet_udp_config c = cfg_k(3);

	*a = open_ok(af, &c);
	c.rx_lend = true;
	return open_ok(af, &c);
}

/* A datagram from the planned peer in packets of the planned size: each
 * packet's header comes in its msg's buf, its payload already at its
 * place, and nothing else of it is touched. */
static void place_fits(uint8_t af)
{
	static struct uet_net_msg tx[11], rx[32];
	static uint8_t dst[11 * 960 + 16];
	struct uet_net_place pl;
	struct uet_udp_stats st;
	struct uet_net *a, *b = place_open(af, &a);
	unsigned i, n;

	memset(dst, 0xAB, sizeof(dst));
	pl = place_plan(a, dst, 11, 460);
	place_train(a, b, tx);
	rx_init(rx, 32, PKT_MAX);
	n = place_recv(b, &pl, rx, 32);
	cr_assert_eq(n, 11);
	for (i = 0; i < 11; i++) {
		size_t len = i < 10 ? 960 : 460;

		cr_assert_eq(rx[i].placed, i + 1);
		cr_assert_eq(rx[i].len, 40);
		cr_assert_arr_eq(rx[i].buf, tx[i].buf, 40);
		cr_assert_eq(rx[i].ext, dst + i * 960);
		cr_assert_eq(rx[i].ext_len, len);
		cr_assert_arr_eq(dst + i * 960, tx[i].buf + 40, len,
				 "payload of packet %u", i);
		/* put back together, the packet as sent */
		uet_net_msg_flatten(&rx[i]);
		cr_assert_eq(rx[i].placed, 0);
		check_bytes(&rx[i]);
	}
	for (i = 10 * 960 + 460; i < sizeof(dst); i++)
		cr_assert_eq(dst[i], 0xAB, "byte %u past the plan", i);
	uet_udp_stats(b, &st);
	cr_assert_eq(st.placed, 11);
	cr_assert_eq(st.unplaced, 0);
	cr_assert_eq(st.received, 11);
	a->ops->close(a);
	b->ops->close(b);
}

Test(udp, place_puts_payloads_where_planned_v4)
{
	place_fits(UET_AF_INET);
}

Test(udp, place_puts_payloads_where_planned_v6)
{
	place_fits(UET_AF_INET6);
}

/* Packets past the plan come as usual, from where a plain read puts
 * them: the plan covers the first 4 (full) packets only. */
Test(udp, place_hands_out_the_rest_as_usual)
{
	static struct uet_net_msg tx[11], rx[32];
	static uint8_t dst[4 * 960];
	struct uet_net_place pl;
	struct uet_net *a, *b = place_open(UET_AF_INET, &a);
	unsigned i;

	pl = place_plan(a, dst, 4, 960);
	place_train(a, b, tx);
	rx_init(rx, 32, PKT_MAX);
	cr_assert_eq(place_recv(b, &pl, rx, 32), 11);
	for (i = 0; i < 11; i++) {
		cr_assert_eq(rx[i].placed, i < 4 ? i + 1 : 0);
		if (i < 4)
			uet_net_msg_flatten(&rx[i]);
		cr_assert_eq(id_of(uet_net_msg_rx(&rx[i])), 100 + i);
		check_bytes(&rx[i]);
	}
	a->ops->close(a);
	b->ops->close(b);
}

/* A datagram the plan does not fit (another size, another peer, fewer
 * bytes than a header) is put back together and handed out as usual;
 * the bytes it left in the planned places are not the caller's concern
 * (they lie where the message has yet to write). */
static void place_misfit(struct uet_net_place pl, bool short_first)
{
	static struct uet_net_msg tx[11], rx[32];
	struct uet_udp_stats st;
	struct uet_net *a, *b = place_open(UET_AF_INET, &a);
	unsigned i, n, got = 0;

	if (short_first) {
		/* a lone 24-byte packet first, as an ACK would be */
		tx_set(&tx[0], 0, 99, 24, &b->local, 7);
		send_all(a, tx, 1);
	}
	pl.src = pl.src.af ? pl.src : a->local;
	place_train(a, b, tx);
	rx_init(rx, 32, PKT_MAX);
	n = place_recv(b, &pl, rx, 32);
	got = n;
	got += recv_wait(b, rx + got, (short_first ? 12 : 11) - got, 3);
	cr_assert_eq(got, short_first ? 12 : 11);
	for (i = 0; i < got; i++) {
		cr_assert_eq(rx[i].placed, 0, "packet %u placed", i);
		check_bytes(&rx[i]);
		cr_assert_eq(id_of(uet_net_msg_rx(&rx[i])),
			     short_first ? (i ? 99 + i : 99) : 100 + i);
	}
	uet_udp_stats(b, &st);
	cr_assert_eq(st.placed, 0);
	cr_assert_eq(st.unplaced, 1);
	a->ops->close(a);
	b->ops->close(b);
}

Test(udp, place_copies_back_a_datagram_of_another_size)
{
	static uint8_t dst[11 * 900];
	struct uet_net_place pl = {
		.hdr_len = 40, .seg = 900, .last = 900, .n = 11, .dst = dst,
	};

	place_misfit(pl, false);
}

Test(udp, place_copies_back_a_datagram_of_another_peer)
{
	static uint8_t dst[11 * 960];
	struct uet_net_place pl = {
		.src = { .af = UET_AF_INET, .ip = { 192, 0, 2, 9 } },
		.hdr_len = 40, .seg = 960, .last = 460, .n = 11, .dst = dst,
	};

	place_misfit(pl, false);
}

Test(udp, place_copies_back_a_short_packet)
{
	static uint8_t dst[11 * 960];
	struct uet_net_place pl = {
		.hdr_len = 40, .seg = 960, .last = 460, .n = 11, .dst = dst,
	};

	place_misfit(pl, true);
}

/* A plan is for one recv(): one that found nothing drops it. */
Test(udp, place_holds_for_one_call)
{
	static struct uet_net_msg tx[11], rx[32];
	static uint8_t dst[11 * 960];
	struct uet_net_place pl;
	struct uet_net *a, *b = place_open(UET_AF_INET, &a);
	unsigned i;

	pl = place_plan(a, dst, 11, 460);
	uet_udp_place(b, &pl);
	rx_init(rx, 32, PKT_MAX);
	cr_assert_eq(b->ops->recv(b, rx, 32, 0), 0);
	place_train(a, b, tx);
	cr_assert_eq(recv_wait(b, rx, 11, 0), 11);
	for (i = 0; i < 11; i++) {
		cr_assert_eq(rx[i].placed, 0);
		check_bytes(&rx[i]);
	}
	a->ops->close(a);
	b->ops->close(b);
}

/* n packets of 1000 bytes (ids from id) in one train from a to b. */
static void place_send(struct uet_net *a, struct uet_net *b,
		       struct uet_net_msg *tx, unsigned n, uint32_t id)
{
	for (unsigned i = 0; i < n; i++)
		tx_set(&tx[i], i, id + i, 1000, &b->local, 5);
	send_all(a, tx, n);
}

/* Datagrams queued together share a plan, each its part of it, as many
 * packets as the last planned datagram held; from one that holds fewer,
 * the rest are put back together. */
Test(udp, place_spreads_over_datagrams)
{
	static struct uet_net_msg tx[8], rx[32];
	static uint8_t dst[8 * 960];
	struct uet_net_place pl;
	struct uet_udp_stats st;
	struct uet_net *a, *b = place_open(UET_AF_INET, &a);
	unsigned i;

	pl = place_plan(a, dst, 4, 960);
	place_send(a, b, tx, 4, 0);
	rx_init(rx, 32, PKT_MAX);
	cr_assert_eq(place_recv(b, &pl, rx, 32), 4);
	/* two trains of 4: the plan's 8 packets in two datagrams */
	place_send(a, b, tx, 4, 10);
	place_send(a, b, tx + 4, 4, 14);
	pl = place_plan(a, dst, 8, 960);
	rx_init(rx, 32, PKT_MAX);
	cr_assert_eq(place_recv(b, &pl, rx, 32), 8);
	for (i = 0; i < 8; i++) {
		cr_assert_eq(rx[i].placed, i + 1);
		cr_assert_eq(rx[i].ext, dst + i * 960);
		uet_net_msg_flatten(&rx[i]);
		cr_assert_eq(id_of(rx[i].buf), 10 + i);
		check_bytes(&rx[i]);
	}
	/* 3, then 4: the second datagram's part assumed 4 in the first */
	place_send(a, b, tx, 3, 20);
	place_send(a, b, tx + 3, 4, 23);
	rx_init(rx, 32, PKT_MAX);
	cr_assert_eq(place_recv(b, &pl, rx, 32), 7);
	for (i = 0; i < 7; i++) {
		cr_assert_eq(rx[i].placed, i < 3 ? i + 1 : 0, "packet %u", i);
		if (rx[i].placed)
			uet_net_msg_flatten(&rx[i]);
		cr_assert_eq(id_of(uet_net_msg_rx(&rx[i])), 20 + i);
		check_bytes(&rx[i]);
	}
	uet_udp_stats(b, &st);
	cr_assert_eq(st.placed, 4 + 8 + 3);
	cr_assert_eq(st.unplaced, 1);
	a->ops->close(a);
	b->ops->close(b);
}
