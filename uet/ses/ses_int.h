/* SES internals shared by the files of uet/ses. Nothing outside uet/ses
 * includes this. */
#ifndef UET_SES_SES_INT_H
#define UET_SES_SES_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uet/fep.h"
#include "uet/list.h"
#include "uet/wire.h"

#include "../core/sublayer.h"
#include "reasm.h"
#include "ses.h"

/* Payload per packet: the mtu less the PDS request and standard SES
 * headers (docs/protocol.md §4.1, §5.3), at most what the 14-bit payload_length
 * of a non-SOM packet can say. */
#define UET_SES_HDRS_LEN	(UET_PDS_REQ_LEN + UET_SES_STD_LEN)
#define UET_SES_PAYLOAD_LIMIT	0x3FFFu

/* Bytes one READ request packet asks for: a fixed protocol constant, not
 * derived from either end's mtu, so the target knows what the SOM request
 * (which has no payload_length field) covers: [0, min(request_length,
 * UET_SES_READ_CHUNK)). 1024 is the reference provider's default payload
 * length, the SOM length it assumes. A target whose return packets are
 * smaller answers one request with several. */
#define UET_SES_READ_CHUNK	1024u
/* PDS request + response-with-data header of a return-direction packet. */
#define UET_SES_RET_HDRS_LEN	(UET_PDS_REQ_LEN + UET_SES_RSP_DATA_LEN)
/* Connectionless packets handed to PDS and not yet answered (RUDI) or
 * sent (UUD), per fep. A target's PDS queues at most 64 RUDI answers
 * (pds.h) and drops a request that finds the queue full, so one
 * initiator keeps well below that, leaving room for resends and other
 * initiators. */
#define UET_SES_CL_WINDOW	32u
/* Vendor-specific key bits (55:48) of the regions rendezvous sends expose
 * (docs/choices.md §6.4): never a registered user key. */
#define UET_SES_MKEY_RNDV	(1ull << 48)
/* Smallest payload left in place for the port to gather (uet_ses_tx_ext):
 * below it a copy costs less than a second iovec entry. */
#define UET_SES_ZCOPY_MIN	512u

/* A memory region in the key table (mr.c). */
struct uet_ses_mr {
	uint64_t key;
	struct uet_iov iov[UET_SES_IOV_MAX];
	size_t iov_count;
	uint64_t len;
	uint64_t va;			/* UET_MR_VIRT_ADDR: address of byte 0 */
	uint32_t access;		/* UET_MR_* */
	void *context;
	/* rendezvous: the send exposing the region, the only peer that may
	 * read it */
	struct uet_ses_msg *owner;
	struct uet_addr peer;
	unsigned refs;			/* return jobs still reading it */
	bool dead;			/* deregistered, kept for refs only */
};

/* An outgoing message (one posted operation), from the tx pool; the reads
 * of rendezvous receives are allocated (internal). */
struct uet_ses_msg {
	struct uet_list link;		/* pending queue, a PDC's list, free */
	struct uet_list plink;		/* its peer's pending list, if pq */
	struct uet_list clink;		/* ses->cl_pending, if pq and cl_mode */
	struct uet_ses_peer *pq;	/* set while pending (pending.c) */
	void *context;
	uint32_t flags;			/* UET_OPF_* */
	uint8_t type;			/* UET_OP_* posted */
	uint8_t opcode;			/* UET_SES_* on the wire */
	struct uet_addr peer;
	uint64_t tag;
	uint64_t cq_data;
	struct uet_iov iov[UET_SES_IOV_MAX];
	size_t iov_count;
	uint8_t *inject;		/* its slice of the inject slab */
	uint32_t len;

	struct uet_ses_pdc *pdc;	/* set when started */
	uint16_t msg_id;
	uint32_t sent;			/* payload bytes handed to PDS */
	uint32_t seg;			/* its packets' payload, once cut
					 * evenly (msg_even); 0: the most */
	uint32_t handed;		/* packets handed to PDS */
	uint32_t done;			/* ... acked or failed since */
	bool started, all_sent;
	bool stop;			/* error or flush: no new packets */
	bool reported;			/* completion delivered (flush) */
	int err;
	int prov_errno;

	/* RMA and atomics */
	uint64_t rkey, raddr;
	uint8_t amo_op, amo_dt;
	uint8_t amo_cmp[16], amo_swp[16]; /* compare-and-swap extension */
	struct uet_iov res[UET_SES_IOV_MAX]; /* fetched values land here */
	size_t res_count;
	struct uet_reasm rx;		/* read: bytes of data arrived */
	/* rendezvous send: the region the target reads the rest from */
	uint32_t eager;
	struct uet_ses_mr *rmr;
	bool read_done;			/* the target read all it wanted */
	/* rendezvous receive: the internal read fetching the rest */
	bool internal;
	struct uet_ses_inmsg *rin;	/* NULL once the receive is gone */
	/* connectionless (cless.c): enum uet_cl_mode, 0 on a PDC */
	uint8_t cl_mode;
	uint16_t rx_ctx;		/* the target's receive context */
};

/* The messages waiting to start for one peer, in post order: the same
 * as tx_pending holds, indexed by peer (pending.c). */
struct uet_ses_peer {
	struct uet_ses_peer *next;	/* hash chain */
	struct uet_addr addr;
	uint32_t msgs;			/* its messages for a PDC (not
					 * connectionless ones): a packet each
					 * at least, payload or not */
	struct uet_list pending;	/* uet_ses_msg.plink */
	uint64_t bytes;			/* ... their payload */
};

/* A posted receive, from its receive context's pool. */
struct uet_ses_recv {
	struct uet_list link;		/* posted list or free list */
	struct uet_rxq *q;		/* the context it was posted to */
	void *context;
	uint32_t flags;
	bool tagged;
	struct uet_addr peer;
	uint64_t tag, ignore;
	struct uet_iov iov[UET_SES_IOV_MAX];
	size_t iov_count;
	size_t len;			/* sum of the iov */
	size_t used;			/* multi-recv: bytes handed out */
	size_t min_free;		/* multi-recv: release below this */
	unsigned refs;			/* messages being placed into it */
	bool linked;			/* can still match (may be off-list) */
	bool on_list;			/* on a posted list */
};

/* An incoming message, from the first of its packets to arrive until it is
 * delivered or dropped. Expected messages come from a pool; unexpected and
 * held ones are allocated with their buffer, within cfg.unexp_max. */
struct uet_ses_inmsg {
	struct uet_list pdc_link;	/* its PDC's list while packets come */
	struct uet_list unexp_link;	/* the unexpected list */
	struct uet_ses_pdc *pdc;	/* NULL once detached */
	struct uet_ses *owner;		/* on an unexpected list: its fep's SES */
	uint16_t rx_ctx;		/* receive context it is for */
	struct uet_addr src;
	uint16_t msg_id;
	uint8_t opcode;
	uint8_t rc;			/* != RC_OK: refused, answer this */
	bool processed;			/* matched, or on the unexpected list */
	bool heap;			/* malloc'd, not from the pool */
	bool hd;			/* SOM carried header data */
	bool claimed;			/* PEEK|CLAIM took it */
	bool discard;			/* absorb packets, deliver nothing */
	bool hdr_only;			/* unmatched, no room for its data:
					 * NACK its packets until matched */
	void *claim_ctx;
	uint64_t tag, data;
	uint32_t initiator;
	uint32_t total;			/* request_length */
	struct uet_reasm reasm;
	struct uet_ses_recv *recv;	/* matched receive */
	size_t base;			/* offset of its region in recv */
	size_t room;			/* bytes of the message that fit */
	uint8_t *buf;			/* unmatched: the data so far */
	size_t charge;			/* unexp_max bytes held */

	/* RMA target record (WRITE, READ; atomics only hold a place) */
	bool rma;			/* no matching: placed/served directly */
	bool rma_done;			/* whole: freed once processed */
	uint64_t key, boff;		/* mem_key and buffer_offset */
	uint32_t served;		/* read: bytes acknowledged */
	void *mr_ctx;			/* its region's context */
	unsigned jobs;			/* read: return jobs referencing it */
	/* rendezvous receive */
	bool rndv;
	uint32_t eager;
	uint64_t rd_key, rd_off;	/* where the rest is read from */
	struct uet_ses_msg *rread;	/* the read of the rest, once started */
};

/* Return-direction read data to send (target side of a read): one range
 * of one read message; contiguous requests extend the queued job. */
struct uet_ses_ret {
	struct uet_list link;		/* its PDC's ret_q, then ret_sent */
	struct uet_ses_inmsg *rec;	/* the read's record */
	struct uet_ses_mr *mr;		/* referenced while the job lives */
	uint64_t moff;			/* MR offset of message byte 0 */
	uint16_t msg_id;
	uint32_t total;			/* request_length (modified_length) */
	uint32_t cut, end;		/* message range [cut, end) left to cut */
	uint32_t handed, done;		/* packets */
};

/* A receive context (rxq.c): posted receives and the messages that found
 * none. A fep has one per resource index it serves (cfg.rx_ctx_count);
 * a shared one (uet_rxq_open) serves context 0 of several feps, whose
 * unexpected messages then wait on its one list, in arrival order. */
struct uet_rxq {
	const struct uet_callbacks *cb;	/* completions not tied to a fep's
					 * message: cancel, flush, probes */
	void *user;
	struct uet_ses_recv *pool;
	struct uet_list free;
	size_t free_n;
	struct uet_list posted_msg;	/* untagged receives, post order */
	struct uet_list posted_tag;	/* tagged receives, post order */
	struct uet_list unexp;		/* unmatched messages, match order */
	bool shared;			/* uet_rxq_open'ed, not a fep's own */
	unsigned users;			/* feps using a shared one */
};

/* Per-PDC state (uet_pdc_ref.ses_state). */
struct uet_ses_pdc {
	struct uet_list link;		/* uet_ses.pdcs */
	struct uet_pdc_ref *ref;
	/* initiator side */
	uint16_t tx_msg_id;		/* next message_id to assign */
	struct uet_ses_msg *cur;	/* being cut into packets */
	struct uet_list tx_msgs;	/* started, not complete */
	bool failed;			/* a packet failed (tx_failed) */
	uint8_t fail_code;		/* its NACK code */
	/* target side */
	uint16_t rx_next;		/* next message_id to match (SAS) */
	struct uet_list rx_msgs;	/* struct uet_ses_inmsg.pdc_link */
	struct uet_list ret_q;		/* return jobs with bytes to cut */
	struct uet_list ret_sent;	/* ... all cut, awaiting acks */
};

struct uet_ses {
	struct uet_fep_config cfg;
	const struct uet_callbacks *cb;
	void *user;
	struct uet_pds *pds;
	size_t payload_max;
	size_t host_payload_max;	/* toward a FEP of this host (host_mtu) */
	uint32_t initiator;		/* ours, uet_ses_addr_initiator */
	bool rewake;			/* wake PDS for pending sends at the
					 * next post (which brings the time) */
	struct uet_list pdcs;		/* struct uet_ses_pdc */
	uet_time now;			/* latest time seen (for wakes) */

	/* connectionless delivery (cless.c): RUDI and UUD messages started
	 * and not finished, in start order */
	struct uet_list cl_msgs;
	struct uet_ses_msg *cl_cur;	/* being cut into packets */
	uint16_t cl_msg_id;		/* next message_id (per fep) */
	unsigned cl_inflight;		/* packets out, UET_SES_CL_WINDOW at most */
	bool cl_blocked;		/* next() said no for the window */
	size_t dgram_max;		/* UUD: bytes of one datagram */
	size_t rudi_max;		/* RUDI write: payload per request */
	size_t rudi_read_max;		/* RUDI read: bytes per later request */

	/* memory regions (mr.c) */
	struct uet_ses_mr **mr_slot;	/* open addressing by key */
	size_t mr_cap, mr_n;
	uint64_t rndv_key_next;

	/* transmit */
	struct uet_ses_msg *tx_pool;
	uint8_t *inject_slab;
	struct uet_list tx_free;
	size_t tx_free_n;
	struct uet_list tx_pending;	/* posted, not started, post order */
	struct uet_list cl_pending;	/* its connectionless ones (clink) */
	struct uet_ses_peer **peers;	/* the same by peer (pending.c) */
	unsigned peers_cap, peers_n;	/* buckets (a power of 2), entries */
	unsigned peers_sweep_at;	/* entries that make a post sweep */
	struct uet_iov *tx_ext;		/* uet_ses_tx_ext: payload left out */

	/* receive: one context per resource index served, from
	 * cfg.resource_index on (rxq[0] may be a shared one) */
	struct uet_rxq **rxq;
	uint16_t rxq_n;
	struct uet_ses_inmsg *in_pool;
	struct uet_list in_free;
	size_t unexp_used;		/* bytes of cfg.unexp_max in use */

	struct uet_ses_stats st;
};

/* ses.c */
void uet_ses_complete(struct uet_ses *ses, const struct uet_completion *c);
struct uet_ses_pdc *uet_ses_pdc_state(struct uet_ses *ses,
				      struct uet_pdc_ref *pdc);
/* A request's resource_index names one of our receive contexts: its
 * index into ses->rxq in *ctx. */
bool uet_ses_rx_ctx(const struct uet_ses *ses, uint16_t resource_index,
		    uint16_t *ctx);

/* pending.c: messages waiting to start, by peer. A message is on
 * tx_pending exactly when it is on its peer's list (m->pq set), and a
 * connectionless one then on cl_pending too. */
struct uet_ses_peer *uet_pending_peer(const struct uet_ses *ses,
				      const struct uet_addr *a);
/* The same, made if missing; NULL when it cannot be (out of memory). */
struct uet_ses_peer *uet_pending_entry(struct uet_ses *ses,
				       const struct uet_addr *a);
/* At the end of the lists; UET_ERR_NOMEM (on none) when a new peer's
 * entry cannot be made. */
int uet_pending_add(struct uet_ses *ses, struct uet_ses_msg *m);
/* Right after at (tx_pending) and pat (q's list): m goes back ahead of
 * what was posted after it. Not for a connectionless message: those join
 * cl_pending in uet_pending_add only. */
void uet_pending_insert(struct uet_list *at, struct uet_list *pat,
			struct uet_ses_peer *q, struct uet_ses_msg *m);
/* Off m's list (link), and off its peer's while pending. */
void uet_pending_del(struct uet_ses_msg *m);
/* Drop the entries of peers with nothing waiting, once the table holds
 * enough of them; only from a post (no entry is being walked then). */
void uet_pending_sweep(struct uet_ses *ses);
void uet_pending_fini(struct uet_ses *ses);

/* msg.c: outgoing messages */
int uet_msg_post(struct uet_ses *ses, const struct uet_op *op, uet_time now);
void uet_msg_flush(struct uet_ses *ses);
void uet_msg_pdc_closed(struct uet_ses *ses, struct uet_ses_pdc *ps);
void uet_msg_fail_pending(struct uet_ses *ses, const struct uet_addr *peer,
			  int err, int prov_errno);
void uet_msg_rewake(struct uet_ses *ses, uet_time now);
bool uet_msg_pending(const struct uet_ses *ses, const struct uet_addr *peer);
void uet_msg_maybe_done(struct uet_ses *ses, struct uet_ses_msg *m);
void uet_msg_fail(struct uet_ses_msg *m, int err, int prov_errno);
int uet_msg_queue(struct uet_ses *ses, struct uet_ses_msg *m, uet_time now);
struct uet_ses_msg *uet_msg_find(struct uet_ses_pdc *ps, uint16_t id);
int uet_msg_read_data(struct uet_ses_msg *m, uint32_t off,
		      const uint8_t *data, size_t len);
int uet_msg_write(struct uet_ses *ses, const struct uet_addr *peer,
		  const struct uet_ses_pkt *pkt, uint8_t *buf, size_t cap,
		  struct uet_iov *ext);

/* rx.c: incoming messages */
void uet_rx_bind(struct uet_ses *ses, struct uet_ses_inmsg *in,
		 struct uet_ses_recv *recv);
void uet_rx_free(struct uet_ses *ses, struct uet_ses_inmsg *in);
void uet_rx_pdc_closed(struct uet_ses *ses, struct uet_ses_pdc *ps);
void uet_rx_flush(struct uet_ses *ses);
struct uet_ses_inmsg *uet_rx_find(struct uet_ses_pdc *ps, uint16_t id);
void uet_rx_scatter(struct uet_ses_recv *r, size_t pos, const uint8_t *src,
		    size_t len);
struct uet_ses_inmsg *uet_rx_alloc(struct uet_ses *ses);
void uet_rx_advance(struct uet_ses *ses, struct uet_ses_pdc *ps);
void uet_rx_recv_done(struct uet_ses *ses, struct uet_ses_inmsg *in,
		      int err, int prov_errno);
int uet_rx_refuse_msg(struct uet_ses *ses, struct uet_ses_pdc *ps,
		      const struct uet_ses_req *req, struct uet_ses_rsp *rsp,
		      bool *gtd, uint8_t rc);
int uet_rx_refuse_turn(struct uet_ses *ses, struct uet_ses_pdc *ps,
		       const struct uet_ses_req *req, struct uet_ses_rsp *rsp,
		       bool *gtd, uint8_t rc);

/* match.c: posted receives and the unexpected list of a context */
bool uet_match_one(const struct uet_ses_recv *r,
		   const struct uet_ses_inmsg *in);
struct uet_ses_recv *uet_match_posted(struct uet_ses *ses,
				      const struct uet_ses_inmsg *in);
void uet_match_unexp(struct uet_ses *ses, struct uet_ses_inmsg *in);
int uet_match_post(struct uet_rxq *q, const struct uet_op *op);
int uet_match_cancel(struct uet_rxq *q, void *context);
void uet_match_flush(struct uet_rxq *q);
void uet_match_unlink(struct uet_ses_recv *r);
bool uet_match_multi_full(const struct uet_ses_recv *r, size_t used);
/* r goes back to its context's pool (ses unused: r knows its context). */
void uet_match_recv_free(struct uet_ses *ses, struct uet_ses_recv *r);
/* A message of a closing fep leaves the receive it was placed into:
 * the receive ends with UET_ERR_CANCELED if nothing else uses it. */
void uet_match_orphan(struct uet_ses_inmsg *in);

/* rxq.c: receive contexts */
int uet_rxq_init(struct uet_rxq *q, unsigned depth,
		 const struct uet_callbacks *cb, void *user);
void uet_rxq_fini(struct uet_rxq *q);
void uet_rxq_complete(struct uet_rxq *q, const struct uet_completion *c);

/* mr.c: the key table */
struct uet_ses_mr *uet_mr_find(struct uet_ses *ses, uint64_t key);
int uet_mr_add(struct uet_ses *ses, const struct uet_ses_mr *tmpl,
	       struct uet_ses_mr **out);
int uet_mr_remove(struct uet_ses *ses, uint64_t key);
uint8_t uet_mr_check(struct uet_ses *ses, uint64_t key, uint64_t addr,
		     uint64_t len, uint32_t need, const struct uet_addr *peer,
		     struct uet_ses_mr **mrp, uint64_t *offp);
void uet_mr_copy(const struct uet_ses_mr *mr, uint64_t off, void *buf,
		 size_t len, bool to_mr);
void *uet_mr_ptr(const struct uet_ses_mr *mr, uint64_t off, size_t len);
void uet_mr_unref(struct uet_ses_mr *mr);
void uet_mr_fini(struct uet_ses *ses);

/* rma.c: target of WRITE/READ/atomics, return direction */
int uet_rma_rx(struct uet_ses *ses, struct uet_ses_pdc *ps,
	       const struct uet_ses_req *req, const uint8_t *payload,
	       size_t len, struct uet_ses_reply *reply, uet_time now);
int uet_rma_ret_next(struct uet_ses *ses, struct uet_ses_pdc *ps,
		     struct uet_ses_pkt *pkt);
int uet_rma_ret_write(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		      const struct uet_ses_pkt *pkt, uint8_t *buf, size_t cap,
		      struct uet_iov *ext);
void uet_rma_ret_done(struct uet_ses *ses, struct uet_ses_pdc *ps,
		      const struct uet_ses_pkt *pkt, bool ok);
void uet_rma_pdc_closed(struct uet_ses *ses, struct uet_ses_pdc *ps);
void uet_rma_settle(struct uet_ses *ses, struct uet_ses_inmsg *in);
bool uet_rma_busy(const struct uet_ses_pdc *ps);

/* amo.c: atomic arithmetic (no SES state) */
size_t uet_amo_size(uint8_t dt);
size_t uet_amo_align(uint8_t dt);
bool uet_amo_supported(uint8_t op, uint8_t dt);
void uet_amo_exec(uint8_t op, uint8_t dt, void *mem, const uint8_t *arg,
		  const uint8_t *cmp, uint8_t *old, size_t count);
void uet_amo_to_wire(uint8_t dt, uint8_t *dst, const void *src,
		     size_t count);
void uet_amo_from_wire(uint8_t dt, void *dst, const uint8_t *src,
		       size_t count);

/* rndv.c: rendezvous */
void uet_rndv_start(struct uet_ses *ses, struct uet_ses_inmsg *in);
void uet_rndv_read_done(struct uet_ses *ses, struct uet_ses_msg *m);
void uet_rndv_place(struct uet_ses_msg *m, uint32_t off, const uint8_t *data,
		    size_t len);
void uet_rndv_discard(struct uet_ses *ses, struct uet_ses_inmsg *in);
void uet_rndv_served(struct uet_ses *ses, struct uet_ses_mr *mr, int err,
		     int prov_errno);
int uet_rndv_expose(struct uet_ses *ses, struct uet_ses_msg *m);
void uet_rndv_unexpose(struct uet_ses *ses, struct uet_ses_msg *m);

/* cless.c: connectionless delivery, the table PDS pulls packets with */
extern const struct uet_ses_cl_ops uet_cless_ops;
int uet_cless_mode(const struct uet_ses *ses, const struct uet_op *op,
		   size_t len, uint8_t *mode);
bool uet_cless_busy(const struct uet_ses *ses, const struct uet_addr *peer);
uint8_t uet_cless_check(struct uet_ses *ses, const struct uet_ses_req *req);

/* uud.c: datagrams in */
int uet_uud_rx(struct uet_ses *ses, const struct uet_addr *peer,
	       const struct uet_ses_req *req, const uint8_t *payload,
	       size_t len);

/* rudi.c: idempotent RMA, both ends */
uint32_t uet_rudi_cut(const struct uet_ses *ses, const struct uet_ses_msg *m);
int uet_rudi_rx(struct uet_ses *ses, const struct uet_addr *peer,
		const struct uet_ses_req *req, const uint8_t *payload,
		size_t len, struct uet_cl_reply *reply);
void uet_rudi_done(struct uet_ses *ses, struct uet_ses_msg *m,
		   const struct uet_ses_pkt *pkt,
		   const struct uet_ses_rsp *rsp, const uint8_t *data,
		   size_t len);

/* unexp.c: buffering of unmatched messages within cfg.unexp_max */
struct uet_ses_inmsg *uet_unexp_alloc(struct uet_ses *ses, uint32_t total);
void uet_unexp_drop_buf(struct uet_ses *ses, struct uet_ses_inmsg *in);
void uet_unexp_release(struct uet_ses *ses, struct uet_ses_inmsg *in);

/* Payload bytes of a full request packet toward peer. */
size_t uet_ses_payload_to(const struct uet_ses *ses,
			  const struct uet_addr *peer);
/* Read data bytes of a full return packet toward peer (the requester). */
size_t uet_ses_ret_payload_to(const struct uet_ses *ses,
			      const struct uet_addr *peer);

#endif
