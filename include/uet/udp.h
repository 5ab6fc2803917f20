/* The UDP port: one endpoint's sockets on one local IP address (IPv4 or
 * IPv6), behind the uet_net ops (uet/net.h). Raw IP (protocol 253) is a
 * separate port.
 *
 * Home port: the port in the endpoint's address, where peers send. The
 * IANA UET port 4793 when preferred and free, else the configured one,
 * else one the kernel picks (uet_udp_config.port, prefer_iana).
 *
 * Entropy in the source port (docs/choices.md §1.3):
 * ECMP switches hash the UDP source port, so a packet leaves from a source
 * port chosen by its entropy value and the packets of one PDC spread over
 * paths. Besides the home socket the port owns 2^k spray sockets bound to
 * ports the kernel picks (anywhere, not aligned, not consecutive); a
 * packet with entropy e leaves from spray socket e % 2^k, one sent with
 * info.home from the home port. With k == 0 every packet leaves from the
 * home port.
 *
 * So a receiver cannot map a source port back to the sender's home port:
 * the engine sends the packets that introduce it from the home port (the
 * SYN phase of a PDC, connectionless requests), learns the peer's home
 * address from those, and matches every later packet to its PDC by the
 * PDC id, checking the IP address only. k is a local choice; peers need
 * not agree on it.
 *
 * Every socket receives: peers send to the home port, but an answer to a
 * packet nobody could attribute (a NACK for an unknown PDC) goes back to
 * the address it came from, a spray port. fd() is then an epoll set of
 * all of them.
 *
 * On receive, info.src is the sender's address as seen (raw source port),
 * info.entropy that same source port, info.ecn the ECN bits of the IP
 * header, info.dst the local address that received it (home or spray
 * port), info.home whether that was the home port, info.ts the `now`
 * given to recv().
 *
 * Planes (UE 1.0 §3.6.16.6, one plane per port, same FA on all ports): with
 * nplanes > 0 the port keeps its one address but each packet leaves by
 * the interface of plane uet_udp_plane(entropy), forced with IP_PKTINFO /
 * IPV6_PKTINFO. One EV, one plane: path feedback per EV stays unambiguous
 * and the EV policies steer off a dead or congested plane unchanged. A
 * GSO train never mixes planes. Spray socket i gets a port that is i
 * modulo nplanes: a peer with the same planes echoes that port as the
 * entropy of its ACK, which so takes the request's plane back. Packets
 * from the home port (SYN phase) are answered on the plane of the home
 * port modulo nplanes, unless one came in since: an answer leaves by the
 * plane the latest packet from its destination and port came in by.
 * A plane without link (its interface down or without carrier, read
 * every 32 send() calls, or a send failing ENETUNREACH/ENETDOWN: no route
 * through it) hands its packets to the next plane, as a NIC keeps off a
 * port without link (UE 1.0 §3.6.16.6: the CCC picks among ports with
 * capacity). A plane that fails beyond its link is the EV policies' work.
 *
 * ICMP errors (port unreachable and the like) are not reported: sockets
 * are unconnected and do not ask for IP_RECVERR, so a send to a closed
 * port looks like a lost packet.
 *
 * Threading: none. A port belongs to one thread at a time.
 */
#ifndef UET_UDP_H
#define UET_UDP_H

#include <stdbool.h>
#include <stdint.h>

#include "uet/addr.h"
#include "uet/err.h"
#include "uet/net.h"

#define UET_UDP_IANA_PORT	4793	/* docs/protocol.md §1.2 */
#define UET_UDP_ENTROPY_BITS_DEFAULT 3
#define UET_UDP_ENTROPY_BITS_MAX 8	/* 256 spray sockets */
#define UET_UDP_BUF_DEFAULT	(4u << 20)
#define UET_UDP_BATCH_DEFAULT	128
#define UET_UDP_BATCH_MAX	1024	/* the kernel's UIO_MAXIOV */
#define UET_UDP_PLANES_MAX	8

/* Fill with uet_udp_config_default() and change what differs. */
struct uet_udp_config {
	/* Home port. Non-zero: exactly this one. Zero: UET_UDP_IANA_PORT
	 * if prefer_iana and it is free, else one the kernel picks. */
	uint16_t port;
	bool prefer_iana;
	unsigned entropy_bits;		/* k: 2^k spray sockets; 0 = none,
					 * everything leaves from home */
	/* IP TOS byte / IPv6 traffic class = dscp << 2 | ecn. info.ecn is
	 * sent as given, except UET_ECN_NOT_ECT which sends `ecn` (so
	 * UET_ECN_NOT_ECT here sends every codepoint as given). */
	uint8_t ecn;			/* default UET_ECN_ECT0 */
	uint8_t dscp;			/* default 0 (CS0) */
	unsigned rcvbuf;		/* SO_RCVBUF of the home socket (spray
					 * sockets keep the kernel default);
					 * 0 = kernel default */
	unsigned sndbuf;		/* SO_SNDBUF of each; ditto */
	unsigned batch;			/* packets per mmsg syscall */
	/* Offload (default on): consecutive packets of one socket, one
	 * destination, one TOS and one size (the last may be shorter) leave
	 * as one UDP_SEGMENT message, which the kernel cuts into the same
	 * datagrams on the wire; sockets accept coalesced datagrams
	 * (UDP_GRO) and recv() hands their packets out one by one. */
	bool gso;
	/* recv() may leave a packet of a coalesced datagram where the kernel
	 * put it instead of copying it into the caller's buf: len 0 and the
	 * packet at ext[0 .. ext_len), valid until the next recv() (which
	 * then reads no new datagram into memory it lent in the same call).
	 * For a caller done with each batch before it asks for the next. */
	bool rx_lend;
	/* Planes: nplanes interface indexes (if_nametoindex); 0 = none,
	 * the kernel's route picks the interface. */
	unsigned nplanes;
	unsigned plane_ifindex[UET_UDP_PLANES_MAX];
};

/* Packets per send call's message and per datagram read, by powers of
 * two: bucket b counts those of 2^b to 2^(b+1) - 1 packets (b = 0: one),
 * the last of 64 and more. A GSO train cut short (a short packet, another
 * socket or TOS, the window) shows as counts in the low buckets. */
#define UET_UDP_TRAIN_BUCKETS	7

static inline unsigned uet_udp_train_bucket(unsigned pkts)
{
	unsigned b = 0;

	while (pkts > 1 && b + 1 < UET_UDP_TRAIN_BUCKETS) {
		pkts >>= 1;
		b++;
	}
	return b;
}

/* Counters of one port. */
struct uet_udp_stats {
	uint64_t sent;			/* taken by the kernel */
	uint64_t received;		/* handed out by recv() */
	uint64_t truncated;		/* longer than the caller's cap */
	uint64_t rx_dropped;		/* dropped by the kernel at the home
					 * socket (full buffer), as last
					 * reported with a received packet */
	uint64_t unreachable;		/* taken but refused by routing
					 * (EHOSTUNREACH, ENETUNREACH, ...) */
	uint64_t would_block;		/* send stopped: EAGAIN/ENOBUFS */
	uint64_t spray_received;	/* of received: at a spray socket */
	uint64_t gso_trains;		/* sends of more than one packet */
	uint64_t gro_trains;		/* receives of more than one packet */
	uint64_t gso_pkts[UET_UDP_TRAIN_BUCKETS];	/* messages sent, by
							 * packets in each */
	uint64_t gro_pkts[UET_UDP_TRAIN_BUCKETS];	/* datagrams read, by
							 * packets in each */
	uint64_t placed;		/* packets whose payload the kernel
					 * put where a plan said
					 * (uet_udp_place) */
	uint64_t unplaced;		/* planned datagrams that did not fit
					 * the plan: copied back together */
	unsigned gso_off;		/* errno that turned GSO off, or 0 */
	uint64_t plane_down;		/* times a plane was found without
					 * link: its packets went to the next
					 * plane until it was back */
};

/* Defaults: port 0, prefer_iana, k = UET_UDP_ENTROPY_BITS_DEFAULT,
 * ECT(0), DSCP 0, UET_UDP_BUF_DEFAULT buffers, UET_UDP_BATCH_DEFAULT. */
void uet_udp_config_default(struct uet_udp_config *cfg);

/* Open a port on `ip` (af and address; ip->port must be 0: the port comes
 * from cfg). cfg NULL means defaults. Close with (*portp)->ops->close().
 * Returns 0, UET_ERR_INVAL (no family, an unspecified, multicast,
 * broadcast, v4-mapped or non-local address, a bad config, the requested
 * port is taken), UET_ERR_NOMEM or UET_ERR_IO; uet_udp_errstr(NULL) then
 * says why.
 *
 * send(): info.dst is the destination (same family, port non-zero),
 * info.home or else info.entropy picks the source port, info.ecn the ECN
 * bits; info.src and info.ts are ignored. A packet without bytes, longer than a UDP
 * datagram or with a bad destination is refused: send() returns the
 * count taken before it, or UET_ERR_INVAL if first; so is one too big
 * for the path MTU (the DF bit is set). A full socket buffer ends the
 * batch early (possibly 0). Other failures are UET_ERR_IO.
 * recv(): never blocks; a packet longer than cap is truncated to cap.
 * The home socket is read first; the spray sockets whenever it had fewer
 * packets than asked for.
 * fd(): readable when recv() has packets (the home socket with k == 0,
 * an epoll set of every socket otherwise). */
int uet_udp_open(struct uet_net **portp, const struct uet_addr *ip,
		 const struct uet_udp_config *cfg);

/* The plane (0..nplanes-1) a packet of this entropy value leaves by:
 * EV mod nplanes, so every EV has exactly one plane; 0 when nplanes is
 * 0 or 1. */
unsigned uet_udp_plane(uint16_t entropy, unsigned nplanes);

/* The last error of this port, or with NULL the last failed open of this
 * thread; "" when none. */
const char *uet_udp_errstr(const struct uet_net *net);

/* Fill st; zeroes for a port that is not UDP. */
void uet_udp_stats(const struct uet_net *net, struct uet_udp_stats *st);

/* Direct placement (uet/net.h, struct uet_net_place): the next recv()
 * reads the datagrams of the home socket into pl's places, if the port
 * takes coalesced datagrams and lends (gro, rx_lend) and nothing of an
 * earlier datagram is left to hand out; pl is not kept beyond that call.
 * Each datagram of the read gets its part of the plan, as many packets
 * as the last planned datagram held, never more than the caller takes in
 * that call. The packets of a datagram from pl->src that are the
 * planned size and number come out with `placed` set (headers copied
 * into the caller's buf), the rest as usual; a datagram that is not as
 * planned, and every one after it, is copied back together and handed
 * out as usual. NULL: no plan. */
void uet_udp_place(struct uet_net *net, const struct uet_net_place *pl);

/* The UDP source port send() gives a packet with this info (home or
 * entropy), e.g. for a capture of what was sent; 0 for a port that is not
 * UDP. */
uint16_t uet_udp_tx_port(const struct uet_net *net,
			 const struct uet_pkt_info *info);

#endif
