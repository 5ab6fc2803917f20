/* RTT estimate and RTO of a PDC (see rtt.h). */
#include "rtt.h"

/* RFC 6298's G: the clock is in ns, so the floor only keeps a steady
 * RTT (RTTVAR -> 0) from asking for an RTO of exactly SRTT. */
#define RTT_GRANULARITY	(10 * UET_USEC)

void uet_rtt_init(struct uet_rtt *r)
{
	r->srtt = 0;
	r->rttvar = 0;
	r->latest = r->min = 0;
	r->valid = false;
}

void uet_rtt_sample(struct uet_rtt *r, uet_time m)
{
	uet_time err;

	r->latest = m;
	if (!r->valid || m < r->min)
		r->min = m;
	if (!r->valid) {
		r->srtt = m;
		r->rttvar = m / 2;
		r->valid = true;
		return;
	}
	err = m > r->srtt ? m - r->srtt : r->srtt - m;
	/* RTTVAR first: it uses the SRTT before this sample. */
	r->rttvar = r->rttvar - r->rttvar / 4 + err / 4;
	r->srtt = r->srtt - r->srtt / 8 + m / 8;
}

uet_time uet_rtt_rto(const struct uet_rtt *r, uet_time lo, uet_time hi)
{
	uet_time var, rto;

	if (!r->valid)
		return lo;
	var = 4 * r->rttvar > RTT_GRANULARITY ? 4 * r->rttvar :
						RTT_GRANULARITY;
	rto = r->srtt + var;
	if (rto < lo)
		rto = lo;
	return rto < hi ? rto : hi;
}
