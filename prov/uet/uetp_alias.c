/* Endpoint aliases (fi_ep_alias, FI_ALIAS): another fid_ep on the same
 * endpoint whose calls without a flags argument use the alias's own
 * operation flags - how fabtests' fi_rdm_rma_trigger gives FI_TRIGGER
 * to fi_write. The alias has its endpoint's data-transfer op tables:
 * their functions find the endpoint and the flags through
 * uetp_alias_target and uetp_alias_tx/rx_flags, so the *msg calls and
 * the inject calls (no context, nothing to flag) behave as on the
 * endpoint. The alias holds no resources: close it before the endpoint.
 */
#include <stdlib.h>

#include "uetp.h"

struct uetp_alias {
	struct fid_ep fid;
	struct uetp_ep *ep;
	uint64_t tx_flags, rx_flags;
};

static struct fi_ops uetp_alias_fi_ops;

static struct uetp_alias *uetp_alias_of(struct fid_ep *fid)
{
	return fid->fid.ops == &uetp_alias_fi_ops ?
	       uet_container_of(fid, struct uetp_alias, fid) : NULL;
}

struct uetp_ep *uetp_alias_target(struct fid_ep *fid)
{
	struct uetp_alias *a = uetp_alias_of(fid);

	return a ? a->ep : uet_container_of(fid, struct uetp_ep, fid);
}

uint64_t uetp_alias_tx_flags(struct fid_ep *fid)
{
	struct uetp_alias *a = uetp_alias_of(fid);

	return a ? a->tx_flags : uetp_alias_target(fid)->tx_op_flags;
}

uint64_t uetp_alias_rx_flags(struct fid_ep *fid)
{
	struct uetp_alias *a = uetp_alias_of(fid);

	return a ? a->rx_flags : uetp_alias_target(fid)->rx_op_flags;
}

/* ---- the rest of an endpoint ---- */

static ssize_t uetp_alias_cancel(fid_t fid, void *context)
{
	struct uetp_alias *a = uet_container_of(fid, struct uetp_alias,
						 fid.fid);

	return fi_cancel(&a->ep->fid.fid, context);
}

static int uetp_alias_getopt(fid_t fid, int level, int name, void *optval,
			     size_t *optlen)
{
	struct uetp_alias *a = uet_container_of(fid, struct uetp_alias,
						 fid.fid);

	return fi_getopt(&a->ep->fid.fid, level, name, optval, optlen);
}

static int uetp_alias_setopt(fid_t fid, int level, int name,
			     const void *optval, size_t optlen)
{
	struct uetp_alias *a = uet_container_of(fid, struct uetp_alias,
						 fid.fid);

	return fi_setopt(&a->ep->fid.fid, level, name, optval, optlen);
}

static ssize_t uetp_alias_rx_size_left(struct fid_ep *a)
{
	struct fid_ep *ep = &uetp_alias_target(a)->fid;

	return ep->ops->rx_size_left(ep);
}

static ssize_t uetp_alias_tx_size_left(struct fid_ep *a)
{
	struct fid_ep *ep = &uetp_alias_target(a)->fid;

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
	struct uetp_alias *a = uet_container_of(fid, struct uetp_alias,
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
	free(uet_container_of(fid, struct uetp_alias, fid.fid));
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
	a->fid.msg = ep->fid.msg;
	a->fid.tagged = ep->fid.tagged;
	a->fid.rma = ep->fid.rma;
	a->fid.atomic = ep->fid.atomic;
	a->fid.collective = ep->fid.collective;
	*arg->fid = &a->fid.fid;
	return 0;
}
