/* fi_ops_msg, and the one post path: fi_ops_tagged, fi_ops_rma and
 * fi_ops_atomic end in it too, with only their own checks and op fields
 * in their files.
 *
 * Every operation carries a struct uetp_req as the engine's context: it
 * remembers the application's context, whether it wants a completion
 * (FI_SELECTIVE_COMPLETION / FI_COMPLETION, none for fi_inject), and the
 * CQ entry reserved for it. The engine is always asked to report success
 * too, because counters count every completed operation.
 *
 * -FI_EAGAIN is returned only after progress ran (docs/architecture.md
 * §8.7: MPI retries without reading its CQ).
 */
#include <string.h>

#include "uetp.h"

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

uint32_t uetp_post_tx_opf(uint64_t flags)
{
	uint32_t f = UET_OPF_COMPLETION;

	if (flags & FI_INJECT)
		f |= UET_OPF_INJECT;
	if (flags & FI_REMOTE_CQ_DATA)
		f |= UET_OPF_CQ_DATA;
	if (flags & FI_DELIVERY_COMPLETE)
		f |= UET_OPF_DELIVERY;
	if (flags & FI_FENCE)
		f |= UET_OPF_FENCE;
	return f;
}

int uetp_post_peer(struct uetp_ep *ep, fi_addr_t addr, struct uet_op *op)
{
	return !ep->av || uetp_av_get(ep->av, addr, &op->peer) ?
	       -FI_EINVAL : 0;
}

int uetp_post_tx_op(struct uetp_ep *ep, const struct uetp_post *p,
		    struct uet_op *op, struct uet_iov *iov, size_t *total)
{
	if (p->count > ep->iov_limit || (p->count && !p->iov))
		return -FI_EINVAL;
	*total = uetp_post_op_base(p, op, iov);
	if ((p->flags & FI_INJECT) && *total > ep->inject_size)
		return -FI_EMSGSIZE;
	op->flags = uetp_post_tx_opf(p->flags);
	op->cq_data = p->data;
	return uetp_post_peer(ep, p->addr, op);
}

static int uetp_post_rx_op(struct uetp_ep *ep, const struct uetp_post *p,
			   struct uet_op *op, struct uet_iov *iov)
{
	if (p->count > ep->iov_limit || (p->count && !p->iov))
		return -FI_EINVAL;
	(void)uetp_post_op_base(p, op, iov);
	op->rx_ctx = ep->rx_index;
	uetp_post_rx_flags(p->flags, ep->min_multi_recv, op);
	/* fi_msg.3: src_addr counts only with FI_DIRECTED_RECV */
	if (!(ep->caps & FI_DIRECTED_RECV) || p->addr == FI_ADDR_UNSPEC) {
		op->flags |= UET_OPF_PEER_ANY;
		return 0;
	}
	return uetp_post_peer(ep, p->addr, op);
}

/* The bytes an operation moves from or to its local buffers. */
static size_t uetp_op_len(const struct uet_op *op)
{
	size_t len = 0;

	for (size_t i = 0; i < op->iov_count; i++)
		len += op->iov[i].len;
	return len;
}

/* The counter an operation counts in (fi_endpoint.3: FI_WRITE counts
 * writes and base atomics, FI_READ reads, fetching and compare atomics). */
static struct uetp_cntr *uetp_post_cntr(const struct uetp_ep *ep,
					uint8_t type)
{
	switch (type) {
	case UET_OP_SEND:
	case UET_OP_TSEND:
		return ep->tx_cntr;
	case UET_OP_RECV:
	case UET_OP_TRECV:
		return ep->rx_cntr;
	case UET_OP_WRITE:
	case UET_OP_ATOMIC:
		return ep->wr_cntr;
	default:
		return ep->rd_cntr;
	}
}

/* The request of a post: a free one, or for FI_CLAIM alone the one an
 * earlier FI_PEEK|FI_CLAIM reserved. ep->lock held. */
static ssize_t uetp_post_req(struct uetp_ep *ep, bool tx, bool claim,
			     void *context, struct uetp_req **reqp)
{
	struct uetp_req *req;

	if (claim) {
		req = uetp_req_claimed(ep, context);
		if (!req)
			return -FI_EINVAL;	/* nothing was peeked+claimed */
		req->claimed = false;
	} else {
		req = uetp_ep_req_get(ep, tx);
		if (!req) {
			uetp_progress_ep(ep);
			req = uetp_ep_req_get(ep, tx);
		}
		if (!req)
			return -FI_EAGAIN;
	}
	*reqp = req;
	return 0;
}

ssize_t uetp_post_submit(struct uetp_ep *ep, struct uet_op *op,
			 uint64_t flags, void *context, uint8_t amo_kind)
{
	bool tx = uetp_op_is_tx(op->type);
	bool claim = !tx && (flags & FI_CLAIM) && !(flags & FI_PEEK);
	struct uetp_req *req;
	uet_time now;
	ssize_t ret;

	uetp_lock_acquire(&ep->lock);
	/* A probe answers at once, and a CQ read that finds its answer runs
	 * no progress (uetp_cq.c): receive what has arrived first, or a
	 * probe loop would never see the message. */
	if (flags & FI_PEEK)
		uetp_progress_ep(ep);
	ret = uetp_post_req(ep, tx, claim, context, &req);
	if (ret) {
		uetp_lock_release(&ep->lock);
		return ret;
	}
	req->in_use = true;
	req->context = context;
	req->type = op->type;
	req->amo_kind = amo_kind;
	req->flags = flags;
	req->peek = !!(flags & FI_PEEK);
	req->cq = tx ? ep->tx_cq : ep->rx_cq;
	req->cntr = uetp_post_cntr(ep, op->type);
	/* a peek always answers (fi_tagged.3); fi_inject never does */
	req->want_comp = !(flags & UETP_INJECT_OP) &&
			 (!(tx ? ep->tx_selective : ep->rx_selective) ||
			  (flags & (FI_COMPLETION | FI_PEEK)));
	req->reserved = false;
	if (req->cq) {
		if (uetp_cq_reserve(req->cq)) {
			ret = -FI_EAGAIN;
			goto fail;
		}
		req->reserved = true;
	}
	op->context = req;

	now = uetp_now();
	ret = uet_fep_post(ep->fep, op, now);
	if (ret == UET_ERR_AGAIN) {
		uetp_progress_ep(ep);
		now = uetp_now();
		ret = uet_fep_post(ep->fep, op, now);
	}
	if (ret) {
		if (req->reserved)
			uetp_cq_unreserve(req->cq);
		ret = uetp_errno((int)ret);
		goto fail;
	}
	if (tx)
		uetp_progress_posted(ep, uetp_op_len(op), flags, now);
	else	/* a receive may start a rendezvous read: send it now */
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
		uetp_ep_req_put(ep, req);
	}
	uetp_lock_release(&ep->lock);
	return ret;
}

ssize_t uetp_msg_post(struct uetp_ep *ep, const struct uetp_post *p)
{
	struct uet_iov iov[UETP_IOV_LIMIT];
	struct uet_op op;
	size_t total;
	int ret;

	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	if (p->flags & FI_TRIGGER)
		return uetp_trigger_msg(ep, p);
	ret = uetp_op_is_tx(p->type) ?
	      uetp_post_tx_op(ep, p, &op, iov, &total) :
	      uetp_post_rx_op(ep, p, &op, iov);
	if (ret)
		return ret;
	/* fi_rx_addr: a scalable peer's receive context */
	if (uetp_op_is_tx(p->type))
		op.rx_ctx = uetp_av_rx_ctx(ep->av, p->addr);
	return uetp_post_submit(ep, &op, p->flags, p->context, UETP_AMO_NONE);
}

/* ---- fi_ops_msg ---- */

static ssize_t uetp_recvmsg(struct fid_ep *ep_fid, const struct fi_msg *msg,
			    uint64_t flags)
{
	struct uetp_ep *ep = uetp_alias_target(ep_fid);
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
	struct uetp_ep *ep = uetp_alias_target(ep_fid);
	struct uetp_post p = {
		.type = UET_OP_RECV,
		.iov = iov,
		.count = count,
		.addr = src_addr,
		.context = context,
		.flags = uetp_alias_rx_flags(ep_fid),
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
	struct uetp_ep *ep = uetp_alias_target(ep_fid);
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
	struct uetp_ep *ep = uetp_alias_target(ep_fid);
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
	struct uetp_ep *ep = uetp_alias_target(ep_fid);
	struct uetp_post p = {
		.type = UET_OP_SEND,
		.iov = iov,
		.count = count,
		.addr = dest_addr,
		.context = context,
		.flags = uetp_alias_tx_flags(ep_fid),
	};

	(void)desc;
	return uetp_msg_post(ep, &p);
}

static ssize_t uetp_send(struct fid_ep *ep_fid, const void *buf, size_t len,
			 void *desc, fi_addr_t dest_addr, void *context)
{
	(void)desc;
	return uetp_send_common(ep_fid, buf, len, 0, dest_addr, context,
				uetp_alias_tx_flags(ep_fid));
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
	(void)desc;
	return uetp_send_common(ep_fid, buf, len, data, dest_addr, context,
				uetp_alias_tx_flags(ep_fid) |
				FI_REMOTE_CQ_DATA);
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
