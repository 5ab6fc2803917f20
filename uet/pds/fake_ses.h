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
	/* Optional: decide for a received packet before it is recorded.
	 * Return a NACK code to refuse it, or 0 and fill rsp / *gtd. */
	int (*rx_hook)(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		       const struct uet_ses_req *req, uint32_t offset,
		       struct uet_ses_rsp *rsp, bool *gtd);
	void *hook_arg;
	struct {
		uint32_t pdc;
		uint64_t key;
	} last[FAKE_SES_PDCS];		/* order check, per PDC id */
};

/* The fake SES of the fep whose callbacks user is `user`. */
struct uet_ses *fake_ses_of(void *user);
uint8_t fake_ses_byte(uint16_t id, uint32_t off);
/* Delivered-exactly-once check of one received message. */
const struct fake_rx *fake_ses_rx_find(const struct uet_ses *ses,
				       const struct uet_addr *peer,
				       uint16_t id);
/* Messages of ses all done? */
bool fake_ses_all_done(const struct uet_ses *ses);
/* Default packet payload size; set before uet_fep_open. */
extern uint32_t fake_ses_seg;

#endif
