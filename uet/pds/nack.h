/* NACKs (docs/choices.md §4.4): the target's queue of NACKs to send (they may
 * concern packets with no PDC, so they live per fep, in a fixed ring) and
 * the initiator's reaction to a NACK, per code (docs/choices.md §4.4).
 */
#ifndef UET_PDS_NACK_H
#define UET_PDS_NACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uet/addr.h"
#include "uet/net.h"
#include "uet/time.h"
#include "uet/wire.h"
#include "../core/sublayer.h"

struct uet_pds;

/* NACKs waiting to go (more are dropped: the RTO covers them): room for
 * a burst of trims of four windows, as speculative RCCC starts make. */
#define UET_NACK_Q_MIN	64u

/* An entry is a NACK, or (refusal) an ACK that no PDC holds: a SYN
 * refused before any state was made (tgt.c) gets its SES refusal in a
 * plain ACK with spdcid 0, CACK = Start_PSN - 1. */
struct uet_nack_ent {
	struct uet_addr dst;
	bool refusal;
	struct uet_ses_rsp rsp;	/* refusal: the response */
	uint32_t cack;		/* refusal: Start_PSN - 1 */
	uint32_t psn;
	uint32_t payload;
	uint16_t spdcid;	/* ours, 0 when no PDC */
	uint16_t dpdcid;	/* the offending packet's spdcid */
	uint16_t entropy;	/* echoed */
	uint8_t code;		/* enum uet_nack_code */
	uint8_t flags;		/* UET_PDS_F_RETX, UET_PDS_F_M */
};

struct uet_nack_q {
	struct uet_nack_ent *ring;
	unsigned cap, head, n;
};

/* How the initiator reacts to a NACK code (docs/choices.md §4.4). */
enum uet_nack_class {
	UET_NACK_RESEND,	/* resend now (trimmed, lost) */
	UET_NACK_BACKOFF,	/* resend after an RTO-like delay (resources) */
	UET_NACK_REWIND,	/* ROD_OOO: Go-Back-N from the expected PSN */
	UET_NACK_IGNORE,	/* RCVD_SES_PROCG: the RTO will see to it */
	UET_NACK_FATAL,		/* close the PDC in error */
};

enum uet_nack_class uet_nack_class(uint8_t code);

/* Queue a NACK answering a packet (psn, spdcid and flags of the
 * offending packet; the M flag is set when it arrived CE-marked), to dst:
 * the peer of its PDC, or NULL for the address it came from (no PDC
 * knows the sender's home address then, uet/udp.h). */
void uet_nack_queue(struct uet_pds *pds, const struct uet_pkt_info *pi,
		    const struct uet_addr *dst, uint8_t code, uint32_t psn,
		    uint16_t our_id, uint16_t their_id, uint8_t req_flags,
		    uint32_t payload);
/* Queue the stateless answer to a SYN that SES refused (rsp) before any
 * PDC was made, to where it came from (its home address). */
void uet_nack_queue_refusal(struct uet_pds *pds, const struct uet_pkt_info *pi,
			    const struct uet_pds_hdr *h,
			    const struct uet_ses_rsp *rsp);
ssize_t uet_nack_poll(struct uet_pds *pds, struct uet_pkt_info *pi,
		      uint8_t *buf, size_t cap, uet_time now);
/* A NACK arrived (initiator side). */
int uet_nack_rx(struct uet_pds *pds, const struct uet_pkt_info *pi,
		const struct uet_pds_hdr *h, uet_time now);

#endif
