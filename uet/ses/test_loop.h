/* Test harness for SES without PDS: endpoints (one SES each) joined by
 * links that play PDS by hand. A link owns a PDC on the sending SES
 * (initiator) and one on the receiving SES (target); the test pulls packets
 * with uet_ses_tx_next, decides their order, duplicates or NACKs, writes
 * them with uet_ses_tx_write, decodes them with the wire codec and feeds
 * them to uet_ses_rx, then hands the response (with its data, if any) to
 * uet_ses_tx_acked. The return direction of a link (read data the target
 * sends on its side of the PDC, after uet_pds_wake_pdc) is carried the
 * same way by tl_ret_*: uet_ses_tx_next/tx_write on the target's PDC,
 * uet_ses_rx_ret on the initiator's, tx_acked back. */
#ifndef UET_SES_TEST_LOOP_H
#define UET_SES_TEST_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uet/fep.h"
#include "uet/wire.h"

#include "../core/sublayer.h"
#include "ses.h"

#define TL_JOB		0x123456u
#define TL_BUF		65536

struct tl_ep {
	struct uet_fep_config cfg;
	struct uet_ses *ses;
	struct uet_callbacks cb;
	struct uet_completion *comp;
	size_t ncomp, capcomp;
	unsigned wakes;
	struct uet_addr wake_peer;
	unsigned wakes_pdc;		/* uet_pds_wake_pdc calls */
};

struct tl_pkt {
	struct uet_ses_pkt pkt;
	bool acked;
	uint8_t nack;			/* last NACK code, 0 if none */
	struct uet_ses_rsp rsp;		/* last response */
	bool gtd;
	struct uet_ses_reply reply;	/* ... whole, with its data */
};

struct tl_link {
	struct tl_ep *tx, *rx;
	struct uet_pdc_ref tpdc, rpdc;
	struct tl_pkt *p;
	size_t n, cap;
	uint8_t buf[TL_BUF];
	struct uet_ses_req req;		/* last request decoded */
	int wlen;			/* last tx_write length */
	/* return direction: rx -> tx on the same PDC */
	struct tl_pkt *rp;
	size_t rn, rcap;
	struct uet_ses_rsp rrsp;	/* last return header decoded */
};

/* 127.0.0.1:port */
struct uet_addr tl_addr(uint16_t port);
/* Defaults for an endpoint at port: our job, ids by the uet_ses_addr_*
 * rule, mtu 1500, big queues and budget. */
void tl_cfg(struct uet_fep_config *cfg, uint16_t port);
void tl_ep_open(struct tl_ep *e, const struct uet_fep_config *cfg);
void tl_ep_close(struct tl_ep *e);
/* tl_cfg for port, changed by tweak (if not NULL), then tl_ep_open. */
void tl_ep_open_at(struct tl_ep *e, uint16_t port,
		   void (*tweak)(struct uet_fep_config *));

void tl_link_open(struct tl_link *l, struct tl_ep *tx, struct tl_ep *rx,
		  uint32_t id);
/* uet_ses_pdc_closed on both ends. */
void tl_link_close(struct tl_link *l);

/* The usual fixture: a at port pa, b at pb (its config changed by
 * tweak_b, if not NULL), joined by link l from a to b (id 1). */
void tl_pair_open(struct tl_ep *a, uint16_t pa, struct tl_ep *b,
		  uint16_t pb, struct tl_link *l,
		  void (*tweak_b)(struct uet_fep_config *));
/* Closes l, then a and b. */
void tl_pair_close(struct tl_ep *a, struct tl_ep *b, struct tl_link *l);

/* Pull up to max packets from the sender; returns how many came. */
size_t tl_pull(struct tl_link *l, size_t max);
/* Write packet i, decode it into l->req and feed it to the receiver.
 * Returns the NACK code (0 when taken); the response lands in p[i]. */
int tl_deliver(struct tl_link *l, size_t i);
/* Give packet i's response to the sender (tx_acked). */
void tl_ack(struct tl_link *l, size_t i);
/* deliver + ack unless NACKed; returns the NACK code. */
int tl_xfer(struct tl_link *l, size_t i);
/* Pull everything and transfer it in order, retrying NACKed packets up to
 * `tries` rounds; returns the number of packets still NACKed. */
size_t tl_run(struct tl_link *l, unsigned tries);

int tl_send(struct tl_ep *e, uint16_t to, uint8_t type, const void *buf,
	    size_t len, uint64_t tag, uint32_t flags, uint64_t cq_data,
	    void *ctx);
int tl_recv(struct tl_ep *e, uint8_t type, void *buf, size_t len,
	    uint64_t tag, uint64_t ignore, uint32_t flags, uint16_t from,
	    void *ctx);

/* First completion with this context, or NULL. */
const struct uet_completion *tl_comp(const struct tl_ep *e, const void *ctx);
size_t tl_count(const struct tl_ep *e, const void *ctx);

void tl_fill(uint8_t *buf, size_t len, uint32_t seed);

/* Return direction. Pull up to max packets from the target's side. */
size_t tl_ret_pull(struct tl_link *l, size_t max);
/* Write return packet i, decode it into l->rrsp, feed it to the
 * initiator (uet_ses_rx_ret); returns its NACK code. */
int tl_ret_deliver(struct tl_link *l, size_t i);
void tl_ret_ack(struct tl_link *l, size_t i);
/* Pull and carry everything of the return direction (acked unless
 * NACKed); returns the packets still NACKed. */
size_t tl_ret_run(struct tl_link *l);
/* Both directions of every link given until nothing moves. */
void tl_run_all(struct tl_link **links, size_t n);

/* Register memory on e; returns the uet_ses_mr_reg code. */
int tl_mr(struct tl_ep *e, void *base, size_t len, uint64_t key,
	  uint32_t access, void *ctx);
/* Post an RMA or atomic op to peer port `to`. */
int tl_rma(struct tl_ep *e, uint16_t to, uint8_t type, void *buf,
	   size_t len, uint64_t key, uint64_t raddr, uint32_t flags,
	   void *ctx);
int tl_amo(struct tl_ep *e, uint16_t to, uint8_t type, uint8_t op,
	   uint8_t dt, const void *buf, size_t len, void *res, size_t rlen,
	   const void *cmp, size_t clen, uint64_t key, uint64_t raddr,
	   void *ctx);

#endif
