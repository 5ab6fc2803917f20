/* Flows: one message from a sender host to a receiver host, posted
 * through the engine API (uet_fep_post: a receive at the receiver at
 * time 0, the send at the flow's start), timed by their completions.
 *
 * A flow's data is a window of one shared random pattern at an offset of
 * its own, so with `verify` every receive buffer can be checked byte for
 * byte at the end (each flow then has its own buffer; without, they all
 * land in one sink and only lengths are checked).
 *
 * Goodput is counted where the data arrives: every data frame the
 * receiving fep accepts is decoded (uet_pkt_decode) and its payload
 * counted once per message offset, so retransmitted copies do not count.
 * Flows are keyed by (src, dst): one flow per ordered host pair.
 */
#ifndef UET_SIM_FLOW_H
#define UET_SIM_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "uet/fep.h"

#include "evq.h"
#include "frame.h"

struct uet_sim;

struct uet_flow {
	uint32_t id, src, dst;
	uint64_t size;
	uet_ps start;
	uet_ps tx_done, rx_done;	/* UET_PS_NONE until completed */
	int tx_err, rx_err;
	uint64_t rx_len;		/* the receive completion's length */
	uint32_t tx_cqes, rx_cqes;	/* completions seen (1 each, or a bug) */
	uint64_t good;			/* payload bytes, first copies */
	uint64_t *seen;			/* payload chunks seen, by offset */
	uint32_t chunk;			/* payload bytes per chunk bit */
	uint32_t shift;			/* into the pattern */
	uint8_t *rbuf;
	bool own_rbuf;
	bool verified;
	bool over;			/* counted out of flows_left */
	struct uet_iov siov, riov;
};

/* Hash of flows by (src, dst). */
struct uet_flowmap {
	uint64_t *keys;		/* (src + 1) << 32 | dst; 0 empty */
	uint32_t *vals;
	uint32_t mask;
};

/* s->flows[0..n) are set (src, dst, size, start): index them, make
 * their buffers (per-flow ones when cfg.verify says so). */
void uet_flows_init(struct uet_sim *s);
void uet_flows_fini(struct uet_sim *s);
struct uet_flow *uet_flow_find(const struct uet_sim *s, uint32_t src,
			       uint32_t dst);
/* Post every receive (time 0). 0 or the first post error. */
int uet_flows_post_recvs(struct uet_sim *s);
/* Post f's send now. */
void uet_flow_start(struct uet_sim *s, struct uet_flow *f);
/* callbacks.complete of every host. */
void uet_flow_complete(struct uet_sim *s, const struct uet_completion *c);
/* A frame the receiving fep accepted: count its payload. */
void uet_flow_rx(struct uet_sim *s, const struct uet_frame *fr);
/* Compare every completed receive with what was sent; the number of
 * flows whose data differs. */
uint32_t uet_flows_verify(struct uet_sim *s);

#endif
