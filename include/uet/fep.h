/* The protocol engine's front door: one struct uet_fep is one UET endpoint
 * as peers see it (Fabric Address + UDP home port, JobID, PIDonFEP,
 * resource index), holding its PDS (PDCs, PSNs, ACK/NACK, retransmission)
 * and SES (segmentation, reassembly, matching) state.
 *
 * Sans-I/O (docs/architecture.md §2): the engine never reads a
 * clock, never touches a socket and never blocks. Its caller, the driver
 * loop (prov/uet progress, or a test over the mem port), does:
 *
 *	uet_fep_recv()           for every packet received,
 *	uet_fep_handle_timeout() when uet_fep_next_timeout() has passed,
 *	uet_fep_poll_tx()        until it returns 0, sending what it yields,
 *
 * and posts work with uet_fep_post(). Completions come back through
 * callbacks.complete, from inside those calls. Callbacks must not call
 * back into the engine.
 *
 * Not thread-safe: one thread at a time per fep (the provider locks).
 * User buffers of posted operations are referenced, not copied, until the
 * operation completes (except UET_OPF_INJECT sends, copied at post).
 */
#ifndef UET_FEP_H
#define UET_FEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uet/addr.h"
#include "uet/err.h"
#include "uet/alloc.h"
#include "uet/net.h"
#include "uet/time.h"
#include "uet/tss.h"
#include "uet/wire.h"

struct uet_rxq;

/* Congestion control algorithm of the CCCs of a FEP (uet/cms/README.md). */
/* Entropy selection (uet/cms/lb.h, UE 1.0 §3.6.16). */
enum uet_lb_kind {
	UET_LB_DEFAULT = 0,	/* UET_LB_DEFAULT_KIND */
	UET_LB_SINGLE,		/* one path, moved only by a timeout */
	UET_LB_OBLIVIOUS,	/* every value once per pass, random order */
	UET_LB_REPS,		/* reuse values whose ACKs came back clean */
	UET_LB_BITMAP,		/* skip values that saw marks, trims, losses */
	UET_LB_MIXED,		/* REPS first, the bitmap otherwise */
};
#define UET_LB_DEFAULT_KIND	UET_LB_BITMAP

enum uet_cca {
	UET_CCA_FIXED = 0,	/* cfg.window packets per CCC, for tests */
	UET_CCA_NSCC,		/* sender window from delay and ECN */
	UET_CCA_RCCC,		/* receiver-granted credit */
	UET_CCA_NSCC_RCCC,	/* both: a packet needs window and credit */
};

struct uet_fep_config {
	struct uet_addr local;		/* FA + home port (from the port) */
	uint32_t job_id;		/* 24 bits, in every SES header */
	uint16_t pid_on_fep;		/* 12 bits */
	uint16_t resource_index;	/* 12 bits */
	size_t mtu;			/* max UET packet size (headers included) */
	/* Toward a FEP of this host (a peer at local's FA, another port):
	 * the kernel takes those over its loopback, whatever interface the
	 * FA is on, so their packets may be this large; 0: mtu. At least
	 * mtu. Connectionless and datagram sizes stay mtu's. */
	size_t host_mtu;
	size_t max_msg_size;		/* at least 16 MiB */
	size_t inject_size;		/* largest UET_OPF_INJECT send */
	unsigned tx_depth;		/* outstanding transmit operations */
	unsigned rx_depth;		/* posted receive operations */
	size_t unexp_max;		/* bytes buffered for unexpected messages */
	unsigned pdc_max;		/* PDCs open at once (peers talked to);
					 * half at most half-open (a SYN
					 * seen, nothing else yet) */
	bool rod;			/* ROD PDCs instead of RUD */
	unsigned window;		/* fixed congestion window, packets per PDC */
	uint8_t cca;			/* enum uet_cca */
	uint64_t link_bps;		/* this FEP's link rate, bits/s (BDP) */
	uet_time base_rtt;		/* config_base_rtt: unloaded RTT of an
					 * MTU packet over the longest path;
					 * 0: unknown, NSCC probes it */
	bool trimming;			/* the fabric trims instead of dropping */
	uet_time rto_min;		/* first retransmission timeout */
	uet_time rto_max;		/* backoff ceiling */
	uet_time nack_retx;		/* first pause after NO_SES_MSG_AVAIL
					 * (spec NACK_RETX_TIME; 0: rto_min) */
	unsigned max_retx;		/* retries of one packet before the PDC fails */
	uet_time ack_delay;		/* longest an ACK is held for coalescing */
	unsigned ack_every;		/* ACK at least every N packets */
	/* An ACK asked for by AR alone waits this long (0: none) for a
	 * packet of ours to the same peer, and goes right after it: in a
	 * request/response exchange the response leaves first and the ACK
	 * rides behind it, off the critical path (docs/choices.md §3.1). */
	uet_time ack_hold;
	/* Loss inference (pds.h: Loss): a packet is resent once a packet
	 * sent after it was acknowledged and reorder_window (0: a quarter of
	 * the smallest RTT) has passed beyond its RTT; a PDC whose ACKs stop
	 * resends its newest packet after two RTTs (tail probe). Off: the
	 * RTO alone. */
	bool loss_infer;
	uet_time reorder_window;
	/* Entropy selection on a fabric that never marks ECN (kernel ECMP,
	 * tbf queues): a packet sent once whose ACK took longer than twice
	 * the PDC's median RTT tells its EV's policy "marked", so the paths
	 * with the longer queues are used less. Off once the PDC sees a
	 * real CE mark. */
	bool lb_delay;
	/* The target's side (RUD): a hole that at least rcv_infer packets,
	 * and more than the deepest reordering the PDC has seen, overtook
	 * is NACKed RCVR_INFER_LOSS, once. 0: off. */
	unsigned rcv_infer;
	uet_time pdc_idle;		/* idle time before an initiator closes a PDC */
	uet_time unreach_hold;		/* after a PDC to a peer failed for
					 * silence, new sends to it fail at once
					 * for so long, unless the peer shows
					 * life first (0: never) */
	uint16_t entropy_count;		/* distinct entropy values to spray over */
	uint16_t entropy_run;		/* packets sent on one value before the
					 * next (0 = 1): a software port sends a
					 * run in one system call (UDP GSO) */
	/* A run of new packets starts only when the window has room for
	 * all of it, unless less than a run is in flight (then no ACK may
	 * come to open it): runs leave whole, as one GSO train each,
	 * instead of as many as an ACK happens to free. */
	bool run_whole;
	uint8_t lb;			/* enum uet_lb_kind: how a PDC picks the
					 * entropy of each packet (ROD: single) */
	/* An ACK echoes its request's EV unless our initiator PDC to that
	 * peer lost packets on that EV lately: then it leaves on one that
	 * PDC trusts (cms/lb.h uet_lb_steer). Over UDP the EV is the
	 * socket, and each direction's path is its own. */
	bool ack_steer;
	uint8_t ecn;			/* UET_ECN_* codepoint to send with */
	size_t rndv_threshold;		/* sends above this use rendezvous (0: never) */
	bool rudi;			/* speak RUDI (RMA to IDEMPOTENT_SAFE keys);
					 * off: RUDI packets are dropped */
	bool uud;			/* speak UUD (datagram endpoint); off: UUD
					 * packets are dropped */
	/* Receive contexts (libfabric's scalable endpoint): the fep serves
	 * resource indices resource_index .. + rx_ctx_count - 1 (0 means
	 * 1), each with its own posted receives and unexpected messages;
	 * a request to another index is refused with RC_BAD_INDEX. */
	uint16_t rx_ctx_count;
	/* Context 0 is this shared receive queue (uet_rxq_open) instead of
	 * the fep's own: NULL for its own. */
	struct uet_rxq *rxq;
	/* Transport security (include/uet/tss.h), copied at open; NULL or
	 * mode UET_TSS_OFF: packets travel in clear. With it every packet
	 * is sealed, and a clear or unverifiable one is dropped (counted
	 * in drop_tss); mtu stays the size on the wire, the TSS header and
	 * ICV come out of it. */
	const struct uet_tss_cfg *tss;
	/* Every allocation of the fep's (include/uet/alloc.h); NULL: the C
	 * library's. Feps sharing a receive queue share it too. */
	const struct uet_alloc *alloc;
};

/* Fill cfg with the engine defaults (local address and ids left zero). */
void uet_fep_config_default(struct uet_fep_config *cfg);

struct uet_iov {
	void *base;
	size_t len;
};

enum uet_op_type {
	UET_OP_SEND = 1,	/* untagged send */
	UET_OP_TSEND,		/* tagged send */
	UET_OP_RECV,		/* untagged receive */
	UET_OP_TRECV,		/* tagged receive */
	UET_OP_WRITE,		/* RMA write: iov -> (peer, rkey, raddr) */
	UET_OP_READ,		/* RMA read: (peer, rkey, raddr) -> iov */
	UET_OP_ATOMIC,		/* amo_op on amo_dt elements of iov at raddr */
	UET_OP_FETCH_ATOMIC,	/* same, old values into result_iov */
	UET_OP_CMP_ATOMIC,	/* compare-swap: compare_iov, old values into result_iov */
};
/* Atomics: iov, result_iov and compare_iov lengths are bytes, whole
 * elements of amo_dt in host order; the element count is iov's (the
 * result's for UET_AMO_READ, which sends no operand) and must be at most
 * uet_fep_amo_max(). A compare op takes one element: compare_iov holds
 * the compare value (MSWAP: the mask), iov the swap value. Completions:
 * UET_CF_ATOMIC with UET_CF_WRITE (base) or UET_CF_READ (fetch, compare);
 * RMA: UET_CF_WRITE / UET_CF_READ. Target side: UET_CF_REMOTE with the
 * same flags, context = the region's, len the bytes of the message. */

/* Operation flags (the glue maps FI_* onto these). */
#define UET_OPF_COMPLETION	0x0001	/* report success too, not only errors */
#define UET_OPF_INJECT		0x0002	/* copy the data at post time */
#define UET_OPF_CQ_DATA		0x0004	/* send cq_data as SES header data */
#define UET_OPF_MULTI_RECV	0x0008	/* receive buffer holds many messages */
#define UET_OPF_DELIVERY	0x0010	/* complete when placed at the target */
#define UET_OPF_PEER_ANY	0x0020	/* receive from any source */
#define UET_OPF_PEEK		0x0040	/* tagged: probe the unexpected list */
#define UET_OPF_CLAIM		0x0080	/* tagged: take a peeked message */
#define UET_OPF_DISCARD		0x0100	/* tagged: drop the matched message */
#define UET_OPF_FENCE		0x0200	/* start after every earlier op to the peer completed */

struct uet_op {
	uint8_t type;			/* enum uet_op_type */
	uint32_t flags;			/* UET_OPF_* */
	void *context;			/* returned in the completion */
	struct uet_addr peer;		/* send: target; recv: source unless PEER_ANY */
	const struct uet_iov *iov;	/* copied at post; the buffers are not */
	size_t iov_count;
	uint64_t tag;			/* tagged */
	uint64_t ignore;		/* tagged receive: bits that need not match */
	uint64_t cq_data;		/* with UET_OPF_CQ_DATA */
	size_t min_multi_recv;		/* multi-recv: release below this free space */
	/* RMA and atomics */
	uint64_t rkey;			/* the target MR's mem_key */
	uint64_t raddr;			/* address (UET_MR_VIRT_ADDR) or offset in the MR */
	uint8_t amo_op;			/* enum uet_amo_op (uet/wire.h) */
	uint8_t amo_dt;			/* enum uet_amo_dt */
	const struct uet_iov *result_iov; /* fetch/compare: old values land here */
	size_t result_count;
	const struct uet_iov *compare_iov; /* compare atomics: operands */
	size_t compare_count;
	/* Receive context: of the target (added to its resource index) for
	 * what is sent, of this fep (< cfg.rx_ctx_count) for a receive. */
	uint16_t rx_ctx;
};

/* Memory regions (the target side of RMA and atomics). Access bits: */
#define UET_MR_REMOTE_READ	0x01	/* RMA read source */
#define UET_MR_REMOTE_WRITE	0x02	/* RMA write target */
#define UET_MR_REMOTE_ATOMIC	0x04	/* atomic target; an atomic also needs
					 * REMOTE_WRITE unless its op is READ,
					 * and REMOTE_READ when it fetches or
					 * compares (fi_mr(3) FI_REMOTE_*) */
#define UET_MR_VIRT_ADDR	0x10	/* raddr is a virtual address, else an offset */
#define UET_MR_IDEMPOTENT	0x20	/* may be targeted over RUDI (key bit 63) */

/* mem_key layout (docs/choices.md §6.4). A registered key has
 * bits 61:48 zero and bit 63 set exactly when access has
 * UET_MR_IDEMPOTENT; bit 62 (optimized format) is the caller's to use.
 * Keys with vendor bits 55:48 set are the engine's own (rendezvous). */
#define UET_MKEY_IDEMPOTENT_SAFE (1ull << 63)
#define UET_MKEY_OPTIMIZED	(1ull << 62)
#define UET_MKEY_RSVD_MASK	(((1ull << 62) - 1) & ~((1ull << 48) - 1))
#define UET_MKEY_VENDOR_MASK	(0xFFull << 48)
#define UET_MKEY_RKEY_MASK	((1ull << 48) - 1)

struct uet_mr_attr {
	void *base;
	size_t len;
	uint64_t key;			/* mem_key peers use (bits 61:48 zero) */
	uint32_t access;		/* UET_MR_* */
	void *context;			/* returned in its remote completions */
};

/* Completion flags. */
#define UET_CF_SEND		0x01
#define UET_CF_RECV		0x02
#define UET_CF_TAGGED		0x04
#define UET_CF_CQ_DATA		0x08	/* data holds the sender's cq_data */
#define UET_CF_MULTI_RECV	0x10	/* multi-recv buffer released */
#define UET_CF_WRITE		0x20	/* RMA write (with REMOTE: target side) */
#define UET_CF_READ		0x40	/* RMA read */
#define UET_CF_ATOMIC		0x80	/* atomic of any kind */
#define UET_CF_REMOTE		0x100	/* target side of RMA/atomic: context is the
					 * MR's; CQ_DATA when the write carried data */

struct uet_completion {
	void *context;
	uint32_t flags;			/* UET_CF_* */
	int err;			/* 0, or UET_ERR_* (error completion) */
	int prov_errno;			/* UET return code or NACK code, else 0 */
	void *buf;			/* receive: where the data starts */
	size_t len;			/* bytes transferred */
	size_t olen;			/* truncation: bytes that did not fit */
	uint64_t data;			/* remote CQ data */
	uint64_t tag;			/* tagged receive: the sender's tag */
	struct uet_addr src;		/* receive: sender's address */
};

struct uet_callbacks {
	void (*complete)(void *user, const struct uet_completion *c);
	/* Fill buf with random bytes (start PSNs, PDC ids). */
	void (*rand)(void *user, void *buf, size_t len);
	/* Optional: every packet in (dir 0) and out (dir 1), for pcap. */
	void (*trace)(void *user, int dir, const struct uet_pkt_info *pi,
		      const uint8_t *pkt, size_t len);
};

/* Counters, for tests, logs and the exit-time dump. */
struct uet_fep_stats {
	uint64_t tx_pkts, rx_pkts, tx_bytes, rx_bytes;
	uint64_t retx_rto, retx_nack;	/* retransmissions by cause: RTO, NACK, */
	uint64_t retx_sack, retx_tlp;	/* inferred from ACKs, tail probe */
	uint64_t retx_spurious;		/* inferred resends whose first copy
					 * arrived after all (duplicate ACKed) */
	uint64_t credit_q;		/* RCCC: quanta (256 B) granted */
	uint64_t credit_req_tx;		/* RCCC: CREDIT_REQUESTs sent */
	uint64_t acks_tx, acks_rx, nacks_tx, nacks_rx;
	uint64_t sack_gaps;		/* holes reported in SACK bitmaps */
	uint64_t dup_rx;		/* duplicate requests received */
	uint64_t drop_malformed;	/* wire decode failed */
	uint64_t drop_job;		/* JobID / PID / RI not ours */
	uint64_t drop_pdc;		/* unknown or mismatching PDC */
	uint64_t drop_psn;		/* PSN outside the window */
	uint64_t drop_other;
	uint64_t drop_tss;		/* TSS refused it (uet_fep_tss_stats
					 * says why) */
	uint64_t pdc_open, pdc_closed, pdc_failed;
	uint64_t ret_tx, ret_rx;	/* return-direction (read data) packets:
					 * first sends, deliveries to SES */
	uint64_t probes_tx;		/* idle PDC, SES waiting: peer alive? */
	uint64_t cl_tx, cl_rx;		/* RUDI/UUD requests: first sends,
					 * deliveries to SES */
	uint64_t unexp_msgs;		/* messages that arrived before a receive */
	uint64_t rma_rx;		/* RMA/atomic messages served as target */
	uint64_t rma_refused;		/* ... refused (key, permission, range,
					 * atomic op/type/alignment) */
};

struct uet_fep;

/* Returns 0, UET_ERR_INVAL (bad config), UET_ERR_NOMEM. */
int uet_fep_open(struct uet_fep **fep, const struct uet_fep_config *cfg,
		 const struct uet_callbacks *cb, void *user, uet_time now);
/* Frees everything; pending operations are dropped without completions
 * (call uet_fep_flush first for error completions). */
void uet_fep_close(struct uet_fep *fep);
/* Complete every pending operation with UET_ERR_CANCELED. */
void uet_fep_flush(struct uet_fep *fep);

/* Post an operation. 0, UET_ERR_AGAIN (queue full), UET_ERR_INVAL,
 * UET_ERR_MSGSIZE. The op struct may be reused once this returns. */
int uet_fep_post(struct uet_fep *fep, const struct uet_op *op, uet_time now);
/* Cancel the pending receive with this context: it completes with
 * UET_ERR_CANCELED. 0 or UET_ERR_NOENT. */
int uet_fep_cancel(struct uet_fep *fep, void *context);

/* Register memory for remote access: 0, UET_ERR_INVAL (bad access bits,
 * key bits 61:48 set), UET_ERR_BUSY (key in use), UET_ERR_NOMEM. */
int uet_fep_mr_reg(struct uet_fep *fep, const struct uet_mr_attr *attr);
/* 0 or UET_ERR_NOENT. Requests already placed are unaffected; later ones
 * are refused with RC_BAD_MKEY (return data of a read still in flight is
 * sent as zeros with RC_BAD_MKEY: the memory is not touched again). */
int uet_fep_mr_dereg(struct uet_fep *fep, uint64_t key);

/* Atomics (fi_query_atomic): the largest count of amo_dt elements one
 * operation of type (UET_OP_ATOMIC, UET_OP_FETCH_ATOMIC or
 * UET_OP_CMP_ATOMIC) with amo_op may carry on this fep, or 0 when the
 * combination is not supported. Fetched values ride in the ACK, so a
 * fetching op carries at most UET_ACK_DATA_MAX (16) bytes; compare ops
 * carry one element (the compare-and-swap extension holds one operand). */
size_t uet_fep_amo_max(const struct uet_fep *fep, uint8_t type, uint8_t op,
		       uint8_t dt);

/* The largest packet toward peer under cfg: host_mtu for a FEP of this
 * host (peer at cfg->local's FA), else mtu. */
static inline size_t uet_fep_config_mtu_to(const struct uet_fep_config *cfg,
					   const struct uet_addr *peer)
{
	return cfg->host_mtu > cfg->mtu &&
	       uet_addr_same_fa(peer, &cfg->local) ? cfg->host_mtu : cfg->mtu;
}

/* The largest packet toward any peer under cfg. */
static inline size_t uet_fep_config_mtu_max(const struct uet_fep_config *cfg)
{
	return cfg->host_mtu > cfg->mtu ? cfg->host_mtu : cfg->mtu;
}

/* Bytes of one UUD datagram (a send on a cfg.uud fep) of this mtu: the
 * mtu less the UUD and standard SES headers (docs/protocol.md §4.9, §5.3).
 * Needs no fep (the provider's max_msg_size of FI_EP_DGRAM). */
static inline size_t uet_fep_dgram_max(size_t mtu)
{
	size_t hdrs = UET_PDS_UUD_LEN + UET_SES_STD_LEN;

	return mtu > hdrs ? mtu - hdrs : 0;
}

/* One packet from the port: 0 when accepted; a packet that is malformed,
 * foreign, stale or refused is dropped and counted, and the reason
 * returned (uet_err_is_drop: a wire or TSS code, UET_ERR_DROPPED, or
 * UET_ERR_NOMEM when there was no memory for it); UET_ERR_INVAL only for
 * bad arguments. pkt is read during the call only: the caller may reuse
 * it, or a port lend it (uet_udp_config.rx_lend), right after. */
int uet_fep_recv(struct uet_fep *fep, const struct uet_pkt_info *pi,
		 const uint8_t *pkt, size_t len, uet_time now);
/* The same for a packet whose payload lies apart from its headers (a
 * placed one, uet/net.h): hdr[0 .. hdr_len) exactly its headers. SES
 * copies no payload byte that is already where it goes. UET_ERR_INVAL
 * with TSS or a trace callback, which need the packet in one piece. */
int uet_fep_recv_sg(struct uet_fep *fep, const struct uet_pkt_info *pi,
		    const uint8_t *hdr, size_t hdr_len, const uint8_t *payload,
		    size_t payload_len, uet_time now);

/* Direct placement (docs/choices.md §2.9): a guess at where the payloads
 * of the next datagram from the peer of the last request (or read data)
 * received would go, should its packets go on with that message, and
 * what each of them must then say. */
struct uet_fep_place {
	struct uet_net_place net;	/* for the port (uet_udp_place) */
	uint16_t pdc, rpdc;		/* our PDC id (DPDCID), the peer's */
	uint32_t psn;			/* the first planned packet's */
	uint32_t off;			/* its message offset */
	uint16_t msg_id;		/* the message's; the read's for read
					 * data */
	uint8_t opcode;			/* the request's */
	bool ret;			/* read data (return direction) */
};

/* A plan of at most max packets: 1, or 0 when there is none (nothing to
 * go on with, TSS or a trace callback on). It names memory of messages in
 * progress and holds only until the next call that may change them (a
 * post, a cancel, a region closed, a packet received): made right before
 * the port's receive, checked and used right after. */
int uet_fep_place(struct uet_fep *fep, unsigned max, struct uet_fep_place *pl);
/* Is a packet the port placed as the k-th of pl (headers hdr[0 ..
 * hdr_len), payload_len bytes of payload at its place) what pl said? Ask
 * of every placed packet of a datagram before any goes to
 * uet_fep_recv_sg; should one not be, flatten them all first (uet/net.h),
 * for a packet's bytes may lie where another belongs. */
bool uet_fep_place_check(const struct uet_fep_place *pl, unsigned k,
			 const uint8_t *hdr, size_t hdr_len,
			 size_t payload_len);
/* That check over the n packets a port's receive by pl returned: true if
 * every placed one is as planned; else all placed ones are flattened
 * (each buf holds a whole packet) and it returns false. */
bool uet_fep_place_settle(const struct uet_fep_place *pl,
			  struct uet_net_msg *msgs, unsigned n);
/* The next packet to send: writes it to buf (cap >= cfg.mtu), fills pi
 * (dst, entropy, ecn) and returns its length; 0 when nothing is due. */
ssize_t uet_fep_poll_tx(struct uet_fep *fep, struct uet_pkt_info *pi,
			uint8_t *buf, size_t cap, uet_time now);
/* Like uet_fep_poll_tx, but the payload of a data packet may be left
 * where it is (the user's buffer, the inject copy, a registered region)
 * and described in *ext (ext->len 0: none): the packet is then
 * buf[0 .. n - ext->len) followed by ext->base[0 .. ext->len), and n its
 * whole length. buf still has room for the whole packet. ext is valid
 * only until the fep is next called: what the caller keeps longer it
 * must copy into buf first (the owner may reuse a buffer once its
 * operation completes). Never with TSS nor a trace callback. */
ssize_t uet_fep_poll_tx_sg(struct uet_fep *fep, struct uet_pkt_info *pi,
			   uint8_t *buf, size_t cap, struct uet_iov *ext,
			   uet_time now);
/* Earliest deadline (RTO, delayed ACK, PDC close), or UET_TIME_NONE. */
uet_time uet_fep_next_timeout(const struct uet_fep *fep);
/* Run what is due at now (never fails: what a timeout does shows in
 * completions, packets to send and counters). */
void uet_fep_handle_timeout(struct uet_fep *fep, uet_time now);

/* Before closing: until when a peer may still resend a request we took,
 * because it may not have our ACK (no CLEAR_PSN past it yet): quiet after
 * that peer's last packet (twice that per resend in a row it sent, up to
 * 16 times, as it backs off), the latest over all peers; 0 when no peer is
 * in that state. A process that exits sooner leaves such a peer resending
 * into silence until it gives up, like a TCP end without TIME_WAIT. */
uet_time uet_fep_linger_until(const struct uet_fep *fep, uet_time quiet);

/* Room left for posts, for fi_tx_size_left / fi_rx_size_left. */
size_t uet_fep_tx_left(const struct uet_fep *fep);
size_t uet_fep_rx_left(const struct uet_fep *fep);
void uet_fep_stats(const struct uet_fep *fep, struct uet_fep_stats *st);
/* The TSS counters; UET_ERR_INVAL when the fep runs without TSS. */
int uet_fep_tss_stats(const struct uet_fep *fep, struct uet_tss_stats *st);

/* A shared receive queue (libfabric's shared receive context): posted
 * receives that messages arriving at any fep opened with cfg.rxq = it
 * are matched against, as if posted to each. Matching rules are those of
 * a fep's own queue; messages no receive takes wait on one unexpected
 * list, in arrival order across the feps (each fep's buffering counts in
 * its own cfg.unexp_max). A receive's completion comes through the
 * callbacks of the fep whose message it took; cancel, flush and probe
 * answers through the queue's own cb and user.
 *
 * Thread safety: the queue and every fep using it are one unit: one
 * thread at a time across all of them. Close it after those feps. */
/* 0, UET_ERR_INVAL (depth 0, no cb->complete), UET_ERR_NOMEM. */
int uet_rxq_open(struct uet_rxq **q, unsigned depth,
		 const struct uet_callbacks *cb, void *user);
void uet_rxq_close(struct uet_rxq *q);
/* A receive (UET_OP_RECV, UET_OP_TRECV; op->rx_ctx ignored), as
 * uet_fep_post: 0, UET_ERR_AGAIN, UET_ERR_INVAL. It may take an
 * unexpected message at once: the fep that holds it may then have
 * packets to send (poll it). */
int uet_rxq_post(struct uet_rxq *q, const struct uet_op *op);
/* As uet_fep_cancel, for receives posted to the queue. */
int uet_rxq_cancel(struct uet_rxq *q, void *context);
/* Complete every receive still posted with UET_ERR_CANCELED. */
void uet_rxq_flush(struct uet_rxq *q);
size_t uet_rxq_left(const struct uet_rxq *q);

/* One congestion control context (uet/cms), for logs and tools. */
struct uet_cc_info {
	struct uet_addr peer;		/* the destination FEP */
	const char *algo;		/* "fixed", "nscc" */
	bool active;			/* a PDC uses it now */
	int64_t cwnd;			/* window, nominal bytes */
	int64_t inflight;		/* nominal bytes in flight */
	uet_time base_rtt;		/* NSCC's; UET_TIME_NONE otherwise */
	uet_time rtt_last;		/* last sample less service time */
	uint64_t acks, ecn_acks;	/* ACKs without and with flag M */
};

/* Up to max contexts the FEP has used (active or not, until their slot
 * is taken again) into out; returns how many there are. */
size_t uet_fep_cc_info(const struct uet_fep *fep, struct uet_cc_info *out,
		       size_t max);

#endif
