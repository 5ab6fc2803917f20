/* The contract between the two sublayers inside one fep (engine-internal).
 *
 * PDS (uet/pds) moves packets: PDCs, PSNs, ACK/SACK/NACK, retransmission,
 * congestion window. SES (uet/ses) moves messages: segmentation, matching,
 * reassembly, responses. Neither includes the other's internals; they meet
 * only through the functions below (UE 1.0 §3.5.3: "PDS handles packets,
 * never messages").
 *
 * Transmit is pull-based, like ngtcp2 asking for stream data: SES says a
 * peer has work (uet_pds_wake); when the PDC to that peer may send a new
 * packet, PDS asks SES for it (uet_ses_tx_next) and keeps the small
 * descriptor SES returns in its retransmit buffer. The bytes are produced
 * by uet_ses_tx_write, again for every retransmission, so user buffers are
 * read in place and nothing is copied per packet before it is sent.
 *
 * Ordering (FI_ORDER_SAS over RUD): SES numbers the messages of a PDC
 * 0, 1, 2 ... in message_id as it starts them; the target SES matches the
 * messages of a PDC in message_id order even when their packets arrive in
 * any order. A PDC is closed only when no message on it is in flight, so a
 * new PDC starts a new numbering.
 */
#ifndef UET_CORE_SUBLAYER_H
#define UET_CORE_SUBLAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uet/addr.h"
#include "uet/time.h"
#include "uet/wire.h"

struct uet_pds;
struct uet_ses;

/* What PDS keeps per in-flight packet to rebuild it: opaque to PDS. */
struct uet_ses_pkt {
	void *msg;			/* SES message descriptor */
	uint32_t offset;		/* payload offset within the message */
	uint32_t len;			/* payload bytes in this packet */
	uint8_t next_hdr;		/* SES header format (UET_NH_REQ_*) */
	bool eom;			/* last packet of its message */
};

/* A PDC as SES sees it: stable for the PDC's life. */
struct uet_pdc_ref {
	uint32_t id;			/* local PDC id, unique while open */
	struct uet_addr peer;
	bool initiator;			/* we opened it (forward direction is ours) */
	void *ses_state;		/* SES's per-PDC state (set by SES) */
};

/* Largest SES response data an ACK carries (Max_ACK_Data_Size,
 * pds-behaviour §9, spec default 16 B): small read results and fetched
 * atomic values. A read message longer than this returns its data in the
 * return direction instead (all of it, pds-behaviour §9 "Reads"). */
#define UET_ACK_DATA_MAX	16

/* An SES response as it rides in a PDS ACK. */
struct uet_ses_reply {
	struct uet_ses_rsp rsp;		/* format UET_NH_RSP, or RSP_DATA[_SMALL] */
	bool gtd;			/* keep until CLEAR (errors, overflow, data) */
	uint8_t data_len;		/* bytes of data (RSP_DATA formats only) */
	uint8_t data[UET_ACK_DATA_MAX];
};

/* ---- SES -> PDS ---- */

/* SES has (more) to send to peer: PDS opens a PDC if none and will call
 * uet_ses_tx_next when its window allows. */
void uet_pds_wake(struct uet_pds *pds, const struct uet_addr *peer, uet_time now);

/* Return direction (reads): SES at the target has read data to send on
 * pdc, a PDC this fep is the target of. PDS will pull it with
 * uet_ses_tx_next(pdc) (pdc->initiator false; pkt.next_hdr
 * UET_NH_RSP_DATA) and track, resend and report it with uet_ses_tx_write,
 * uet_ses_tx_acked and uet_ses_tx_failed exactly like forward packets,
 * in the return direction's own PSN space. */
void uet_pds_wake_pdc(struct uet_pds *pds, struct uet_pdc_ref *pdc, uet_time now);

/* ---- PDS -> SES, transmit side ---- */

/* Next packet for this PDC: fill *pkt and return 1, or 0 if SES has
 * nothing for the peer. Called only when PDS can send right away. */
int uet_ses_tx_next(struct uet_ses *ses, struct uet_pdc_ref *pdc,
		    struct uet_ses_pkt *pkt, uet_time now);
/* Write the SES header and payload of pkt into buf; returns the length or
 * UET_ERR_WIRE_NOSPACE. Called for the first send and every resend. */
int uet_ses_tx_write(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		     const struct uet_ses_pkt *pkt, uint8_t *buf, size_t cap);
/* The peer acknowledged pkt; reply is the SES response carried in the ACK
 * (with its data, if any), or NULL when it was acknowledged cumulatively
 * without one (success). reply->gtd is meaningless here. */
void uet_ses_tx_acked(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		      const struct uet_ses_pkt *pkt,
		      const struct uet_ses_reply *reply, uet_time now);
/* pkt will never be acknowledged: err is UET_ERR_PEER (retries exhausted,
 * fatal NACK, PDC failed); code is the NACK code when there was one. */
void uet_ses_tx_failed(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		       const struct uet_ses_pkt *pkt, int err, uint8_t code);

/* ---- PDS -> SES, receive side ---- */

/* A new request packet on pdc (never a duplicate: PDS filtered those).
 * SES fills *reply (the response in the ACK, maybe with data) and sets
 * reply->gtd when it must be kept until CLEAR (errors, overflow-list use,
 * data). Returns 0, or a NACK code (> 0, e.g. UET_NACK_NO_SES_MSG_AVAIL)
 * when SES cannot take the packet now: PDS then NACKs it and does not
 * count it as received. */
int uet_ses_rx(struct uet_ses *ses, struct uet_pdc_ref *pdc,
	       const struct uet_ses_req *req, const uint8_t *payload,
	       size_t len, struct uet_ses_reply *reply, uet_time now);
/* A return-direction packet (an SES response with data, next_hdr 5/6)
 * arrived on a PDC this fep initiated; never a duplicate. Returns 0, or
 * a NACK code like uet_ses_rx. */
int uet_ses_rx_ret(struct uet_ses *ses, struct uet_pdc_ref *pdc,
		   const struct uet_ses_rsp *rsp, const uint8_t *payload,
		   size_t len, uet_time now);

/* ---- PDC life ---- */

void uet_ses_pdc_open(struct uet_ses *ses, struct uet_pdc_ref *pdc);
/* Called once no packet of pdc is in flight any more (after close or
 * failure); SES frees its per-PDC state. */
void uet_ses_pdc_closed(struct uet_ses *ses, struct uet_pdc_ref *pdc);
/* Does SES have a message in flight or queued on this PDC? PDS closes an
 * idle PDC only when this says no. */
bool uet_ses_pdc_busy(struct uet_ses *ses, const struct uet_pdc_ref *pdc);

#endif
