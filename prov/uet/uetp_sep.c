/* Scalable endpoints (fi_scalable_ep, fi_tx_context, fi_rx_context,
 * FI_NAMED_RX_CTX, fi_rx_addr).
 *
 * A scalable endpoint is one UET endpoint: one port, one name, one engine
 * opened with cfg.rx_ctx_count = ep_attr->rx_ctx_cnt. Its receive context
 * i is the engine's receive context i, which peers reach at the
 * endpoint's resource index + i: fi_rx_addr(addr, i, rx_ctx_bits) puts i
 * in the top bits of the fi_addr, the sender's engine writes it into the
 * SES header's resource_index, and the target's engine matches the
 * message only against the receives (and unexpected messages) of context
 * i. An index the endpoint does not serve is refused with RC_BAD_INDEX.
 * Without an index (FI_NAMED_RX_CTX not used) messages go to context 0.
 *
 * Its transmit contexts all send from that one engine; they differ in the
 * CQ, counters and op_flags their operations report to. Contexts are
 * struct uetp_ep with `base` set: no port or engine of their own, the
 * scalable endpoint's lock, their own request pools, CQs and counters;
 * progress and waits on a context are those of its base (uetp_ep_io).
 * Remote CQ data of RMA writes lands in rx context 0's CQ.
 *
 * A context closed while operations of it are still in the engine (sends
 * in flight) cannot be freed: the engine would complete into freed
 * requests. It is detached from its CQs and counters and freed with the
 * scalable endpoint, whose engine goes first.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uet/err.h"
#include "uetp.h"

/* Caps a transmit or a receive context keeps of its endpoint's. */
#define UETP_SEP_TX_DROP	(FI_RECV | FI_REMOTE_READ | FI_REMOTE_WRITE | \
				 FI_MULTI_RECV | FI_DIRECTED_RECV | \
				 FI_SOURCE | FI_RMA_EVENT)
#define UETP_SEP_RX_KEEP	(FI_MSG | FI_TAGGED | FI_RECV | \
				 FI_DIRECTED_RECV | FI_MULTI_RECV | FI_SOURCE)

static struct fi_ops_msg uetp_sep_tx_msg, uetp_sep_rx_msg;
static struct fi_ops_tagged uetp_sep_tx_tagged, uetp_sep_rx_tagged;
static struct fi_ops_ep uetp_sep_ep_ops;
static pthread_once_t uetp_sep_once = PTHREAD_ONCE_INIT;

static int uetp_sep_tx_ctx(struct fid_ep *sep, int index,
			   struct fi_tx_attr *attr, struct fid_ep **tx_ep,
			   void *context);
static int uetp_sep_rx_ctx(struct fid_ep *sep, int index,
			   struct fi_rx_attr *attr, struct fid_ep **rx_ep,
			   void *context);

/* A table whose sends are send's and whose receives are recv's. */
static void uetp_sep_msg_ops(struct fi_ops_msg *t,
			     const struct fi_ops_msg *send,
			     const struct fi_ops_msg *recv)
{
	*t = *send;
	t->recv = recv->recv;
	t->recvv = recv->recvv;
	t->recvmsg = recv->recvmsg;
}

static void uetp_sep_tagged_ops(struct fi_ops_tagged *t,
				const struct fi_ops_tagged *send,
				const struct fi_ops_tagged *recv)
{
	*t = *send;
	t->recv = recv->recv;
	t->recvv = recv->recvv;
	t->recvmsg = recv->recvmsg;
}

/* A transmit context only sends, a receive context only receives. */
static void uetp_sep_ops_init(void)
{
	uetp_sep_msg_ops(&uetp_sep_tx_msg, &uetp_msg_ops, &uetp_enosys_msg);
	uetp_sep_msg_ops(&uetp_sep_rx_msg, &uetp_enosys_msg, &uetp_msg_ops);
	uetp_sep_tagged_ops(&uetp_sep_tx_tagged, &uetp_tagged_ops,
			    &uetp_enosys_tagged);
	uetp_sep_tagged_ops(&uetp_sep_rx_tagged, &uetp_enosys_tagged,
			    &uetp_tagged_ops);
	uetp_sep_ep_ops = uetp_enosys_ep;
	uetp_sep_ep_ops.getopt = uetp_ep_ops.getopt;
	uetp_sep_ep_ops.setopt = uetp_ep_ops.setopt;
	uetp_sep_ep_ops.tx_ctx = uetp_sep_tx_ctx;
	uetp_sep_ep_ops.rx_ctx = uetp_sep_rx_ctx;
}

static struct uetp_ep *uetp_sep_ep(struct fid *fid)
{
	return uet_container_of(fid, struct uetp_ep, fid.fid);
}

/* Slot i of t's contexts, the transmit ones first, then the receive
 * ones (i < tx_cnt + rx_cnt). */
static struct uetp_ep **uetp_sep_slot(const struct uetp_sep *t, size_t i)
{
	return i < t->tx_cnt ? &t->tx[i] : &t->rx[i - t->tx_cnt];
}

void uetp_sep_engine_changed(struct uetp_ep *ep)
{
	struct uetp_sep *t = ep->sep;

	for (size_t i = 0; t && i < t->tx_cnt + t->rx_cnt; i++)
		if (*uetp_sep_slot(t, i))
			(*uetp_sep_slot(t, i))->fep = ep->fep;
}

/* ---- contexts ---- */

static bool uetp_sep_ctx_busy(const struct uetp_ep *ctx)
{
	for (size_t i = 0; i < ctx->nreqs; i++)
		if (ctx->reqs[i].in_use)
			return true;
	return false;
}

static void uetp_sep_ctx_free(struct uetp_ep *ctx)
{
	uetp_lock_destroy(&ctx->lock);
	free(ctx->reqs);
	fi_freeinfo(ctx->info);
	free(ctx);
}

static void uetp_sep_ctx_unref(struct uetp_ep *ctx)
{
	struct uetp_cntr **slots[UETP_EP_CNTRS];

	if (ctx->av)
		atomic_fetch_sub(&ctx->av->ref, 1);
	if (ctx->tx_cq)
		atomic_fetch_sub(&ctx->tx_cq->ref, 1);
	if (ctx->rx_cq)
		atomic_fetch_sub(&ctx->rx_cq->ref, 1);
	uetp_ep_cntrs(ctx, slots);
	for (int i = 0; i < UETP_EP_CNTRS; i++)
		if (*slots[i])
			atomic_fetch_sub(&(*slots[i])->ref, 1);
	if (ctx->eq)
		atomic_fetch_sub(&ctx->eq->ref, 1);
	atomic_fetch_sub(&ctx->domain->ref, 1);
}

static int uetp_sep_ctx_close(struct fid *fid)
{
	struct uetp_ep *ctx = uetp_sep_ep(fid);
	struct uetp_ep *base = ctx->base;
	struct uetp_sep *t = base->sep;

	if (ctx->enabled)
		uetp_ep_unhook(ctx);
	uetp_lock_acquire(&ctx->lock);
	/* whatever still completes reports nowhere */
	for (size_t i = 0; i < ctx->nreqs; i++) {
		struct uetp_req *r = &ctx->reqs[i];

		if (r->in_use && r->reserved && r->cq)
			uetp_cq_unreserve(r->cq);
		r->reserved = false;
		r->cq = NULL;
		r->cntr = NULL;
		r->want_comp = false;
	}
	for (size_t i = 0; i < ctx->nreqs; i++) {
		struct uetp_req *r = &ctx->reqs[i];

		if (r->in_use && !r->claimed && !uetp_op_is_tx(r->type))
			(void)uet_fep_cancel(base->fep, r);
	}
	for (size_t i = 0; i < t->tx_cnt + t->rx_cnt; i++)
		if (*uetp_sep_slot(t, i) == ctx)
			*uetp_sep_slot(t, i) = NULL;
	uetp_lock_release(&ctx->lock);
	uetp_sep_ctx_unref(ctx);
	if (!uetp_sep_ctx_busy(ctx)) {
		uetp_sep_ctx_free(ctx);
		return 0;
	}
	if (t->ndead == t->dead_cap) {
		size_t cap = t->dead_cap ? 2 * t->dead_cap : 4;
		struct uetp_ep **d = realloc(t->dead, cap * sizeof(*d));

		if (!d)
			return -FI_ENOMEM;
		t->dead = d;
		t->dead_cap = cap;
	}
	t->dead[t->ndead++] = ctx;
	return 0;
}

static int uetp_sep_ctx_bind(struct fid *fid, struct fid *bfid,
			     uint64_t flags)
{
	/* the address vector is the scalable endpoint's */
	if (bfid->fclass != FI_CLASS_CQ && bfid->fclass != FI_CLASS_CNTR)
		return -FI_EINVAL;
	return uetp_ep_bind(fid, bfid, flags);
}

static int uetp_sep_ctx_control(struct fid *fid, int command, void *arg)
{
	struct uetp_ep *ctx = uetp_sep_ep(fid);

	if (command == FI_ENABLE && !ctx->enabled && !ctx->av &&
	    ctx->base->av) {
		ctx->av = ctx->base->av;
		atomic_fetch_add(&ctx->av->ref, 1);
	}
	return uetp_ep_control(fid, command, arg);
}

static struct fi_ops uetp_sep_ctx_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uetp_sep_ctx_close,
	.bind = uetp_sep_ctx_bind,
	.control = uetp_sep_ctx_control,
	.ops_open = uetp_enosys_ops_open,
	.tostr = uetp_enosys_tostr,
	.ops_set = uetp_enosys_ops_set,
};

static void uetp_sep_ctx_ops(struct uetp_ep *ctx, bool tx)
{
	bool dgram = uetp_dgram_ep(ctx->base->info);

	ctx->fid.fid.ops = &uetp_sep_ctx_fi_ops;
	ctx->fid.ops = &uetp_ep_ops;
	ctx->fid.cm = &uetp_enosys_cm;
	ctx->fid.msg = tx ? &uetp_sep_tx_msg : &uetp_sep_rx_msg;
	ctx->fid.tagged = dgram ? &uetp_enosys_tagged :
			  tx ? &uetp_sep_tx_tagged : &uetp_sep_rx_tagged;
	ctx->fid.rma = tx && !dgram && (ctx->caps & FI_RMA) ?
		       &uetp_rma_ops : &uetp_enosys_rma;
	ctx->fid.atomic = tx && !dgram && (ctx->caps & FI_ATOMIC) ?
			  &uetp_atomic_ops : &uetp_enosys_atomic;
	ctx->fid.collective = &uetp_enosys_collective;
}

/* What fi_tx_attr or fi_rx_attr asks of a context. */
struct uetp_sep_ctx_attr {
	uint64_t caps, op_flags;
	size_t size;
};

/* One context of base: tx, or rx context `index` of the engine; attr
 * NULL takes the endpoint's. */
static int uetp_sep_ctx_open(struct uetp_ep *base, int index, bool tx,
			     const struct uetp_sep_ctx_attr *attr,
			     struct fid_ep **out, void *context)
{
	uint64_t ok = tx ? UETP_TX_OP_FLAGS : UETP_RX_OP_FLAGS, caps = 0;
	uint64_t op_flags = tx ? base->tx_op_flags : base->rx_op_flags;
	size_t size = tx ? base->cfg.tx_depth : base->cfg.rx_depth;
	size_t cnt = tx ? base->sep->tx_cnt : base->sep->rx_cnt;
	struct uetp_ep **slot;
	struct uetp_ep *ctx;
	int ret;

	if (attr) {
		if ((attr->op_flags & ~ok) || attr->size > UETP_SIZE_MAX)
			return -FI_EINVAL;
		caps = attr->caps;
		op_flags = attr->op_flags;
		if (attr->size)
			size = attr->size;
	}
	if (!out || index < 0 || (size_t)index >= cnt)
		return -FI_EINVAL;
	slot = uetp_sep_slot(base->sep, tx ? (size_t)index :
			     base->sep->tx_cnt + (size_t)index);
	if (*slot)
		return -FI_EBUSY;	/* open already */
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -FI_ENOMEM;
	ctx->domain = base->domain;
	ctx->base = base;
	ctx->timer_fd = -1;
	uet_list_init(&ctx->dom_entry);
	ctx->info = fi_dupinfo(base->info);
	uetp_lock_init(&ctx->lock, base->domain->locking);
	ctx->lock.to = &base->lock;
	ctx->addr_format = base->addr_format;
	ctx->caps = tx ? base->caps & ~(uint64_t)UETP_SEP_TX_DROP :
			 base->caps & (uint64_t)UETP_SEP_RX_KEEP;
	if (caps)
		ctx->caps &= caps;
	ctx->tx_op_flags = tx ? op_flags : 0;
	ctx->rx_op_flags = tx ? 0 : op_flags;
	ctx->iov_limit = base->iov_limit;
	ctx->inject_size = base->inject_size;
	ctx->min_multi_recv = base->min_multi_recv;
	ctx->rx_index = tx ? 0 : (uint16_t)index;
	ctx->cfg = base->cfg;
	ctx->cfg.tx_depth = tx ? (unsigned)size : 0;
	ctx->cfg.rx_depth = tx ? 0 : (unsigned)size;
	ctx->fep = base->fep;
	ret = ctx->info ? uetp_ep_reqs_alloc(ctx) : -FI_ENOMEM;
	if (ret) {
		uetp_sep_ctx_free(ctx);
		return ret;
	}
	ctx->fid.fid.fclass = tx ? FI_CLASS_TX_CTX : FI_CLASS_RX_CTX;
	ctx->fid.fid.context = context;
	uetp_sep_ctx_ops(ctx, tx);
	atomic_fetch_add(&ctx->domain->ref, 1);
	uetp_lock_acquire(&base->lock);
	*slot = ctx;
	uetp_lock_release(&base->lock);
	*out = &ctx->fid;
	return 0;
}

static int uetp_sep_tx_ctx(struct fid_ep *sep, int index,
			   struct fi_tx_attr *attr, struct fid_ep **tx_ep,
			   void *context)
{
	return uetp_sep_ctx_open(uetp_sep_ep(&sep->fid), index, true,
				 attr ? &(struct uetp_sep_ctx_attr){
					attr->caps, attr->op_flags, attr->size,
				 } : NULL, tx_ep, context);
}

static int uetp_sep_rx_ctx(struct fid_ep *sep, int index,
			   struct fi_rx_attr *attr, struct fid_ep **rx_ep,
			   void *context)
{
	return uetp_sep_ctx_open(uetp_sep_ep(&sep->fid), index, false,
				 attr ? &(struct uetp_sep_ctx_attr){
					attr->caps, attr->op_flags, attr->size,
				 } : NULL, rx_ep, context);
}

/* ---- the scalable endpoint ---- */

static void uetp_sep_table_free(struct uetp_sep *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ndead; i++)
		uetp_sep_ctx_free(t->dead[i]);
	free(t->dead);
	free(t->tx);
	free(t->rx);
	free(t);
}

static int uetp_sep_close(struct fid *fid)
{
	struct uetp_ep *ep = uetp_sep_ep(fid);
	struct uetp_sep *t = ep->sep;
	int ret;

	for (size_t i = 0; i < t->tx_cnt + t->rx_cnt; i++)
		if (*uetp_sep_slot(t, i))
			return -FI_EBUSY;
	/* the engine goes first: nothing completes into the closed
	 * contexts kept for it */
	ret = uetp_ep_close(fid);
	uetp_sep_table_free(t);
	return ret;
}

static int uetp_sep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	/* CQs and counters belong to the contexts */
	if (bfid->fclass != FI_CLASS_AV && bfid->fclass != FI_CLASS_EQ)
		return -FI_EINVAL;
	return uetp_ep_bind(fid, bfid, flags);
}

static struct fi_ops uetp_sep_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uetp_sep_close,
	.bind = uetp_sep_bind,
	.control = uetp_ep_control,
	.ops_open = uetp_enosys_ops_open,
	.tostr = uetp_enosys_tostr,
	.ops_set = uetp_enosys_ops_set,
};

/* A count of contexts: 0 means one; a scalable endpoint shares none. */
static size_t uetp_sep_count(size_t n)
{
	if (n == FI_SHARED_CONTEXT || n > UETP_SEP_CTX_MAX)
		return 0;
	return n ? n : 1;
}

int uetp_sep_open(struct fid_domain *domain, struct fi_info *info,
		  struct fid_ep **sepp, void *context)
{
	struct uetp_domain *dom = uet_container_of(domain, struct uetp_domain,
						    fid);
	size_t ntx, nrx;
	struct uetp_sep *t;
	struct uetp_ep *ep;
	struct fid_ep *fid;
	int ret;

	if (!info)
		info = dom->info;
	if (!sepp || !info->ep_attr)
		return -FI_EINVAL;
	ntx = uetp_sep_count(info->ep_attr->tx_ctx_cnt);
	nrx = uetp_sep_count(info->ep_attr->rx_ctx_cnt);
	if (!ntx || !nrx)
		return -FI_EINVAL;
	pthread_once(&uetp_sep_once, uetp_sep_ops_init);
	t = calloc(1, sizeof(*t));
	if (t) {
		t->tx = calloc(ntx, sizeof(*t->tx));
		t->rx = calloc(nrx, sizeof(*t->rx));
	}
	if (!t || !t->tx || !t->rx) {
		uetp_sep_table_free(t);
		return -FI_ENOMEM;
	}
	t->tx_cnt = ntx;
	t->rx_cnt = nrx;
	ret = uetp_ep_create(domain, info, &fid, context);
	if (ret) {
		uetp_sep_table_free(t);
		return ret;
	}
	ep = uet_container_of(fid, struct uetp_ep, fid);
	ep->sep = t;
	/* one engine receive context (resource index) per rx context */
	uetp_lock_acquire(&ep->lock);
	ep->cfg.rx_ctx_count = (uint16_t)nrx;
	ret = uetp_ep_engine_renew(ep);
	uetp_lock_release(&ep->lock);
	if (ret) {
		ep->sep = NULL;
		uetp_ep_close(&fid->fid);
		uetp_sep_table_free(t);
		return ret;
	}
	ep->fid.fid.fclass = FI_CLASS_SEP;
	ep->fid.fid.ops = &uetp_sep_fi_ops;
	ep->fid.ops = &uetp_sep_ep_ops;
	ep->fid.msg = &uetp_enosys_msg;
	ep->fid.tagged = &uetp_enosys_tagged;
	ep->fid.rma = &uetp_enosys_rma;
	ep->fid.atomic = &uetp_enosys_atomic;
	*sepp = &ep->fid;
	return 0;
}
