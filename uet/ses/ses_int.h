/* SES internals shared by ses.c, msg.c, rx.c, match.c and unexp.c. Nothing
 * outside uet/ses includes this. */
#ifndef UET_SES_SES_INT_H
#define UET_SES_SES_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uet/fep.h"
#include "uet/wire.h"

#include "../core/sublayer.h"
#include "dlist.h"
#include "reasm.h"
#include "ses.h"

/* Payload per packet: the mtu less the PDS request and standard SES
 * headers (wire-format §4.1, §5.3), at most what the 14-bit payload_length
 * of a non-SOM packet can say. */
#define UET_SES_HDRS_LEN	(UET_PDS_REQ_LEN + UET_SES_STD_LEN)
#define UET_SES_PAYLOAD_LIMIT	0x3FFFu

/* An outgoing message (one SEND/TSEND), from the tx pool. */
struct uet_ses_msg {
	struct uet_dlist link;		/* pending queue, a PDC's list, free */
	void *context;
	uint32_t flags;			/* UET_OPF_* */
	uint8_t opcode;			/* UET_SES_SEND / UET_SES_TAGGED_SEND */
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
	uint32_t handed;		/* packets handed to PDS */
	uint32_t done;			/* ... acked or failed since */
	bool started, all_sent;
	bool stop;			/* error or flush: no new packets */
	bool reported;			/* completion delivered (flush) */
	int err;
	int prov_errno;
};

/* A posted receive, from the rx pool. */
struct uet_ses_recv {
	struct uet_dlist link;		/* posted list or free list */
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
	struct uet_dlist pdc_link;	/* its PDC's list while packets come */
	struct uet_dlist unexp_link;	/* the unexpected list */
	struct uet_ses_pdc *pdc;	/* NULL once detached */
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
};

/* Per-PDC state (uet_pdc_ref.ses_state). */
struct uet_ses_pdc {
	struct uet_dlist link;		/* uet_ses.pdcs */
	struct uet_pdc_ref *ref;
	/* initiator side */
	uint16_t tx_msg_id;		/* next message_id to assign */
	struct uet_ses_msg *cur;	/* being cut into packets */
	struct uet_dlist tx_msgs;	/* started, not complete */
	bool failed;			/* a packet failed (tx_failed) */
	uint8_t fail_code;		/* its NACK code */
	/* target side */
	uint16_t rx_next;		/* next message_id to match (SAS) */
	struct uet_dlist rx_msgs;	/* struct uet_ses_inmsg.pdc_link */
};

struct uet_ses {
	struct uet_fep_config cfg;
	const struct uet_callbacks *cb;
	void *user;
	struct uet_pds *pds;
	size_t payload_max;
	uint32_t initiator;		/* ours, uet_ses_addr_initiator */
	bool rewake;			/* wake PDS for pending sends at the
					 * next post (which brings the time) */
	struct uet_dlist pdcs;		/* struct uet_ses_pdc */

	/* transmit */
	struct uet_ses_msg *tx_pool;
	uint8_t *inject_slab;
	struct uet_dlist tx_free;
	size_t tx_free_n;
	struct uet_dlist tx_pending;	/* posted, not started, post order */

	/* receive */
	struct uet_ses_recv *rx_pool;
	struct uet_dlist rx_free;
	size_t rx_free_n;
	struct uet_dlist posted_msg;	/* untagged receives, post order */
	struct uet_dlist posted_tag;	/* tagged receives, post order */
	struct uet_ses_inmsg *in_pool;
	struct uet_dlist in_free;
	struct uet_dlist unexp;		/* unmatched messages, match order */
	size_t unexp_used;		/* bytes of cfg.unexp_max in use */

	struct uet_ses_stats st;
};

/* ses.c */
void uet_ses_complete(struct uet_ses *ses, const struct uet_completion *c);
struct uet_ses_pdc *uet_ses_pdc_state(struct uet_ses *ses,
				      struct uet_pdc_ref *pdc);

/* msg.c: outgoing messages */
int uet_msg_post(struct uet_ses *ses, const struct uet_op *op, uet_time now);
void uet_msg_flush(struct uet_ses *ses);
void uet_msg_pdc_closed(struct uet_ses *ses, struct uet_ses_pdc *ps);
void uet_msg_fail_pending(struct uet_ses *ses, const struct uet_addr *peer,
			  int err, int prov_errno);
void uet_msg_rewake(struct uet_ses *ses, uet_time now);
bool uet_msg_pending(const struct uet_ses *ses, const struct uet_addr *peer);

/* rx.c: incoming messages */
void uet_rx_bind(struct uet_ses *ses, struct uet_ses_inmsg *in,
		 struct uet_ses_recv *recv);
void uet_rx_free(struct uet_ses *ses, struct uet_ses_inmsg *in);
void uet_rx_pdc_closed(struct uet_ses *ses, struct uet_ses_pdc *ps);
void uet_rx_flush(struct uet_ses *ses);

/* match.c: posted receives and the unexpected list */
bool uet_match_one(const struct uet_ses_recv *r,
		   const struct uet_ses_inmsg *in);
struct uet_ses_recv *uet_match_posted(struct uet_ses *ses,
				      const struct uet_ses_inmsg *in);
int uet_match_post(struct uet_ses *ses, const struct uet_op *op);
int uet_match_cancel(struct uet_ses *ses, void *context);
void uet_match_flush(struct uet_ses *ses);
void uet_match_unlink(struct uet_ses_recv *r);
bool uet_match_multi_full(const struct uet_ses_recv *r, size_t used);
void uet_match_recv_free(struct uet_ses *ses, struct uet_ses_recv *r);

/* unexp.c: buffering of unmatched messages within cfg.unexp_max */
struct uet_ses_inmsg *uet_unexp_alloc(struct uet_ses *ses, uint32_t total);
void uet_unexp_drop_buf(struct uet_ses *ses, struct uet_ses_inmsg *in);
void uet_unexp_release(struct uet_ses *ses, struct uet_ses_inmsg *in);

#endif
