/* UUD datagrams in (cless.c; pds-behaviour §10; mapping §4.1): each one
 * is a whole message, matched at once against the posted untagged
 * receives in posting order, like a send on a PDC, with the sender's home
 * address (the packet's source: connectionless packets leave from the
 * home port) as its source for directed receives and completions.
 *
 * Nothing waits: a datagram no receive takes is dropped and counted
 * (dgram_dropped; PDS adds drop_other), never buffered on the unexpected
 * list. A receive shorter than the datagram completes with UET_ERR_TRUNC
 * and olen, the sender having completed already. PDS hands every copy
 * that arrives, so a datagram the network duplicated is delivered twice,
 * into two receives; one it lost is just gone (UUD is best effort).
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
	r = uet_match_posted(ses, &probe);
	if (!r)
		goto drop;
	in = uet_rx_alloc(ses);
	if (!in)
		goto drop;
	in->src = *peer;
	in->msg_id = req->message_id;
	in->opcode = UET_SES_SEND;
	in->rc = UET_RC_OK;
	in->initiator = req->initiator;
	in->total = (uint32_t)len;
	if (req->flags & UET_SES_F_HD) {
		in->hd = true;
		in->data = req->header_data;
	}
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
