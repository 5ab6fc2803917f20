/* fi_ops_rma: writes and reads against a peer's memory region, and the
 * post path shared with atomics (uetp_atomic.c).
 *
 * Each call becomes one engine op: UET_OP_WRITE (SES WRITE requests, the
 * mem_key in the key field, the remote address in buffer_offset) or
 * UET_OP_READ (READ requests answered with the data). The target's
 * checks - key, bounds, permission - come back as SES return codes and
 * surface as CQ error entries with prov_errno = the return code
 * (RC_BAD_MKEY, RC_BAD_ADDR, RC_PERM_VIOLATION, ...).
 *
 * Completion levels: the engine completes an op when every response is
 * in, i.e. the data reached the target SES (FI_TRANSMIT_COMPLETE, which
 * also satisfies FI_INJECT_COMPLETE); FI_DELIVERY_COMPLETE sets the SES
 * dc flag so the target answers only once the data is placed. A write
 * with FI_REMOTE_CQ_DATA carries the data in the SES header and makes a
 * receive-CQ entry at the target.
 */
#include <string.h>

#include "uet/err.h"
#include "uetp.h"

/* What a one-sided op may be asked for (fi_rma.3, fi_atomic.3). */
#define UETP_RMA_FLAGS	(FI_COMPLETION | FI_MORE | FI_INJECT | \
			 FI_INJECT_COMPLETE | FI_TRANSMIT_COMPLETE | \
			 FI_DELIVERY_COMPLETE | FI_REMOTE_CQ_DATA | \
			 FI_FENCE | UETP_INJECT_OP)

uint32_t uetp_rma_opf(uint64_t flags)
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

ssize_t uetp_rma_submit(struct uetp_ep *ep, struct uet_op *op,
			uint64_t flags, void *context, uint8_t amo_kind)
{
	struct uetp_req *req;
	uet_time now;
	int ret;

	if (flags & ~(uint64_t)UETP_RMA_FLAGS)
		return -FI_EBADFLAGS;
	uetp_lock_acquire(&ep->lock);
	req = uetp_ep_req_tx(ep);
	if (!req) {
		uetp_progress_ep(ep);
		req = uetp_ep_req_tx(ep);
	}
	if (!req) {
		uetp_lock_release(&ep->lock);
		return -FI_EAGAIN;
	}
	req->in_use = true;
	req->context = context;
	req->type = op->type;
	req->amo_kind = amo_kind;
	req->flags = flags;
	req->peek = false;
	req->claimed = false;
	req->cq = ep->tx_cq;
	/* fi_endpoint.3: FI_WRITE counts writes and base atomics, FI_READ
	 * reads, fetching and compare atomics */
	req->cntr = (op->type == UET_OP_WRITE || op->type == UET_OP_ATOMIC) ?
		    ep->wr_cntr : ep->rd_cntr;
	/* fi_inject_write / fi_inject_atomic never complete */
	req->want_comp = !(flags & UETP_INJECT_OP) &&
			 (!ep->tx_selective || (flags & FI_COMPLETION));
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
		ret = uetp_errno(ret);
		goto fail;
	}
	uetp_progress_flush(ep, now);
	if (ep->domain->prog)
		uetp_progress_kick(ep->domain, uetp_progress_deadline(ep));
	uetp_lock_release(&ep->lock);
	return 0;
fail:
	uetp_ep_req_put(ep, req);
	uetp_lock_release(&ep->lock);
	return ret;
}

/* One RMA call, as the *msg variants see it. */
struct uetp_rma_args {
	uint8_t type;			/* UET_OP_WRITE or UET_OP_READ */
	const struct iovec *iov;
	size_t count;
	fi_addr_t addr;
	uint64_t raddr, rlen, key;
	uint64_t data;
	void *context;
	uint64_t flags;
};

static ssize_t uetp_rma_post(struct uetp_ep *ep, const struct uetp_rma_args *a)
{
	struct uet_iov iov[UETP_IOV_LIMIT];
	struct uet_op op;
	size_t total = 0;

	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	if (a->flags & FI_TRIGGER) {
		struct fi_rma_iov riov = {
			.addr = a->raddr, .len = a->rlen, .key = a->key,
		};
		struct fi_msg_rma m = {
			.msg_iov = a->iov, .iov_count = a->count,
			.addr = a->addr, .rma_iov = &riov, .rma_iov_count = 1,
			.context = a->context, .data = a->data,
		};

		return uetp_trigger_rma(ep, a->type, &m, a->flags);
	}
	if (a->count > ep->iov_limit || (a->count && !a->iov))
		return -FI_EINVAL;
	for (size_t i = 0; i < a->count; i++) {
		iov[i].base = a->iov[i].iov_base;
		iov[i].len = a->iov[i].iov_len;
		total += iov[i].len;
	}
	if (total > UETP_MAX_MSG_SIZE)
		return -FI_EMSGSIZE;
	if (a->rlen != total)
		return -FI_EINVAL;	/* local and remote lengths differ */
	if (a->type == UET_OP_READ &&
	    (a->flags & (FI_INJECT | FI_REMOTE_CQ_DATA)))
		return -FI_EINVAL;	/* a read has nothing to inject */
	if ((a->flags & FI_INJECT) && total > ep->inject_size)
		return -FI_EMSGSIZE;
	if (a->flags & FI_COMMIT_COMPLETE)
		return -FI_EBADFLAGS;	/* no persistent memory */
	memset(&op, 0, sizeof(op));
	op.type = a->type;
	op.flags = uetp_rma_opf(a->flags);
	op.iov = iov;
	op.iov_count = a->count;
	op.cq_data = a->data;
	op.rkey = a->key;
	op.raddr = a->raddr;
	if (!ep->av || uetp_av_get(ep->av, a->addr, &op.peer))
		return -FI_EINVAL;
	return uetp_rma_submit(ep, &op, a->flags, a->context, UETP_AMO_NONE);
}

static ssize_t uetp_rma_msg(struct fid_ep *ep_fid, const struct fi_msg_rma *msg,
			    uint64_t flags, uint8_t type)
{
	struct uetp_ep *ep = uetp_container_of(ep_fid, struct uetp_ep, fid);
	struct uetp_rma_args a = {
		.type = type,
		.flags = flags & ~UETP_INJECT_OP,
	};

	if (!msg || msg->rma_iov_count != UETP_RMA_IOV_LIMIT ||
	    !msg->rma_iov)
		return -FI_EINVAL;
	a.iov = msg->msg_iov;
	a.count = msg->iov_count;
	a.addr = msg->addr;
	a.raddr = msg->rma_iov[0].addr;
	a.rlen = msg->rma_iov[0].len;
	a.key = msg->rma_iov[0].key;
	a.data = msg->data;
	a.context = msg->context;
	return uetp_rma_post(ep, &a);
}

static ssize_t uetp_rma_vec(struct fid_ep *ep_fid, uint8_t type,
			    const struct iovec *iov, size_t count,
			    fi_addr_t addr, uint64_t raddr, uint64_t key,
			    uint64_t data, void *context, uint64_t flags)
{
	struct uetp_ep *ep = uetp_container_of(ep_fid, struct uetp_ep, fid);
	struct uetp_rma_args a = {
		.type = type,
		.iov = iov,
		.count = count,
		.addr = addr,
		.raddr = raddr,
		.key = key,
		.data = data,
		.context = context,
		.flags = flags,
	};

	for (size_t i = 0; iov && i < count; i++)
		a.rlen += iov[i].iov_len;
	return uetp_rma_post(ep, &a);
}

static uint64_t uetp_rma_tx_flags(struct fid_ep *ep_fid)
{
	return uetp_container_of(ep_fid, struct uetp_ep, fid)->tx_op_flags;
}

/* ---- reads ---- */

static ssize_t uetp_rma_readmsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
				uint64_t flags)
{
	return uetp_rma_msg(ep, msg, flags, UET_OP_READ);
}

static ssize_t uetp_rma_readv(struct fid_ep *ep, const struct iovec *iov,
			      void **desc, size_t count, fi_addr_t src_addr,
			      uint64_t addr, uint64_t key, void *context)
{
	(void)desc;
	return uetp_rma_vec(ep, UET_OP_READ, iov, count, src_addr, addr, key,
			    0, context, uetp_rma_tx_flags(ep) &
			    ~(uint64_t)(FI_INJECT | FI_REMOTE_CQ_DATA));
}

static ssize_t uetp_rma_read(struct fid_ep *ep, void *buf, size_t len,
			     void *desc, fi_addr_t src_addr, uint64_t addr,
			     uint64_t key, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return uetp_rma_readv(ep, &iov, &desc, 1, src_addr, addr, key,
			      context);
}

/* ---- writes ---- */

static ssize_t uetp_rma_writemsg(struct fid_ep *ep,
				 const struct fi_msg_rma *msg, uint64_t flags)
{
	return uetp_rma_msg(ep, msg, flags, UET_OP_WRITE);
}

static ssize_t uetp_rma_writev(struct fid_ep *ep, const struct iovec *iov,
			       void **desc, size_t count, fi_addr_t dest_addr,
			       uint64_t addr, uint64_t key, void *context)
{
	(void)desc;
	return uetp_rma_vec(ep, UET_OP_WRITE, iov, count, dest_addr, addr, key,
			    0, context, uetp_rma_tx_flags(ep));
}

static ssize_t uetp_rma_write(struct fid_ep *ep, const void *buf, size_t len,
			      void *desc, fi_addr_t dest_addr, uint64_t addr,
			      uint64_t key, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return uetp_rma_writev(ep, &iov, &desc, 1, dest_addr, addr, key,
			       context);
}

static ssize_t uetp_rma_inject(struct fid_ep *ep, const void *buf, size_t len,
			       fi_addr_t dest_addr, uint64_t addr, uint64_t key)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return uetp_rma_vec(ep, UET_OP_WRITE, &iov, 1, dest_addr, addr, key, 0,
			    NULL, FI_INJECT | UETP_INJECT_OP);
}

static ssize_t uetp_rma_writedata(struct fid_ep *ep, const void *buf,
				  size_t len, void *desc, uint64_t data,
				  fi_addr_t dest_addr, uint64_t addr,
				  uint64_t key, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)desc;
	return uetp_rma_vec(ep, UET_OP_WRITE, &iov, 1, dest_addr, addr, key,
			    data, context,
			    uetp_rma_tx_flags(ep) | FI_REMOTE_CQ_DATA);
}

static ssize_t uetp_rma_injectdata(struct fid_ep *ep, const void *buf,
				   size_t len, uint64_t data,
				   fi_addr_t dest_addr, uint64_t addr,
				   uint64_t key)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return uetp_rma_vec(ep, UET_OP_WRITE, &iov, 1, dest_addr, addr, key,
			    data, NULL,
			    FI_INJECT | FI_REMOTE_CQ_DATA | UETP_INJECT_OP);
}

struct fi_ops_rma uetp_rma_ops = {
	.size = sizeof(struct fi_ops_rma),
	.read = uetp_rma_read,
	.readv = uetp_rma_readv,
	.readmsg = uetp_rma_readmsg,
	.write = uetp_rma_write,
	.writev = uetp_rma_writev,
	.writemsg = uetp_rma_writemsg,
	.inject = uetp_rma_inject,
	.writedata = uetp_rma_writedata,
	.injectdata = uetp_rma_injectdata,
};
