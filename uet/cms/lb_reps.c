/* REPS (UE 1.0 §3.6.16.4): an EV whose packet was acknowledged without
 * a mark is "stored on the wire" and comes back to be used again; a
 * marked, trimmed or lost one is not. A ring of UET_LB_RING EVs, oldest
 * first; empty, a random EV explores. After a timeout on a trimming
 * fabric (a loss there means a failed path, not a full queue) it freezes
 * for lb->hold: it cycles through the EVs it knows good instead of
 * exploring. */
#include "lb.h"

void uet_lb_reps_push(struct uet_lb *lb, uint16_t ev)
{
	/* An ACK covering a run names its EV many times: keep it once. */
	if (lb->n && lb->ring[(lb->head + lb->n - 1u) % UET_LB_RING] == ev)
		return;
	if (lb->n == UET_LB_RING) {
		lb->head = (uint8_t)((lb->head + 1u) % UET_LB_RING);
		lb->n--;
	}
	lb->ring[(lb->head + lb->n) % UET_LB_RING] = ev;
	lb->n++;
}

/* A recycled EV, or -1. Frozen, the ring is cycled, not consumed. */
int uet_lb_reps_pop(struct uet_lb *lb, uet_time now)
{
	uint16_t ev;

	if (!lb->n)
		return -1;
	/* Frozen after a timeout: diversity matters less than a path
	 * known to work. */
	if (now < lb->freeze_until) {
		lb->cyc = (uint8_t)((lb->cyc + 1u) % lb->n);
		return lb->ring[(lb->head + lb->cyc) % UET_LB_RING];
	}
	ev = lb->ring[lb->head];
	lb->head = (uint8_t)((lb->head + 1u) % UET_LB_RING);
	lb->n--;
	lb->recycled++;
	return ev;
}

static uint16_t reps_next(struct uet_lb *lb, uet_time now)
{
	int ev = uet_lb_reps_pop(lb, now);

	return ev >= 0 ? (uint16_t)ev :
			 (uint16_t)(uet_lb_rand(lb) % lb->count);
}

static void reps_feed(struct uet_lb *lb, uint16_t ev, enum uet_lb_sig sig,
		      uet_time now)
{
	if (sig == UET_LB_ACK)
		uet_lb_reps_push(lb, ev);
	else if (sig == UET_LB_TIMEOUT && lb->trimming)
		lb->freeze_until = now + lb->hold;
}

const struct uet_lb_ops uet_lb_reps_ops = {
	.name = "reps", .next = reps_next, .feed = reps_feed,
};
