/* Ports: how packets leave and enter a FEP. Only the driver loop (the
 * provider's progress function, or a test's) calls these; the protocol
 * engine never does (docs/architecture.md §1). Implementations: mem (in-process,
 * with impairments, for tests), udp and rawip (sockets).
 */
#ifndef UET_NET_H
#define UET_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "uet/addr.h"
#include "uet/err.h"
#include "uet/time.h"

/* IP ECN codepoints (RFC 3168). */
#define UET_ECN_NOT_ECT	0
#define UET_ECN_ECT1	1
#define UET_ECN_ECT0	2
#define UET_ECN_CE	3

/* What the socket knows about a packet and the protocol needs.
 *
 * A port owns a home address (the one in the endpoint's name, where peers
 * send) and sends a packet either from it or, to spray the packets of a
 * PDC over network paths, from a source port picked by the entropy value
 * (uet/udp.h). A receiver therefore cannot tell a sender's home address
 * from a sprayed packet: the engine learns it from packets sent with
 * `home` (a PDC's SYN phase, connectionless requests) and finds the PDC
 * of every other packet by its PDC id, checking only the IP address. */
struct uet_pkt_info {
	struct uet_addr src;		/* rx: the sender's address as seen (IP
					 * and raw source port); tx: ignored */
	struct uet_addr dst;		/* tx: where to; rx: the local address
					 * it reached (home or a spray port) */
	uint16_t entropy;		/* rx: the raw source port (UDP); tx: the
					 * value that picks the source port */
	uint8_t ecn;			/* UET_ECN_* */
	uint8_t dscp;			/* rx: the DSCP it arrived with (tx:
					 * the port's, not per packet) */
	bool trimmed;			/* the network cut the payload */
	bool home;			/* tx: leave from the home address, not by
					 * entropy; rx: arrived at the home address */
	uet_time ts;			/* rx: receive time; tx: send time */
};

/* One packet in a batch. On send the packet is buf[0 .. len) followed by
 * ext[0 .. ext_len): its payload left where the user has it
 * (uet_fep_poll_tx_sg), for a port with UET_NET_CAP_SG; ext_len is 0
 * otherwise. On recv, buf/cap are the caller's and len is set, ext_len 0;
 * or, from a port the caller let lend (uet_udp_config.rx_lend), len is 0
 * and the packet is the port's ext[0 .. ext_len) until its next recv:
 * uet_net_msg_rx says where. */
struct uet_net_msg {
	struct uet_pkt_info info;
	uint8_t *buf;
	size_t len;
	size_t cap;
	const void *ext;
	size_t ext_len;
	unsigned placed;		/* rx: k + 1 for the k-th packet of a
					 * plan (struct uet_net_place): its
					 * header in buf[0 .. len), its
					 * payload already at ext; 0: not */
};

/* The whole packet's length. */
static inline size_t uet_net_msg_len(const struct uet_net_msg *m)
{
	return m->len + m->ext_len;
}

/* Direct placement (docs/choices.md §2.9): where a port may put the
 * payloads of the next datagram from one peer, should it go on with a
 * message the engine is receiving (uet_fep_place). Packet k of it: its
 * hdr_len bytes of headers to the port's own memory, its payload to
 * dst + k * seg, seg bytes each but the n-th's, last bytes. The caller
 * checks every packet so placed (uet_fep_place_check) before it uses
 * any: a plan is a guess, and a datagram it did not fit must be copied
 * out of the places it was put (uet_net_msg_flatten) first. */
#define UET_NET_PLACE_MAX	64	/* packets in one plan */

struct uet_net_place {
	struct uet_addr src;		/* the peer: its IP address (any port) */
	size_t hdr_len;
	size_t seg;
	size_t last;			/* 1 .. seg */
	unsigned n;			/* 1 .. UET_NET_PLACE_MAX */
	uint8_t *dst;
};

/* Where a received packet's bytes are (uet_net_msg_len of them); not for
 * a placed one, whose header and payload lie apart. */
static inline const uint8_t *uet_net_msg_rx(const struct uet_net_msg *m)
{
	return m->ext_len ? (const uint8_t *)m->ext : m->buf;
}

/* Copy the external part into buf (cap holds the whole packet): for a
 * port without UET_NET_CAP_SG, for a packet that outlives the call that
 * made it, whose ext may be reused by its owner, and for a placed packet
 * that is not what its plan said. */
static inline void uet_net_msg_flatten(struct uet_net_msg *m)
{
	if (!m->ext_len)
		return;
	memcpy(m->buf + m->len, m->ext, m->ext_len);
	m->len += m->ext_len;
	m->ext = NULL;
	m->ext_len = 0;
	m->placed = 0;
}

/* The port sends a packet's ext part itself (scatter-gather). */
#define UET_NET_CAP_SG	1u

struct uet_net;

struct uet_net_ops {
	const char *name;
	unsigned caps;			/* UET_NET_CAP_* */
	/* Send up to n packets; returns how many were taken (possibly 0 when
	 * the port would block) or a negative UET_ERR_*. */
	int (*send)(struct uet_net *net, const struct uet_net_msg *msgs, unsigned n);
	/* Receive up to n ready packets without blocking; returns the count. */
	int (*recv)(struct uet_net *net, struct uet_net_msg *msgs, unsigned n, uet_time now);
	/* A descriptor to poll for readability, or -1 (mem port). */
	int (*fd)(const struct uet_net *net);
	void (*close)(struct uet_net *net);
};

struct uet_net {
	const struct uet_net_ops *ops;
	struct uet_addr local;		/* the endpoint's home address */
};

#endif
