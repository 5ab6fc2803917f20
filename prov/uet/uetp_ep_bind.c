/* fi_ep_bind and fi_enable of an endpoint: the CQs, counters, AV and EQ
 * it reports to, and the hooks that make those objects' reads and waits
 * run its progress (their endpoint sets, their wait objects' fds, the
 * domain's list for MR counters and the progress thread).
 */
#include "uetp.h"

void uetp_ep_cntrs(struct uetp_ep *ep, struct uetp_cntr ***slots)
{
	slots[0] = &ep->tx_cntr;
	slots[1] = &ep->rx_cntr;
	slots[2] = &ep->rd_cntr;
	slots[3] = &ep->wr_cntr;
	slots[4] = &ep->rrd_cntr;
	slots[5] = &ep->rwr_cntr;
}

bool uetp_ep_binds_cntr(struct uetp_ep *ep, const struct uetp_cntr *cntr)
{
	struct uetp_cntr **slots[UETP_EP_CNTRS];

	uetp_ep_cntrs(ep, slots);
	for (int i = 0; i < UETP_EP_CNTRS; i++)
		if (*slots[i] == cntr)
			return true;
	return false;
}

/* A context waits on its scalable endpoint's socket and timer. */
static int uetp_ep_hook_wait(struct uetp_ep *ep, struct uetp_wait *w)
{
	struct uetp_ep *io = uetp_ep_io(ep);
	int ret;

	if (!w || ep->domain->prog)
		return 0;	/* the progress thread reads the sockets */
	ret = uetp_wait_add_fd(w, io->net->ops->fd(io->net));
	if (!ret)
		ret = uetp_wait_add_fd(w, io->timer_fd);
	return ret;
}

static void uetp_ep_unhook_wait(struct uetp_ep *ep, struct uetp_wait *w)
{
	struct uetp_ep *io = uetp_ep_io(ep);

	if (!w)
		return;
	uetp_wait_del_fd(w, io->net->ops->fd(io->net));
	uetp_wait_del_fd(w, io->timer_fd);
}

int uetp_ep_hook_cntr(struct uetp_ep *ep, struct uetp_cntr *cntr)
{
	int ret = uetp_progress_set_add(&cntr->eps, ep);

	return ret ? ret : uetp_ep_hook_wait(ep, cntr->wait);
}

void uetp_ep_unhook_cntr(struct uetp_ep *ep, struct uetp_cntr *cntr)
{
	uetp_progress_set_del(&cntr->eps, ep);
	uetp_ep_unhook_wait(ep, cntr->wait);
}

void uetp_ep_unhook(struct uetp_ep *ep)
{
	struct uetp_cntr **slots[UETP_EP_CNTRS];
	struct uet_list *e;

	pthread_mutex_lock(&ep->domain->lock);
	/* counters of MRs make progress on every endpoint (their remote
	 * events come through any of them); a context was never hooked */
	for (e = ep->domain->mrs.next; !ep->base && e != &ep->domain->mrs;
	     e = e->next) {
		struct uetp_mr *mr = uet_container_of(e, struct uetp_mr,
						       dom_entry);

		if (mr->cntr)
			uetp_ep_unhook_cntr(ep, mr->cntr);
	}
	if (!ep->base) {
		uet_list_del(&ep->dom_entry);
		ep->domain->eps_gen++;
		uetp_mr_ep_close(ep);
	}
	pthread_mutex_unlock(&ep->domain->lock);
	if (ep->tx_cq) {
		uetp_progress_set_del(&ep->tx_cq->eps, ep);
		uetp_ep_unhook_wait(ep, ep->tx_cq->wait);
	}
	if (ep->rx_cq) {
		uetp_progress_set_del(&ep->rx_cq->eps, ep);
		uetp_ep_unhook_wait(ep, ep->rx_cq->wait);
	}
	uetp_ep_cntrs(ep, slots);
	for (int i = 0; i < UETP_EP_CNTRS; i++)
		if (*slots[i])
			uetp_ep_unhook_cntr(ep, *slots[i]);
}

static int uetp_ep_bind_cq(struct uetp_ep *ep, struct uetp_cq *cq,
			   uint64_t flags)
{
	if (flags & ~(uint64_t)(FI_TRANSMIT | FI_RECV |
				FI_SELECTIVE_COMPLETION))
		return -FI_EBADFLAGS;
	if (!(flags & (FI_TRANSMIT | FI_RECV)))
		return -FI_EBADFLAGS;
	if (((flags & FI_TRANSMIT) && ep->tx_cq) ||
	    ((flags & FI_RECV) && ep->rx_cq))
		return -FI_EINVAL;
	if (flags & FI_TRANSMIT) {
		ep->tx_cq = cq;
		ep->tx_selective = !!(flags & FI_SELECTIVE_COMPLETION);
		atomic_fetch_add(&cq->ref, 1);
	}
	if (flags & FI_RECV) {
		ep->rx_cq = cq;
		ep->rx_selective = !!(flags & FI_SELECTIVE_COMPLETION);
		atomic_fetch_add(&cq->ref, 1);
	}
	return 0;
}

static int uetp_ep_bind_cntr(struct uetp_ep *ep, struct uetp_cntr *cntr,
			     uint64_t flags)
{
	static const uint64_t kinds[UETP_EP_CNTRS] = {
		FI_SEND, FI_RECV, FI_READ, FI_WRITE, FI_REMOTE_READ,
		FI_REMOTE_WRITE,
	};
	struct uetp_cntr **slots[UETP_EP_CNTRS];

	if (!flags || (flags & ~(uint64_t)(FI_SEND | FI_RECV | FI_READ |
					   FI_WRITE | FI_REMOTE_READ |
					   FI_REMOTE_WRITE)))
		return -FI_EBADFLAGS;
	if (cntr->domain != ep->domain)
		return -FI_EINVAL;
	/* fi_endpoint.3: remote events need an FI_RMA_EVENT endpoint */
	if ((flags & (FI_REMOTE_READ | FI_REMOTE_WRITE)) &&
	    !(ep->caps & FI_RMA_EVENT))
		return -FI_EINVAL;
	uetp_ep_cntrs(ep, slots);
	for (int i = 0; i < UETP_EP_CNTRS; i++)
		if ((flags & kinds[i]) && *slots[i])
			return -FI_EINVAL;	/* one counter per kind */
	for (int i = 0; i < UETP_EP_CNTRS; i++) {
		if (!(flags & kinds[i]))
			continue;
		*slots[i] = cntr;
		atomic_fetch_add(&cntr->ref, 1);
	}
	return 0;
}

int uetp_ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct uetp_ep *ep = uet_container_of(fid, struct uetp_ep, fid.fid);
	struct uetp_av *av;
	struct uetp_eq *eq;

	if (ep->enabled)
		return -FI_EOPBADSTATE;
	switch (bfid->fclass) {
	case FI_CLASS_AV:
		av = uet_container_of(bfid, struct uetp_av, fid.fid);
		if (ep->av || av->domain != ep->domain)
			return -FI_EINVAL;
		ep->av = av;
		atomic_fetch_add(&av->ref, 1);
		return 0;
	case FI_CLASS_CQ:
		return uetp_ep_bind_cq(ep, uet_container_of(bfid,
				       struct uetp_cq, fid.fid), flags);
	case FI_CLASS_CNTR:
		return uetp_ep_bind_cntr(ep, uet_container_of(bfid,
					 struct uetp_cntr, fid.fid), flags);
	case FI_CLASS_EQ:
		if (ep->eq)
			return -FI_EINVAL;
		eq = uet_container_of(bfid, struct uetp_eq, fid.fid);
		ep->eq = eq;
		atomic_fetch_add(&eq->ref, 1);
		return 0;
	case FI_CLASS_SRX_CTX:
		return uetp_srx_bind_ep(ep, uet_container_of(bfid,
					struct uetp_srx, fid.fid));
	case FI_CLASS_STX_CTX:
		return uetp_stx_bind_ep(ep, uet_container_of(bfid,
					struct uetp_stx, fid.fid));
	}
	return -FI_EINVAL;
}

/* Hook into the domain (MRs, their counters, the progress thread's
 * list); domain->lock held. */
static int uetp_ep_enable_domain(struct uetp_ep *ep)
{
	struct uetp_domain *dom = ep->domain;
	struct uet_list *e;
	int ret;

	ret = uetp_mr_ep_enable(ep);
	for (e = dom->mrs.next; !ret && e != &dom->mrs; e = e->next) {
		struct uetp_mr *mr = uet_container_of(e, struct uetp_mr,
						       dom_entry);

		if (mr->cntr)
			ret = uetp_ep_hook_cntr(ep, mr->cntr);
	}
	uet_list_add_tail(&dom->eps, &ep->dom_entry);
	dom->eps_gen++;
	return ret;
}

int uetp_ep_enable(struct uetp_ep *ep)
{
	struct uetp_cntr **slots[UETP_EP_CNTRS];
	int ret = 0;

	if (ep->enabled)
		return 0;
	if (!ep->av)
		return -FI_ENOAV;
	/* fi_endpoint.3: every kind of transfer needs a CQ (or counter)
	 * that can report it, even if only its errors (a scalable
	 * endpoint transfers nothing itself: its contexts do) */
	if ((ep->caps & FI_SEND) && !ep->tx_cq && !ep->tx_cntr && !ep->sep)
		return -FI_ENOCQ;
	if ((ep->caps & FI_RECV) && !ep->rx_cq && !ep->rx_cntr && !ep->sep)
		return -FI_ENOCQ;
	if ((ep->caps & FI_WRITE) && !ep->tx_cq && !ep->wr_cntr && !ep->sep)
		return -FI_ENOCQ;
	if ((ep->caps & FI_READ) && !ep->tx_cq && !ep->rd_cntr && !ep->sep)
		return -FI_ENOCQ;

	if (ep->tx_cq)
		ret = uetp_progress_set_add(&ep->tx_cq->eps, ep);
	if (!ret && ep->rx_cq)
		ret = uetp_progress_set_add(&ep->rx_cq->eps, ep);
	if (!ret && ep->tx_cq)
		ret = uetp_ep_hook_wait(ep, ep->tx_cq->wait);
	if (!ret && ep->rx_cq)
		ret = uetp_ep_hook_wait(ep, ep->rx_cq->wait);
	uetp_ep_cntrs(ep, slots);
	for (int i = 0; !ret && i < UETP_EP_CNTRS; i++)
		if (*slots[i])
			ret = uetp_ep_hook_cntr(ep, *slots[i]);
	/* a context's engine is its scalable endpoint's, which the domain
	 * knows (MRs, the progress thread) */
	pthread_mutex_lock(&ep->domain->lock);
	if (!ret && !ep->base)
		ret = uetp_ep_enable_domain(ep);
	else if (!ep->base)
		uet_list_add_tail(&ep->domain->eps, &ep->dom_entry);
	pthread_mutex_unlock(&ep->domain->lock);
	ep->enabled = true;
	if (ret) {
		uetp_ep_unhook(ep);
		ep->enabled = false;
		return ret;
	}
	if (ep->domain->prog)
		uetp_progress_kick(ep->domain, 0);
	return 0;
}
