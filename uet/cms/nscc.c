/* NSCC, the network signal-based congestion control (cms.md §3): one byte
 * window per CCC over all its paths, grown while the queueing delay is
 * under target and no ECN comes back, cut multiplicatively when both say
 * congestion, and reset to the measured goodput by quick adapt when a
 * window's worth of signals says the fabric is overrun.
 *
 * Choices where cms.md leaves room (§3.3, §9), each from the UEC
 * simulator's defaults: scaling_b = target_qdelay / 12 us; max_md_jump
 * 0.5; qa_gate 3; delay EWMA weight 1/80 (0.0125); "no delay" for fast
 * increase below 1 us; qa_threshold 4 x target_qdelay without trimming
 * and off with it. Units: bytes (signed, cms.md §2 note on rounding) and
 * nanoseconds.
 */
#include "ccc.h"

#define NSCC_REF_BDP		150000.0	/* 100 Gb/s x 12 us, bytes */
#define NSCC_REF_RTT		(12 * UET_USEC)
#define NSCC_GAMMA		0.8
#define NSCC_MAX_MD_JUMP	0.5
#define NSCC_QA_GATE		3
#define NSCC_EWMA_DIV		80		/* weight 0.0125 */
#define NSCC_NO_DELAY		(1 * UET_USEC)
#define NSCC_ADJUST_PKTS	8

static int64_t nscc_max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static int64_t nscc_min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* max_wnd = 1.5 x link rate x base RTT (cms.md §3.3). */
static int64_t nscc_max_wnd(const struct uet_ccc *c, uet_time base_rtt)
{
	double bdp = (double)c->cfg->link_bps / 8.0 * (double)base_rtt /
		     (double)UET_SEC;

	return nscc_max64((int64_t)(1.5 * bdp), c->mtu);
}

void uet_nscc_init(struct uet_ccc *c, uet_time now)
{
	struct uet_nscc *s = &c->nscc;
	uet_time rtt = c->cfg->base_rtt ? c->cfg->base_rtt : NSCC_REF_RTT;
	double bdp = (double)c->cfg->link_bps / 8.0 * (double)rtt /
		     (double)UET_SEC;
	double scaling_a, scaling_b;

	s->mtu = c->mtu;
	s->base_rtt = rtt;
	s->max_wnd = nscc_max_wnd(c, rtt);
	s->cwnd = s->max_wnd;
	s->target_qdelay = c->cfg->trimming ? rtt * 3 / 4 : rtt;
	s->qa_threshold = c->cfg->trimming ? UET_TIME_NONE :
					     4 * s->target_qdelay;
	scaling_a = bdp / NSCC_REF_BDP;
	scaling_b = (double)s->target_qdelay / (double)NSCC_REF_RTT;
	s->alpha = 4.0 * scaling_a * scaling_b * (double)s->mtu /
		   (double)s->target_qdelay;
	s->fi = 5.0 * (double)s->mtu * scaling_a;
	s->eta = 0.15 * (double)s->mtu * scaling_a;
	s->fi_scale = 0.25 * scaling_a;
	s->last_adjust_time = s->last_dec_time = now;
	s->qa_endtime = 0;
	c->cwnd = s->cwnd;
}

static void nscc_set(struct uet_ccc *c, int64_t cwnd)
{
	struct uet_nscc *s = &c->nscc;

	s->cwnd = nscc_min64(nscc_max64(cwnd, s->mtu), s->max_wnd);
	c->cwnd = s->cwnd;
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

/* EWMA of the queueing delay (cms.md §3.5 update_delay). */
static void nscc_update_delay(struct uet_nscc *s, uet_time delay)
{
	int64_t d = (int64_t)delay - (int64_t)s->avg_delay;

	s->avg_delay = (uet_time)((int64_t)s->avg_delay + d / NSCC_EWMA_DIV);
}

/* Quick adapt (cms.md §3.5): at most once per base_rtt + target_qdelay,
 * jump to what the last such window delivered. True: skip the table. */
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
		nscc_set(c, s->achieved_bytes);
		s->bytes_to_ignore = c->inflight;
		s->bytes_ignored = 0;
		s->trigger_qa = false;
		s->inc_bytes = 0;
		s->received_bytes = 0;
		s->achieved_bytes = 0;
		s->qa_endtime = now + s->base_rtt + s->target_qdelay;
		return true;
	}
	s->achieved_bytes = 0;
	s->qa_endtime = now + s->base_rtt + s->target_qdelay;
	return false;
}

static void nscc_fast_increase(struct uet_ccc *c, int64_t n, uet_time delay)
{
	struct uet_nscc *s = &c->nscc;

	if (delay < NSCC_NO_DELAY) {
		s->fi_count += n;
		if (s->fi_count > s->cwnd || s->increase_mode) {
			nscc_set(c, s->cwnd + (int64_t)((double)n *
							s->fi_scale));
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
			(double)((int64_t)s->target_qdelay - (int64_t)delay);
}

static void nscc_multiplicative_decrease(struct uet_ccc *c, uet_time now)
{
	struct uet_nscc *s = &c->nscc;
	double f;

	s->increase_mode = false;
	s->fi_count = 0;
	if (s->avg_delay <= s->target_qdelay ||
	    now - s->last_dec_time <= s->base_rtt)
		return;
	f = 1.0 - NSCC_GAMMA * (double)(s->avg_delay - s->target_qdelay) /
		  (double)s->avg_delay;
	if (f < NSCC_MAX_MD_JUMP)
		f = NSCC_MAX_MD_JUMP;
	nscc_set(c, (int64_t)((double)s->cwnd * f));
	s->last_dec_time = now;
}

static void nscc_fulfill_adjustment(struct uet_ccc *c, uet_time now)
{
	struct uet_nscc *s = &c->nscc;
	int64_t w = s->cwnd + (int64_t)(s->inc_bytes / (double)s->cwnd);

	if (now - s->last_adjust_time >= s->base_rtt) {
		if (!s->rcv_limit)
			w += (int64_t)s->eta;
		s->last_adjust_time = now;
	}
	nscc_set(c, w);
	s->inc_bytes = 0;
	s->received_bytes = 0;
}

void uet_nscc_on_send(struct uet_ccc *c, uint32_t bytes, bool retx,
			 uet_time now)
{
	(void)c, (void)bytes, (void)retx, (void)now;
}

/* Destination flow control (cms.md §3.6): a target short of resources
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

void uet_nscc_on_ack(struct uet_ccc *c, const struct uet_cc_ack *a)
{
	struct uet_nscc *s = &c->nscc;
	int64_t n = a->bytes;
	uet_time delay;

	s->bytes_ignored += n;
	s->received_bytes += n;
	s->achieved_bytes += n;
	nscc_dfc(c, a);
	if (a->rtt == UET_TIME_NONE)
		return;
	nscc_update_base_rtt(c, a->rtt);
	delay = a->rtt - s->base_rtt;
	nscc_update_delay(s, delay);
	if (nscc_quick_adapt(c, false, a->ecn, delay, a->now))
		return;
	if (a->ecn) {
		if (delay >= s->target_qdelay)
			nscc_multiplicative_decrease(c, a->now);
	} else if (s->rcv_limit) {
		/* destination flow control: no increase */
	} else if (delay < s->target_qdelay) {
		nscc_proportional_increase(c, n, delay);
	} else {
		s->inc_bytes += s->fi * (double)n;	/* fair */
	}
	if (a->now - s->last_adjust_time >= s->base_rtt ||
	    s->received_bytes > NSCC_ADJUST_PKTS * s->mtu)
		nscc_fulfill_adjustment(c, a->now);
}

void uet_nscc_on_nack(struct uet_ccc *c, uint32_t bytes,
			 enum uet_cc_nack why, bool ecn, uet_time rtt,
			 uet_time now)
{
	struct uet_nscc *s = &c->nscc;

	(void)ecn;
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
			nscc_set(c, s->cwnd - bytes);
	}
}

void uet_nscc_on_loss(struct uet_ccc *c, uint32_t bytes, uet_time sent_at,
			 uet_time now)
{
	struct uet_nscc *s = &c->nscc;

	(void)sent_at, (void)now;
	s->bytes_ignored += bytes;
	nscc_set(c, s->cwnd - bytes);
}

bool uet_nscc_can_send(const struct uet_ccc *c)
{
	return c->inflight + c->mtu <= c->cwnd;
}

static bool nscc_can_send(const struct uet_ccc *c, bool fwd)
{
	(void)fwd;
	return uet_nscc_can_send(c);
}

/* cms.md §3.5 AckRequest: the window cannot take another full packet. */
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
