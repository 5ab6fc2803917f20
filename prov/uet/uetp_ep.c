/* fid_ep (FI_EP_RDM): one struct uet_fep with its own UDP port.
 *
 * The port and the engine are opened by fi_endpoint already, so that
 * fi_getname answers before fi_enable (its name is the FA and UDP home
 * port, which is how peers reach it); fi_setname before fi_enable moves it
 * to another port. fi_enable checks the bindings and hooks the endpoint
 * into the progress machinery of its CQs and counters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "uet/err.h"
#include "uet/ses/ses.h"
#include "uet/udp.h"
#include "uetp.h"

/* ---- engine callbacks ---- */

static uint64_t uetp_xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static void uetp_ep_rand(void *user, void *buf, size_t len)
{
	struct uetp_ep *ep = user;
	uint8_t *p = buf;
	uint64_t r;

	while (len) {
		size_t n = len < sizeof(r) ? len : sizeof(r);

		r = uetp_xorshift(&ep->rand_state);
		memcpy(p, &r, n);
		p += n;
		len -= n;
	}
}

static void uetp_ep_trace(void *user, int dir, const struct uet_pkt_info *pi,
			  const uint8_t *pkt, size_t len)
{
	struct uetp_ep *ep = user;

	uetp_pcap_trace(ep->net, dir, ep->dscp, pi, pkt, len);
}

static void uetp_req_free(struct uetp_ep *ep, struct uetp_req *req)
{
	bool tx = uetp_op_is_tx(req->type);

	req->in_use = false;
	req->claimed = false;
	req->reserved = false;
	if (tx) {
		req->next = ep->tx_free;
		ep->tx_free = req;
	} else {
		req->next = ep->rx_free;
		ep->rx_free = req;
	}
}

struct uetp_req *uetp_ep_req_tx(struct uetp_ep *ep)
{
	struct uetp_req *r = ep->tx_free;

	if (r) {
		ep->tx_free = r->next;
		r->next = NULL;
	}
	return r;
}

void uetp_ep_req_put(struct uetp_ep *ep, struct uetp_req *req)
{
	uetp_req_free(ep, req);
}

static int uetp_comp_errno(const struct uetp_req *req,
			   const struct uet_completion *c)
{
	if (c->err == UET_ERR_REMOTE && c->prov_errno)
		return uetp_errno_rc((unsigned)c->prov_errno);
	if (req->peek && c->err == UET_ERR_NOENT)
		return -FI_ENOMSG;	/* fi_tagged.3: nothing to peek */
	return uetp_errno(c->err);
}

/* CQ flags of a locally initiated operation (fi_cq.3). */
static uint64_t uetp_comp_flags(const struct uetp_req *req)
{
	switch (req->type) {
	case UET_OP_SEND:
		return FI_SEND | FI_MSG;
	case UET_OP_TSEND:
		return FI_SEND | FI_TAGGED;
	case UET_OP_RECV:
		return FI_RECV | FI_MSG;
	case UET_OP_TRECV:
		return FI_RECV | FI_TAGGED;
	case UET_OP_WRITE:
		return FI_RMA | FI_WRITE;
	case UET_OP_READ:
		return FI_RMA | FI_READ;
	case UET_OP_ATOMIC:
		return FI_ATOMIC | FI_WRITE;
	}
	return FI_ATOMIC | FI_READ;	/* fetching and compare atomics */
}

/* The target side of an RMA write/read or atomic (UET_CF_REMOTE): the
 * endpoint's FI_REMOTE_* counters, the MR's counter, and for a write
 * with remote CQ data an entry in the receive CQ (op_context NULL). */
static void uetp_ep_complete_remote(struct uetp_ep *ep,
				    const struct uet_completion *c)
{
	struct uetp_mr *mr = c->context;
	/* fi_endpoint.3: reads, fetching and compare atomics count as
	 * remote reads; writes and base atomics as remote writes */
	bool rd = !!(c->flags & UET_CF_READ);
	uint64_t kind = rd ? FI_REMOTE_READ : FI_REMOTE_WRITE;
	struct uetp_cntr *cntrs[2] = { rd ? ep->rrd_cntr : ep->rwr_cntr,
				       mr && (mr->cntr_flags & kind) ?
				       mr->cntr : NULL };
	struct uetp_cq_entry e;

	for (int i = 0; i < 2; i++) {
		if (!cntrs[i] || (i && cntrs[1] == cntrs[0]))
			continue;
		if (c->err)
			uetp_cntr_inc_err(cntrs[i]);
		else
			uetp_cntr_inc(cntrs[i]);
	}
	if (!(c->flags & UET_CF_CQ_DATA) || !ep->rx_cq)
		return;
	memset(&e, 0, sizeof(e));
	e.flags = kind | FI_REMOTE_CQ_DATA |
		  ((c->flags & UET_CF_ATOMIC) ? FI_ATOMIC : FI_RMA);
	e.data = c->data;
	e.len = c->len;
	e.src = FI_ADDR_NOTAVAIL;
	if (ep->av && c->src.af)
		e.src = uetp_av_reverse(ep->av, &c->src);
	if (c->err) {
		e.is_err = true;
		e.err = -uetp_errno(c->err);
		e.prov_errno = uetp_errno_prov(c->err, c->prov_errno);
		e.edata.uet_err = c->err;
		e.edata.prov_errno = e.prov_errno;
	}
	uetp_cq_push(ep->rx_cq, &e, false);
}

void uetp_ep_complete(void *user, const struct uet_completion *c)
{
	struct uetp_ep *ep = user;
	struct uetp_req *req;
	bool recv, tagged;
	bool final = true;
	struct uetp_cq_entry e;

	if (c->flags & UET_CF_REMOTE) {
		uetp_ep_complete_remote(ep, c);
		return;
	}
	req = c->context;
	recv = req->type == UET_OP_RECV || req->type == UET_OP_TRECV;
	tagged = req->type == UET_OP_TSEND || req->type == UET_OP_TRECV;
	if ((req->flags & FI_MULTI_RECV) && !c->err)
		final = !!(c->flags & UET_CF_MULTI_RECV);

	memset(&e, 0, sizeof(e));
	e.op_context = req->context;
	e.flags = uetp_comp_flags(req);
	if (c->flags & UET_CF_CQ_DATA) {
		e.flags |= FI_REMOTE_CQ_DATA;
		e.data = c->data;
	}
	if (c->flags & UET_CF_MULTI_RECV)
		e.flags |= FI_MULTI_RECV;
	e.len = c->len;
	e.buf = recv ? c->buf : NULL;
	e.tag = recv && tagged ? c->tag : 0;
	e.src = FI_ADDR_NOTAVAIL;
	if (recv && ep->av && c->src.af)
		e.src = uetp_av_reverse(ep->av, &c->src);

	if (c->err) {
		e.is_err = true;
		e.err = -uetp_comp_errno(req, c);
		e.prov_errno = uetp_errno_prov(c->err, c->prov_errno);
		e.olen = c->olen;
		e.edata.uet_err = c->err;
		e.edata.prov_errno = e.prov_errno;
		if (c->src.af)
			uet_addr_str(e.edata.peer, sizeof(e.edata.peer),
				     &c->src);
		if (req->cntr)
			uetp_cntr_inc_err(req->cntr);
		if (req->cq)
			uetp_cq_push(req->cq, &e, req->reserved);
		req->reserved = false;
	} else {
		if (req->cntr)
			uetp_cntr_inc(req->cntr);
		if (req->want_comp && req->cq) {
			uetp_cq_push(req->cq, &e, final && req->reserved);
			if (final)
				req->reserved = false;
		} else if (final && req->reserved) {
			uetp_cq_unreserve(req->cq);
			req->reserved = false;
		}
	}

	if (req->peek && (req->flags & FI_CLAIM) && !c->err &&
	    !(req->flags & FI_DISCARD)) {
		/* FI_PEEK|FI_CLAIM: the message waits for the FI_CLAIM that
		 * names the same context; keep our req for it */
		req->claimed = true;
		return;
	}
	if (final)
		uetp_req_free(ep, req);
}

/* ---- the UDP port and the engine ---- */

static int uetp_ep_udp_open(struct uetp_ep *ep, uint16_t exact,
			    struct uet_net **netp)
{
	struct uetp_domain *dom = ep->domain;
	struct uet_udp_config u;
	uint16_t want = (uint16_t)uetp_env.udp_port;
	int ret;

	uet_udp_config_default(&u);
	u.entropy_bits = ep->entropy_bits;
	u.gso = !!uetp_env.udp_gso;
	u.dscp = ep->dscp;		/* the traffic class, on every packet */
	if (exact) {
		u.port = exact;
		u.prefer_iana = false;
		ret = uet_udp_open(netp, &dom->iface.addr, &u);
		if (ret)
			FI_WARN(&uetp_prov, FI_LOG_EP_CTRL,
				"cannot bind UDP port %u: %s\n", exact,
				uet_udp_errstr(NULL));
		return ret;
	}
	/* FI_UET_UDP_PORT is a preference: the first endpoint on an
	 * address takes it if free, later ones an ephemeral port */
	u.prefer_iana = want == UET_UDP_IANA_PORT;
	if (want && want != UET_UDP_IANA_PORT) {
		u.port = want;
		if (!uet_udp_open(netp, &dom->iface.addr, &u))
			return 0;
		u.port = 0;
	}
	ret = uet_udp_open(netp, &dom->iface.addr, &u);
	if (ret)
		FI_WARN(&uetp_prov, FI_LOG_EP_CTRL,
			"cannot open a UDP port on %s: %s\n", dom->iface.name,
			uet_udp_errstr(NULL));
	return ret;
}

static void uetp_ep_engine_close(struct uetp_ep *ep)
{
	if (ep->fep) {
		uet_fep_close(ep->fep);
		ep->fep = NULL;
	}
	if (ep->net) {
		ep->net->ops->close(ep->net);
		ep->net = NULL;
	}
}

/* (Re)open port and engine; exact = 0 follows FI_UET_UDP_PORT. The new
 * ones replace the old only once both are open: a failed fi_setname
 * (port taken) leaves the endpoint with its name and engine. */
static int uetp_ep_engine_open(struct uetp_ep *ep, uint16_t exact)
{
	struct uet_callbacks cb = {
		.complete = uetp_ep_complete,
		.rand = uetp_ep_rand,
		.trace = ep->pcap ? uetp_ep_trace : NULL,
	};
	struct uet_fep_config cfg = ep->cfg;
	struct uet_net *net = NULL;
	struct uet_fep *fep = NULL;
	int ret;

	ret = uetp_ep_udp_open(ep, exact, &net);
	if (ret)
		return ret == UET_ERR_INVAL ? -FI_EADDRINUSE : uetp_errno(ret);
	cfg.local = net->local;
	cfg.pid_on_fep = uet_ses_addr_pid(&cfg.local);
	cfg.resource_index = uet_ses_addr_ri(&cfg.local);
	ret = uet_fep_open(&fep, &cfg, &cb, ep, uetp_now());
	if (ret) {
		FI_WARN(&uetp_prov, FI_LOG_EP_CTRL, "engine: %s\n",
			uet_err_str(ret));
		net->ops->close(net);
		return uetp_errno(ret);
	}
	uetp_ep_engine_close(ep);
	ep->net = net;
	ep->fep = fep;
	ep->cfg = cfg;
	uetp_addr_name(&ep->name, &ep->cfg.local, ep->cfg.job_id);
	return 0;
}

static void uetp_ep_config(struct uetp_ep *ep, const struct fi_info *info)
{
	struct uet_fep_config *c = &ep->cfg;

	uet_fep_config_default(c);
	c->job_id = ep->domain->job_id;
	if (info->ep_attr->auth_key &&
	    info->ep_attr->auth_key_size == UETP_AUTH_KEY_SIZE)
		memcpy(&c->job_id, info->ep_attr->auth_key, sizeof(c->job_id));
	c->mtu = ep->domain->mtu;
	c->max_msg_size = UETP_MAX_MSG_SIZE;
	c->inject_size = ep->inject_size;
	c->tx_depth = (unsigned)(info->tx_attr->size ? info->tx_attr->size :
				 uetp_env.tx_size);
	c->rx_depth = (unsigned)(info->rx_attr->size ? info->rx_attr->size :
				 uetp_env.rx_size);
	if (uetp_env.unexp_max)
		c->unexp_max = uetp_env.unexp_max;
	if (uetp_env.rod)
		c->rod = true;
	if (uetp_env.rto_ms) {
		c->rto_min = (uet_time)uetp_env.rto_ms * UET_MSEC;
		if (c->rto_max < c->rto_min)
			c->rto_max = c->rto_min;
	}
	if (uetp_env.max_retx)
		c->max_retx = (unsigned)uetp_env.max_retx;
	if (uetp_env.window)
		c->window = (unsigned)uetp_env.window;
	c->cca = (uint8_t)uetp_env.cca;
	c->loss_infer = !!uetp_env.loss_infer;
	if (uetp_env.link_gbps)
		c->link_bps = (uint64_t)uetp_env.link_gbps * 1000000000ull;
	if (uetp_env.base_rtt_us)
		c->base_rtt = (uet_time)uetp_env.base_rtt_us * UET_USEC;
	c->rndv_threshold = uetp_env.rndv_threshold;
	c->entropy_count = (uint16_t)(1u << ep->entropy_bits);
	/* connectionless: FI_EP_DGRAM sends UUD datagrams (uetp_dgram.c),
	 * FI_UET_RUDI idempotent RMA */
	c->uud = uetp_dgram_ep(info);
	c->rudi = !!uetp_env.rudi;
}

static int uetp_ep_reqs_alloc(struct uetp_ep *ep)
{
	/* a few spare rx reqs for FI_PEEK|FI_CLAIM messages kept aside */
	size_t ntx = ep->cfg.tx_depth, nrx = ep->cfg.rx_depth + 16;

	ep->nreqs = ntx + nrx;
	ep->reqs = calloc(ep->nreqs, sizeof(*ep->reqs));
	if (!ep->reqs)
		return -FI_ENOMEM;
	for (size_t i = 0; i < ep->nreqs; i++) {
		ep->reqs[i].type = i < ntx ? UET_OP_SEND : UET_OP_RECV;
		uetp_req_free(ep, &ep->reqs[i]);
	}
	return 0;
}

static int uetp_ep_bufs_alloc(struct uetp_ep *ep)
{
	ep->rx_bufs = malloc((size_t)UETP_BATCH * UETP_PKT_MAX);
	ep->tx_bufs = malloc((size_t)UETP_BATCH * ep->cfg.mtu);
	if (!ep->rx_bufs || !ep->tx_bufs)
		return -FI_ENOMEM;
	for (unsigned i = 0; i < UETP_BATCH; i++) {
		ep->rx_msgs[i].buf = ep->rx_bufs + (size_t)i * UETP_PKT_MAX;
		ep->rx_msgs[i].cap = UETP_PKT_MAX;
		ep->tx_msgs[i].buf = ep->tx_bufs + (size_t)i * ep->cfg.mtu;
		ep->tx_msgs[i].cap = ep->cfg.mtu;
	}
	return 0;
}

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
	char name[96], line[1024];
	size_t n = 0;

	uet_fep_stats(ep->fep, &s);
	uet_udp_stats(ep->net, &u);
	uet_addr_str(name, sizeof(name), &ep->name.addr);
	UETP_STATS_PUT(
		"uet stats %s: tx_pkts %llu rx_pkts %llu tx_bytes %llu "
		"rx_bytes %llu retx_rto %llu retx_nack %llu retx_sack %llu "
		"retx_tlp %llu acks_tx %llu "
		"acks_rx %llu nacks_tx %llu nacks_rx %llu sack_gaps %llu "
		"dup_rx %llu drop_malformed %llu drop_job %llu drop_pdc %llu "
		"drop_psn %llu drop_other %llu pdc_open %llu pdc_closed %llu "
		"pdc_failed %llu unexp_msgs %llu cl_tx %llu cl_rx %llu "
		"udp_would_block %llu udp_gso_trains %llu udp_gro_trains %llu "
		"udp_rx_dropped %llu tx_refused %llu",
		name, (unsigned long long)s.tx_pkts,
		(unsigned long long)s.rx_pkts, (unsigned long long)s.tx_bytes,
		(unsigned long long)s.rx_bytes,
		(unsigned long long)s.retx_rto,
		(unsigned long long)s.retx_nack,
		(unsigned long long)s.retx_sack,
		(unsigned long long)s.retx_tlp,
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
		(unsigned long long)ep->tx_dropped);
	/* one-sided work: return-direction (read, rendezvous) packets and
	 * requests served or refused as a target */
	UETP_STATS_PUT(" ret_tx %llu ret_rx %llu rma_rx %llu rma_refused %llu",
		(unsigned long long)s.ret_tx, (unsigned long long)s.ret_rx,
		(unsigned long long)s.rma_rx,
		(unsigned long long)s.rma_refused);
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
}

/* Let the engine send what is due shortly (delayed ACKs above all) before
 * the port goes away, so the peer's last sends can complete. */
static void uetp_ep_linger(struct uetp_ep *ep)
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

/* The endpoint's counters, one slot per fi_ep_bind flag. */
#define UETP_EP_CNTRS	6

static void uetp_ep_cntrs(struct uetp_ep *ep,
			  struct uetp_cntr ***slots)
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

static int uetp_ep_hook_wait(struct uetp_ep *ep, struct uetp_wait *w)
{
	int ret;

	if (!w || ep->domain->prog)
		return 0;	/* the progress thread reads the sockets */
	ret = uetp_wait_add_fd(w, ep->net->ops->fd(ep->net));
	if (!ret)
		ret = uetp_wait_add_fd(w, ep->timer_fd);
	return ret;
}

static void uetp_ep_unhook_wait(struct uetp_ep *ep, struct uetp_wait *w)
{
	if (!w)
		return;
	uetp_wait_del_fd(w, ep->net->ops->fd(ep->net));
	uetp_wait_del_fd(w, ep->timer_fd);
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

static void uetp_ep_unhook(struct uetp_ep *ep)
{
	struct uetp_cntr **slots[UETP_EP_CNTRS];
	struct uetp_dlist *e;

	pthread_mutex_lock(&ep->domain->lock);
	uetp_dlist_remove(&ep->dom_entry);
	ep->domain->eps_gen++;
	/* counters of MRs make progress on every endpoint (their remote
	 * events come through any of them) */
	for (e = ep->domain->mrs.next; e != &ep->domain->mrs; e = e->next) {
		struct uetp_mr *mr = uetp_container_of(e, struct uetp_mr,
						       dom_entry);

		if (mr->cntr)
			uetp_ep_unhook_cntr(ep, mr->cntr);
	}
	uetp_mr_ep_close(ep);
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

static void uetp_ep_release_reqs(struct uetp_ep *ep)
{
	for (size_t i = 0; i < ep->nreqs; i++) {
		struct uetp_req *r = &ep->reqs[i];

		if (r->in_use && r->reserved && r->cq)
			uetp_cq_unreserve(r->cq);
		r->in_use = false;
	}
}

static int uetp_ep_close(struct fid *fid)
{
	struct uetp_ep *ep = uetp_container_of(fid, struct uetp_ep, fid.fid);

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

static int uetp_ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct uetp_ep *ep = uetp_container_of(fid, struct uetp_ep, fid.fid);
	struct uetp_av *av;
	struct uetp_eq *eq;

	if (ep->enabled)
		return -FI_EOPBADSTATE;
	switch (bfid->fclass) {
	case FI_CLASS_AV:
		av = uetp_container_of(bfid, struct uetp_av, fid.fid);
		if (ep->av || av->domain != ep->domain)
			return -FI_EINVAL;
		ep->av = av;
		atomic_fetch_add(&av->ref, 1);
		return 0;
	case FI_CLASS_CQ:
		return uetp_ep_bind_cq(ep, uetp_container_of(bfid,
				       struct uetp_cq, fid.fid), flags);
	case FI_CLASS_CNTR:
		return uetp_ep_bind_cntr(ep, uetp_container_of(bfid,
					 struct uetp_cntr, fid.fid), flags);
	case FI_CLASS_EQ:
		if (ep->eq)
			return -FI_EINVAL;
		eq = uetp_container_of(bfid, struct uetp_eq, fid.fid);
		ep->eq = eq;
		atomic_fetch_add(&eq->ref, 1);
		return 0;
	}
	return -FI_EINVAL;
}

/* Hook into the domain (MRs, their counters, the progress thread's
 * list); domain->lock held. */
static int uetp_ep_enable_domain(struct uetp_ep *ep)
{
	struct uetp_domain *dom = ep->domain;
	struct uetp_dlist *e;
	int ret;

	ret = uetp_mr_ep_enable(ep);
	for (e = dom->mrs.next; !ret && e != &dom->mrs; e = e->next) {
		struct uetp_mr *mr = uetp_container_of(e, struct uetp_mr,
						       dom_entry);

		if (mr->cntr)
			ret = uetp_ep_hook_cntr(ep, mr->cntr);
	}
	uetp_dlist_insert_tail(&dom->eps, &ep->dom_entry);
	dom->eps_gen++;
	return ret;
}

static int uetp_ep_enable(struct uetp_ep *ep)
{
	struct uetp_cntr **slots[UETP_EP_CNTRS];
	int ret = 0;

	if (ep->enabled)
		return 0;
	if (!ep->av)
		return -FI_ENOAV;
	/* fi_endpoint.3: every kind of transfer needs a CQ (or counter)
	 * that can report it, even if only its errors */
	if ((ep->caps & FI_SEND) && !ep->tx_cq && !ep->tx_cntr)
		return -FI_ENOCQ;
	if ((ep->caps & FI_RECV) && !ep->rx_cq && !ep->rx_cntr)
		return -FI_ENOCQ;
	if ((ep->caps & FI_WRITE) && !ep->tx_cq && !ep->wr_cntr)
		return -FI_ENOCQ;
	if ((ep->caps & FI_READ) && !ep->tx_cq && !ep->rd_cntr)
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
	pthread_mutex_lock(&ep->domain->lock);
	if (!ret)
		ret = uetp_ep_enable_domain(ep);
	else
		uetp_dlist_insert_tail(&ep->domain->eps, &ep->dom_entry);
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

static int uetp_ep_control(struct fid *fid, int command, void *arg)
{
	struct uetp_ep *ep = uetp_container_of(fid, struct uetp_ep, fid.fid);

	switch (command) {
	case FI_ENABLE:
		return uetp_ep_enable(ep);
	case FI_GETOPSFLAG:
		return uetp_ep_ops_flag(ep, arg, false);
	case FI_SETOPSFLAG:
		return uetp_ep_ops_flag(ep, arg, true);
	}
	return -FI_ENOSYS;
}

/* ---- fi_ops_cm ---- */

static int uetp_ep_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct uetp_ep *ep = uetp_container_of(fid, struct uetp_ep, fid.fid);
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
	struct uetp_ep *ep = uetp_container_of(fid, struct uetp_ep, fid.fid);
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
	struct uetp_ep *ep = uetp_container_of(fid, struct uetp_ep, fid.fid);
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
	struct uetp_ep *ep = uetp_container_of(fid, struct uetp_ep, fid.fid);

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
	struct uetp_ep *ep = uetp_container_of(fid, struct uetp_ep, fid.fid);

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

static size_t uetp_free_count(const struct uetp_req *r)
{
	size_t n = 0;

	for (; r; r = r->next)
		n++;
	return n;
}

static ssize_t uetp_ep_rx_size_left(struct fid_ep *ep_fid)
{
	struct uetp_ep *ep = uetp_container_of(ep_fid, struct uetp_ep, fid);
	size_t a, b;

	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	uetp_lock_acquire(&ep->lock);
	a = uet_fep_rx_left(ep->fep);
	b = uetp_free_count(ep->rx_free);
	uetp_lock_release(&ep->lock);
	return (ssize_t)(a < b ? a : b);
}

static ssize_t uetp_ep_tx_size_left(struct fid_ep *ep_fid)
{
	struct uetp_ep *ep = uetp_container_of(ep_fid, struct uetp_ep, fid);
	size_t a, b;

	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	uetp_lock_acquire(&ep->lock);
	a = uet_fep_tx_left(ep->fep);
	b = uetp_free_count(ep->tx_free);
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

static struct fi_ops_ep uetp_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = uetp_ep_cancel,
	.getopt = uetp_ep_getopt,
	.setopt = uetp_ep_setopt,
	.tx_ctx = uetp_enosys_tx_ctx,
	.rx_ctx = uetp_enosys_rx_ctx,
	.rx_size_left = uetp_ep_rx_size_left,
	.tx_size_left = uetp_ep_tx_size_left,
};

static struct fi_ops_cm uetp_cm_ops = {
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
	return s ? s : 0x9E3779B97F4A7C15ULL;
}

int uetp_ep_open(struct fid_domain *domain, struct fi_info *info,
		 struct fid_ep **epp, void *context)
{
	struct uetp_domain *dom = uetp_container_of(domain, struct uetp_domain,
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
	uetp_dlist_init(&ep->dom_entry);
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
	ep->fid.cm = &uetp_cm_ops;
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
