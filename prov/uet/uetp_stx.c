/* Shared transmit contexts (fi_stx_context, FI_SHARED_CONTEXT).
 *
 * A UET endpoint is what peers see: its FA and UDP home port, PIDonFEP
 * and the PDCs it opens (docs/choices.md §1.1). Messages an endpoint posts must
 * arrive from it, so each endpoint bound to a shared transmit context
 * keeps sending from its own port and engine; the context shares the
 * transmit attributes (op_flags, inject_size, iov_limit) the endpoints
 * take from it, not a queue. Its size does not cap the sum of their
 * outstanding sends: each endpoint's engine has its own tx_attr->size.
 */
#include <stdlib.h>
#include <string.h>

#include "uetp.h"

static int uetp_stx_close(struct fid *fid)
{
	struct uetp_stx *stx = uet_container_of(fid, struct uetp_stx,
						 fid.fid);

	if (atomic_load(&stx->ref))
		return -FI_EBUSY;
	atomic_fetch_sub(&stx->domain->ref, 1);
	free(stx);
	return 0;
}

static struct fi_ops uetp_stx_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uetp_stx_close,
	.bind = uetp_enosys_bind,
	.control = uetp_enosys_control,
	.ops_open = uetp_enosys_ops_open,
	.tostr = uetp_enosys_tostr,
	.ops_set = uetp_enosys_ops_set,
};

int uetp_stx_open(struct fid_domain *domain, struct fi_tx_attr *attr,
		  struct fid_stx **stxp, void *context)
{
	struct uetp_domain *dom = uet_container_of(domain, struct uetp_domain,
						    fid);
	const struct fi_tx_attr *dflt = dom->info->tx_attr;
	struct uetp_stx *stx;

	if (!stxp)
		return -FI_EINVAL;
	if (attr && ((attr->caps & ~(uint64_t)UETP_TX_CAPS) ||
		     (attr->op_flags & ~(uint64_t)UETP_TX_OP_FLAGS) ||
		     attr->inject_size > UETP_INJECT_SIZE ||
		     attr->size > UETP_SIZE_MAX ||
		     attr->iov_limit > UETP_IOV_LIMIT))
		return -FI_EINVAL;
	stx = calloc(1, sizeof(*stx));
	if (!stx)
		return -FI_ENOMEM;
	stx->domain = dom;
	stx->attr = attr ? *attr : *dflt;
	stx->attr.caps = stx->attr.caps ? stx->attr.caps : dflt->caps;
	if (!stx->attr.inject_size)
		stx->attr.inject_size = dflt->inject_size;
	if (!stx->attr.iov_limit)
		stx->attr.iov_limit = dflt->iov_limit;
	atomic_init(&stx->ref, 0);
	stx->fid.fid.fclass = FI_CLASS_STX_CTX;
	stx->fid.fid.context = context;
	stx->fid.fid.ops = &uetp_stx_fi_ops;
	stx->fid.ops = &uetp_enosys_ep;
	atomic_fetch_add(&dom->ref, 1);
	*stxp = &stx->fid;
	return 0;
}

int uetp_stx_bind_ep(struct uetp_ep *ep, struct uetp_stx *stx)
{
	if (ep->stx || stx->domain != ep->domain || ep->sep || ep->base)
		return -FI_EINVAL;
	ep->stx = stx;
	ep->tx_op_flags = stx->attr.op_flags;
	if (stx->attr.inject_size && stx->attr.inject_size < ep->inject_size)
		ep->inject_size = stx->attr.inject_size;
	if (stx->attr.iov_limit && stx->attr.iov_limit < ep->iov_limit)
		ep->iov_limit = stx->attr.iov_limit;
	atomic_fetch_add(&stx->ref, 1);
	return 0;
}

void uetp_stx_unbind_ep(struct uetp_ep *ep)
{
	if (!ep->stx)
		return;
	atomic_fetch_sub(&ep->stx->ref, 1);
	ep->stx = NULL;
}
