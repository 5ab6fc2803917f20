/* Our own -FI_ENOSYS stubs for every op slot we do not implement: the
 * core's fi_no_* are not exported to external providers
 * (docs/architecture.md §8.5), and hooks (FI_HOOK=...) call every slot, so
 * none may be NULL. Endpoints opened without FI_RMA / FI_ATOMIC get the RMA
 * / atomic tables below; collectives are not implemented at all. */
#include "uetp.h"

int uetp_enosys_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	(void)fid; (void)bfid; (void)flags;
	return -FI_ENOSYS;
}

int uetp_enosys_control(struct fid *fid, int command, void *arg)
{
	(void)fid; (void)command; (void)arg;
	return -FI_ENOSYS;
}

int uetp_enosys_ops_open(struct fid *fid, const char *name, uint64_t flags,
		     void **ops, void *context)
{
	(void)fid; (void)name; (void)flags; (void)ops; (void)context;
	return -FI_ENOSYS;
}

int uetp_enosys_tostr(const struct fid *fid, char *buf, size_t len)
{
	(void)fid; (void)buf; (void)len;
	return -FI_ENOSYS;
}

int uetp_enosys_ops_set(struct fid *fid, const char *name, uint64_t flags,
		    void *ops, void *context)
{
	(void)fid; (void)name; (void)flags; (void)ops; (void)context;
	return -FI_ENOSYS;
}

int uetp_enosys_passive_ep(struct fid_fabric *fabric, struct fi_info *info,
		       struct fid_pep **pep, void *context)
{
	(void)fabric; (void)info; (void)pep; (void)context;
	return -FI_ENOSYS;
}

int uetp_enosys_query_collective(struct fid_domain *domain,
			     enum fi_collective_op coll,
			     struct fi_collective_attr *attr, uint64_t flags)
{
	(void)domain; (void)coll; (void)attr; (void)flags;
	return -FI_ENOSYS;
}

int uetp_enosys_endpoint2(struct fid_domain *domain, struct fi_info *info,
		      struct fid_ep **ep, uint64_t flags, void *context)
{
	(void)domain; (void)info; (void)ep; (void)flags; (void)context;
	return -FI_ENOSYS;
}

int uetp_enosys_tx_ctx(struct fid_ep *sep, int index, struct fi_tx_attr *attr,
		   struct fid_ep **tx_ep, void *context)
{
	(void)sep; (void)index; (void)attr; (void)tx_ep; (void)context;
	return -FI_ENOSYS;
}

int uetp_enosys_rx_ctx(struct fid_ep *sep, int index, struct fi_rx_attr *attr,
		   struct fid_ep **rx_ep, void *context)
{
	(void)sep; (void)index; (void)attr; (void)rx_ep; (void)context;
	return -FI_ENOSYS;
}

int uetp_enosys_getpeer(struct fid_ep *ep, void *addr, size_t *addrlen)
{
	(void)ep; (void)addr; (void)addrlen;
	return -FI_ENOSYS;
}

int uetp_enosys_connect(struct fid_ep *ep, const void *addr, const void *param,
		    size_t paramlen)
{
	(void)ep; (void)addr; (void)param; (void)paramlen;
	return -FI_ENOSYS;
}

int uetp_enosys_listen(struct fid_pep *pep)
{
	(void)pep;
	return -FI_ENOSYS;
}

int uetp_enosys_accept(struct fid_ep *ep, const void *param, size_t paramlen)
{
	(void)ep; (void)param; (void)paramlen;
	return -FI_ENOSYS;
}

int uetp_enosys_reject(struct fid_pep *pep, fid_t handle, const void *param,
		   size_t paramlen)
{
	(void)pep; (void)handle; (void)param; (void)paramlen;
	return -FI_ENOSYS;
}

int uetp_enosys_shutdown(struct fid_ep *ep, uint64_t flags)
{
	(void)ep; (void)flags;
	return -FI_ENOSYS;
}

int uetp_enosys_join(struct fid_ep *ep, const void *addr, uint64_t flags,
		 struct fid_mc **mc, void *context)
{
	(void)ep; (void)addr; (void)flags; (void)mc; (void)context;
	return -FI_ENOSYS;
}

int uetp_enosys_av_set(struct fid_av *av, struct fi_av_set_attr *attr,
		   struct fid_av_set **av_set, void *context)
{
	(void)av; (void)attr; (void)av_set; (void)context;
	return -FI_ENOSYS;
}

/* ---- RMA: not implemented yet, FI_RMA not advertised ---- */

static ssize_t uetp_enosys_rma_read(struct fid_ep *ep, void *buf, size_t len,
				void *desc, fi_addr_t src_addr, uint64_t addr,
				uint64_t key, void *context)
{
	(void)ep; (void)buf; (void)len; (void)desc; (void)src_addr;
	(void)addr; (void)key; (void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_rma_readv(struct fid_ep *ep, const struct iovec *iov,
				 void **desc, size_t count, fi_addr_t src_addr,
				 uint64_t addr, uint64_t key, void *context)
{
	(void)ep; (void)iov; (void)desc; (void)count; (void)src_addr;
	(void)addr; (void)key; (void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_rma_msg(struct fid_ep *ep,
				   const struct fi_msg_rma *msg,
			       uint64_t flags)
{
	(void)ep; (void)msg; (void)flags;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_rma_write(struct fid_ep *ep, const void *buf,
				 size_t len, void *desc, fi_addr_t dest_addr,
				 uint64_t addr, uint64_t key, void *context)
{
	(void)ep; (void)buf; (void)len; (void)desc; (void)dest_addr;
	(void)addr; (void)key; (void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_rma_writev(struct fid_ep *ep,
				      const struct iovec *iov,
				  void **desc, size_t count,
				  fi_addr_t dest_addr, uint64_t addr,
				  uint64_t key, void *context)
{
	(void)ep; (void)iov; (void)desc; (void)count; (void)dest_addr;
	(void)addr; (void)key; (void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_rma_inject(struct fid_ep *ep, const void *buf,
				  size_t len, fi_addr_t dest_addr,
				  uint64_t addr, uint64_t key)
{
	(void)ep; (void)buf; (void)len; (void)dest_addr; (void)addr;
	(void)key;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_rma_writedata(struct fid_ep *ep, const void *buf,
				     size_t len, void *desc, uint64_t data,
				     fi_addr_t dest_addr, uint64_t addr,
				     uint64_t key, void *context)
{
	(void)ep; (void)buf; (void)len; (void)desc; (void)data;
	(void)dest_addr; (void)addr; (void)key; (void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_rma_injectdata(struct fid_ep *ep, const void *buf,
				      size_t len, uint64_t data,
				      fi_addr_t dest_addr, uint64_t addr,
				      uint64_t key)
{
	(void)ep; (void)buf; (void)len; (void)data; (void)dest_addr;
	(void)addr; (void)key;
	return -FI_ENOSYS;
}

struct fi_ops_rma uetp_enosys_rma = {
	.size = sizeof(struct fi_ops_rma),
	.read = uetp_enosys_rma_read,
	.readv = uetp_enosys_rma_readv,
	.readmsg = uetp_enosys_rma_msg,
	.write = uetp_enosys_rma_write,
	.writev = uetp_enosys_rma_writev,
	.writemsg = uetp_enosys_rma_msg,
	.inject = uetp_enosys_rma_inject,
	.writedata = uetp_enosys_rma_writedata,
	.injectdata = uetp_enosys_rma_injectdata,
};

/* ---- atomics: until SES atomics exist ---- */

static ssize_t uetp_enosys_amo_write(struct fid_ep *ep, const void *buf,
				 size_t count, void *desc, fi_addr_t dest_addr,
				 uint64_t addr, uint64_t key,
				 enum fi_datatype datatype, enum fi_op op,
				 void *context)
{
	(void)ep; (void)buf; (void)count; (void)desc; (void)dest_addr;
	(void)addr; (void)key; (void)datatype; (void)op; (void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_amo_writev(struct fid_ep *ep,
				      const struct fi_ioc *iov,
				  void **desc, size_t count,
				  fi_addr_t dest_addr, uint64_t addr,
				  uint64_t key, enum fi_datatype datatype,
				  enum fi_op op, void *context)
{
	(void)ep; (void)iov; (void)desc; (void)count; (void)dest_addr;
	(void)addr; (void)key; (void)datatype; (void)op; (void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_amo_writemsg(struct fid_ep *ep,
				    const struct fi_msg_atomic *msg,
				    uint64_t flags)
{
	(void)ep; (void)msg; (void)flags;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_amo_inject(struct fid_ep *ep, const void *buf,
				  size_t count, fi_addr_t dest_addr,
				  uint64_t addr, uint64_t key,
				  enum fi_datatype datatype, enum fi_op op)
{
	(void)ep; (void)buf; (void)count; (void)dest_addr; (void)addr;
	(void)key; (void)datatype; (void)op;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_amo_readwrite(struct fid_ep *ep, const void *buf,
				     size_t count, void *desc, void *result,
				     void *result_desc, fi_addr_t dest_addr,
				     uint64_t addr, uint64_t key,
				     enum fi_datatype datatype, enum fi_op op,
				     void *context)
{
	(void)ep; (void)buf; (void)count; (void)desc; (void)result;
	(void)result_desc; (void)dest_addr; (void)addr; (void)key;
	(void)datatype; (void)op; (void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_amo_readwritev(struct fid_ep *ep,
				      const struct fi_ioc *iov, void **desc,
				      size_t count, struct fi_ioc *resultv,
				      void **result_desc, size_t result_count,
				      fi_addr_t dest_addr, uint64_t addr,
				      uint64_t key, enum fi_datatype datatype,
				      enum fi_op op, void *context)
{
	(void)ep; (void)iov; (void)desc; (void)count; (void)resultv;
	(void)result_desc; (void)result_count; (void)dest_addr; (void)addr;
	(void)key; (void)datatype; (void)op; (void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_amo_readwritemsg(struct fid_ep *ep,
					const struct fi_msg_atomic *msg,
					struct fi_ioc *resultv,
					void **result_desc,
					size_t result_count, uint64_t flags)
{
	(void)ep; (void)msg; (void)resultv; (void)result_desc;
	(void)result_count; (void)flags;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_amo_compwrite(struct fid_ep *ep, const void *buf,
				     size_t count, void *desc,
				     const void *compare, void *compare_desc,
				     void *result, void *result_desc,
				     fi_addr_t dest_addr, uint64_t addr,
				     uint64_t key, enum fi_datatype datatype,
				     enum fi_op op, void *context)
{
	(void)ep; (void)buf; (void)count; (void)desc; (void)compare;
	(void)compare_desc; (void)result; (void)result_desc;
	(void)dest_addr; (void)addr; (void)key; (void)datatype; (void)op;
	(void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_amo_compwritev(struct fid_ep *ep,
				      const struct fi_ioc *iov, void **desc,
				      size_t count,
				      const struct fi_ioc *comparev,
				      void **compare_desc,
				      size_t compare_count,
				      struct fi_ioc *resultv,
				      void **result_desc, size_t result_count,
				      fi_addr_t dest_addr, uint64_t addr,
				      uint64_t key, enum fi_datatype datatype,
				      enum fi_op op, void *context)
{
	(void)ep; (void)iov; (void)desc; (void)count; (void)comparev;
	(void)compare_desc; (void)compare_count; (void)resultv;
	(void)result_desc; (void)result_count; (void)dest_addr; (void)addr;
	(void)key; (void)datatype; (void)op; (void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_amo_compwritemsg(struct fid_ep *ep,
					const struct fi_msg_atomic *msg,
					const struct fi_ioc *comparev,
					void **compare_desc,
					size_t compare_count,
					struct fi_ioc *resultv,
					void **result_desc,
					size_t result_count, uint64_t flags)
{
	(void)ep; (void)msg; (void)comparev; (void)compare_desc;
	(void)compare_count; (void)resultv; (void)result_desc;
	(void)result_count; (void)flags;
	return -FI_ENOSYS;
}

static int uetp_enosys_amo_valid(struct fid_ep *ep, enum fi_datatype datatype,
			     enum fi_op op, size_t *count)
{
	(void)ep; (void)datatype; (void)op; (void)count;
	return -FI_ENOSYS;
}

struct fi_ops_atomic uetp_enosys_atomic = {
	.size = sizeof(struct fi_ops_atomic),
	.write = uetp_enosys_amo_write,
	.writev = uetp_enosys_amo_writev,
	.writemsg = uetp_enosys_amo_writemsg,
	.inject = uetp_enosys_amo_inject,
	.readwrite = uetp_enosys_amo_readwrite,
	.readwritev = uetp_enosys_amo_readwritev,
	.readwritemsg = uetp_enosys_amo_readwritemsg,
	.compwrite = uetp_enosys_amo_compwrite,
	.compwritev = uetp_enosys_amo_compwritev,
	.compwritemsg = uetp_enosys_amo_compwritemsg,
	.writevalid = uetp_enosys_amo_valid,
	.readwritevalid = uetp_enosys_amo_valid,
	.compwritevalid = uetp_enosys_amo_valid,
};

/* ---- collectives ---- */

static ssize_t uetp_enosys_barrier(struct fid_ep *ep, fi_addr_t coll_addr,
			       void *context)
{
	(void)ep; (void)coll_addr; (void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_broadcast(struct fid_ep *ep, void *buf, size_t count,
				 void *desc, fi_addr_t coll_addr,
				 fi_addr_t root_addr, enum fi_datatype datatype,
				 uint64_t flags, void *context)
{
	(void)ep; (void)buf; (void)count; (void)desc; (void)coll_addr;
	(void)root_addr; (void)datatype; (void)flags; (void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_alltoall(struct fid_ep *ep, const void *buf,
				size_t count, void *desc, void *result,
				void *result_desc, fi_addr_t coll_addr,
				enum fi_datatype datatype, uint64_t flags,
				void *context)
{
	(void)ep; (void)buf; (void)count; (void)desc; (void)result;
	(void)result_desc; (void)coll_addr; (void)datatype; (void)flags;
	(void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_allreduce(struct fid_ep *ep, const void *buf,
				 size_t count, void *desc, void *result,
				 void *result_desc, fi_addr_t coll_addr,
				 enum fi_datatype datatype, enum fi_op op,
				 uint64_t flags, void *context)
{
	(void)ep; (void)buf; (void)count; (void)desc; (void)result;
	(void)result_desc; (void)coll_addr; (void)datatype; (void)op;
	(void)flags; (void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_reduce(struct fid_ep *ep, const void *buf,
			      size_t count, void *desc, void *result,
			      void *result_desc, fi_addr_t coll_addr,
			      fi_addr_t root_addr, enum fi_datatype datatype,
			      enum fi_op op, uint64_t flags, void *context)
{
	(void)ep; (void)buf; (void)count; (void)desc; (void)result;
	(void)result_desc; (void)coll_addr; (void)root_addr; (void)datatype;
	(void)op; (void)flags; (void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_scatter(struct fid_ep *ep, const void *buf,
			       size_t count, void *desc, void *result,
			       void *result_desc, fi_addr_t coll_addr,
			       fi_addr_t root_addr, enum fi_datatype datatype,
			       uint64_t flags, void *context)
{
	(void)ep; (void)buf; (void)count; (void)desc; (void)result;
	(void)result_desc; (void)coll_addr; (void)root_addr; (void)datatype;
	(void)flags; (void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_coll_msg(struct fid_ep *ep,
				const struct fi_msg_collective *msg,
				struct fi_ioc *resultv, void **result_desc,
				size_t result_count, uint64_t flags)
{
	(void)ep; (void)msg; (void)resultv; (void)result_desc;
	(void)result_count; (void)flags;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_barrier2(struct fid_ep *ep, fi_addr_t coll_addr,
				uint64_t flags, void *context)
{
	(void)ep; (void)coll_addr; (void)flags; (void)context;
	return -FI_ENOSYS;
}

struct fi_ops_collective uetp_enosys_collective = {
	.size = sizeof(struct fi_ops_collective),
	.barrier = uetp_enosys_barrier,
	.broadcast = uetp_enosys_broadcast,
	.alltoall = uetp_enosys_alltoall,
	.allreduce = uetp_enosys_allreduce,
	.allgather = uetp_enosys_alltoall,
	.reduce_scatter = uetp_enosys_allreduce,
	.reduce = uetp_enosys_reduce,
	.scatter = uetp_enosys_scatter,
	.gather = uetp_enosys_scatter,
	.msg = uetp_enosys_coll_msg,
	.barrier2 = uetp_enosys_barrier2,
};

/* ---- messages, endpoint and CM ops: objects that take only some of
 * them (shared contexts, tx/rx contexts) start from these tables ---- */

static ssize_t uetp_enosys_msg_recv(struct fid_ep *ep, void *buf, size_t len,
				    void *desc, fi_addr_t src, void *context)
{
	(void)ep; (void)buf; (void)len; (void)desc; (void)src; (void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_msg_recvv(struct fid_ep *ep,
				     const struct iovec *iov, void **desc,
				     size_t count, fi_addr_t src,
				     void *context)
{
	(void)ep; (void)iov; (void)desc; (void)count; (void)src;
	(void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_msg_msg(struct fid_ep *ep, const struct fi_msg *msg,
				   uint64_t flags)
{
	(void)ep; (void)msg; (void)flags;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_msg_send(struct fid_ep *ep, const void *buf,
				    size_t len, void *desc, fi_addr_t dest,
				    void *context)
{
	(void)ep; (void)buf; (void)len; (void)desc; (void)dest; (void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_msg_inject(struct fid_ep *ep, const void *buf,
				      size_t len, fi_addr_t dest)
{
	(void)ep; (void)buf; (void)len; (void)dest;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_msg_senddata(struct fid_ep *ep, const void *buf,
					size_t len, void *desc, uint64_t data,
					fi_addr_t dest, void *context)
{
	(void)ep; (void)buf; (void)len; (void)desc; (void)data; (void)dest;
	(void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_msg_injectdata(struct fid_ep *ep, const void *buf,
					  size_t len, uint64_t data,
					  fi_addr_t dest)
{
	(void)ep; (void)buf; (void)len; (void)data; (void)dest;
	return -FI_ENOSYS;
}

struct fi_ops_msg uetp_enosys_msg = {
	.size = sizeof(struct fi_ops_msg),
	.recv = uetp_enosys_msg_recv,
	.recvv = uetp_enosys_msg_recvv,
	.recvmsg = uetp_enosys_msg_msg,
	.send = uetp_enosys_msg_send,
	.sendv = uetp_enosys_msg_recvv,
	.sendmsg = uetp_enosys_msg_msg,
	.inject = uetp_enosys_msg_inject,
	.senddata = uetp_enosys_msg_senddata,
	.injectdata = uetp_enosys_msg_injectdata,
};

static ssize_t uetp_enosys_tag_recv(struct fid_ep *ep, void *buf, size_t len,
				    void *desc, fi_addr_t src, uint64_t tag,
				    uint64_t ignore, void *context)
{
	(void)ep; (void)buf; (void)len; (void)desc; (void)src; (void)tag;
	(void)ignore; (void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_tag_recvv(struct fid_ep *ep,
				     const struct iovec *iov, void **desc,
				     size_t count, fi_addr_t src, uint64_t tag,
				     uint64_t ignore, void *context)
{
	(void)ep; (void)iov; (void)desc; (void)count; (void)src; (void)tag;
	(void)ignore; (void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_tag_msg(struct fid_ep *ep,
				   const struct fi_msg_tagged *msg,
				   uint64_t flags)
{
	(void)ep; (void)msg; (void)flags;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_tag_send(struct fid_ep *ep, const void *buf,
				    size_t len, void *desc, fi_addr_t dest,
				    uint64_t tag, void *context)
{
	(void)ep; (void)buf; (void)len; (void)desc; (void)dest; (void)tag;
	(void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_tag_sendv(struct fid_ep *ep,
				     const struct iovec *iov, void **desc,
				     size_t count, fi_addr_t dest,
				     uint64_t tag, void *context)
{
	(void)ep; (void)iov; (void)desc; (void)count; (void)dest; (void)tag;
	(void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_tag_inject(struct fid_ep *ep, const void *buf,
				      size_t len, fi_addr_t dest, uint64_t tag)
{
	(void)ep; (void)buf; (void)len; (void)dest; (void)tag;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_tag_senddata(struct fid_ep *ep, const void *buf,
					size_t len, void *desc, uint64_t data,
					fi_addr_t dest, uint64_t tag,
					void *context)
{
	(void)ep; (void)buf; (void)len; (void)desc; (void)data; (void)dest;
	(void)tag; (void)context;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_tag_injectdata(struct fid_ep *ep, const void *buf,
					  size_t len, uint64_t data,
					  fi_addr_t dest, uint64_t tag)
{
	(void)ep; (void)buf; (void)len; (void)data; (void)dest; (void)tag;
	return -FI_ENOSYS;
}

struct fi_ops_tagged uetp_enosys_tagged = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = uetp_enosys_tag_recv,
	.recvv = uetp_enosys_tag_recvv,
	.recvmsg = uetp_enosys_tag_msg,
	.send = uetp_enosys_tag_send,
	.sendv = uetp_enosys_tag_sendv,
	.sendmsg = uetp_enosys_tag_msg,
	.inject = uetp_enosys_tag_inject,
	.senddata = uetp_enosys_tag_senddata,
	.injectdata = uetp_enosys_tag_injectdata,
};

static ssize_t uetp_enosys_ep_cancel(fid_t fid, void *context)
{
	(void)fid; (void)context;
	return -FI_ENOSYS;
}

static int uetp_enosys_ep_getopt(fid_t fid, int level, int optname,
				 void *optval, size_t *optlen)
{
	(void)fid; (void)level; (void)optname; (void)optval; (void)optlen;
	return -FI_ENOSYS;
}

static int uetp_enosys_ep_setopt(fid_t fid, int level, int optname,
				 const void *optval, size_t optlen)
{
	(void)fid; (void)level; (void)optname; (void)optval; (void)optlen;
	return -FI_ENOSYS;
}

static ssize_t uetp_enosys_ep_size_left(struct fid_ep *ep)
{
	(void)ep;
	return -FI_ENOSYS;
}

struct fi_ops_ep uetp_enosys_ep = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = uetp_enosys_ep_cancel,
	.getopt = uetp_enosys_ep_getopt,
	.setopt = uetp_enosys_ep_setopt,
	.tx_ctx = uetp_enosys_tx_ctx,
	.rx_ctx = uetp_enosys_rx_ctx,
	.rx_size_left = uetp_enosys_ep_size_left,
	.tx_size_left = uetp_enosys_ep_size_left,
};

static int uetp_enosys_setname(fid_t fid, void *addr, size_t addrlen)
{
	(void)fid; (void)addr; (void)addrlen;
	return -FI_ENOSYS;
}

static int uetp_enosys_getname(fid_t fid, void *addr, size_t *addrlen)
{
	(void)fid; (void)addr; (void)addrlen;
	return -FI_ENOSYS;
}

struct fi_ops_cm uetp_enosys_cm = {
	.size = sizeof(struct fi_ops_cm),
	.setname = uetp_enosys_setname,
	.getname = uetp_enosys_getname,
	.getpeer = uetp_enosys_getpeer,
	.connect = uetp_enosys_connect,
	.listen = uetp_enosys_listen,
	.accept = uetp_enosys_accept,
	.reject = uetp_enosys_reject,
	.shutdown = uetp_enosys_shutdown,
	.join = uetp_enosys_join,
};
