/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers shared by the fault-injection programs (ft_spray, ft_deadpeer):
 * one RDM endpoint on 127.0.0.1 opened through the public libfabric API
 * only, sockaddr_in names, completion polling with deadlines, and a
 * self-describing message format whose every byte is checked on receipt.
 *
 * Names are FI_SOCKADDR_IN: 127.0.0.1 and the endpoint's port (for uet
 * the UDP home port), printed as "127.0.0.1 PORT" so that the driver can
 * hand them to the peer and to the sprayer.
 */
#ifndef FAULT_H
#define FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

struct fault_ep {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fid_cq *txcq;
	struct fid_cq *rxcq;
	struct fid_ep *ep;
	struct sockaddr_in name;	/* fi_getname */
};

/* One posted operation; the provider may use ctx (FI_CONTEXT mode), so
 * it comes first and lives until the completion is read. */
struct fault_op {
	struct fi_context ctx;
	int peer;			/* caller's index */
	uint32_t seq;
	bool busy;
	double t_post;
	uint8_t *buf;
	size_t len;
	/* Set when its completion is read (busy goes false). */
	int err;			/* 0, or the positive FI_E* */
	int prov_errno;
	size_t rlen;			/* bytes received */
	double t_done;
	char errstr[160];
};

/* What one poll found. */
struct fault_comp {
	struct fault_op *op;
	size_t len;			/* receive: bytes received */
	int err;			/* 0, or the positive FI_E* */
	int prov_errno;
	char errstr[160];
};

/* Open fabric, domain, AV, two CQs and an enabled RDM endpoint of
 * provider prov bound to 127.0.0.1; logs and returns -FI_E* on failure. */
int fault_ep_open(struct fault_ep *e, const char *prov);
void fault_ep_close(struct fault_ep *e);
/* "127.0.0.1 PORT" into buf. */
void fault_addr_str(char *buf, size_t cap, const struct sockaddr_in *sin);
/* "IP:PORT" or "IP PORT" -> sockaddr_in; 0 or -1. */
int fault_addr_parse(const char *s, struct sockaddr_in *sin);
int fault_av_insert(struct fault_ep *e, const struct sockaddr_in *sin,
		    fi_addr_t *fa);

/* One completion from cq: 1 (c filled, c->err set for error entries),
 * 0 nothing yet, or a negative fi_cq_read error. Reading drives manual
 * progress. */
int fault_cq_poll(struct fid_cq *cq, struct fault_comp *c);

/* Every completion read by the functions below first updates its op
 * (busy, err, prov_errno, rlen, t_done, errstr), then goes to on_comp
 * (may be NULL). A completion without an op is counted in fault_stray. */
extern unsigned long fault_stray;

/* Post with retry on -FI_EAGAIN (polling both CQs for progress) until
 * deadline. */
typedef void (*fault_comp_fn)(void *user, struct fid_cq *cq,
			      const struct fault_comp *c);
int fault_post_send(struct fault_ep *e, struct fault_op *op, fi_addr_t dst,
		    double deadline, fault_comp_fn on_comp, void *user);
int fault_post_recv(struct fault_ep *e, struct fault_op *op, size_t cap,
		    double deadline, fault_comp_fn on_comp, void *user);
/* Poll both CQs once each; completions go to on_comp. Returns how many
 * were seen, or a negative fi_cq_read error. */
int fault_progress(struct fault_ep *e, fault_comp_fn on_comp, void *user);
/* Progress until op completes: 0, -FI_ETIMEDOUT, or a CQ read error. */
int fault_wait(struct fault_ep *e, struct fault_op *op, double deadline,
	       fault_comp_fn on_comp, void *user);

double fault_now(void);			/* CLOCK_MONOTONIC, seconds */
double fault_wall(void);		/* CLOCK_REALTIME, seconds */

/*
 * Message format: a 16-byte header, then len - 16 pattern bytes that
 * depend on (magic, seq, offset), so a byte from another message, another
 * stream or another offset never passes.
 *   0 magic  4 seq  8 len (whole message)  12 flags
 */
#define FAULT_HDR_LEN		16
#define FAULT_F_LAST		0x1	/* last message of the stream */

void fault_msg_fill(uint8_t *buf, size_t len, uint32_t magic, uint32_t seq,
		    uint32_t flags);
/* 0 when buf holds a whole message with this magic; fills seq/flags. On
 * failure, why into why (a short reason). */
int fault_msg_check(const uint8_t *buf, size_t len, uint32_t magic,
		    uint32_t *seq, uint32_t *flags, char *why, size_t cap);

#endif
