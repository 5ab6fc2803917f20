/* The UDP port: one endpoint's sockets on one local IP address (IPv4 or
 * IPv6), behind the uet_net ops (uet/net.h). Raw IP (protocol 253) is a
 * separate port.
 *
 * Entropy in the source port (wire-format §1.2, design.md Encapsulation):
 * ECMP switches hash the UDP source port, so each packet leaves from a
 * source port chosen by its entropy value and the packets of one PDC
 * spread over paths. The receiver must still know which endpoint sent a
 * packet, so an endpoint owns an aligned block of 2^k ports:
 *
 *   home port P with P % 2^k == 0; the endpoint binds P .. P + 2^k - 1.
 *   Peers send to P; only P's socket receives (the others drop anything
 *   sent to them and only send).
 *   A packet with entropy e leaves from port P + (e % 2^k).
 *   A receiver maps source port S to the sender's home port
 *   S & ~(2^k - 1) (uet_udp_home_port()).
 *
 * k (entropy_bits) is a fabric-wide parameter: every endpoint of a fabric
 * must use the same k, or home ports are recovered wrong. With k > 0 the
 * block lies in 49152..65535 (source ports below 4793 may be claimed by
 * other Wireshark dissectors); with k == 0 there is one socket and the
 * IANA UET port 4793 is preferred when free.
 *
 * On receive, info.src.port is the sender's home port, info.entropy the
 * raw source port, info.ecn the ECN bits of the IP header, info.dst the
 * port's home address and info.ts the `now` given to recv().
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

#define UET_UDP_IANA_PORT	4793	/* wire-format §1.2 */
#define UET_UDP_BLOCK_MIN	49152	/* lowest port of a k > 0 block */
#define UET_UDP_ENTROPY_BITS_DEFAULT 3
#define UET_UDP_ENTROPY_BITS_MAX 8	/* 256 sockets */
#define UET_UDP_BUF_DEFAULT	(4u << 20)
#define UET_UDP_TRIES_DEFAULT	64
#define UET_UDP_BATCH_DEFAULT	64
#define UET_UDP_BATCH_MAX	1024	/* the kernel's UIO_MAXIOV */

/* Fill with uet_udp_config_default() and change what differs. */
struct uet_udp_config {
	/* Home port. Non-zero: exactly this one (with k > 0 it must be
	 * aligned to 2^k and >= UET_UDP_BLOCK_MIN). Zero with k == 0:
	 * UET_UDP_IANA_PORT if prefer_iana and it is free, else one the
	 * kernel picks. Zero with k > 0: a random aligned block. */
	uint16_t port;
	bool prefer_iana;
	unsigned entropy_bits;		/* k; 0 = one socket, no spray */
	uint64_t seed;			/* of the random block choice;
					 * 0 = from getrandom() */
	unsigned tries;			/* blocks tried, then give up */
	/* IP TOS byte / IPv6 traffic class = dscp << 2 | ecn. info.ecn is
	 * sent as given, except UET_ECN_NOT_ECT which sends `ecn` (so
	 * UET_ECN_NOT_ECT here sends every codepoint as given). */
	uint8_t ecn;			/* default UET_ECN_ECT0 */
	uint8_t dscp;			/* default 0 (CS0) */
	unsigned rcvbuf;		/* SO_RCVBUF of the home socket;
					 * 0 = kernel default */
	unsigned sndbuf;		/* SO_SNDBUF of each; ditto */
	unsigned batch;			/* packets per mmsg syscall */
};

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
	uint64_t bind_tries;		/* blocks tried at open */
};

/* Defaults: port 0, prefer_iana, k = UET_UDP_ENTROPY_BITS_DEFAULT,
 * seed 0, UET_UDP_TRIES_DEFAULT tries, ECT(0), DSCP 0, UET_UDP_BUF_DEFAULT
 * buffers, UET_UDP_BATCH_DEFAULT. */
void uet_udp_config_default(struct uet_udp_config *cfg);

/* Open a port on `ip` (af and address; ip->port must be 0: the port comes
 * from cfg). cfg NULL means defaults. Close with (*portp)->ops->close().
 * Returns 0, UET_ERR_INVAL (no family, an unspecified, multicast,
 * broadcast, v4-mapped or non-local address, a bad config, the requested
 * port or block is taken, or no free block in `tries`), UET_ERR_NOMEM or
 * UET_ERR_IO; uet_udp_errstr(NULL) then says why.
 *
 * send(): info.dst is the destination (same family, port non-zero),
 * info.entropy picks the source port, info.ecn the ECN bits; info.src
 * and info.ts are ignored. A packet without bytes, longer than a UDP
 * datagram or with a bad destination is refused: send() returns the
 * count taken before it, or UET_ERR_INVAL if first; so is one too big
 * for the path MTU (the DF bit is set). A full socket buffer ends the
 * batch early (possibly 0). Other failures are UET_ERR_IO.
 * recv(): never blocks; a packet longer than cap is truncated to cap.
 * fd(): the home socket, readable when recv() has packets. */
int uet_udp_open(struct uet_net **portp, const struct uet_addr *ip,
		 const struct uet_udp_config *cfg);

/* The last error of this port, or with NULL the last failed open of this
 * thread; "" when none. */
const char *uet_udp_errstr(const struct uet_net *net);

/* Fill st; zeroes for a port that is not UDP. */
void uet_udp_stats(const struct uet_net *net, struct uet_udp_stats *st);

/* The block rule, for any endpoint of the fabric. entropy_bits above 16
 * counts as 16. */
uint16_t uet_udp_home_port(uint16_t src_port, unsigned entropy_bits);
uint16_t uet_udp_src_port(uint16_t home_port, uint16_t entropy,
			  unsigned entropy_bits);

#endif
