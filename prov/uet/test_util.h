/* Helpers shared by the prov/uet tests. */
#ifndef UETP_TEST_UTIL_H
#define UETP_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>

/* Make libfabric find the module we just built (and only it). Must run
 * before the first fi_* call of the process. */
static inline void uetp_test_provider_path(void)
{
	const char *top = getenv("top_builddir");
	char path[4096];

	snprintf(path, sizeof(path), "%s/prov/uet/.libs", top ? top : ".");
	setenv("FI_PROVIDER_PATH", path, 1);
	unsetenv("FI_PROVIDER");
}

/* Hints that select our provider. */
static inline struct fi_info *uetp_test_hints(void)
{
	struct fi_info *h = fi_allocinfo();

	if (h)
		h->fabric_attr->prov_name = strdup("uet");
	return h;
}

/* ---- fixtures of the tests linked with the provider's objects ----
 * They reach into the provider (uetp_attr_getinfo, its hooks), so they
 * exist only where uetp.h was included first. */
#ifdef UETP_H

#include <criterion/criterion.h>
#include <rdma/fi_errno.h>

#include "uet/mem.h"

/* The mem net and the fake clock the provider runs on once
 * uetp_test_mem_start() has replaced its hooks. Every reading of the
 * clock moves it by `tick`, so that the provider's own timed loops (the
 * linger of fi_close) end; the tests move it further with
 * uetp_test_idle(). One thread only. */
static struct {
	struct uet_mem_net *net;
	uet_time now;
	uet_time tick;
	uint16_t next_port;
	struct uetp_hooks saved;
} uetp_tnet;

#define UETP_TEST_T0		UET_SEC		/* the fake clock's start */
#define UETP_TEST_TICK		UET_USEC
#define UETP_TEST_PORT0		5000		/* ports handed out from */
#define UETP_TEST_IDLE_MAX	(100 * UET_MSEC) /* a jump with nothing due */

static inline uet_time uetp_test_now(void)
{
	uet_time t = uetp_tnet.now;

	uetp_tnet.now += uetp_tnet.tick;
	return t;
}

/* The port of an endpoint: on the domain's address, the exact port asked
 * for or the next free one, as the UDP port would give. */
static inline int uetp_test_port_open(struct uetp_ep *ep, uint16_t exact,
				      struct uet_net **netp)
{
	struct uet_addr a = ep->domain->iface.addr;
	int ret;

	a.port = exact ? exact : uetp_tnet.next_port++;
	ret = uet_mem_port_open(netp, uetp_tnet.net, &a);
	if (ret == UET_ERR_INVAL)
		return -FI_EADDRINUSE;
	return ret ? -FI_ENOMEM : 0;
}

/* Endpoints opened from now on use the mem net of cfg (NULL: a perfect
 * link) and the fake clock. Before the provider reads its parameters
 * (uetp_test_getinfo): the net and the clock belong to the test's thread,
 * so the domain must not start its rescue thread. The mtu is the largest
 * unless cfg says: the provider sizes packets for the interface (lo:
 * UETP_PKT_MAX), and a longer one would be refused as if unroutable. */
static inline void uetp_test_mem_start(const struct uet_mem_config *cfg)
{
	struct uet_mem_config c = { 0 };

	setenv("FI_UET_RESCUE_MS", "0", 1);
	if (cfg)
		c = *cfg;
	if (!c.mtu)
		c.mtu = UET_MEM_MTU_MAX;
	cr_assert_null(uetp_tnet.net, "mem net started twice");
	cr_assert_eq(uet_mem_net_create(&uetp_tnet.net, &c), 0);
	uetp_tnet.now = UETP_TEST_T0;
	uetp_tnet.tick = UETP_TEST_TICK;
	uetp_tnet.next_port = UETP_TEST_PORT0;
	uetp_tnet.saved = uetp_hooks;
	uetp_hooks.port_open = uetp_test_port_open;
	uetp_hooks.now = uetp_test_now;
}

/* Back to sockets and the real clock; after every endpoint is closed. */
static inline void uetp_test_mem_stop(void)
{
	if (!uetp_tnet.net)
		return;
	uetp_hooks = uetp_tnet.saved;
	uet_mem_net_destroy(uetp_tnet.net);
	memset(&uetp_tnet, 0, sizeof(uetp_tnet));
}

static inline struct uetp_ep *uetp_test_ep(struct fid_ep *ep)
{
	return uet_container_of(ep, struct uetp_ep, fid);
}

/* The endpoint's port, for uet_mem_port_set_impair. */
static inline struct uet_net *uetp_test_port(struct fid_ep *ep)
{
	return uetp_test_ep(ep)->net;
}

/* The next thing due in domain d: a packet's delivery or an engine
 * timer of one of its endpoints (UET_TIME_NONE: nothing). */
static inline uet_time uetp_test_next_due(struct fid_domain *d)
{
	struct uetp_domain *dom = uet_container_of(d, struct uetp_domain,
						   fid);
	uet_time next = uet_mem_net_next_delivery(uetp_tnet.net), t;
	struct uet_list *e, *tmp;

	pthread_mutex_lock(&dom->lock);
	uet_list_foreach_safe(e, tmp, &dom->eps) {
		t = uetp_progress_deadline(uet_container_of(e, struct uetp_ep,
							    dom_entry));
		if (t < next)
			next = t;
	}
	pthread_mutex_unlock(&dom->lock);
	return next;
}

/* A turn of a wait loop that found nothing: on the mem net the clock
 * jumps to the next thing due in domain d (at most
 * UETP_TEST_IDLE_MAX); on sockets real time passes by itself. */
static inline void uetp_test_idle(struct fid_domain *d)
{
	uet_time next;

	if (!uetp_tnet.net)
		return;
	next = uetp_test_next_due(d);
	if (next > uetp_tnet.now + UETP_TEST_IDLE_MAX)
		next = uetp_tnet.now + UETP_TEST_IDLE_MAX;
	if (next > uetp_tnet.now)
		uetp_tnet.now = next;
}

/* One endpoint with the objects bound to it. */
struct uetp_test_side {
	struct fid_ep *ep;
	struct fid_av *av;
	struct fid_cq *cq;
	struct fid_cntr *cntr;		/* on attr.cntr_flags */
	struct fid_cntr *wc, *rc;	/* FI_WRITE, FI_READ (attr.rw_cntrs) */
	fi_addr_t peer;			/* the other side, once linked */
};

/* What a side gets besides its endpoint and table AV. */
struct uetp_test_side_attr {
	struct fi_cq_attr cq;		/* .format 0: no CQ */
	void *cq_ctx;
	struct fi_cntr_attr cntr;	/* of every counter */
	void *cntr_ctx;
	uint64_t cntr_flags;		/* 0: no counter */
	bool rw_cntrs;
	bool defer_enable;		/* the test calls fi_enable */
};

#define UETP_TEST_OWN_MAX	8

/* Two endpoints of one domain, and the test's own objects of it. */
struct uetp_test_pair {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct uetp_test_side a, b;
	struct fid *own[UETP_TEST_OWN_MAX];
	unsigned nown;
};

/* f closes with p, after the sides and before the domain; the last one
 * given closes first. */
static inline void uetp_test_own(struct uetp_test_pair *p, struct fid *f)
{
	cr_assert_lt(p->nown, UETP_TEST_OWN_MAX);
	p->own[p->nown++] = f;
}

/* Hints for the loopback interface, IPv4 names. */
static inline struct fi_info *uetp_test_lo_hints(enum fi_ep_type type,
						 uint64_t caps)
{
	struct fi_info *h = fi_allocinfo();

	cr_assert_not_null(h);
	h->addr_format = FI_SOCKADDR_IN;
	h->domain_attr->name = strdup("lo");
	h->ep_attr->type = type;
	h->caps = caps;
	return h;
}

/* p->info: the first entry the provider gives for hints h (freed). */
static inline void uetp_test_getinfo(struct uetp_test_pair *p,
				     struct fi_info *h)
{
	fi_prov_ini();
	cr_assert_eq(uetp_attr_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h,
				       &p->info), 0);
	fi_freeinfo(h);
}

/* Fabric and domain of p->info. */
static inline void uetp_test_domain_open(struct uetp_test_pair *p)
{
	cr_assert_eq(uetp_fabric_open(p->info->fabric_attr, &p->fabric,
				      NULL), 0);
	cr_assert_eq(fi_domain(p->fabric, p->info, &p->domain, NULL), 0);
}

static inline void uetp_test_side_open(struct uetp_test_side *s,
				       struct fid_domain *domain,
				       struct fi_info *info,
				       const struct uetp_test_side_attr *attr)
{
	struct fi_av_attr aa = { .type = FI_AV_TABLE };
	struct fi_cq_attr ca = attr->cq;
	struct fi_cntr_attr na = attr->cntr;

	cr_assert_eq(fi_endpoint(domain, info, &s->ep, NULL), 0);
	cr_assert_eq(fi_av_open(domain, &aa, &s->av, NULL), 0);
	cr_assert_eq(fi_ep_bind(s->ep, &s->av->fid, 0), 0);
	if (ca.format) {
		cr_assert_eq(fi_cq_open(domain, &ca, &s->cq, attr->cq_ctx), 0);
		cr_assert_eq(fi_ep_bind(s->ep, &s->cq->fid,
					FI_TRANSMIT | FI_RECV), 0);
	}
	if (attr->cntr_flags) {
		cr_assert_eq(fi_cntr_open(domain, &na, &s->cntr,
					  attr->cntr_ctx), 0);
		cr_assert_eq(fi_ep_bind(s->ep, &s->cntr->fid,
					attr->cntr_flags), 0);
	}
	if (attr->rw_cntrs) {
		cr_assert_eq(fi_cntr_open(domain, &na, &s->wc, NULL), 0);
		cr_assert_eq(fi_cntr_open(domain, &na, &s->rc, NULL), 0);
		cr_assert_eq(fi_ep_bind(s->ep, &s->wc->fid, FI_WRITE), 0);
		cr_assert_eq(fi_ep_bind(s->ep, &s->rc->fid, FI_READ), 0);
	}
	if (!attr->defer_enable)
		cr_assert_eq(fi_enable(s->ep), 0);
}

/* a reaches b as a->peer. */
static inline void uetp_test_link(struct uetp_test_side *a,
				  const struct uetp_test_side *b)
{
	struct sockaddr_in sin;
	size_t len = sizeof(sin);

	cr_assert_eq(fi_getname(&b->ep->fid, &sin, &len), 0);
	cr_assert_eq(fi_av_insert(a->av, &sin, 1, &a->peer, 0, NULL), 1);
}

/* Fabric, domain and two endpoints of p->info alike, each the other's
 * peer. */
static inline void uetp_test_pair_open(struct uetp_test_pair *p,
				       const struct uetp_test_side_attr *attr)
{
	uetp_test_domain_open(p);
	uetp_test_side_open(&p->a, p->domain, p->info, attr);
	uetp_test_side_open(&p->b, p->domain, p->info, attr);
	uetp_test_link(&p->a, &p->b);
	uetp_test_link(&p->b, &p->a);
}

/* Everything of s closed, endpoint first; s zeroed. */
static inline void uetp_test_side_close(struct uetp_test_side *s)
{
	if (s->ep)
		cr_assert_eq(fi_close(&s->ep->fid), 0);
	if (s->cq)
		cr_assert_eq(fi_close(&s->cq->fid), 0);
	if (s->cntr)
		cr_assert_eq(fi_close(&s->cntr->fid), 0);
	if (s->wc)
		cr_assert_eq(fi_close(&s->wc->fid), 0);
	if (s->rc)
		cr_assert_eq(fi_close(&s->rc->fid), 0);
	if (s->av)
		cr_assert_eq(fi_close(&s->av->fid), 0);
	memset(s, 0, sizeof(*s));
}

/* Both sides, the objects given to uetp_test_own, the domain and the
 * fabric closed, the info freed, the mem net (if any) gone; p zeroed. */
static inline void uetp_test_pair_close(struct uetp_test_pair *p)
{
	uetp_test_side_close(&p->a);
	uetp_test_side_close(&p->b);
	while (p->nown)
		cr_assert_eq(fi_close(p->own[--p->nown]), 0);
	if (p->domain)
		cr_assert_eq(fi_close(&p->domain->fid), 0);
	if (p->fabric)
		cr_assert_eq(fi_close(&p->fabric->fid), 0);
	fi_freeinfo(p->info);
	memset(p, 0, sizeof(*p));
	uetp_test_mem_stop();
}

#endif /* UETP_H */

#endif
