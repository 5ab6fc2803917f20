/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The UDP sprayer of ft_spray: from a plain UDP socket on 127.0.0.1 it
 * sends a uet endpoint's home port garbage of every kind the issue lists,
 * built with the uet wire codec, and tallies which engine drop counter
 * each packet must land in (decoding every packet itself first: what the
 * codec refuses must be counted drop_malformed by the receiver).
 *
 * The sprayer also runs a "fake PDC" of its own (a stranger that opened a
 * PDC properly, with SYN) so that packets with a right address but a wrong
 * JobID, PIDonFEP, resource index, SPDCID, PSN, request_length or
 * message_offset reach the checks past PDC lookup. It reads the answers
 * the endpoint sends back (to the address the fake PDC's SYN came from)
 * and checks that every refused request of the fake PDC was answered
 * with the right SES return code.
 */
#ifndef SPRAY_H
#define SPRAY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <netinet/in.h>

/* Which fep drop counter a packet must increment (uet/fep.h). */
enum spray_class {
	SPRAY_C_MALFORMED,	/* drop_malformed: the codec refuses it */
	SPRAY_C_PDC,		/* drop_pdc */
	SPRAY_C_PSN,		/* drop_psn */
	SPRAY_C_JOB,		/* drop_job (JobID, PIDonFEP, RI) */
	SPRAY_C_OTHER,		/* drop_other: types not spoken */
	SPRAY_C_REFUSED,	/* SES answers an error RC; no counter */
	SPRAY_C_UNKNOWN,	/* random bytes that happen to decode */
	SPRAY_C_FLOOD,		/* drop_job while PDCs last, then pdc */
	SPRAY_C_MAX,
};

enum spray_kind {
	SPRAY_K_RANDOM,		/* random bytes, random length 0..9000 */
	SPRAY_K_TRUNC,		/* valid packets cut at every length */
	SPRAY_K_DPDCID,		/* request to a DPDCID that is not ours */
	SPRAY_K_SPDCID,		/* fake-PDC request, wrong SPDCID */
	SPRAY_K_SYN_OFFSET,	/* SYN naming another Start_PSN */
	SPRAY_K_SYN_INFO,	/* SYN with pdc_info bits set */
	SPRAY_K_SYN_FAR,	/* SYN with PSN beyond the tracking range */
	SPRAY_K_PSN_FAR,	/* fake-PDC request far outside the window */
	SPRAY_K_JOB,		/* wrong JobID */
	SPRAY_K_PID,		/* wrong PIDonFEP */
	SPRAY_K_RI,		/* wrong resource index */
	SPRAY_K_RSVD_TYPE,	/* reserved PDS types, a TSS header */
	SPRAY_K_UNSUP_TYPE,	/* RUDI, UUD, CC request types */
	SPRAY_K_ACK,		/* ACK/ACK_CC/ACK_CCX for PSNs never sent */
	SPRAY_K_NACK,		/* NACK and NACK_CCX with every code */
	SPRAY_K_NACK_RUDI,	/* RUDI NACKs (NT set) */
	SPRAY_K_CTRL,		/* every CTRL type, CLOSE above all */
	SPRAY_K_HUGE_LEN,	/* request_length above max_msg_size */
	SPRAY_K_BAD_OFFSET,	/* message_offset beyond request_length */
	SPRAY_K_PDC_FLOOD,	/* SYNs opening PDCs, beyond the table size */
	SPRAY_K_MAX,
};

struct spray_cfg {
	struct sockaddr_in dst;		/* the endpoint's home port */
	uint32_t job_id;		/* the endpoint's JobID */
	uint64_t max_msg_size;		/* of the endpoint's provider */
	unsigned rounds;
	unsigned random_per_round;
	unsigned flood_per_round;	/* new PDCs opened per round */
	uint64_t seed;
	unsigned pace_us;		/* pause after every 8 packets */
};

struct spray_result {
	uint64_t sent;
	uint64_t send_err;
	uint64_t kind[SPRAY_K_MAX];
	uint64_t cls[SPRAY_C_MAX];
	uint64_t skipped;		/* fake-PDC kinds without its id */
	uint16_t port;			/* ours */
	bool answers;			/* our port gets the answers */
	bool f_known;			/* f_id: its id of the fake PDC */
	uint16_t f_id;
	uint64_t f_psns;		/* fake-PDC PSNs the endpoint consumed */
	uint64_t rx, rx_acks, rx_nacks, rx_other, rx_bad;
	uint64_t rc_match, rc_mismatch, rc_unknown_psn;
	uint64_t nack_code[256];
};

/* Spray cfg->rounds rounds (each of every kind, shuffled), then read the
 * answers for a while. stop set from outside ends it early. 0, or -1
 * when no socket could be had. */
int spray_run(const struct spray_cfg *cfg, struct spray_result *res,
	      atomic_bool *stop);
void spray_print(FILE *f, const struct spray_result *res);

const char *spray_class_name(unsigned c);
const char *spray_kind_name(unsigned k);

#endif
