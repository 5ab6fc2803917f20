/* fi_ops_tagged over the common post path (uetp_msg.c). Tags are 64-bit
 * match bits; ignore bits are honoured by the engine's matcher; FI_PEEK,
 * FI_CLAIM and FI_DISCARD go through fi_trecvmsg. */
#include "uetp.h"

static ssize_t uetp_trecvmsg(struct fid_ep *ep_fid,
			     const struct fi_msg_tagged *msg, uint64_t flags)
{
	struct uetp_ep *ep = uetp_alias_target(ep_fid);
	struct uetp_post p = {
		.type = UET_OP_TRECV,
		.iov = msg->msg_iov,
		.count = msg->iov_count,
		.addr = msg->addr,
		.tag = msg->tag,
		.ignore = msg->ignore,
		.context = msg->context,
		.flags = flags & ~UETP_INJECT_OP,
	};

	return uetp_msg_post(ep, &p);
}

static ssize_t uetp_trecvv(struct fid_ep *ep_fid, const struct iovec *iov,
			   void **desc, size_t count, fi_addr_t src_addr,
			   uint64_t tag, uint64_t ignore, void *context)
{
	struct uetp_ep *ep = uetp_alias_target(ep_fid);
	struct uetp_post p = {
		.type = UET_OP_TRECV,
		.iov = iov,
		.count = count,
		.addr = src_addr,
		.tag = tag,
		.ignore = ignore,
		.context = context,
		.flags = uetp_alias_rx_flags(ep_fid),
	};

	(void)desc;
	return uetp_msg_post(ep, &p);
}

static ssize_t uetp_trecv(struct fid_ep *ep_fid, void *buf, size_t len,
			  void *desc, fi_addr_t src_addr, uint64_t tag,
			  uint64_t ignore, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return uetp_trecvv(ep_fid, &iov, &desc, 1, src_addr, tag, ignore,
			   context);
}

static ssize_t uetp_tsendmsg(struct fid_ep *ep_fid,
			     const struct fi_msg_tagged *msg, uint64_t flags)
{
	struct uetp_ep *ep = uetp_alias_target(ep_fid);
	struct uetp_post p = {
		.type = UET_OP_TSEND,
		.iov = msg->msg_iov,
		.count = msg->iov_count,
		.addr = msg->addr,
		.tag = msg->tag,
		.data = msg->data,
		.context = msg->context,
		.flags = flags & ~UETP_INJECT_OP,
	};

	return uetp_msg_post(ep, &p);
}

static ssize_t uetp_tsend_common(struct fid_ep *ep_fid, const void *buf,
				 size_t len, uint64_t data, fi_addr_t dest,
				 uint64_t tag, void *context, uint64_t flags)
{
	struct uetp_ep *ep = uetp_alias_target(ep_fid);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct uetp_post p = {
		.type = UET_OP_TSEND,
		.iov = &iov,
		.count = 1,
		.addr = dest,
		.tag = tag,
		.data = data,
		.context = context,
		.flags = flags,
	};

	return uetp_msg_post(ep, &p);
}

static ssize_t uetp_tsendv(struct fid_ep *ep_fid, const struct iovec *iov,
			   void **desc, size_t count, fi_addr_t dest_addr,
			   uint64_t tag, void *context)
{
	struct uetp_ep *ep = uetp_alias_target(ep_fid);
	struct uetp_post p = {
		.type = UET_OP_TSEND,
		.iov = iov,
		.count = count,
		.addr = dest_addr,
		.tag = tag,
		.context = context,
		.flags = uetp_alias_tx_flags(ep_fid),
	};

	(void)desc;
	return uetp_msg_post(ep, &p);
}

static ssize_t uetp_tsend(struct fid_ep *ep_fid, const void *buf, size_t len,
			  void *desc, fi_addr_t dest_addr, uint64_t tag,
			  void *context)
{
	(void)desc;
	return uetp_tsend_common(ep_fid, buf, len, 0, dest_addr, tag, context,
				 uetp_alias_tx_flags(ep_fid));
}

static ssize_t uetp_tinject(struct fid_ep *ep_fid, const void *buf,
			    size_t len, fi_addr_t dest_addr, uint64_t tag)
{
	return uetp_tsend_common(ep_fid, buf, len, 0, dest_addr, tag, NULL,
				 FI_INJECT | UETP_INJECT_OP);
}

static ssize_t uetp_tsenddata(struct fid_ep *ep_fid, const void *buf,
			      size_t len, void *desc, uint64_t data,
			      fi_addr_t dest_addr, uint64_t tag,
			      void *context)
{
	(void)desc;
	return uetp_tsend_common(ep_fid, buf, len, data, dest_addr, tag,
				 context, uetp_alias_tx_flags(ep_fid) |
				 FI_REMOTE_CQ_DATA);
}

static ssize_t uetp_tinjectdata(struct fid_ep *ep_fid, const void *buf,
				size_t len, uint64_t data, fi_addr_t dest_addr,
				uint64_t tag)
{
	return uetp_tsend_common(ep_fid, buf, len, data, dest_addr, tag, NULL,
				 FI_INJECT | FI_REMOTE_CQ_DATA |
				 UETP_INJECT_OP);
}

struct fi_ops_tagged uetp_tagged_ops = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = uetp_trecv,
	.recvv = uetp_trecvv,
	.recvmsg = uetp_trecvmsg,
	.send = uetp_tsend,
	.sendv = uetp_tsendv,
	.sendmsg = uetp_tsendmsg,
	.inject = uetp_tinject,
	.senddata = uetp_tsenddata,
	.injectdata = uetp_tinjectdata,
};
