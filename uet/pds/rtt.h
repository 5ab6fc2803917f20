/* Round-trip time estimate of an initiator PDC and the RTO it gives
 * (UE 1.0 leaves the timer to the implementation, docs/choices.md §4.1;
 * this is RFC 6298's SRTT/RTTVAR, within [rto_min, rto_max]).
 *
 * A sample is the time from a packet's only transmission to the first
 * ACK or SACK saying it arrived (Karn: never a packet sent twice, whose
 * ACK could be for either copy). It covers more than the wire: the
 * target's delayed ACK, and under manual progress the time until the
 * peer's application next called into the provider, which is what makes
 * a fixed few-ms RTO fire at live peers.
 */
#ifndef UET_PDS_RTT_H
#define UET_PDS_RTT_H

#include <stdbool.h>

#include "uet/time.h"

struct uet_rtt {
	uet_time srtt;		/* smoothed RTT */
	uet_time rttvar;	/* smoothed mean deviation */
	uet_time latest;	/* the last sample */
	uet_time min;		/* the smallest sample */
	bool valid;		/* at least one sample */
};

void uet_rtt_init(struct uet_rtt *r);
/* Fold in one measurement (RFC 6298 §2.2, §2.3: gains 1/8 and 1/4). */
void uet_rtt_sample(struct uet_rtt *r, uet_time m);
/* SRTT + 4 RTTVAR (RFC 6298 §2.3) within [lo, hi]; lo before the first
 * sample. */
uet_time uet_rtt_rto(const struct uet_rtt *r, uet_time lo, uet_time hi);

#endif
