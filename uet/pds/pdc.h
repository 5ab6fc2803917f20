/* A PDC: one connection between an initiator FEP and a target FEP
 * (docs/choices.md §2). A fep holds a fixed pool of them (cfg.pdc_max),
 * found by local id (dpdcid of received packets), by peer (the initiator
 * PDC SES sends on) and by {peer, peer's id} (target side, SYN phase).
 *
 * Each PDC has both directions, each with its own PSN space: the side
 * that sends a direction keeps its packets in rtb (ini.c), the side that
 * receives it tracks them in rx (tgt.c). The forward direction: the
 * initiator's rtb, the target's rx. The return direction (read data,
 * sublayer.h): the target's rtb, the initiator's rx. A packet reaching a
 * PDC tells which direction it belongs to by the PDC's role.
 */
#ifndef UET_PDS_PDC_H
#define UET_PDS_PDC_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "uet/list.h"
#include "../core/sublayer.h"

#include "acktr.h"
#include "../cms/ccc.h"
#include "../cms/lb.h"
#include "heap.h"
#include "rtb.h"
#include "rtt.h"

struct uet_pds;

enum uet_pdc_state {
	UET_PDC_FREE = 0,
	UET_PDC_SYN,		/* initiator: no ACK yet, SYN on every packet */
	UET_PDC_EST,
	UET_PDC_CLOSING,	/* initiator: CLOSE sent, waiting for its ACK */
	UET_PDC_CLOSED,		/* target: CLOSE acknowledged, lingering */
	UET_PDC_DEAD,		/* failing: SES being told, then freed */
};

/* Tail probes after one another with nothing answering (ini.c). */
#define UET_TLP_MAX		3

/* Control work waiting in pds->ctl_q (uet_pdc.ctl bits). */
#define UET_PDC_CTL_ACK		0x01	/* target: the regular ACK */
#define UET_PDC_CTL_GTD		0x02	/* target: kept responses to (re)send */
#define UET_PDC_CTL_CLEAR	0x04	/* sender: a CLEAR CP */
#define UET_PDC_CTL_CRACK	0x08	/* initiator: ACK a CLOSE_REQ */
#define UET_PDC_CTL_PROBE	0x10	/* initiator: is the target alive? */
#define UET_PDC_CTL_CREDIT	0x20	/* target: a CREDIT CP (rcp.c) */
#define UET_PDC_CTL_CREDIT_REQ	0x40	/* initiator: a CREDIT_REQUEST CP */
#define UET_PDC_CTL_RTT_PROBE	0x80	/* initiator: NSCC's base-RTT PROBE */
#define UET_PDC_CTL_PROBE_ACK	0x100	/* target: answer a PROBE (flag P) */
#define UET_PDC_CTL_DUP		0x200	/* target: the ACK naming a duplicate */

#define UET_PDC_INFERRED	16	/* resends by inference remembered */

struct uet_pdc {
	struct uet_pdc_ref ref;		/* what SES sees; ref.id = lid */
	uint16_t lid;			/* our PDCID */
	uint16_t rid;			/* the peer's (0 until known) */
	uint8_t state;			/* enum uet_pdc_state */
	uint16_t ctl;			/* UET_PDC_CTL_* */
	bool rod;
	bool ses_open;			/* SES heard open, not yet closed */
	bool tx_want;			/* SES said it has packets for us */
	bool close_wanted;		/* CLOSE once drained (CLOSE_REQ) */
	bool half;			/* target: only SYN packets seen yet */
	uint16_t entropy;		/* next entropy (RUD), the one (ROD) */
	uint16_t entropy_used;		/* RUD: packets sent on it so far */
	uint32_t close_psn;		/* CLOSE (target: acknowledged) */
	uint32_t cr_psn;		/* initiator: CLOSE_REQ to ACK */
	uet_time last_act;		/* last packet sent or received */
	uet_time heard_at;		/* last packet from the peer */
	uet_time probe_at;		/* initiator: next liveness probe */
	/* Loss inference of the direction we send (ini.c) */
	uet_time rack_tx;		/* latest send of a packet known arrived */
	uint32_t rack_psn;		/* and its PSN */
	uet_time rack_at;		/* when a suspect is due to be lost */
	uet_time reo_learned;		/* lateness spurious resends showed */
	/* The latest resends by inference, to know a duplicate's ACK
	 * after the ring slot moved on (ini.c, ini_dup_ack). */
	struct uet_pdc_inferred {
		uint32_t psn;
		uet_time sent_at;	/* first copy; NONE: slot free */
		uet_time resent_at;	/* when inferred lost */
	} inferred[UET_PDC_INFERRED];
	uint8_t inferred_next;
	uint8_t reo_clean;		/* loss episodes since, to decay it */
	uet_time reo_episode_end;	/* the current episode: until then */
	bool ecn_seen;			/* an ACK came back CE: no delay marks */
	uet_time rtt_median;		/* cfg.lb_delay's reference (ini.c) */
	uet_time tlp_at;		/* tail probe, if no ACK comes first */
	uint8_t tlp_n;			/* probes since the last ACK */
	/* Target: the receiver's credit (rcp.c) */
	uint32_t rc_want_q, rc_granted_q;	/* cumulative quanta, 24 bits */
	struct uet_list rc_link;	/* in pds->rc_active */
	uint8_t probes;			/* initiator: probes unanswered */
	uet_time linger_until;		/* CLOSED: free after this */
	uet_time reap_at;		/* target: reap deferred to this */
	uint16_t ack_buddy;		/* initiator: lid of a target PDC of
					 * the same peer holding an ACK */
	uint16_t ack_buddy_pkts;	/* initiator: packets sent since */
	bool ack_ev_on;			/* initiator: this message's packets
					 * take ack_ev while the ACK waits,
					 * then to a run's end (ini.c
					 * ini_pick_ev) */
	uint16_t ack_ev;
	uint16_t ack_ev_n;		/* ... packets of it on ack_ev */
	uint8_t rx_resends;		/* resent requests in a row (tgt.c) */

	struct uet_heap_node timer;
	bool due;			/* in uet_pds_handle_timeout's batch */
	struct uet_list ctl_link;	/* pds->ctl_q */
	struct uet_list retx_link;	/* pds->retx_q */
	struct uet_list ready_link;	/* pds->ready_q */
	uint16_t tx_burst;		/* new packets in a row at its head */
	uint32_t tx_left;		/* packets SES has still for the peer,
					 * sized as its last one */
	uint16_t tx_hdr;		/* UET headers of its last data packet */
	uint16_t tx_full;		/* payload of its last full one */
	struct uet_pdc *id_next;	/* id hash chain / free list */
	struct uet_pdc *peer_next;	/* peer hash chain */

	struct uet_rtb rtb;		/* the direction we send: in flight */
	struct uet_rtt rtt;		/* its RTT estimate, its RTO */
	struct uet_acktr rx;		/* the direction we receive */
	struct uet_ccc *ccc;		/* its congestion context (cms) */
	struct uet_lb lb;		/* entropy selection (ini.c; set at first use) */
	struct uet_list ccc_link;	/* in ccc->pdcs */
};

/* Does a packet from addr come from the peer's Fabric Address? The IP
 * only: the source port of a sprayed packet is entropy (uet/udp.h). */
static inline bool uet_pdc_fa_is(const struct uet_pdc *pdc,
				 const struct uet_addr *addr)
{
	const struct uet_addr *p = &pdc->ref.peer;

	return p->af == addr->af &&
	       !memcmp(p->ip, addr->ip, p->af == UET_AF_INET ? 4 : 16);
}

/* Pool and hashes, sized from cfg (pdc_max, window). 0 or UET_ERR_NOMEM. */
int uet_pdc_pool_init(struct uet_pds *pds);
void uet_pdc_pool_fini(struct uet_pds *pds);

/* Open a PDC to peer: initiator (rid 0, random Start_PSN) or target
 * (rid = the initiator's SPDCID, Start_PSN from its SYN). NULL when the
 * pool is empty. Calls uet_ses_pdc_open. */
struct uet_pdc *uet_pdc_open(struct uet_pds *pds, const struct uet_addr *peer,
			     bool initiator, bool rod, uint16_t rid,
			     uint32_t start, uet_time now);
/* Release the slot: SES hears uet_ses_pdc_closed (if it was opened). */
void uet_pdc_free(struct uet_pds *pds, struct uet_pdc *pdc);
/* Remember a peer SES woke while the pool was empty; it is woken again
 * when a slot frees up. */
void uet_pdc_wait(struct uet_pds *pds, const struct uet_addr *peer);
/* Close in error (docs/choices.md §2.4): every unacknowledged SES packet
 * goes to uet_ses_tx_failed(UET_ERR_PEER, code), then the slot is freed. */
void uet_pdc_fail(struct uet_pds *pds, struct uet_pdc *pdc, uint8_t code);
/* The peer holds no state for this initiator PDC (NACK INV_DPDCID: it
 * restarted, or forgot the PDC): SES takes back what the peer cannot
 * have delivered (uet_ses_pdc_lost), the PDC goes without failing, and
 * the peer is woken on a new one. */
void uet_pdc_lost(struct uet_pds *pds, struct uet_pdc *pdc, uet_time now);
/* A request proved the initiator got our ACK (a packet without SYN names
 * our PDC): the PDC is no longer half-open. */
void uet_pdc_proven(struct uet_pds *pds, struct uet_pdc *pdc);

/* Peers declared unreachable (an initiator PDC failed for silence) are
 * remembered for cfg.unreach_hold: a send to one fails at once. Any
 * sign of life (a request from it) forgets the verdict. */
bool uet_pdc_unreachable(struct uet_pds *pds, const struct uet_addr *peer);
void uet_pdc_alive(struct uet_pds *pds, const struct uet_addr *peer);
/* Fail what SES has for a peer held unreachable, without a packet. */
void uet_pdc_fail_fast(struct uet_pds *pds, const struct uet_addr *peer,
		       uet_time now);

struct uet_pdc *uet_pdc_find_id(const struct uet_pds *pds, uint16_t lid);
/* The initiator PDC new packets to peer go on (SYN or EST, not closing). */
struct uet_pdc *uet_pdc_find_ini(const struct uet_pds *pds,
				 const struct uet_addr *peer);
/* The target PDC an initiator at peer with PDCID rid created. */
struct uet_pdc *uet_pdc_find_tgt(const struct uet_pds *pds,
				 const struct uet_addr *peer, uint16_t rid);

/* Recompute the PDC's deadline and place it in the timer heap. */
void uet_pdc_rearm(struct uet_pds *pds, struct uet_pdc *pdc);
/* Its deadline passed: RTO, delayed ACK, idle close, reap, linger. */
void uet_pdc_timeout(struct uet_pds *pds, struct uet_pdc *pdc, uet_time now);

/* Queue control work (bits UET_PDC_CTL_*), a resend, or new packets. */
void uet_pdc_want_ctl(struct uet_pds *pds, struct uet_pdc *pdc,
		      uint16_t bits);
void uet_pdc_want_retx(struct uet_pds *pds, struct uet_pdc *pdc);
void uet_pdc_want_tx(struct uet_pds *pds, struct uet_pdc *pdc);

/* Entropy of the next packet: sprayed over cfg.entropy_count values for
 * RUD, cfg.entropy_run packets on each in turn; one value per PDC for ROD
 * (docs/choices.md §9.4). */
uint16_t uet_pdc_entropy(struct uet_pds *pds, struct uet_pdc *pdc);

#endif
