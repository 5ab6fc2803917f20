/* Entropy selection: what every policy shares (lb.h). The run of new
 * packets on one EV, the resend rule, the walk and the random source. */
#include <string.h>

#include "uet/rand.h"

#include "lb.h"

static const struct uet_lb_ops *const lb_kinds[] = {
	[UET_LB_SINGLE] = &uet_lb_single_ops,
	[UET_LB_OBLIVIOUS] = &uet_lb_oblivious_ops,
	[UET_LB_REPS] = &uet_lb_reps_ops,
	[UET_LB_BITMAP] = &uet_lb_bitmap_ops,
	[UET_LB_MIXED] = &uet_lb_mixed_ops,
};
#define LB_KINDS (sizeof(lb_kinds) / sizeof(lb_kinds[0]))

int uet_lb_parse(const char *name)
{
	unsigned i;

	for (i = 1; i < LB_KINDS; i++)
		if (!strcmp(name, lb_kinds[i]->name))
			return (int)i;
	return -1;
}

const char *uet_lb_name(uint8_t kind)
{
	if (kind == UET_LB_DEFAULT)
		kind = UET_LB_DEFAULT_KIND;
	return kind < LB_KINDS ? lb_kinds[kind]->name : "?";
}

uint32_t uet_lb_rand(struct uet_lb *lb)
{
	return (uint32_t)(uet_rand(&lb->rng) >> 32);
}

uint16_t uet_lb_walk(struct uet_lb *lb)
{
	uint16_t v;

	do {
		if (!lb->idx)
			lb->xor_ = (uint16_t)(uet_lb_rand(lb) & (lb->pow2 - 1u));
		v = (uint16_t)((lb->idx ^ lb->xor_) & (lb->pow2 - 1u));
		lb->idx = (uint16_t)((lb->idx + 1u) & (lb->pow2 - 1u));
	} while (v >= lb->count);
	return v;
}

void uet_lb_init(struct uet_lb *lb, uint8_t kind, uint16_t count,
		 uint16_t run, bool trimming, uet_time hold, uint32_t seed)
{
	memset(lb, 0, sizeof(*lb));
	if (kind == UET_LB_DEFAULT || kind >= LB_KINDS)
		kind = UET_LB_DEFAULT_KIND;
	lb->ops = lb_kinds[kind];
	if (!count)
		count = 1;
	if (kind != UET_LB_OBLIVIOUS && count > UET_LB_EV_MAX)
		count = UET_LB_EV_MAX;
	lb->count = count;
	for (lb->pow2 = 1; lb->pow2 < count && lb->pow2 < 0x8000u;)
		lb->pow2 = (uint16_t)(lb->pow2 << 1);
	if (lb->pow2 < count)	/* count above 2^15: the walk covers 2^15 */
		lb->count = count = lb->pow2;
	lb->run = run ? run : 1;
	lb->trimming = trimming;
	lb->hold = hold;
	lb->rng = seed;
	/* A random start per PDC (UE 1.0 §3.6.16.3). */
	lb->idx = (uint16_t)(uet_lb_rand(lb) & (lb->pow2 - 1u));
	lb->xor_ = (uint16_t)(uet_lb_rand(lb) & (lb->pow2 - 1u));
	lb->cur = (uint16_t)(uet_lb_rand(lb) % count);
	lb->freeze_until = 0;
	lb->probe_ev = UET_LB_NONE;
	lb->good = UET_LB_NONE;
}

uint16_t uet_lb_next(struct uet_lb *lb, uet_time now)
{
	lb->probation = false;	/* a probe's run is one packet */
	if (lb->used && lb->used < lb->run) {
		lb->used++;
		return lb->cur;
	}
	lb->cur = lb->ops->next(lb, now);
	lb->used = lb->probation ? lb->run : 1;
	return lb->cur;
}

uint16_t uet_lb_resend(struct uet_lb *lb, uint16_t lost, uet_time now)
{
	uint16_t ev;

	/* On a trimming fabric, the path of the latest clean ACK (bitmap,
	 * mixed), unless bad news came since: a resend answers a trim, is
	 * often the oldest packet in flight, and a second trim or a slow
	 * path would hold the whole window (the retransmit ring) behind
	 * it. Without trimming resends come in bursts (RACK, reordering
	 * read as loss): all on one path would make it the next loss. */
	if (lb->trimming && lb->good != UET_LB_NONE && lb->good != lost &&
	    !lb->lvl[lb->good])
		return lb->good;
	lb->no_probe = true;
	ev = lb->ops->next(lb, now);
	/* A resend on the EV that lost it may meet the same fate (a dead
	 * path): one more pick, then the neighbour. */
	if (ev == lost && lb->count > 1) {
		ev = lb->ops->next(lb, now);
		if (ev == lost)
			ev = (uint16_t)((lost + 1u) % lb->count);
	}
	lb->no_probe = false;
	return ev;
}

static uint32_t lb_us(uet_time t)
{
	return (uint32_t)(t / UET_USEC);
}

bool uet_lb_suspended(const struct uet_lb *lb, uint16_t ev, uet_time now)
{
	return ev < UET_LB_EV_MAX && lb->susp_row[ev] &&
	       (int32_t)(lb->susp[ev] - lb_us(now)) > 0;
}

/* Conserve (lb.h): a lost packet suspends its EV, longer for each loss
 * in a row; an ACK ends the row. */
static void lb_suspend(struct uet_lb *lb, uint16_t ev, enum uet_lb_sig sig,
		       uet_time now)
{
	unsigned row = lb->susp_row[ev];

	if (sig == UET_LB_ACK || sig == UET_LB_ECN) {
		lb->susp_row[ev] = 0;
		return;
	}
	if (sig != UET_LB_LOSS && sig != UET_LB_TIMEOUT)
		return;
	lb->susp[ev] = lb_us(now + ((lb->hold / 8) << (row < 6 ? row : 6)));
	if (row < UINT8_MAX)
		lb->susp_row[ev] = (uint8_t)(row + 1);
}

void uet_lb_feed(struct uet_lb *lb, uint16_t ev, enum uet_lb_sig sig,
		 uet_time now)
{
	if (ev >= lb->count)
		return;
	if (sig == UET_LB_TIMEOUT)
		lb->retired++;
	/* Bad news ends the run on that EV: its next packets would follow
	 * the lost one into a dead path (a sparse PDC sent a run's four
	 * messages there, one after another, each a probe or an RTO). */
	if ((sig == UET_LB_LOSS || sig == UET_LB_TIMEOUT) && ev == lb->cur)
		lb->used = 0;
	if (lb->conserve && ev < UET_LB_EV_MAX)
		lb_suspend(lb, ev, sig, now);
	lb->ops->feed(lb, ev, sig, now);
}

bool uet_lb_may_take(const struct uet_lb *lb, uint16_t ev, uet_time now)
{
	if (lb->ops == &uet_lb_single_ops || ev >= lb->count ||
	    ev >= UET_LB_EV_MAX)
		return false;
	return !lb->pen[ev] && !uet_lb_suspended(lb, ev, now);
}

/* Has ev lost packets lately: sitting out a loss, or retired? */
static bool lb_lost_on(const struct uet_lb *lb, uint16_t ev, uet_time now)
{
	return uet_lb_suspended(lb, ev, now) || lb->pen[ev] >= UET_LB_PEN_MAX;
}

uint16_t uet_lb_steer(const struct uet_lb *lb, uint16_t ev, uet_time now)
{
	uint16_t e, c, i;

	if (ev == UET_LB_NONE || lb->count < 2 ||
	    lb->ops == &uet_lb_single_ops)
		return ev;
	e = (uint16_t)(ev % lb->count);
	if (e >= UET_LB_EV_MAX || !lb_lost_on(lb, e, now))
		return ev;
	if (lb->good != UET_LB_NONE && uet_lb_may_take(lb, lb->good, now))
		return lb->good;
	for (i = 1; i < lb->count; i++) {
		c = (uint16_t)((e + i) % lb->count);
		if (uet_lb_may_take(lb, c, now))
			return c;
	}
	return ev;
}

void uet_lb_sent(struct uet_lb *lb, uint16_t ev)
{
	if (ev < lb->count && ev < UET_LB_EV_MAX && lb->flight[ev] < UINT8_MAX)
		lb->flight[ev]++;
}

void uet_lb_landed(struct uet_lb *lb, uint16_t ev)
{
	if (ev < lb->count && ev < UET_LB_EV_MAX && lb->flight[ev])
		lb->flight[ev]--;
}
