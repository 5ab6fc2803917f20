/*
 * udp_ceiling: how fast plain UDP sockets move a stream on this host with
 * uet's packet sizes, the ceiling for any transport over UDP (issue: "the
 * raw limit"). No reliability, no protocol: a sender streams datagrams of
 * MTU - 28 bytes (an 64-byte header standing in for uet's, then data taken
 * straight from a 1 MiB application buffer by an iovec, so the kernel's copy
 * is the only one), the receiver copies each payload into its own 1 MiB
 * buffer at the offset the header names (the copy uet does too) and returns
 * a credit every 256 KiB (-a KIB) so the sender keeps at most a window in flight.
 *
 *   udp_ceiling -l [-B ADDR] [-f FILE] [-g] [-a KIB]  receiver (prints its port)
 *   udp_ceiling [-g] [-m MTU] [-n MIB] [-w KIB] [-b BATCH] [-t TRAIN] HOST PORT
 *
 * -g: UDP GSO trains (UDP_SEGMENT) of TRAIN datagrams (default: as many
 *     as fit in 64 KB) and GRO on receive (UDP_GRO; give it on both
 *     sides); without it sendmmsg/recvmmsg batches of BATCH datagrams
 *     (default 32).
 * The receiver writes its port to FILE (or stdout). The sender prints
 *   MODE MTU MB/s stalls
 * where MB/s counts payload bytes (not headers) and stalls counts windows
 * that had to be reopened after 200 ms without a credit (datagrams the
 * kernel dropped: a stream with stalls measured less than the ceiling).
 * Build: cc -O2 -o udp_ceiling udp_ceiling.c
 */
#include "udp_bench.h"

#include <poll.h>

#define HDR		64		/* bytes standing in for uet's headers */
#define BUF		(1u << 20)	/* application buffer on either side */
#define GSO_MAX		65000		/* a train's UDP payload, below 64 KiB */
#define BATCH_MAX	64
#define MAGIC		0x75657463u	/* "uetc" */

struct hdr {				/* first bytes of every datagram */
	uint32_t magic;
	uint32_t end;			/* 1: the last one, answer it at once */
	uint64_t off;			/* payload offset in the stream */
};

struct credit {
	uint32_t magic;
	uint32_t done;
	uint64_t bytes;			/* payload bytes received so far */
};


static void big_buffers(int fd)
{
	int sz = 16 << 20;

	/* SO_*BUFFORCE passes rmem_max as root; fall back quietly. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
}

/* One datagram (or one GRO segment) of len bytes at p. */
static void take(uint8_t *dst, const uint8_t *p, size_t len, uint64_t *bytes,
		 bool *end)
{
	struct hdr h;

	if (len < HDR)
		return;
	memcpy(&h, p, sizeof(h));
	if (h.magic != MAGIC)
		return;
	if (h.end) {
		*end = true;
		return;
	}
	len -= HDR;
	size_t at = (size_t)(h.off % BUF);
	size_t n = len <= BUF - at ? len : BUF - at;

	memcpy(dst + at, p + HDR, n);
	memcpy(dst, p + HDR + n, len - n);
	*bytes += len;
}

static int receiver(const char *bind_addr, const char *file, bool gro,
		    uint64_t credit_every)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	int one = 1;

	if (fd < 0)
		udp_bench_die("socket");
	big_buffers(fd);
	if (gro && setsockopt(fd, IPPROTO_UDP, UDP_GRO, &one, sizeof(one)))
		udp_bench_die("UDP_GRO");
	if (udp_bench_bind_publish(fd, bind_addr, file)) {
		fprintf(stderr, "udp_ceiling: bad address %s\n", bind_addr);
		return 2;
	}

	size_t cap = 65536;
	uint8_t *dst = malloc(BUF), *rb = malloc((size_t)BATCH_MAX * cap);
	struct mmsghdr mm[BATCH_MAX];
	struct iovec iov[BATCH_MAX];
	struct sockaddr_in from[BATCH_MAX];
	char ctl[BATCH_MAX][CMSG_SPACE(sizeof(int))];
	uint64_t bytes = 0, credited = 0;

	if (!dst || !rb)
		udp_bench_die("malloc");
	memset(dst, 0, BUF);
	for (;;) {
		for (int i = 0; i < BATCH_MAX; i++) {
			iov[i] = (struct iovec){ rb + (size_t)i * cap, cap };
			mm[i].msg_hdr = (struct msghdr){
				.msg_name = &from[i], .msg_namelen = sizeof(from[i]),
				.msg_iov = &iov[i], .msg_iovlen = 1,
				.msg_control = ctl[i], .msg_controllen = sizeof(ctl[i]),
			};
		}
		int n = recvmmsg(fd, mm, BATCH_MAX, MSG_WAITFORONE, NULL);
		bool end = false;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			udp_bench_die("recvmmsg");
		}
		for (int i = 0; i < n; i++) {
			uint8_t *p = iov[i].iov_base;
			size_t len = mm[i].msg_len, seg = len;
			struct msghdr *m = &mm[i].msg_hdr;

			for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c;
			     c = CMSG_NXTHDR(m, c))
				if (c->cmsg_level == IPPROTO_UDP &&
				    c->cmsg_type == UDP_GRO)
					memcpy(&one, CMSG_DATA(c), sizeof(one)),
						seg = (size_t)one;
			for (size_t o = 0; o < len; o += seg)
				take(dst, p + o, len - o < seg ? len - o : seg,
				     &bytes, &end);
		}
		if (bytes - credited >= credit_every || end) {
			struct credit c = { MAGIC, end, bytes };

			credited = bytes;
			sendto(fd, &c, sizeof(c), 0,
			       (struct sockaddr *)&from[n - 1], sizeof(from[0]));
		}
		if (end)
			break;
	}
	free(dst);
	free(rb);
	close(fd);
	return 0;
}

/* Waits up to ms for a credit; returns false on timeout. */
static bool credit_wait(int fd, int ms, uint64_t *credited, bool *done)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct credit c;
	bool got = false;

	if (ms && poll(&p, 1, ms) <= 0)
		return false;
	while (recv(fd, &c, sizeof(c), MSG_DONTWAIT) == (ssize_t)sizeof(c)) {
		if (c.magic != MAGIC)
			continue;
		if (c.bytes > *credited)
			*credited = c.bytes;
		*done |= c.done != 0;
		got = true;
	}
	return got;
}

static int sender(const char *host, const char *port, bool gso, int mtu,
		  uint64_t total, uint64_t window, int batch, int train)
{
	int fd, dgram = mtu - 28, pay = dgram - HDR;

	if (pay <= 0 || dgram > 65507) {
		fprintf(stderr, "udp_ceiling: MTU %d out of range\n", mtu);
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		udp_bench_die("socket");
	udp_bench_connect(fd, host, port);
	big_buffers(fd);

	uint8_t *src = malloc(BUF);
	int per = gso ? GSO_MAX / dgram : 1;	/* datagrams per message */

	if (gso && train > 0 && train < per)
		per = train;
	struct hdr *h = calloc((size_t)batch * per, sizeof(*h) + HDR);
	struct iovec *iov = calloc((size_t)batch * per * 3, sizeof(*iov));
	struct mmsghdr mm[BATCH_MAX];
	char ctl[BATCH_MAX][CMSG_SPACE(sizeof(uint16_t))];
	uint64_t off = 0, credited = 0;
	unsigned stalls = 0;
	bool done = false;

	if (!src || !h || !iov)
		udp_bench_die("malloc");
	for (size_t i = 0; i < BUF; i++)
		src[i] = (uint8_t)(i * 7 + 1);
	double t0 = udp_bench_now_s();

	while (off < total) {
		int m = 0, k = 0;

		credit_wait(fd, 0, &credited, &done);
		while (m < batch && off < total && off - credited < window) {
			struct msghdr *mh = &mm[m].msg_hdr;
			int first = k;

			for (int d = 0; d < per && off < total; d++) {
				uint8_t *hb = (uint8_t *)h + (size_t)k * (sizeof(*h) + HDR);
				size_t at = (size_t)(off % BUF);
				size_t n = (size_t)pay <= BUF - at ? (size_t)pay : BUF - at;

				*(struct hdr *)hb = (struct hdr){ MAGIC, 0, off };
				iov[3 * k] = (struct iovec){ hb, HDR };
				iov[3 * k + 1] = (struct iovec){ src + at, n };
				iov[3 * k + 2] = (struct iovec){ src, (size_t)pay - n };
				off += (uint64_t)pay;
				k++;
			}
			*mh = (struct msghdr){ .msg_iov = &iov[3 * first],
					       .msg_iovlen = (size_t)(k - first) * 3 };
			if (gso && k - first > 1) {
				struct cmsghdr *c = (struct cmsghdr *)ctl[m];
				uint16_t seg = (uint16_t)dgram;

				mh->msg_control = ctl[m];
				mh->msg_controllen = CMSG_SPACE(sizeof(seg));
				c->cmsg_level = SOL_UDP;
				c->cmsg_type = UDP_SEGMENT;
				c->cmsg_len = CMSG_LEN(sizeof(seg));
				memcpy(CMSG_DATA(c), &seg, sizeof(seg));
			}
			m++;
		}
		for (int s = 0; s < m;) {
			int r = sendmmsg(fd, mm + s, (unsigned)(m - s), 0);

			if (r < 0) {
				if (errno == EINTR || errno == ENOBUFS ||
				    errno == EAGAIN)
					continue;
				udp_bench_die("sendmmsg");
			}
			s += r;
		}
		if (!m && !credit_wait(fd, 200, &credited, &done)) {
			stalls++;		/* something was dropped */
			credited = off;
		}
	}
	/* The end: repeat it until the receiver answers. */
	for (int i = 0; i < 50 && !done; i++) {
		struct hdr e = { MAGIC, 1, off };
		uint8_t pad[HDR] = { 0 };

		memcpy(pad, &e, sizeof(e));
		send(fd, pad, sizeof(pad), 0);
		credit_wait(fd, 100, &credited, &done);
	}
	double dt = udp_bench_now_s() - t0;

	if (!done) {
		fprintf(stderr, "udp_ceiling: the receiver never answered\n");
		return 1;
	}
	printf("%s %d %.1f %u\n", gso ? "gso" : "mmsg", mtu,
	       (double)credited / dt / 1e6, stalls);
	free(src);
	free(h);
	free(iov);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *bind_addr = "127.0.0.1", *file = NULL;
	bool listen_mode = false, gso = false;
	int mtu = 1500, batch = 32, train = 0, o;
	uint64_t mib = 1024, window_kib = 4096, credit_kib = 256;

	while ((o = getopt(argc, argv, "lB:f:gm:n:w:b:t:a:h")) != -1) {
		switch (o) {
		case 'l': listen_mode = true; break;
		case 'B': bind_addr = optarg; break;
		case 'f': file = optarg; break;
		case 'g': gso = true; break;
		case 'm': mtu = atoi(optarg); break;
		case 'n': mib = strtoull(optarg, NULL, 0); break;
		case 'w': window_kib = strtoull(optarg, NULL, 0); break;
		case 'b': batch = atoi(optarg); break;
		case 't': train = atoi(optarg); break;
		case 'a': credit_kib = strtoull(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: udp_ceiling -l [-B ADDR] [-f FILE] [-g] [-a KIB]\n"
				"       udp_ceiling [-g] [-m MTU] [-n MIB] [-w KIB] [-b BATCH] [-t TRAIN] HOST PORT\n");
			return 2;
		}
	}
	if (batch < 1 || batch > BATCH_MAX)
		batch = BATCH_MAX;
	if (listen_mode)
		return receiver(bind_addr, file, gso,
				credit_kib ? credit_kib << 10 : 1);
	if (argc - optind != 2) {
		fprintf(stderr, "udp_ceiling: HOST PORT wanted\n");
		return 2;
	}
	return sender(argv[optind], argv[optind + 1], gso, mtu, mib << 20,
		      window_kib << 10, batch, train);
}
