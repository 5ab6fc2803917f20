/* Bitmap (STrack, UE 1.0 §3.6.16.4): a penalty per EV, raised by bad
 * news: an ECN mark +1, a trim or inferred loss +4, a timeout to the
 * cap (retired). The oblivious walk skips a penalized EV and lowers its
 * penalty by one, so a retired EV is probed again UET_LB_PEN_MAX passes
 * later (a healed path comes back). On a trimming fabric an inferred
 * loss is a failed path too (UE 1.0 §3.6.16.5) and retires. A clean ACK
 * clears nothing: the penalty is spent by being skipped.
 *
 * The penalty alone forgets: a path at a quarter of its rate is marked
 * at every use, skipped a pass or two, and back at the full share. So
 * each EV also has a level, the passes that every use of it is followed
 * by, learnt: a mark raises it by half a pass, a trim by twelve, and
 * each clean ACK lowers it by a quarter of a pass. A repeat offender is
 * used less and less, at the share its path can take, and comes back as
 * its ACKs come back clean. uet/cms/README.md has the numbers. */
#include "lb.h"

#define LVL_PASS	4u			/* level units per pass */
#define LVL_ECN		(LVL_PASS / 2)
#define LVL_TRIM	(12u * LVL_PASS)
#define LVL_MAX		(UET_LB_PEN_MAX * LVL_PASS)

/* Saturation: every EV busy, penalized or sitting out a loss. The next
 * of the walk goes, unless it sits out a loss: a dead path's EVs do, and
 * with one path of four cut it was one of them a quarter of the time
 * (some of ecmp.sh's cut runs fell to 53-82% of the rate left). Then the
 * least bad: not sitting out, the lowest penalty, the fewest in flight;
 * ties from where the walk stands. (The least bad always, even when the
 * next was not sitting out, cost 2-3% over two planes: run-planes.sh.) */
static uint16_t bitmap_least_bad(const struct uet_lb *lb, uet_time now)
{
	uint32_t best = UINT32_MAX, score;
	uint16_t ev, pick = 0;
	unsigned i;

	for (i = 0; i < lb->count; i++) {
		ev = (uint16_t)((lb->idx + i) % lb->count);
		score = (uint32_t)uet_lb_suspended(lb, ev, now) << 16 |
			(uint32_t)lb->pen[ev] << 8 | lb->flight[ev];
		if (score < best) {
			best = score;
			pick = ev;
		}
	}
	return pick;
}

/* Probation (conserve): an EV back from sitting out a loss, with no
 * clean ACK since, carries one packet, and only while no other such
 * packet is in flight. A dead path's EVs sit out the same losses for
 * the same time and come back together: each took a run, and in
 * ecmp.sh's cut runs those 40-odd packets, all lost, held most of the
 * window until RACK gave them up, at half the rate for 10-20 ms, 100
 * and 200 ms after the cut. One at a time, a probe costs a packet. */
static bool bitmap_probing(const struct uet_lb *lb)
{
	for (unsigned i = 0; i < lb->count; i++)
		if (lb->susp_row[i] && lb->flight[i])
			return true;
	return false;
}

static bool bitmap_on_probation(const struct uet_lb *lb, uint16_t ev)
{
	return lb->conserve && lb->susp_row[ev];
}

/* May an EV on probation take this pick? *probing: asked once a pick
 * (-1 until then). */
static bool bitmap_may_probe(const struct uet_lb *lb, int *probing)
{
	if (*probing < 0)
		*probing = lb->no_probe || bitmap_probing(lb);
	return !*probing;
}

static uint16_t bitmap_take(struct uet_lb *lb, uint16_t ev)
{
	lb->probation = bitmap_on_probation(lb, ev);
	return ev;
}

uint16_t uet_lb_bitmap_pick(struct uet_lb *lb, uet_time now)
{
	unsigned tries;
	uint16_t ev = 0;
	int probing = -1;	/* bitmap_may_probe's answer */

	/* At most one pass. */
	for (tries = 0; tries < lb->count; tries++) {
		ev = uet_lb_walk(lb);
		if (lb->conserve && (lb->flight[ev] >= lb->run ||
				     uet_lb_suspended(lb, ev, now))) {
			lb->skipped++;	/* busy or sitting out */
			continue;
		}
		if (!lb->pen[ev]) {
			/* One probe at a time, and not when lb.no_probe
			 * says (a resend into a cut path stalled ecmp.sh's
			 * sender 12 ms, the target's NACK of it taken for
			 * the first copy's). */
			if (bitmap_on_probation(lb, ev) &&
			    !bitmap_may_probe(lb, &probing)) {
				lb->skipped++;
				continue;
			}
			lb->pen[ev] = (uint8_t)(lb->lvl[ev] / LVL_PASS);
			return bitmap_take(lb, ev);
		}
		lb->pen[ev]--;
		lb->skipped++;
	}
	lb->saturated++;
	return bitmap_take(lb, uet_lb_suspended(lb, ev, now) ?
			   bitmap_least_bad(lb, now) : ev);
}

static uint16_t bitmap_next(struct uet_lb *lb, uet_time now)
{
	return uet_lb_bitmap_pick(lb, now);
}

/* Congestion the fabric reports teaches the level. A failure (a
 * timeout, a loss on a trimming fabric) retires the EV instead, and is
 * forgotten once the penalty is spent, so a healed path comes back at
 * once. Without trimming a loss RACK infers is as often spraying's
 * reordering as a full queue: the penalty only, as before. */
static void bitmap_learn(struct uet_lb *lb, uint16_t ev, enum uet_lb_sig sig)
{
	unsigned l = lb->lvl[ev];

	switch (sig) {
	case UET_LB_ACK:
		if (l)
			l--;
		/* A resend goes where the latest clean ACK came from. */
		if (!l)
			lb->good = ev;
		break;
	case UET_LB_ECN:
		l += LVL_ECN;
		break;
	case UET_LB_TRIM:
		l += LVL_TRIM;
		break;
	default:
		/* A failure: not where resends go until a clean ACK says. */
		if (ev == lb->good)
			lb->good = UET_LB_NONE;
		return;
	}
	lb->lvl[ev] = (uint8_t)(l > LVL_MAX ? LVL_MAX : l);
}

void uet_lb_bitmap_feed(struct uet_lb *lb, uint16_t ev, enum uet_lb_sig sig)
{
	unsigned p = lb->pen[ev];

	bitmap_learn(lb, ev, sig);
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
