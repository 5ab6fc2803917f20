/* The congestion-window hook of a PDC (cms.md §1): the PDS counts packets
 * in flight and asks the algorithm how many it may have; the algorithm
 * hears about acknowledgements and losses and sets cwnd. Today's only
 * algorithm is a fixed window (ccw.c); NSCC/RCCC will plug in here with
 * their own ops and state behind the same struct.
 */
#ifndef UET_PDS_CC_H
#define UET_PDS_CC_H

#include <stdbool.h>
#include <stdint.h>

#include "uet/fep.h"
#include "uet/time.h"

struct uet_cc;

struct uet_cc_ops {
	const char *name;
	void (*init)(struct uet_cc *cc, const struct uet_fep_config *cfg);
	/* pkts newly acknowledged (ACK_PSN, CACK or SACK); ecn: the ACK had
	 * flag M (cms.md §1.3 OnACK). */
	void (*on_ack)(struct uet_cc *cc, unsigned pkts, bool ecn,
		       uet_time now);
	/* One packet left the flight without an ACK: RTO (timeout) or a
	 * NACK asking for a resend (cms.md §1.3 OnNACK / OnInferredLoss). */
	void (*on_loss)(struct uet_cc *cc, bool timeout, uet_time now);
};

struct uet_cc {
	const struct uet_cc_ops *ops;
	uint32_t cwnd;		/* packets allowed in flight: the algorithm's */
	uint32_t inflight;	/* packets in flight: the PDS's */
};

static inline void uet_cc_init(struct uet_cc *cc, const struct uet_cc_ops *ops,
			       const struct uet_fep_config *cfg)
{
	cc->ops = ops;
	cc->cwnd = 0;
	cc->inflight = 0;
	ops->init(cc, cfg);
}

static inline bool uet_cc_can_send(const struct uet_cc *cc)
{
	return cc->inflight < cc->cwnd;
}

/* Fixed window of cfg.window packets per PDC. */
extern const struct uet_cc_ops uet_ccw_ops;

#endif
