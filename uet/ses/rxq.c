/* Receive contexts (struct uet_rxq): the pool of posted receives, the
 * posted lists and the unexpected list that match.c works on.
 *
 * Every fep has one per resource index it serves (cfg.rx_ctx_count, the
 * rx contexts of a libfabric scalable endpoint), created with its SES.
 * A shared one (the shared receive context of libfabric) is opened on its
 * own and named in the cfg.rxq of several feps: their messages for
 * context 0 are matched against its receives, and those that find none
 * wait on its unexpected list whichever fep they came to. A message still
 * belongs to its fep (PDC, buffering budget, placement, completion
 * through that fep's callbacks); the context only says who takes it.
 */
#include <stdlib.h>
#include <string.h>

#include "uet/alloc.h"
#include "ses_int.h"

int uet_rxq_init(struct uet_rxq *q, unsigned depth,
		 const struct uet_callbacks *cb, void *user)
{
	unsigned i;

	memset(q, 0, sizeof(*q));
	q->cb = cb;
	q->user = user;
	uet_list_init(&q->free);
	uet_list_init(&q->posted_msg);
	uet_list_init(&q->posted_tag);
	uet_list_init(&q->unexp);
	q->pool = uet_calloc(depth, sizeof(*q->pool));
	if (!q->pool)
		return UET_ERR_NOMEM;
	for (i = 0; i < depth; i++) {
		q->pool[i].q = q;
		uet_list_add_tail(&q->free, &q->pool[i].link);
	}
	q->free_n = depth;
	return 0;
}

void uet_rxq_fini(struct uet_rxq *q)
{
	uet_free(q->pool);
	q->pool = NULL;
}

void uet_rxq_complete(struct uet_rxq *q, const struct uet_completion *c)
{
	if (q->cb && q->cb->complete)
		q->cb->complete(q->user, c);
}

int uet_rxq_open(struct uet_rxq **qp, unsigned depth,
		 const struct uet_callbacks *cb, void *user)
{
	struct uet_rxq *q;
	int rc;

	if (!qp || !depth || !cb || !cb->complete)
		return UET_ERR_INVAL;
	q = uet_malloc(sizeof(*q));
	if (!q)
		return UET_ERR_NOMEM;
	rc = uet_rxq_init(q, depth, cb, user);
	if (rc) {
		uet_free(q);
		return rc;
	}
	q->shared = true;
	*qp = q;
	return 0;
}

void uet_rxq_close(struct uet_rxq *q)
{
	if (!q)
		return;
	/* its feps are gone, and with them every unexpected message */
	uet_rxq_fini(q);
	uet_free(q);
}

int uet_rxq_post(struct uet_rxq *q, const struct uet_op *op)
{
	if (!q || !op || (op->type != UET_OP_RECV && op->type != UET_OP_TRECV))
		return UET_ERR_INVAL;
	return uet_match_post(q, op);
}

int uet_rxq_cancel(struct uet_rxq *q, void *context)
{
	return uet_match_cancel(q, context);
}

void uet_rxq_flush(struct uet_rxq *q)
{
	uet_match_flush(q);
}

size_t uet_rxq_left(const struct uet_rxq *q)
{
	return q->free_n;
}
