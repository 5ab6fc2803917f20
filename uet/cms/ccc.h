/* Congestion control contexts (UE 1.0 §3.6.12, docs/choices.md §9.1): one
 * CCC per destination FEP, shared by every PDC toward it in that direction.
 * PDS asks it before a packet goes (uet_ccc_can_send) and tells it what
 * happened to every packet: sent, acknowledged (bytes, RTT sample, ECN
 * echo), NACKed (trimmed), lost (RTO). The algorithm is an ops table, one
 * per file (fixed.c, nscc.c); this file holds what all of them share: the
 * bytes in flight, counted in nominal packet sizes (UE 1.0 §3.6.12), and
 * the table of contexts of a FEP.
 *
 * Loss events carry the lost packet's send time, so that an algorithm
 * that halves its window can treat a burst of losses as one congestion
 * event (picoquic's recovery check, ngtcp2's congestion_event(ts_sent)):
 * a loss of a packet sent before the last reduction changes nothing.
 */
#ifndef UET_CMS_CCC_H
#define UET_CMS_CCC_H

#include <stdbool.h>
#include <stdint.h>

#include "uet/addr.h"
#include "uet/fep.h"
#include "uet/list.h"
#include "uet/time.h"

/* UE 1.0 §3.6.12: nominal size = UDP length + 40, i.e. the UET bytes plus
 * the UDP header plus 40, the same at both ends whatever the
 * encapsulation. */
#define UET_CCC_NOMINAL(uet_bytes)	((uet_bytes) + 8u + 40u)

/* Unit of the ACK_CC service_time field (uet's choice): 16 bits
 * of 128 ns, the tx_timestamp precision of UE 1.0 §3.6.13.3, hold up to
 * 8.4 ms. */
#define UET_CCC_SERVICE_NS	128u

/* Why a packet came back NACKed (UE 1.0 §3.6.12.3 OnNACK). */
enum uet_cc_nack {
	UET_CC_NACK_TRIM,		/* trimmed in the fabric */
	UET_CC_NACK_TRIM_LASTHOP,	/* trimmed at the last hop */
	UET_CC_NACK_OTHER,		/* lost, no congestion signal */
};

/* One ACK's news for the CCC. */
struct uet_cc_ack {
	uint32_t bytes;		/* nominal bytes newly acknowledged */
	uint32_t pkts;
	uet_time rtt;		/* valid sample less service time, or NONE */
	bool ecn;		/* flag M: a covered packet was CE-marked */
	uint8_t pend;		/* ACK_CC rcv_cwnd_pend, 0..127 (UE 1.0 §3.6.13.2) */
	bool restore;		/* ACK_CC rc: restore the window saved */
	uet_time now;
};

/* NSCC state (UE 1.0 §3.6.13, Table 3-77); bytes signed where the spec says
 * so. */
struct uet_nscc {
	int64_t cwnd, max_wnd;
	int64_t saved_cwnd;
	uet_time base_rtt;
	uet_time avg_delay;
	uet_time fast_delay;		/* a quick average: has the queue
					 * drained? (small windows) */
	int64_t achieved_bytes, received_bytes, fi_count;
	int64_t bytes_to_ignore, bytes_ignored;
	double inc_bytes;
	bool trigger_qa, increase_mode;
	bool rcv_limit;			/* destination flow control active */
	uet_time qa_endtime, last_adjust_time, last_dec_time;
	uet_time tq;			/* the target for this window */
	uet_time sub_cut_at;		/* last halving below one packet */
	uet_time last_delay;		/* of the last valid sample */
	uet_time last_ack_at, ack_gap;	/* the last ACK, the time before it */
	uet_time start_at;		/* the context's start: the first
					 * round trip is paced and scaled */
	bool heard;			/* an ACK or a NACK since */
	/* derived once (UE 1.0 §3.6.13.3) */
	uet_time target_qdelay, qa_threshold;
	double alpha, fi, fi_scale;
	int64_t mtu;
	int64_t min_wnd;		/* below one packet: paced */
	/* Base-RTT probe (UE 1.0 §3.6.13.7), when the configuration gives
	 * no base RTT: wanted, then out since probe_at. */
	uint8_t probe;			/* enum uet_nscc_probe */
	uint16_t probe_opaque;		/* the one out */
	uet_time probe_at;
};

enum uet_nscc_probe {
	UET_NSCC_PROBE_NONE,		/* base RTT known, or probed */
	UET_NSCC_PROBE_WANT,		/* unknown: probe after an ACK */
	UET_NSCC_PROBE_OUT,		/* sent (or about to be) */
};

/* RCCC sender state (UE 1.0 §3.6.14; rccc.c says what uet chose). Credit is
 * counted in bytes here and in 256-byte quanta on the wire, as a 24-bit
 * cumulative count of what the target granted. */
#define UET_RCCC_QUANTUM	256u
#define UET_RCCC_Q_MASK		0xFFFFFFu

struct uet_rccc {
	int64_t credit;			/* bytes we may still send */
	int64_t max_credit;		/* 1.5 BDP: speculative start, cap */
	int64_t backlog;		/* bytes SES has still to send */
	uint32_t granted_q;		/* cumulative grant heard (24 bits) */
	uint32_t told_q;		/* credit_target last sent */
	bool spec;			/* still on the speculative credit */
	uet_time starved_at;		/* no credit, backlog: since when */
	uet_time grant_at;		/* the last grant with news */
	uet_time grant_gap;		/* ... and the time since the one before */
	uint8_t asks;			/* CREDIT_REQUESTs since that grant */
};

struct uet_ccc;

struct uet_cc_ops {
	const char *name;
	void (*init)(struct uet_ccc *c, uet_time now);
	/* A packet of bytes (nominal) goes out; inflight already counts
	 * it. fwd: on a PDC we opened (can_send's sense); false: read
	 * data going back to the initiator. */
	void (*on_send)(struct uet_ccc *c, uint32_t bytes, bool retx,
			bool fwd, uet_time now);
	void (*on_ack)(struct uet_ccc *c, const struct uet_cc_ack *a);
	/* A packet came back NACKed; ecn: the NACK had flag M. rtt: a
	 * sample from it (no service time), or UET_TIME_NONE. */
	void (*on_nack)(struct uet_ccc *c, uint32_t bytes,
			enum uet_cc_nack why, bool ecn, uet_time rtt,
			uet_time now);
	/* A packet sent at sent_at is taken for lost (RTO, inference). */
	void (*on_loss)(struct uet_ccc *c, uint32_t bytes, uet_time sent_at,
			uet_time now);
	/* May another packet go? fwd: a forward-direction request (credit
	 * applies); return-direction read data is not credit-paced. */
	bool (*can_send)(const struct uet_ccc *c, bool fwd);
	/* Should the packet about to go (bytes) ask for an ACK? */
	bool (*ack_request)(const struct uet_ccc *c, uint32_t bytes);
	/* Full packets the window takes before it is full; NULL: the
	 * byte window's (uet_ccc_room). */
	int64_t (*room)(const struct uet_ccc *c);
};

struct uet_ccc {
	struct uet_addr peer;		/* destination FEP (FA + port) */
	unsigned refs;			/* PDCs using it; 0: free slot */
	struct uet_list pdcs;		/* those PDCs (pdc->ccc_link) */
	const struct uet_cc_ops *ops;
	const struct uet_fep_config *cfg;
	int64_t inflight;		/* nominal bytes in flight, signed */
	int64_t rtx_backlog;		/* nominal bytes waiting to be resent */
	uint32_t inflight_pkts;
	int64_t mtu;			/* nominal size of a full packet */
	int64_t cwnd;			/* the algorithm's window, bytes */
	uet_time last_cut;		/* fixed: last reduction (episodes) */
	uet_time pace_at;		/* no packet before (a window below
					 * one packet); UET_TIME_NONE: none */
	uet_time rtt_last;		/* last sample, for stats */
	uint64_t ecn_acks, acks;	/* ACKs with and without M */
	uint64_t rng;			/* uet/rand.h state: pacing jitter */
	struct uet_nscc nscc;		/* NSCC, NSCC+RCCC */
	struct uet_rccc rccc;		/* RCCC, NSCC+RCCC */
};

/* The contexts of one FEP, at most n (one per PDC at worst). */
struct uet_ccc_table {
	struct uet_ccc *slots;
	unsigned n;
	const struct uet_fep_config *cfg;
	const struct uet_cc_ops *ops;
};

int uet_ccc_table_init(struct uet_ccc_table *t,
		       const struct uet_fep_config *cfg, unsigned n);
void uet_ccc_table_fini(struct uet_ccc_table *t);
/* The context toward peer, made if there is none (one reference more);
 * NULL only if the table is full, which n = pdc_max rules out. */
struct uet_ccc *uet_ccc_get(struct uet_ccc_table *t,
			    const struct uet_addr *peer, uet_time now);
void uet_ccc_put(struct uet_ccc *c);
/* uet_fep_cc_info: the slots ever used. */
size_t uet_ccc_table_info(const struct uet_ccc_table *t,
			  struct uet_cc_info *out, size_t max);
/* The ops table for cfg->cca; NULL for a value we do not have. */
const struct uet_cc_ops *uet_cc_ops_for(uint8_t cca);

static inline bool uet_ccc_can_send(const struct uet_ccc *c, bool fwd)
{
	return c->pace_at == UET_TIME_NONE && c->ops->can_send(c, fwd);
}

/* Full packets the window still takes (PDS: whole runs, cfg.run_whole). */
static inline int64_t uet_ccc_room(const struct uet_ccc *c)
{
	if (c->ops->room)
		return c->ops->room(c);
	return c->cwnd > c->inflight ? (c->cwnd - c->inflight) / c->mtu : 0;
}

/* Pacing: until when the CCC holds its next packet (UET_TIME_NONE: it
 * does not). PDS's timer ends the pause (uet_ccc_pace_over) then and
 * wakes the CCC's PDCs. */
static inline uet_time uet_ccc_pace_at(const struct uet_ccc *c)
{
	return c ? c->pace_at : UET_TIME_NONE;
}

static inline void uet_ccc_pace_over(struct uet_ccc *c)
{
	c->pace_at = UET_TIME_NONE;
}

/* RCCC (no-ops for the other algorithms): does the CCC pace by credit;
 * the 24-bit credit_target a request carries; a CREDIT CP's cumulative
 * grant; what SES still has to send; when a CREDIT_REQUEST is due
 * (UET_TIME_NONE: not), `after` a starvation with nothing in flight. */
bool uet_ccc_credit_paced(const struct uet_ccc *c);
uint32_t uet_ccc_credit_target(const struct uet_ccc *c);
void uet_ccc_on_credit(struct uet_ccc *c, uint32_t granted_q, uet_time now);
void uet_ccc_set_backlog(struct uet_ccc *c, int64_t bytes, uet_time now);
uet_time uet_ccc_credit_req_at(const struct uet_ccc *c, uet_time after);
/* The CREDIT_REQUEST timer fired: one is going out now. */
void uet_ccc_credit_asked(struct uet_ccc *c, uet_time now);

/* A packet of bytes leaves the flight (acknowledged, known lost, or to be
 * resent): the bookkeeping every algorithm shares; its signal is a
 * separate call. */
static inline void uet_ccc_land(struct uet_ccc *c, uint32_t bytes)
{
	c->inflight -= bytes;
	if (c->inflight_pkts)
		c->inflight_pkts--;
}

static inline void uet_ccc_on_send(struct uet_ccc *c, uint32_t bytes,
				   bool retx, bool fwd, uet_time now)
{
	c->inflight += bytes;
	c->inflight_pkts++;
	c->ops->on_send(c, bytes, retx, fwd, now);
}

void uet_ccc_on_ack(struct uet_ccc *c, const struct uet_cc_ack *a);

extern const struct uet_cc_ops uet_fixed_ops;	/* fixed.c */
extern const struct uet_cc_ops uet_nscc_ops;	/* nscc.c */
extern const struct uet_cc_ops uet_rccc_ops;	/* rccc.c */
extern const struct uet_cc_ops uet_rccc_nscc_ops;	/* rccc.c: both */

/* NSCC's pieces, for the combination in rccc.c. */
void uet_nscc_init(struct uet_ccc *c, uet_time now);
/* The base-RTT probe (nscc.c): due once an ACK came, unless the
 * transfer is small; sent (its opaque value to echo); answered (false:
 * not the probe out, ignore). */
bool uet_nscc_probe_due(const struct uet_ccc *c);
void uet_nscc_probe_queued(struct uet_ccc *c);
uint16_t uet_nscc_probe_sent(struct uet_ccc *c, uet_time now);
bool uet_nscc_probe_answer(struct uet_ccc *c, uint16_t opaque,
			   uet_time service, uet_time now);
bool uet_nscc_can_send(const struct uet_ccc *c);
bool uet_nscc_ack_request(const struct uet_ccc *c, uint32_t bytes);
void uet_nscc_on_send(struct uet_ccc *c, uint32_t bytes, bool retx,
		      bool fwd, uet_time now);
void uet_nscc_on_ack(struct uet_ccc *c, const struct uet_cc_ack *a);
void uet_nscc_on_nack(struct uet_ccc *c, uint32_t bytes, enum uet_cc_nack why,
		      bool ecn, uet_time rtt, uet_time now);
void uet_nscc_on_loss(struct uet_ccc *c, uint32_t bytes, uet_time sent_at,
		      uet_time now);

#endif
