/* Mixed (the UEC simulator's default, uet/cms/README.md): an EV recycled by
 * REPS when one is there and not penalized since, else the bitmap walk.
 * Both hear every signal. */
#include "lb.h"

static uint16_t mixed_next(struct uet_lb *lb, uet_time now)
{
	int ev;

	while ((ev = uet_lb_reps_pop(lb, 0)) >= 0)
		if (!lb->pen[ev])
			return (uint16_t)ev;
	return uet_lb_bitmap_pick(lb, now);
}

static void mixed_feed(struct uet_lb *lb, uint16_t ev, enum uet_lb_sig sig,
		       uet_time now)
{
	(void)now;
	if (sig == UET_LB_ACK)
		uet_lb_reps_push(lb, ev);
	uet_lb_bitmap_feed(lb, ev, sig);
}

const struct uet_lb_ops uet_lb_mixed_ops = {
	.name = "mixed", .next = mixed_next, .feed = mixed_feed,
};
