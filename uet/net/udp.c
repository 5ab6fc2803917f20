/* The UDP port: the sockets of one endpoint on one local IP address.
 *
 * Scheme (see uet/udp.h): the endpoint owns an aligned block of 2^k UDP
 * ports P .. P + 2^k - 1 (P % 2^k == 0). P is the home port: peers send
 * to it and only its socket reads. A packet with entropy e leaves from
 * the socket bound to P + (e % 2^k), so ECMP hashing on the source port
 * sprays one PDC over paths (wire-format §1.2), and a receiver recovers
 * the sender's home port as S & ~(2^k - 1) from the source port S. The
 * other sockets of the block drop whatever reaches them (a socket filter
 * that accepts nothing): peers never send there, and an unread queue
 * would only hold memory.
 *
 * Home port choice: an explicit port, else with k == 0 the IANA port 4793
 * when preferred and free, else the kernel's pick; with k > 0 random
 * aligned blocks in 49152..65535 until one binds whole. Sockets never set
 * SO_REUSEADDR, so two endpoints can never share a port of a block.
 *
 * ICMP: the sockets are unconnected and leave IP_RECVERR off, so Linux
 * does not queue errors such as port unreachable on them; a send to a
 * closed port behaves like a lost packet. Should an error still surface
 * (ECONNREFUSED and friends), send() and recv() skip it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "uet/udp.h"

#define UDP_MAX4	65507u	/* 65535 - IPv4 header - UDP header */
#define UDP_MAX6	65527u	/* 65535 - UDP header, no jumbograms */
#define UDP_PORT_END	65536u
#define UDP_ICMP_SKIPS	16	/* stray socket errors skipped a call */

/* Room for the control messages of one packet: TOS and a drop count on
 * receive, TOS on send. */
union udp_cbuf {
	struct cmsghdr align;
	char buf[CMSG_SPACE(sizeof(int)) * 4];
};

struct udp_port {
	struct uet_net net;		/* the caller's handle */
	int af;				/* AF_INET or AF_INET6 */
	unsigned bits;			/* k */
	unsigned nsock;			/* 2^k */
	int *fds;			/* fds[i] bound to home + i */
	uint8_t tos;			/* default: dscp << 2 | ecn */
	uint8_t dscp;
	unsigned batch;
	struct mmsghdr *mm;
	struct iovec *iov;
	struct sockaddr_storage *sa;
	union udp_cbuf *cbuf;
	struct uet_udp_stats st;
	char err[192];
};

static const struct uet_net_ops udp_ops;

/* The last failed open of this thread (there is no port to hold it). */
static __thread char udp_open_err[192];

static struct udp_port *udp_port(const struct uet_net *net)
{
	return (struct udp_port *)((const char *)net -
				   offsetof(struct udp_port, net));
}

/* splitmix64 (Steele, Lea, Flood 2014), as in the mem port. */
static uint64_t udp_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint16_t uet_udp_home_port(uint16_t src_port, unsigned entropy_bits)
{
	if (entropy_bits >= 16)
		return 0;
	return (uint16_t)(src_port & ~((1u << entropy_bits) - 1));
}

uint16_t uet_udp_src_port(uint16_t home_port, uint16_t entropy,
			  unsigned entropy_bits)
{
	uint32_t mask;

	if (entropy_bits > 16)
		entropy_bits = 16;
	mask = (1u << entropy_bits) - 1;
	return (uint16_t)((home_port & ~mask) | (entropy & mask));
}

void uet_udp_config_default(struct uet_udp_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->prefer_iana = true;
	cfg->entropy_bits = UET_UDP_ENTROPY_BITS_DEFAULT;
	cfg->tries = UET_UDP_TRIES_DEFAULT;
	cfg->ecn = UET_ECN_ECT0;
	cfg->rcvbuf = UET_UDP_BUF_DEFAULT;
	cfg->sndbuf = UET_UDP_BUF_DEFAULT;
	cfg->batch = UET_UDP_BATCH_DEFAULT;
}

/* uet_addr (raw port) to a socket address of family af. */
static socklen_t udp_to_sockaddr(const struct uet_addr *a, uint16_t port,
				 struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->af == UET_AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		memcpy(&s4->sin_addr, a->ip, 4);
		return sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		memcpy(&s6->sin6_addr, a->ip, 16);
		return sizeof(*s6);
	}
}

/* Socket address to uet_addr; the port is the one on the wire. */
static void udp_from_sockaddr(const struct sockaddr_storage *ss,
			      struct uet_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

		a->af = UET_AF_INET;
		a->port = ntohs(s4->sin_port);
		memcpy(a->ip, &s4->sin_addr, 4);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

		a->af = UET_AF_INET6;
		a->port = ntohs(s6->sin6_port);
		memcpy(a->ip, &s6->sin6_addr, 16);
	}
}

static void udp_err_addr(char *buf, size_t cap, const char *what,
			 const struct uet_addr *a, uint16_t port, int err)
{
	char s[64];
	struct uet_addr p = *a;

	p.port = port;
	uet_addr_str(s, sizeof(s), &p);
	snprintf(buf, cap, "%s %s: %s", what, s, strerror(err));
}

/* A local address an endpoint can own: unicast, specified, reachable
 * without an interface index. Returns NULL or why not. */
static const char *udp_local_bad(const struct uet_addr *a)
{
	static const uint8_t zero[16], mapped[12] = { [10] = 0xff, 0xff };

	switch (a->af) {
	case UET_AF_INET:
		if (!memcmp(a->ip, zero, 4))
			return "unspecified address";
		if (a->ip[0] >= 224)	/* multicast, class E, broadcast */
			return "not a unicast address";
		return NULL;
	case UET_AF_INET6:
		if (!memcmp(a->ip, zero, 16))
			return "unspecified address";
		if (a->ip[0] == 0xff)
			return "multicast address";
		if (!memcmp(a->ip, mapped, 12))
			return "v4-mapped address (use UET_AF_INET)";
		if (a->ip[0] == 0xfe && (a->ip[1] & 0xc0) == 0x80)
			return "link-local address (needs an interface index)";
		return NULL;
	}
	return "no address family";
}

/* SO_*BUFFORCE passes rmem_max/wmem_max when we may (CAP_NET_ADMIN). */
static void udp_set_buf(int fd, int force, int plain, unsigned bytes)
{
	int v = bytes > INT_MAX / 2 ? INT_MAX / 2 : (int)bytes;

	if (!bytes)
		return;
	if (setsockopt(fd, SOL_SOCKET, force, &v, sizeof(v)))
		(void)setsockopt(fd, SOL_SOCKET, plain, &v, sizeof(v));
}

/* A classic BPF program that keeps 0 bytes of every packet: the block's
 * sending sockets never queue what reaches them. */
static void udp_drop_all(int fd)
{
	static struct sock_filter ret0[] = {
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { .len = 1, .filter = ret0 };
	int one = 1;

	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)))
		/* Without it, keep the queue as small as the kernel allows. */
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &one, sizeof(one));
}

static int udp_setopt(int fd, int level, int name, int v)
{
	return setsockopt(fd, level, name, &v, sizeof(v)) ? -errno : 0;
}

/* A non-blocking, close-on-exec socket of the block; the home socket
 * (home) reads ECN and drop counts, the others read nothing. */
static int udp_socket(struct udp_port *p, bool home,
		      const struct uet_udp_config *cfg, int *fdp)
{
	bool v6 = p->af == AF_INET6;
	int fd, rc;

	fd = socket(p->af, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    IPPROTO_UDP);
	if (fd < 0)
		return -errno;
	/* Own the IPv6 port only: the IPv4 space is another endpoint's. */
	rc = v6 ? udp_setopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1) : 0;
	/* Default TOS for packets without a cmsg; ECN bits included (UDP
	 * sockets keep them, unlike TCP). */
	if (!rc)
		rc = v6 ? udp_setopt(fd, IPPROTO_IPV6, IPV6_TCLASS, p->tos) :
			  udp_setopt(fd, IPPROTO_IP, IP_TOS, p->tos);
	if (!rc && home)
		rc = v6 ? udp_setopt(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, 1) :
			  udp_setopt(fd, IPPROTO_IP, IP_RECVTOS, 1);
	if (rc) {
		close(fd);
		return rc;
	}
	/* DF set, never fragment locally (wire-format §1.4), where the
	 * kernel has it. */
	if (v6)
		(void)udp_setopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER,
				 IPV6_PMTUDISC_DO);
	else
		(void)udp_setopt(fd, IPPROTO_IP, IP_MTU_DISCOVER,
				 IP_PMTUDISC_DO);
	udp_set_buf(fd, SO_SNDBUFFORCE, SO_SNDBUF, cfg->sndbuf);
	if (home) {
		udp_set_buf(fd, SO_RCVBUFFORCE, SO_RCVBUF, cfg->rcvbuf);
		(void)udp_setopt(fd, SOL_SOCKET, SO_RXQ_OVFL, 1);
	} else {
		udp_drop_all(fd);
	}
	*fdp = fd;
	return 0;
}

static void udp_close_fds(struct udp_port *p)
{
	unsigned i;

	for (i = 0; i < p->nsock; i++) {
		if (p->fds[i] >= 0)
			close(p->fds[i]);
		p->fds[i] = -1;
	}
}

/* Bind the whole block at base (0: one socket, the kernel picks). On
 * failure the sockets made are closed and -errno returned. */
static int udp_bind_block(struct udp_port *p, const struct uet_udp_config *cfg,
			  uint16_t base)
{
	struct sockaddr_storage ss;
	socklen_t len;
	unsigned i;
	int rc;

	p->st.bind_tries++;
	for (i = 0; i < p->nsock; i++) {
		uint16_t port = base ? (uint16_t)(base + i) : 0;

		rc = udp_socket(p, i == 0, cfg, &p->fds[i]);
		if (rc) {
			snprintf(udp_open_err, sizeof(udp_open_err),
				 "socket: %s", strerror(-rc));
			goto fail;
		}
		len = udp_to_sockaddr(&p->net.local, port, &ss);
		if (bind(p->fds[i], (struct sockaddr *)&ss, len)) {
			rc = -errno;
			udp_err_addr(udp_open_err, sizeof(udp_open_err),
				     "bind", &p->net.local, port, -rc);
			goto fail;
		}
	}
	len = sizeof(ss);
	if (getsockname(p->fds[0], (struct sockaddr *)&ss, &len)) {
		rc = -errno;
		snprintf(udp_open_err, sizeof(udp_open_err),
			 "getsockname: %s", strerror(-rc));
		goto fail;
	}
	p->net.local.port = ntohs(ss.ss_family == AF_INET ?
				  ((struct sockaddr_in *)&ss)->sin_port :
				  ((struct sockaddr_in6 *)&ss)->sin6_port);
	return 0;
fail:
	udp_close_fds(p);
	return rc;
}

static uint64_t udp_seed(uint64_t seed)
{
	struct timespec ts;

	if (seed)
		return seed;
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) == sizeof(seed))
		return seed;
	/* No entropy pool yet: clock and pid still differ per process. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 32 ^
	       (uint64_t)getpid() << 16;
}

/* The home port policy of uet/udp.h. */
static int udp_bind(struct udp_port *p, const struct uet_udp_config *cfg)
{
	unsigned tries = cfg->tries ? cfg->tries : UET_UDP_TRIES_DEFAULT;
	uint64_t rng, nblocks;
	unsigned t;
	int rc;

	if (cfg->port)
		return udp_bind_block(p, cfg, cfg->port);
	if (!p->bits) {
		if (cfg->prefer_iana) {
			rc = udp_bind_block(p, cfg, UET_UDP_IANA_PORT);
			if (rc != -EADDRINUSE && rc != -EACCES)
				return rc;
		}
		return udp_bind_block(p, cfg, 0);
	}
	rng = udp_seed(cfg->seed);
	nblocks = (UDP_PORT_END - UET_UDP_BLOCK_MIN) >> p->bits;
	rc = -EADDRINUSE;
	for (t = 0; t < tries && rc == -EADDRINUSE; t++)
		rc = udp_bind_block(p, cfg, (uint16_t)(UET_UDP_BLOCK_MIN +
			((udp_rand(&rng) % nblocks) << p->bits)));
	if (rc == -EADDRINUSE)
		snprintf(udp_open_err, sizeof(udp_open_err),
			 "no free block of %u ports in %u tries", p->nsock,
			 tries);
	return rc;
}

static const char *udp_config_bad(const struct uet_udp_config *cfg)
{
	uint32_t mask;

	if (cfg->entropy_bits > UET_UDP_ENTROPY_BITS_MAX)
		return "entropy_bits above UET_UDP_ENTROPY_BITS_MAX";
	if (cfg->ecn > UET_ECN_CE)
		return "ecn is not a codepoint";
	if (cfg->dscp > 63)
		return "dscp above 63";
	if (cfg->batch > UET_UDP_BATCH_MAX)
		return "batch above UET_UDP_BATCH_MAX";
	mask = (1u << cfg->entropy_bits) - 1;
	if (cfg->entropy_bits && cfg->port &&
	    (cfg->port & mask || cfg->port < UET_UDP_BLOCK_MIN))
		return "port must be aligned to 2^entropy_bits and >= 49152";
	return NULL;
}

static void udp_free(struct udp_port *p)
{
	if (p->fds)
		udp_close_fds(p);
	free(p->fds);
	free(p->mm);
	free(p->iov);
	free(p->sa);
	free(p->cbuf);
	free(p);
}

int uet_udp_open(struct uet_net **portp, const struct uet_addr *ip,
		 const struct uet_udp_config *cfg)
{
	struct uet_udp_config def;
	struct udp_port *p;
	const char *bad;
	unsigned i;
	int rc;

	udp_open_err[0] = '\0';
	if (!cfg) {
		uet_udp_config_default(&def);
		cfg = &def;
	}
	bad = udp_local_bad(ip);
	if (!bad && ip->port)
		bad = "ip->port must be 0 (the port is cfg->port)";
	if (!bad)
		bad = udp_config_bad(cfg);
	if (bad) {
		snprintf(udp_open_err, sizeof(udp_open_err), "%s", bad);
		return UET_ERR_INVAL;
	}

	p = calloc(1, sizeof(*p));
	if (!p)
		goto nomem;
	p->net.ops = &udp_ops;
	p->net.local.af = ip->af;
	/* uet/addr.h: an IPv4 address leaves the rest of ip[] zero. */
	memcpy(p->net.local.ip, ip->ip, ip->af == UET_AF_INET ? 4 : 16);
	p->af = ip->af == UET_AF_INET ? AF_INET : AF_INET6;
	p->bits = cfg->entropy_bits;
	p->nsock = 1u << p->bits;
	p->dscp = cfg->dscp;
	p->tos = (uint8_t)(cfg->dscp << 2 | cfg->ecn);
	p->batch = cfg->batch ? cfg->batch : UET_UDP_BATCH_DEFAULT;
	p->fds = malloc(p->nsock * sizeof(*p->fds));
	if (!p->fds)
		goto nomem;
	for (i = 0; i < p->nsock; i++)
		p->fds[i] = -1;
	p->mm = calloc(p->batch, sizeof(*p->mm));
	p->iov = calloc(p->batch, sizeof(*p->iov));
	p->sa = calloc(p->batch, sizeof(*p->sa));
	p->cbuf = calloc(p->batch, sizeof(*p->cbuf));
	if (!p->mm || !p->iov || !p->sa || !p->cbuf)
		goto nomem;

	rc = udp_bind(p, cfg);
	if (rc) {
		udp_free(p);
		switch (-rc) {
		case EADDRINUSE:
		case EADDRNOTAVAIL:
		case EINVAL:
		case EACCES:
			return UET_ERR_INVAL;
		case ENOMEM:
			return UET_ERR_NOMEM;
		}
		return UET_ERR_IO;
	}
	*portp = &p->net;
	return 0;
nomem:
	if (p)
		udp_free(p);
	snprintf(udp_open_err, sizeof(udp_open_err), "out of memory");
	return UET_ERR_NOMEM;
}

const char *uet_udp_errstr(const struct uet_net *net)
{
	if (!net)
		return udp_open_err;
	if (net->ops != &udp_ops)
		return "not a udp port";
	return udp_port(net)->err;
}

void uet_udp_stats(const struct uet_net *net, struct uet_udp_stats *st)
{
	if (net->ops != &udp_ops) {
		memset(st, 0, sizeof(*st));
		return;
	}
	*st = udp_port(net)->st;
}

/* Fill slot i of the vector for m; returns 0 or UET_ERR_INVAL. */
static int udp_tx_prep(struct udp_port *p, const struct uet_net_msg *m,
		       unsigned i)
{
	size_t max = p->af == AF_INET ? UDP_MAX4 : UDP_MAX6;
	struct msghdr *h = &p->mm[i].msg_hdr;
	uint8_t ecn = m->info.ecn & 3, tos;
	struct cmsghdr *c;

	if (!m->buf || !m->len || m->len > max) {
		snprintf(p->err, sizeof(p->err),
			 "send: packet of %zu bytes (1..%zu allowed)", m->len,
			 max);
		return UET_ERR_INVAL;
	}
	if (m->info.dst.af != p->net.local.af || !m->info.dst.port) {
		snprintf(p->err, sizeof(p->err),
			 "send: destination of another family or without port");
		return UET_ERR_INVAL;
	}
	memset(h, 0, sizeof(*h));
	h->msg_name = &p->sa[i];
	h->msg_namelen = udp_to_sockaddr(&m->info.dst, m->info.dst.port,
					 &p->sa[i]);
	p->iov[i].iov_base = m->buf;
	p->iov[i].iov_len = m->len;
	h->msg_iov = &p->iov[i];
	h->msg_iovlen = 1;

	tos = ecn == UET_ECN_NOT_ECT ? p->tos : (uint8_t)(p->dscp << 2 | ecn);
	if (tos == p->tos)	/* the socket default: no cmsg to parse */
		return 0;
	h->msg_control = p->cbuf[i].buf;
	h->msg_controllen = CMSG_SPACE(sizeof(int));
	c = CMSG_FIRSTHDR(h);
	c->cmsg_level = p->af == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;
	c->cmsg_type = p->af == AF_INET ? IP_TOS : IPV6_TCLASS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &(int){ tos }, sizeof(int));
	return 0;
}

/* An error that means "this packet cannot get there", as a lost packet
 * would: taken, counted, not the port's failure. */
static bool udp_unreachable(int err)
{
	return err == EHOSTUNREACH || err == ENETUNREACH ||
	       err == EHOSTDOWN || err == ENETDOWN || err == EPERM;
}

/* The packet itself is wrong for the socket or the path. */
static bool udp_refused(int err)
{
	return err == EMSGSIZE || err == EINVAL || err == EACCES ||
	       err == EAFNOSUPPORT || err == EDESTADDRREQ;
}

static int udp_send(struct uet_net *net, const struct uet_net_msg *msgs,
		    unsigned n)
{
	struct udp_port *p = udp_port(net);
	unsigned mask = p->nsock - 1, taken = 0, skips = 0;

	if (n > INT_MAX)
		n = INT_MAX;
	while (taken < n) {
		/* A run of packets leaving from the same port, in order. */
		unsigned s = msgs[taken].info.entropy & mask, cnt = 0;
		int rc = 0, r, err;

		while (cnt < p->batch && taken + cnt < n &&
		       (msgs[taken + cnt].info.entropy & mask) == s) {
			rc = udp_tx_prep(p, &msgs[taken + cnt], cnt);
			if (rc)
				break;
			cnt++;
		}
		if (!cnt)
			return taken ? (int)taken : rc;

		r = sendmmsg(p->fds[s], p->mm, cnt, 0);
		if (r >= 0) {
			taken += (unsigned)r;
			p->st.sent += (unsigned)r;
			if ((unsigned)r < cnt)	/* next call meets why */
				break;
			continue;
		}
		err = errno;
		if (err == EINTR)
			continue;
		if (err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS) {
			p->st.would_block++;
			break;
		}
		/* A stray ICMP error was reported instead of sending: the
		 * packet did not leave, try it again. */
		if (err == ECONNREFUSED && ++skips <= UDP_ICMP_SKIPS)
			continue;
		udp_err_addr(p->err, sizeof(p->err), "sendmmsg to",
			     &msgs[taken].info.dst, msgs[taken].info.dst.port,
			     err);
		if (udp_unreachable(err) || err == ECONNREFUSED) {
			p->st.unreachable++;
			taken++;
			continue;
		}
		if (taken)
			break;
		return udp_refused(err) ? UET_ERR_INVAL : UET_ERR_IO;
	}
	return (int)taken;
}

static void udp_rx_fill(struct udp_port *p, unsigned i, struct uet_net_msg *m,
			uet_time now)
{
	struct msghdr *h = &p->mm[i].msg_hdr;
	struct cmsghdr *c;
	uint16_t sport;

	memset(&m->info, 0, sizeof(m->info));
	udp_from_sockaddr(&p->sa[i], &m->info.src);
	sport = m->info.src.port;
	m->info.src.port = uet_udp_home_port(sport, p->bits);
	m->info.entropy = sport;
	m->info.dst = p->net.local;
	m->info.ts = now;
	m->len = p->mm[i].msg_len;
	if (h->msg_flags & MSG_TRUNC)
		p->st.truncated++;
	for (c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c)) {
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS &&
		    c->cmsg_len >= CMSG_LEN(1)) {
			m->info.ecn = *(uint8_t *)CMSG_DATA(c) & 3;
		} else if (c->cmsg_level == IPPROTO_IPV6 &&
			   c->cmsg_type == IPV6_TCLASS &&
			   c->cmsg_len >= CMSG_LEN(sizeof(int))) {
			int v;

			memcpy(&v, CMSG_DATA(c), sizeof(v));
			m->info.ecn = (uint8_t)(v & 3);
		} else if (c->cmsg_level == SOL_SOCKET &&
			   c->cmsg_type == SO_RXQ_OVFL &&
			   c->cmsg_len >= CMSG_LEN(sizeof(uint32_t))) {
			uint32_t d;

			memcpy(&d, CMSG_DATA(c), sizeof(d));
			p->st.rx_dropped = d;
		}
	}
}

static int udp_recv(struct uet_net *net, struct uet_net_msg *msgs, unsigned n,
		    uet_time now)
{
	struct udp_port *p = udp_port(net);
	unsigned got = 0, skips = 0, i, cnt;
	int r, err;

	if (n > INT_MAX)
		n = INT_MAX;
	while (got < n) {
		cnt = n - got < p->batch ? n - got : p->batch;
		for (i = 0; i < cnt; i++) {
			struct msghdr *h = &p->mm[i].msg_hdr;

			p->iov[i].iov_base = msgs[got + i].buf;
			p->iov[i].iov_len = msgs[got + i].cap;
			h->msg_name = &p->sa[i];
			h->msg_namelen = sizeof(p->sa[i]);
			h->msg_iov = &p->iov[i];
			h->msg_iovlen = 1;
			h->msg_control = p->cbuf[i].buf;
			h->msg_controllen = sizeof(p->cbuf[i].buf);
			h->msg_flags = 0;
		}
		r = recvmmsg(p->fds[0], p->mm, cnt, MSG_DONTWAIT, NULL);
		if (r < 0) {
			err = errno;
			if (err == EAGAIN || err == EWOULDBLOCK)
				break;
			if (err == EINTR)
				continue;
			/* An ICMP error nobody asked for: reading it
			 * cleared it, so go on. */
			if ((err == ECONNREFUSED || udp_unreachable(err)) &&
			    ++skips <= UDP_ICMP_SKIPS)
				continue;
			snprintf(p->err, sizeof(p->err), "recvmmsg: %s",
				 strerror(err));
			if (got)
				break;
			return UET_ERR_IO;
		}
		for (i = 0; i < (unsigned)r; i++)
			udp_rx_fill(p, i, &msgs[got + i], now);
		got += (unsigned)r;
		p->st.received += (unsigned)r;
		if ((unsigned)r < cnt)
			break;
	}
	return (int)got;
}

static int udp_fd(const struct uet_net *net)
{
	return udp_port(net)->fds[0];
}

static void udp_close(struct uet_net *net)
{
	udp_free(udp_port(net));
}

static const struct uet_net_ops udp_ops = {
	.name = "udp",
	.send = udp_send,
	.recv = udp_recv,
	.fd = udp_fd,
	.close = udp_close,
};
