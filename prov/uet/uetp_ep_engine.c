/* The engine under an endpoint: its callbacks (completions into CQs and
 * counters, random bytes, the pcap tap), the UDP port and the struct
 * uet_fep opened on it, and the request pool operations are posted with.
 */
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uet/addr.h"
#include "uet/err.h"
#include "uet/rand.h"
#include "uet/rawip.h"
#include "uet/udp.h"
#include "uetp.h"

/* ---- engine callbacks ---- */

static void uetp_ep_rand(void *user, void *buf, size_t len)
{
	struct uetp_ep *ep = user;

	uet_rand_fill(&ep->rand_state, buf, len);
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
	if (req->srx) {
		uetp_srx_req_free(req->srx, req);
		return;
	}
	if (req->owner)
		ep = req->owner;	/* a context of a scalable endpoint */
	if (tx) {
		req->next = ep->tx_free;
		ep->tx_free = req;
		ep->tx_nfree++;
	} else {
		req->next = ep->rx_free;
		ep->rx_free = req;
		ep->rx_nfree++;
	}
}

struct uetp_req *uetp_ep_req_get(struct uetp_ep *ep, bool tx)
{
	struct uetp_req **list = tx ? &ep->tx_free : &ep->rx_free;
	struct uetp_req *r = *list;

	if (r) {
		*list = r->next;
		r->next = NULL;
		if (tx)
			ep->tx_nfree--;
		else
			ep->rx_nfree--;
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
	struct uetp_cq *rcq = ep->rx_cq;

	/* a scalable endpoint reports remote CQ data in rx context 0 */
	if (!rcq && ep->sep && ep->sep->rx_cnt && ep->sep->rx[0])
		rcq = ep->sep->rx[0]->rx_cq;
	for (int i = 0; i < 2; i++) {
		if (!cntrs[i] || (i && cntrs[1] == cntrs[0]))
			continue;
		if (c->err)
			uetp_cntr_inc_err(cntrs[i]);
		else
			uetp_cntr_inc(cntrs[i]);
	}
	if (!(c->flags & UET_CF_CQ_DATA) || !rcq)
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
		e.has_edata = true;
		e.edata.uet_err = c->err;
		e.edata.prov_errno = e.prov_errno;
	}
	uetp_cq_push(rcq, &e, false);
}

void uetp_ep_complete(void *user, const struct uet_completion *c)
{
	struct uetp_ep *ep = user;

	if (c->flags & UET_CF_REMOTE) {
		uetp_ep_complete_remote(ep, c);
		return;
	}
	uetp_ep_complete_req(ep, c->context, c);
}

void uetp_ep_complete_req(struct uetp_ep *ep, struct uetp_req *req,
			  const struct uet_completion *c)
{
	bool recv, tagged;
	bool final = true;
	struct uetp_cq_entry e;

	/* A shared rx context's receive reports where its message came:
	 * to the receiving endpoint's CQ and counter (ep may be NULL: no
	 * endpoint left to report to). */
	if (req->srx)
		uetp_srx_route(req, ep);
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
	if (recv && ep && ep->av && c->src.af)
		e.src = uetp_av_reverse(ep->av, &c->src);

	if (c->err) {
		e.is_err = true;
		e.err = -uetp_comp_errno(req, c);
		e.prov_errno = uetp_errno_prov(c->err, c->prov_errno);
		e.olen = c->olen;
		/* A local cancel names no peer and no UET code: its err says
		 * it all, and err_data stays empty (fi_cq.3: 0 bytes). */
		e.has_edata = c->err != UET_ERR_CANCELED || c->src.af;
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

/* The names of FI_UET_PLANES (0: unset). */
static unsigned uetp_ep_planes_count(void)
{
	const char *s = uetp_env.planes;
	unsigned n = s && *s ? 1 : 0;

	for (; s && *s; s++)
		n += *s == ',';
	return n;
}

/* FI_UET_PLANES into u: one interface index per name, in order (plane i
 * carries the EVs e with e mod n == i). -FI_EINVAL with a line naming
 * what is wrong: a name that is no interface here, an empty one, too
 * many, or raw IP. */
static int uetp_ep_planes(struct uet_udp_config *u)
{
	const char *s = uetp_env.planes, *end;
	char name[IF_NAMESIZE];
	size_t len;

	if (!s)
		return 0;
	if (uetp_env.transport == UETP_TRANSPORT_IP) {
		FI_WARN(&uetp_prov, FI_LOG_EP_CTRL, "FI_UET_PLANES is for "
			"FI_UET_TRANSPORT=udp only\n");
		return -FI_EINVAL;
	}
	if (uetp_ep_planes_count() > UET_UDP_PLANES_MAX) {
		FI_WARN(&uetp_prov, FI_LOG_EP_CTRL, "FI_UET_PLANES=\"%s\": "
			"more than %d planes\n", s, UET_UDP_PLANES_MAX);
		return -FI_EINVAL;
	}
	for (u->nplanes = 0;; s = end + 1) {
		end = strchr(s, ',');
		if (!end)
			end = s + strlen(s);
		len = (size_t)(end - s);
		if (len && len < sizeof(name)) {
			memcpy(name, s, len);
			name[len] = '\0';
			u->plane_ifindex[u->nplanes] = if_nametoindex(name);
		}
		if (!len || len >= sizeof(name) ||
		    !u->plane_ifindex[u->nplanes]) {
			FI_WARN(&uetp_prov, FI_LOG_EP_CTRL, "FI_UET_PLANES: "
				"\"%.*s\" is not an interface\n", (int)len, s);
			return -FI_EINVAL;
		}
		u->nplanes++;
		if (!*end)
			return 0;
	}
}

static int uetp_ep_udp_open(struct uetp_ep *ep, uint16_t exact,
			    const struct uet_udp_config *planes,
			    struct uet_net **netp)
{
	struct uetp_domain *dom = ep->domain;
	struct uet_udp_config u;
	uint16_t want = (uint16_t)uetp_env.udp_port;
	int ret;

	uet_udp_config_default(&u);
	u.nplanes = planes->nplanes;
	memcpy(u.plane_ifindex, planes->plane_ifindex,
	       sizeof(u.plane_ifindex));
	u.entropy_bits = ep->entropy_bits;
	u.gso = !!uetp_env.udp_gso;
	/* uetp_progress_io hands each batch to the engine (which keeps no
	 * packet) before it asks for the next: no copy out of the port */
	u.rx_lend = true;
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

/* FI_UET_TRANSPORT=ip: one raw socket on the domain's address, which is
 * the whole name (port 0); fi_setname's port has no meaning there. */
static int uetp_ep_ip_open(struct uetp_ep *ep, struct uet_net **netp)
{
	struct uetp_domain *dom = ep->domain;
	struct uet_rawip_config r;
	int ret;

	uet_rawip_config_default(&r);
	r.proto = (uint8_t)uetp_env.ip_proto;
	r.dscp = ep->dscp;
	ret = uet_rawip_open(netp, &dom->iface.addr, &r);
	if (ret)
		FI_WARN(&uetp_prov, FI_LOG_EP_CTRL,
			"cannot open raw IP on %s: %s\n", dom->iface.name,
			uet_rawip_errstr(NULL));
	return ret;
}

/* The port of FI_UET_TRANSPORT: uetp_hooks.port_open unless a test
 * replaced it. */
int uetp_ep_port_open(struct uetp_ep *ep, uint16_t exact,
		      struct uet_net **netp)
{
	struct uet_udp_config planes = { .nplanes = 0 };
	int ret;

	ret = uetp_ep_planes(&planes);
	if (ret)
		return ret;
	if (uetp_env.transport == UETP_TRANSPORT_IP) {
		ret = exact ? UET_ERR_INVAL : uetp_ep_ip_open(ep, netp);
		if (ret)
			return ret == UET_ERR_INVAL ? -FI_EINVAL :
			       ret == UET_ERR_IO ? -FI_EPERM : uetp_errno(ret);
		return 0;
	}
	ret = uetp_ep_udp_open(ep, exact, &planes, netp);
	if (ret)
		return ret == UET_ERR_INVAL ? -FI_EADDRINUSE : uetp_errno(ret);
	return 0;
}

/* The engine on cfg, in the secure domain of FI_UET_KEY_FILE if any:
 * its keys live on this stack only until the engine has its copy. */
static int uetp_ep_fep_open(struct uetp_ep *ep,
			    const struct uet_fep_config *base,
			    const struct uet_callbacks *cb,
			    struct uet_fep **fepp)
{
	struct uet_fep_config cfg = *base;
	struct uet_tss_cfg tss;
	int ret;

	ret = uetp_tss_cfg(uetp_env.key_file, cfg.job_id, &tss);
	if (ret)
		return ret;
	cfg.tss = &tss;
	ret = uet_fep_open(fepp, &cfg, cb, ep, uetp_now());
	explicit_bzero(&tss, sizeof(tss));
	if (ret) {
		FI_WARN(&uetp_prov, FI_LOG_EP_CTRL, "engine: %s\n",
			uet_err_str(ret));
		return uetp_errno(ret);
	}
	return 0;
}

void uetp_ep_engine_close(struct uetp_ep *ep)
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
int uetp_ep_engine_open(struct uetp_ep *ep, uint16_t exact)
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

	ret = uetp_hooks.port_open(ep, exact, &net);
	if (ret)
		return ret;
	cfg.local = net->local;
	cfg.pid_on_fep = uet_addr_pid(&cfg.local);
	cfg.resource_index = uet_addr_ri(&cfg.local);
	ret = uetp_ep_fep_open(ep, &cfg, &cb, &fep);
	if (ret) {
		net->ops->close(net);
		return ret;
	}
	uetp_ep_engine_close(ep);
	ep->net = net;
	ep->fep = fep;
	ep->cfg = cfg;
	uetp_sep_engine_changed(ep);
	uetp_addr_name(&ep->name, &ep->cfg.local, ep->cfg.job_id);
	return 0;
}

/* A new engine on the same port with ep->cfg as it is now (a shared
 * receive queue named in it): only before fi_enable, nothing to lose. */
int uetp_ep_engine_renew(struct uetp_ep *ep)
{
	struct uet_callbacks cb = {
		.complete = uetp_ep_complete,
		.rand = uetp_ep_rand,
		.trace = ep->pcap ? uetp_ep_trace : NULL,
	};
	struct uet_fep *fep = NULL;
	int ret;

	ret = uetp_ep_fep_open(ep, &ep->cfg, &cb, &fep);
	if (ret)
		return ret;
	uet_fep_close(ep->fep);
	ep->fep = fep;
	uetp_sep_engine_changed(ep);
	return 0;
}

/* Small packets: runs of a GSO train's worth of bytes and a window of
 * four such runs, where the engine's 16 and 64 packets would make
 * 23 KB trains and a 92 KB window at MTU 1500, for two system calls
 * and ACKs where one does (docs/choices.md §2.8). Packets larger than a
 * jumbo frame, which only the kernel's loopback carries: a window of
 * UETP_LO_WINDOW bytes (252 packets of 16 KB), there being no link queue
 * to fill. What the environment sets stays. */
void uetp_ep_fit_runs(struct uet_fep_config *c)
{
	size_t run = UETP_TRAIN_BYTES / c->mtu;

	if (run > UETP_TRAIN_PKTS)
		run = UETP_TRAIN_PKTS;
	if (!uetp_env.entropy_run && run > c->entropy_run)
		c->entropy_run = (uint16_t)run;
	if (!uetp_env.window && 4u * c->entropy_run > c->window)
		c->window = 4u * c->entropy_run;
	if (!uetp_env.window && c->mtu > UETP_JUMBO_MTU &&
	    UETP_LO_WINDOW / c->mtu > c->window)
		c->window = (unsigned)(UETP_LO_WINDOW / c->mtu);
}

void uetp_ep_config(struct uetp_ep *ep, const struct fi_info *info)
{
	struct uet_fep_config *c = &ep->cfg;

	uet_fep_config_default(c);
	c->job_id = ep->domain->job_id;
	if (info->ep_attr->auth_key &&
	    info->ep_attr->auth_key_size == UETP_AUTH_KEY_SIZE)
		memcpy(&c->job_id, info->ep_attr->auth_key, sizeof(c->job_id));
	c->mtu = ep->domain->mtu;
	c->host_mtu = ep->domain->host_mtu;
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
	if (uetp_env.max_pdcs)
		c->pdc_max = (unsigned)uetp_env.max_pdcs;
	if (uetp_env.unreach_hold_ms >= 0)
		c->unreach_hold = (uet_time)uetp_env.unreach_hold_ms * UET_MSEC;
	c->ack_hold = (uet_time)uetp_env.ack_hold_us * UET_USEC;
	c->cca = (uint8_t)uetp_env.cca;
	c->lb = (uint8_t)uetp_env.lb;
	c->loss_infer = !!uetp_env.loss_infer;
	c->lb_delay = !!uetp_env.lb_delay;
	if (uetp_env.link_gbps)
		c->link_bps = (uint64_t)uetp_env.link_gbps * 1000000000ull;
	/* UE 1.0 §3.6.16.6: the CCC's BDP is the aggregate of the planes it
	 * sprays over (one port per plane, each at link_bps) */
	if (uetp_ep_planes_count() > 1)
		c->link_bps *= uetp_ep_planes_count();
	if (uetp_env.base_rtt_us)
		c->base_rtt = (uet_time)uetp_env.base_rtt_us * UET_USEC;
	c->rndv_threshold = uetp_env.rndv_threshold;
	c->entropy_count = (uint16_t)(1u << ep->entropy_bits);
	if (uetp_env.entropy_run)
		c->entropy_run = (uint16_t)uetp_env.entropy_run;
	uetp_ep_fit_runs(c);
	/* connectionless: FI_EP_DGRAM sends UUD datagrams (uetp_dgram.c),
	 * FI_UET_RUDI idempotent RMA */
	c->uud = uetp_dgram_ep(info);
	c->rudi = !!uetp_env.rudi;
}

int uetp_ep_reqs_alloc(struct uetp_ep *ep)
{
	/* a few spare rx reqs for FI_PEEK|FI_CLAIM messages kept aside */
	size_t ntx = ep->cfg.tx_depth, nrx = ep->cfg.rx_depth + 16;

	ep->nreqs = ntx + nrx;
	ep->reqs = calloc(ep->nreqs, sizeof(*ep->reqs));
	if (!ep->reqs)
		return -FI_ENOMEM;
	for (size_t i = 0; i < ep->nreqs; i++) {
		ep->reqs[i].owner = ep;
		ep->reqs[i].type = i < ntx ? UET_OP_SEND : UET_OP_RECV;
		uetp_req_free(ep, &ep->reqs[i]);
	}
	return 0;
}

int uetp_ep_bufs_alloc(struct uetp_ep *ep)
{
	size_t cap = uet_fep_config_mtu_max(&ep->cfg);

	ep->rx_bufs = malloc((size_t)UETP_BATCH * UETP_PKT_MAX);
	ep->tx_bufs = malloc((size_t)UETP_TX_BATCH * cap);
	if (!ep->rx_bufs || !ep->tx_bufs)
		return -FI_ENOMEM;
	for (unsigned i = 0; i < UETP_BATCH; i++) {
		ep->rx_msgs[i].buf = ep->rx_bufs + (size_t)i * UETP_PKT_MAX;
		ep->rx_msgs[i].cap = UETP_PKT_MAX;
	}
	for (unsigned i = 0; i < UETP_TX_BATCH; i++) {
		ep->tx_msgs[i].buf = ep->tx_bufs + (size_t)i * cap;
		ep->tx_msgs[i].cap = cap;
	}
	return 0;
}
