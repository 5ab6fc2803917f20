/* The raw IP port: UET directly over IP (docs/protocol.md §1.3), protocol 253
 * by default, behind the uet_net ops (uet/net.h). Every packet carries
 * the 4-byte entropy header after the IP header; the entropy value is
 * what an ECMP switch hashes, so spraying works as over UDP without any
 * extra sockets.
 *
 * One endpoint per IP address: the address is the whole Fabric Address
 * (uet_addr.port is 0), and the socket, bound to it, receives only what
 * is sent to it. Several endpoints on one host need several addresses
 * (loopback aliases such as 127.0.0.2, or network namespaces).
 *
 * Needs CAP_NET_RAW: without it uet_rawip_open fails with UET_ERR_IO and
 * uet_rawip_errstr says so.
 *
 * On receive, info.src is the sender's IP (port 0), info.entropy the
 * entropy header's value, info.ecn the ECN bits, info.dst the local
 * address, info.home always true (there is only one way in), info.ts the
 * `now` given to recv(). The entropy header is not part of the packets
 * handed over or taken: send() adds it from info.entropy, recv() strips
 * it.
 */
#ifndef UET_RAWIP_H
#define UET_RAWIP_H

#include <stdbool.h>
#include <stdint.h>

#include "uet/addr.h"
#include "uet/err.h"
#include "uet/net.h"

#define UET_RAWIP_PROTO_DEFAULT	253	/* RFC 3692 experimental */

struct uet_rawip_config {
	uint8_t proto;			/* IP protocol / IPv6 next header */
	uint8_t ecn;			/* as uet_udp_config: default ECT(0) */
	uint8_t dscp;
	unsigned rcvbuf, sndbuf;	/* 0: kernel default */
	unsigned batch;			/* packets per mmsg syscall */
};

struct uet_rawip_stats {
	uint64_t sent;
	uint64_t received;
	uint64_t truncated;		/* longer than the caller's cap */
	uint64_t malformed;		/* shorter than the entropy header or
					 * with a bad IP header: dropped */
	uint64_t unreachable;
	uint64_t would_block;
};

void uet_rawip_config_default(struct uet_rawip_config *cfg);

/* Open the port on ip (af and address, port 0); cfg NULL: defaults.
 * Returns 0, UET_ERR_INVAL (bad address or config, address not local),
 * UET_ERR_NOMEM or UET_ERR_IO (no CAP_NET_RAW among others);
 * uet_rawip_errstr(NULL) then says why. */
int uet_rawip_open(struct uet_net **portp, const struct uet_addr *ip,
		   const struct uet_rawip_config *cfg);
const char *uet_rawip_errstr(const struct uet_net *net);
void uet_rawip_stats(const struct uet_net *net, struct uet_rawip_stats *st);
/* Whether net is a raw IP port; its protocol number (0 if not one). */
bool uet_rawip_is(const struct uet_net *net);
uint8_t uet_rawip_proto(const struct uet_net *net);

#endif
