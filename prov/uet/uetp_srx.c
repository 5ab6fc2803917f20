/* Shared receive contexts (fi_srx_context, FI_SHARED_CONTEXT).
 *
 * The queue lives in the engine (struct uet_rxq, uet/ses/rxq.c), not
 * here: an endpoint bound to the context renews its engine with
 * cfg.rxq = the context's queue, so a message arriving at any bound
 * endpoint is matched against the receives posted here, in posting order,
 * by the engine's own rules (tags, directed receives, multi-recv,
 * FI_ORDER_SAS per sender), and one that finds none waits on the queue's
 * unexpected list - in arrival order across the endpoints - for the next
 * receive posted here. Each endpoint keeps its port, PDCs, name and
 * unexpected-message budget; peers still address the endpoint.
 *
 * The queue and the engines using it are one single-threaded unit: the
 * endpoints take the context's lock as theirs (ep->lock.to).
 *
 * Completions: a receive that took a message completes in the CQ and
 * counter of the endpoint the message came to (with that endpoint's
 * FI_SELECTIVE_COMPLETION and AV for the source); cancel, flush and
 * FI_PEEK answers go to the first bound endpoint's. A directed receive's
 * src_addr is looked up in the first bound endpoint's AV.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "uet/err.h"
#include "uetp.h"

static struct uetp_srx *uetp_srx_of(struct fid_ep *fid)
{
	return uet_container_of(fid, struct uetp_srx, fid);
}

static struct uetp_ep *uetp_srx_first(struct uetp_srx *srx)
{
	return srx->neps ? srx->eps[0] : NULL;
}

void uetp_srx_req_free(struct uetp_srx *srx, struct uetp_req *req)
{
	req->next = srx->free;
	srx->free = req;
}

void uetp_srx_route(struct uetp_req *req, struct uetp_ep *ep)
{
	req->cq = ep ? ep->rx_cq : NULL;
	req->cntr = ep ? ep->rx_cntr : NULL;
	req->want_comp = ep && (!ep->rx_selective ||
				(req->flags & (FI_COMPLETION | FI_PEEK)));
	req->reserved = false;
}

/* The queue's own completions (cancel, flush, probes, a closing
 * endpoint's half-filled receive). */
static void uetp_srx_complete(void *user, const struct uet_completion *c)
{
	struct uetp_srx *srx = user;

	uetp_ep_complete_req(uetp_srx_first(srx), c->context, c);
}

/* Progress the bound endpoints (srx->lock held: it is theirs). */
static void uetp_srx_progress(struct uetp_srx *srx)
{
	for (size_t i = 0; i < srx->neps; i++)
		if (srx->eps[i]->enabled)
			uetp_progress_ep(srx->eps[i]);
}

/* A receive that took an unexpected message may have made its endpoint
 * something to send (a rendezvous read): send it now. */
static void uetp_srx_flush(struct uetp_srx *srx)
{
	uet_time now = uetp_now();

	for (size_t i = 0; i < srx->neps; i++) {
		struct uetp_ep *ep = srx->eps[i];

		if (!ep->enabled)
			continue;
		uetp_progress_flush(ep, now);
		if (ep->domain->prog)
			uetp_progress_kick(ep->domain,
					   uetp_progress_deadline(ep));
	}
}

static struct uetp_req *uetp_srx_req_get(struct uetp_srx *srx, bool claim,
					 void *context)
{
	struct uetp_req *r;

	if (claim) {
		for (size_t i = 0; i < srx->nreqs; i++) {
			r = &srx->reqs[i];
			if (r->in_use && r->claimed && r->context == context) {
				r->claimed = false;
				return r;
			}
		}
		return NULL;
	}
	r = srx->free;
	if (r) {
		srx->free = r->next;
		r->next = NULL;
	}
	return r;
}

static int uetp_srx_op(struct uetp_srx *srx, const struct uetp_post *p,
		       struct uet_op *op, struct uet_iov *iov)
{
	struct uetp_ep *first = uetp_srx_first(srx);
	uint64_t f = p->flags;

	if (p->count > srx->iov_limit || (p->count && !p->iov))
		return -FI_EINVAL;
	(void)uetp_post_op_base(p, op, iov);
	uetp_post_rx_flags(f, srx->min_multi_recv, op);
	if (!(srx->caps & FI_DIRECTED_RECV) || p->addr == FI_ADDR_UNSPEC)
		op->flags |= UET_OPF_PEER_ANY;
	else if (!first || !first->av ||
		 uetp_av_get(first->av, uetp_av_base(first->av, p->addr),
			     &op->peer))
		return -FI_EINVAL;
	return 0;
}

static ssize_t uetp_srx_post(struct uetp_srx *srx, const struct uetp_post *p)
{
	bool claim = (p->flags & FI_CLAIM) && !(p->flags & FI_PEEK);
	struct uet_iov iov[UETP_IOV_LIMIT];
	struct uetp_req *req;
	struct uet_op op;
	int ret;

	uetp_lock_acquire(&srx->lock);
	ret = uetp_srx_op(srx, p, &op, iov);
	if (ret)
		goto out;
	/* a probe answers at once: let what has arrived in first */
	if (p->flags & FI_PEEK)
		uetp_srx_progress(srx);
	req = uetp_srx_req_get(srx, claim, p->context);
	if (!req && !claim) {
		uetp_srx_progress(srx);
		req = uetp_srx_req_get(srx, false, NULL);
	}
	if (!req) {
		ret = claim ? -FI_EINVAL : -FI_EAGAIN;
		goto out;
	}
	req->in_use = true;
	req->context = p->context;
	req->type = p->type;
	req->flags = p->flags;
	req->peek = !!(p->flags & FI_PEEK);
	uetp_srx_route(req, NULL);
	op.context = req;
	ret = uet_rxq_post(srx->q, &op);
	if (ret == UET_ERR_AGAIN) {
		uetp_srx_progress(srx);
		ret = uet_rxq_post(srx->q, &op);
	}
	if (ret) {
		if (claim)
			req->claimed = true;	/* waits for its claim */
		else
			uetp_srx_req_free(srx, req);
		ret = uetp_errno(ret);
		goto out;
	}
	uetp_srx_flush(srx);
out:
	uetp_lock_release(&srx->lock);
	return ret;
}

/* ---- fi_ops_msg, fi_ops_tagged: receives only ---- */

static ssize_t uetp_srx_recvmsg(struct fid_ep *fid, const struct fi_msg *msg,
				uint64_t flags)
{
	struct uetp_post p = {
		.type = UET_OP_RECV, .iov = msg->msg_iov,
		.count = msg->iov_count, .addr = msg->addr,
		.context = msg->context, .flags = flags,
	};

	return uetp_srx_post(uetp_srx_of(fid), &p);
}

static ssize_t uetp_srx_recvv(struct fid_ep *fid, const struct iovec *iov,
			      void **desc, size_t count, fi_addr_t src,
			      void *context)
{
	struct uetp_srx *srx = uetp_srx_of(fid);
	struct uetp_post p = {
		.type = UET_OP_RECV, .iov = iov, .count = count,
		.addr = src, .context = context, .flags = srx->op_flags,
	};

	(void)desc;
	return uetp_srx_post(srx, &p);
}

static ssize_t uetp_srx_recv(struct fid_ep *fid, void *buf, size_t len,
			     void *desc, fi_addr_t src, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return uetp_srx_recvv(fid, &iov, &desc, 1, src, context);
}

static ssize_t uetp_srx_trecvmsg(struct fid_ep *fid,
				 const struct fi_msg_tagged *msg,
				 uint64_t flags)
{
	struct uetp_post p = {
		.type = UET_OP_TRECV, .iov = msg->msg_iov,
		.count = msg->iov_count, .addr = msg->addr, .tag = msg->tag,
		.ignore = msg->ignore, .context = msg->context,
		.flags = flags,
	};

	return uetp_srx_post(uetp_srx_of(fid), &p);
}

static ssize_t uetp_srx_trecvv(struct fid_ep *fid, const struct iovec *iov,
			       void **desc, size_t count, fi_addr_t src,
			       uint64_t tag, uint64_t ignore, void *context)
{
	struct uetp_srx *srx = uetp_srx_of(fid);
	struct uetp_post p = {
		.type = UET_OP_TRECV, .iov = iov, .count = count,
		.addr = src, .tag = tag, .ignore = ignore,
		.context = context, .flags = srx->op_flags,
	};

	(void)desc;
	return uetp_srx_post(srx, &p);
}

static ssize_t uetp_srx_trecv(struct fid_ep *fid, void *buf, size_t len,
			      void *desc, fi_addr_t src, uint64_t tag,
			      uint64_t ignore, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return uetp_srx_trecvv(fid, &iov, &desc, 1, src, tag, ignore,
			       context);
}

static struct fi_ops_msg uetp_srx_msg;
static struct fi_ops_tagged uetp_srx_tagged;
static pthread_once_t uetp_srx_once = PTHREAD_ONCE_INIT;

/* Sends are the endpoints' (or their shared tx context's). */
static void uetp_srx_ops_init(void)
{
	uetp_srx_msg = uetp_enosys_msg;
	uetp_srx_msg.recv = uetp_srx_recv;
	uetp_srx_msg.recvv = uetp_srx_recvv;
	uetp_srx_msg.recvmsg = uetp_srx_recvmsg;
	uetp_srx_tagged = uetp_enosys_tagged;
	uetp_srx_tagged.recv = uetp_srx_trecv;
	uetp_srx_tagged.recvv = uetp_srx_trecvv;
	uetp_srx_tagged.recvmsg = uetp_srx_trecvmsg;
}

/* ---- fi_ops_ep, fi_ops ---- */

static ssize_t uetp_srx_cancel(fid_t fid, void *context)
{
	struct uetp_srx *srx = uet_container_of(fid, struct uetp_srx,
						 fid.fid);
	ssize_t ret = -FI_ENOENT;

	uetp_lock_acquire(&srx->lock);
	for (size_t i = 0; i < srx->nreqs; i++) {
		struct uetp_req *r = &srx->reqs[i];

		if (r->in_use && !r->claimed && r->context == context &&
		    !uet_rxq_cancel(srx->q, r)) {
			ret = 0;
			break;
		}
	}
	uetp_lock_release(&srx->lock);
	return ret;
}

static int uetp_srx_getopt(fid_t fid, int level, int optname, void *optval,
			   size_t *optlen)
{
	struct uetp_srx *srx = uet_container_of(fid, struct uetp_srx,
						 fid.fid);

	if (level != FI_OPT_ENDPOINT || optname != FI_OPT_MIN_MULTI_RECV)
		return -FI_ENOPROTOOPT;
	if (!optval || !optlen || *optlen < sizeof(size_t))
		return -FI_EINVAL;
	*(size_t *)optval = srx->min_multi_recv;
	*optlen = sizeof(size_t);
	return 0;
}

static int uetp_srx_setopt(fid_t fid, int level, int optname,
			   const void *optval, size_t optlen)
{
	struct uetp_srx *srx = uet_container_of(fid, struct uetp_srx,
						 fid.fid);

	if (level != FI_OPT_ENDPOINT || optname != FI_OPT_MIN_MULTI_RECV)
		return -FI_ENOPROTOOPT;
	if (!optval || optlen < sizeof(size_t))
		return -FI_EINVAL;
	srx->min_multi_recv = *(const size_t *)optval;
	return 0;
}

static ssize_t uetp_srx_rx_size_left(struct fid_ep *fid)
{
	struct uetp_srx *srx = uetp_srx_of(fid);
	size_t a, b = 0;

	uetp_lock_acquire(&srx->lock);
	a = uet_rxq_left(srx->q);
	for (struct uetp_req *r = srx->free; r; r = r->next)
		b++;
	uetp_lock_release(&srx->lock);
	return (ssize_t)(a < b ? a : b);
}

static ssize_t uetp_srx_tx_size_left(struct fid_ep *fid)
{
	(void)fid;
	return -FI_ENOSYS;	/* no transmit side */
}

static struct fi_ops_ep uetp_srx_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = uetp_srx_cancel,
	.getopt = uetp_srx_getopt,
	.setopt = uetp_srx_setopt,
	.tx_ctx = uetp_enosys_tx_ctx,
	.rx_ctx = uetp_enosys_rx_ctx,
	.rx_size_left = uetp_srx_rx_size_left,
	.tx_size_left = uetp_srx_tx_size_left,
};

static int uetp_srx_control(struct fid *fid, int command, void *arg)
{
	struct uetp_srx *srx = uet_container_of(fid, struct uetp_srx,
						 fid.fid);
	uint64_t *flags = arg;

	switch (command) {
	case FI_ENABLE:
		return 0;
	case FI_GETOPSFLAG:
	case FI_SETOPSFLAG:
		if (!flags || !(*flags & FI_RECV) || (*flags & FI_TRANSMIT))
			return -FI_EINVAL;
		if (command == FI_GETOPSFLAG)
			*flags = srx->op_flags;
		else
			srx->op_flags = *flags & ~(uint64_t)FI_RECV;
		return 0;
	}
	return -FI_ENOSYS;
}

static int uetp_srx_close(struct fid *fid)
{
	struct uetp_srx *srx = uet_container_of(fid, struct uetp_srx,
						 fid.fid);

	if (srx->neps)
		return -FI_EBUSY;
	/* nobody left to report to: posted receives just end */
	uet_rxq_flush(srx->q);
	uet_rxq_close(srx->q);
	atomic_fetch_sub(&srx->domain->ref, 1);
	uetp_lock_destroy(&srx->lock);
	free(srx->reqs);
	free(srx->eps);
	free(srx);
	return 0;
}

static struct fi_ops uetp_srx_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uetp_srx_close,
	.bind = uetp_enosys_bind,
	.control = uetp_srx_control,
	.ops_open = uetp_enosys_ops_open,
	.tostr = uetp_enosys_tostr,
	.ops_set = uetp_enosys_ops_set,
};

int uetp_srx_open(struct fid_domain *domain, struct fi_rx_attr *attr,
		  struct fid_ep **rx_ep, void *context)
{
	struct uetp_domain *dom = uet_container_of(domain, struct uetp_domain,
						    fid);
	const struct fi_rx_attr *dflt = dom->info->rx_attr;
	static const struct uet_callbacks cb = {
		.complete = uetp_srx_complete,
	};
	struct uetp_srx *srx;
	size_t size;
	int ret;

	if (!rx_ep)
		return -FI_EINVAL;
	if (attr && ((attr->caps & ~(uint64_t)UETP_RX_CAPS) ||
		     (attr->op_flags & ~(uint64_t)UETP_RX_OP_FLAGS) ||
		     attr->size > UETP_SIZE_MAX ||
		     attr->iov_limit > UETP_IOV_LIMIT ||
		     attr->total_buffered_recv))
		return -FI_EINVAL;
	pthread_once(&uetp_srx_once, uetp_srx_ops_init);
	srx = calloc(1, sizeof(*srx));
	if (!srx)
		return -FI_ENOMEM;
	srx->domain = dom;
	srx->caps = attr && attr->caps ? attr->caps : dflt->caps;
	srx->op_flags = attr ? attr->op_flags : dflt->op_flags;
	srx->iov_limit = attr && attr->iov_limit ? attr->iov_limit :
			 UETP_IOV_LIMIT;
	srx->min_multi_recv = UETP_INJECT_SIZE;
	size = attr && attr->size ? attr->size : uetp_env.rx_size;
	uetp_lock_init(&srx->lock, dom->locking);
	ret = uetp_errno(uet_rxq_open(&srx->q, (unsigned)size, &cb, srx));
	if (ret)
		goto err;
	/* a few spare for FI_PEEK|FI_CLAIM messages kept aside */
	srx->nreqs = size + 16;
	srx->reqs = calloc(srx->nreqs, sizeof(*srx->reqs));
	if (!srx->reqs) {
		ret = -FI_ENOMEM;
		goto err;
	}
	for (size_t i = 0; i < srx->nreqs; i++) {
		srx->reqs[i].type = UET_OP_RECV;
		srx->reqs[i].srx = srx;
		uetp_srx_req_free(srx, &srx->reqs[i]);
	}
	srx->fid.fid.fclass = FI_CLASS_SRX_CTX;
	srx->fid.fid.context = context;
	srx->fid.fid.ops = &uetp_srx_fi_ops;
	srx->fid.ops = &uetp_srx_ep_ops;
	srx->fid.cm = &uetp_enosys_cm;
	srx->fid.msg = &uetp_srx_msg;
	srx->fid.tagged = &uetp_srx_tagged;
	srx->fid.rma = &uetp_enosys_rma;
	srx->fid.atomic = &uetp_enosys_atomic;
	srx->fid.collective = &uetp_enosys_collective;
	atomic_fetch_add(&dom->ref, 1);
	*rx_ep = &srx->fid;
	return 0;
err:
	uet_rxq_close(srx->q);
	uetp_lock_destroy(&srx->lock);
	free(srx);
	return ret;
}

int uetp_srx_bind_ep(struct uetp_ep *ep, struct uetp_srx *srx)
{
	int ret;

	if (ep->srx || srx->domain != ep->domain || ep->sep || ep->base)
		return -FI_EINVAL;
	if (srx->neps == srx->cap) {
		size_t cap = srx->cap ? 2 * srx->cap : 8;
		struct uetp_ep **eps = realloc(srx->eps, cap * sizeof(*eps));

		if (!eps)
			return -FI_ENOMEM;
		srx->eps = eps;
		srx->cap = cap;
	}
	/* Not enabled yet: no traffic has reached the engine to lose. */
	uetp_lock_acquire(&srx->lock);
	ep->cfg.rxq = srx->q;
	ret = uetp_ep_engine_renew(ep);
	if (ret) {
		ep->cfg.rxq = NULL;
		uetp_lock_release(&srx->lock);
		return ret;
	}
	srx->eps[srx->neps++] = ep;
	ep->srx = srx;
	ep->lock.to = &srx->lock;
	uetp_lock_release(&srx->lock);
	return 0;
}

void uetp_srx_unbind_ep(struct uetp_ep *ep)
{
	struct uetp_srx *srx = ep->srx;

	if (!srx)
		return;
	for (size_t i = 0; i < srx->neps; i++) {
		if (srx->eps[i] != ep)
			continue;
		memmove(&srx->eps[i], &srx->eps[i + 1],
			(srx->neps - i - 1) * sizeof(*srx->eps));
		srx->neps--;
		break;
	}
	ep->srx = NULL;
}
