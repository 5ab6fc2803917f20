/* A stand-in SES for PDS tests (test-only; never in libuet). It provides
 * every uet_ses_* function fep.c and the PDS call, so a test program that
 * links it gets no SES object from libuet.
 *
 * A send of n bytes becomes ceil(n / seg) packets with a standard SES
 * header (message_id = the message's number at this fep) and payload
 * bytes fake_ses_byte(id, offset); the receiver checks every byte and
 * records each packet it got, so a test can see loss, duplication and
 * order. A send completes when each of its packets was acknowledged, or
 * with the error of the first failure.
 *
 * Reads (the return direction): a UET_OP_READ of n bytes is one request
 * packet (opcode READ, request_length n, no payload); the target queues
 * ceil(n / seg) return packets (next_hdr RSP_DATA, bytes
 * fake_ses_ret_byte(id, offset)), wakes the PDC with uet_pds_wake_pdc and
 * counts their ACKs and failures; the initiator checks and counts every
 * one it gets (uet_ses_rx_ret). A read completes when its request was
 * acknowledged and every return packet arrived; it fails with its PDC.
 *
 * Connectionless (sublayer.h): fake_ses_cl_send queues one RUDI or UUD
 * packet (a send of len bytes, or a read of len bytes answered inline)
 * and wakes PDS; the target records every copy it gets and answers RUDI
 * with RC_OK (and for a read fake_ses_ret_byte data); the initiator checks
 * the answer and that each packet is done or failed exactly once.
 */
#ifndef UET_PDS_FAKE_SES_H
#define UET_PDS_FAKE_SES_H

#include <stdbool.h>
#include <stdint.h>

#include "uet/fep.h"

#include "../core/sublayer.h"
#include "../ses/ses.h"

#define FAKE_SES_MSGS	2048
#define FAKE_SES_RX	4096
#define FAKE_SES_PDCS	64
#define FAKE_SES_RETS	256
#define FAKE_SES_CLS	1024

struct fake_msg {
	uint16_t id;
	struct uet_addr peer;
	void *context;
	uint32_t len, npkts, next_off;
	uint32_t acked, failed;
	uint8_t *state;		/* per packet: 0 out, 1 acked, 2 failed */
	bool done;
	int err;
	uint8_t code;		/* NACK code or return code of the failure */
	uint32_t rsps;		/* acks that carried a response */
	uint8_t last_rc, last_opcode;
	uint32_t last_len;	/* modified_length of the last response */
	uint32_t data_rsps;	/* responses that carried data */
	uint8_t data_fmt;	/* format of the last response with data */
	uint8_t data_len;	/* data of the last response with data */
	uint8_t data[UET_ACK_DATA_MAX];
	/* A read: return packets expected and got (deliveries each). */
	bool read;
	uint32_t nret, ret_got;
	uint8_t *ret_cnt;
};

/* A connectionless packet of this fep (initiator). */
struct fake_cl {
	uint16_t id;			/* its message_id */
	struct uet_addr peer;
	uint8_t mode;			/* UET_CL_RUDI / UET_CL_UUD */
	bool read;			/* answered with len bytes of data */
	uint32_t len;
	bool sent, done;
	unsigned dones, fails;		/* reports from PDS */
	int err;
	uint8_t code;
	uint8_t rc;			/* return code of the response */
	uint32_t data_len;		/* read data that came back */
	bool data_bad;
	uint32_t pkt_id;
};

/* Copies of one connectionless packet a target got. */
struct fake_cl_rx {
	struct uet_addr peer;
	uint8_t mode;
	uint16_t id;
	unsigned cnt;
};

/* Target side of a read: the return packets of one read request. */
struct fake_ret {
	const struct uet_pdc_ref *pdc;	/* NULL once the PDC closed */
	uint16_t id;			/* the read's message_id */
	uint32_t len, npkts, next_off;
	uint32_t acked, failed;
	uint8_t *state;			/* per packet: 0 out, 1 acked, 2 failed */
};

struct fake_rx {
	struct uet_addr peer;
	uint16_t id;
	uint32_t len, npkts, got;
	uint8_t *cnt;		/* deliveries per packet */
};

struct uet_ses {
	struct uet_fep_config cfg;
	const struct uet_callbacks *cb;
	void *user;
	struct uet_pds *pds;
	uint32_t seg;			/* payload bytes per packet */
	struct fake_msg msgs[FAKE_SES_MSGS];
	unsigned nmsgs;
	struct fake_rx rx[FAKE_SES_RX];
	unsigned nrx;
	/* Counters a test reads. */
	uint64_t rx_pkts;		/* new packets delivered by PDS */
	uint64_t rx_dups;		/* the same packet delivered twice */
	uint64_t rx_bad;		/* payload bytes wrong */
	uint64_t order_errs;		/* a packet older than one before it */
	uint64_t pdc_opens, pdc_closes, pdc_bad_close;
	int pdc_now;			/* open - closed */
	int pdc_peak;			/* most open at once */
	uint64_t acked_pkts, failed_pkts, resolved_twice;
	bool force_busy;		/* uet_ses_pdc_busy says yes */
	/* Reads, target side. */
	struct fake_ret rets[FAKE_SES_RETS];
	unsigned nrets;
	uint64_t ret_acked, ret_failed;	/* return packets resolved */
	/* Reads, initiator side. */
	uint64_t ret_rx;		/* return packets delivered by PDS */
	uint64_t ret_dups, ret_bad, ret_stray, ret_order_errs;
	/* Optional: refuse a return packet (a NACK code) or take it (0). */
	int (*ret_hook)(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
			const struct uet_ses_rsp *rsp);
	/* Connectionless. */
	struct fake_cl cls[FAKE_SES_CLS];
	unsigned ncls;
	struct fake_cl_rx clrx[FAKE_SES_CLS];
	unsigned nclrx;
	uint64_t cl_rx, cl_rx_bad, cl_done_twice;
	/* Optional: refuse a connectionless request (a NACK code) or take
	 * it (0). */
	int (*cl_hook)(struct uet_ses *ses, const struct uet_addr *peer,
		       uint8_t mode, const struct uet_ses_req *req);
	/* Optional: decide for a received packet before it is recorded.
	 * Return a NACK code to refuse it, or 0 and fill rsp / *gtd. */
	int (*rx_hook)(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		       const struct uet_ses_req *req, uint32_t offset,
		       struct uet_ses_rsp *rsp, bool *gtd);
	/* Optional, after rx_hook: the whole reply, e.g. data for the ACK
	 * (a small read result). Return value as rx_hook's. */
	int (*reply_hook)(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
			  const struct uet_ses_req *req, uint32_t offset,
			  struct uet_ses_reply *reply);
	void *hook_arg;
	struct {
		uint32_t pdc;
		uint64_t key;
	} last[FAKE_SES_PDCS];		/* order check, per PDC id */
};

/* The fake SES of the fep whose callbacks user is `user`. */
struct uet_ses *fake_ses_of(void *user);
uint8_t fake_ses_byte(uint16_t id, uint32_t off);
uint8_t fake_ses_ret_byte(uint16_t id, uint32_t off);
/* Delivered-exactly-once check of one received message. */
const struct fake_rx *fake_ses_rx_find(const struct uet_ses *ses,
				       const struct uet_addr *peer,
				       uint16_t id);
/* Messages of ses all done? */
bool fake_ses_all_done(const struct uet_ses *ses);
/* Queue one connectionless packet of len bytes (at most one segment) to
 * peer: mode UET_CL_RUDI or UET_CL_UUD, a read (RUDI) or a send. Returns
 * its index in ses->cls, or a negative UET_ERR_*. */
int fake_ses_cl_send(struct uet_ses *ses, const struct uet_addr *peer,
		     uint8_t mode, uint32_t len, bool read, uet_time now);
/* Copies of connectionless packet id from peer that reached ses. */
unsigned fake_ses_cl_copies(const struct uet_ses *ses,
			    const struct uet_addr *peer, uint16_t id);
/* Default packet payload size; set before uet_fep_open. */
extern uint32_t fake_ses_seg;

#endif
