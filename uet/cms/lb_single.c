/* Single path (UE 1.0 §3.6.16.2): one EV per PDC, so packets keep their
 * order (ROD always uses it). Congestion does not move it (the spec
 * wants that rare and coordinated); a timeout does: the path may be
 * dead, and staying on it would fail the PDC. An EV that timed out is
 * retired (its pen at the cap) and not taken again: other EVs may hash
 * onto the same dead path, and without the memory a PDC could go back
 * and forth between two of them. It comes back when an ACK shows its
 * path alive, or when every EV has timed out (the fabric healed, or
 * nothing is left to try). */
#include <string.h>

#include "lb.h"

static uint16_t single_next(struct uet_lb *lb, uet_time now)
{
	(void)now;
	return lb->cur;
}

/* A random EV not retired, other than ev; none left: all but ev back. */
static uint16_t single_move(struct uet_lb *lb, uint16_t ev)
{
	uint16_t v, free = 0;
	uint32_t k;

	for (v = 0; v < lb->count; v++)
		free += v != ev && !lb->pen[v];
	if (!free) {
		memset(lb->pen, 0, lb->count);
		lb->pen[ev] = UET_LB_PEN_MAX;
		free = (uint16_t)(lb->count - 1u);
	}
	k = uet_lb_rand(lb) % free;
	for (v = 0;; v++)
		if (v != ev && !lb->pen[v] && !k--)
			return v;
}

static void single_feed(struct uet_lb *lb, uint16_t ev, enum uet_lb_sig sig,
			uet_time now)
{
	(void)now;
	if (lb->count < 2)
		return;
	if (sig == UET_LB_ACK || sig == UET_LB_ECN) {
		lb->pen[ev] = 0;	/* a late answer: its path lives */
		return;
	}
	if (sig != UET_LB_TIMEOUT)
		return;
	lb->pen[ev] = UET_LB_PEN_MAX;
	if (ev == lb->cur)
		lb->cur = single_move(lb, ev);
}

const struct uet_lb_ops uet_lb_single_ops = {
	.name = "single", .next = single_next, .feed = single_feed,
};
