/* Bitmap (STrack, UE 1.0 §3.6.16.4): a penalty per EV, raised by bad
 * news: an ECN mark +1, a trim or inferred loss +4, a timeout to the
 * cap (retired). The oblivious walk skips a penalized EV and lowers its
 * penalty by one, so a retired EV is probed again UET_LB_PEN_MAX passes
 * later (a healed path comes back). On a trimming fabric an inferred
 * loss is a failed path too (UE 1.0 §3.6.16.5) and retires. A clean ACK
 * clears nothing: the penalty is spent by being skipped. */
#include "lb.h"

uint16_t uet_lb_bitmap_pick(struct uet_lb *lb)
{
	unsigned tries;
	uint16_t ev = 0;

	/* At most one pass: when every EV is penalized (saturation), the
	 * next of the walk goes anyway. */
	for (tries = 0; tries < lb->count; tries++) {
		ev = uet_lb_walk(lb);
		if (!lb->pen[ev])
			return ev;
		lb->pen[ev]--;
		lb->skipped++;
	}
	return ev;
}

static uint16_t bitmap_next(struct uet_lb *lb, uet_time now)
{
	(void)now;
	return uet_lb_bitmap_pick(lb);
}

void uet_lb_bitmap_feed(struct uet_lb *lb, uint16_t ev, enum uet_lb_sig sig)
{
	unsigned p = lb->pen[ev];

	switch (sig) {
	case UET_LB_ECN:
		p += 1;
		break;
	case UET_LB_TRIM:
		p += 4;
		break;
	case UET_LB_LOSS:
		p = lb->trimming ? UET_LB_PEN_MAX : p + 4;
		break;
	case UET_LB_TIMEOUT:
		p = UET_LB_PEN_MAX;
		break;
	default:
		return;
	}
	lb->pen[ev] = (uint8_t)(p > UET_LB_PEN_MAX ? UET_LB_PEN_MAX : p);
}

static void bitmap_feed(struct uet_lb *lb, uint16_t ev, enum uet_lb_sig sig,
			uet_time now)
{
	(void)now;
	uet_lb_bitmap_feed(lb, ev, sig);
}

const struct uet_lb_ops uet_lb_bitmap_ops = {
	.name = "bitmap", .next = bitmap_next, .feed = bitmap_feed,
};
