/* Oblivious spraying (UE 1.0 §3.6.16.3): every EV once per pass, in an
 * order re-randomized at each pass (the walk, lb.c); feedback ignored.
 * Only a resend steps off the EV that lost its packet (lb.c). */
#include "lb.h"

static uint16_t obl_next(struct uet_lb *lb, uet_time now)
{
	(void)now;
	return uet_lb_walk(lb);
}

static void obl_feed(struct uet_lb *lb, uint16_t ev, enum uet_lb_sig sig,
		     uet_time now)
{
	(void)lb, (void)ev, (void)sig, (void)now;
}

const struct uet_lb_ops uet_lb_oblivious_ops = {
	.name = "oblivious", .next = obl_next, .feed = obl_feed,
};
