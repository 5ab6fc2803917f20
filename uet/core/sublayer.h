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
	bool waited;			/* its success is reported
					 * (UET_OPF_COMPLETION) when the
					 * ACK comes, not at post
					 * (UET_OPF_INJECT) */
	uint8_t queued;			/* at its end: how many messages are
					 * queued behind it, 255 at most (each
					 * a packet at least, an empty one
					 * too; in the padding: the resend
					 * ring's entries stay 64 bytes) */
	uint32_t left;			/* payload bytes SES still has for the
					 * peer after this packet: the rest of
					 * the message, at its end those
					 * messages' (RCCC's backlog) */
	uint8_t even_max;		/* in, from PDS: a held ACK rides
					 * behind a waited message that ends
					 * within this many packets, if their
					 * last is as long as the others
					 * (tgt.h); 0: none held */
};

/* A PDC as SES sees it: stable for the PDC's life. */
struct uet_pdc_ref {
	uint32_t id;			/* local PDC id, unique while open */
	struct uet_addr peer;
	bool initiator;			/* we opened it (forward direction is ours) */
	void *ses_state;		/* SES's per-PDC state (set by SES) */
};

/* Largest SES response data an ACK carries (Max_ACK_Data_Size,
 * docs/choices.md §3.4, spec default 16 B): small read results and fetched
 * atomic values. A read message longer than this returns its data in the
 * return direction instead (all of it, docs/choices.md §6.2). */
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
 * in the return direction's own PSN space (its Start_PSN is the forward
 * one, as in the reference provider: both ends know it without a word).
 * The ACKs of return packets carry no SES response (reply NULL). May be
 * called from inside uet_ses_rx. Ignored for a PDC that is closed or
 * failing (SES hears uet_ses_pdc_closed for it).
 *
 * While return data is in flight or queued (woken and not yet handed out)
 * the target's PDS neither reaps the PDC nor accepts a CLOSE: a CLOSE
 * then gets NACK CLOSING_IN_ERR and the PDC closes in error (every return
 * packet not acknowledged goes to uet_ses_tx_failed). The initiator
 * closes only when uet_ses_pdc_busy says no, so SES keeps a PDC busy
 * until the read data it waits for has come; meanwhile PDS probes an
 * idle PDC now and then and fails it when the target stopped answering. */
void uet_pds_wake_pdc(struct uet_pds *pds, struct uet_pdc_ref *pdc, uet_time now);

/* ---- PDS -> SES, transmit side ---- */

/* Next packet for this PDC: fill *pkt and return 1, or 0 if SES has
 * nothing for the peer. Called only when PDS can send right away. */
int uet_ses_tx_next(struct uet_ses *ses, struct uet_pdc_ref *pdc,
		    struct uet_ses_pkt *pkt, uet_time now);
/* Write the SES header and payload of pkt into buf; returns the length or
 * UET_ERR_WIRE_NOSPACE. Called for the first send and every resend. With
 * uet_ses_tx_ext (ses.h) the payload may stay where it is: the length
 * returned is still the whole, and PDS reads nothing past the header. */
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
/* The checks of a request that need no state (header format, JobID,
 * PIDonFEP, resource index): true when req is for us; else false with
 * *rsp the refusal (counted). PDS asks before it makes a PDC for a SYN,
 * and again for a duplicate whose response it did not keep. */
bool uet_ses_rx_admit(struct uet_ses *ses, const struct uet_ses_req *req,
		      struct uet_ses_rsp *rsp);
/* A return-direction packet (an SES response with data, next_hdr 5/6)
 * arrived on a PDC this fep initiated; never a duplicate. Returns 0, or
 * a NACK code like uet_ses_rx (the target then resends it later). */
int uet_ses_rx_ret(struct uet_ses *ses, struct uet_pdc_ref *pdc,
		   const struct uet_ses_rsp *rsp, const uint8_t *payload,
		   size_t len, uet_time now);

/* ---- Connectionless delivery: RUDI and UUD (docs/choices.md §8) ----
 *
 * No PDC, no PSN: every packet stands alone, leaves from the home port
 * (uet/net.h: its target learns where to answer) and is not congestion
 * controlled.
 *
 * RUDI (reliable unordered delivery for idempotent operations): PDS gives
 * each request a pkt_id; the target's PDS hands every copy that arrives,
 * duplicates included, to SES (uet_ses_cl_ops.rx) and answers each with
 * one RUDI_RESP carrying SES's response, and read data of up to a payload
 * MTU inline. The initiator's PDS resends a request (same pkt_id, RETX)
 * after an RTO (rto_min, doubling up to rto_max) at most cfg.max_retx
 * times, then fails it; the first response completes it, later ones are
 * ignored. SES alone decides that an operation is idempotent and must put
 * no other on RUDI: the target keeps no state to filter copies. A refusal
 * is a RUDI NACK (NT set, the pkt_id, PDCIDs 0): resource codes make the
 * initiator resend after a pause, others fail the request.
 *
 * UUD (unreliable datagram): a 4-byte PDS header, no response, no resend;
 * a packet is complete once PDS hands it to the port.
 *
 * SES plugs in with a table of functions, not direct calls, so that a SES
 * without connectionless support still links: until uet_pds_cl_attach, or
 * when the fep's cfg.rudi / cfg.uud is off, PDS sends no such packet and
 * drops what arrives (drop_other).
 *
 * Transmit is pull-based like the PDCs': SES calls uet_pds_wake_cl when it
 * has connectionless packets; when PDS can take one (a free RUDI slot) it
 * asks ops.next, keeps the descriptor, and has the bytes written by
 * ops.write for the first send and every resend. Every packet ops.next
 * handed out is reported exactly once, by ops.done or ops.failed (none
 * when the fep is closed).
 */

enum uet_cl_mode {
	UET_CL_RUDI = 1,
	UET_CL_UUD = 2,
};

/* One connectionless packet, as SES hands it to PDS and gets it back. */
struct uet_cl_pkt {
	struct uet_ses_pkt pkt;		/* as on a PDC (next_hdr UET_NH_REQ_*) */
	struct uet_addr peer;		/* the target's home address */
	uint8_t mode;			/* enum uet_cl_mode */
	uint32_t pkt_id;		/* RUDI: set by PDS before the first write */
};

/* What SES answers a RUDI request with: its response, and read data
 * written straight into PDS's buffer (data, room for cap bytes). */
struct uet_cl_reply {
	struct uet_ses_rsp rsp;		/* UET_NH_RSP, or RSP_DATA[_SMALL] */
	uint8_t *data;
	size_t cap;			/* a payload MTU */
	size_t data_len;		/* bytes written at data */
};

struct uet_ses_cl_ops {
	/* The next connectionless packet: fill cp->pkt, peer and mode and
	 * return 1, or 0 when SES has none. */
	int (*next)(struct uet_ses *ses, struct uet_cl_pkt *cp, uet_time now);
	/* Write the SES header and payload of cp into buf: the length or
	 * UET_ERR_WIRE_NOSPACE (the packet then fails). */
	int (*write)(struct uet_ses *ses, const struct uet_cl_pkt *cp,
		     uint8_t *buf, size_t cap);
	/* RUDI: the response arrived: rsp and its data (len bytes, valid
	 * during the call). UUD: it was sent (rsp and data NULL). */
	void (*done)(struct uet_ses *ses, const struct uet_cl_pkt *cp,
		     const struct uet_ses_rsp *rsp, const uint8_t *data,
		     size_t len, uet_time now);
	/* It will never complete: err UET_ERR_PEER (retries exhausted;
	 * code 0) or a NACK (code), or the error of ops.write. */
	void (*failed)(struct uet_ses *ses, const struct uet_cl_pkt *cp,
		       int err, uint8_t code);
	/* A request from peer (the sender's home address), every copy.
	 * RUDI: fill *reply and return 0, or return a NACK code (> 0) to
	 * refuse it. UUD: reply is NULL; non-zero means dropped (counted
	 * drop_other). */
	int (*rx)(struct uet_ses *ses, const struct uet_addr *peer,
		  uint8_t mode, const struct uet_ses_req *req,
		  const uint8_t *payload, size_t len,
		  struct uet_cl_reply *reply, uet_time now);
};

/* SES -> PDS: serve connectionless packets with ops (kept by reference),
 * e.g. from uet_ses_create; NULL turns them off again. */
void uet_pds_cl_attach(struct uet_pds *pds, const struct uet_ses_cl_ops *ops);
/* SES -> PDS: SES has connectionless packets: ops.next will be asked. */
void uet_pds_wake_cl(struct uet_pds *pds, uet_time now);

/* ---- PDC life ---- */

void uet_ses_pdc_open(struct uet_ses *ses, struct uet_pdc_ref *pdc);
/* Called once no packet of pdc is in flight any more (after close or
 * failure); SES frees its per-PDC state, and fails what it still waits
 * for on it (read data of an initiator PDC that failed). */
void uet_ses_pdc_closed(struct uet_ses *ses, struct uet_pdc_ref *pdc);
/* The peer of this initiator PDC holds no state for it (it restarted:
 * NACK INV_DPDCID), so it delivered none of its packets. Messages none of
 * whose packets was acknowledged go back to the front of the queue, to be
 * sent whole on a new PDC; the others reached the process that is gone
 * and fail. PDS then forgets every packet of the PDC without a word and
 * closes it (uet_ses_pdc_closed). */
void uet_ses_pdc_lost(struct uet_ses *ses, struct uet_pdc_ref *pdc);
/* Does SES have a message in flight or queued on this PDC, or wait for
 * something on it (read data)? PDS closes an idle initiator PDC only when
 * this says no; at a target it defers reaping a silent initiator's PDC
 * once. */
bool uet_ses_pdc_busy(struct uet_ses *ses, const struct uet_pdc_ref *pdc);

#endif
