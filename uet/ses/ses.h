/* The semantic sublayer (SES) of one fep, as the front door (uet/core/fep.c)
 * drives it: operations posted by the application, completions back through
 * callbacks.complete. Everything between SES and PDS goes through
 * uet/core/sublayer.h (uet_ses_tx_* / uet_ses_rx / uet_ses_rx_ret /
 * uet_ses_pdc_* and uet_pds_wake / uet_pds_wake_pdc).
 *
 * What SES does (docs/choices.md, chapters 5 to 8):
 * - sends: one message per SEND/TSEND, cut into packets with the standard
 *   SES header (docs/protocol.md §5.3), numbered per PDC from message_id 0;
 *   complete once every packet is acknowledged;
 * - receive contexts (rxq.c): cfg.rx_ctx_count of them, one per resource
 *   index served (a message is matched only in the one its
 *   resource_index names; op.rx_ctx picks a receive's), context 0 maybe a
 *   queue shared with other feps (cfg.rxq, uet_rxq_open);
 * - receives: posted untagged/tagged receives, matched in posting order
 *   (tag & ~ignore, source address unless UET_OPF_PEER_ANY); the messages of
 *   one PDC are matched in message_id order (FI_ORDER_SAS); messages that
 *   find no receive wait on the unexpected list within cfg.unexp_max bytes
 *   (one that does not fit keeps its place and has its packets NACKed with
 *   UET_NACK_NO_SES_MSG_AVAIL until a receive takes it);
 * - truncation, multi-recv, cancel, flush, remote CQ data, PEEK/CLAIM/DISCARD;
 * - memory regions (mr.c): a key table; RMA WRITE and READ and atomics as
 *   initiator (msg.c) and target (rma.c, amo.c): every packet is checked
 *   against the region (RC_BAD_MKEY, RC_PERM_VIOLATION, RC_BAD_ADDR over
 *   the whole message, so a refused message is not placed at all),
 *   refusals are guaranteed responses and fail the initiator's operation
 *   with UET_ERR_REMOTE, prov_errno = the return code; target-side
 *   completions carry UET_CF_REMOTE and the region's context;
 * - reads return up to UET_ACK_DATA_MAX bytes in the ACK, longer ones in
 *   the return direction of the same PDC (uet_ses_rx_ret at the
 *   initiator), requested in UET_SES_READ_CHUNK (1024) bytes, then in
 *   pieces of several return packets each (msg.c read_chunk);
 * - atomics: every libfabric op/type pair (amo.c), one packet, operands
 *   big-endian, fetched values in the ACK; atomic with respect to each
 *   other on this fep (the engine runs one at a time), not to the CPU;
 * - rendezvous (rndv.c): sends above cfg.rndv_threshold carry an eager
 *   part and the target reads the rest from an engine-keyed region;
 * - UET_OPF_FENCE: an operation starts once nothing earlier to its peer
 *   is in flight.
 * - connectionless delivery (cless.c, uud.c, rudi.c; sublayer.h): with
 *   cfg.uud every UET_OP_SEND is one UUD datagram of at most
 *   uet_fep_dgram_max(mtu) bytes, complete once handed to the port; with
 *   cfg.rudi, RMA writes and reads to keys with UET_MKEY_IDEMPOTENT_SAFE
 *   (not fenced, no CQ data) go over RUDI without a PDC.
 * SES has no timers: a read (or rendezvous send) whose target falls
 * silent after acknowledging every request waits until the PDC fails.
 *
 * SES identifies a sender by uet_pdc_ref.peer (directed receives, the src
 * of receive completions): on the target side it must be the initiator's
 * home address, not the entropy-carrying source port.
 *
 * Addressing (one rule, shared with the provider for its own endpoint): a
 * peer's PIDonFEP, resource index and initiator id are derived from its
 * address with uet_addr_pid / uet_addr_ri (uet/addr.h) and
 * uet_ses_addr_initiator; the JobID is cfg.job_id for every endpoint of
 * the job. An endpoint must therefore be configured with cfg.pid_on_fep =
 * uet_addr_pid(&cfg.local) and cfg.resource_index =
 * uet_addr_ri(&cfg.local), or peers' requests
 * are refused with RC_BAD_PID / RC_BAD_INDEX.
 *
 * Not thread-safe (one thread per fep). now is the caller's clock.
 */
#ifndef UET_SES_SES_H
#define UET_SES_SES_H

#include <stddef.h>
#include <stdint.h>

#include "uet/addr.h"
#include "uet/fep.h"
#include "uet/time.h"

struct uet_pds;
struct uet_ses;

/* Largest iov_count of an operation. */
#define UET_SES_IOV_MAX		4

/* Create the SES of a fep. cfg, cb and the pds pointer must outlive it
 * (cfg is copied; cb is referenced). Descriptor pools are sized from
 * cfg->tx_depth and cfg->rx_depth here; no allocation per packet later.
 * Returns 0, UET_ERR_INVAL for a bad config (tx_depth or rx_depth 0, an
 * mtu that leaves no payload after the PDS and SES headers) or
 * UET_ERR_NOMEM. */
int uet_ses_create(struct uet_ses **out, const struct uet_fep_config *cfg,
		   const struct uet_callbacks *cb, void *user,
		   struct uet_pds *pds);
/* Free everything; pending operations vanish without completions. Call
 * after PDS has released every packet (or together with it). */
void uet_ses_destroy(struct uet_ses *ses);

/* Post an operation (uet_fep_post). Returns 0, UET_ERR_AGAIN (tx_depth or
 * rx_depth operations pending), UET_ERR_INVAL (bad type, flags, iov), or
 * UET_ERR_MSGSIZE (longer than cfg.max_msg_size, or an inject longer than
 * cfg.inject_size).
 * Tagged probes (fi_tagged(3)): UET_OPF_PEEK [| CLAIM | DISCARD] completes
 * from inside this call, with len/tag/data/src of the oldest matching
 * unexpected message, or err UET_ERR_NOENT when there is none (the glue's
 * FI_ENOMSG); PEEK|CLAIM reserves the message for a later UET_OPF_CLAIM
 * receive with the same context, which returns UET_ERR_NOENT when nothing
 * was claimed with it. MULTI_RECV: untagged, one iov.
 * RMA and atomics (fep.h): UET_ERR_INVAL also for INJECT on a read, an
 * atomic op/type/count uet_ses_amo_valid refuses, or operand, result and
 * compare lengths that disagree. */
int uet_ses_post(struct uet_ses *ses, const struct uet_op *op, uet_time now);
/* Cancel the posted receive with this context if it has not been matched
 * yet: it completes with UET_ERR_CANCELED. 0 or UET_ERR_NOENT. */
int uet_ses_cancel(struct uet_ses *ses, void *context);
/* Complete every pending operation (sends not fully acknowledged, receives
 * posted or being filled) with UET_ERR_CANCELED. Packets PDS still holds
 * stay valid: their later acks and failures are ignored. */
void uet_ses_flush(struct uet_ses *ses);

/* Zero-copy transmit (uet_fep_poll_tx_sg): until the next call, a packet
 * uet_ses_tx_write writes may leave its payload out of buf, described in
 * *ext (set only then; the length returned stays the whole packet's).
 * Done for a payload of UET_SES_ZCOPY_MIN bytes or more that lies in one
 * piece: a send's or write's iov entry, the inject copy, or a registered
 * region read back; never for atomics (converted to wire order) nor the
 * zeros of a flushed message. NULL: everything is copied into buf. */
void uet_ses_tx_ext(struct uet_ses *ses, struct uet_iov *ext);

/* Room for more posts (fi_tx_size_left / fi_rx_size_left). */
size_t uet_ses_tx_left(const struct uet_ses *ses);
size_t uet_ses_rx_left(const struct uet_ses *ses);

/* Payload bytes per packet: cfg.mtu minus the PDS request and standard SES
 * headers, at most the 14-bit payload_length limit. */
size_t uet_ses_payload_max(const struct uet_ses *ses);

struct uet_pdc_ref;

/* Direct placement (place.c): where [off, off + *len) of message msg_id
 * of pdc may go before it arrives, *len cut to the bytes that have not
 * arrived, lie in one piece and may still be written (whole packets of
 * seg bytes, the sender's size, but the message's last). ret: read data
 * at the initiator (msg_id the read's); else a send of opcode into the
 * receive that took it at the target. Returns 1 with *dst set, or 0. */
int uet_ses_place(const struct uet_pdc_ref *pdc, bool ret, uint16_t msg_id,
		  uint8_t opcode, uint32_t off, uint32_t seg, uint32_t *len,
		  uint8_t **dst);

/* Memory regions (uet_fep_mr_reg / uet_fep_mr_dereg): see fep.h for the
 * rules and codes. A region may be deregistered at any time; reads
 * already being answered from it send zeros with RC_BAD_MKEY from then
 * on (the memory is not read again). Lookup is by the full 64-bit key. */
int uet_ses_mr_reg(struct uet_ses *ses, const struct uet_mr_attr *attr);
int uet_ses_mr_dereg(struct uet_ses *ses, uint64_t key);

/* Largest element count of an atomic of type (UET_OP_ATOMIC,
 * UET_OP_FETCH_ATOMIC, UET_OP_CMP_ATOMIC) with op on datatype dt over a
 * fep of this mtu, 0 when not supported (fi_query_atomic: the provider
 * advertises exactly this). Base: as many as fit one packet; fetch:
 * UET_ACK_DATA_MAX bytes of results; compare: one element. Needs no SES
 * instance. */
size_t uet_ses_amo_valid(uint8_t op, uint8_t dt, uint8_t type, size_t mtu);

struct uet_ses_stats {
	uint64_t tx_msgs, rx_msgs;	/* messages completed (any outcome) */
	uint64_t unexp_msgs;		/* put on the unexpected list */
	uint64_t unexp_nacks;		/* packets refused: budget exhausted */
	uint64_t held_msgs;		/* held back for FI_ORDER_SAS */
	uint64_t bad_job, bad_pid, bad_index; /* refused, never delivered */
	uint64_t bad_req;		/* unsupported opcode/format/length */
	uint64_t dup_pkts;		/* duplicates PDS let through */
	uint64_t truncated;		/* receives ended with UET_ERR_TRUNC */
	/* target side of RMA and atomics */
	uint64_t rma_writes, rma_reads, amo_ops; /* messages served */
	uint64_t rma_bad_mkey, rma_perm, rma_bad_addr; /* refused packets */
	uint64_t amo_bad_op, amo_bad_dt, amo_bad_size, amo_unaligned;
	uint64_t ret_pkts;		/* return-direction data packets cut */
	uint64_t ret_stale;		/* read data for no read in progress */
	uint64_t rndv_tx, rndv_reads;	/* rendezvous sends, reads of them */
	/* connectionless */
	uint64_t dgram_rx;		/* UUD datagrams delivered */
	uint64_t dgram_dropped;		/* ... dropped: no receive, refused */
	uint64_t rudi_served;		/* RUDI requests placed or read */
	uint64_t rudi_refused;		/* ... answered with an error code */
	size_t unexp_bytes;		/* budget in use now */
};

void uet_ses_stats(const struct uet_ses *ses, struct uet_ses_stats *st);
/* Add SES's share of the fep counters: drop_job (bad job + pid + index),
 * unexp_msgs, rma_rx (writes + reads + atomics served) and rma_refused
 * (refusals by key, permission, range and atomic op/type/size/alignment). */
void uet_ses_stats_fep(const struct uet_ses *ses, struct uet_fep_stats *st);

/* ---- Addressing (PIDonFEP and resource index: uet/addr.h) ---- */

/* 32-bit initiator id a sender at a puts in its requests: FNV-1a over the
 * family, the address bytes and the port (big endian). Informative only:
 * directed receives match the sender's address, which the PDC gives. */
uint32_t uet_ses_addr_initiator(const struct uet_addr *a);

#endif
