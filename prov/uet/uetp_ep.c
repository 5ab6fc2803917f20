/* fid_ep (FI_EP_RDM): one struct uet_fep with its own UDP port.
 *
 * The port and the engine are opened by fi_endpoint already, so that
 * fi_getname answers before fi_enable (its name is the FA and UDP home
 * port, which is how peers reach it); fi_setname before fi_enable moves it
 * to another port. fi_enable checks the bindings and hooks the endpoint
 * into the progress machinery of its CQs and counters.
 *
 * Here: open, close, the fid/CM/endpoint ops and the stats dump. The
 * engine, its callbacks and the request pool are in uetp_ep_engine.c,
 * bind and enable in uetp_ep_bind.c; shared contexts and scalable
 * endpoints in uetp_stx.c, uetp_srx.c, uetp_sep.c.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "uet/err.h"
#include "uet/udp.h"
#include "uetp.h"

/* ---- fi_ops ---- */

/* Append to the stats line (bounded; a cut line still ends the dump). */
#define UETP_STATS_PUT(...)						\
	do {								\
		if (n < sizeof(line))					\
			n += (size_t)snprintf(line + n, sizeof(line) - n,	\
					      __VA_ARGS__);		\
	} while (0)

/* A line per congestion context: window, base RTT, ECN share. */
static void uetp_ep_cc_dump(struct uetp_ep *ep, const char *name)
{
	struct uet_cc_info cc[16];
	size_t k = uet_fep_cc_info(ep->fep, cc, 16);
	char line[320], peer[96];

	for (size_t i = 0; i < k && i < 16; i++) {
		uint64_t all = cc[i].acks + cc[i].ecn_acks;
		int n;

		uet_addr_str(peer, sizeof(peer), &cc[i].peer);
		n = snprintf(line, sizeof(line),
			"uet cc %s -> %s: %s cwnd %lld inflight %lld "
			"base_rtt_ns %lld rtt_ns %lld acks %llu ecn_frac %.4f "
			"active %d\n", name, peer, cc[i].algo,
			(long long)cc[i].cwnd, (long long)cc[i].inflight,
			cc[i].base_rtt == UET_TIME_NONE ? -1LL :
			(long long)cc[i].base_rtt,
			cc[i].rtt_last == UET_TIME_NONE ? -1LL :
			(long long)cc[i].rtt_last,
			(unsigned long long)all,
			all ? (double)cc[i].ecn_acks / (double)all : 0.0,
			cc[i].active);
		if (n > 0 && write(STDERR_FILENO, line,
				   (size_t)n < sizeof(line) ? (size_t)n :
				   sizeof(line) - 1) < 0)
			return;
	}
}

static void uetp_ep_stats_dump(struct uetp_ep *ep)
{
	struct uet_fep_stats s;
	struct uet_udp_stats u;
	char name[96], line[2048];
	size_t n = 0;

	uet_fep_stats(ep->fep, &s);
	uet_udp_stats(ep->net, &u);
	uet_addr_str(name, sizeof(name), &ep->name.addr);
	UETP_STATS_PUT(
		"uet stats %s: tx_pkts %llu rx_pkts %llu tx_bytes %llu "
		"rx_bytes %llu retx_rto %llu retx_nack %llu retx_sack %llu "
		"retx_tlp %llu retx_spurious %llu acks_tx %llu "
		"acks_rx %llu nacks_tx %llu nacks_rx %llu sack_gaps %llu "
		"dup_rx %llu drop_malformed %llu drop_job %llu drop_pdc %llu "
		"drop_psn %llu drop_other %llu pdc_open %llu pdc_closed %llu "
		"pdc_failed %llu unexp_msgs %llu cl_tx %llu cl_rx %llu "
		"udp_would_block %llu udp_gso_trains %llu udp_gro_trains %llu "
		"udp_rx_dropped %llu udp_plane_down %llu tx_refused %llu",
		name, (unsigned long long)s.tx_pkts,
		(unsigned long long)s.rx_pkts, (unsigned long long)s.tx_bytes,
		(unsigned long long)s.rx_bytes,
		(unsigned long long)s.retx_rto,
		(unsigned long long)s.retx_nack,
		(unsigned long long)s.retx_sack,
		(unsigned long long)s.retx_tlp,
		(unsigned long long)s.retx_spurious,
		(unsigned long long)s.acks_tx, (unsigned long long)s.acks_rx,
		(unsigned long long)s.nacks_tx,
		(unsigned long long)s.nacks_rx,
		(unsigned long long)s.sack_gaps,
		(unsigned long long)s.dup_rx,
		(unsigned long long)s.drop_malformed,
		(unsigned long long)s.drop_job,
		(unsigned long long)s.drop_pdc,
		(unsigned long long)s.drop_psn,
		(unsigned long long)s.drop_other,
		(unsigned long long)s.pdc_open,
		(unsigned long long)s.pdc_closed,
		(unsigned long long)s.pdc_failed,
		(unsigned long long)s.unexp_msgs,
		(unsigned long long)s.cl_tx, (unsigned long long)s.cl_rx,
		(unsigned long long)u.would_block,
		(unsigned long long)u.gso_trains,
		(unsigned long long)u.gro_trains,
		(unsigned long long)u.rx_dropped,
		(unsigned long long)u.plane_down,
		(unsigned long long)ep->tx_dropped);
	UETP_STATS_PUT(" rx_placed %llu rx_unplaced %llu rx_misplaced %llu",
		(unsigned long long)u.placed, (unsigned long long)u.unplaced,
		(unsigned long long)ep->misplaced);
	/* one-sided work: return-direction (read, rendezvous) packets and
	 * requests served or refused as a target */
	UETP_STATS_PUT(" ret_tx %llu ret_rx %llu rma_rx %llu rma_refused %llu",
		(unsigned long long)s.ret_tx, (unsigned long long)s.ret_rx,
		(unsigned long long)s.rma_rx,
		(unsigned long long)s.rma_refused);
	UETP_STATS_PUT(" close_linger_us %llu",
		(unsigned long long)(ep->lingered / UET_USEC));
	UETP_STATS_PUT(" rescues %llu", (unsigned long long)ep->rescues);
	/* packets per message sent and per datagram read: gso_N and gro_N
	 * for N to 2N - 1 packets (uet_udp_stats) */
	for (unsigned b = 0; b < UET_UDP_TRAIN_BUCKETS; b++)
		UETP_STATS_PUT(" gso_%u %llu", 1u << b,
			       (unsigned long long)u.gso_pkts[b]);
	for (unsigned b = 0; b < UET_UDP_TRAIN_BUCKETS; b++)
		UETP_STATS_PUT(" gro_%u %llu", 1u << b,
			       (unsigned long long)u.gro_pkts[b]);
	if (ep->impair)
		UETP_STATS_PUT(" impair_dropped %llu impair_dup %llu "
			"impair_reordered %llu",
			(unsigned long long)ep->impair->dropped,
			(unsigned long long)ep->impair->duplicated,
			(unsigned long long)ep->impair->reordered);
	UETP_STATS_PUT("\n");
	/* One write: several processes often share one log. */
	if (write(STDERR_FILENO, line, n < sizeof(line) ? n : sizeof(line) - 1) < 0)
		return;
	uetp_ep_cc_dump(ep, name);
	uetp_tss_stats_dump(ep->fep, name);
}

/* Let the engine send what is due shortly (delayed ACKs above all) before
 * the port goes away, so the peer's last sends can complete. */
static void uetp_ep_flush_soon(struct uetp_ep *ep)
{
	uet_time end = uetp_now() + ep->cfg.ack_delay + UET_MSEC;
	uet_time now;

	if (end > uetp_now() + 20 * UET_MSEC)
		end = uetp_now() + 20 * UET_MSEC;
	do {
		uetp_progress_ep(ep);
		now = uetp_now();
		if (!ep->tx_pending && uetp_progress_deadline(ep) > end)
			break;
	} while (now < end);
}

/* TIME_WAIT's job: a peer whose last request we took may not have our ACK
 * (it was lost) and resend it after its RTO; were we gone, it would fail
 * a send that was delivered. So stay until every such peer has been quiet
 * for three RTOs (a resend and one more whose ACK was lost too; longer
 * after resends in a row, as the peer backs off), at most
 * FI_UET_CLOSE_LINGER_MS. Only over a real socket: the unit tests' clock
 * does not run by itself. */
static void uetp_ep_linger(struct uetp_ep *ep)
{
	uet_time now = uetp_now(), quiet = 3 * ep->cfg.rto_min;
	uet_time cap = now + (uet_time)uetp_env.close_linger_ms * UET_MSEC;
	struct pollfd pfd = { .fd = ep->net->ops->fd(ep->net),
			      .events = POLLIN };

	uetp_ep_flush_soon(ep);
	if (pfd.fd < 0)
		return;
	ep->lingered = now;
	for (;;) {
		uet_time until = uet_fep_linger_until(ep->fep, quiet);

		now = uetp_now();
		if (until > cap)
			until = cap;
		if (until <= now)
			break;
		if (poll(&pfd, 1, 1) < 0 && errno != EINTR)
			break;
		uetp_progress_ep(ep);
	}
	ep->lingered = now - ep->lingered;
	uetp_ep_flush_soon(ep);
}

static void uetp_ep_release_reqs(struct uetp_ep *ep)
{
	for (size_t i = 0; i < ep->nreqs; i++) {
		struct uetp_req *r = &ep->reqs[i];

		if (r->in_use && r->reserved && r->cq)
			uetp_cq_unreserve(r->cq);
		r->in_use = false;
	}
}

int uetp_ep_close(struct fid *fid)
{
	struct uetp_ep *ep = uet_container_of(fid, struct uetp_ep, fid.fid);

	/* triggered operations still waiting must not outlive us */
	uetp_trigger_ep_close(ep);
	if (ep->enabled)
		uetp_ep_unhook(ep);
	uetp_lock_acquire(&ep->lock);
	if (ep->fep) {
		if (ep->enabled)
			uetp_ep_linger(ep);
		if (uetp_env.stats)
			uetp_ep_stats_dump(ep);
	}
	uetp_ep_release_reqs(ep);
	uetp_ep_engine_close(ep);
	uetp_srx_unbind_ep(ep);
	uetp_stx_unbind_ep(ep);
	uetp_lock_release(&ep->lock);
	if (ep->pcap)
		uetp_pcap_put();

	if (ep->av)
		atomic_fetch_sub(&ep->av->ref, 1);
	if (ep->tx_cq)
		atomic_fetch_sub(&ep->tx_cq->ref, 1);
	if (ep->rx_cq)
		atomic_fetch_sub(&ep->rx_cq->ref, 1);
	{
		struct uetp_cntr **slots[UETP_EP_CNTRS];

		uetp_ep_cntrs(ep, slots);
		for (int i = 0; i < UETP_EP_CNTRS; i++)
			if (*slots[i])
				atomic_fetch_sub(&(*slots[i])->ref, 1);
	}
	if (ep->eq)
		atomic_fetch_sub(&ep->eq->ref, 1);
	atomic_fetch_sub(&ep->domain->ref, 1);

	if (ep->timer_fd >= 0)
		close(ep->timer_fd);
	uetp_impair_close(ep->impair);
	uetp_lock_destroy(&ep->lock);
	free(ep->reqs);
	free(ep->rx_bufs);
	free(ep->tx_bufs);
	fi_freeinfo(ep->info);
	free(ep);
	return 0;
}

static int uetp_ep_ops_flag(struct uetp_ep *ep, uint64_t *flags, bool set)
{
	uint64_t *dst;

	if (!flags)
		return -FI_EINVAL;
	if ((*flags & FI_TRANSMIT) && (*flags & FI_RECV))
		return -FI_EINVAL;
	if (*flags & FI_TRANSMIT)
		dst = &ep->tx_op_flags;
	else if (*flags & FI_RECV)
		dst = &ep->rx_op_flags;
	else
		return -FI_EINVAL;
	if (set)
		*dst = *flags & ~(uint64_t)(FI_TRANSMIT | FI_RECV);
	else
		*flags = *dst;
	return 0;
}

int uetp_ep_control(struct fid *fid, int command, void *arg)
{
	struct uetp_ep *ep = uet_container_of(fid, struct uetp_ep, fid.fid);

	switch (command) {
	case FI_ENABLE:
		return uetp_ep_enable(ep);
	case FI_GETOPSFLAG:
		return uetp_ep_ops_flag(ep, arg, false);
	case FI_SETOPSFLAG:
		return uetp_ep_ops_flag(ep, arg, true);
	case FI_ALIAS:
		return uetp_alias_open(ep, arg);
	}
	return -FI_ENOSYS;
}

/* ---- fi_ops_cm ---- */

static int uetp_ep_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct uetp_ep *ep = uet_container_of(fid, struct uetp_ep, fid.fid);
	uint8_t tmp[UETP_ADDR_LEN > sizeof(struct sockaddr_in6) ?
		    UETP_ADDR_LEN : sizeof(struct sockaddr_in6)];
	size_t len;

	if (!addrlen)
		return -FI_EINVAL;
	uetp_lock_acquire(&ep->lock);
	len = uetp_addr_len(ep->addr_format, &ep->name.addr);
	uetp_addr_encode(tmp, ep->addr_format, &ep->name);
	uetp_lock_release(&ep->lock);
	if (*addrlen < len) {
		/* fi_cm.3: report the size needed (fi_pingpong probes) */
		*addrlen = len;
		return -FI_ETOOSMALL;
	}
	memcpy(addr, tmp, len);
	*addrlen = len;
	return 0;
}

static int uetp_ep_setname(fid_t fid, void *addr, size_t addrlen)
{
	struct uetp_ep *ep = uet_container_of(fid, struct uetp_ep, fid.fid);
	struct uet_addr any = { 0 };
	struct uetp_name n;
	int ret;

	if (ep->enabled)
		return -FI_EOPBADSTATE;
	if (!addr || uetp_addr_decode(addr, addrlen, &n) < 0)
		return -FI_EINVAL;
	any.af = n.addr.af;
	if (n.addr.af != ep->domain->iface.addr.af ||
	    (memcmp(n.addr.ip, ep->domain->iface.addr.ip, 16) &&
	     memcmp(n.addr.ip, any.ip, 16)))
		return -FI_EINVAL;	/* another FEP's address */
	if (n.addr.port && n.addr.port == ep->name.addr.port)
		return 0;		/* its name already */
	uetp_lock_acquire(&ep->lock);
	ret = uetp_ep_engine_open(ep, n.addr.port);
	uetp_lock_release(&ep->lock);
	return ret;
}

/* ---- fi_ops_ep ---- */

ssize_t uetp_ep_cancel(fid_t fid, void *context)
{
	struct uetp_ep *ep = uet_container_of(fid, struct uetp_ep, fid.fid);
	ssize_t ret = -FI_ENOENT;

	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	uetp_lock_acquire(&ep->lock);
	for (size_t i = 0; i < ep->nreqs; i++) {
		struct uetp_req *r = &ep->reqs[i];

		if (!r->in_use || r->claimed || r->context != context ||
		    (r->type != UET_OP_RECV && r->type != UET_OP_TRECV))
			continue;
		if (!uet_fep_cancel(ep->fep, r)) {
			ret = 0;
			break;
		}
	}
	uetp_lock_release(&ep->lock);
	return ret;
}

static int uetp_ep_getopt(fid_t fid, int level, int optname, void *optval,
			  size_t *optlen)
{
	struct uetp_ep *ep = uet_container_of(fid, struct uetp_ep, fid.fid);

	if (level != FI_OPT_ENDPOINT)
		return -FI_ENOPROTOOPT;
	switch (optname) {
	case FI_OPT_MIN_MULTI_RECV:
		if (!optval || !optlen || *optlen < sizeof(size_t))
			return -FI_EINVAL;
		*(size_t *)optval = ep->min_multi_recv;
		*optlen = sizeof(size_t);
		return 0;
	}
	return -FI_ENOPROTOOPT;
}

static int uetp_ep_setopt(fid_t fid, int level, int optname,
			  const void *optval, size_t optlen)
{
	struct uetp_ep *ep = uet_container_of(fid, struct uetp_ep, fid.fid);

	if (level != FI_OPT_ENDPOINT)
		return -FI_ENOPROTOOPT;
	switch (optname) {
	case FI_OPT_MIN_MULTI_RECV:
		if (!optval || optlen < sizeof(size_t))
			return -FI_EINVAL;
		ep->min_multi_recv = *(const size_t *)optval;
		return 0;
	}
	return -FI_ENOPROTOOPT;
}

static ssize_t uetp_ep_rx_size_left(struct fid_ep *ep_fid)
{
	struct uetp_ep *ep = uet_container_of(ep_fid, struct uetp_ep, fid);
	size_t a, b;

	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	uetp_lock_acquire(&ep->lock);
	a = uet_fep_rx_left(ep->fep);
	b = ep->rx_nfree;
	uetp_lock_release(&ep->lock);
	return (ssize_t)(a < b ? a : b);
}

static ssize_t uetp_ep_tx_size_left(struct fid_ep *ep_fid)
{
	struct uetp_ep *ep = uet_container_of(ep_fid, struct uetp_ep, fid);
	size_t a, b;

	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	uetp_lock_acquire(&ep->lock);
	a = uet_fep_tx_left(ep->fep);
	b = ep->tx_nfree;
	uetp_lock_release(&ep->lock);
	return (ssize_t)(a < b ? a : b);
}

static struct fi_ops uetp_ep_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uetp_ep_close,
	.bind = uetp_ep_bind,
	.control = uetp_ep_control,
	.ops_open = uetp_enosys_ops_open,
	.tostr = uetp_enosys_tostr,
	.ops_set = uetp_enosys_ops_set,
};

struct fi_ops_ep uetp_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = uetp_ep_cancel,
	.getopt = uetp_ep_getopt,
	.setopt = uetp_ep_setopt,
	.tx_ctx = uetp_enosys_tx_ctx,
	.rx_ctx = uetp_enosys_rx_ctx,
	.rx_size_left = uetp_ep_rx_size_left,
	.tx_size_left = uetp_ep_tx_size_left,
};

struct fi_ops_cm uetp_ep_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = uetp_ep_setname,
	.getname = uetp_ep_getname,
	.getpeer = uetp_enosys_getpeer,
	.connect = uetp_enosys_connect,
	.listen = uetp_enosys_listen,
	.accept = uetp_enosys_accept,
	.reject = uetp_enosys_reject,
	.shutdown = uetp_enosys_shutdown,
	.join = uetp_enosys_join,
};

static uint64_t uetp_seed(void)
{
	uint64_t s = 0;

	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != sizeof(s))
		s = uetp_now() ^ ((uint64_t)getpid() << 32);
	return s;	/* splitmix64 (uet/rand.h) takes any seed, 0 too */
}

/* More than one context is a scalable endpoint's (uetp_sep.c). */
static bool uetp_ep_one_ctx(size_t cnt)
{
	return cnt <= 1 || cnt == FI_SHARED_CONTEXT;
}

int uetp_ep_open(struct fid_domain *domain, struct fi_info *info,
		 struct fid_ep **epp, void *context)
{
	const struct fi_ep_attr *a = info ? info->ep_attr : NULL;

	if (a && (!uetp_ep_one_ctx(a->tx_ctx_cnt) ||
		  !uetp_ep_one_ctx(a->rx_ctx_cnt)))
		return -FI_EINVAL;
	return uetp_ep_create(domain, info, epp, context);
}

int uetp_ep_create(struct fid_domain *domain, struct fi_info *info,
		   struct fid_ep **epp, void *context)
{
	struct uetp_domain *dom = uet_container_of(domain, struct uetp_domain,
						    fid);
	struct uetp_impair_cfg icfg;
	struct uetp_name src;
	uint16_t port = 0;
	struct uetp_ep *ep;
	int ret;

	if (!info)
		info = dom->info;
	if (uetp_attr_check(dom->api_version, info))
		return -FI_EINVAL;
	if (info->src_addr) {
		static const uint8_t any[16];

		if (uetp_addr_decode(info->src_addr, info->src_addrlen,
				     &src) < 0 ||
		    src.addr.af != dom->iface.addr.af ||
		    (memcmp(src.addr.ip, dom->iface.addr.ip, 16) &&
		     memcmp(src.addr.ip, any, 16)))
			return -FI_EINVAL;	/* not this FEP's address */
		port = src.addr.port;
	}
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -FI_ENOMEM;
	ep->domain = dom;
	ep->timer_fd = -1;
	uet_list_init(&ep->dom_entry);
	ep->info = fi_dupinfo(info);
	if (!ep->info) {
		ret = -FI_ENOMEM;
		goto err;
	}
	ep->addr_format = info->addr_format;
	ep->caps = info->caps ? info->caps : UETP_CAPS;
	ep->tx_op_flags = info->tx_attr->op_flags;
	ep->rx_op_flags = info->rx_attr->op_flags;
	ep->iov_limit = UETP_IOV_LIMIT;
	ep->inject_size = info->tx_attr->inject_size ?
			  info->tx_attr->inject_size : UETP_INJECT_SIZE;
	ep->min_multi_recv = UETP_INJECT_SIZE;
	ep->entropy_bits = (unsigned)uetp_env.entropy_bits;
	ep->tclass = uetp_tclass_resolve(info->tx_attr->tclass,
					 dom->info->domain_attr->tclass);
	ep->dscp = uetp_tclass_dscp(ep->tclass);
	ep->rand_state = uetp_seed();
	uetp_lock_init(&ep->lock, dom->locking);
	uetp_ep_config(ep, info);

	ep->pcap = uetp_pcap_get() > 0;
	if (uetp_env.impair && !uetp_impair_parse(uetp_env.impair, &icfg)) {
		ret = uetp_impair_open(&ep->impair, &icfg);
		if (ret)
			goto err;
	}
	/* Placed packets are used in the pass that read them: the impaired
	 * path holds packets back, a capture wants them whole. */
	ep->place = uetp_env.rx_place && !ep->pcap && !ep->impair &&
		    uetp_env.transport == UETP_TRANSPORT_UDP;
	ep->timer_fd = timerfd_create(CLOCK_MONOTONIC,
				      TFD_NONBLOCK | TFD_CLOEXEC);
	if (ep->timer_fd < 0) {
		ret = -FI_EMFILE;
		goto err;
	}
	ret = uetp_ep_reqs_alloc(ep);
	if (!ret)
		ret = uetp_ep_bufs_alloc(ep);
	if (!ret)
		ret = uetp_ep_engine_open(ep, port);
	if (ret)
		goto err;

	ep->fid.fid.fclass = FI_CLASS_EP;
	ep->fid.fid.context = context;
	ep->fid.fid.ops = &uetp_ep_fi_ops;
	ep->fid.ops = &uetp_ep_ops;
	ep->fid.cm = &uetp_ep_cm_ops;
	ep->fid.msg = &uetp_msg_ops;
	ep->fid.tagged = &uetp_tagged_ops;
	/* one-sided ops only for an endpoint opened with them */
	ep->fid.rma = (ep->caps & FI_RMA) ? &uetp_rma_ops : &uetp_enosys_rma;
	ep->fid.atomic = (ep->caps & FI_ATOMIC) ? &uetp_atomic_ops :
			 &uetp_enosys_atomic;
	ep->fid.collective = &uetp_enosys_collective;
	if (uetp_dgram_ep(info))
		uetp_dgram_ep_init(ep);
	atomic_fetch_add(&dom->ref, 1);
	*epp = &ep->fid;
	return 0;
err:
	if (ep->pcap)
		uetp_pcap_put();
	if (ep->timer_fd >= 0)
		close(ep->timer_fd);
	uetp_impair_close(ep->impair);
	free(ep->reqs);
	free(ep->rx_bufs);
	free(ep->tx_bufs);
	fi_freeinfo(ep->info);
	if (ep->info)
		uetp_lock_destroy(&ep->lock);
	free(ep);
	return ret;
}
