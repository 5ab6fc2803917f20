/*
 * udp_floor: the latency floor of plain UDP sockets on this host, as
 * udp_ceiling.c is their bandwidth ceiling (issue: "the raw limit"). A
 * ping-pong with no protocol: each message goes as datagrams of MTU - 28
 * bytes, each a 64-byte header standing in for uet's (uet's are 56 to
 * 60) then data, a message of several as one UDP GSO train (UDP_SEGMENT,
 * up to 64 KB) read with UDP_GRO, as uet sends and reads them. Both ends
 * poll without blocking, as uet's progress does, and copy each payload
 * between the socket's buffer and the application's (the copy uet does
 * on receive). The reply starts once the whole message is in.
 *
 *   udp_floor -l [-m MTU] [-B ADDR] [-f FILE]            echo server
 *   udp_floor [-m MTU] [-S SIZES] [-I ITERS] HOST PORT   client
 *
 * MTU: the link's, 1500 by default (give both ends the same).
 *
 * The server writes its port to FILE (or stdout) and exits when the
 * client says goodbye (or after 120 s alone). The client prints, per size,
 *   SIZE MEDIAN_US P10_US P90_US
 * one-way times (half a round trip) over ITERS timed round trips (5000,
 * after 100 untimed); SIZES is comma-separated (64,256,1024,4096,65536).
 * Build: cc -O2 -o udp_floor udp_floor.c
 */
#include "udp_bench.h"

#define HDR		64		/* header stand-in per datagram */
#define TRAIN_MAX	65507u		/* bytes of one GSO train (IPv4) */
#define TRAIN_SEGS	64u		/* the kernel's UDP_MAX_SEGMENTS */
#define MSG_MAX		(1u << 20)
#define SIZES_MAX	16
#define BYE		0xFFFFFFFFu	/* total: the client is done */
#define ALONE_S		120

/* The header each datagram starts with. */
struct fl_hdr {
	uint32_t total;			/* message bytes */
	uint32_t off;			/* of this datagram's data */
	uint32_t len;			/* data bytes in this datagram */
};


static double now_us(void)
{
	return udp_bench_now_s() * 1e6;
}

/* Send msg[0..total) to the connected socket s as datagrams of dgram
 * bytes, trains of up to 64 KB each. */
static void send_msg(int s, const uint8_t *msg, uint32_t total, size_t dgram,
		     uint8_t *buf)
{
	size_t room = dgram - HDR, per = TRAIN_MAX / dgram, segs, i;
	uint32_t off = 0;

	if (per > TRAIN_SEGS)
		per = TRAIN_SEGS;
	do {
		char ctl[CMSG_SPACE(sizeof(uint16_t))] = { 0 };
		struct iovec iov;
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		size_t len = 0;

		for (segs = 0; segs < per && (off < total || !segs); segs++) {
			struct fl_hdr h = { total, off, 0 };
			size_t n = total - off < room ? total - off : room;

			h.len = (uint32_t)n;
			memcpy(buf + len, &h, sizeof(h));
			memset(buf + len + sizeof(h), 0, HDR - sizeof(h));
			if (n)
				memcpy(buf + len + HDR, msg + off, n);
			len += HDR + n;
			off += (uint32_t)n;
		}
		iov.iov_base = buf;
		iov.iov_len = len;
		if (segs > 1) {
			struct cmsghdr *c;
			uint16_t g = (uint16_t)dgram;

			mh.msg_control = ctl;
			mh.msg_controllen = sizeof(ctl);
			c = CMSG_FIRSTHDR(&mh);
			c->cmsg_level = SOL_UDP;
			c->cmsg_type = UDP_SEGMENT;
			c->cmsg_len = CMSG_LEN(sizeof(g));
			memcpy(CMSG_DATA(c), &g, sizeof(g));
		}
		for (i = 0; sendmsg(s, &mh, 0) < 0; i++)
			if ((errno != EAGAIN && errno != ENOBUFS) || i > 1000000)
				udp_bench_die("sendmsg");
	} while (off < total);
}

/* Poll s until a whole message is in msg; returns its length (BYE for
 * goodbye), or -1 after ALONE_S seconds without a datagram. */
static int64_t recv_msg(int s, uint8_t *msg, uint8_t *buf, size_t cap)
{
	uint32_t got = 0;
	double since = now_us();

	for (;;) {
		char ctl[CMSG_SPACE(sizeof(int))];
		struct iovec iov = { buf, cap };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = ctl,
				     .msg_controllen = sizeof(ctl) };
		struct cmsghdr *c;
		size_t seg, at;
		ssize_t n = recvmsg(s, &mh, MSG_DONTWAIT);

		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				udp_bench_die("recvmsg");
			if (now_us() - since > ALONE_S * 1e6)
				return -1;
			continue;
		}
		seg = (size_t)n;
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO)
				seg = (size_t)*(int *)CMSG_DATA(c);
		for (at = 0; at + sizeof(struct fl_hdr) <= (size_t)n; at += seg) {
			struct fl_hdr h;

			memcpy(&h, buf + at, sizeof(h));
			if (h.total == BYE)
				return BYE;
			if (h.total > MSG_MAX || h.off > h.total ||
			    h.len > h.total - h.off || at + HDR + h.len > (size_t)n)
				continue;	/* not ours */
			memcpy(msg + h.off, buf + at + HDR, h.len);
			got += h.len;
			if (got >= h.total)
				return h.total;
		}
	}
}

static int udp_socket(void)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0), one = 1, big = 4 << 20;

	if (s < 0)
		udp_bench_die("socket");
	setsockopt(s, SOL_UDP, UDP_GRO, &one, sizeof(one));
	setsockopt(s, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	setsockopt(s, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	return s;
}

static int server(const char *bind_to, const char *file, size_t mtu)
{
	struct sockaddr_in peer;
	socklen_t pl = sizeof(peer);
	static uint8_t msg[MSG_MAX], buf[1 << 16], out[1 << 16];
	int s = udp_socket();
	int64_t n;

	if (udp_bench_bind_publish(s, bind_to, file))
		udp_bench_die("-B: not an IPv4 address");
	/* The first datagram names the client: connect to it, as the
	 * client is, so that each send finds its route cached. */
	while (recvfrom(s, buf, sizeof(buf), MSG_PEEK,
			(struct sockaddr *)&peer, &pl) < 0)
		if (errno != EINTR)
			udp_bench_die("recvfrom");
	if (connect(s, (struct sockaddr *)&peer, pl))
		udp_bench_die("connect");
	for (;;) {
		n = recv_msg(s, msg, buf, sizeof(buf));
		if (n < 0 || n == BYE)
			return 0;
		send_msg(s, msg, (uint32_t)n, mtu - 28, out);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int client(const char *host, const char *port, size_t mtu,
		  const char *sizes, unsigned iters)
{
	static uint8_t msg[MSG_MAX], buf[1 << 16], out[1 << 16];
	size_t dgram = mtu - 28, size[SIZES_MAX], ns = 0, k;
	double *t = calloc(iters, sizeof(*t));
	char *list = strdup(sizes), *tok, *save = NULL;
	int s = udp_socket();

	if (!t || !list)
		udp_bench_die("calloc");
	udp_bench_connect(s, host, port);
	for (tok = strtok_r(list, ",", &save); tok && ns < SIZES_MAX;
	     tok = strtok_r(NULL, ",", &save)) {
		size[ns] = strtoul(tok, NULL, 0);
		if (size[ns] > MSG_MAX)
			udp_bench_die("-S: a size over 1 MiB");
		ns++;
	}
	memset(msg, 0xA5, sizeof(msg));
	for (k = 0; k < ns; k++) {
		unsigned i;

		for (i = 0; i < iters + 100; i++) {
			double t0 = now_us();

			send_msg(s, msg, (uint32_t)size[k], dgram, out);
			if (recv_msg(s, msg, buf, sizeof(buf)) != (int64_t)size[k])
				udp_bench_die("no echo");
			if (i >= 100)
				t[i - 100] = (now_us() - t0) / 2;
		}
		qsort(t, iters, sizeof(*t), cmp_double);
		printf("%zu %.2f %.2f %.2f\n", size[k], t[iters / 2],
		       t[iters / 10], t[iters * 9 / 10]);
		fflush(stdout);
	}
	{
		struct fl_hdr h = { BYE, 0, 0 };

		memset(out, 0, HDR);
		memcpy(out, &h, sizeof(h));
		if (send(s, out, HDR, 0) < 0)
			udp_bench_die("send");
	}
	free(list);
	free(t);
	return 0;
}

int main(int argc, char **argv)
{
	const char *bind_to = NULL, *file = NULL;
	const char *sizes = "64,256,1024,4096,65536";
	size_t mtu = 1500;
	unsigned iters = 5000;
	bool listen_mode = false;
	int o;

	while ((o = getopt(argc, argv, "lB:f:m:S:I:")) != -1) {
		switch (o) {
		case 'l': listen_mode = true; break;
		case 'B': bind_to = optarg; break;
		case 'f': file = optarg; break;
		case 'm': mtu = strtoul(optarg, NULL, 0); break;
		case 'S': sizes = optarg; break;
		case 'I': iters = (unsigned)strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: udp_floor -l [-m MTU] [-B ADDR] [-f FILE]\n"
				"       udp_floor [-m MTU] [-S SIZES] [-I ITERS] HOST PORT\n");
			return 2;
		}
	}
	if (mtu - 28 <= HDR || mtu - 28 > 65507)
		udp_bench_die("-m: MTU out of range");
	if (listen_mode)
		return server(bind_to, file, mtu);
	if (argc - optind != 2 || !iters)
		udp_bench_die("usage: udp_floor [-m MTU] [-S SIZES] "
			      "[-I ITERS] HOST PORT");
	return client(argv[optind], argv[optind + 1], mtu, sizes, iters);
}
