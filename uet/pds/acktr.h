/* Receive side of a target PDC: which request PSNs arrived, the
 * cumulative ACK (CACK), the SACK bitmap, guaranteed-delivery responses
 * kept until CLEAR, and the pending (coalesced) ACK.
 *
 * PSNs tracked are (cack, cack + UET_ACKTR_RANGE], one bit each in a ring
 * indexed by psn & (RANGE - 1). CACK moves over PSNs that arrived unless
 * one holds a guaranteed response not yet covered by CLEAR_PSN
 * (docs/choices.md §3.3).
 */
#ifndef UET_PDS_ACKTR_H
#define UET_PDS_ACKTR_H

#include <stdbool.h>
#include <stdint.h>

#include "uet/time.h"
#include "uet/wire.h"
#include "../core/sublayer.h"

#include "psn.h"

/* MP_RANGE we track and advertise: mpr = RANGE / 128 (docs/protocol.md §4.3,
 * REF encoding). A power of two, at most 4096 (12-bit psn_offset). */
#define UET_ACKTR_RANGE		1024u
#define UET_ACKTR_MPR_UNIT	128u
#define UET_ACKTR_WORDS		(UET_ACKTR_RANGE / 64)
/* A PDC's buffer: the received bits, then the asked-for ones. */
#define UET_ACKTR_BUF_WORDS	(2 * UET_ACKTR_WORDS)

/* A guaranteed-delivery SES response kept for resending (docs/choices.md
 * §3.3), with the data it carries (a small read result, a fetched atomic
 * value: the ACK of a duplicate must carry the same bytes, which SES cannot
 * produce twice). */
struct uet_gtd {
	struct uet_gtd *next;
	uint32_t psn;
	bool resend;		/* its ACK is to be (re)sent */
	uint8_t flags;		/* ACK flags (M, RETX) */
	uint16_t entropy;	/* echoed from the request */
	struct uet_ses_reply reply;
};

/* Fixed pool of gtd slots, shared by the PDCs of a fep. */
struct uet_gtd_pool {
	struct uet_gtd *slots;
	struct uet_gtd *free;
	unsigned nfree;
};

enum uet_acktr_class {
	UET_ACKTR_NEW,		/* deliver to SES */
	UET_ACKTR_DUP,		/* arrived before: re-ACK */
	UET_ACKTR_OOR,		/* outside the window: NACK PSN_OOR_WINDOW */
	UET_ACKTR_OOO,		/* ROD, ahead of the expected: NACK ROD_OOO */
};

/* What an ACK names: the PSN it answers, with that packet's response
 * (if SES gave one), the flags and the entropy to echo. */
struct uet_acktr_name {
	uint32_t psn;
	bool has_rsp;
	struct uet_ses_rsp rsp;
	uint8_t flags;		/* UET_PDS_F_M, UET_PDS_F_RETX */
	uint16_t entropy;
};

struct uet_acktr {
	uint64_t *bits;		/* UET_ACKTR_WORDS words */
	uint64_t *asked;	/* holes NACKed (trimmed, inferred lost) */
	unsigned reorder;	/* deepest overtaking of a first copy seen */
	uint32_t start;		/* Start_PSN */
	uint32_t cack;
	uint32_t max;		/* highest PSN received (if above cack) */
	uint32_t clear;		/* highest CLEAR_PSN heard (monotonic) */
	uint32_t rod_nacked;	/* ROD: expected PSN last NACKed ROD_OOO */
	bool mpr_told;		/* an ACK_CC told the initiator our MPR */
	struct uet_gtd *gtd;	/* kept responses, ascending PSN */

	/* The next regular ACK (built when it is sent). */
	struct uet_acktr_name ack;
	bool ack_dup;		/* ack.psn names a duplicate */
	unsigned unacked;	/* new packets since the last ACK */
	/* An ACK naming a duplicate that a later packet's ACK would have
	 * renamed (a batch of arrivals): sent on its own, because it is how
	 * the initiator learns a resend was spurious (ini.c). */
	struct uet_acktr_name dup;
	uet_time ack_at;	/* delayed-ACK deadline, or UET_TIME_NONE */
	uet_time ack_rx_at;	/* when ack.psn arrived (service time) */
	uint64_t rcvd_bytes;	/* nominal bytes of new data (UE 1.0 §3.6.13.9) */
	uint16_t probe_opaque;	/* the PROBE to answer (flag P) */
	uet_time probe_rx_at;	/* ... and when it came (service time) */
	uint64_t rcvd_heard;	/* ... when the pacer last heard (rcp.c) */
};

int uet_acktr_pool_init(struct uet_gtd_pool *pool, unsigned n);
void uet_acktr_pool_fini(struct uet_gtd_pool *pool);

/* bits: UET_ACKTR_BUF_WORDS words. */
void uet_acktr_init(struct uet_acktr *a, uint64_t *bits, uint32_t start);
/* Return every kept response to the pool. */
void uet_acktr_release(struct uet_acktr *a, struct uet_gtd_pool *pool);

enum uet_acktr_class uet_acktr_classify(const struct uet_acktr *a,
					uint32_t psn, bool rod);
/* ROD: the only PSN accepted as new. */
uint32_t uet_acktr_expected(const struct uet_acktr *a);
bool uet_acktr_has(const struct uet_acktr *a, uint32_t psn);
/* Record a new PSN (classified NEW); true when it filled a hole below the
 * highest PSN received. */
bool uet_acktr_mark(struct uet_acktr *a, uint32_t psn);
/* A new data packet of bytes (nominal, UE 1.0 §3.6.12) was accepted; and
 * what ACK_CC's rcvd_bytes says of all of them: 24 bits of 256-byte
 * units, rounded up (UE 1.0 §3.6.13.9). */
static inline void uet_acktr_received(struct uet_acktr *a, uint32_t bytes)
{
	a->rcvd_bytes += bytes;
}

static inline uint32_t uet_acktr_rcvd_q(const struct uet_acktr *a)
{
	return (uint32_t)((a->rcvd_bytes + 255) >> 8) & 0xFFFFFFu;
}

/* Move CACK as far as the rules allow; returns how far it moved. */
uint32_t uet_acktr_advance(struct uet_acktr *a);
/* Apply a CLEAR_PSN (ignored unless newer and at most the highest PSN
 * seen), free what it covers, advance; returns how far CACK moved. */
uint32_t uet_acktr_clear(struct uet_acktr *a, struct uet_gtd_pool *pool,
			 uint32_t clear_psn);
/* Keep reply (response and data) for psn; NULL when the pool is
 * empty. */
struct uet_gtd *uet_acktr_keep(struct uet_acktr *a, struct uet_gtd_pool *pool,
			       uint32_t psn, const struct uet_ses_reply *reply);
struct uet_gtd *uet_acktr_gtd(const struct uet_acktr *a, uint32_t psn);
/* True when a PSN above CACK arrived: the ACK then carries a SACK. */
bool uet_acktr_holes(const struct uet_acktr *a);
/* ACK_CC's ooo_count: the PSNs that arrived above the first one missing
 * (none missing: 0), saturating; what the UEC simulator's receiver
 * counts (docs/choices.md §3.2). */
uint16_t uet_acktr_ooo(const struct uet_acktr *a);
/* The target NACKed psn as missing (trimmed, or inferred lost): it is
 * not inferred lost again. */
void uet_acktr_ask(struct uet_acktr *a, uint32_t psn);
/* A first copy (not a resend) filled the hole at psn: the PSNs above it
 * measure how far the fabric reorders. */
void uet_acktr_reordered(struct uet_acktr *a, uint32_t psn);
/* Receiver-inferred loss (docs/choices.md §4.2): the lowest hole not
 * asked for yet, when at least min_pkts, and more than the deepest
 * reordering seen, arrived above it; marks it asked. */
bool uet_acktr_infer(struct uet_acktr *a, unsigned min_pkts, uint32_t *psn);
/* Where an ACK of psn starts its SACK bitmap: cack + 1, unless psn lies
 * beyond the 64 PSNs from there; then the bitmap ends at psn. With a
 * hole at CACK (a packet lost on a dead path) the packets sprayed past
 * CACK + 64 were told of by no ACK, and the initiator's RACK resent
 * them, arrived as they were: 111 of 132 resends after a path cut in
 * contrib/netns/ecmp.sh, each one a loss fed to a live EV. */
uint32_t uet_acktr_sack_base(const struct uet_acktr *a, uint32_t psn);
/* SACK bitmap from base (bit i <-> PSN base + i); *gaps gets the PSNs
 * missing below the highest one reported. */
uint64_t uet_acktr_sack(const struct uet_acktr *a, uint32_t base,
			unsigned *gaps);
/* Treat everything up to psn as received and cleared (CLOSE,
 * docs/choices.md §2.4). */
void uet_acktr_close(struct uet_acktr *a, struct uet_gtd_pool *pool,
		     uint32_t psn);

#endif
