/* A packet on the simulated wire: the engine's bytes plus what the
 * network needs to move them (hosts, UDP ports, ECN, trimmed).
 *
 * Frames come from a pool of two sizes, small (control packets, trimmed
 * headers) and full (an MTU), grown in slabs and recycled, so the run
 * does no malloc per packet once the pool has reached the largest number
 * of packets in flight.
 */
#ifndef UET_SIM_FRAME_H
#define UET_SIM_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evq.h"

#define UET_FRAME_SMALL	128u	/* bytes of a small frame */

struct uet_frame {
	struct uet_frame *next;	/* in a queue or a free list */
	uint32_t len;		/* UET bytes (trim_len once trimmed) */
	uint32_t cap;
	uint32_t src, dst;	/* host indices */
	uint16_t sport;		/* UDP source port: carries the entropy */
	uint16_t dport;
	uint8_t ecn;		/* UET_ECN_* */
	uint8_t hops;
	bool trimmed;
	bool hi;		/* control or trimmed: the priority queue */
	uint8_t data[];
};

struct uet_frame_pool {
	struct uet_frame *free_small, *free_big;
	uint32_t big_cap;	/* an MTU */
	void *slabs;		/* list of slabs (first word: next) */
	uint64_t small, big;	/* frames made */
	uint64_t live, live_peak;
};

void uet_frame_pool_init(struct uet_frame_pool *p, uint32_t mtu);
void uet_frame_pool_fini(struct uet_frame_pool *p);
/* A frame with room for len bytes (len <= the pool's MTU), zeroed but for
 * its data. */
struct uet_frame *uet_frame_alloc(struct uet_frame_pool *p, uint32_t len);
void uet_frame_free(struct uet_frame_pool *p, struct uet_frame *f);
/* Bytes the pool holds. */
size_t uet_frame_pool_bytes(const struct uet_frame_pool *p);

#endif
