/* Connectionless delivery (docs/choices.md §8; sublayer.h): RUDI and
 * UUD, without PDCs or PSNs.
 *
 * Initiator: a fixed table of RUDI requests in flight, each with its
 * descriptor, its RTO and its retries; pkt_id = generation << 8 | slot,
 * so a response finds its request at once and one for an earlier user of
 * the slot is told apart. UUD packets are never kept.
 * Target: a fixed ring of RUDI answers to send (responses with their read
 * data, or NACKs), since SES's reply is built when the request arrives and
 * sent when the transmit scheduler asks.
 */
#ifndef UET_PDS_CL_H
#define UET_PDS_CL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uet/net.h"
#include "uet/time.h"
#include "uet/wire.h"
#include "../core/sublayer.h"

struct uet_pds;

#define UET_CL_SLOTS		256u	/* RUDI requests in flight (pkt_id) */
#define UET_CL_ANSWERS		64u	/* RUDI answers waiting to be sent */

/* A RUDI request in flight (initiator). */
struct uet_cl_ent {
	struct uet_cl_pkt cp;
	uet_time rto_at;	/* UET_TIME_NONE when due or free */
	uint32_t gen;		/* pkt_id >> 8 of its current user */
	uint8_t retx;		/* RTO resends: bounded by max_retx */
	uint8_t nacks;		/* resends NACKs asked for */
	bool used;
	bool due;		/* to be (re)sent by the retransmit phase */
	bool backoff;		/* the timer is a NACK's pause, not an RTO */
	bool by_nack;		/* the pending resend was asked by a NACK */
};

/* A RUDI answer to send (target). */
struct uet_cl_answer {
	struct uet_addr dst;
	uint32_t pkt_id;
	uint16_t entropy;	/* echoed */
	uint8_t flags;		/* RETX, M */
	uint8_t code;		/* NACK code, 0 for a response */
	struct uet_ses_rsp rsp;
	size_t data_len;	/* read data in the slot's buffer */
};

struct uet_cl {
	const struct uet_ses_cl_ops *ops;
	bool want;		/* SES has packets (uet_pds_wake_cl) */
	bool turn;		/* poll_new: connectionless goes first */
	struct uet_cl_ent ents[UET_CL_SLOTS];
	unsigned nused, ndue;
	uet_time rto_at;	/* earliest entry timer */
	struct uet_cl_answer ans[UET_CL_ANSWERS];
	uint8_t *ans_data;	/* UET_CL_ANSWERS * data_cap */
	size_t data_cap;	/* a payload MTU */
	unsigned ans_head, ans_n;
};

/* Allocate the answer buffers (cfg.mtu): 0 or UET_ERR_NOMEM. */
int uet_cl_init(struct uet_pds *pds);
/* Free without calling SES. */
void uet_cl_fini(struct uet_pds *pds);

/* RUDI_REQ, RUDI_RESP, UUD_REQ; 0 or the UET_ERR_* it was dropped for. */
int uet_cl_rx(struct uet_pds *pds, const struct uet_pkt_info *pi,
	      const struct uet_pkt *p, uet_time now);
/* A RUDI NACK (NT set) at the initiator. */
int uet_cl_rx_nack(struct uet_pds *pds, const struct uet_pkt_info *pi,
		   const struct uet_pds_hdr *h, uet_time now);
/* A RUDI request the network cut: NACK TRIMMED. */
int uet_cl_rx_trimmed(struct uet_pds *pds, const struct uet_pkt_info *pi,
		      const struct uet_pds_hdr *h, uet_time now);

/* Transmit phases, one packet each: answers (with the control packets),
 * resends, new packets. Length, 0 for none, or a negative UET_ERR_*. */
ssize_t uet_cl_poll_answer(struct uet_pds *pds, struct uet_pkt_info *pi,
			   uint8_t *buf, size_t cap, uet_time now);
ssize_t uet_cl_poll_retx(struct uet_pds *pds, struct uet_pkt_info *pi,
			 uint8_t *buf, size_t cap, uet_time now);
ssize_t uet_cl_poll_new(struct uet_pds *pds, struct uet_pkt_info *pi,
			uint8_t *buf, size_t cap, uet_time now);

uet_time uet_cl_next_timeout(const struct uet_pds *pds);
void uet_cl_timeout(struct uet_pds *pds, uet_time now);

#endif
