/* Posted receives and the unexpected list: who gets which message
 * (docs/choices.md §5.2, §5.3; libfabric fi_msg(3), fi_tagged(3)).
 *
 * - Untagged receives take untagged messages, tagged receives tagged ones,
 *   each in posting order: the first posted receive that matches wins.
 * - Tagged: (message tag ^ receive tag) & ~ignore == 0.
 * - Source: the sender's address (the PDC's peer) must equal the receive's
 *   peer unless UET_OPF_PEER_ANY (directed receive).
 * - A new receive first looks at the unexpected list, oldest first (the
 *   order messages were matched in, which keeps FI_ORDER_SAS).
 * - Multi-recv: one buffer takes message after message at increasing
 *   offsets until less than min_multi_recv bytes are free.
 * - PEEK / CLAIM / DISCARD (tagged): probe the unexpected list, reserve a
 *   message for a later CLAIM receive, or drop it.
 *
 * All of it per receive context (struct uet_rxq): a message is matched in
 * the context its resource_index names, and a shared context's
 * unexpected list holds the messages of several feps, each remembering
 * its owner SES, which places and completes it.
 */
#include <string.h>

#include "ses_int.h"

bool uet_match_one(const struct uet_ses_recv *r,
		   const struct uet_ses_inmsg *in)
{
	if (r->tagged != (in->opcode == UET_SES_TAGGED_SEND))
		return false;
	if (!(r->flags & UET_OPF_PEER_ANY) &&
	    !uet_addr_equal(&r->peer, &in->src))
		return false;
	return !r->tagged || !((r->tag ^ in->tag) & ~r->ignore);
}

bool uet_match_multi_full(const struct uet_ses_recv *r, size_t used)
{
	return r->len - used < r->min_free || used == r->len;
}

struct uet_ses_recv *uet_match_posted(struct uet_ses *ses,
				      const struct uet_ses_inmsg *in)
{
	struct uet_rxq *q = ses->rxq[in->rx_ctx];
	struct uet_list *head = in->opcode == UET_SES_TAGGED_SEND ?
				 &q->posted_tag : &q->posted_msg;
	struct uet_list *pos;

	for (pos = head->next; pos != head; pos = pos->next) {
		struct uet_ses_recv *r =
			uet_container_of(pos, struct uet_ses_recv, link);

		if (uet_match_one(r, in))
			return r;
	}
	return NULL;
}

void uet_match_unlink(struct uet_ses_recv *r)
{
	r->linked = false;
	if (r->on_list)
		uet_list_del(&r->link);
	r->on_list = false;
}

void uet_match_recv_free(struct uet_ses *ses, struct uet_ses_recv *r)
{
	struct uet_rxq *q = r->q;

	(void)ses;
	uet_match_unlink(r);
	memset(r, 0, sizeof(*r));
	r->q = q;
	uet_list_add(&q->free, &r->link);
	q->free_n++;
}

static struct uet_ses_recv *recv_alloc(struct uet_rxq *q)
{
	struct uet_list *n = uet_list_pop(&q->free);

	if (!n)
		return NULL;
	q->free_n--;
	return uet_container_of(n, struct uet_ses_recv, link);
}

void uet_match_unexp(struct uet_ses *ses, struct uet_ses_inmsg *in)
{
	in->owner = ses;
	uet_list_add_tail(&ses->rxq[in->rx_ctx]->unexp, &in->unexp_link);
	ses->st.unexp_msgs++;
}

/* The CANCELED completion of receive r, into q. */
static void recv_canceled(struct uet_rxq *q, const struct uet_ses_recv *r)
{
	struct uet_completion c;

	memset(&c, 0, sizeof(c));
	c.context = r->context;
	c.flags = UET_CF_RECV;
	if (r->tagged)
		c.flags |= UET_CF_TAGGED;
	if (r->flags & UET_OPF_MULTI_RECV)
		c.flags |= UET_CF_MULTI_RECV;
	c.err = UET_ERR_CANCELED;
	uet_rxq_complete(q, &c);
}

void uet_match_orphan(struct uet_ses_inmsg *in)
{
	struct uet_ses_recv *r = in->recv;

	in->recv = NULL;
	if (!r || --r->refs || r->linked)
		return;
	recv_canceled(r->q, r);
	uet_match_recv_free(NULL, r);
}

/* The oldest unexpected message r (or a probe like it) would take. */
static struct uet_ses_inmsg *unexp_find(struct uet_rxq *q,
					const struct uet_ses_recv *r)
{
	struct uet_list *pos;

	for (pos = q->unexp.next; pos != &q->unexp; pos = pos->next) {
		struct uet_ses_inmsg *in =
			uet_container_of(pos, struct uet_ses_inmsg, unexp_link);

		if (!in->claimed && uet_match_one(r, in))
			return in;
	}
	return NULL;
}

static void recv_fill(struct uet_ses_recv *r, const struct uet_op *op)
{
	size_t i;

	r->context = op->context;
	r->flags = op->flags;
	r->tagged = op->type == UET_OP_TRECV;
	r->peer = op->peer;
	r->tag = op->tag;
	r->ignore = op->ignore;
	r->len = 0;
	for (i = 0; i < op->iov_count; i++) {
		r->iov[i] = op->iov[i];
		r->len += op->iov[i].len;
	}
	r->iov_count = op->iov_count;
	r->min_free = op->min_multi_recv;
}

/* Drop an unexpected message (DISCARD): packets still to come are
 * absorbed and answered, then the descriptor goes. */
static void unexp_discard(struct uet_ses_inmsg *in)
{
	struct uet_ses *ses = in->owner;

	uet_list_del(&in->unexp_link);
	/* A rendezvous sender is released by a read of nothing. */
	if (in->rndv && !uet_list_linked(&in->pdc_link)) {
		uet_rndv_discard(ses, in);
		return;
	}
	if (!uet_list_linked(&in->pdc_link)) {
		uet_rx_free(ses, in);
		return;
	}
	in->discard = true;
	uet_unexp_drop_buf(ses, in);
}

static void probe_complete(struct uet_rxq *q, const struct uet_op *op,
			   const struct uet_ses_inmsg *in, int err)
{
	struct uet_completion c;

	memset(&c, 0, sizeof(c));
	c.context = op->context;
	c.flags = UET_CF_RECV | UET_CF_TAGGED;
	c.err = err;
	if (in) {
		c.len = in->total;
		c.tag = in->tag;
		c.src = in->src;
		if (in->hd) {
			c.flags |= UET_CF_CQ_DATA;
			c.data = in->data;
		}
	}
	uet_rxq_complete(q, &c);
}

/* FI_PEEK [| FI_CLAIM | FI_DISCARD]: completes at once; no message is an
 * error completion UET_ERR_NOENT (libfabric: FI_ENOMSG). */
static int match_peek(struct uet_rxq *q, const struct uet_op *op)
{
	struct uet_ses_recv probe;
	struct uet_ses_inmsg *in;

	memset(&probe, 0, sizeof(probe));
	recv_fill(&probe, op);
	in = unexp_find(q, &probe);
	if (!in) {
		probe_complete(q, op, NULL, UET_ERR_NOENT);
		return 0;
	}
	probe_complete(q, op, in, 0);
	if (op->flags & UET_OPF_CLAIM) {
		in->claimed = true;
		in->claim_ctx = op->context;
	} else if (op->flags & UET_OPF_DISCARD) {
		unexp_discard(in);
	}
	return 0;
}

/* FI_CLAIM [| FI_DISCARD]: the message an earlier PEEK|CLAIM with the
 * same context reserved. */
static int match_claim(struct uet_rxq *q, const struct uet_op *op)
{
	struct uet_ses_inmsg *in = NULL;
	struct uet_ses_recv *r;
	struct uet_list *pos;

	for (pos = q->unexp.next; pos != &q->unexp; pos = pos->next) {
		in = uet_container_of(pos, struct uet_ses_inmsg, unexp_link);
		if (in->claimed && in->claim_ctx == op->context)
			break;
		in = NULL;
	}
	if (!in)
		return UET_ERR_NOENT;
	if (op->flags & UET_OPF_DISCARD) {
		struct uet_completion c;

		memset(&c, 0, sizeof(c));
		c.context = op->context;
		c.flags = UET_CF_RECV | UET_CF_TAGGED;
		c.tag = in->tag;
		c.src = in->src;
		unexp_discard(in);
		if (op->flags & UET_OPF_COMPLETION)
			uet_rxq_complete(q, &c);
		return 0;
	}
	r = recv_alloc(q);
	if (!r)
		return UET_ERR_AGAIN;
	recv_fill(r, op);
	r->linked = true;
	uet_rx_bind(in->owner, in, r);
	return 0;
}

int uet_match_post(struct uet_rxq *q, const struct uet_op *op)
{
	const uint32_t ok = UET_OPF_COMPLETION | UET_OPF_MULTI_RECV |
			    UET_OPF_PEER_ANY | UET_OPF_PEEK | UET_OPF_CLAIM |
			    UET_OPF_DISCARD;
	const uint32_t probe = UET_OPF_PEEK | UET_OPF_CLAIM | UET_OPF_DISCARD;
	bool tagged = op->type == UET_OP_TRECV;
	bool multi = op->flags & UET_OPF_MULTI_RECV;
	struct uet_ses_recv *r;
	struct uet_ses_inmsg *in;
	size_t i;

	if ((op->flags & ~ok) || op->iov_count > UET_SES_IOV_MAX ||
	    (op->iov_count && !op->iov))
		return UET_ERR_INVAL;
	for (i = 0; i < op->iov_count; i++)
		if (op->iov[i].len && !op->iov[i].base)
			return UET_ERR_INVAL;
	if (!(op->flags & UET_OPF_PEER_ANY) && op->peer.af == UET_AF_NONE)
		return UET_ERR_INVAL;
	if (op->flags & probe) {
		if (!tagged || multi || (op->flags & probe) == UET_OPF_DISCARD)
			return UET_ERR_INVAL;
		if ((op->flags & probe) == probe)
			return UET_ERR_INVAL;
		if (op->flags & UET_OPF_PEEK)
			return match_peek(q, op);
		return match_claim(q, op);
	}
	/* Multi-recv: one buffer (fi_msg(3) FI_MULTI_RECV), untagged. */
	if (multi && (tagged || op->iov_count != 1))
		return UET_ERR_INVAL;

	r = recv_alloc(q);
	if (!r)
		return UET_ERR_AGAIN;
	recv_fill(r, op);
	r->linked = true;
	while ((in = unexp_find(q, r))) {
		bool last = true;

		if (multi) {
			size_t room = r->len - r->used;

			if (in->total < room)
				room = in->total;
			last = uet_match_multi_full(r, r->used + room);
		}
		/* r may be completed and recycled inside once unlinked. */
		uet_rx_bind(in->owner, in, r);
		if (last)
			return 0;
	}
	uet_list_add_tail(tagged ? &q->posted_tag : &q->posted_msg,
			   &r->link);
	r->on_list = true;
	return 0;
}

static void recv_cancel(struct uet_rxq *q, struct uet_ses_recv *r)
{
	uet_match_unlink(r);
	/* A multi-recv buffer still being filled is released by the
	 * completion of its last message. */
	if (r->refs)
		return;
	recv_canceled(q, r);
	uet_match_recv_free(NULL, r);
}

int uet_match_cancel(struct uet_rxq *q, void *context)
{
	struct uet_list *heads[2] = { &q->posted_msg, &q->posted_tag };
	struct uet_list *pos;
	int i;

	for (i = 0; i < 2; i++) {
		for (pos = heads[i]->next; pos != heads[i]; pos = pos->next) {
			struct uet_ses_recv *r =
				uet_container_of(pos, struct uet_ses_recv, link);

			if (r->context == context) {
				recv_cancel(q, r);
				return 0;
			}
		}
	}
	return UET_ERR_NOENT;
}

void uet_match_flush(struct uet_rxq *q)
{
	struct uet_list *heads[2] = { &q->posted_msg, &q->posted_tag };
	struct uet_list *pos, *tmp;
	int i;

	for (i = 0; i < 2; i++) {
		uet_list_foreach_safe(pos, tmp, heads[i])
			recv_cancel(q, uet_container_of(pos,
							 struct uet_ses_recv,
							 link));
	}
}
