/* The PDS sublayer of one fep (engine-internal): the PDC pool, the
 * per-fep queues the transmit scheduler walks, the timer heap, the NACK
 * queue and the connectionless engine. uet/core/fep.c creates it,
 * demultiplexes received packets into the role handlers (tgt.c: requests;
 * ini.c: ACKs; nack.c: NACKs; uet_pds_rx_ctrl: control packets; cl.c:
 * RUDI and UUD) and asks for packets in the order NACKs, control (ACK,
 * CLEAR, CP, RUDI answers), retransmissions, new packets.
 *
 * Choices where UE 1.0 leaves room (docs/choices.md has them all):
 * - PDCs: one initiator PDC per peer address (FA + home port), RUD, or
 *   ROD with cfg.rod; a target accepts either (the mode of the SYN).
 *   Ids 16-bit, never 0, consecutive from a random start. Start_PSN random
 *   in [2^16, 2^31). 0-RTT: SYN on every packet until the first ACK.
 * - Addresses (uet/net.h, uet/udp.h): the source port of a sprayed packet
 *   is entropy, not the sender's home port. Every packet with SYN leaves
 *   from the home port (pi.home), so a target keys a new PDC on the
 *   initiator's home address + SPDCID and sends everything there. Any
 *   other packet is found by DPDCID (our own id) and must come from the
 *   PDC's FA, the IP only; one from another FA is dropped (drop_pdc) and
 *   never answered: a NACK would let anyone fail the PDCs of a peer whose
 *   ids it guessed. A NACK for a packet no PDC claims (unknown DPDCID,
 *   SPDCID mismatch) goes back to the address it came from, a spray port
 *   that reads (the port's job); NACKs of a known PDC go to its peer. A
 *   NACK must name the peer's PDC in spdcid, or 0 (it had none).
 * - ACKs (target): at once for AR, SYN, RETX, ECN-CE (flag M), a filled
 *   hole, a duplicate, every cfg.ack_every new packets; else after
 *   cfg.ack_delay. Built when sent, so one ACK covers a batch; it carries
 *   the SES response of its ACK_PSN. ACK_CC (SACK from CACK + 1, or
 *   ending at ACK_PSN when that is beyond CACK + 64; mpr 8 =
 *   1024 PSNs, NSCC state zero) when PSNs above CACK arrived and for the
 *   first ACK of a PDC, plain ACK otherwise. Guaranteed responses: their
 *   own ACK at once with REQ=CLEAR, kept until CLEAR_PSN covers them.
 * - Data in ACKs (docs/choices.md §3.4, Max_ACK_Data_Size =
 *   UET_ACK_DATA_MAX): a reply with data (next_hdr 5/6, data as the ACK's
 *   payload) is kept like a guaranteed one even if SES did not ask (the
 *   spec lets PDS forget it, but then a duplicate would lose the read
 *   result), so a duplicate whose ACK was lost gets the same bytes and SES
 *   is not asked twice. An ACK with more data than that is dropped
 *   (drop_other).
 * - AR (initiator): last packet of a message, every resend, the packet
 *   that fills the window, CLOSE. CLEAR CP as soon as every ACK up to the
 *   one that asked has arrived (CLEAR_PSN is cumulative).
 * - Loss: per-packet RTO = base * 2^n capped at rto_max, base = the PDC's
 *   SRTT + 4 RTTVAR within [rto_min, rto_max] (rtt.h; rto_min until the
 *   first sample). A timer starts when its packet is sent and restarts
 *   when CACK moves (RFC 6298 §5.3: the peer is making progress); a
 *   SACKed packet is asked for with ACK_REQ instead of resent.
 *   cfg.max_retx RTOs of one packet fail the PDC: at worst after
 *   (max_retx + 1) * rto_max. NACKs prove the peer alive and never use
 *   that budget: trims etc. resend at once (paced after max_retx of them),
 *   resource NACKs back off rto_min * 2^n up to rto_max, indefinitely
 *   (NO_SES_MSG_AVAIL from cfg.nack_retx instead: posting the receive
 *   ends that shortage).
 *   Before the RTO (cfg.loss_infer, RUD): RACK (RFC 8985) on the ACKs'
 *   SACK bitmaps - a packet sent before one that arrived is lost once
 *   its latest RTT plus the reorder window (cfg.reorder_window, else a
 *   quarter of the smallest RTT: spraying reorders) has passed since its
 *   send, and is resent then; a PDC whose ACKs stop with packets in
 *   flight resends its newest after 2 SRTT + ack_delay (tail probe), so
 *   that the answer's SACK shows the holes, and again, twice as late,
 *   up to UET_TLP_MAX probes unanswered; the probed copy's EV counts
 *   as lost (timed out when it was alone in flight). Both count as
 *   NACKs do (a live peer), and the CCC hears of each inferred loss,
 *   not of probes.
 *   The target (cfg.rcv_infer, RUD) NACKs RCVR_INFER_LOSS a hole that
 *   that many packets, and more than the PDC's deepest reordering,
 *   overtook; once per hole, never one it NACKed TRIMMED
 *   (docs/choices.md §4.2).
 * - ROD: Go-Back-N. The target hands SES only the next PSN; anything
 *   ahead is dropped, and NACKed ROD_OOO (payload = expected PSN) once per
 *   expected PSN; the initiator rewinds once per expected PSN.
 * - Entropy (ini.c, ../cms/lb.h): each PDC's data packets take the
 *   values cfg.lb picks among cfg.entropy_count, runs of
 *   cfg.entropy_run new packets on one; a resend leaves the value that
 *   lost it; ROD keeps one (moved by a timeout). With cfg.run_whole a
 *   run begins only once the window holds it whole, or while less
 *   than a run is in flight. Every ACK, ECN mark, trim, inferred loss
 *   and RTO is told to the policy with the value of its packet. CLOSE,
 *   ACK_REQ and liveness probes take fresh picks off the value their
 *   unanswered predecessor took; other control packets round robin.
 *   The SYN phase leaves from the home port whatever the value. ACKs and
 *   NACKs echo the request's entropy as received: its raw source port;
 *   an ACK leaves on another value when our initiator PDC to the peer
 *   lost packets on that one lately (cfg.ack_steer, tgt.c).
 * - Close: the initiator after cfg.pdc_idle with nothing in flight and
 *   SES not busy (at once when another peer waits for a slot); the target
 *   lingers for the initiator's retry span (re-ACKs CLOSE, NACKs CLOSING)
 *   and reaps a silent initiator after 2 * (pdc_idle + retry span), never
 *   while return data is in flight or queued, once more if SES is busy.
 * - Return direction (reads, sublayer.h): the target sends with its rtb
 *   (ini.c), the initiator receives with its rx (tgt.c); same RUD/ROD
 *   rules, RTO, SACK, NACKs, ACK coalescing as the forward direction.
 *   Start_PSN = the forward one (docs/choices.md §2.5). A packet's PDC role
 *   tells its direction: requests with a response header (next_hdr 5/6)
 *   are for an initiator PDC, ACKs/NACKs at a target PDC are about
 *   return data. Their ACKs carry no SES response. Return data reaching
 *   an initiator still in SYN (first ACK lost) names the target's PDC and
 *   establishes it. A CLOSE while return data is in flight or queued gets
 *   NACK CLOSING_IN_ERR and closes in error (docs/choices.md §2.4).
 * - RUDI / UUD (cl.c, sublayer.h), spoken with cfg.rudi / cfg.uud and a
 *   SES that attached its connectionless ops, else dropped (drop_other):
 *   requests from the home port; pkt_id = generation << 8 | slot of a
 *   256-slot table (a stale answer is told apart); RTO rto_min doubling
 *   to rto_max, max_retx resends; the first RUDI_RESP completes, later
 *   ones are dropped; NACKs (NT) resend (trimmed), pause (resources) or
 *   fail. The target answers every copy at the address it came from, read
 *   data inline up to mtu - 28 bytes; a SES refusal is a NACK (REF stays
 *   silent: a NACK spares the initiator its RTO). Answers wait in a
 *   64-entry ring; when it is full the request is dropped before SES sees
 *   it. UUD completes at transmit; a cut one is lost. New connectionless
 *   packets take turns with the PDCs' and are not congestion controlled.
 *   Answers count as acks_tx/acks_rx, resends as retx_rto/retx_nack.
 * - Hostile peers: a SYN SES would refuse whatever its state (JobID,
 *   PIDonFEP, RI: uet_ses_rx_admit) makes no PDC; its refusal goes in
 *   a plain ACK with spdcid 0 and CACK = Start_PSN - 1 from the NACK
 *   ring, as often as it comes (the initiator stays in SYN). A target
 *   PDC is half-open until a packet without SYN names it; half-open
 *   ones take at most half the pool (then NO_PDC_AVAIL) and are
 *   forgotten after retry_span + pdc_idle of silence (no initiator can
 *   still resend then), not the full reap; no PDC in use is closed for
 *   a peer's SYN. One PDC keeps at most a quarter of the guaranteed-
 *   response pool; past it that PDC alone is NACKed NO_GTD_DEL_AVAIL.
 * - Restarts: NACK INV_DPDCID at an initiator PDC means the peer has no
 *   state for it: SES takes back the messages nothing of which was
 *   acknowledged (uet_ses_pdc_lost), the PDC goes without failing and
 *   the peer is woken on a new one. A peer whose PDC failed for silence
 *   is unreachable for cfg.unreach_hold: sends to it fail at once until
 *   it sends us a request.
 * - Liveness: an idle initiator PDC that SES keeps busy (waiting for read
 *   data, a rendezvous) has nothing for an RTO to watch, so after
 *   pdc_idle of silence (rto_max if 0) it sends an ACK_REQ for the last
 *   PSN the target acknowledged; any answer resets it, max_retx + 1
 *   unanswered (backing off like RTOs) or a fatal NACK fail the PDC.
 */
#ifndef UET_PDS_PDS_H
#define UET_PDS_PDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uet/fep.h"
#include "uet/list.h"
#include "uet/net.h"
#include "uet/wire.h"
#include "../core/sublayer.h"

#include "acktr.h"
#include "cl.h"
#include "heap.h"
#include "nack.h"
#include "pdc.h"

/* Largest number of PSNs an initiator may have in the SYN phase: the
 * 12-bit psn_offset (docs/choices.md §2.3). */
#define UET_PDS_SYN_SPAN	4096u
/* Start_PSN range (docs/choices.md §2.3, as REF). */
#define UET_PDS_START_MIN	(1u << 16)
#define UET_PDS_START_MAX	(1u << 31)

struct uet_pds {
	struct uet_fep_config cfg;
	const struct uet_callbacks *cb;
	void *user;
	struct uet_ses *ses;
	struct uet_fep_stats *st;

	/* PDC pool (pdc.c) */
	struct uet_pdc *pdcs;
	unsigned npdc;
	unsigned nopen;
	struct uet_pdc *free_pdc;
	struct uet_pdc **id_hash;
	struct uet_pdc **peer_hash;
	uint32_t hash_mask;
	uint16_t next_id;
	struct uet_rtb_ent *rtb_ents;
	uint32_t rtb_cap;		/* ring per PDC: pow2 >= 4 * window */
	uint64_t *rx_bits;
	struct uet_gtd_pool gtd;
	struct uet_ccc_table cccs;	/* congestion contexts (uet/cms) */
	unsigned gtd_share;		/* most gtd slots one PDC may hold */
	unsigned nhalf, half_max;	/* half-open target PDCs: now, limit */
	/* Unreachable peers (pdc.c): a small ring, newest verdicts win. */
	struct uet_unreach {
		struct uet_addr peer;
		uet_time until;
	} *unreach;
	unsigned nunreach;
	/* Peers SES woke while the pool was empty. */
	struct uet_addr *waiting;
	unsigned nwaiting;

	/* Scheduler */
	struct uet_list ctl_q;		/* PDCs with ACK/CLEAR/CP to send */
	struct uet_list retx_q;		/* PDCs with resends due */
	struct uet_list ready_q;	/* PDCs SES has packets for */
	struct uet_heap timers;		/* one node per PDC */
	struct uet_pdc **due;		/* handle_timeout's batch (pdc_max) */
	struct uet_nack_q nacks;
	struct uet_cl cl;		/* RUDI and UUD */
	struct uet_list rc_active;	/* PDCs owed credit (rcp.c) */
	uet_time rc_next;		/* the pacer's next grant */
	uint32_t rc_mark;		/* the pacer's CE fraction, 1/65536 */

	/* Derived timing */
	uet_time retry_span;		/* first send to failure, at worst */
	uet_time reap;			/* target: forget a silent initiator */
	uet_time linger;		/* target: keep a closed PDC so long */
	uet_time half_reap;		/* target: forget a silent half-open */
	uet_time now;			/* latest time seen (monotonic) */
};

/* Check cfg (UET_ERR_INVAL) and allocate everything (UET_ERR_NOMEM). st
 * receives the counters; ses is attached later with uet_pds_attach. */
int uet_pds_create(struct uet_pds **pds, const struct uet_fep_config *cfg,
		   const struct uet_callbacks *cb, void *user,
		   struct uet_fep_stats *st, uet_time now);
void uet_pds_attach(struct uet_pds *pds, struct uet_ses *ses);
/* Free without calling SES (uet_fep_close drops pending work). */
void uet_pds_destroy(struct uet_pds *pds);
/* uet_fep_cc_info */
size_t uet_pds_cc_info(const struct uet_pds *pds, struct uet_cc_info *out,
		       size_t max);

/* The pool is empty: free a closed target PDC that only lingers, or (own:
 * for a send of ours, never for a peer's SYN) start closing an idle
 * initiator PDC, so a slot comes back soon. */
void uet_pds_reclaim(struct uet_pds *pds, bool own);

/* Closing (TIME_WAIT's job): the latest last_act + quiet over the PDCs
 * whose peer may still resend what we took, because it may lack our ACK
 * (its CLEAR_PSN is behind our CACK, or we ACKed its CLOSE), quiet
 * doubled for each resend in a row that came (the peer backs off, up to
 * 16x); 0 if none. */
uet_time uet_pds_linger_until(const struct uet_pds *pds, uet_time quiet);

/* Back-off: base * 2^n, at most rto_max. */
uet_time uet_pds_backoff(const struct uet_pds *pds, uet_time base, unsigned n);
/* The same from rto_min: the NACK pauses. */
uet_time uet_pds_rto(const struct uet_pds *pds, unsigned n);

/* Receive paths. Each returns 0 when the packet was taken (answered,
 * delivered, or a duplicate re-acknowledged) or the UET_ERR_* it was
 * dropped for (counted in st). */
int uet_pds_rx_ctrl(struct uet_pds *pds, const struct uet_pkt_info *pi,
		    const struct uet_pds_hdr *h, uet_time now);
/* A packet the network cut (pi->trimmed): only its PDS header counts. */
int uet_pds_rx_trimmed(struct uet_pds *pds, const struct uet_pkt_info *pi,
		       const uint8_t *pkt, size_t len, uet_time now);

/* Transmit phases, one packet each: length, 0 when the phase has nothing,
 * or a negative UET_ERR_*. */
ssize_t uet_pds_poll_ctl(struct uet_pds *pds, struct uet_pkt_info *pi,
			 uint8_t *buf, size_t cap, uet_time now);
ssize_t uet_pds_poll_retx(struct uet_pds *pds, struct uet_pkt_info *pi,
			  uint8_t *buf, size_t cap, uet_time now);
ssize_t uet_pds_poll_new(struct uet_pds *pds, struct uet_pkt_info *pi,
			 uint8_t *buf, size_t cap, uet_time now);

uet_time uet_pds_next_timeout(const struct uet_pds *pds);
void uet_pds_handle_timeout(struct uet_pds *pds, uet_time now);

/* Encode a header-only packet (ACK without response, NACK, CTRL) or an
 * ACK with reply (its response, and its data as the payload), and fill pi
 * for dst. Returns the length or UET_ERR_*. */
ssize_t uet_pds_emit(struct uet_pds *pds, struct uet_pkt_info *pi,
		     const struct uet_addr *dst, uint16_t entropy,
		     const struct uet_pds_hdr *h,
		     const struct uet_ses_reply *reply, uint8_t *buf,
		     size_t cap, uet_time now);

/* Random bytes from callbacks.rand. */
uint32_t uet_pds_rand32(struct uet_pds *pds);

#endif
