/* Triggered operations (fi_trigger.3): an operation posted with
 * FI_TRIGGER and a struct fi_triggered_context naming a counter and a
 * threshold waits in its domain's queue until the counter reaches the
 * threshold, then is posted as if the application had posted it then
 * (same context: its completion carries the triggered context).
 *
 * The post paths (uetp_msg.c, uetp_rma.c, uetp_atomic.c) hand such an
 * operation here; the queue keeps a copy of the call (iovs included; the
 * buffers stay the application's). Counters move inside engine callbacks,
 * under the endpoint lock, where posting is not possible: the queue is
 * run instead on the application's calls that run progress - CQ and
 * counter reads and waits, fi_cntr_add/set, fi_poll, fi_wait - the
 * manual progress the provider offers everywhere.
 *
 * Also the endpoint aliases of fi_ep_alias (FI_ALIAS), which is how an
 * application gives FI_TRIGGER to the calls that take no flags.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_trigger.h>

#include "uetp.h"

/* One queued call; `msg` is the public *msg form it is posted with. */
struct uetp_trig_op {
	struct uet_list entry;
	struct uetp_ep *ep;
	struct uetp_cntr *cntr;
	uint64_t threshold;
	enum fi_op_type kind;
	uint64_t flags;			/* FI_TRIGGER taken out */
	uint8_t type;			/* UET_OP_* of a message */
	unsigned amo_kind;		/* UETP_AMO_* of an atomic */
	struct uetp_post post;		/* FI_OP_SEND, _RECV, _TSEND, _TRECV */
	struct fi_msg_rma rma;		/* FI_OP_READ, FI_OP_WRITE */
	struct fi_msg_atomic amo;	/* the atomics */
	struct iovec iov[UETP_IOV_LIMIT];
	struct fi_rma_iov rma_iov;
	struct fi_ioc ioc[UETP_IOV_LIMIT];
	struct fi_rma_ioc rma_ioc;
	struct fi_ioc cmp[UETP_IOV_LIMIT], res[UETP_IOV_LIMIT];
	size_t ncmp, nres;
};

void uetp_trigger_init(struct uetp_trig_queue *q)
{
	pthread_mutex_init(&q->lock, NULL);
	uet_list_init(&q->ops);
	atomic_init(&q->count, 0);
}

static void uetp_trigger_free(struct uetp_trig_op *t)
{
	atomic_fetch_sub(&t->cntr->ref, 1);
	free(t);
}

void uetp_trigger_fini(struct uetp_trig_queue *q)
{
	while (!uet_list_empty(&q->ops)) {
		struct uet_list *e = q->ops.next;

		uet_list_del(e);
		uetp_trigger_free(uet_container_of(e, struct uetp_trig_op,
						    entry));
	}
	pthread_mutex_destroy(&q->lock);
}

/* The counter of a triggered context, or NULL when it cannot be used. */
static struct uetp_cntr *uetp_trigger_cntr(struct uetp_ep *ep, void *context,
					   uint64_t *threshold, int *err)
{
	struct fi_triggered_context *tc = context;
	struct fid_cntr *c;

	*err = -FI_EINVAL;
	if (!tc)
		return NULL;
	if (tc->event_type != FI_TRIGGER_THRESHOLD) {
		*err = -FI_ENOSYS;	/* FI_TRIGGER_XPU: no device here */
		return NULL;
	}
	c = tc->trigger.threshold.cntr;
	if (!c || !uetp_cntr_is(&c->fid))
		return NULL;
	if (uet_container_of(c, struct uetp_cntr, fid)->domain != ep->domain)
		return NULL;
	*threshold = tc->trigger.threshold.threshold;
	return uet_container_of(c, struct uetp_cntr, fid);
}

static ssize_t uetp_trigger_post(struct uetp_trig_op *t)
{
	struct fid_ep *ep = &t->ep->fid;

	switch (t->kind) {
	case FI_OP_SEND:
	case FI_OP_RECV:
	case FI_OP_TSEND:
	case FI_OP_TRECV:
		return uetp_msg_post(t->ep, &t->post);
	case FI_OP_READ:
		return fi_readmsg(ep, &t->rma, t->flags);
	case FI_OP_WRITE:
		return fi_writemsg(ep, &t->rma, t->flags);
	case FI_OP_ATOMIC:
		return fi_atomicmsg(ep, &t->amo, t->flags);
	case FI_OP_FETCH_ATOMIC:
		return fi_fetch_atomicmsg(ep, &t->amo, t->res, NULL, t->nres,
					  t->flags);
	case FI_OP_COMPARE_ATOMIC:
		return fi_compare_atomicmsg(ep, &t->amo, t->cmp, NULL, t->ncmp,
					    t->res, NULL, t->nres, t->flags);
	default:
		return -FI_ENOSYS;
	}
}

/* A fired operation the post refused for good: its error completion, as
 * if the engine had failed it. */
static void uetp_trigger_fail(struct uetp_trig_op *t, void *context,
			      ssize_t err)
{
	bool rx = t->kind == FI_OP_RECV || t->kind == FI_OP_TRECV;
	struct uetp_cq *cq = rx ? t->ep->rx_cq : t->ep->tx_cq;
	struct uetp_cntr *cntr = rx ? t->ep->rx_cntr :
				 t->kind == FI_OP_SEND ||
				 t->kind == FI_OP_TSEND ? t->ep->tx_cntr :
				 t->kind == FI_OP_WRITE ||
				 t->kind == FI_OP_ATOMIC ? t->ep->wr_cntr :
				 t->ep->rd_cntr;
	struct uetp_cq_entry e = {
		.op_context = context,
		.is_err = true,
		.err = (int)-err,
		.src = FI_ADDR_NOTAVAIL,
	};

	FI_WARN(&uetp_prov, FI_LOG_EP_DATA, "triggered op: %s\n",
		fi_strerror((int)-err));
	if (cq)
		uetp_cq_push(cq, &e, false);
	if (cntr)
		uetp_cntr_inc_err(cntr);
}

static void *uetp_trigger_context(const struct uetp_trig_op *t)
{
	switch (t->kind) {
	case FI_OP_SEND:
	case FI_OP_RECV:
	case FI_OP_TSEND:
	case FI_OP_TRECV:
		return t->post.context;
	case FI_OP_READ:
	case FI_OP_WRITE:
		return t->rma.context;
	default:
		return t->amo.context;
	}
}

void uetp_trigger_run(struct uetp_domain *dom)
{
	struct uetp_trig_queue *q = &dom->trig;
	struct uet_list ready, *e, *n;
	ssize_t ret;

	if (!atomic_load(&q->count))
		return;
	uet_list_init(&ready);
	pthread_mutex_lock(&q->lock);
	for (e = q->ops.next; e != &q->ops; e = n) {
		struct uetp_trig_op *t = uet_container_of(e,
					struct uetp_trig_op, entry);

		n = e->next;
		if (atomic_load(&t->cntr->value) < t->threshold)
			continue;
		uet_list_del(e);
		uet_list_add_tail(&ready, e);
		atomic_fetch_sub(&q->count, 1);
	}
	pthread_mutex_unlock(&q->lock);
	while (!uet_list_empty(&ready)) {
		struct uetp_trig_op *t;

		e = ready.next;
		t = uet_container_of(e, struct uetp_trig_op, entry);
		ret = uetp_trigger_post(t);
		if (ret == -FI_EAGAIN) {
			/* no room yet: these go first next time, in order */
			pthread_mutex_lock(&q->lock);
			while (!uet_list_empty(&ready)) {
				e = ready.prev;
				uet_list_del(e);
				e->next = q->ops.next;
				e->prev = &q->ops;
				q->ops.next->prev = e;
				q->ops.next = e;
				atomic_fetch_add(&q->count, 1);
			}
			pthread_mutex_unlock(&q->lock);
			return;
		}
		uet_list_del(e);
		if (ret)
			uetp_trigger_fail(t, uetp_trigger_context(t), ret);
		uetp_trigger_free(t);
	}
}

void uetp_trigger_ep_close(struct uetp_ep *ep)
{
	struct uetp_trig_queue *q = &ep->domain->trig;
	struct uet_list *e, *n;

	if (!atomic_load(&q->count))
		return;
	pthread_mutex_lock(&q->lock);
	for (e = q->ops.next; e != &q->ops; e = n) {
		struct uetp_trig_op *t = uet_container_of(e,
					struct uetp_trig_op, entry);

		n = e->next;
		if (t->ep != ep)
			continue;
		uet_list_del(e);
		atomic_fetch_sub(&q->count, 1);
		uetp_trigger_free(t);
	}
	pthread_mutex_unlock(&q->lock);
}

/* Queue t, or post it now when its threshold is already met. */
static ssize_t uetp_trigger_queue(struct uetp_trig_op *t)
{
	struct uetp_trig_queue *q = &t->ep->domain->trig;
	ssize_t ret;

	if (atomic_load(&t->cntr->value) >= t->threshold) {
		ret = uetp_trigger_post(t);
		free(t);
		return ret;
	}
	atomic_fetch_add(&t->cntr->ref, 1);
	pthread_mutex_lock(&q->lock);
	uet_list_add_tail(&q->ops, &t->entry);
	atomic_fetch_add(&q->count, 1);
	pthread_mutex_unlock(&q->lock);
	/* the counter may have reached it meanwhile */
	uetp_trigger_run(t->ep->domain);
	return 0;
}

/* A new record for an operation of ep with this context. */
static struct uetp_trig_op *uetp_trigger_new(struct uetp_ep *ep, void *context,
					     uint64_t flags, size_t iov_count,
					     ssize_t *err)
{
	struct uetp_trig_op *t;
	uint64_t threshold;
	struct uetp_cntr *cntr;
	int ret;

	*err = -FI_EINVAL;
	if (!(ep->caps & FI_TRIGGER) || (flags & UETP_INJECT_OP) ||
	    iov_count > UETP_IOV_LIMIT)
		return NULL;
	if (!ep->enabled) {
		*err = -FI_EOPBADSTATE;
		return NULL;
	}
	cntr = uetp_trigger_cntr(ep, context, &threshold, &ret);
	if (!cntr) {
		*err = ret;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		*err = -FI_ENOMEM;
		return NULL;
	}
	t->ep = ep;
	t->cntr = cntr;
	t->threshold = threshold;
	t->flags = flags & ~(uint64_t)FI_TRIGGER;
	return t;
}

ssize_t uetp_trigger_msg(struct uetp_ep *ep, const struct uetp_post *p)
{
	struct uetp_trig_op *t;
	ssize_t err;

	if (p->count && !p->iov)
		return -FI_EINVAL;
	t = uetp_trigger_new(ep, p->context, p->flags, p->count, &err);
	if (!t)
		return err;
	t->kind = p->type == UET_OP_SEND ? FI_OP_SEND :
		  p->type == UET_OP_TSEND ? FI_OP_TSEND :
		  p->type == UET_OP_RECV ? FI_OP_RECV : FI_OP_TRECV;
	t->post = *p;
	t->post.flags = t->flags;
	memcpy(t->iov, p->iov, p->count * sizeof(*p->iov));
	t->post.iov = t->iov;
	return uetp_trigger_queue(t);
}

ssize_t uetp_trigger_rma(struct uetp_ep *ep, uint8_t type,
			 const struct fi_msg_rma *msg, uint64_t flags)
{
	struct uetp_trig_op *t;
	ssize_t err;

	if (!msg || msg->rma_iov_count != UETP_RMA_IOV_LIMIT ||
	    !msg->rma_iov || (msg->iov_count && !msg->msg_iov))
		return -FI_EINVAL;
	t = uetp_trigger_new(ep, msg->context, flags, msg->iov_count, &err);
	if (!t)
		return err;
	t->kind = type == UET_OP_READ ? FI_OP_READ : FI_OP_WRITE;
	t->rma = *msg;
	memcpy(t->iov, msg->msg_iov, msg->iov_count * sizeof(*t->iov));
	t->rma.msg_iov = t->iov;
	t->rma.desc = NULL;
	t->rma_iov = msg->rma_iov[0];
	t->rma.rma_iov = &t->rma_iov;
	return uetp_trigger_queue(t);
}

ssize_t uetp_trigger_atomic(struct uetp_ep *ep, unsigned kind,
			    const struct fi_msg_atomic *msg,
			    const struct fi_ioc *compare, size_t compare_count,
			    const struct fi_ioc *result, size_t result_count,
			    uint64_t flags)
{
	struct uetp_trig_op *t;
	ssize_t err;

	if (!msg || msg->rma_iov_count != UETP_RMA_IOV_LIMIT ||
	    !msg->rma_iov || (msg->iov_count && !msg->msg_iov) ||
	    compare_count > UETP_IOV_LIMIT || result_count > UETP_IOV_LIMIT ||
	    (compare_count && !compare) || (result_count && !result))
		return -FI_EINVAL;
	t = uetp_trigger_new(ep, msg->context, flags, msg->iov_count, &err);
	if (!t)
		return err;
	t->kind = kind == UETP_AMO_BASE ? FI_OP_ATOMIC :
		  kind == UETP_AMO_FETCH ? FI_OP_FETCH_ATOMIC :
		  FI_OP_COMPARE_ATOMIC;
	t->amo = *msg;
	if (msg->msg_iov)
		memcpy(t->ioc, msg->msg_iov, msg->iov_count * sizeof(*t->ioc));
	t->amo.msg_iov = msg->msg_iov ? t->ioc : NULL;
	t->amo.desc = NULL;
	t->rma_ioc = msg->rma_iov[0];
	t->amo.rma_iov = &t->rma_ioc;
	if (compare_count)
		memcpy(t->cmp, compare, compare_count * sizeof(*t->cmp));
	if (result_count)
		memcpy(t->res, result, result_count * sizeof(*t->res));
	t->ncmp = compare_count;
	t->nres = result_count;
	return uetp_trigger_queue(t);
}
