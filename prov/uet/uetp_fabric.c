/* fid_fabric: a Fabric Plane (its subnet). Holds domains and EQs; owns
 * fi_trywait, which is where FI_WAIT_FD users let us run progress. */
#include <stdlib.h>
#include <string.h>

#include "uetp.h"

static int uetp_fabric_close(struct fid *fid)
{
	struct uetp_fabric *fab = uet_container_of(fid, struct uetp_fabric,
						    fid.fid);

	if (atomic_load(&fab->ref))
		return -FI_EBUSY;
	free(fab->name);
	free(fab);
	return 0;
}

static int uetp_domain2(struct fid_fabric *fabric, struct fi_info *info,
			struct fid_domain **dom, uint64_t flags, void *context)
{
	if (flags)
		return -FI_EBADFLAGS;
	return uetp_domain_open(fabric, info, dom, context);
}

static int uetp_trywait_cq(struct uetp_cq *cq)
{
	if (!cq->wait)
		return -FI_EINVAL;
	atomic_store(&cq->wait->armed, true);
	uetp_wait_drain(cq->wait);
	uetp_progress_set_run(&cq->eps);
	if (uetp_cq_count(cq) || atomic_load(&cq->signaled) ||
	    uetp_progress_set_tx_pending(&cq->eps))
		return -FI_EAGAIN;
	uetp_progress_set_arm(&cq->eps);
	return 0;
}

static int uetp_trywait_cntr(struct uetp_cntr *cntr)
{
	if (!cntr->wait)
		return -FI_EINVAL;
	atomic_store(&cntr->wait->armed, true);
	uetp_wait_drain(cntr->wait);
	uetp_progress_set_run(&cntr->eps);
	/* a new error is an event too: fi_cntr_readerr has it */
	if (atomic_load(&cntr->value) != cntr->last_read ||
	    atomic_load(&cntr->err) != cntr->last_err ||
	    uetp_progress_set_tx_pending(&cntr->eps))
		return -FI_EAGAIN;
	uetp_progress_set_arm(&cntr->eps);
	return 0;
}

static int uetp_trywait_eq(struct uetp_eq *eq)
{
	size_t n;

	if (!eq->wait)
		return -FI_EINVAL;
	uetp_wait_drain(eq->wait);
	pthread_mutex_lock(&eq->lock);
	n = eq->count;
	pthread_mutex_unlock(&eq->lock);
	return n ? -FI_EAGAIN : 0;
}

/* fi_poll.3: run progress; -FI_EAGAIN when something is already there,
 * else arm what wakes the fd and return 0 (the caller may then sleep). */
int uetp_fabric_trywait(struct fid_fabric *fabric, struct fid **fids, int count)
{
	int ret;

	(void)fabric;
	for (int i = 0; i < count; i++) {
		switch (fids[i]->fclass) {
		case FI_CLASS_CQ:
			ret = uetp_trywait_cq(uet_container_of(fids[i],
					struct uetp_cq, fid.fid));
			break;
		case FI_CLASS_CNTR:
			ret = uetp_trywait_cntr(uet_container_of(fids[i],
					struct uetp_cntr, fid.fid));
			break;
		case FI_CLASS_EQ:
			ret = uetp_trywait_eq(uet_container_of(fids[i],
					struct uetp_eq, fid.fid));
			break;
		case FI_CLASS_WAIT:
			ret = uetp_waitset_trywait(fids[i]);
			break;
		default:
			ret = -FI_EINVAL;
		}
		if (ret)
			return ret;
	}
	return 0;
}

static struct fi_ops uetp_fabric_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uetp_fabric_close,
	.bind = uetp_enosys_bind,
	.control = uetp_enosys_control,
	.ops_open = uetp_enosys_ops_open,
	.tostr = uetp_enosys_tostr,
	.ops_set = uetp_enosys_ops_set,
};

static struct fi_ops_fabric uetp_fabric_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = uetp_domain_open,
	.passive_ep = uetp_enosys_passive_ep,
	.eq_open = uetp_eq_open,
	.wait_open = uetp_waitset_open,
	.trywait = uetp_fabric_trywait,
	.domain2 = uetp_domain2,
};

int uetp_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		void *context)
{
	struct uetp_fabric *fab;

	if (!attr || !attr->name)
		return -FI_EINVAL;
	fab = calloc(1, sizeof(*fab));
	if (!fab)
		return -FI_ENOMEM;
	fab->name = strdup(attr->name);
	if (!fab->name) {
		free(fab);
		return -FI_ENOMEM;
	}
	atomic_init(&fab->ref, 0);
	fab->fid.fid.fclass = FI_CLASS_FABRIC;
	fab->fid.fid.context = context;
	fab->fid.fid.ops = &uetp_fabric_fi_ops;
	fab->fid.ops = &uetp_fabric_ops;
	*fabric = &fab->fid;
	return 0;
}
