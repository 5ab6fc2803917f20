/* The receiver's credit pacer (RCCC, docs/choices.md §9.3): one per FEP.
 * Senders say on every *_CC_REQ (and CREDIT_REQUEST) how much credit they
 * want, as a cumulative 24-bit count of 256-byte quanta; the pacer grants
 * it round robin among the PDCs that want more, a chunk of 4 full packets
 * at a time, at about this FEP's link rate: 1% above it while the packets
 * arrive unmarked, below it as the CE fraction grows, so that the senders
 * together keep the last hop busy with a short queue. Grants go out as
 * CREDIT CPs carrying the PDC's cumulative count (a lost one is made good
 * by the next, or by the answer to a CREDIT_REQUEST).
 */
#ifndef UET_PDS_RCP_H
#define UET_PDS_RCP_H

#include <stdbool.h>
#include <stdint.h>

#include "uet/time.h"

struct uet_acktr;
struct uet_pds;
struct uet_pdc;

/* Does this FEP grant credit (cfg.cca uses RCCC)? */
bool uet_rcp_on(const struct uet_pds *pds);
/* pdc's sender wants credit up to target_q (cumulative quanta). */
void uet_rcp_want(struct uet_pds *pds, struct uet_pdc *pdc, uint32_t target_q,
		  uet_time now);
/* The PDC goes away. */
void uet_rcp_leave(struct uet_pds *pds, struct uet_pdc *pdc);
/* The next grant is due then (UET_TIME_NONE: nobody wants credit). */
uet_time uet_rcp_next(const struct uet_pds *pds);
/* An ACK goes out for rx's new data since the last, with or without a
 * CE echo: the last hop's queue steers the grant rate. */
void uet_rcp_heard(struct uet_pds *pds, struct uet_acktr *rx, bool ce);
/* Make the grants due by now. */
void uet_rcp_run(struct uet_pds *pds, uet_time now);

#endif
