/* fi_ops_msg, and the one post path shared with fi_ops_tagged.
 *
 * Every operation carries a struct uetp_req as the engine's context: it
 * remembers the application's context, whether it wants a completion
 * (FI_SELECTIVE_COMPLETION / FI_COMPLETION, none for fi_inject), and the
 * CQ entry reserved for it. The engine is always asked to report success
 * too, because counters count every completed operation.
 *
 * -FI_EAGAIN is returned only after progress ran (libfabric-provider.md
 * §2.4: MPI retries without reading its CQ).
 */
#include <string.h>

#include "uetp.h"

static struct uetp_req *uetp_req_get(struct uetp_ep *ep, bool tx)
{
	struct uetp_req **list = tx ? &ep->tx_free : &ep->rx_free;
	struct uetp_req *r = *list;

	if (r) {
		*list = r->next;
		r->next = NULL;
	}
	return r;
}

static void uetp_req_put(struct uetp_ep *ep, struct uetp_req *r, bool tx)
{
	struct uetp_req **list = tx ? &ep->tx_free : &ep->rx_free;

	r->in_use = false;
	r->claimed = false;
	r->reserved = false;
	r->next = *list;
	*list = r;
}

static struct uetp_req *uetp_req_claimed(struct uetp_ep *ep, void *context)
{
	for (size_t i = 0; i < ep->nreqs; i++)
		if (ep->reqs[i].in_use && ep->reqs[i].claimed &&
		    ep->reqs[i].context == context)
			return &ep->reqs[i];
	return NULL;
}

size_t uetp_post_op_base(const struct uetp_post *p, struct uet_op *op,
			 struct uet_iov *iov)
{
	size_t total = 0;

	for (size_t i = 0; i < p->count; i++) {
		iov[i].base = p->iov[i].iov_base;
		iov[i].len = p->iov[i].iov_len;
		total += iov[i].len;
	}
	memset(op, 0, sizeof(*op));
	op->type = p->type;
	op->flags = UET_OPF_COMPLETION;
	op->iov = iov;
	op->iov_count = p->count;
	op->tag = p->tag;
	op->ignore = p->ignore;
	return total;
}

void uetp_post_rx_flags(uint64_t f, size_t min_multi_recv, struct uet_op *op)
{
	if (f & FI_MULTI_RECV) {
		op->flags |= UET_OPF_MULTI_RECV;
		op->min_multi_recv = min_multi_recv;
	}
	if (f & FI_PEEK)
		op->flags |= UET_OPF_PEEK;
	if (f & FI_CLAIM)
		op->flags |= UET_OPF_CLAIM;
	if (f & FI_DISCARD)
		op->flags |= UET_OPF_DISCARD;
}

static int uetp_post_op(struct uetp_ep *ep, const struct uetp_post *p,
			struct uet_op *op, struct uet_iov *iov, size_t *total)
{
	bool tx = p->type == UET_OP_SEND || p->type == UET_OP_TSEND;
	uint64_t f = p->flags;

	if (p->count > ep->iov_limit || (p->count && !p->iov))
		return -FI_EINVAL;
	*total = uetp_post_op_base(p, op, iov);
	if (tx) {
		if (f & FI_INJECT) {
			if (*total > ep->inject_size)
				return -FI_EMSGSIZE;
			op->flags |= UET_OPF_INJECT;
		}
		if (f & FI_REMOTE_CQ_DATA) {
			op->flags |= UET_OPF_CQ_DATA;
			op->cq_data = p->data;
		}
		if (f & FI_DELIVERY_COMPLETE)
			op->flags |= UET_OPF_DELIVERY;
		if (!ep->av || uetp_av_get(ep->av, p->addr, &op->peer))
			return -FI_EINVAL;
		/* fi_rx_addr: a scalable peer's receive context */
		op->rx_ctx = uetp_av_rx_ctx(ep->av, p->addr);
		return 0;
	}
	op->rx_ctx = ep->rx_index;
	uetp_post_rx_flags(f, ep->min_multi_recv, op);
	/* fi_msg.3: src_addr counts only with FI_DIRECTED_RECV */
	if (!(ep->caps & FI_DIRECTED_RECV) || p->addr == FI_ADDR_UNSPEC) {
		op->flags |= UET_OPF_PEER_ANY;
	} else if (!ep->av || uetp_av_get(ep->av, p->addr, &op->peer)) {
		return -FI_EINVAL;
	}
	return 0;
}

ssize_t uetp_msg_post(struct uetp_ep *ep, const struct uetp_post *p)
{
	bool tx = p->type == UET_OP_SEND || p->type == UET_OP_TSEND;
	struct uet_iov iov[UETP_IOV_LIMIT];
	struct uetp_req *req = NULL;
	/* FI_CLAIM alone takes what an earlier FI_PEEK|FI_CLAIM reserved */
	bool claim = !tx && (p->flags & FI_CLAIM) && !(p->flags & FI_PEEK);
	struct uet_op op;
	size_t total;
	uet_time now;
	int ret;

	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	if (p->flags & FI_TRIGGER)
		return uetp_trigger_msg(ep, p);
	ret = uetp_post_op(ep, p, &op, iov, &total);
	if (ret)
		return ret;

	uetp_lock_acquire(&ep->lock);
	/* A probe answers at once, and a CQ read that finds its answer runs
	 * no progress (uetp_cq.c): receive what has arrived first, or a
	 * probe loop would never see the message. */
	if (p->flags & FI_PEEK)
		uetp_progress_ep(ep);
	if (claim) {
		req = uetp_req_claimed(ep, p->context);
		if (!req) {
			uetp_lock_release(&ep->lock);
			return -FI_EINVAL;	/* nothing was peeked+claimed */
		}
		req->claimed = false;
	} else {
		req = uetp_req_get(ep, tx);
		if (!req) {
			uetp_progress_ep(ep);
			req = uetp_req_get(ep, tx);
		}
		if (!req) {
			uetp_lock_release(&ep->lock);
			return -FI_EAGAIN;
		}
	}
	req->in_use = true;
	req->context = p->context;
	req->type = p->type;
	req->flags = p->flags;
	req->peek = !!(p->flags & FI_PEEK);
	req->cq = tx ? ep->tx_cq : ep->rx_cq;
	req->cntr = tx ? ep->tx_cntr : ep->rx_cntr;
	/* a peek always answers (fi_tagged.3); fi_inject never does */
	req->want_comp = !(p->flags & UETP_INJECT_OP) &&
			 (!(tx ? ep->tx_selective : ep->rx_selective) ||
			  (p->flags & (FI_COMPLETION | FI_PEEK)));
	req->reserved = false;
	if (req->cq) {
		if (uetp_cq_reserve(req->cq)) {
			ret = -FI_EAGAIN;
			goto fail;
		}
		req->reserved = true;
	}
	op.context = req;

	now = uetp_now();
	ret = uet_fep_post(ep->fep, &op, now);
	if (ret == UET_ERR_AGAIN) {
		uetp_progress_ep(ep);
		now = uetp_now();
		ret = uet_fep_post(ep->fep, &op, now);
	}
	if (ret) {
		if (req->reserved)
			uetp_cq_unreserve(req->cq);
		ret = uetp_errno(ret);
		goto fail;
	}
	/* send now rather than at the next progress call */
	uetp_progress_flush(ep, now);
	if (ep->domain->prog)
		uetp_progress_kick(ep->domain, uetp_progress_deadline(ep));
	uetp_lock_release(&ep->lock);
	return 0;
fail:
	if (claim) {
		req->claimed = true;	/* still waiting for its FI_CLAIM */
		req->reserved = false;
	} else {
		uetp_req_put(ep, req, tx);
	}
	uetp_lock_release(&ep->lock);
	return ret;
}

/* ---- fi_ops_msg ---- */

static ssize_t uetp_recvmsg(struct fid_ep *ep_fid, const struct fi_msg *msg,
			    uint64_t flags)
{
	struct uetp_ep *ep = uetp_container_of(ep_fid, struct uetp_ep, fid);
	struct uetp_post p = {
		.type = UET_OP_RECV,
		.iov = msg->msg_iov,
		.count = msg->iov_count,
		.addr = msg->addr,
		.context = msg->context,
		.flags = flags,
	};

	return uetp_msg_post(ep, &p);
}

static ssize_t uetp_recvv(struct fid_ep *ep_fid, const struct iovec *iov,
			  void **desc, size_t count, fi_addr_t src_addr,
			  void *context)
{
	struct uetp_ep *ep = uetp_container_of(ep_fid, struct uetp_ep, fid);
	struct uetp_post p = {
		.type = UET_OP_RECV,
		.iov = iov,
		.count = count,
		.addr = src_addr,
		.context = context,
		.flags = ep->rx_op_flags,
	};

	(void)desc;
	return uetp_msg_post(ep, &p);
}

static ssize_t uetp_recv(struct fid_ep *ep_fid, void *buf, size_t len,
			 void *desc, fi_addr_t src_addr, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return uetp_recvv(ep_fid, &iov, &desc, 1, src_addr, context);
}

static ssize_t uetp_sendmsg(struct fid_ep *ep_fid, const struct fi_msg *msg,
			    uint64_t flags)
{
	struct uetp_ep *ep = uetp_container_of(ep_fid, struct uetp_ep, fid);
	struct uetp_post p = {
		.type = UET_OP_SEND,
		.iov = msg->msg_iov,
		.count = msg->iov_count,
		.addr = msg->addr,
		.data = msg->data,
		.context = msg->context,
		.flags = flags & ~UETP_INJECT_OP,
	};

	return uetp_msg_post(ep, &p);
}

static ssize_t uetp_send_common(struct fid_ep *ep_fid, const void *buf,
				size_t len, uint64_t data, fi_addr_t dest,
				void *context, uint64_t flags)
{
	struct uetp_ep *ep = uetp_container_of(ep_fid, struct uetp_ep, fid);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct uetp_post p = {
		.type = UET_OP_SEND,
		.iov = &iov,
		.count = 1,
		.addr = dest,
		.data = data,
		.context = context,
		.flags = flags,
	};

	return uetp_msg_post(ep, &p);
}

static ssize_t uetp_sendv(struct fid_ep *ep_fid, const struct iovec *iov,
			  void **desc, size_t count, fi_addr_t dest_addr,
			  void *context)
{
	struct uetp_ep *ep = uetp_container_of(ep_fid, struct uetp_ep, fid);
	struct uetp_post p = {
		.type = UET_OP_SEND,
		.iov = iov,
		.count = count,
		.addr = dest_addr,
		.context = context,
		.flags = ep->tx_op_flags,
	};

	(void)desc;
	return uetp_msg_post(ep, &p);
}

static ssize_t uetp_send(struct fid_ep *ep_fid, const void *buf, size_t len,
			 void *desc, fi_addr_t dest_addr, void *context)
{
	struct uetp_ep *ep = uetp_container_of(ep_fid, struct uetp_ep, fid);

	(void)desc;
	return uetp_send_common(ep_fid, buf, len, 0, dest_addr, context,
				ep->tx_op_flags);
}

static ssize_t uetp_inject(struct fid_ep *ep_fid, const void *buf, size_t len,
			   fi_addr_t dest_addr)
{
	return uetp_send_common(ep_fid, buf, len, 0, dest_addr, NULL,
				FI_INJECT | UETP_INJECT_OP);
}

static ssize_t uetp_senddata(struct fid_ep *ep_fid, const void *buf,
			     size_t len, void *desc, uint64_t data,
			     fi_addr_t dest_addr, void *context)
{
	struct uetp_ep *ep = uetp_container_of(ep_fid, struct uetp_ep, fid);

	(void)desc;
	return uetp_send_common(ep_fid, buf, len, data, dest_addr, context,
				ep->tx_op_flags | FI_REMOTE_CQ_DATA);
}

static ssize_t uetp_injectdata(struct fid_ep *ep_fid, const void *buf,
			       size_t len, uint64_t data, fi_addr_t dest_addr)
{
	return uetp_send_common(ep_fid, buf, len, data, dest_addr, NULL,
				FI_INJECT | FI_REMOTE_CQ_DATA |
				UETP_INJECT_OP);
}

struct fi_ops_msg uetp_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = uetp_recv,
	.recvv = uetp_recvv,
	.recvmsg = uetp_recvmsg,
	.send = uetp_send,
	.sendv = uetp_sendv,
	.sendmsg = uetp_sendmsg,
	.inject = uetp_inject,
	.senddata = uetp_senddata,
	.injectdata = uetp_injectdata,
};
