/* The initiator role of a PDC (docs/choices.md §2, §3.5, §3.3, §4):
 * sending requests with SYN until the first ACK, processing ACKs (ACK_PSN
 * with its SES response, CACK, SACK, MPR), CLEAR, retransmission on RTO
 * with exponential backoff, reactions to NACKs, idle close, liveness
 * probes while SES waits on an idle PDC.
 *
 * The sending side of a direction is the same whichever role sends it:
 * a target PDC sends the return direction (read data, sublayer.h) with
 * these functions too, on its own rtb (uet_ini_poll_new, _poll_retx,
 * _rx_ack, _rto and the NACK reactions work on either role).
 */
#ifndef UET_PDS_INI_H
#define UET_PDS_INI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uet/net.h"
#include "uet/time.h"
#include "uet/wire.h"

struct uet_pds;
struct uet_pdc;

/* An ACK: of the forward direction at an initiator PDC, of the return
 * direction at a target PDC. */
int uet_ini_rx_ack(struct uet_pds *pds, const struct uet_pkt_info *pi,
		   const struct uet_pkt *p, uet_time now);
/* CLOSE_REQ and CLEAR_REQ from the target; ACK_REQ and CLEAR about the
 * return direction. */
int uet_ini_rx_ctrl(struct uet_pds *pds, struct uet_pdc *pdc,
		    const struct uet_pkt_info *pi, const struct uet_pds_hdr *h,
		    uet_time now);

uet_time uet_ini_deadline(struct uet_pds *pds, struct uet_pdc *pdc);
void uet_ini_timeout(struct uet_pds *pds, struct uet_pdc *pdc, uet_time now);
/* The RTOs of the direction this PDC sends that are due; false when they
 * failed the PDC (the slot is free then). */
bool uet_ini_rto(struct uet_pds *pds, struct uet_pdc *pdc, uet_time now);
/* The peer of pdc was heard from: no liveness probe is due. */
void uet_ini_heard(struct uet_pdc *pdc, uet_time now);

/* May the PDC send a new packet now (window, ring, MP_RANGE, SYN span)? */
bool uet_ini_can_send(struct uet_pds *pds, struct uet_pdc *pdc);
ssize_t uet_ini_poll_ctl(struct uet_pds *pds, struct uet_pdc *pdc,
			 struct uet_pkt_info *pi, uint8_t *buf, size_t cap,
			 uet_time now);
ssize_t uet_ini_poll_retx(struct uet_pds *pds, struct uet_pdc *pdc,
			  struct uet_pkt_info *pi, uint8_t *buf, size_t cap,
			  uet_time now);
/* 0 when SES has nothing (tx_want is then cleared). */
ssize_t uet_ini_poll_new(struct uet_pds *pds, struct uet_pdc *pdc,
			 struct uet_pkt_info *pi, uint8_t *buf, size_t cap,
			 uet_time now);

/* Tell SES about every packet that will never be acknowledged. */
void uet_ini_fail_all(struct uet_pds *pds, struct uet_pdc *pdc, uint8_t code);

/* NACK reactions (nack.c) for a PSN in [base, next): resend now, resend
 * after a doubling pause, Go-Back-N (ROD). They never fail the PDC (a
 * NACK proves the peer alive) and return true. */
bool uet_ini_resend(struct uet_pds *pds, struct uet_pdc *pdc, uint32_t psn,
		    uint8_t code, bool ecn, uet_time now);
/* Leave the PDC's congestion context, taking what it has in flight out
 * of it (the PDC is going away). */
void uet_ini_leave_ccc(struct uet_pdc *pdc);
/* The earliest timer of the direction this PDC sends: RTO, loss
 * inference, tail probe. */
uet_time uet_ini_send_deadline(struct uet_pds *pds, struct uet_pdc *pdc);
/* SES has more for the peer than it said (a wake): RCCC's backlog is at
 * least a packet until the next packet says how much. */
void uet_ini_more(struct uet_pds *pds, struct uet_pdc *pdc, uet_time now);
/* Resends wait (for RCCC credit): ini_wake_ccc queues them again. */
bool uet_ini_retx_blocked(struct uet_pdc *pdc);
/* An RTT sample less the target's service time (ACK_CC, in
 * UET_CCC_SERVICE_NS units). */
uet_time uet_ini_less_service(uet_time rtt, uint16_t service);
bool uet_ini_backoff(struct uet_pds *pds, struct uet_pdc *pdc, uint32_t psn,
		     uint8_t code, uet_time now);
bool uet_ini_rewind(struct uet_pds *pds, struct uet_pdc *pdc, uint32_t psn,
		    uint32_t expected, uet_time now);

#endif
