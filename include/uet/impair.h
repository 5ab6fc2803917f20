/* What a misbehaving network does to one packet: drop it, duplicate it,
 * hold it back (reorder), ECN-mark it or trim it. Each action comes at
 * random, a rate in parts per million drawn from the caller's seeded
 * uet/rand.h stream, or exactly, from a loss mask: packet seq gets the
 * action if bit (seq % 64) is set (the mask rotated per packet, as in
 * picoquic's simulated links).
 *
 * One decision for every impaired port: the mem port (uet/mem.h) and the
 * provider's FI_UET_IMPAIR on a real port. How a held-back packet is
 * delayed is the port's: a later delivery time on a mem link, a hold
 * queue on a real port.
 */
#ifndef UET_IMPAIR_H
#define UET_IMPAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "uet/net.h"

/* Actions on one packet; the bits of a pick() result. */
#define UET_IMPAIR_DROP		0x01u
#define UET_IMPAIR_DUP		0x02u	/* deliver a second identical copy */
#define UET_IMPAIR_REORDER	0x04u	/* hold back behind later packets */
#define UET_IMPAIR_MARK		0x08u	/* set ECN CE, if sent ECT(0)/ECT(1) */
#define UET_IMPAIR_TRIM		0x10u	/* keep the first bytes, set trimmed */

#define UET_IMPAIR_PPM		1000000u	/* a rate of 1 */
#define UET_IMPAIR_TRIM_LEN_DEFAULT 64u	/* what htsim trims to */

/* The odds of each action; all zero impairs nothing. A packet gets the
 * union of what its rates and masks select. */
struct uet_impair {
	uint32_t drop_ppm;
	uint32_t dup_ppm;
	uint32_t reorder_ppm;
	uint32_t mark_ppm;
	uint32_t trim_ppm;
	uint64_t drop_mask;
	uint64_t dup_mask;
	uint64_t reorder_mask;
	uint64_t mark_mask;
	uint64_t trim_mask;
};

/* Every rate at most UET_IMPAIR_PPM. */
bool uet_impair_valid(const struct uet_impair *imp);

/* The actions (UET_IMPAIR_* bits) for packet seq, drawing from *rng in
 * the order drop, dup, reorder, mark, trim, one draw per rate that is
 * set and none for a mask: enabling one impairment does not shift the
 * stream of a configuration that lacks it, and a mask choosing a packet
 * does not shift the stream seen by the packets after it. */
unsigned uet_impair_pick(const struct uet_impair *imp, uint64_t *rng,
			 uint64_t seq);

/* The mark action: CE on an ECN-capable packet (RFC 3168), false (and
 * nothing changed) on any other. */
bool uet_impair_mark(struct uet_pkt_info *info);

/* The trim action: keep `keep` bytes (0: UET_IMPAIR_TRIM_LEN_DEFAULT) and
 * set info->trimmed; false (and nothing changed) on a packet already
 * that short, which has nothing a switch would cut. */
bool uet_impair_trim(struct uet_pkt_info *info, uint32_t *len, uint32_t keep);

#endif
