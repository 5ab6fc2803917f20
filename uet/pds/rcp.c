/* The receiver's credit pacer (see rcp.h). */
#include "../cms/ccc.h"

#include "pdc.h"
#include "pds.h"
#include "rcp.h"

#define RCP_CHUNK_PKTS	4	/* full packets of credit per grant */
#define RCP_CATCH_UP	8	/* chunks granted late at once, at most */
/* Grant rate, in 1/65536 of the link rate: RCP_OVER with no CE heard,
 * RCP_BACK less for every unit of CE fraction. Above the line rate so
 * that the last hop never idles for want of credit; CE pulls it below
 * so that what the speculative start left queued drains. The queue
 * settles where CE = (RCP_OVER - 1) / RCP_BACK, just above the marking
 * threshold. */
#define RCP_ONE		65536u
#define RCP_OVER	(RCP_ONE + RCP_ONE / 100)
#define RCP_BACK	(RCP_ONE / 2)
#define RCP_EWMA_SHIFT	4	/* CE EWMA weight per packet: 1/16 */
#define RCP_EWMA_STEPS	64	/* enough to forget what came before */

bool uet_rcp_on(const struct uet_pds *pds)
{
	return pds->cfg.cca == UET_CCA_RCCC || pds->cfg.cca == UET_CCA_NSCC_RCCC;
}

/* Quanta the sender still wants beyond what it was granted. */
static uint32_t rcp_owed(const struct uet_pdc *pdc)
{
	uint32_t d = (pdc->rc_want_q - pdc->rc_granted_q) & UET_RCCC_Q_MASK;

	return d > UET_RCCC_Q_MASK / 2 ? 0 : d;
}

void uet_rcp_want(struct uet_pds *pds, struct uet_pdc *pdc, uint32_t target_q,
		  uet_time now)
{
	uint32_t ahead = (target_q - pdc->rc_want_q) & UET_RCCC_Q_MASK;

	if (!uet_rcp_on(pds))
		return;
	/* cumulative: only a newer wish counts */
	if (ahead && ahead <= UET_RCCC_Q_MASK / 2)
		pdc->rc_want_q = target_q & UET_RCCC_Q_MASK;
	if (!rcp_owed(pdc) || uet_list_linked(&pdc->rc_link))
		return;
	if (uet_list_empty(&pds->rc_active) && pds->rc_next < now)
		pds->rc_next = now;	/* the pacer was idle */
	uet_list_add_tail(&pds->rc_active, &pdc->rc_link);
}

void uet_rcp_leave(struct uet_pds *pds, struct uet_pdc *pdc)
{
	(void)pds;
	uet_list_del(&pdc->rc_link);
}

uet_time uet_rcp_next(const struct uet_pds *pds)
{
	return uet_list_empty(&pds->rc_active) ? UET_TIME_NONE : pds->rc_next;
}

void uet_rcp_heard(struct uet_pds *pds, struct uet_acktr *rx, bool ce)
{
	uint64_t full = UET_CCC_NOMINAL(pds->cfg.mtu);
	uint64_t n = rx->rcvd_bytes - rx->rcvd_heard;
	uint32_t m = pds->rc_mark;

	rx->rcvd_heard = rx->rcvd_bytes;
	if (!uet_rcp_on(pds) || !n)
		return;
	/* one EWMA step per full packet the ACK covers, at least one */
	n = (n + full - 1) / full;
	for (n = n < RCP_EWMA_STEPS ? n : RCP_EWMA_STEPS; n; n--) {
		m -= m >> RCP_EWMA_SHIFT;
		if (ce)
			m += RCP_ONE >> RCP_EWMA_SHIFT;
	}
	pds->rc_mark = m;
}

/* The grant rate now, 1/65536 of the link. */
static uint64_t rcp_rate(const struct uet_pds *pds)
{
	uint64_t back = (uint64_t)RCP_BACK * pds->rc_mark / RCP_ONE;

	return RCP_OVER - back;
}

/* Time to grant q quanta at the current rate. */
static uet_time rcp_time(const struct uet_pds *pds, uint32_t q)
{
	double bits = (double)q * UET_RCCC_QUANTUM * 8.0;
	double bps = (double)pds->cfg.link_bps * (double)rcp_rate(pds) /
		     RCP_ONE;

	return (uet_time)(bits * (double)UET_SEC / bps) + 1;
}

void uet_rcp_run(struct uet_pds *pds, uet_time now)
{
	uint32_t chunk = (uint32_t)((UET_CCC_NOMINAL(pds->cfg.mtu) *
				     RCP_CHUNK_PKTS + UET_RCCC_QUANTUM - 1) /
				    UET_RCCC_QUANTUM);
	struct uet_list *l;

	/* Late: a software receiver is not always running when a grant is
	 * due, so what fell due meanwhile goes at once, up to a few chunks
	 * (more would be a burst the last hop cannot take). */
	if (pds->rc_next + RCP_CATCH_UP * rcp_time(pds, chunk) < now)
		pds->rc_next = now - RCP_CATCH_UP * rcp_time(pds, chunk);
	while (pds->rc_next <= now && (l = uet_list_first(&pds->rc_active))) {
		struct uet_pdc *pdc = uet_container_of(l, struct uet_pdc,
						       rc_link);
		uint32_t q = rcp_owed(pdc);

		uet_list_del(&pdc->rc_link);
		if (!q)
			continue;
		if (q > chunk)
			q = chunk;
		pdc->rc_granted_q = (pdc->rc_granted_q + q) & UET_RCCC_Q_MASK;
		pds->st->credit_q += q;
		uet_pdc_want_ctl(pds, pdc, UET_PDC_CTL_CREDIT);
		uet_pdc_rearm(pds, pdc);
		if (rcp_owed(pdc))
			uet_list_add_tail(&pds->rc_active, &pdc->rc_link);
		pds->rc_next += rcp_time(pds, q);
	}
}
