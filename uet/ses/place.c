/* Direct placement (docs/choices.md §2.9): where the payloads of packets
 * that would go on with a message being received may be put before they
 * are seen, so that the port's receive writes them there and SES copies
 * nothing (uet_rx_scatter and iov_copy leave bytes that are already in
 * place). Only ranges that have not arrived, of buffers that are ours
 * until the operation completes (a receive's, a read's), are handed out:
 * a packet that turns out to be something else has written into bytes
 * the message will write again, that nobody may look at before then.
 */
#include "ses_int.h"

#include "iov.h"
#include "reasm.h"

/* An incoming request message: the buffer of the receive that took it.
 * Not the unexpected buffer: a receive posted to a queue other feps
 * share may take the message, and its buffer, from another thread. Not
 * a region an RMA write goes to: the application may read it at any
 * time, and a wrong guess would show it, for a moment, bytes that were
 * never written to it (a receive's buffer is ours until it completes). */
static uint8_t *place_in(const struct uet_ses_inmsg *in, uint32_t off,
			 uint32_t *len)
{
	if (in->rma || in->rndv || in->hdr_only || !in->recv ||
	    off >= in->room)
		return NULL;
	/* Bytes past the receive are dropped, not placed. */
	if (*len > in->room - off)
		*len = (uint32_t)((in->room - off) / in->reasm.seg *
				  in->reasm.seg);
	return *len ? uet_iov_span(in->recv->iov, in->recv->iov_count,
				   in->base + off, *len) : NULL;
}

int uet_ses_place(const struct uet_pdc_ref *pdc, bool ret, uint16_t msg_id,
		  uint8_t opcode, uint32_t off, uint32_t seg, uint32_t *len,
		  uint8_t **dst)
{
	struct uet_ses_pdc *ps = pdc->ses_state;
	const struct uet_reasm *r;
	uint32_t n;
	uint8_t *p;

	if (!ps || !seg)
		return 0;
	if (ret) {
		const struct uet_ses_msg *m = uet_msg_find(ps, msg_id);

		/* A rendezvous read fills a receive of its own (rndv.c). */
		if (!m || m->opcode != UET_SES_READ || m->stop ||
		    m->reported || m->internal)
			return 0;
		r = &m->rx;
		if (r->seg != seg || !(n = uet_reasm_free(r, off, *len)))
			return 0;
		p = uet_iov_span(m->iov, m->iov_count, off, n);
	} else {
		const struct uet_ses_inmsg *in = uet_rx_find(ps, msg_id);

		if (!in || in->rc != UET_RC_OK || in->discard ||
		    in->opcode != opcode)
			return 0;
		r = &in->reasm;
		if (r->seg != seg || !(n = uet_reasm_free(r, off, *len)))
			return 0;
		p = place_in(in, off, &n);
	}
	if (!p || !n)
		return 0;
	*len = n;
	*dst = p;
	return 1;
}
