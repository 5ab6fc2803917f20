/* fi_ops_rma: writes and reads against a peer's memory region: what a
 * one-sided post adds to the one post path (uetp_msg.c), for RMA here
 * and for atomics (uetp_atomic.c).
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
#include "uetp.h"

/* What a one-sided op may be asked for (fi_rma.3, fi_atomic.3). */
#define UETP_RMA_FLAGS	(FI_COMPLETION | FI_MORE | FI_INJECT | \
			 FI_INJECT_COMPLETE | FI_TRANSMIT_COMPLETE | \
			 FI_DELIVERY_COMPLETE | FI_REMOTE_CQ_DATA | \
			 FI_FENCE | UETP_INJECT_OP)

ssize_t uetp_rma_submit(struct uetp_ep *ep, struct uet_op *op,
			uint64_t flags, void *context, uint8_t amo_kind)
{
	if (flags & ~(uint64_t)UETP_RMA_FLAGS)
		return -FI_EBADFLAGS;
	return uetp_post_submit(ep, op, flags, context, amo_kind);
}

/* One RMA call, as the *msg variants see it: the post and the target
 * region. */
struct uetp_rma_args {
	struct uetp_post post;		/* type UET_OP_WRITE or UET_OP_READ */
	uint64_t raddr, rlen, key;
};

static ssize_t uetp_rma_post(struct uetp_ep *ep, const struct uetp_rma_args *a)
{
	const struct uetp_post *p = &a->post;
	struct uet_iov iov[UETP_IOV_LIMIT];
	struct uet_op op;
	size_t total;
	int ret;

	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	if (p->flags & FI_TRIGGER) {
		struct fi_rma_iov riov = {
			.addr = a->raddr, .len = a->rlen, .key = a->key,
		};
		struct fi_msg_rma m = {
			.msg_iov = p->iov, .iov_count = p->count,
			.addr = p->addr, .rma_iov = &riov, .rma_iov_count = 1,
			.context = p->context, .data = p->data,
		};

		return uetp_trigger_rma(ep, p->type, &m, p->flags);
	}
	if (p->type == UET_OP_READ &&
	    (p->flags & (FI_INJECT | FI_REMOTE_CQ_DATA)))
		return -FI_EINVAL;	/* a read has nothing to inject */
	if (p->flags & FI_COMMIT_COMPLETE)
		return -FI_EBADFLAGS;	/* no persistent memory */
	ret = uetp_post_tx_op(ep, p, &op, iov, &total);
	if (ret)
		return ret;
	if (total > UETP_MAX_MSG_SIZE)
		return -FI_EMSGSIZE;
	if (a->rlen != total)
		return -FI_EINVAL;	/* local and remote lengths differ */
	op.rkey = a->key;
	op.raddr = a->raddr;
	return uetp_rma_submit(ep, &op, p->flags, p->context, UETP_AMO_NONE);
}

static ssize_t uetp_rma_msg(struct fid_ep *ep_fid, const struct fi_msg_rma *msg,
			    uint64_t flags, uint8_t type)
{
	struct uetp_ep *ep = uetp_alias_target(ep_fid);
	struct uetp_rma_args a;

	if (!msg || msg->rma_iov_count != UETP_RMA_IOV_LIMIT ||
	    !msg->rma_iov)
		return -FI_EINVAL;
	a = (struct uetp_rma_args){
		.post = {
			.type = type,
			.iov = msg->msg_iov,
			.count = msg->iov_count,
			.addr = msg->addr,
			.data = msg->data,
			.context = msg->context,
			.flags = flags & ~UETP_INJECT_OP,
		},
		.raddr = msg->rma_iov[0].addr,
		.rlen = msg->rma_iov[0].len,
		.key = msg->rma_iov[0].key,
	};
	return uetp_rma_post(ep, &a);
}

static ssize_t uetp_rma_vec(struct fid_ep *ep_fid, uint8_t type,
			    const struct iovec *iov, size_t count,
			    fi_addr_t addr, uint64_t raddr, uint64_t key,
			    uint64_t data, void *context, uint64_t flags)
{
	struct uetp_ep *ep = uetp_alias_target(ep_fid);
	struct uetp_rma_args a = {
		.post = {
			.type = type,
			.iov = iov,
			.count = count,
			.addr = addr,
			.data = data,
			.context = context,
			.flags = flags,
		},
		.raddr = raddr,
		.key = key,
	};

	for (size_t i = 0; iov && i < count; i++)
		a.rlen += iov[i].iov_len;
	return uetp_rma_post(ep, &a);
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
			    0, context, uetp_alias_tx_flags(ep) &
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
			    0, context, uetp_alias_tx_flags(ep));
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
			    uetp_alias_tx_flags(ep) | FI_REMOTE_CQ_DATA);
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
