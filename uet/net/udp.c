/* The UDP port: the sockets of one endpoint on one local IP address.
 *
 * Scheme (see uet/udp.h): a home socket on the home port, where peers
 * send, and 2^k spray sockets on ports the kernel picks. A packet with
 * entropy e leaves from spray socket e % 2^k, so ECMP hashing on the
 * source port sprays one PDC over paths (docs/choices.md §1.3); a packet sent
 * with info.home leaves from the home port, so that its receiver learns
 * where to answer. Every socket reads: answers to sprayed packets nobody
 * could attribute (NACKs for unknown PDCs) come back to the spray port.
 *
 * Home port choice: an explicit port, else the IANA port 4793 when
 * preferred and free, else the kernel's pick. Sockets never set
 * SO_REUSEADDR, so two endpoints can never share a port.
 *
 * Planes: a packet's plane (uet_udp_plane) names the interface it leaves
 * by in an IP_PKTINFO / IPV6_PKTINFO cmsg; the source address stays the
 * bound one, so the peer sees one FA whatever the plane.
 *
 * ICMP: the sockets are unconnected and leave IP_RECVERR off, so Linux
 * does not queue errors such as port unreachable on them; a send to a
 * closed port behaves like a lost packet. Should an error still surface
 * (ECONNREFUSED and friends), send() and recv() skip it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <netinet/udp.h>

#ifndef SOL_UDP
#define SOL_UDP		IPPROTO_UDP
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT	103	/* linux/udp.h, Linux 4.18 */
#endif
#ifndef UDP_GRO
#define UDP_GRO		104	/* linux/udp.h, Linux 5.0 */
#endif

#include "uet/udp.h"
#include "sockaddr.h"
#include "sockopt.h"

#define UDP_MAX4	65507u	/* 65535 - IPv4 header - UDP header */
#define UDP_MAX6	65527u	/* 65535 - UDP header, no jumbograms */
#define UDP_PORT_END	65536u
#define UDP_ICMP_SKIPS	16	/* stray socket errors skipped a call */
#define UDP_GSO_SEGS	64	/* packets in one GSO train (UDP_MAX_SEGMENTS
				 * of older kernels) */
#define UDP_GRO_SLOTS	8	/* coalesced datagrams read per call */
#define UDP_GRO_CAP	65536u	/* one coalesced datagram at most */
#define UDP_PLANE_TRIES	64	/* ports held while looking for a residue */
#define UDP_PLANE_SEEN	64	/* arrival planes remembered (a power of 2) */
#define UDP_PLANE_CHECK	32	/* send calls between link state reads */
#define UDP_PLACE_HDR	128	/* a placed packet's headers at most */
/* two pieces per planned packet, the rest of each slot after them */
#define UDP_PLACE_IOV	(2 * UET_NET_PLACE_MAX + UDP_GRO_SLOTS)

/* Room for the control messages of one packet: TOS, a drop count and the
 * GRO segment size on receive, TOS, the GSO segment size and the plane's
 * interface on send. */
union udp_cbuf {
	struct cmsghdr align;
	char buf[CMSG_SPACE(sizeof(int)) * 4 +
		 CMSG_SPACE(sizeof(struct in6_pktinfo))];
};

/* A coalesced datagram (UDP_GRO) not yet handed out in full. */
struct udp_gro_slot {
	struct uet_pkt_info info;	/* of every packet in it */
	uint8_t *data;			/* UDP_GRO_CAP bytes */
	size_t len, off;		/* bytes read, bytes handed out */
	size_t seg;			/* packet size (the last may be less) */
	bool spray;			/* read from a spray socket */
	/* Direct placement: the plan's packets pbase .. pbase + pn - 1
	 * were to come in it (pn 0: none), by the npiov pieces at piov;
	 * of them, `placed` at its head are where the plan put them, the
	 * next to hand out next. */
	unsigned pbase, pn, npiov;
	struct iovec *piov;
	unsigned placed, next;
};

/* The plane the latest packet from a source address came in by. */
struct udp_plane_seen {
	struct uet_addr src;		/* af 0: empty */
	uint8_t plane;
};

struct udp_port {
	struct uet_net net;		/* the caller's handle */
	int af;				/* AF_INET or AF_INET6 */
	unsigned nspray;		/* 2^k spray sockets, or 0 */
	int home_fd;
	int *spray_fd;			/* nspray */
	uint16_t *spray_port;		/* their ports */
	int ep_fd;			/* every socket (nspray > 0), or -1 */
	struct epoll_event *ev;		/* nspray + 1 */
	unsigned dry_polls;		/* recv calls that found home empty */
	uint8_t tos;			/* default: dscp << 2 | ecn */
	uint8_t dscp;
	unsigned batch;
	bool gso;			/* trains go as one UDP_SEGMENT message */
	bool gro;			/* sockets take coalesced datagrams */
	bool lend;			/* recv may hand out gro_slot memory */
	bool lent;			/* it did, in the recv under way */
	unsigned nplanes;		/* 0: the route picks the interface */
	unsigned plane_ifindex[UET_UDP_PLANES_MAX];
	struct udp_plane_seen *seen;	/* UDP_PLANE_SEEN, with nplanes > 1 */
	struct udp_plane_seen *seen_mem;	/* what seen was (to free) */
	char plane_name[UET_UDP_PLANES_MAX][IF_NAMESIZE];
	unsigned plane_down;		/* planes whose interface is down */
	unsigned send_calls;		/* since the link states were read */
	struct udp_gro_slot *gro_slot;	/* UDP_GRO_SLOTS, with gro */
	struct uet_net_place place;	/* for the next recv (uet_udp_place) */
	bool place_set;
	struct iovec *place_iov;	/* UDP_PLACE_IOV */
	uint8_t *place_hdr;		/* UET_NET_PLACE_MAX * UDP_PLACE_HDR */
	unsigned place_per;		/* packets a planned datagram held last
					 * (0: as many as the plan has) */
	unsigned gro_head, gro_count;	/* slots still holding packets */
	unsigned *segs;			/* per message of a send: packets */
	struct mmsghdr *mm;
	struct iovec *iov;		/* 2 per packet: buf and ext */
	struct sockaddr_storage *sa;
	union udp_cbuf *cbuf;
	struct uet_udp_stats st;
	char err[192];
};

static const struct uet_net_ops udp_ops;

/* How often (in dry receive calls) the spray sockets are looked at. */
#define UDP_SPRAY_POLL	16

/* The last failed open of this thread (there is no port to hold it). */
static __thread char udp_open_err[192];

static struct udp_port *udp_port(const struct uet_net *net)
{
	return (struct udp_port *)((const char *)net -
				   offsetof(struct udp_port, net));
}

uint16_t uet_udp_tx_port(const struct uet_net *net,
			 const struct uet_pkt_info *info)
{
	const struct udp_port *p;

	if (net->ops != &udp_ops)
		return 0;
	p = udp_port(net);
	if (info->home || !p->nspray)
		return net->local.port;
	return p->spray_port[info->entropy & (p->nspray - 1)];
}

unsigned uet_udp_plane(uint16_t entropy, unsigned nplanes)
{
	return nplanes > 1 ? entropy % nplanes : 0;
}

void uet_udp_config_default(struct uet_udp_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->prefer_iana = true;
	cfg->entropy_bits = UET_UDP_ENTROPY_BITS_DEFAULT;
	cfg->ecn = UET_ECN_ECT0;
	cfg->rcvbuf = UET_UDP_BUF_DEFAULT;
	cfg->sndbuf = UET_UDP_BUF_DEFAULT;
	cfg->batch = UET_UDP_BATCH_DEFAULT;
	cfg->gso = true;
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

/* A non-blocking, close-on-exec socket bound to port (0: the kernel
 * picks) that reads ECN bits; the home socket (home) also its buffer and
 * the kernel's drop count. Returns the fd or -errno, with udp_open_err
 * set. */
static int udp_socket(struct udp_port *p, bool home, uint16_t port,
		      const struct uet_udp_config *cfg)
{
	bool v6 = p->af == AF_INET6;
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, rc;

	fd = socket(p->af, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    IPPROTO_UDP);
	if (fd < 0) {
		rc = -errno;
		snprintf(udp_open_err, sizeof(udp_open_err), "socket: %s",
			 strerror(-rc));
		return rc;
	}
	/* Own the IPv6 port only: the IPv4 space is another endpoint's. */
	rc = v6 ? uet_sockopt_set(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1) : 0;
	/* Default TOS for packets without a cmsg; ECN bits included (UDP
	 * sockets keep them, unlike TCP). */
	if (!rc)
		rc = uet_sockopt_tos(fd, v6, p->tos);
	if (!rc)
		rc = v6 ? uet_sockopt_set(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, 1) :
			  uet_sockopt_set(fd, IPPROTO_IP, IP_RECVTOS, 1);
	if (rc) {
		snprintf(udp_open_err, sizeof(udp_open_err), "setsockopt: %s",
			 strerror(-rc));
		close(fd);
		return rc;
	}
	/* DF set, never fragment locally (docs/protocol.md §1.4), where the
	 * kernel has it. */
	(void)uet_sockopt_dont_fragment(fd, v6);
	uet_sockopt_buf(fd, SO_SNDBUFFORCE, SO_SNDBUF, cfg->sndbuf);
	/* A kernel without UDP_GRO hands out single datagrams: fine. */
	if (p->gro && uet_sockopt_set(fd, SOL_UDP, UDP_GRO, 1))
		p->gro = false;
	if (home) {
		uet_sockopt_buf(fd, SO_RCVBUFFORCE, SO_RCVBUF, cfg->rcvbuf);
		(void)uet_sockopt_set(fd, SOL_SOCKET, SO_RXQ_OVFL, 1);
		/* the arrival interface: which plane a peer's home port
		 * reached us by (udp_rx_plane) */
		if (p->seen && uet_sockopt_set(fd, v6 ? IPPROTO_IPV6 :
					       IPPROTO_IP, v6 ?
					       IPV6_RECVPKTINFO : IP_PKTINFO, 1))
			p->seen = NULL;
	}
	len = uet_sockaddr_from(&p->net.local, port, &ss);
	if (bind(fd, (struct sockaddr *)&ss, len)) {
		rc = -errno;
		udp_err_addr(udp_open_err, sizeof(udp_open_err), "bind",
			     &p->net.local, port, -rc);
		close(fd);
		return rc;
	}
	return fd;
}

static uint16_t udp_bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return 0;
	return ntohs(ss.ss_family == AF_INET ?
		     ((struct sockaddr_in *)&ss)->sin_port :
		     ((struct sockaddr_in6 *)&ss)->sin6_port);
}

/* The home port policy of uet/udp.h. Returns 0 or -errno. */
static int udp_bind_home(struct udp_port *p, const struct uet_udp_config *cfg)
{
	int fd = -EADDRINUSE;

	if (cfg->port)
		fd = udp_socket(p, true, cfg->port, cfg);
	else if (cfg->prefer_iana)
		fd = udp_socket(p, true, UET_UDP_IANA_PORT, cfg);
	if (fd < 0 && !cfg->port && (fd == -EADDRINUSE || fd == -EACCES))
		fd = udp_socket(p, true, 0, cfg);
	if (fd < 0)
		return fd;
	p->home_fd = fd;
	p->net.local.port = udp_bound_port(fd);
	return p->net.local.port ? 0 : -EINVAL;
}

/* Spray socket i on a kernel-picked port that is i modulo nplanes, so
 * that a peer echoing it (an ACK leaves on the request's raw source port
 * as entropy) answers on the plane the request took: a dead plane is
 * dead both ways for an EV, never half. Ports of the wrong residue are
 * held until one fits, so the kernel offers others. Returns the fd or
 * -errno. */
static int udp_spray_socket(struct udp_port *p, unsigned i,
			    const struct uet_udp_config *cfg)
{
	int held[UDP_PLANE_TRIES];
	unsigned n = 0;
	int fd;

	for (;;) {
		fd = udp_socket(p, false, 0, cfg);
		if (fd < 0 || p->nplanes < 2 || n == UDP_PLANE_TRIES ||
		    udp_bound_port(fd) % p->nplanes == i % p->nplanes)
			break;
		held[n++] = fd;
	}
	while (n)
		close(held[--n]);
	return fd;
}

/* The spray sockets on kernel-picked ports, and the epoll set that makes
 * one fd of all. Returns 0 or -errno. */
static int udp_bind_spray(struct udp_port *p, const struct uet_udp_config *cfg)
{
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned i;
	int fd;

	if (!p->nspray)
		return 0;
	p->ep_fd = epoll_create1(EPOLL_CLOEXEC);
	/* Like the sockets: whoever polls it must never block on it. */
	if (p->ep_fd < 0 || fcntl(p->ep_fd, F_SETFL, O_NONBLOCK))
		goto ep_fail;
	ev.data.u32 = 0;	/* 0: home, i + 1: spray socket i */
	if (epoll_ctl(p->ep_fd, EPOLL_CTL_ADD, p->home_fd, &ev))
		goto ep_fail;
	for (i = 0; i < p->nspray; i++) {
		fd = udp_spray_socket(p, i, cfg);
		if (fd < 0)
			return fd;
		p->spray_fd[i] = fd;
		p->spray_port[i] = udp_bound_port(fd);
		ev.data.u32 = i + 1;
		if (!p->spray_port[i] ||
		    epoll_ctl(p->ep_fd, EPOLL_CTL_ADD, fd, &ev))
			goto ep_fail;
	}
	return 0;
ep_fail:
	fd = -errno;
	snprintf(udp_open_err, sizeof(udp_open_err), "epoll: %s",
		 strerror(-fd));
	return fd ? fd : -EINVAL;
}

static int udp_gro_alloc(struct udp_port *p)
{
	uint8_t *data;

	p->gro_slot = calloc(UDP_GRO_SLOTS, sizeof(*p->gro_slot));
	data = malloc((size_t)UDP_GRO_SLOTS * UDP_GRO_CAP);
	p->place_iov = calloc(UDP_PLACE_IOV, sizeof(*p->place_iov));
	p->place_hdr = malloc((size_t)UET_NET_PLACE_MAX * UDP_PLACE_HDR);
	if (!p->gro_slot || !data || !p->place_iov || !p->place_hdr) {
		free(data);
		return -1;
	}
	for (unsigned i = 0; i < UDP_GRO_SLOTS; i++)
		p->gro_slot[i].data = data + (size_t)i * UDP_GRO_CAP;
	return 0;
}

static const char *udp_config_bad(const struct uet_udp_config *cfg)
{
	if (cfg->entropy_bits > UET_UDP_ENTROPY_BITS_MAX)
		return "entropy_bits above UET_UDP_ENTROPY_BITS_MAX";
	if (cfg->ecn > UET_ECN_CE)
		return "ecn is not a codepoint";
	if (cfg->dscp > 63)
		return "dscp above 63";
	if (cfg->batch > UET_UDP_BATCH_MAX)
		return "batch above UET_UDP_BATCH_MAX";
	if (cfg->nplanes > UET_UDP_PLANES_MAX)
		return "nplanes above UET_UDP_PLANES_MAX";
	for (unsigned i = 0; i < cfg->nplanes; i++)
		if (!cfg->plane_ifindex[i])
			return "plane without an interface index";
	return NULL;
}

static void udp_free(struct udp_port *p)
{
	unsigned i;

	if (p->ep_fd >= 0)
		close(p->ep_fd);
	if (p->home_fd >= 0)
		close(p->home_fd);
	for (i = 0; p->spray_fd && i < p->nspray; i++)
		if (p->spray_fd[i] >= 0)
			close(p->spray_fd[i]);
	if (p->gro_slot)
		free(p->gro_slot[0].data);
	free(p->gro_slot);
	free(p->place_iov);
	free(p->place_hdr);
	free(p->seen_mem);
	free(p->segs);
	free(p->spray_fd);
	free(p->spray_port);
	free(p->ev);
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
	bad = uet_sockaddr_local_bad(ip);
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
	p->nspray = cfg->entropy_bits ? 1u << cfg->entropy_bits : 0;
	p->home_fd = p->ep_fd = -1;
	p->dscp = cfg->dscp;
	p->tos = (uint8_t)(cfg->dscp << 2 | cfg->ecn);
	p->batch = cfg->batch ? cfg->batch : UET_UDP_BATCH_DEFAULT;
	p->gso = p->gro = cfg->gso;
	p->lend = cfg->rx_lend;
	p->nplanes = cfg->nplanes;
	memcpy(p->plane_ifindex, cfg->plane_ifindex,
	       sizeof(p->plane_ifindex));
	for (i = 0; i < p->nplanes; i++) {
		if (!if_indextoname(p->plane_ifindex[i], p->plane_name[i])) {
			snprintf(udp_open_err, sizeof(udp_open_err),
				 "plane %u: no interface of index %u", i,
				 p->plane_ifindex[i]);
			udp_free(p);
			return UET_ERR_INVAL;
		}
	}
	if (p->nplanes > 1) {
		p->seen = p->seen_mem = calloc(UDP_PLANE_SEEN,
					       sizeof(*p->seen));
		if (!p->seen)
			goto nomem;
	}
	p->spray_fd = malloc((p->nspray + 1) * sizeof(*p->spray_fd));
	for (i = 0; p->spray_fd && i < p->nspray; i++)
		p->spray_fd[i] = -1;
	p->spray_port = calloc(p->nspray + 1, sizeof(*p->spray_port));
	p->ev = calloc(p->nspray + 1, sizeof(*p->ev));
	if (!p->spray_fd || !p->spray_port || !p->ev)
		goto nomem;
	p->mm = calloc(p->batch, sizeof(*p->mm));
	p->iov = calloc(2 * (size_t)p->batch, sizeof(*p->iov));
	p->sa = calloc(p->batch, sizeof(*p->sa));
	p->cbuf = calloc(p->batch, sizeof(*p->cbuf));
	p->segs = calloc(p->batch, sizeof(*p->segs));
	if (!p->mm || !p->iov || !p->sa || !p->cbuf || !p->segs)
		goto nomem;
	if (p->gro && udp_gro_alloc(p))
		goto nomem;

	rc = udp_bind_home(p, cfg);
	if (!rc)
		rc = udp_bind_spray(p, cfg);
	if (rc) {
		udp_free(p);
		switch (-rc) {
		case EADDRINUSE:
		case EADDRNOTAVAIL:
		case EINVAL:
		case EACCES:
			return UET_ERR_INVAL;
		case ENOMEM:
		case ENOBUFS:
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

void uet_udp_place(struct uet_net *net, const struct uet_net_place *pl)
{
	struct udp_port *p;

	if (net->ops != &udp_ops)
		return;
	p = udp_port(net);
	p->place_set = pl && p->gro && p->lend && pl->n &&
		       pl->hdr_len && pl->hdr_len <= UDP_PLACE_HDR &&
		       pl->seg && pl->last && pl->last <= pl->seg;
	if (p->place_set)
		p->place = *pl;
}

void uet_udp_stats(const struct uet_net *net, struct uet_udp_stats *st)
{
	if (net->ops != &udp_ops) {
		memset(st, 0, sizeof(*st));
		return;
	}
	*st = udp_port(net)->st;
}

/* The socket a packet leaves from (uet/udp.h). */
static int udp_tx_fd(const struct udp_port *p, const struct uet_pkt_info *i)
{
	if (i->home || !p->nspray)
		return p->home_fd;
	return p->spray_fd[i->entropy & (p->nspray - 1)];
}

/* The TOS byte a packet leaves with. */
static uint8_t udp_tx_tos(const struct udp_port *p, const struct uet_net_msg *m)
{
	return uet_sockopt_pkt_tos(p->tos, p->dscp, m->info.ecn);
}

static bool udp_tx_ok(struct udp_port *p, const struct uet_net_msg *m)
{
	size_t max = p->af == AF_INET ? UDP_MAX4 : UDP_MAX6;

	size_t len = uet_net_msg_len(m);

	if (!m->buf || !len || len > max || (m->ext_len && !m->ext)) {
		snprintf(p->err, sizeof(p->err),
			 "send: packet of %zu bytes (1..%zu allowed)", len,
			 max);
		return false;
	}
	if (m->info.dst.af != p->net.local.af || !m->info.dst.port) {
		snprintf(p->err, sizeof(p->err),
			 "send: destination of another family or without port");
		return false;
	}
	return true;
}

/* The slot of a source address among the remembered arrivals. */
static struct udp_plane_seen *udp_seen_slot(const struct udp_port *p,
					    const uint8_t *ip, uint16_t port)
{
	uint32_t h = 2166136261u ^ port;

	for (unsigned i = 0; i < 16; i++)
		h = (h ^ ip[i]) * 16777619u;
	return &p->seen[h & (UDP_PLANE_SEEN - 1)];
}

/* A packet arrived at the home socket from src by interface ifindex. */
static void udp_rx_plane(struct udp_port *p, const struct uet_addr *src,
			 unsigned ifindex)
{
	struct udp_plane_seen *s;

	for (unsigned i = 0; i < p->nplanes; i++) {
		if (p->plane_ifindex[i] != ifindex)
			continue;
		s = udp_seen_slot(p, src->ip, src->port);
		s->src = *src;
		s->plane = (uint8_t)i;
		return;
	}
}

/* plane, or while its interface is down the next live one: a NIC does
 * not send out of a port without link (UE 1.0 §3.6.16.6: the CCC picks
 * among ports with capacity). All down: plane, to be counted
 * unreachable. */
static unsigned udp_live_plane(const struct udp_port *p, unsigned plane)
{
	for (unsigned i = 0; i < p->nplanes; i++) {
		unsigned q = (plane + i) % p->nplanes;

		if (!(p->plane_down & 1u << q))
			return q;
	}
	return plane;
}

/* A packet's plane: its entropy mod nplanes (uet_udp_plane), except an
 * answer whose entropy echoes a source port we heard from at that
 * address: the plane that came in by. For a peer's spray port that is
 * the same plane (its ports keep their residue); for its home port,
 * which has none, it is the plane its SYN phase found alive. */
static unsigned udp_tx_plane(const struct udp_port *p,
			     const struct uet_pkt_info *i)
{
	if (p->seen) {
		const struct udp_plane_seen *s;

		s = udp_seen_slot(p, i->dst.ip, i->entropy);
		if (s->src.af == i->dst.af && s->src.port == i->entropy &&
		    !memcmp(s->src.ip, i->dst.ip, sizeof(s->src.ip)))
			return udp_live_plane(p, s->plane);
	}
	return udp_live_plane(p, uet_udp_plane(i->entropy, p->nplanes));
}

/* The interface index a packet leaves by, 0 for the route's choice. */
static unsigned udp_tx_ifindex(const struct udp_port *p,
			       const struct uet_pkt_info *i)
{
	if (!p->nplanes)
		return 0;
	return p->plane_ifindex[udp_tx_plane(p, i)];
}

/* May packet b ride in the GSO train that packet a starts, which has
 * segs packets and bytes bytes so far? Same socket, destination, TOS and
 * plane (the socket does not imply the plane: 2^k spray sockets, any
 * nplanes), the size of a (only the last may be shorter). */
static bool udp_tx_joins(const struct udp_port *p, const struct uet_net_msg *a,
			 const struct uet_net_msg *b, unsigned segs,
			 size_t bytes)
{
	size_t max = p->af == AF_INET ? UDP_MAX4 : UDP_MAX6;
	size_t alen = uet_net_msg_len(a), blen = uet_net_msg_len(b);

	/* The kernel cuts the train's bytes every alen, wherever the
	 * iovec entries of buf and ext begin. */
	return segs < UDP_GSO_SEGS && blen <= alen &&
	       bytes == (size_t)segs * alen && bytes + blen <= max &&
	       udp_tx_fd(p, &b->info) == udp_tx_fd(p, &a->info) &&
	       b->info.dst.port == a->info.dst.port &&
	       !memcmp(b->info.dst.ip, a->info.dst.ip, sizeof(a->info.dst.ip)) &&
	       udp_tx_tos(p, b) == udp_tx_tos(p, a) &&
	       (p->nplanes < 2 ||
		udp_tx_plane(p, &b->info) == udp_tx_plane(p, &a->info));
}

/* The egress interface of a plane into c; returns the cmsg space used.
 * ipi_spec_dst / ipi6_addr stay zero: the bound FA is the source. */
static size_t udp_tx_plane_cmsg(const struct udp_port *p, struct cmsghdr *c,
				unsigned ifindex)
{
	if (p->af == AF_INET) {
		struct in_pktinfo pi = { .ipi_ifindex = (int)ifindex };

		c->cmsg_level = IPPROTO_IP;
		c->cmsg_type = IP_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
		return CMSG_SPACE(sizeof(pi));
	} else {
		struct in6_pktinfo pi = { .ipi6_ifindex = ifindex };

		c->cmsg_level = IPPROTO_IPV6;
		c->cmsg_type = IPV6_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
		return CMSG_SPACE(sizeof(pi));
	}
}

/* Message k of the vector: the packets msgs[0..segs) (one, or a GSO
 * train), their iovecs from iov[] (room for 2 per packet: its buf and
 * its ext, UET_NET_CAP_SG). */
static void udp_tx_prep(struct udp_port *p, const struct uet_net_msg *msgs,
			unsigned segs, unsigned k, struct iovec *iov)
{
	struct msghdr *h = &p->mm[k].msg_hdr;
	uint8_t tos = udp_tx_tos(p, &msgs[0]);
	struct cmsghdr *c;
	size_t clen = 0, nv = 0;

	memset(h, 0, sizeof(*h));
	h->msg_name = &p->sa[k];
	h->msg_namelen = uet_sockaddr_from(&msgs[0].info.dst,
					 msgs[0].info.dst.port, &p->sa[k]);
	for (unsigned i = 0; i < segs; i++) {
		iov[nv].iov_base = msgs[i].buf;
		iov[nv++].iov_len = msgs[i].len;
		if (msgs[i].ext_len) {
			iov[nv].iov_base = (void *)msgs[i].ext;
			iov[nv++].iov_len = msgs[i].ext_len;
		}
	}
	h->msg_iov = iov;
	h->msg_iovlen = nv;
	p->segs[k] = segs;

	/* Zeroed: CMSG_NXTHDR reads the next header's length, and the
	 * buffer holds whatever the last recvmmsg left. */
	memset(p->cbuf[k].buf, 0, sizeof(p->cbuf[k].buf));
	h->msg_control = p->cbuf[k].buf;
	h->msg_controllen = sizeof(p->cbuf[k].buf);
	c = CMSG_FIRSTHDR(h);
	if (tos != p->tos) {	/* else the socket default: nothing to parse */
		c->cmsg_level = p->af == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;
		c->cmsg_type = p->af == AF_INET ? IP_TOS : IPV6_TCLASS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &(int){ tos }, sizeof(int));
		clen += CMSG_SPACE(sizeof(int));
		c = CMSG_NXTHDR(h, c);
	}
	if (segs > 1) {
		uint16_t seg = (uint16_t)uet_net_msg_len(&msgs[0]);

		c->cmsg_level = SOL_UDP;
		c->cmsg_type = UDP_SEGMENT;
		c->cmsg_len = CMSG_LEN(sizeof(seg));
		memcpy(CMSG_DATA(c), &seg, sizeof(seg));
		clen += CMSG_SPACE(sizeof(seg));
		c = CMSG_NXTHDR(h, c);
	}
	if (p->nplanes)
		clen += udp_tx_plane_cmsg(p, c, udp_tx_ifindex(p, &msgs[0].info));
	h->msg_controllen = clen;
	if (!clen)
		h->msg_control = NULL;
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

/* The kernel or the device cannot segment (no checksum offload, no
 * UDP_SEGMENT): send packet by packet from now on. (EINVAL also means a
 * packet longer than the path MTU: not a reason to stop.) */
static bool udp_gso_unsupported(int err)
{
	return err == EIO || err == EOPNOTSUPP || err == ENOPROTOOPT;
}

/* The send of m failed with err: if it says the plane's own interface
 * is down (the route through it is gone), mark that plane down and say
 * so, to send m again on another. */
static bool udp_plane_failed(struct udp_port *p, const struct uet_net_msg *m,
			     int err)
{
	unsigned plane;

	if (p->nplanes < 2 || (err != ENETUNREACH && err != ENETDOWN))
		return false;
	plane = udp_tx_plane(p, &m->info);
	if (p->plane_down & 1u << plane)
		return false;		/* every plane is down */
	p->plane_down |= 1u << plane;
	p->st.plane_down++;
	return true;
}

/* Which planes have no link (down, or no carrier: the far end is down),
 * read from the interfaces as a NIC knows its ports' link. A plane the
 * kernel cannot tell about counts as up: its packets then show. */
static void udp_planes_check(struct udp_port *p)
{
	unsigned down = 0;

	for (unsigned i = 0; i < p->nplanes; i++) {
		struct ifreq ifr;

		memset(&ifr, 0, sizeof(ifr));
		memcpy(ifr.ifr_name, p->plane_name[i], IF_NAMESIZE);
		if (ioctl(p->home_fd, SIOCGIFFLAGS, &ifr))
			continue;
		if (!(ifr.ifr_flags & IFF_UP) || !(ifr.ifr_flags & IFF_RUNNING))
			down |= 1u << i;
	}
	if (down & ~p->plane_down)
		p->st.plane_down++;
	p->plane_down = down;
}

/* One sendmmsg vector from msgs: messages of one socket, each a packet or
 * a GSO train (gso). Sets *fd; returns the packets in it, or
 * UET_ERR_INVAL when the first packet is refused. */
static int udp_tx_vector(struct udp_port *p, const struct uet_net_msg *msgs,
			 unsigned n, bool gso, int *fd, unsigned *nmsg)
{
	unsigned used = 0, k = 0, segs;
	size_t bytes;

	*fd = udp_tx_fd(p, &msgs[0].info);
	while (k < p->batch && used < n && used < p->batch &&
	       udp_tx_fd(p, &msgs[used].info) == *fd) {
		if (!udp_tx_ok(p, &msgs[used]))
			break;
		segs = 1;
		bytes = uet_net_msg_len(&msgs[used]);
		while (gso && used + segs < n && used + segs < p->batch &&
		       udp_tx_ok(p, &msgs[used + segs]) &&
		       udp_tx_joins(p, &msgs[used], &msgs[used + segs], segs,
				    bytes)) {
			bytes += uet_net_msg_len(&msgs[used + segs]);
			segs++;
		}
		udp_tx_prep(p, &msgs[used], segs, k, &p->iov[2 * used]);
		used += segs;
		k++;
	}
	*nmsg = k;
	return used ? (int)used : UET_ERR_INVAL;
}

static int udp_send(struct uet_net *net, const struct uet_net_msg *msgs,
		    unsigned n)
{
	struct udp_port *p = udp_port(net);
	unsigned taken = 0, skips = 0, k, i;
	bool gso = p->gso;

	if (n > INT_MAX)
		n = INT_MAX;
	if (p->nplanes > 1 && ++p->send_calls % UDP_PLANE_CHECK == 0)
		udp_planes_check(p);
	while (taken < n) {
		/* A run of packets leaving from the same port, in order. */
		int fd, cnt, r, err;

		cnt = udp_tx_vector(p, msgs + taken, n - taken, gso, &fd, &k);
		if (cnt < 0)
			return taken ? (int)taken : cnt;

		r = sendmmsg(fd, p->mm, k, 0);
		if (r >= 0) {
			for (i = 0; i < (unsigned)r; i++) {
				taken += p->segs[i];
				p->st.sent += p->segs[i];
				if (p->segs[i] > 1)
					p->st.gso_trains++;
				p->st.gso_pkts[uet_udp_train_bucket(
					p->segs[i])]++;
			}
			if ((unsigned)r < k)	/* next call meets why */
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
		if (udp_plane_failed(p, &msgs[taken], err))
			continue;
		if (p->segs[0] > 1) {
			/* The train, not its packets: a path too narrow
			 * for them is found packet by packet (this call);
			 * a stack that cannot segment, for good. */
			if (udp_gso_unsupported(err)) {
				p->gso = false;
				p->st.gso_off = (unsigned)err;
			}
			gso = false;
			continue;
		}
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

/* Packet i of the last recvmmsg, received by socket sock (0: home, s + 1:
 * spray socket s), into m; returns the GRO segment size, 0 if none. */
static size_t udp_rx_fill(struct udp_port *p, unsigned i, unsigned sock,
			  struct uet_net_msg *m, uet_time now)
{
	struct msghdr *h = &p->mm[i].msg_hdr;
	struct cmsghdr *c;
	size_t seg = 0;

	memset(&m->info, 0, sizeof(m->info));
	uet_sockaddr_to(&p->sa[i], &m->info.src);
	/* Raw: the sender's home port cannot be told from it (udp.h). */
	m->info.entropy = m->info.src.port;
	m->info.dst = p->net.local;
	m->info.home = !sock;
	if (sock)
		m->info.dst.port = p->spray_port[sock - 1];
	m->info.ts = now;
	m->len = p->mm[i].msg_len;
	m->ext = NULL;
	m->ext_len = 0;
	m->placed = 0;
	if (h->msg_flags & MSG_TRUNC)
		p->st.truncated++;
	for (c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c)) {
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS &&
		    c->cmsg_len >= CMSG_LEN(1)) {
			m->info.ecn = *(uint8_t *)CMSG_DATA(c) & 3;
			m->info.dscp = *(uint8_t *)CMSG_DATA(c) >> 2;
		} else if (c->cmsg_level == IPPROTO_IPV6 &&
			   c->cmsg_type == IPV6_TCLASS &&
			   c->cmsg_len >= CMSG_LEN(sizeof(int))) {
			int v;

			memcpy(&v, CMSG_DATA(c), sizeof(v));
			m->info.ecn = (uint8_t)(v & 3);
			m->info.dscp = (uint8_t)((v >> 2) & 63);
		} else if (c->cmsg_level == SOL_SOCKET &&
			   c->cmsg_type == SO_RXQ_OVFL &&
			   c->cmsg_len >= CMSG_LEN(sizeof(uint32_t))) {
			uint32_t d;

			memcpy(&d, CMSG_DATA(c), sizeof(d));
			p->st.rx_dropped = d;
		} else if (c->cmsg_level == SOL_UDP &&
			   c->cmsg_type == UDP_GRO &&
			   c->cmsg_len >= CMSG_LEN(sizeof(int))) {
			int v;

			memcpy(&v, CMSG_DATA(c), sizeof(v));
			seg = v > 0 ? (size_t)v : 0;
		} else if (p->seen && !sock &&
			   c->cmsg_level == IPPROTO_IP &&
			   c->cmsg_type == IP_PKTINFO &&
			   c->cmsg_len >= CMSG_LEN(sizeof(struct in_pktinfo))) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			udp_rx_plane(p, &m->info.src, (unsigned)pi.ipi_ifindex);
		} else if (p->seen && !sock &&
			   c->cmsg_level == IPPROTO_IPV6 &&
			   c->cmsg_type == IPV6_PKTINFO &&
			   c->cmsg_len >= CMSG_LEN(sizeof(struct in6_pktinfo))) {
			struct in6_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			udp_rx_plane(p, &m->info.src, pi.ipi6_ifindex);
		}
	}
	return seg;
}

/* recvmmsg into cnt buffers of socket sock; or, for those of the slots
 * given (planned: gro_slot) with a part of a plan, into its pieces.
 * Returns the count (0: none ready), or UET_ERR_IO. */
static int udp_recvmmsg(struct udp_port *p, unsigned sock, unsigned cnt,
			uint8_t *const *bufs, const size_t *caps,
			const struct udp_gro_slot *planned)
{
	int fd = sock ? p->spray_fd[sock - 1] : p->home_fd;
	unsigned skips = 0, i;
	int r, err;

	for (;;) {
		for (i = 0; i < cnt; i++) {
			struct msghdr *h = &p->mm[i].msg_hdr;

			p->iov[i].iov_base = bufs[i];
			p->iov[i].iov_len = caps[i];
			h->msg_name = &p->sa[i];
			h->msg_namelen = sizeof(p->sa[i]);
			h->msg_iov = &p->iov[i];
			h->msg_iovlen = 1;
			if (planned && planned[i].pn) {
				h->msg_iov = planned[i].piov;
				h->msg_iovlen = planned[i].npiov;
			}
			h->msg_control = p->cbuf[i].buf;
			h->msg_controllen = sizeof(p->cbuf[i].buf);
			h->msg_flags = 0;
		}
		r = recvmmsg(fd, p->mm, cnt, MSG_DONTWAIT, NULL);
		if (r >= 0)
			return r;
		err = errno;
		if (err == EAGAIN || err == EWOULDBLOCK)
			return 0;
		if (err == EINTR)
			continue;
		/* An ICMP error nobody asked for: reading it cleared it, so
		 * go on. */
		if ((err == ECONNREFUSED || udp_unreachable(err)) &&
		    ++skips <= UDP_ICMP_SKIPS)
			continue;
		snprintf(p->err, sizeof(p->err), "recvmmsg: %s",
			 strerror(err));
		return UET_ERR_IO;
	}
}

/* ---- Direct placement (uet_udp_place) ---- */

/* Payload bytes of the plan's packet k. */
static size_t udp_place_len(const struct uet_net_place *pl, unsigned k)
{
	return k + 1 == pl->n ? pl->last : pl->seg;
}

/* The pieces of slot s for the plan's packets from k on, as many as a
 * datagram held last time (place_per), fit one and the caller takes:
 * each one's header to the port's scratch, its payload where the plan
 * says; then the rest of the slot's data, where bytes past the plan lie
 * as a plain read puts them. *iov advances; returns the next packet. */
static unsigned udp_place_slot(struct udp_port *p, struct udp_gro_slot *s,
			       struct iovec **iov, unsigned k, unsigned want)
{
	const struct uet_net_place *pl = &p->place;
	unsigned per = p->place_per ? p->place_per : pl->n;
	size_t size = 0;
	struct iovec *v = *iov;

	s->pbase = k;
	s->piov = v;
	while (k < pl->n && k < want && k - s->pbase < per) {
		size_t len = udp_place_len(pl, k);

		if (size + pl->hdr_len + len > UDP_GRO_CAP)
			break;
		v->iov_base = p->place_hdr + k * UDP_PLACE_HDR;
		(v++)->iov_len = pl->hdr_len;
		v->iov_base = pl->dst + k * pl->seg;
		(v++)->iov_len = len;
		size += pl->hdr_len + len;
		k++;
	}
	s->pn = k - s->pbase;
	v->iov_base = s->data + size;
	(v++)->iov_len = UDP_GRO_CAP - size;
	s->npiov = (unsigned)(v - s->piov);
	*iov = v;
	return k;
}

/* How many of its planned packets the datagram in s holds just as
 * planned (from the plan's peer, each packet the planned size), or 0;
 * *pkts: the packets it holds. */
static unsigned udp_place_fit(const struct udp_port *p,
			      const struct udp_gro_slot *s, size_t *pkts)
{
	const struct uet_net_place *pl = &p->place;
	size_t full = pl->hdr_len + pl->seg, k;

	*pkts = s->len ? (s->len + s->seg - 1) / s->seg : 0;
	if (!s->pn || !*pkts || !uet_addr_same_fa(&s->info.src, &pl->src) ||
	    (*pkts > 1 && s->seg != full))
		return 0;
	for (k = 0; k < *pkts && k < s->pn; k++) {
		size_t got = k + 1 < *pkts ? s->seg : s->len - k * s->seg;

		if (got != pl->hdr_len + udp_place_len(pl, s->pbase +
							     (unsigned)k))
			return 0;
	}
	return (unsigned)k;
}

/* Put the bytes the pieces of s got from its planned packet `from` on
 * back where a plain read puts them, in s->data. */
static void udp_place_undo(const struct udp_port *p, struct udp_gro_slot *s,
			   unsigned from)
{
	const struct uet_net_place *pl = &p->place;
	size_t pos = (size_t)from * (pl->hdr_len + pl->seg);
	unsigned i;

	for (i = 2 * from; i + 1 < s->npiov && pos < s->len; i++) {
		size_t n = s->piov[i].iov_len;

		if (n > s->len - pos)
			n = s->len - pos;
		memcpy(s->data + pos, s->piov[i].iov_base, n);
		pos += n;
	}
}

/* The r datagrams just read into the planned slots: each keeps what fits
 * its part of the plan while they all came as planned; from the first
 * that did not on, each is put back together (the next ones' parts of
 * the plan assumed it held all of its own). */
static void udp_place_settle(struct udp_port *p, int r)
{
	bool aligned = true;
	size_t pkts;
	int i;

	for (i = 0; i < r; i++) {
		struct udp_gro_slot *s = &p->gro_slot[i];

		if (!s->pn)
			break;
		s->placed = aligned ? udp_place_fit(p, s, &pkts) : 0;
		if (!i && s->placed)
			p->place_per = (unsigned)pkts;
		if (s->placed) {
			aligned = s->placed == s->pn && pkts == s->pn;
			continue;
		}
		aligned = false;
		udp_place_undo(p, s, 0);
		p->st.unplaced++;
	}
}

/* Hand out packet s->next of the plan, len bytes: its header copied into
 * the caller's buf, its payload where the plan put it. */
static void udp_place_out(struct udp_port *p, struct udp_gro_slot *s,
			  struct uet_net_msg *m, size_t len)
{
	const struct uet_net_place *pl = &p->place;
	unsigned k = s->pbase + s->next++;

	memcpy(m->buf, p->place_hdr + k * UDP_PLACE_HDR, pl->hdr_len);
	m->info = s->info;
	m->len = pl->hdr_len;
	m->ext = pl->dst + k * pl->seg;
	m->ext_len = len - pl->hdr_len;
	m->placed = k + 1;
	p->st.placed++;
}

/* Hand out the next packet of s, len bytes, from where the kernel put
 * it: lent, or copied into the caller's buf. */
static void udp_gro_out(struct udp_port *p, struct udp_gro_slot *s,
			struct uet_net_msg *m, size_t len)
{
	m->info = s->info;
	m->len = len < m->cap ? len : m->cap;
	if (len > m->cap)
		p->st.truncated++;
	if (p->lend) {
		m->ext = s->data + s->off;
		m->ext_len = m->len;
		m->len = 0;
		p->lent = true;
	} else {
		memcpy(m->buf, s->data + s->off, m->len);
		m->ext = NULL;
		m->ext_len = 0;
	}
}

/* Hand out up to n packets of the coalesced datagrams read earlier. */
static unsigned udp_gro_drain(struct udp_port *p, struct uet_net_msg *msgs,
			      unsigned n)
{
	unsigned got = 0;

	while (got < n && p->gro_count) {
		struct udp_gro_slot *s = &p->gro_slot[p->gro_head];
		struct uet_net_msg *m = &msgs[got++];
		size_t len = s->len - s->off;

		if (len > s->seg)
			len = s->seg;
		m->placed = 0;
		if (s->next < s->placed && m->cap < len) {
			/* no room to put it back together later */
			udp_place_undo(p, s, s->next);
			s->placed = s->next;
		}
		if (s->next < s->placed)
			udp_place_out(p, s, m, len);
		else
			udp_gro_out(p, s, m, len);
		s->off += len;
		p->st.received++;
		if (s->spray)
			p->st.spray_received++;
		if (s->off >= s->len) {
			p->gro_head = (p->gro_head + 1) % UDP_GRO_SLOTS;
			p->gro_count--;
		}
	}
	return got;
}

/* Read coalesced datagrams of socket sock into the free slots (all of
 * them: called when every slot is drained), by the plan if there is one
 * for this socket, each slot its part of it, up to want packets (those
 * the caller takes now). Returns the count. */
static int udp_gro_read(struct udp_port *p, unsigned sock, unsigned want,
			uet_time now)
{
	uint8_t *bufs[UDP_GRO_SLOTS];
	size_t caps[UDP_GRO_SLOTS];
	unsigned cnt = p->batch < UDP_GRO_SLOTS ? p->batch : UDP_GRO_SLOTS;
	bool plan = p->place_set && !sock;
	struct iovec *iov = p->place_iov;
	struct uet_net_msg m;
	unsigned k = 0;
	int r;

	/* Packets handed out in this call may still lie in the slots. */
	if (p->lent)
		return 0;
	p->place_set = false;
	for (unsigned i = 0; i < cnt; i++) {
		struct udp_gro_slot *s = &p->gro_slot[i];

		bufs[i] = s->data;
		caps[i] = UDP_GRO_CAP;
		s->pn = s->placed = s->next = 0;
		if (plan && k < p->place.n && k < want)
			k = udp_place_slot(p, s, &iov, k, want);
	}
	r = udp_recvmmsg(p, sock, cnt, bufs, caps, plan ? p->gro_slot : NULL);
	for (int i = 0; i < r; i++) {
		struct udp_gro_slot *s = &p->gro_slot[i];
		size_t seg = udp_rx_fill(p, (unsigned)i, sock, &m, now);

		s->info = m.info;
		s->len = m.len;
		s->off = 0;
		s->seg = seg && seg < m.len ? seg : m.len;
		s->spray = sock != 0;
		if (s->seg < s->len)
			p->st.gro_trains++;
		p->st.gro_pkts[uet_udp_train_bucket(s->seg ?
			(unsigned)((s->len + s->seg - 1) / s->seg) : 1)]++;
		if (!s->len) {	/* a zero-length datagram is a packet too */
			s->len = 1;
			s->seg = 1;
		}
	}
	if (plan)
		udp_place_settle(p, r);
	p->gro_head = 0;
	p->gro_count = r > 0 ? (unsigned)r : 0;
	return r;
}

/* Up to n packets from one socket into msgs; returns the count, or
 * UET_ERR_IO when the socket failed before giving any. */
static int udp_recv_sock(struct udp_port *p, unsigned sock,
			 struct uet_net_msg *msgs, unsigned n, uet_time now)
{
	uint8_t *bufs[UET_UDP_BATCH_MAX];
	size_t caps[UET_UDP_BATCH_MAX];
	unsigned got = 0, i, cnt;
	int r;

	while (got < n) {
		if (p->gro) {
			r = udp_gro_read(p, sock, n - got, now);
			cnt = UDP_GRO_SLOTS;
			if (r > 0)
				got += udp_gro_drain(p, msgs + got, n - got);
		} else {
			cnt = n - got < p->batch ? n - got : p->batch;
			for (i = 0; i < cnt; i++) {
				bufs[i] = msgs[got + i].buf;
				caps[i] = msgs[got + i].cap;
			}
			r = udp_recvmmsg(p, sock, cnt, bufs, caps, NULL);
			for (i = 0; r > 0 && i < (unsigned)r; i++)
				udp_rx_fill(p, i, sock, &msgs[got + i], now);
			if (r > 0) {
				got += (unsigned)r;
				p->st.received += (unsigned)r;
				p->st.gro_pkts[0] += (unsigned)r;
				if (sock)
					p->st.spray_received += (unsigned)r;
			}
		}
		if (r < 0)
			return got ? (int)got : r;
		if ((unsigned)r < cnt || p->gro_count)
			break;
	}
	return (int)got;
}

static int udp_recv_some(struct udp_port *p, struct uet_net_msg *msgs,
			 unsigned n, uet_time now)
{
	unsigned got, i;
	int r, ne;

	if (n > INT_MAX)
		n = INT_MAX;
	p->lent = false;	/* the caller is done with what we lent */
	/* Packets of a coalesced datagram read earlier go first. */
	got = udp_gro_drain(p, msgs, n);
	if (got == n)
		return (int)got;
	/* The home socket carries nearly everything: read it first. Spray
	 * sockets get only answers to packets a peer could not place (NACKs
	 * for unknown PDCs), so epoll is asked about them on every
	 * UDP_SPRAY_POLL-th call that found home dry, not on every empty
	 * poll: that syscall cost ~3 us per one-way on a busy-polled
	 * ping-pong. */
	r = udp_recv_sock(p, 0, msgs + got, n - got, now);
	if (r < 0)
		return got ? (int)got : r;
	got += (unsigned)r;
	if (!p->nspray || got == n || p->gro_count)
		return (int)got;
	if (got || p->dry_polls++ % UDP_SPRAY_POLL)
		return (int)got;
	ne = epoll_wait(p->ep_fd, p->ev, (int)p->nspray + 1, 0);
	for (i = 0; ne > 0 && i < (unsigned)ne && got < n; i++) {
		unsigned sock = p->ev[i].data.u32;

		if (!sock || sock > p->nspray)
			continue;
		r = udp_recv_sock(p, sock, msgs + got, n - got, now);
		if (r < 0)
			return got ? (int)got : r;
		got += (unsigned)r;
		if (p->gro_count)
			break;
	}
	return (int)got;
}

static int udp_recv(struct uet_net *net, struct uet_net_msg *msgs, unsigned n,
		    uet_time now)
{
	struct udp_port *p = udp_port(net);
	int r = udp_recv_some(p, msgs, n, now);

	p->place_set = false;	/* a plan is for one call */
	return r;
}

static int udp_fd(const struct uet_net *net)
{
	const struct udp_port *p = udp_port(net);

	return p->nspray ? p->ep_fd : p->home_fd;
}

static void udp_close(struct uet_net *net)
{
	udp_free(udp_port(net));
}

static const struct uet_net_ops udp_ops = {
	.name = "udp",
	.caps = UET_NET_CAP_SG,
	.send = udp_send,
	.recv = udp_recv,
	.fd = udp_fd,
	.close = udp_close,
};
