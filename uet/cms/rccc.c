/* RCCC, receiver credit-based congestion control (UE 1.0 §3.6.14), sender
 * side. The target paces credit to its active senders at its line rate
 * (uet/pds/rcp.c); a sender spends it. Choices where the spec's tables
 * were not available, following the UEC simulator's model:
 * - credit travels as a 24-bit cumulative count of 256-byte quanta, in
 *   CREDIT control packets (payload); ACK_CC keeps cc_type NSCC so that
 *   NSCC+RCCC has its service time;
 * - a new CCC starts with half a BDP of speculative credit (a packet
 *   at least), so that a short message needs no round trip; the first
 *   grant or NACK ends speculation and drops what is left of it (an ACK
 *   does not: a lone sender spends it all). More speculation only adds
 *   to an incast's trims, and past 1 BDP of priority queue to header
 *   drops that only an RTO recovers;
 * - every forward request is a *_CC_REQ carrying credit_target, the
 *   cumulative count the sender wants: granted so far plus its backlog
 *   (what SES still has to send, capped at 1.5 BDP) less the credit it
 *   holds;
 * - a packet goes only on credit that covers it (rccc_need);
 * - a sender that has a backlog, no credit and nothing in flight asks
 *   with a CREDIT_REQUEST CP (a lost CREDIT must not stall it);
 * - return-direction read data is not credit-paced (its receiver is the
 *   initiator, which runs no pacer for it) and spends no credit: NSCC or
 *   the 1.5 BDP cap bounds it.
 */
#include "ccc.h"

#define RCCC_ASK_BACKOFF	4	/* unanswered requests double, 16x at most */

static int64_t rccc_max_credit(const struct uet_ccc *c)
{
	uet_time rtt = c->cfg->base_rtt ? c->cfg->base_rtt : 12 * UET_USEC;
	double bdp = (double)c->cfg->link_bps / 8.0 * (double)rtt /
		     (double)UET_SEC;
	int64_t m = (int64_t)(1.5 * bdp);

	return m > c->mtu ? m : c->mtu;
}

static void rccc_init(struct uet_ccc *c, uet_time now)
{
	struct uet_rccc *r = &c->rccc;

	(void)now;
	r->max_credit = rccc_max_credit(c);
	/* speculative: half a BDP, and a packet at least: a PDC is opened
	 * by its first packet, and credit can be asked for only on one
	 * (10 Gb/s x 12 us with 9000-byte packets sent nothing) */
	r->credit = r->max_credit / 3 > c->mtu ? r->max_credit / 3 : c->mtu;
	r->spec = true;
	r->starved_at = UET_TIME_NONE;
	r->grant_at = r->grant_gap = UET_TIME_NONE;
	r->asks = 0;
	c->cwnd = r->max_credit;
}

/* Bytes still to send: SES's backlog and the resends due. */
static int64_t rccc_left(const struct uet_ccc *c)
{
	return c->rccc.backlog + c->rtx_backlog;
}

/* Credit the next packet needs: a full packet's nominal bytes, or all
 * that is left when that is less. A packet goes only on credit that
 * covers it: one sent on a part of it runs ahead of the grants, and the
 * grant that pays for it at the flow's end paces out nothing. */
static int64_t rccc_need(const struct uet_ccc *c)
{
	int64_t all = rccc_left(c);

	return all > 0 && all < c->mtu ? all : c->mtu;
}

static bool rccc_credit_ok(const struct uet_ccc *c)
{
	return c->rccc.credit >= rccc_need(c);
}

/* Note when the sender ran out of credit with work left (the CREDIT
 * REQUEST timer), or that it has some again. */
static void rccc_note(struct uet_ccc *c, uet_time now)
{
	struct uet_rccc *r = &c->rccc;

	if (rccc_credit_ok(c) || rccc_left(c) <= 0)
		r->starved_at = UET_TIME_NONE;
	else if (r->starved_at == UET_TIME_NONE)
		r->starved_at = now;
}

/* The end of speculation: what was not spent of it goes. */
static void rccc_unspec(struct uet_ccc *c, uet_time now)
{
	struct uet_rccc *r = &c->rccc;

	if (!r->spec)
		return;
	r->spec = false;
	if (r->credit > 0)
		r->credit = 0;
	rccc_note(c, now);
}

static void rccc_on_send(struct uet_ccc *c, uint32_t bytes, bool retx,
			 bool fwd, uet_time now)
{
	(void)retx;
	/* Only a packet sent on credit spends it. One sent without (a SYN
	 * resend, before the target can grant: ../pds/ini.c) runs no debt
	 * that the first grants would go to repay while the link idles;
	 * nor does read data going back (never credit-paced): spent from
	 * the forward credit, it left a PDC of the same CCC short with
	 * nothing in flight, and no timer of its own to ask again (an RMA
	 * read benchmark, both ends reading, hung). */
	if (fwd && c->rccc.credit > 0)
		c->rccc.credit -= bytes;
	rccc_note(c, now);
}

/* An ACK says nothing of contention: a lone sender keeps spending its
 * speculative credit until the first grant (or a NACK) ends it. */
static void rccc_on_ack(struct uet_ccc *c, const struct uet_cc_ack *a)
{
	(void)c, (void)a;
}

static void rccc_on_nack(struct uet_ccc *c, uint32_t bytes,
			 enum uet_cc_nack why, bool ecn, uet_time rtt,
			 uet_time now)
{
	(void)bytes, (void)why, (void)ecn, (void)rtt;
	rccc_unspec(c, now);
}

static void rccc_on_loss(struct uet_ccc *c, uint32_t bytes, uet_time sent_at,
			 uet_time now)
{
	(void)c, (void)bytes, (void)sent_at, (void)now;
}

static bool rccc_can_send(const struct uet_ccc *c, bool fwd)
{
	if (!fwd)
		return c->inflight + c->mtu <= c->rccc.max_credit;
	return rccc_credit_ok(c) && c->inflight + c->mtu <= c->rccc.max_credit;
}

/* Ask for an ACK when what credit is left after this packet covers no
 * full one: nothing else would come while we wait for grants. */
static bool rccc_ack_request(const struct uet_ccc *c, uint32_t bytes)
{
	return c->rccc.credit - (int64_t)bytes < c->mtu;
}

const struct uet_cc_ops uet_rccc_ops = {
	.name = "rccc",
	.init = rccc_init,
	.on_send = rccc_on_send,
	.on_ack = rccc_on_ack,
	.on_nack = rccc_on_nack,
	.on_loss = rccc_on_loss,
	.can_send = rccc_can_send,
	.ack_request = rccc_ack_request,
};

/* ---- NSCC and RCCC together: a packet needs window and credit ---- */

static void both_init(struct uet_ccc *c, uet_time now)
{
	uet_nscc_init(c, now);
	rccc_init(c, now);
	c->cwnd = c->nscc.cwnd;
}

static void both_on_send(struct uet_ccc *c, uint32_t bytes, bool retx,
			 bool fwd, uet_time now)
{
	uet_nscc_on_send(c, bytes, retx, fwd, now);
	rccc_on_send(c, bytes, retx, fwd, now);
}

static void both_on_ack(struct uet_ccc *c, const struct uet_cc_ack *a)
{
	uet_nscc_on_ack(c, a);
	rccc_on_ack(c, a);
}

static void both_on_nack(struct uet_ccc *c, uint32_t bytes,
			 enum uet_cc_nack why, bool ecn, uet_time rtt,
			 uet_time now)
{
	uet_nscc_on_nack(c, bytes, why, ecn, rtt, now);
	rccc_on_nack(c, bytes, why, ecn, rtt, now);
}

static bool both_can_send(const struct uet_ccc *c, bool fwd)
{
	return uet_nscc_can_send(c) && (!fwd || rccc_credit_ok(c));
}

static bool both_ack_request(const struct uet_ccc *c, uint32_t bytes)
{
	return uet_nscc_ack_request(c, bytes) || rccc_ack_request(c, bytes);
}

const struct uet_cc_ops uet_rccc_nscc_ops = {
	.name = "nscc+rccc",
	.init = both_init,
	.on_send = both_on_send,
	.on_ack = both_on_ack,
	.on_nack = both_on_nack,
	.on_loss = uet_nscc_on_loss,
	.can_send = both_can_send,
	.ack_request = both_ack_request,
};

/* ---- what PDS asks of any CCC ---- */

bool uet_ccc_credit_paced(const struct uet_ccc *c)
{
	return c->ops == &uet_rccc_ops || c->ops == &uet_rccc_nscc_ops;
}

uint32_t uet_ccc_credit_target(const struct uet_ccc *c)
{
	const struct uet_rccc *r = &c->rccc;
	int64_t all = rccc_left(c);
	int64_t want = all < r->max_credit ? all : r->max_credit;
	uint64_t q;

	if (r->credit > 0)
		want -= r->credit;
	if (want < 0)
		want = 0;
	q = ((uint64_t)want + UET_RCCC_QUANTUM - 1) / UET_RCCC_QUANTUM;
	return (uint32_t)((r->granted_q + q) & UET_RCCC_Q_MASK);
}

void uet_ccc_on_credit(struct uet_ccc *c, uint32_t granted_q, uet_time now)
{
	struct uet_rccc *r = &c->rccc;
	uint32_t d = (granted_q - r->granted_q) & UET_RCCC_Q_MASK;

	if (!uet_ccc_credit_paced(c) || !d || d > UET_RCCC_Q_MASK / 2)
		return;		/* nothing new, or older than what we had */
	rccc_unspec(c, now);
	if (r->grant_at != UET_TIME_NONE)
		r->grant_gap = now - r->grant_at;
	r->grant_at = now;
	r->asks = 0;
	r->granted_q = granted_q & UET_RCCC_Q_MASK;
	r->credit += (int64_t)d * UET_RCCC_QUANTUM;
	if (r->credit > r->max_credit)
		r->credit = r->max_credit;
	/* short of a packet still: the silence counts from this grant */
	r->starved_at = UET_TIME_NONE;
	rccc_note(c, now);
}

void uet_ccc_set_backlog(struct uet_ccc *c, int64_t bytes, uet_time now)
{
	struct uet_rccc *r = &c->rccc;

	r->backlog = bytes;
	rccc_note(c, now);
}

uet_time uet_ccc_credit_req_at(const struct uet_ccc *c, uet_time after)
{
	const struct uet_rccc *r = &c->rccc;
	uint32_t owed;

	if (!uet_ccc_credit_paced(c) || rccc_credit_ok(c) ||
	    rccc_left(c) <= 0 || r->starved_at == UET_TIME_NONE)
		return UET_TIME_NONE;
	/* wants more than it last said, and the target owes it less than
	 * a packet of what it said: ask at once. (While it owes more, its
	 * pacer comes back anyway: the packet that spent the last credit
	 * asked before it spent, a packet short, every time.) */
	owed = (r->told_q - r->granted_q) & UET_RCCC_Q_MASK;
	if (owed > UET_RCCC_Q_MASK / 2)
		owed = 0;
	if (uet_ccc_credit_target(c) != r->told_q &&
	    (int64_t)owed * UET_RCCC_QUANTUM < c->mtu)
		return r->starved_at;
	/* a grant may be on its way while packets are in flight */
	if (c->inflight_pkts)
		return UET_TIME_NONE;
	/* Silence: a CREDIT may be lost. But a pacer shared by many
	 * senders comes round only so often: wait twice the last gap
	 * between grants if that is longer, and twice as long after each
	 * request that brought nothing. */
	if (r->grant_gap != UET_TIME_NONE && after < 2 * r->grant_gap)
		after = 2 * r->grant_gap;
	return r->starved_at + (after << (r->asks < RCCC_ASK_BACKOFF ?
					  r->asks : RCCC_ASK_BACKOFF));
}

void uet_ccc_credit_asked(struct uet_ccc *c, uet_time now)
{
	struct uet_rccc *r = &c->rccc;

	r->starved_at = now;
	if (r->asks < UINT8_MAX)
		r->asks++;
}
