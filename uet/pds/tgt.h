/* The target role of a PDC (docs/choices.md §2 to §4): PDC
 * creation from SYN requests, PSN classification, delivery to SES exactly
 * once, ACK coalescing, guaranteed responses until CLEAR, NACKs, CLOSE,
 * reaping initiators that went silent.
 *
 * The receiving side of a direction is the same whichever role receives
 * it: an initiator PDC receives the return direction (read data, handed
 * to uet_ses_rx_ret) and ACKs it with these functions too, on its rx.
 */
#ifndef UET_PDS_TGT_H
#define UET_PDS_TGT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uet/net.h"
#include "uet/time.h"
#include "uet/wire.h"

struct uet_pds;
struct uet_pdc;

/* A RUD/ROD request: forward (an SES request) at a target PDC, return
 * direction (an SES response with data) at an initiator PDC. */
int uet_tgt_rx_req(struct uet_pds *pds, const struct uet_pkt_info *pi,
		   const struct uet_pkt *p, uet_time now);
/* Direct placement (docs/choices.md §2.9): how many of the PSNs psn ..
 * psn + n - 1 the RUD PDC lid (ours; the peer's id rid, at src) would
 * take as new, in the forward direction (a target PDC) or with ret the
 * return direction (an initiator PDC); 0 if none or no such PDC. *ref:
 * the PDC's, for SES. */
unsigned uet_tgt_place(struct uet_pds *pds, uint16_t lid,
		       const struct uet_addr *src, uint16_t rid, bool ret,
		       uint32_t psn, unsigned n, struct uet_pdc_ref **ref);
/* A request whose payload the network cut: NACK TRIMMED. */
int uet_tgt_rx_trimmed(struct uet_pds *pds, const struct uet_pkt_info *pi,
		       const struct uet_pds_hdr *h, uet_time now);
/* ACK_REQ, CLEAR (about the direction pdc receives), CLOSE (target). */
int uet_tgt_rx_ctrl(struct uet_pds *pds, struct uet_pdc *pdc,
		    const struct uet_pkt_info *pi, const struct uet_pds_hdr *h,
		    uet_time now);

/* A held ACK rides behind a message of ours of up to a run of packets
 * (cfg.entropy_run: the provider makes it one GSO train), so that its
 * train stays whole (pp_median 4 KiB across a veth went 12.4 -> 17.9 us
 * when the ACK split it after the first packet; 16 KiB at MTU 1500, 12
 * packets, split after the 4th: the peer read the rest one send later),
 * but right behind the first packet of one with at least
 * UET_ACK_HOLD_LONG bytes more to come, and behind the run's last packet
 * of a longer one. */
#define UET_ACK_HOLD_LONG	(64u << 10)

uet_time uet_tgt_deadline(struct uet_pds *pds, struct uet_pdc *pdc);
void uet_tgt_timeout(struct uet_pds *pds, struct uet_pdc *pdc, uet_time now);
/* A packet of ours to ini's peer went: the ACK a target PDC of that peer
 * holds for it (cfg.ack_hold) goes next. */
void uet_tgt_ack_with(struct uet_pds *pds, struct uet_pdc *ini);
/* The entropy that ACK echoes (UET_LB_NONE: no ACK held for ini). */
uint16_t uet_tgt_held_entropy(const struct uet_pds *pds,
			      const struct uet_pdc *ini);
/* The delayed ACK of the direction pdc receives, if due. */
void uet_tgt_ack_timeout(struct uet_pds *pds, struct uet_pdc *pdc,
			 uet_time now);
ssize_t uet_tgt_poll_ctl(struct uet_pds *pds, struct uet_pdc *pdc,
			 struct uet_pkt_info *pi, uint8_t *buf, size_t cap,
			 uet_time now);

#endif
