/* Memory registration, only as far as messages need it: we require no
 * registration (mr_mode 0), but an application may still register its
 * send/receive buffers and pass fi_mr_desc(); that works and costs
 * nothing. Remote access (RMA, atomics) is not implemented yet and is
 * refused honestly with -FI_ENOSYS. */
#include <stdlib.h>

#include "uetp.h"

#define UETP_MR_LOCAL_ACCESS	(FI_SEND | FI_RECV)
#define UETP_MR_RMA_ACCESS	(FI_READ | FI_WRITE | FI_REMOTE_READ | \
				 FI_REMOTE_WRITE)

static int uetp_mr_close(struct fid *fid)
{
	struct uetp_mr *mr = uetp_container_of(fid, struct uetp_mr,
					       mr_fid.fid);

	atomic_fetch_sub(&mr->domain->ref, 1);
	free(mr);
	return 0;
}

static struct fi_ops uetp_mr_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uetp_mr_close,
	.bind = uetp_enosys_bind,		/* no FI_MR_ENDPOINT */
	.control = uetp_enosys_control,
	.ops_open = uetp_enosys_ops_open,
	.tostr = uetp_enosys_tostr,
	.ops_set = uetp_enosys_ops_set,
};

static int uetp_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
			   uint64_t flags, struct fid_mr **mrp)
{
	struct uetp_domain *dom;
	struct uetp_mr *mr;

	if (fid->fclass != FI_CLASS_DOMAIN || !attr || !mrp)
		return -FI_EINVAL;
	dom = uetp_container_of(fid, struct uetp_domain, fid.fid);
	if (flags)
		return -FI_EBADFLAGS;
	if (attr->access & UETP_MR_RMA_ACCESS) {
		FI_INFO(&uetp_prov, FI_LOG_MR,
			"RMA access requested: not implemented\n");
		return -FI_ENOSYS;
	}
	if (attr->access & ~(uint64_t)UETP_MR_LOCAL_ACCESS)
		return -FI_EINVAL;
	if (attr->iface != FI_HMEM_SYSTEM)
		return -FI_ENOSYS;
	if (attr->iov_count > 1)
		return -FI_EINVAL;
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return -FI_ENOMEM;
	mr->domain = dom;
	mr->access = attr->access;
	mr->mr_fid.fid.fclass = FI_CLASS_MR;
	mr->mr_fid.fid.context = attr->context;
	mr->mr_fid.fid.ops = &uetp_mr_fi_ops;
	mr->mr_fid.mem_desc = mr;
	/* local-only keys: no peer ever uses them */
	pthread_mutex_lock(&dom->lock);
	mr->mr_fid.key = dom->next_mr_key++;
	pthread_mutex_unlock(&dom->lock);
	atomic_fetch_add(&dom->ref, 1);
	*mrp = &mr->mr_fid;
	return 0;
}

static int uetp_mr_regv(struct fid *fid, const struct iovec *iov,
			size_t count, uint64_t access, uint64_t offset,
			uint64_t requested_key, uint64_t flags,
			struct fid_mr **mr, void *context)
{
	struct fi_mr_attr attr = {
		.mr_iov = iov,
		.iov_count = count,
		.access = access,
		.offset = offset,
		.requested_key = requested_key,
		.context = context,
		.iface = FI_HMEM_SYSTEM,
	};

	return uetp_mr_regattr(fid, &attr, flags, mr);
}

static int uetp_mr_reg(struct fid *fid, const void *buf, size_t len,
		       uint64_t access, uint64_t offset,
		       uint64_t requested_key, uint64_t flags,
		       struct fid_mr **mr, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return uetp_mr_regv(fid, &iov, 1, access, offset, requested_key,
			    flags, mr, context);
}

struct fi_ops_mr uetp_mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.reg = uetp_mr_reg,
	.regv = uetp_mr_regv,
	.regattr = uetp_mr_regattr,
};
