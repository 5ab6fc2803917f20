/* Rendezvous sends (docs/choices.md §7, §6.4).
 *
 * A send or tagged send longer than cfg.rndv_threshold (0: never) goes as
 * RENDEZVOUS_SEND / RENDEZVOUS_TSEND: one packet carrying the eager part
 * (as much as fits beside the 24-byte rendezvous extension), with
 * request_length the whole message and the extension saying where the
 * rest is: the sender's PIDonFEP and resource index, read_offset =
 * eager_length and, as read key, an engine-assigned mem_key with vendor
 * bits 55:48 set (never a user key) naming the whole send buffer as a
 * read-only region that only the message's target may read.
 *
 * The target matches the message like any send. Once matched and its
 * eager part is in, it reads the rest with an ordinary READ it initiates
 * (on its own PDC to the sender; return data in that PDC's return
 * direction), into the receive buffer after the eager bytes, and completes
 * the receive when the read completes. It always issues exactly one read,
 * of what fits the receive (a truncated receive reads only that; a
 * discarded message or one that fits in its eager part reads zero bytes),
 * because the sender completes when its region has been served to the
 * read (every byte acknowledged) and its eager packet acknowledged; the
 * zero-length read is what releases it.
 *
 * Errors: a read the sender refuses fails both the receive (UET_ERR_REMOTE
 * with the return code) and the send (the same); return data that cannot
 * be delivered fails the send with UET_ERR_PEER, and the receive when its
 * PDC fails. A target that dies after acknowledging the eager packet
 * leaves the send waiting until the PDC to it fails.
 */
#include <stdlib.h>
#include <string.h>

#include "uet/alloc.h"
#include "ses_int.h"

/* ---- Sender ---- */

int uet_rndv_expose(struct uet_ses *ses, struct uet_ses_msg *m)
{
	size_t max = uet_ses_payload_to(ses, &m->peer);
	size_t room = max - UET_SES_RNDV_EXT_LEN;
	struct uet_ses_mr tmpl;
	int rc = UET_ERR_BUSY, tries;

	if (max <= UET_SES_RNDV_EXT_LEN || m->len <= room)
		return 0;	/* all of it fits the eager packet */
	memset(&tmpl, 0, sizeof(tmpl));
	memcpy(tmpl.iov, m->iov, sizeof(tmpl.iov));
	tmpl.iov_count = m->iov_count;
	tmpl.len = m->len;
	tmpl.access = UET_MR_REMOTE_READ;
	tmpl.owner = m;
	tmpl.peer = m->peer;
	for (tries = 0; rc == UET_ERR_BUSY && tries < 8; tries++) {
		tmpl.key = UET_SES_MKEY_RNDV |
			   (ses->rndv_key_next++ & UET_MKEY_RKEY_MASK);
		rc = uet_mr_add(ses, &tmpl, &m->rmr);
	}
	if (rc)
		return rc;
	m->opcode = m->type == UET_OP_TSEND ? UET_SES_RENDEZVOUS_TSEND :
					      UET_SES_RENDEZVOUS_SEND;
	m->eager = (uint32_t)room;
	ses->st.rndv_tx++;
	return 0;
}

void uet_rndv_unexpose(struct uet_ses *ses, struct uet_ses_msg *m)
{
	uet_mr_remove(ses, m->rmr->key);
	m->rmr = NULL;
}

/* The target's read of mr is over: all served (err 0) or failed. */
void uet_rndv_served(struct uet_ses *ses, struct uet_ses_mr *mr, int err,
		     int prov_errno)
{
	struct uet_ses_msg *m = mr->owner;

	if (!m)
		return;
	if (err)
		uet_msg_fail(m, err, prov_errno);
	m->read_done = true;
	uet_msg_maybe_done(ses, m);
}

/* ---- Receiver ---- */

/* Out of memory for the read: the receive fails (in NULL: none); the
 * sender waits until its PDC to us fails. */
static void rndv_read_nomem(struct uet_ses *ses, struct uet_ses_inmsg *in)
{
	if (!in)
		return;
	in->rread = NULL;
	uet_rx_recv_done(ses, in, UET_ERR_NOMEM, 0);
	uet_rx_free(ses, in);
}

/* Read len bytes of the rest into in's receive (in NULL: only release
 * the sender). */
static void rndv_read(struct uet_ses *ses, const struct uet_ses_inmsg *src,
		      struct uet_ses_inmsg *in, uint32_t len)
{
	struct uet_ses_msg *m = uet_calloc(1, sizeof(*m));

	if (!m) {
		rndv_read_nomem(ses, in);
		return;
	}
	uet_list_init(&m->link);
	m->internal = true;
	m->type = UET_OP_READ;
	m->opcode = UET_SES_READ;
	m->peer = src->src;
	m->rkey = src->rd_key;
	m->raddr = src->rd_off;
	m->len = len;
	uet_reasm_init(&m->rx, len);
	m->rin = in;
	if (in)
		in->rread = m;
	ses->st.rndv_reads++;
	if (uet_msg_queue(ses, m, ses->now)) {
		/* no entry for the peer could be made */
		rndv_read_nomem(ses, in);
		uet_reasm_fini(&m->rx);
		uet_free(m);
	}
}

void uet_rndv_start(struct uet_ses *ses, struct uet_ses_inmsg *in)
{
	uint32_t want = in->room > in->eager ? (uint32_t)in->room - in->eager :
					       0;

	/* Its turn has passed and all its packets are in: off the PDC, it
	 * lives with its receive and its read. */
	uet_list_del(&in->pdc_link);
	in->pdc = NULL;
	rndv_read(ses, in, in, want);
}

void uet_rndv_discard(struct uet_ses *ses, struct uet_ses_inmsg *in)
{
	rndv_read(ses, in, NULL, 0);
	uet_rx_free(ses, in);
}

void uet_rndv_place(struct uet_ses_msg *m, uint32_t off, const uint8_t *data,
		    size_t len)
{
	struct uet_ses_inmsg *in = m->rin;

	if (in && in->recv)
		uet_rx_scatter(in->recv, in->base + in->eager + off, data, len);
}

/* The internal read m completed (msg_report): so does the receive. */
void uet_rndv_read_done(struct uet_ses *ses, struct uet_ses_msg *m)
{
	struct uet_ses_inmsg *in = m->rin;
	int err = m->err;

	if (!in)
		return;
	in->rread = NULL;
	m->rin = NULL;
	if (!err && in->room < in->total)
		err = UET_ERR_TRUNC;
	uet_rx_recv_done(ses, in, err, m->prov_errno);
	uet_rx_free(ses, in);
}
