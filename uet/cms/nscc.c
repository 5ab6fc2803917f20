/* NSCC, the network signal-based congestion control (UE 1.0 §3.6.13): one byte
 * window per CCC over all its paths, grown while the queueing delay is
 * under target and no ECN comes back, cut multiplicatively when both say
 * congestion, and reset to the measured goodput by quick adapt when a
 * window's worth of signals says the fabric is overrun.
 *
 * Choices where UE 1.0 §3.6.13.3 leaves room, each from the UEC
 * simulator's defaults: scaling_b = target_qdelay / 12 us; max_md_jump
 * 0.5; qa_gate 3; delay EWMA weight 1/80 (0.0125); "no delay" for fast
 * increase below 1 us; qa_threshold 4 x target_qdelay without trimming
 * and off with it; an ACK without a valid RTT sample still drives the
 * window, with the average delay. Units: bytes (signed, UE 1.0 §3.6.13
 * on rounding) and nanoseconds.
 *
 * Where uet departs from the defaults, for incasts of 8 to 1023 senders
 * (README.md, NSCC, says what each change measured):
 * - with trimming, target_qdelay is 0.3 base RTT (not 0.75) and the
 *   fair increase 0.5 MTU x scaling_a (not 5): the queue sat in the ECN
 *   band's top, every flow's increases adding up;
 * - the first window is max_wnd / 10 (0.15 BDP, not 1.5 BDP), paced
 *   over the fabric's base RTT until the first ACK or NACK, and scaled
 *   by the path's base RTT over the fabric's when a sample in the first
 *   base RTT shows the path shorter: N senders at once trim less and
 *   lose fewer headers, for a few RTTs more of fast increase when a
 *   sender is alone; the trims of the start fall on every sender alike,
 *   not on the bursts that arrive last; and a sender near the receiver
 *   starts at a far one's rate, not at three times it (on a fat tree
 *   the start's shares held to the end);
 * - every rise of a window is scaled by the path's base RTT over the
 *   fabric's (nscc_rtt_ratio), so that windows grow by the same share
 *   per unit of time, not per round trip of their own;
 * - gentler steps both ways: gamma 0.4 (not 0.8) and alpha and fi
 *   halved: the same balance, half the swing of every window (at 128
 *   senders each ACK moved it by 40%, and the rates with it);
 * - the target grows as the window shrinks, by up to 0.12 base RTT
 *   (1/sqrt of the window, Swift's flow scaling, all of it between
 *   max_wnd and MTU / 4): a flow with less than its share sees less
 *   delay above its target, and gains on the others;
 * - the window goes below one packet, down to MTU / 128. Below two
 *   packets it is a rate: a packet goes while less than the window is
 *   in flight, each bytes x RTT / cwnd after the one before (ccc.h
 *   pace_at), the RTT partly the last sample's (damping), jittered by
 *   up to 30% (no phase lock among senders). Without it a window of 1.0
 *   to 1.99 packets sent one packet per RTT, whatever its size. Below a
 *   packet every increase is relative (what a one-packet window gains
 *   per RTT, per ACK), trims and losses halve it at most once per base
 *   RTT (above, they take a packet off, half the window at most: the
 *   spec's floor of one packet, approached in small steps, was never
 *   reached), and quick adapt never raises it;
 * - an ACK or a NACK moves any window by little: a cut by 0.3 of what
 *   the rules say (0.5 for a NACK from 4 packets up), a rise by 0.5% at
 *   most below 2 packets and 1% of a packet above, plus 0.08% per base
 *   RTT since the ACK before (the same growth per unit of time for every
 *   flow, AIMD's fairness), up to 5% more per base RTT while a quick
 *   delay average is under the target (from one packet up; when flows
 *   leave, the others must grow at once), 25% on a sample that says the
 *   queue is empty (from half a packet up; half a packet per ACK above
 *   one), 50% once the quick average says it has drained (a packet per
 *   ACK above one); no eta. Above one packet a window of w packets gets
 *   w ACKs per RTT: the caps are a one-packet window's in bytes, so that
 *   every window rises by the same share of itself per RTT. For a
 *   one-packet window the spec's steps flip every ACK between a cut and
 *   a rise of up to 45%: the flows drifted apart and the queue sat high.
 *   These steps once held only below 4 packets; on a fat tree, where
 *   32 senders' shares (4.7 packets) straddle that line, the flows
 *   under it climbed by 1% per ACK while those above took the spec's
 *   additive rises, and the windows split in two (Jain 0.43, 1.22 x
 *   ideal; now 0.79, 1.05);
 * - the flow-scaling range is in the configured base RTT, not the
 *   path's: with every window on the same rules, a sender near the
 *   receiver (its base RTT a third of the far ones') had a lower target
 *   at the same window and starved;
 * - below a packet the decrease reads a quick delay average (weight
 *   1/4) more than the slow one, all of it at MTU / 8: at 1023 senders
 *   a flow gets an ACK every 80 us, and the slow average lagged the
 *   start's full queue by milliseconds;
 * - fast increase is three times the spec's while a sample is under
 *   0.03 base RTT (an empty queue): the last senders of an incast are
 *   left with a fraction of what the link needs;
 * - a quick adapt period lasts the last sample's round trip when that is
 *   longer than base_rtt + target_qdelay: a shorter one counts the ACKs
 *   of part of a window, and at an incast's start set the windows by
 *   lot.
 */
#include "uet/rand.h"

#include "ccc.h"

#define NSCC_REF_BDP		150000.0	/* 100 Gb/s x 12 us, bytes */
#define NSCC_REF_RTT		(12 * UET_USEC)
#define NSCC_GAMMA		0.4		/* uet's; the simulator's 0.8 */
#define NSCC_MAX_MD_JUMP	0.5
#define NSCC_QA_GATE		3
#define NSCC_EWMA_DIV		80		/* weight 0.0125 */
#define NSCC_NO_DELAY		(1 * UET_USEC)
#define NSCC_ADJUST_PKTS	8
#define NSCC_TARGET_TRIM	0.3		/* x base RTT, if trimming */
#define NSCC_GAIN		0.5		/* alpha and fi: x this */
#define NSCC_FI_MTUS		0.5		/* fair increase, x scaling_a */
#define NSCC_FS_RANGE		0.12		/* flow scaling, x base RTT */
#define NSCC_FS_MIN_DIV		4		/* ... reached at MTU / 4 */
#define NSCC_MIN_WND_DIV	128		/* smallest window: MTU / 128 */
#define NSCC_INIT_DIV		10		/* first window: max_wnd / 10 */
#define NSCC_FIRST_PACE		1.0		/* ... over this x base RTT */
#define NSCC_SMALL_CUT		0.3		/* a cut: this of the rules' */
#define NSCC_TRIM_CUT_PKTS	4		/* ... a NACK's from 4 MTUs ... */
#define NSCC_TRIM_CUT		0.5		/* ... this of it */
#define NSCC_SMALL_RISE		0.005		/* a rise: at most this per ACK */
#define NSCC_SMALL_RISE2	0.01		/* ... from 2 MTUs; above one
						 * MTU, of one MTU */
#define NSCC_RISE_PER_RTT	0.0008		/* ... plus this per base RTT
						 * since the last ACK */
#define NSCC_RISE_GAP_MAX	64		/* ... counting 64 at most */
#define NSCC_DRAINED_RISE	0.5		/* ... or this, the queue drained */
#define NSCC_DRAINED_PKTS	1.0		/* ... above one MTU: this many
						 * MTUs per ACK */
#define NSCC_DRAINED		0.45		/* drained: below this x target */
#define NSCC_RISE_UNDER		0.05		/* ... plus this per base
						 * RTT x how far the quick
						 * average is under target */
#define NSCC_UNDER_LO_DIV	2		/* ... none at MTU / 2 ... */
#define NSCC_UNDER_HI		1		/* ... all from 1 MTU */
#define NSCC_FI_EMPTY		0.03		/* a sample under this x
						 * base RTT: queue empty */
#define NSCC_FI_EMPTY_GAIN	3		/* ... fast increase x 3 */
#define NSCC_EMPTY_RISE		0.25		/* ... a small window's rise
						 * capped at this at least ... */
#define NSCC_EMPTY_MIN_DIV	2		/* ... from MTU / 2 */
#define NSCC_EMPTY_PKTS		0.5		/* ... above one MTU: this many
						 * MTUs per ACK */
#define NSCC_FAST_EWMA_DIV	4		/* the quick delay average */
#define NSCC_PACE_PKTS		2		/* paced below 2 MTUs */
#define NSCC_PACE_GAIN		0.25		/* the last sample's share */
#define NSCC_PACE_JITTER	0.3		/* each gap x 1 +- this */
#define NSCC_MD_QUICK_HI	1		/* MD on the quick average: none
						 * at 1 MTU ... */
#define NSCC_MD_QUICK_LO_DIV	8		/* ... all of it at MTU / 8 */

static int64_t nscc_max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static int64_t nscc_min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* max_wnd = 1.5 x link rate x base RTT (UE 1.0 §3.6.13.3). */
static int64_t nscc_max_wnd(const struct uet_ccc *c, uet_time base_rtt)
{
	double bdp = (double)c->cfg->link_bps / 8.0 * (double)base_rtt /
		     (double)UET_SEC;

	return nscc_max64((int64_t)(1.5 * bdp), c->mtu);
}

/* The fabric's base RTT: the configured one, else the reference. */
static uet_time nscc_ref_rtt(const struct uet_ccc *c)
{
	return c->cfg->base_rtt ? c->cfg->base_rtt : NSCC_REF_RTT;
}

/* This path's base RTT over the fabric's, at most 1: a window of w
 * bytes sends w / base_rtt, so windows that rise by the same share per
 * ACK rise by the same share per unit of time only if each share is
 * scaled by it (a sender near the receiver gets three ACKs to a far
 * one's on a fat tree). A probe (no base RTT configured) may find a
 * path longer than the reference: then the reference is not the
 * fabric's, and nothing is scaled (across a veth, 26-36 us against 12,
 * every rise would have been tripled). */
static double nscc_rtt_ratio(const struct uet_ccc *c)
{
	const struct uet_nscc *s = &c->nscc;
	double r = (double)s->base_rtt / (double)nscc_ref_rtt(c);

	return r < 1 ? r : 1;
}

void uet_nscc_init(struct uet_ccc *c, uet_time now)
{
	struct uet_nscc *s = &c->nscc;
	uet_time rtt = nscc_ref_rtt(c);
	double bdp = (double)c->cfg->link_bps / 8.0 * (double)rtt /
		     (double)UET_SEC;
	double scaling_a, scaling_b;

	s->mtu = c->mtu;
	s->min_wnd = c->mtu / NSCC_MIN_WND_DIV;
	s->sub_cut_at = UET_TIME_NONE;
	s->last_ack_at = UET_TIME_NONE;
	s->base_rtt = rtt;
	s->probe = c->cfg->base_rtt ? UET_NSCC_PROBE_NONE :
				      UET_NSCC_PROBE_WANT;
	s->probe_at = UET_TIME_NONE;
	s->max_wnd = nscc_max_wnd(c, rtt);
	s->cwnd = nscc_max64(s->max_wnd / NSCC_INIT_DIV, c->mtu);
	s->target_qdelay = c->cfg->trimming ?
			   (uet_time)((double)rtt * NSCC_TARGET_TRIM) : rtt;
	s->tq = s->target_qdelay;
	s->qa_threshold = c->cfg->trimming ? UET_TIME_NONE :
					     4 * s->target_qdelay;
	scaling_a = bdp / NSCC_REF_BDP;
	scaling_b = (double)s->target_qdelay / (double)NSCC_REF_RTT;
	s->alpha = NSCC_GAIN * 4.0 * scaling_a * scaling_b * (double)s->mtu /
		   (double)s->target_qdelay;
	s->fi = NSCC_GAIN * NSCC_FI_MTUS * (double)s->mtu * scaling_a;
	s->fi_scale = 0.25 * scaling_a;
	s->last_adjust_time = s->last_dec_time = now;
	s->start_at = now;
	s->qa_endtime = 0;
	c->cwnd = s->cwnd;
}

static void nscc_set(struct uet_ccc *c, int64_t cwnd)
{
	struct uet_nscc *s = &c->nscc;

	s->cwnd = nscc_min64(nscc_max64(cwnd, s->min_wnd), s->max_wnd);
	c->cwnd = s->cwnd;
}

/* The window in MTUs, if below one (1 otherwise): below a packet an
 * increase is relative to the window. */
static double nscc_sub(const struct uet_nscc *s)
{
	return s->cwnd < s->mtu ? (double)s->cwnd / (double)s->mtu : 1.0;
}

/* Below NSCC_PACE_PKTS the window is a rate (uet_nscc_on_send). */
static bool nscc_paced(const struct uet_nscc *s)
{
	return s->cwnd < NSCC_PACE_PKTS * s->mtu;
}

/* Newton's square root, for x in [1/128, 2^20]: libuet needs no libm
 * for one shape of curve. */
static double nscc_sqrt(double x)
{
	double y = x > 1 ? x : 1;

	for (int i = 0; i < 24; i++)
		y = 0.5 * (y + x / y);
	return y;
}

/* The target for this window: target_qdelay plus up to NSCC_FS_RANGE
 * base RTTs as the window shrinks from max_wnd to MTU / NSCC_FS_MIN_DIV,
 * in 1/sqrt(window). The configured base RTT, as for target_qdelay: the
 * flows share one queue, and on a fat tree a sender near the receiver
 * (its own base RTT a third of the others') had a lower target at the
 * same window and starved. */
static uet_time nscc_target(const struct uet_ccc *c)
{
	const struct uet_nscc *s = &c->nscc;
	double x = 1.0 / nscc_sqrt((double)s->cwnd / (double)s->mtu);
	double lo = 1.0 / nscc_sqrt((double)s->max_wnd / (double)s->mtu);
	double hi = nscc_sqrt((double)NSCC_FS_MIN_DIV);
	double f = (x - lo) / (hi - lo);

	f = f < 0 ? 0 : f > 1 ? 1 : f;
	return s->target_qdelay +
	       (uet_time)(NSCC_FS_RANGE * f * (double)nscc_ref_rtt(c));
}

/* A trim or a loss: a packet off the window, half of it at most (the
 * spec stops at one packet, which 0.3 of a cut never reached from above:
 * 128 senders sat just over it, the queue at the trim threshold); a
 * window of a packet or less is halved, once per base RTT at most (a
 * burst of trims is one signal). */
static int64_t nscc_cut(struct uet_nscc *s, int64_t bytes, uet_time now)
{
	if (s->cwnd > s->mtu)
		return nscc_max64(s->cwnd - bytes, s->cwnd / 2);
	if (s->sub_cut_at != UET_TIME_NONE && now - s->sub_cut_at < s->base_rtt)
		return s->cwnd;
	s->sub_cut_at = now;
	return s->cwnd / 2;
}

static void nscc_update_base_rtt(struct uet_ccc *c, uet_time raw)
{
	struct uet_nscc *s = &c->nscc;

	if (raw >= s->base_rtt)
		return;
	s->base_rtt = raw;
	s->max_wnd = nscc_max_wnd(c, raw);
	if (s->cwnd > s->max_wnd)
		nscc_set(c, s->max_wnd);
}

/* EWMA of the queueing delay (UE 1.0 §3.6.13.5 update_delay), and a
 * quick one that says when a small window may grow fast. */
static void nscc_update_delay(struct uet_nscc *s, uet_time delay)
{
	int64_t d = (int64_t)delay - (int64_t)s->avg_delay;
	int64_t f = (int64_t)delay - (int64_t)s->fast_delay;

	s->avg_delay = (uet_time)((int64_t)s->avg_delay + d / NSCC_EWMA_DIV);
	s->fast_delay = (uet_time)((int64_t)s->fast_delay +
				   f / NSCC_FAST_EWMA_DIV);
}

/* A sample that says the queue is empty: the bottleneck idles, or is
 * about to. */
static bool nscc_empty(const struct uet_nscc *s, uet_time delay)
{
	return (double)delay < NSCC_FI_EMPTY * (double)s->base_rtt;
}

/* What a small window w0 may add per base RTT while the quick average is
 * under the target, in proportion to how far: when flows leave, the
 * survivors must grow at once, and the rise per ACK is sized for the
 * balance of a standing queue (128 senders: the last ones sat at half a
 * packet while the others left). Blended in the square root of the
 * window from none at MTU / 2 to all of it from one MTU: below, the
 * quick average is a few samples tens of microseconds apart, and 256
 * senders, whose windows sit there, parted at a steeper line. */
static double nscc_rise_under(const struct uet_nscc *s, int64_t w0)
{
	double u = 1.0 - (double)s->fast_delay / (double)s->tq;
	double lo = nscc_sqrt(1.0 / NSCC_UNDER_LO_DIV);
	double hi = nscc_sqrt((double)NSCC_UNDER_HI);
	double b = (nscc_sqrt((double)w0 / (double)s->mtu) - lo) / (hi - lo);

	if (u <= 0)
		return 0;
	b = b < 0 ? 0 : b > 1 ? 1 : b;
	return b * NSCC_RISE_UNDER * u;
}

/* Every window moves by little per event: what the rules took off,
 * scaled down; what they added, capped (more once the queue has
 * drained, so that the last senders of an incast fill the link). The
 * cap grows with the time since the ACK before: a flow with few ACKs
 * gains as much per unit of time as one with many, so that the larger
 * flows, which see more marked ACKs, lose ground. A sample that says
 * the queue is empty lets a window from MTU / 2 up rise by a quarter:
 * the quick average lags a queue that leaving flows emptied. Above one
 * packet the caps per ACK are those of a one-packet window, in bytes
 * (a window of w packets gets w ACKs per RTT: the same share of it per
 * RTT, not w times that), the drained and empty ones doubled there.
 * A NACK from NSCC_TRIM_CUT_PKTS up takes NSCC_TRIM_CUT of what the
 * rules say. w0: the window before the event; empty: an ACK's sample
 * says so; nack: the event is a NACK. */
static void nscc_small_step(struct uet_ccc *c, int64_t w0, bool empty,
			    bool nack)
{
	struct uet_nscc *s = &c->nscc;
	double one = w0 > s->mtu ? (double)s->mtu / (double)w0 : 1.0;
	double rise = (w0 < 2 * s->mtu ? NSCC_SMALL_RISE : NSCC_SMALL_RISE2) *
		      one;
	double gap = (double)s->ack_gap / (double)s->base_rtt;
	double cut = nack && w0 >= NSCC_TRIM_CUT_PKTS * s->mtu ?
		     NSCC_TRIM_CUT : NSCC_SMALL_CUT;

	if (gap > NSCC_RISE_GAP_MAX)
		gap = NSCC_RISE_GAP_MAX;
	rise += (NSCC_RISE_PER_RTT + nscc_rise_under(s, w0)) * gap;

	if (s->cwnd == w0)
		return;
	if (s->cwnd < w0) {
		nscc_set(c, w0 - (int64_t)(cut * (double)(w0 - s->cwnd)));
		return;
	}
	if ((double)s->fast_delay < NSCC_DRAINED * (double)s->tq)
		rise = w0 > s->mtu ? NSCC_DRAINED_PKTS * one :
				     NSCC_DRAINED_RISE;
	else if (empty && w0 >= s->mtu / NSCC_EMPTY_MIN_DIV &&
		 rise < NSCC_EMPTY_RISE)
		rise = w0 > s->mtu ? NSCC_EMPTY_PKTS * one : NSCC_EMPTY_RISE;
	rise *= nscc_rtt_ratio(c);
	if (s->cwnd > w0 + (int64_t)(rise * (double)w0))
		nscc_set(c, w0 + (int64_t)(rise * (double)w0));
}

/* A quick adapt period: base_rtt + target_qdelay (UE 1.0 §3.6.13.6), or
 * the last sample's round trip if longer. A period shorter than the
 * round trip counts the ACKs of part of a window: at an incast's start,
 * with the queue at the trim threshold, 32 senders on a fat tree each
 * counted the few of their first burst whose ACKs were back, and quick
 * adapt set their windows anywhere from 1 to 15 packets, and they held. */
static uet_time nscc_qa_period(const struct uet_nscc *s)
{
	uet_time p = s->base_rtt + s->target_qdelay;
	uet_time rtt = s->base_rtt + s->last_delay;

	return rtt > p ? rtt : p;
}

/* Quick adapt (UE 1.0 §3.6.13.6): at most once per period (above), jump
 * to what the last period delivered. True: skip the table. */
static bool nscc_quick_adapt(struct uet_ccc *c, bool loss, bool ecn,
			     uet_time delay, uet_time now)
{
	struct uet_nscc *s = &c->nscc;

	if (s->bytes_ignored < s->bytes_to_ignore && ecn)
		return true;
	if (now < s->qa_endtime)
		return false;
	if (s->qa_endtime &&
	    (s->trigger_qa || loss ||
	     (s->qa_threshold != UET_TIME_NONE && delay > s->qa_threshold)) &&
	    s->achieved_bytes < (s->max_wnd >> NSCC_QA_GATE)) {
		/* never up: a window below a packet stays */
		nscc_set(c, nscc_min64(s->cwnd, nscc_max64(s->achieved_bytes,
							   s->mtu)));
		s->bytes_to_ignore = c->inflight;
		s->bytes_ignored = 0;
		s->trigger_qa = false;
		s->inc_bytes = 0;
		s->received_bytes = 0;
		s->achieved_bytes = 0;
		s->qa_endtime = now + nscc_qa_period(s);
		return true;
	}
	s->achieved_bytes = 0;
	s->qa_endtime = now + nscc_qa_period(s);
	return false;
}

/* UE 1.0 §3.6.13.5 fast_increase, NSCC_FI_EMPTY_GAIN times faster while
 * the sample says the queue is empty: the last senders of an incast are
 * left with windows the link needs several times over. */
static void nscc_fast_increase(struct uet_ccc *c, int64_t n, uet_time delay)
{
	struct uet_nscc *s = &c->nscc;
	double fs = s->fi_scale;

	if (nscc_empty(s, delay))
		fs *= NSCC_FI_EMPTY_GAIN;
	if (delay < NSCC_NO_DELAY) {
		s->fi_count += n;
		if (s->fi_count > s->cwnd || s->increase_mode) {
			nscc_set(c, s->cwnd + (int64_t)((double)n * fs *
							nscc_sub(s)));
			s->increase_mode = true;
		}
	} else {
		s->fi_count = 0;
		s->increase_mode = false;
	}
}

static void nscc_proportional_increase(struct uet_ccc *c, int64_t n,
				       uet_time delay)
{
	struct uet_nscc *s = &c->nscc;

	nscc_fast_increase(c, n, delay);
	if (s->increase_mode)
		return;
	s->inc_bytes += s->alpha * (double)n *
			(double)((int64_t)s->tq - (int64_t)delay);
}

/* The delay the decrease reads: the average (UE 1.0 §3.6.13.5), blended
 * into the quick average below a packet, all of it at MTU / 8 (in
 * 1/sqrt of the window, without a step that flows either side would
 * part at). */
static uet_time nscc_md_delay(const struct uet_nscc *s)
{
	double x = 1.0 / nscc_sqrt((double)s->cwnd / (double)s->mtu);
	double hi = 1.0 / nscc_sqrt((double)NSCC_MD_QUICK_HI);
	double lo = nscc_sqrt((double)NSCC_MD_QUICK_LO_DIV);
	double b = (x - hi) / (lo - hi);

	b = b < 0 ? 0 : b > 1 ? 1 : b;
	return (uet_time)(b * (double)s->fast_delay +
			  (1 - b) * (double)s->avg_delay);
}

static void nscc_multiplicative_decrease(struct uet_ccc *c, uet_time now)
{
	struct uet_nscc *s = &c->nscc;
	uet_time avg = nscc_md_delay(s);
	double f;

	s->increase_mode = false;
	s->fi_count = 0;
	if (avg <= s->tq || now - s->last_dec_time <= s->base_rtt)
		return;
	f = 1.0 - NSCC_GAMMA * (double)(avg - s->tq) / (double)avg;
	if (f < NSCC_MAX_MD_JUMP)
		f = NSCC_MAX_MD_JUMP;
	nscc_set(c, (int64_t)((double)s->cwnd * f));
	s->last_dec_time = now;
}

static void nscc_fulfill_adjustment(struct uet_ccc *c, uet_time now)
{
	struct uet_nscc *s = &c->nscc;
	double sub = nscc_sub(s);
	/* inc_bytes / cwnd is what an ACK of n bytes adds per RTT; below a
	 * packet an ACK comes once in MTU / cwnd RTTs and adds what a
	 * one-packet window would gain in one, in proportion */
	int64_t w = s->cwnd +
		    (int64_t)(sub * sub * s->inc_bytes / (double)s->cwnd);

	/* no eta: every ACK's rise is capped (nscc_small_step) */
	if (now - s->last_adjust_time >= s->base_rtt)
		s->last_adjust_time = now;
	nscc_set(c, w);
	s->inc_bytes = 0;
	s->received_bytes = 0;
}

/* A window below NSCC_PACE_PKTS is a rate: the next packet waits bytes
 * x RTT / cwnd, the RTT the queue makes (base RTT and average delay, so
 * that the rate meets the ACK clock's) moved by a quarter of the last
 * sample's distance from the average: paced senders do not slow down
 * as the queue grows, as windows do, and without it 128 of them swung
 * the queue from empty to full every 200 us. The gap is jittered by up
 * to 30% either way, the same on average: 1023 senders paced in step
 * found the same flows at the same phase of the queue every time. */
void uet_nscc_on_send(struct uet_ccc *c, uint32_t bytes, bool retx,
			 bool fwd, uet_time now)
{
	struct uet_nscc *s = &c->nscc;
	double rtt = (double)(s->base_rtt + s->avg_delay) +
		     NSCC_PACE_GAIN * ((double)s->last_delay -
				       (double)s->avg_delay);
	double u;

	(void)retx, (void)fwd;
	if (!s->heard) {
		/* The first window at the rate it stands for, over the
		 * fabric's base RTT: in a burst, the senders' first windows
		 * met at the receiver's port in the order of their
		 * distance, and the last ones took the trims (a fat tree of
		 * 32: the near two 63-66 cuts, the others 12-33). The price
		 * is a lone sender's first window: a 64 KiB message alone
		 * on the tree takes 14.9 us, not 7.8 (over half the RTT,
		 * 10.7, and 32 senders' Jain 0.941 at seed 1). Until the
		 * first feedback: kept while NACKs come, 1023 senders
		 * trimmed 106 k headers, not 78 k. */
		c->pace_at = now + (uet_time)(NSCC_FIRST_PACE *
					      (double)nscc_ref_rtt(c) *
					      (double)bytes /
					      (double)s->cwnd);
		return;
	}
	if (!nscc_paced(s))
		return;
	if (rtt < (double)s->base_rtt)
		rtt = (double)s->base_rtt;
	u = (double)(uet_rand(&c->rng) >> 11) / 9007199254740992.0;
	rtt *= 1.0 + NSCC_PACE_JITTER * (2.0 * u - 1.0);
	c->pace_at = now + (uet_time)(rtt * (double)bytes / (double)s->cwnd);
}

/* Destination flow control (UE 1.0 §3.6.13.2): a target short of resources
 * sets rcv_cwnd_pend; each ACK then takes pend/128 of its bytes off a
 * window no larger than what is in flight, and no increase applies. The
 * window of the start is kept, restored when an ACK says rc; an episode
 * that ends without rc forgets it (the pseudocode keeps it, and the
 * next episode would restore a stale window). */
static void nscc_dfc(struct uet_ccc *c, const struct uet_cc_ack *a)
{
	struct uet_nscc *s = &c->nscc;

	s->rcv_limit = a->pend > 0;
	if (a->pend) {
		int64_t dec = ((int64_t)a->pend * a->bytes) >> 7;

		if (!s->saved_cwnd)
			s->saved_cwnd = s->cwnd;
		nscc_set(c, nscc_min64(s->cwnd, c->inflight) - dec);
	} else if (s->saved_cwnd) {
		if (a->restore)
			nscc_set(c, s->saved_cwnd);
		s->saved_cwnd = 0;
	}
}

/* The rules after destination flow control (UE 1.0 §3.6.13.5). */
static void nscc_ack_rules(struct uet_ccc *c, const struct uet_cc_ack *a)
{
	struct uet_nscc *s = &c->nscc;
	int64_t n = a->bytes;
	uet_time delay;

	if (a->rtt != UET_TIME_NONE) {
		nscc_update_base_rtt(c, a->rtt);
		delay = a->rtt - s->base_rtt;
		nscc_update_delay(s, delay);
		s->last_delay = delay;
	} else {
		/* No valid sample (a resend's ACK, UE 1.0 §3.6.13.1):
		 * the average stands in, as in the UEC simulator.
		 * Stopping here froze the window while a trimmed burst
		 * was resent (32 senders: 220 us at one packet per RTT,
		 * the link a third idle). */
		delay = s->avg_delay;
	}
	s->tq = nscc_target(c);
	if (nscc_quick_adapt(c, false, a->ecn, delay, a->now))
		return;
	if (a->ecn) {
		if (delay >= s->tq)
			nscc_multiplicative_decrease(c, a->now);
	} else if (s->rcv_limit) {
		/* destination flow control: no increase */
	} else if (delay < s->tq) {
		nscc_proportional_increase(c, n, delay);
	} else {
		s->inc_bytes += s->fi * (double)n;	/* fair */
	}
	if (a->now - s->last_adjust_time >= s->base_rtt ||
	    s->received_bytes > NSCC_ADJUST_PKTS * s->mtu)
		nscc_fulfill_adjustment(c, a->now);
}

/* Within the fabric's base RTT of the start, a sample below the base RTT
 * scales the window with it: the first window was sized for the
 * fabric's RTT, and a near sender with the same window sends at three
 * times a far one's rate, and kept that lead (on a fat tree of 8
 * senders the nearest took 118 Gb/s of a fair 50). Outside nscc_small
 * _step: a cut there is only 0.3 of what is asked. */
static void nscc_first_rtt(struct uet_ccc *c, const struct uet_cc_ack *a)
{
	struct uet_nscc *s = &c->nscc;

	if (a->rtt == UET_TIME_NONE || a->rtt >= s->base_rtt ||
	    a->now - s->start_at >= nscc_ref_rtt(c))
		return;
	nscc_set(c, (int64_t)((double)s->cwnd * (double)a->rtt /
			      (double)s->base_rtt));
}

/* A small window takes the target's flow control as it comes, the
 * network's signals in small steps. */
void uet_nscc_on_ack(struct uet_ccc *c, const struct uet_cc_ack *a)
{
	struct uet_nscc *s = &c->nscc;
	int64_t w0;

	s->heard = true;
	s->ack_gap = s->last_ack_at == UET_TIME_NONE ? 0 :
		     a->now - s->last_ack_at;
	s->last_ack_at = a->now;
	s->bytes_ignored += a->bytes;
	s->received_bytes += a->bytes;
	s->achieved_bytes += a->bytes;
	nscc_dfc(c, a);
	nscc_first_rtt(c, a);
	w0 = s->cwnd;
	nscc_ack_rules(c, a);
	nscc_small_step(c, w0, a->rtt != UET_TIME_NONE &&
			       nscc_empty(s, s->last_delay), false);
}

static void nscc_on_nack(struct uet_ccc *c, uint32_t bytes,
			 enum uet_cc_nack why, bool ecn, uet_time rtt,
			 uet_time now)
{
	struct uet_nscc *s = &c->nscc;

	(void)ecn;
	s->heard = true;
	if (rtt != UET_TIME_NONE)
		nscc_update_base_rtt(c, rtt);
	if (why == UET_CC_NACK_OTHER)
		return;
	/* A trim means a full queue: take the trim threshold as delay. */
	nscc_update_delay(s, c->cfg->base_rtt);
	s->bytes_ignored += bytes;
	/* Last-hop trims are the receiver's business when RCCC runs. */
	if (why == UET_CC_NACK_TRIM || c->cfg->cca != UET_CCA_NSCC_RCCC) {
		s->trigger_qa = true;
		if (!nscc_quick_adapt(c, true, true, 0, now))
			nscc_set(c, nscc_cut(s, bytes, now));
	}
}

void uet_nscc_on_nack(struct uet_ccc *c, uint32_t bytes,
			 enum uet_cc_nack why, bool ecn, uet_time rtt,
			 uet_time now)
{
	int64_t w0 = c->nscc.cwnd;

	nscc_on_nack(c, bytes, why, ecn, rtt, now);
	nscc_small_step(c, w0, false, true);
}

void uet_nscc_on_loss(struct uet_ccc *c, uint32_t bytes, uet_time sent_at,
			 uet_time now)
{
	struct uet_nscc *s = &c->nscc;

	(void)sent_at;
	s->bytes_ignored += bytes;
	nscc_set(c, nscc_cut(s, bytes, now));
}

static bool nscc_runs(const struct uet_ccc *c)
{
	return c->ops == &uet_nscc_ops || c->ops == &uet_rccc_nscc_ops;
}

/* UE 1.0 §3.6.13.7: without a configured base RTT, one PROBE after the
 * first ACK (a probe cannot open a PDC) gives a sample that no burst of
 * ours queued behind; skipped while what is left is one BDP (at the
 * reference RTT) or less: that transfer is over within two RTTs. Asked
 * again at later ACKs while it stays small. */
bool uet_nscc_probe_due(const struct uet_ccc *c)
{
	const struct uet_nscc *s = &c->nscc;

	return nscc_runs(c) && s->probe == UET_NSCC_PROBE_WANT &&
	       (double)(c->inflight + c->rccc.backlog) * 1.5 >
	       (double)s->max_wnd;
}

void uet_nscc_probe_queued(struct uet_ccc *c)
{
	c->nscc.probe = UET_NSCC_PROBE_OUT;
}

uint16_t uet_nscc_probe_sent(struct uet_ccc *c, uet_time now)
{
	struct uet_nscc *s = &c->nscc;

	s->probe = UET_NSCC_PROBE_OUT;
	s->probe_at = now;
	return ++s->probe_opaque;
}

/* The answer's RTT less the target's service time replaces the
 * reference value, up or down; after it the base RTT only decreases.
 * A probe lost stays lost: the data's samples still lower the guess. */
bool uet_nscc_probe_answer(struct uet_ccc *c, uint16_t opaque,
			   uet_time service, uet_time now)
{
	struct uet_nscc *s = &c->nscc;
	uet_time rtt;

	if (!nscc_runs(c) || s->probe != UET_NSCC_PROBE_OUT ||
	    s->probe_at == UET_TIME_NONE || opaque != s->probe_opaque ||
	    now < s->probe_at)
		return false;
	rtt = now - s->probe_at;
	rtt = rtt > service ? rtt - service : 1;
	s->probe = UET_NSCC_PROBE_NONE;
	s->probe_at = UET_TIME_NONE;
	s->base_rtt = rtt;
	s->max_wnd = nscc_max_wnd(c, rtt);
	if (s->cwnd > s->max_wnd)
		nscc_set(c, s->max_wnd);
	c->rtt_last = rtt;
	return true;
}

/* CanSend (UE 1.0 §3.6.13); a paced window lets a packet go while less
 * than the window is in flight (uet_nscc_on_send spaces them), so that
 * 1.5 packets send 1.5 per RTT, not one. */
bool uet_nscc_can_send(const struct uet_ccc *c)
{
	if (nscc_paced(&c->nscc))
		return c->inflight < c->cwnd || c->inflight <= 0;
	return c->inflight + c->mtu <= nscc_max64(c->cwnd, c->mtu);
}

static bool nscc_can_send(const struct uet_ccc *c, bool fwd)
{
	(void)fwd;
	return uet_nscc_can_send(c);
}

/* UE 1.0 §3.6.13.5 AckRequest: the window cannot take another full packet. */
bool uet_nscc_ack_request(const struct uet_ccc *c, uint32_t bytes)
{
	return c->cwnd - (c->inflight + (int64_t)bytes) < c->mtu;
}

const struct uet_cc_ops uet_nscc_ops = {
	.name = "nscc",
	.init = uet_nscc_init,
	.on_send = uet_nscc_on_send,
	.on_ack = uet_nscc_on_ack,
	.on_nack = uet_nscc_on_nack,
	.on_loss = uet_nscc_on_loss,
	.can_send = nscc_can_send,
	.ack_request = uet_nscc_ack_request,
};
