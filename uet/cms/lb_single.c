/* Single path (UE 1.0 §3.6.16.2): one EV per PDC, so packets keep their
 * order (ROD always uses it). Congestion does not move it (the spec
 * wants that rare and coordinated); a timeout does: the path may be
 * dead, and staying on it would fail the PDC. */
#include "lb.h"

static uint16_t single_next(struct uet_lb *lb, uet_time now)
{
	(void)now;
	return lb->cur;
}

static void single_feed(struct uet_lb *lb, uint16_t ev, enum uet_lb_sig sig,
			uet_time now)
{
	(void)now;
	if (sig != UET_LB_TIMEOUT || ev != lb->cur || lb->count < 2)
		return;
	lb->cur = (uint16_t)((ev + 1u + uet_lb_rand(lb) % (lb->count - 1u)) %
			     lb->count);
}

const struct uet_lb_ops uet_lb_single_ops = {
	.name = "single", .next = single_next, .feed = single_feed,
};
