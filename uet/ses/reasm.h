/* Which bytes of an incoming message have arrived, so a message completes
 * exactly when all request_length bytes are there, whatever the packet
 * order (RUD sprays packets), and a duplicate PDS let through is not
 * counted twice.
 *
 * A sender cuts a message into equal segments and a shorter last one
 * (docs/protocol.md §5.3: message_offset + payload_length). The segment size is
 * learned from the first packet that is not the last. In-order arrival only
 * moves a prefix; the first gap allocates a bitmap of ceil(length /
 * segment) bits (one allocation per message, none per packet). A sender
 * whose packets do not sit on one grid is tracked loosely: bytes counted,
 * duplicates not detected.
 */
#ifndef UET_SES_REASM_H
#define UET_SES_REASM_H

#include <stdbool.h>
#include <stdint.h>

/* Above this many segments the bitmap is not worth it: track loosely. */
#define UET_REASM_BITS_MAX	(1u << 20)

struct uet_reasm {
	uint32_t total;		/* request_length */
	uint32_t seg;		/* sender's segment size, 0 until known */
	uint32_t got;		/* distinct payload bytes received */
	uint32_t prefix;	/* [0, prefix) all received */
	uint32_t last_off;	/* offset of the last packet, if last_seen */
	bool last_seen;
	bool any;		/* at least one packet (zero-length messages) */
	bool loose;		/* off the grid: count bytes only */
	uint64_t *bits;		/* segment i beyond prefix received */
};

void uet_reasm_init(struct uet_reasm *r, uint32_t total);
/* Record payload [off, off + len). Returns 1 when new, 0 for a duplicate,
 * UET_ERR_INVAL when it does not fit the message, UET_ERR_NOMEM when the
 * bitmap cannot be allocated (nothing recorded: the packet may come again). */
int uet_reasm_add(struct uet_reasm *r, uint32_t off, uint32_t len);
bool uet_reasm_done(const struct uet_reasm *r);
/* Bytes from off on that have not arrived, max at most: where packets
 * that go on from off may be put before they are seen (direct placement,
 * docs/choices.md §2.9). 0 unless off lies on the segment grid, at or
 * past the prefix, and the tracking is exact (not loose). */
uint32_t uet_reasm_free(const struct uet_reasm *r, uint32_t off,
			uint32_t max);
void uet_reasm_fini(struct uet_reasm *r);

#endif
