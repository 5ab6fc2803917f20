/* Buffering of messages that no receive has taken yet: unexpected ones, and
 * ones held back until their predecessors on the PDC are matched
 * (FI_ORDER_SAS). Each takes its descriptor plus request_length bytes out
 * of cfg.unexp_max when its first packet arrives, so every later packet of
 * it fits.
 *
 * When the data does not fit, the message still gets a descriptor (its
 * place in the matching order) but no buffer: its packets are NACKed
 * (UET_NACK_NO_SES_MSG_AVAIL) and PDS resends them later, landing straight
 * in the receive buffer once one matches. So a large unexpected message
 * never blocks the matching of the messages behind it, nothing is lost and
 * memory stays bounded. Only when not even a descriptor fits is the packet
 * NACKed without any state (the descriptor cost also bounds how many empty
 * messages can wait).
 */
#include <stdlib.h>
#include <string.h>

#include "uet/alloc.h"
#include "ses_int.h"

struct uet_ses_inmsg *uet_unexp_alloc(struct uet_ses *ses, uint32_t total)
{
	size_t left = ses->cfg.unexp_max - ses->unexp_used;
	size_t charge = sizeof(struct uet_ses_inmsg);
	struct uet_ses_inmsg *in;

	if (ses->unexp_used > ses->cfg.unexp_max || charge > left)
		return NULL;
	in = uet_calloc(1, sizeof(*in));
	if (!in)
		return NULL;
	if (total && total <= left - charge) {
		in->buf = uet_malloc(total);
		if (in->buf)
			charge += total;
	}
	in->hdr_only = total && !in->buf;
	in->heap = true;
	in->charge = charge;
	ses->unexp_used += charge;
	uet_list_init(&in->pdc_link);
	uet_list_init(&in->unexp_link);
	return in;
}

/* The message found a receive (or is being dropped): its buffered bytes
 * are no longer needed. The descriptor lives on, uncharged. */
void uet_unexp_drop_buf(struct uet_ses *ses, struct uet_ses_inmsg *in)
{
	uet_free(in->buf);
	in->buf = NULL;
	uet_unexp_release(ses, in);
}

void uet_unexp_release(struct uet_ses *ses, struct uet_ses_inmsg *in)
{
	ses->unexp_used -= in->charge;
	in->charge = 0;
}
