/* Endpoint aliases (fi_ep_alias, FI_ALIAS): another fid_ep on the same
 * endpoint whose calls without a flags argument use the alias's own
 * operation flags - how fabtests' fi_rdm_rma_trigger gives FI_TRIGGER
 * to fi_write. Every call becomes the endpoint's *msg call with those
 * flags; the *msg calls and the inject calls (no context, nothing to
 * flag) pass through. The alias holds no resources: close it before
 * the endpoint.
 */
#include <stdlib.h>

#include "uetp.h"

struct uetp_alias {
	struct fid_ep fid;
	struct uetp_ep *ep;
	uint64_t tx_flags, rx_flags;
};

static struct uetp_alias *uetp_alias_of(struct fid_ep *fid)
{
	return uetp_container_of(fid, struct uetp_alias, fid);
}

static struct fid_ep *uetp_alias_ep(struct fid_ep *fid)
{
	return &uetp_alias_of(fid)->ep->fid;
}

/* ---- messages ---- */

static ssize_t uetp_alias_sendmsg(struct fid_ep *a, const struct fi_msg *msg,
				  uint64_t flags)
{
	return fi_sendmsg(uetp_alias_ep(a), msg, flags);
}

static ssize_t uetp_alias_sendv_data(struct fid_ep *a,
				     const struct iovec *iov, size_t count,
				     fi_addr_t dest, uint64_t data,
				     void *context, uint64_t more)
{
	struct fi_msg m = {
		.msg_iov = iov, .iov_count = count, .addr = dest,
		.context = context, .data = data,
	};

	return fi_sendmsg(uetp_alias_ep(a), &m,
			  uetp_alias_of(a)->tx_flags | more);
}

static ssize_t uetp_alias_sendv(struct fid_ep *a, const struct iovec *iov,
				void **desc, size_t count, fi_addr_t dest,
				void *context)
{
	(void)desc;
	return uetp_alias_sendv_data(a, iov, count, dest, 0, context, 0);
}

static ssize_t uetp_alias_send(struct fid_ep *a, const void *buf, size_t len,
			       void *desc, fi_addr_t dest, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)desc;
	return uetp_alias_sendv_data(a, &iov, 1, dest, 0, context, 0);
}

static ssize_t uetp_alias_senddata(struct fid_ep *a, const void *buf,
				   size_t len, void *desc, uint64_t data,
				   fi_addr_t dest, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)desc;
	return uetp_alias_sendv_data(a, &iov, 1, dest, data, context,
				     FI_REMOTE_CQ_DATA);
}

static ssize_t uetp_alias_inject(struct fid_ep *a, const void *buf,
				 size_t len, fi_addr_t dest)
{
	return fi_inject(uetp_alias_ep(a), buf, len, dest);
}

static ssize_t uetp_alias_injectdata(struct fid_ep *a, const void *buf,
				     size_t len, uint64_t data,
				     fi_addr_t dest)
{
	return fi_injectdata(uetp_alias_ep(a), buf, len, data, dest);
}

static ssize_t uetp_alias_recvmsg(struct fid_ep *a, const struct fi_msg *msg,
				  uint64_t flags)
{
	return fi_recvmsg(uetp_alias_ep(a), msg, flags);
}

static ssize_t uetp_alias_recvv(struct fid_ep *a, const struct iovec *iov,
				void **desc, size_t count, fi_addr_t src,
				void *context)
{
	struct fi_msg m = {
		.msg_iov = iov, .iov_count = count, .addr = src,
		.context = context,
	};

	(void)desc;
	return fi_recvmsg(uetp_alias_ep(a), &m, uetp_alias_of(a)->rx_flags);
}

static ssize_t uetp_alias_recv(struct fid_ep *a, void *buf, size_t len,
			       void *desc, fi_addr_t src, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return uetp_alias_recvv(a, &iov, &desc, 1, src, context);
}

static struct fi_ops_msg uetp_alias_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = uetp_alias_recv,
	.recvv = uetp_alias_recvv,
	.recvmsg = uetp_alias_recvmsg,
	.send = uetp_alias_send,
	.sendv = uetp_alias_sendv,
	.sendmsg = uetp_alias_sendmsg,
	.inject = uetp_alias_inject,
	.senddata = uetp_alias_senddata,
	.injectdata = uetp_alias_injectdata,
};

/* ---- tagged ---- */

static ssize_t uetp_alias_tsendmsg(struct fid_ep *a,
				   const struct fi_msg_tagged *msg,
				   uint64_t flags)
{
	return fi_tsendmsg(uetp_alias_ep(a), msg, flags);
}

static ssize_t uetp_alias_tsendv_data(struct fid_ep *a,
				      const struct iovec *iov, size_t count,
				      fi_addr_t dest, uint64_t tag,
				      uint64_t data, void *context,
				      uint64_t more)
{
	struct fi_msg_tagged m = {
		.msg_iov = iov, .iov_count = count, .addr = dest,
		.tag = tag, .context = context, .data = data,
	};

	return fi_tsendmsg(uetp_alias_ep(a), &m,
			   uetp_alias_of(a)->tx_flags | more);
}

static ssize_t uetp_alias_tsendv(struct fid_ep *a, const struct iovec *iov,
				 void **desc, size_t count, fi_addr_t dest,
				 uint64_t tag, void *context)
{
	(void)desc;
	return uetp_alias_tsendv_data(a, iov, count, dest, tag, 0, context,
				      0);
}

static ssize_t uetp_alias_tsend(struct fid_ep *a, const void *buf,
				size_t len, void *desc, fi_addr_t dest,
				uint64_t tag, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)desc;
	return uetp_alias_tsendv_data(a, &iov, 1, dest, tag, 0, context, 0);
}

static ssize_t uetp_alias_tsenddata(struct fid_ep *a, const void *buf,
				    size_t len, void *desc, uint64_t data,
				    fi_addr_t dest, uint64_t tag,
				    void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)desc;
	return uetp_alias_tsendv_data(a, &iov, 1, dest, tag, data, context,
				      FI_REMOTE_CQ_DATA);
}

static ssize_t uetp_alias_tinject(struct fid_ep *a, const void *buf,
				  size_t len, fi_addr_t dest, uint64_t tag)
{
	return fi_tinject(uetp_alias_ep(a), buf, len, dest, tag);
}

static ssize_t uetp_alias_tinjectdata(struct fid_ep *a, const void *buf,
				      size_t len, uint64_t data,
				      fi_addr_t dest, uint64_t tag)
{
	return fi_tinjectdata(uetp_alias_ep(a), buf, len, data, dest, tag);
}

static ssize_t uetp_alias_trecvmsg(struct fid_ep *a,
				   const struct fi_msg_tagged *msg,
				   uint64_t flags)
{
	return fi_trecvmsg(uetp_alias_ep(a), msg, flags);
}

static ssize_t uetp_alias_trecvv(struct fid_ep *a, const struct iovec *iov,
				 void **desc, size_t count, fi_addr_t src,
				 uint64_t tag, uint64_t ignore, void *context)
{
	struct fi_msg_tagged m = {
		.msg_iov = iov, .iov_count = count, .addr = src,
		.tag = tag, .ignore = ignore, .context = context,
	};

	(void)desc;
	return fi_trecvmsg(uetp_alias_ep(a), &m, uetp_alias_of(a)->rx_flags);
}

static ssize_t uetp_alias_trecv(struct fid_ep *a, void *buf, size_t len,
				void *desc, fi_addr_t src, uint64_t tag,
				uint64_t ignore, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return uetp_alias_trecvv(a, &iov, &desc, 1, src, tag, ignore,
				 context);
}

static struct fi_ops_tagged uetp_alias_tagged_ops = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = uetp_alias_trecv,
	.recvv = uetp_alias_trecvv,
	.recvmsg = uetp_alias_trecvmsg,
	.send = uetp_alias_tsend,
	.sendv = uetp_alias_tsendv,
	.sendmsg = uetp_alias_tsendmsg,
	.inject = uetp_alias_tinject,
	.senddata = uetp_alias_tsenddata,
	.injectdata = uetp_alias_tinjectdata,
};

/* ---- RMA ---- */

static ssize_t uetp_alias_rma(struct fid_ep *a, bool write,
			      const struct iovec *iov, size_t count,
			      fi_addr_t peer, uint64_t addr, uint64_t key,
			      uint64_t data, void *context, uint64_t more)
{
	struct fi_rma_iov riov = { .addr = addr, .key = key };
	struct fi_msg_rma m = {
		.msg_iov = iov, .iov_count = count, .addr = peer,
		.rma_iov = &riov, .rma_iov_count = 1, .context = context,
		.data = data,
	};
	uint64_t flags = uetp_alias_of(a)->tx_flags | more;

	for (size_t i = 0; iov && i < count; i++)
		riov.len += iov[i].iov_len;
	if (!write)
		flags &= ~(uint64_t)(FI_INJECT | FI_REMOTE_CQ_DATA);
	return write ? fi_writemsg(uetp_alias_ep(a), &m, flags) :
		       fi_readmsg(uetp_alias_ep(a), &m, flags);
}

static ssize_t uetp_alias_readmsg(struct fid_ep *a,
				  const struct fi_msg_rma *msg, uint64_t flags)
{
	return fi_readmsg(uetp_alias_ep(a), msg, flags);
}

static ssize_t uetp_alias_readv(struct fid_ep *a, const struct iovec *iov,
				void **desc, size_t count, fi_addr_t src,
				uint64_t addr, uint64_t key, void *context)
{
	(void)desc;
	return uetp_alias_rma(a, false, iov, count, src, addr, key, 0,
			      context, 0);
}

static ssize_t uetp_alias_read(struct fid_ep *a, void *buf, size_t len,
			       void *desc, fi_addr_t src, uint64_t addr,
			       uint64_t key, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	(void)desc;
	return uetp_alias_rma(a, false, &iov, 1, src, addr, key, 0, context,
			      0);
}

static ssize_t uetp_alias_writemsg(struct fid_ep *a,
				   const struct fi_msg_rma *msg,
				   uint64_t flags)
{
	return fi_writemsg(uetp_alias_ep(a), msg, flags);
}

static ssize_t uetp_alias_writev(struct fid_ep *a, const struct iovec *iov,
				 void **desc, size_t count, fi_addr_t dest,
				 uint64_t addr, uint64_t key, void *context)
{
	(void)desc;
	return uetp_alias_rma(a, true, iov, count, dest, addr, key, 0,
			      context, 0);
}

static ssize_t uetp_alias_write(struct fid_ep *a, const void *buf,
				size_t len, void *desc, fi_addr_t dest,
				uint64_t addr, uint64_t key, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)desc;
	return uetp_alias_rma(a, true, &iov, 1, dest, addr, key, 0, context,
			      0);
}

static ssize_t uetp_alias_writedata(struct fid_ep *a, const void *buf,
				    size_t len, void *desc, uint64_t data,
				    fi_addr_t dest, uint64_t addr,
				    uint64_t key, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)desc;
	return uetp_alias_rma(a, true, &iov, 1, dest, addr, key, data,
			      context, FI_REMOTE_CQ_DATA);
}

static ssize_t uetp_alias_rma_inject(struct fid_ep *a, const void *buf,
				     size_t len, fi_addr_t dest,
				     uint64_t addr, uint64_t key)
{
	return fi_inject_write(uetp_alias_ep(a), buf, len, dest, addr, key);
}

static ssize_t uetp_alias_rma_injectdata(struct fid_ep *a, const void *buf,
					 size_t len, uint64_t data,
					 fi_addr_t dest, uint64_t addr,
					 uint64_t key)
{
	return fi_inject_writedata(uetp_alias_ep(a), buf, len, data, dest,
				   addr, key);
}

static struct fi_ops_rma uetp_alias_rma_ops = {
	.size = sizeof(struct fi_ops_rma),
	.read = uetp_alias_read,
	.readv = uetp_alias_readv,
	.readmsg = uetp_alias_readmsg,
	.write = uetp_alias_write,
	.writev = uetp_alias_writev,
	.writemsg = uetp_alias_writemsg,
	.inject = uetp_alias_rma_inject,
	.writedata = uetp_alias_writedata,
	.injectdata = uetp_alias_rma_injectdata,
};

/* ---- atomics ---- */

static ssize_t uetp_alias_amo(struct fid_ep *a, const struct fi_ioc *iov,
			      size_t count, fi_addr_t dest, uint64_t addr,
			      uint64_t key, enum fi_datatype dt, enum fi_op op,
			      const struct fi_ioc *cmp, size_t ncmp,
			      struct fi_ioc *res, size_t nres, void *context,
			      unsigned kind)
{
	struct fi_rma_ioc rioc = { .addr = addr, .key = key };
	struct fi_msg_atomic m = {
		.msg_iov = iov, .iov_count = count, .addr = dest,
		.rma_iov = &rioc, .rma_iov_count = 1, .datatype = dt,
		.op = op, .context = context,
	};
	uint64_t flags = uetp_alias_of(a)->tx_flags &
			 ~(uint64_t)FI_REMOTE_CQ_DATA;

	for (size_t i = 0; iov && i < count; i++)
		rioc.count += iov[i].count;
	if (!iov)	/* FI_ATOMIC_READ: the result says how many */
		for (size_t i = 0; res && i < nres; i++)
			rioc.count += res[i].count;
	if (kind == UETP_AMO_BASE)
		return fi_atomicmsg(uetp_alias_ep(a), &m, flags);
	flags &= ~(uint64_t)FI_INJECT;
	if (kind == UETP_AMO_FETCH)
		return fi_fetch_atomicmsg(uetp_alias_ep(a), &m, res, NULL,
					  nres, flags);
	return fi_compare_atomicmsg(uetp_alias_ep(a), &m, cmp, NULL, ncmp,
				    res, NULL, nres, flags);
}

static ssize_t uetp_alias_atomic_writemsg(struct fid_ep *a,
					  const struct fi_msg_atomic *msg,
					  uint64_t flags)
{
	return fi_atomicmsg(uetp_alias_ep(a), msg, flags);
}

static ssize_t uetp_alias_atomic_writev(struct fid_ep *a,
					const struct fi_ioc *iov, void **desc,
					size_t count, fi_addr_t dest,
					uint64_t addr, uint64_t key,
					enum fi_datatype dt, enum fi_op op,
					void *context)
{
	(void)desc;
	return uetp_alias_amo(a, iov, count, dest, addr, key, dt, op, NULL, 0,
			      NULL, 0, context, UETP_AMO_BASE);
}

static ssize_t uetp_alias_atomic_write(struct fid_ep *a, const void *buf,
				       size_t count, void *desc,
				       fi_addr_t dest, uint64_t addr,
				       uint64_t key, enum fi_datatype dt,
				       enum fi_op op, void *context)
{
	struct fi_ioc ioc = { .addr = (void *)buf, .count = count };

	return uetp_alias_atomic_writev(a, &ioc, &desc, 1, dest, addr, key,
					dt, op, context);
}

static ssize_t uetp_alias_atomic_inject(struct fid_ep *a, const void *buf,
					size_t count, fi_addr_t dest,
					uint64_t addr, uint64_t key,
					enum fi_datatype dt, enum fi_op op)
{
	return fi_inject_atomic(uetp_alias_ep(a), buf, count, dest, addr, key,
				dt, op);
}

static ssize_t uetp_alias_atomic_readwritemsg(struct fid_ep *a,
					      const struct fi_msg_atomic *msg,
					      struct fi_ioc *resultv,
					      void **result_desc,
					      size_t result_count,
					      uint64_t flags)
{
	return fi_fetch_atomicmsg(uetp_alias_ep(a), msg, resultv, result_desc,
				  result_count, flags);
}

static ssize_t uetp_alias_atomic_readwritev(struct fid_ep *a,
					    const struct fi_ioc *iov,
					    void **desc, size_t count,
					    struct fi_ioc *resultv,
					    void **result_desc,
					    size_t result_count,
					    fi_addr_t dest, uint64_t addr,
					    uint64_t key, enum fi_datatype dt,
					    enum fi_op op, void *context)
{
	(void)desc;
	(void)result_desc;
	return uetp_alias_amo(a, iov, count, dest, addr, key, dt, op, NULL, 0,
			      resultv, result_count, context, UETP_AMO_FETCH);
}

static ssize_t uetp_alias_atomic_readwrite(struct fid_ep *a, const void *buf,
					   size_t count, void *desc,
					   void *result, void *result_desc,
					   fi_addr_t dest, uint64_t addr,
					   uint64_t key, enum fi_datatype dt,
					   enum fi_op op, void *context)
{
	struct fi_ioc ioc = { .addr = (void *)buf, .count = count };
	struct fi_ioc res = { .addr = result, .count = count };

	(void)desc;
	(void)result_desc;
	return uetp_alias_amo(a, buf ? &ioc : NULL, buf ? 1 : 0, dest, addr,
			      key, dt, op, NULL, 0, &res, 1, context,
			      UETP_AMO_FETCH);
}

static ssize_t uetp_alias_atomic_compwritemsg(struct fid_ep *a,
					      const struct fi_msg_atomic *msg,
					      const struct fi_ioc *comparev,
					      void **compare_desc,
					      size_t compare_count,
					      struct fi_ioc *resultv,
					      void **result_desc,
					      size_t result_count,
					      uint64_t flags)
{
	return fi_compare_atomicmsg(uetp_alias_ep(a), msg, comparev,
				    compare_desc, compare_count, resultv,
				    result_desc, result_count, flags);
}

static ssize_t uetp_alias_atomic_compwritev(struct fid_ep *a,
					    const struct fi_ioc *iov,
					    void **desc, size_t count,
					    const struct fi_ioc *comparev,
					    void **compare_desc,
					    size_t compare_count,
					    struct fi_ioc *resultv,
					    void **result_desc,
					    size_t result_count,
					    fi_addr_t dest, uint64_t addr,
					    uint64_t key, enum fi_datatype dt,
					    enum fi_op op, void *context)
{
	(void)desc;
	(void)compare_desc;
	(void)result_desc;
	return uetp_alias_amo(a, iov, count, dest, addr, key, dt, op,
			      comparev, compare_count, resultv, result_count,
			      context, UETP_AMO_COMPARE);
}

static ssize_t uetp_alias_atomic_compwrite(struct fid_ep *a, const void *buf,
					   size_t count, void *desc,
					   const void *compare,
					   void *compare_desc, void *result,
					   void *result_desc, fi_addr_t dest,
					   uint64_t addr, uint64_t key,
					   enum fi_datatype dt, enum fi_op op,
					   void *context)
{
	struct fi_ioc ioc = { .addr = (void *)buf, .count = count };
	struct fi_ioc cmp = { .addr = (void *)compare, .count = count };
	struct fi_ioc res = { .addr = result, .count = count };

	(void)desc;
	(void)compare_desc;
	(void)result_desc;
	return uetp_alias_amo(a, &ioc, 1, dest, addr, key, dt, op, &cmp, 1,
			      &res, 1, context, UETP_AMO_COMPARE);
}

static int uetp_alias_writevalid(struct fid_ep *a, enum fi_datatype dt,
				 enum fi_op op, size_t *count)
{
	return fi_atomicvalid(uetp_alias_ep(a), dt, op, count);
}

static int uetp_alias_readwritevalid(struct fid_ep *a, enum fi_datatype dt,
				     enum fi_op op, size_t *count)
{
	return fi_fetch_atomicvalid(uetp_alias_ep(a), dt, op, count);
}

static int uetp_alias_compwritevalid(struct fid_ep *a, enum fi_datatype dt,
				     enum fi_op op, size_t *count)
{
	return fi_compare_atomicvalid(uetp_alias_ep(a), dt, op, count);
}

static struct fi_ops_atomic uetp_alias_atomic_ops = {
	.size = sizeof(struct fi_ops_atomic),
	.write = uetp_alias_atomic_write,
	.writev = uetp_alias_atomic_writev,
	.writemsg = uetp_alias_atomic_writemsg,
	.inject = uetp_alias_atomic_inject,
	.readwrite = uetp_alias_atomic_readwrite,
	.readwritev = uetp_alias_atomic_readwritev,
	.readwritemsg = uetp_alias_atomic_readwritemsg,
	.compwrite = uetp_alias_atomic_compwrite,
	.compwritev = uetp_alias_atomic_compwritev,
	.compwritemsg = uetp_alias_atomic_compwritemsg,
	.writevalid = uetp_alias_writevalid,
	.readwritevalid = uetp_alias_readwritevalid,
	.compwritevalid = uetp_alias_compwritevalid,
};

/* ---- the rest of an endpoint ---- */

static ssize_t uetp_alias_cancel(fid_t fid, void *context)
{
	struct uetp_alias *a = uetp_container_of(fid, struct uetp_alias,
						 fid.fid);

	return fi_cancel(&a->ep->fid.fid, context);
}

static int uetp_alias_getopt(fid_t fid, int level, int name, void *optval,
			     size_t *optlen)
{
	struct uetp_alias *a = uetp_container_of(fid, struct uetp_alias,
						 fid.fid);

	return fi_getopt(&a->ep->fid.fid, level, name, optval, optlen);
}

static int uetp_alias_setopt(fid_t fid, int level, int name,
			     const void *optval, size_t optlen)
{
	struct uetp_alias *a = uetp_container_of(fid, struct uetp_alias,
						 fid.fid);

	return fi_setopt(&a->ep->fid.fid, level, name, optval, optlen);
}

static ssize_t uetp_alias_rx_size_left(struct fid_ep *a)
{
	struct fid_ep *ep = uetp_alias_ep(a);

	return ep->ops->rx_size_left(ep);
}

static ssize_t uetp_alias_tx_size_left(struct fid_ep *a)
{
	struct fid_ep *ep = uetp_alias_ep(a);

	return ep->ops->tx_size_left(ep);
}

static struct fi_ops_ep uetp_alias_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = uetp_alias_cancel,
	.getopt = uetp_alias_getopt,
	.setopt = uetp_alias_setopt,
	.tx_ctx = uetp_enosys_tx_ctx,
	.rx_ctx = uetp_enosys_rx_ctx,
	.rx_size_left = uetp_alias_rx_size_left,
	.tx_size_left = uetp_alias_tx_size_left,
};

static int uetp_alias_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct uetp_alias *a = uetp_container_of(fid, struct uetp_alias,
						 fid.fid);

	return fi_getname(&a->ep->fid.fid, addr, addrlen);
}

static int uetp_alias_setname(fid_t fid, void *addr, size_t addrlen)
{
	(void)fid; (void)addr; (void)addrlen;
	return -FI_ENOSYS;	/* the endpoint's name, not the alias's */
}

static struct fi_ops_cm uetp_alias_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = uetp_alias_setname,
	.getname = uetp_alias_getname,
	.getpeer = uetp_enosys_getpeer,
	.connect = uetp_enosys_connect,
	.listen = uetp_enosys_listen,
	.accept = uetp_enosys_accept,
	.reject = uetp_enosys_reject,
	.shutdown = uetp_enosys_shutdown,
	.join = uetp_enosys_join,
};

static int uetp_alias_close(struct fid *fid)
{
	free(uetp_container_of(fid, struct uetp_alias, fid.fid));
	return 0;
}

static struct fi_ops uetp_alias_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uetp_alias_close,
	.bind = uetp_enosys_bind,
	.control = uetp_enosys_control,
	.ops_open = uetp_enosys_ops_open,
	.tostr = uetp_enosys_tostr,
	.ops_set = uetp_enosys_ops_set,
};

int uetp_alias_open(struct uetp_ep *ep, struct fi_alias *arg)
{
	uint64_t dir = FI_TRANSMIT | FI_RECV;
	struct uetp_alias *a;
	uint64_t f;

	if (!arg || !arg->fid)
		return -FI_EINVAL;
	f = arg->flags & ~dir;
	/* fi_endpoint.3: flags the endpoint's op flags would refuse */
	if (f & ~(uint64_t)(UETP_TX_OP_FLAGS | UETP_RX_OP_FLAGS | FI_TRIGGER |
			    FI_FENCE | FI_REMOTE_CQ_DATA | FI_MORE))
		return -FI_EBADFLAGS;
	if ((f & FI_TRIGGER) && !(ep->caps & FI_TRIGGER))
		return -FI_EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -FI_ENOMEM;
	a->ep = ep;
	/* neither direction named: both */
	if (!(arg->flags & dir))
		f |= dir;
	else
		f |= arg->flags & dir;
	a->tx_flags = ep->tx_op_flags | ((f & FI_TRANSMIT) ? f & ~dir : 0);
	a->rx_flags = ep->rx_op_flags | ((f & FI_RECV) ? f & ~dir : 0);
	a->fid.fid.fclass = FI_CLASS_EP;
	a->fid.fid.context = ep->fid.fid.context;
	a->fid.fid.ops = &uetp_alias_fi_ops;
	a->fid.ops = &uetp_alias_ep_ops;
	a->fid.cm = &uetp_alias_cm_ops;
	a->fid.msg = &uetp_alias_msg_ops;
	a->fid.tagged = &uetp_alias_tagged_ops;
	a->fid.rma = &uetp_alias_rma_ops;
	a->fid.atomic = &uetp_alias_atomic_ops;
	a->fid.collective = &uetp_enosys_collective;
	*arg->fid = &a->fid.fid;
	return 0;
}
