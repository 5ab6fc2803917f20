/* The mem port: an in-process network for tests. Two or more FEPs talk
 * through it under the test's fake clock, over links that delay, drop,
 * duplicate, reorder, ECN-mark and trim packets, either at random (seeded,
 * reproducible) or exactly the packets a test names.
 *
 * Model: every port has one ingress link, the path from the fabric into it.
 * A packet sent at info.ts (the sender's clock) to port P goes through P's
 * link: an optional bottleneck (rate, queue limit, ECN threshold), then the
 * one-way delay plus jitter. It is ready at its delivery time and
 * recv(P, ..., now) hands it out once now >= that time. A link is a FIFO:
 * jitter never makes packets overtake each other; only the reorder action
 * does (and high-priority trimmed packets, see trim_when_full).
 *
 * Addresses: a port has its home address (the one it was opened at) and,
 * like the UDP port (uet/udp.h), 2^k spray ports on its IP with numbers
 * the net hands out from UET_MEM_SPRAY_PORT_MIN up: a packet sent with
 * info.home (or with k == 0) leaves from the home address, any other from
 * spray port entropy % 2^k. The receiver sees that source address in
 * info.src and its port in info.entropy, never the sender's home address
 * unless the packet left from it. Packets sent to a spray address reach
 * the port too (info.dst says which address, info.home whether home).
 *
 * Memory: packets in flight live in a pool fixed at creation (no malloc per
 * packet). When it is full a packet is dropped and counted as overflow, as
 * a switch out of buffer would do.
 *
 * Threading: none. One net and its ports belong to one thread at a time.
 */
#ifndef UET_MEM_H
#define UET_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "uet/addr.h"
#include "uet/err.h"
#include "uet/impair.h"
#include "uet/net.h"
#include "uet/time.h"

/* Actions on one packet; the bits of a pick() result (uet/impair.h). */
#define UET_MEM_DROP	UET_IMPAIR_DROP
#define UET_MEM_DUP	UET_IMPAIR_DUP
#define UET_MEM_REORDER	UET_IMPAIR_REORDER	/* hold back by reorder_delay */
#define UET_MEM_MARK	UET_IMPAIR_MARK
#define UET_MEM_TRIM	UET_IMPAIR_TRIM		/* keep trim_len bytes */

#define UET_MEM_PPM	UET_IMPAIR_PPM

/* Defaults used when the config or impairment field is 0. */
#define UET_MEM_POOL_DEFAULT	1024u
#define UET_MEM_MTU_DEFAULT	9216u
#define UET_MEM_TRIM_LEN_DEFAULT UET_IMPAIR_TRIM_LEN_DEFAULT
#define UET_MEM_REORDER_DELAY_DEFAULT (10 * UET_USEC)
#define UET_MEM_POOL_MAX	(1u << 20)
#define UET_MEM_MTU_MAX		65535u	/* largest UDP payload */
#define UET_MEM_SPRAY_BITS_MAX	8u
#define UET_MEM_SPRAY_PORT_MIN	32768u	/* spray ports: from here up */

/* Decide actions for one packet. seq counts the packets sent to the same
 * port since its impairment was last set, from 0; m is the packet as the
 * receiver would see it (info.src is the address it left from). Returns UET_MEM_*
 * bits. It must not call back into the net. */
typedef unsigned (*uet_mem_pick_fn)(void *arg, uint64_t seq,
				    const struct uet_net_msg *m);

/* How a link treats packets. All zero is a perfect zero-delay link.
 * Random rates, masks and pick() combine: a packet gets the union of
 * the actions they select. Drop wins over everything else; a trim
 * happens before the bottleneck (less to serialise); a duplicate arrives
 * right after its original.
 * One seeded stream per net serves every link, and each packet takes
 * the same draws whatever the masks and pick() chose: the outcome is a
 * function of the seed, the impairments and the order of the sends. */
struct uet_mem_impair {
	uet_time delay;			/* one-way, after serialisation */
	uet_time jitter;		/* plus uniform [0, jitter] */

	/* Bottleneck in front of the port; rate 0 means no serialisation
	 * and no queue. The backlog is how long a packet waits for the link. */
	uint64_t rate;			/* UET bytes per second (no framing) */
	uet_time queue_max;		/* backlog above: tail drop; 0 = none */
	bool trim_when_full;		/* over queue_max trim instead, and skip
					 * the queue (UET switch, UE 1.0 §3.6.17) */
	uet_time ecn_backlog;		/* backlog above: CE-mark; 0 = off */

	/* Random actions, in parts per million of packets (the fields of
	 * struct uet_impair, which decides). */
	uint32_t drop_ppm;
	uint32_t dup_ppm;
	uint32_t reorder_ppm;
	uint32_t mark_ppm;
	uint32_t trim_ppm;

	/* Exact actions: packet seq gets the action if bit (seq % 64) is set
	 * (the mask is rotated per packet and repeats every 64 packets). */
	uint64_t drop_mask;
	uint64_t dup_mask;
	uint64_t reorder_mask;
	uint64_t mark_mask;
	uint64_t trim_mask;

	uet_mem_pick_fn pick;		/* NULL: none */
	void *pick_arg;

	uet_time reorder_delay;		/* extra delay; 0 = default */
	uint32_t trim_len;		/* bytes kept; 0 = default */
};

struct uet_mem_config {
	unsigned pool;			/* max packets in flight; 0 = default */
	unsigned mtu;			/* largest packet taken; 0 = default */
	uint64_t seed;			/* of the PRNG of the random actions */
	unsigned spray_bits;		/* k: 2^k spray ports per port; 0 =
					 * every packet from the home address */
	struct uet_mem_impair impair;	/* of every port without its own */
};

/* Counters of the whole net. Every packet taken by send(), and every copy
 * made, ends up in exactly one of: delivered, dropped, overflow,
 * tail_drop, no_port, or still in_flight. */
struct uet_mem_stats {
	uint64_t sent;			/* taken by send() */
	uint64_t delivered;		/* handed out by recv() */
	uint64_t dropped;		/* the drop action */
	uint64_t duplicated;		/* extra copies made (a copy that
					 * finds the pool full is overflow) */
	uint64_t reordered;		/* held back by the reorder action */
	uint64_t ecn_marked;		/* CE set (action or backlog) */
	uint64_t trimmed;		/* cut (action or full queue) */
	uint64_t overflow;		/* pool full */
	uint64_t tail_drop;		/* backlog over queue_max */
	uint64_t no_port;		/* no port at dst, or it closed */
	uint64_t truncated;		/* recv buffer shorter than packet */
	uint64_t in_flight;		/* queued now */
};

struct uet_mem_net;

/* Create a net; cfg NULL means defaults and a perfect link. Returns 0,
 * UET_ERR_INVAL (a ppm above UET_MEM_PPM, pool above UET_MEM_POOL_MAX,
 * mtu above UET_MEM_MTU_MAX, spray_bits above UET_MEM_SPRAY_BITS_MAX) or
 * UET_ERR_NOMEM. */
int uet_mem_net_create(struct uet_mem_net **netp,
		       const struct uet_mem_config *cfg);
/* Free the net and the packets in it; ports still open are closed (their
 * handles become invalid). NULL is allowed. */
void uet_mem_net_destroy(struct uet_mem_net *net);

/* Set the default impairment (ports with their own keep it) and restart
 * the seq of the ports that use the default. Packets in flight keep their
 * fate. Returns 0 or UET_ERR_INVAL. */
int uet_mem_net_set_impair(struct uet_mem_net *net,
			   const struct uet_mem_impair *imp);
void uet_mem_net_stats(const struct uet_mem_net *net,
		       struct uet_mem_stats *st);
/* Earliest delivery time of any queued packet (possibly already past), or
 * UET_TIME_NONE when nothing is queued: a driver advances its clock to it. */
uet_time uet_mem_net_next_delivery(const struct uet_mem_net *net);

/* Attach a port at `local` (af, ip, port; port 0 for raw IP) with the
 * net's spray_bits spray ports. Returns 0, UET_ERR_INVAL (no family, or
 * the address is taken, as a home or spray address) or UET_ERR_NOMEM.
 * Close with (*portp)->ops->close(*portp).
 *
 * send(): the source is the port's home address with info.home, else its
 * spray port entropy % 2^k (msg info.src is ignored); the destination is
 * info.dst, the send time info.ts; ecn travels as given. A packet to an
 * address without a port is taken and counted as no_port. A packet longer
 * than the mtu, or without bytes, is refused: send() returns the count
 * taken before it, or UET_ERR_INVAL if first.
 * recv(): ready packets in delivery order; info.src is the address the
 * packet left from and info.entropy its port, info.ts the delivery time,
 * info.dst the address it was sent to (home or spray), info.home whether
 * that is the home address. A packet longer than cap is truncated to cap
 * bytes (len = cap) and counted as truncated.
 * fd() is -1: a mem port is polled through next_delivery. */
int uet_mem_port_open(struct uet_net **portp, struct uet_mem_net *net,
		      const struct uet_addr *local);
/* Give the link into this port its own impairment (NULL: back to the net
 * default) and restart its seq. Returns 0 or UET_ERR_INVAL (not a mem
 * port, a ppm above UET_MEM_PPM). */
int uet_mem_port_set_impair(struct uet_net *port,
			    const struct uet_mem_impair *imp);
/* Earliest delivery time of a packet queued for this (mem) port, or
 * UET_TIME_NONE. */
uet_time uet_mem_port_next_delivery(const struct uet_net *port);
/* The source address a packet with this info leaves this (mem) port
 * from (see send()). */
struct uet_addr uet_mem_port_tx_addr(const struct uet_net *port,
				     const struct uet_pkt_info *info);

#endif
