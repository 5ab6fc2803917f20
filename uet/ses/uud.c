/* UUD datagrams in (cless.c; docs/choices.md §8.2): each one
 * is a whole message, matched at once against the posted untagged
 * receives in posting order, like a send on a PDC, with the sender's home
 * address (the packet's source: connectionless packets leave from the
 * home port) as its source for directed receives and completions.
 *
 * A datagram no receive takes yet waits on the unexpected list within
 * cfg.unexp_max, whole, for the next receive that matches it (oldest
 * first), as a socket buffer would hold it: applications post their
 * receives a little after their peers start sending. One that does not
 * fit the budget is dropped and counted (dgram_dropped; PDS adds
 * drop_other). A receive shorter than the datagram completes with
 * UET_ERR_TRUNC and olen, the sender having completed already. PDS hands
 * every copy that arrives, so a datagram the network duplicated is
 * delivered twice, into two receives; one it lost is just gone (UUD is
 * best effort).
 */
#include <string.h>

#include "uet/err.h"

#include "ses_int.h"

/* A datagram must be one whole send: SOM and EOM, no initiator error,
 * request_length = the bytes that came. Either send opcode is taken: the
 * reference provider puts a plain SEND on UUD. */
static bool uud_valid(const struct uet_ses_req *req, size_t len)
{
	uint8_t whole = UET_SES_F_SOM | UET_SES_F_EOM;

	return (req->opcode == UET_SES_DATAGRAM_SEND ||
		req->opcode == UET_SES_SEND) &&
	       (req->flags & whole) == whole && !(req->flags & UET_SES_F_IE) &&
	       req->request_length == len;
}

static void uud_fill(struct uet_ses_inmsg *in, const struct uet_addr *peer,
		     const struct uet_ses_req *req, size_t len, uint16_t ctx)
{
	in->src = *peer;
	in->rx_ctx = ctx;
	in->msg_id = req->message_id;
	in->opcode = UET_SES_SEND;
	in->rc = UET_RC_OK;
	in->initiator = req->initiator;
	in->total = (uint32_t)len;
	if (req->flags & UET_SES_F_HD) {
		in->hd = true;
		in->data = req->header_data;
	}
}

/* No receive yet: keep the datagram, whole, for the next one; false when
 * the unexpected budget has no room for it. */
static bool uud_hold(struct uet_ses *ses, const struct uet_addr *peer,
		     const struct uet_ses_req *req, const uint8_t *payload,
		     size_t len, uint16_t ctx)
{
	struct uet_ses_inmsg *in = uet_unexp_alloc(ses, (uint32_t)len);

	if (!in)
		return false;
	if (in->hdr_only) {
		uet_rx_free(ses, in);	/* no room for the data */
		return false;
	}
	uud_fill(in, peer, req, len, ctx);
	uet_reasm_init(&in->reasm, (uint32_t)len);
	(void)uet_reasm_add(&in->reasm, 0, (uint32_t)len);
	if (len)
		memcpy(in->buf, payload, len);
	in->processed = true;
	uet_match_unexp(ses, in);
	return true;
}

int uet_uud_rx(struct uet_ses *ses, const struct uet_addr *peer,
	       const struct uet_ses_req *req, const uint8_t *payload,
	       size_t len)
{
	struct uet_ses_inmsg probe, *in;
	struct uet_ses_recv *r;

	if (uet_cless_check(ses, req) != UET_RC_OK)
		goto drop;
	if (!uud_valid(req, len)) {
		ses->st.bad_req++;
		goto drop;
	}
	memset(&probe, 0, sizeof(probe));
	probe.opcode = UET_SES_SEND;
	probe.src = *peer;
	(void)uet_ses_rx_ctx(ses, req->resource_index, &probe.rx_ctx);
	r = uet_match_posted(ses, &probe);
	if (!r) {
		if (!uud_hold(ses, peer, req, payload, len, probe.rx_ctx))
			goto drop;
		ses->st.dgram_rx++;
		return 0;
	}
	in = uet_rx_alloc(ses);
	if (!in)
		goto drop;
	uud_fill(in, peer, req, len, probe.rx_ctx);
	/* Binds without completing (nothing counted as arrived yet). */
	uet_rx_bind(ses, in, r);
	if (in->room)
		uet_rx_scatter(r, in->base, payload, in->room);
	ses->st.dgram_rx++;
	uet_rx_recv_done(ses, in, in->room < in->total ? UET_ERR_TRUNC : 0, 0);
	uet_rx_free(ses, in);
	return 0;
drop:
	ses->st.dgram_dropped++;
	return 1;
}
