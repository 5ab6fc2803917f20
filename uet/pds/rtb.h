/* The retransmit buffer of an initiator PDC: every PSN sent and not yet
 * acknowledged, with what SES needs to rebuild the packet (uet_ses_pkt)
 * and its retransmission timer (docs/choices.md §3.5, §4.1).
 *
 * The PSNs in flight are the contiguous range [base, next), kept in a ring
 * of cap (a power of two) entries indexed by psn & (cap - 1), so the ring
 * survives the 2^32 wrap. base is the lowest PSN whose ACK has not been
 * received; base - 1 is what requests announce as CLEAR_PSN.
 */
#ifndef UET_PDS_RTB_H
#define UET_PDS_RTB_H

#include <stdbool.h>
#include <stdint.h>

#include "uet/time.h"
#include "../core/sublayer.h"

#include "psn.h"

/* uet_rtb_ent.fl */
#define UET_RTB_USED	0x01
#define UET_RTB_ACKED	0x02	/* ACK arrived (ACK_PSN, CACK); SES told */
#define UET_RTB_SACKED	0x04	/* arrived per SACK; ACK still to come */
#define UET_RTB_DUE	0x08	/* to be (re)sent by the retransmit phase */
#define UET_RTB_ACKREQ	0x10	/* to be asked for with an ACK_REQ CP */
#define UET_RTB_FLIGHT	0x20	/* counted in cc.inflight */
#define UET_RTB_SENT	0x40	/* sent once: later sends carry RETX */
#define UET_RTB_CLOSE	0x80	/* the CLOSE CP, not an SES packet */

/* Why a resend is pending (the stats' split). */
enum {
	UET_RTB_BY_RTO = 0,
	UET_RTB_BY_NACK,
	UET_RTB_BY_SACK,	/* later packets arrived: inferred lost */
	UET_RTB_BY_TLP,		/* tail probe */
};

struct uet_rtb_ent {
	struct uet_ses_pkt pkt;
	uet_time rto_at;	/* UET_TIME_NONE when no timer runs */
	uet_time sent_at;	/* first transmission (RTT samples) */
	uint8_t fl;		/* UET_RTB_* */
	uint8_t retx;		/* RTOs (resends and ACK_REQs): bounded */
	uint8_t nacks;		/* resends a NACK asked for: not bounded */
	uint8_t cause;		/* of the pending resend: UET_RTB_BY_* */
	bool inferred;		/* resent by loss inference (RACK) once */
	uet_time tx_at;		/* latest transmission (loss inference) */
	bool backoff;		/* the timer is a NACK back-off, not an RTO */
	bool ghost;		/* a copy not known lost may still answer
				 * (resent by RTO, probe or inference) */
	uint16_t size;		/* nominal bytes (cms), set when sent */
	uint16_t ev;		/* entropy of its latest send (cms/lb.h) */
	bool probe;		/* that EV was on probation (lb_bitmap.c) */
};

struct uet_rtb {
	struct uet_rtb_ent *ent;
	uint32_t mask;		/* cap - 1 */
	uint32_t start;		/* Start_PSN (docs/choices.md §2.3) */
	uint32_t base;		/* lowest PSN not acknowledged */
	uint32_t next;		/* next PSN to assign */
	uint32_t peer_cack;	/* newest CACK the target reported */
	uint32_t peer_range;	/* its MP_RANGE (from ACK_CC mpr) */
	uint32_t clear_sent;	/* highest CLEAR_PSN announced */
	uint32_t clear_want;	/* highest PSN whose ACK asked for CLEAR */
	uint32_t rewind_psn;	/* ROD: last Go-Back-N restarted here */
	unsigned ndue;		/* entries with DUE or ACKREQ */
	uet_time rto_at;	/* no entry timer runs out before this */
	uet_time restart_at;	/* CACK last moved (ini.c: ini_restart) */
	uet_time restart_rto;	/* ... and the RTO then, before back-off */
};

/* Attach a ring of cap entries (power of two) starting at Start_PSN. */
void uet_rtb_init(struct uet_rtb *rtb, struct uet_rtb_ent *ent, uint32_t cap,
		  uint32_t start);

static inline uint32_t uet_rtb_cap(const struct uet_rtb *rtb)
{
	return rtb->mask + 1;
}

/* PSNs in [base, next): sent and not all acknowledged. */
static inline uint32_t uet_rtb_used(const struct uet_rtb *rtb)
{
	return rtb->next - rtb->base;
}

static inline bool uet_rtb_holds(const struct uet_rtb *rtb, uint32_t psn)
{
	return uet_psn_in(psn, rtb->base, rtb->next);
}

static inline struct uet_rtb_ent *uet_rtb_get(struct uet_rtb *rtb, uint32_t psn)
{
	return &rtb->ent[psn & rtb->mask];
}

/* A fresh entry for PSN next (which it consumes); NULL when the ring is
 * full. */
struct uet_rtb_ent *uet_rtb_add(struct uet_rtb *rtb);
/* Move base over the acknowledged prefix; returns how far it moved. */
uint32_t uet_rtb_slide(struct uet_rtb *rtb);
/* Lowest PSN with DUE or ACKREQ set; false when none. */
bool uet_rtb_first_due(struct uet_rtb *rtb, uint32_t *psn);
/* Set the timer of e. O(1) but in a short ring: a timer moved later or
 * stopped leaves the ring's minimum where it was (a lower bound, see
 * below). */
void uet_rtb_set_timer(struct uet_rtb *rtb, struct uet_rtb_ent *e, uet_time at);
/* No entry timer runs out before this (UET_TIME_NONE: none runs). A
 * lower bound: the owner wakes at it, looks at the entries, and tightens
 * it (uet_rtb_tighten), so that no ACK pays for a walk of the ring. */
static inline uet_time uet_rtb_next_timer(const struct uet_rtb *rtb)
{
	return rtb->rto_at;
}
/* The earliest running entry timer exactly (a walk of the ring), kept as
 * the bound; UET_TIME_NONE when none runs. */
uet_time uet_rtb_tighten(struct uet_rtb *rtb);

#endif
