/* Two-or-more-fep test driver over the mem port (see harness.h). */
#include <string.h>

#include "uet/err.h"

#include "harness.h"

#define RX_BATCH	16
#define SAME_TIME_MAX	1000000u	/* steps without the clock moving */

struct uet_addr uet_harness_addr(unsigned i)
{
	struct uet_addr a = { .af = UET_AF_INET, .port = UET_HARNESS_PORT,
			      .ip = { 10, 0, 0, (uint8_t)(i + 1) } };
	return a;
}

static void h_rand(void *user, void *buf, size_t len)
{
	struct uet_harness_node *nd = user;
	uint8_t *p = buf;

	while (len--) {
		/* xorshift64 */
		nd->rand_state ^= nd->rand_state << 13;
		nd->rand_state ^= nd->rand_state >> 7;
		nd->rand_state ^= nd->rand_state << 17;
		*p++ = (uint8_t)(nd->rand_state >> 24);
	}
}

static void h_complete(void *user, const struct uet_completion *c)
{
	struct uet_harness_node *nd = user;

	if (nd->h->on_complete)
		nd->h->on_complete(nd->h, nd->idx, c);
}

static void h_trace(void *user, int dir, const struct uet_pkt_info *pi,
		    const uint8_t *pkt, size_t len)
{
	struct uet_harness_node *nd = user;

	if (nd->h->on_trace)
		nd->h->on_trace(nd->h, nd->idx, dir, pi, pkt, len);
}

static const struct uet_callbacks h_cb = {
	.complete = h_complete,
	.rand = h_rand,
	.trace = h_trace,
};

int uet_harness_init_each(struct uet_harness *h, unsigned n,
			  const struct uet_fep_config *cfgs,
			  const struct uet_mem_config *mcfg, uint64_t seed)
{
	struct uet_mem_config mc = { .pool = 0 };
	unsigned i;
	int rc;

	memset(h, 0, sizeof(*h));
	if (!n || n > UET_HARNESS_MAX)
		return UET_ERR_INVAL;
	if (mcfg)
		mc = *mcfg;
	if (!mc.spray_bits)
		mc.spray_bits = UET_HARNESS_SPRAY_BITS;
	rc = uet_mem_net_create(&h->net, &mc);
	if (rc)
		return rc;
	for (i = 0; i < n; i++) {
		struct uet_harness_node *nd = &h->node[i];

		nd->h = h;
		nd->idx = i;
		nd->addr = uet_harness_addr(i);
		nd->cfg = cfgs[i];
		nd->cfg.local = nd->addr;
		nd->rand_state = seed * 0x9E3779B97F4A7C15ull + i + 1;
		rc = uet_mem_port_open(&nd->port, h->net, &nd->addr);
		if (!rc)
			rc = uet_fep_open(&nd->fep, &nd->cfg, &h_cb, nd,
					  h->now);
		if (rc) {
			h->n = i + 1;
			uet_harness_fini(h);
			return rc;
		}
	}
	h->n = n;
	return 0;
}

int uet_harness_init(struct uet_harness *h, unsigned n,
		     const struct uet_fep_config *cfg,
		     const struct uet_mem_config *mcfg, uint64_t seed)
{
	struct uet_fep_config cfgs[UET_HARNESS_MAX];
	unsigned i;

	for (i = 0; i < UET_HARNESS_MAX; i++) {
		if (cfg)
			cfgs[i] = *cfg;
		else
			uet_fep_config_default(&cfgs[i]);
		cfgs[i].job_id = cfg ? cfg->job_id : 1;
	}
	return uet_harness_init_each(h, n, cfgs, mcfg, seed);
}

void uet_harness_kill(struct uet_harness *h, unsigned i)
{
	struct uet_harness_node *nd = &h->node[i];

	if (nd->fep)
		uet_fep_close(nd->fep);
	if (nd->port)
		nd->port->ops->close(nd->port);
	nd->fep = NULL;
	nd->port = NULL;
}

int uet_harness_revive(struct uet_harness *h, unsigned i)
{
	struct uet_harness_node *nd = &h->node[i];
	int rc;

	if (i >= h->n || nd->fep)
		return UET_ERR_INVAL;
	rc = uet_mem_port_open(&nd->port, h->net, &nd->addr);
	if (rc)
		return rc;
	rc = uet_fep_open(&nd->fep, &nd->cfg, &h_cb, nd, h->now);
	if (rc) {
		nd->port->ops->close(nd->port);
		nd->port = NULL;
	}
	return rc;
}

void uet_harness_fini(struct uet_harness *h)
{
	unsigned i;

	for (i = 0; i < h->n; i++)
		uet_harness_kill(h, i);
	uet_mem_net_destroy(h->net);
	h->net = NULL;
	h->n = 0;
}

static void node_flush(struct uet_harness *h, struct uet_harness_node *nd)
{
	uint8_t buf[UET_HARNESS_PKT_MAX];

	while (nd->fep) {
		struct uet_net_msg m;
		ssize_t n;

		memset(&m, 0, sizeof(m));
		n = uet_fep_poll_tx(nd->fep, &m.info, buf, sizeof(buf), h->now);
		if (n <= 0) {
			if (n < 0)
				nd->tx_err = (int)n;
			return;
		}
		nd->tx++;
		if (h->on_tx &&
		    !h->on_tx(h, nd->idx, &m.info, buf, (size_t)n)) {
			h->hook_drops++;
			continue;
		}
		m.info.ts = h->now;
		m.buf = buf;
		m.len = (size_t)n;
		m.cap = sizeof(buf);
		nd->port->ops->send(nd->port, &m, 1);
	}
}

void uet_harness_flush(struct uet_harness *h)
{
	unsigned i;

	for (i = 0; i < h->n; i++)
		node_flush(h, &h->node[i]);
}

int uet_harness_inject(struct uet_harness *h, unsigned i,
		       const struct uet_pkt_info *pi, const uint8_t *pkt,
		       size_t len)
{
	struct uet_harness_node *nd = &h->node[i];
	int rc;

	if (!nd->fep)
		return UET_ERR_INVAL;
	rc = uet_fep_recv(nd->fep, pi, pkt, len, h->now);
	nd->rx++;
	if (h->on_rx)
		h->on_rx(h, i, pi, pkt, len, rc);
	return rc;
}

static void node_rx(struct uet_harness *h, struct uet_harness_node *nd)
{
	static uint8_t bufs[RX_BATCH][UET_HARNESS_PKT_MAX];
	struct uet_net_msg m[RX_BATCH];
	int n, k;

	while (nd->port) {
		memset(m, 0, sizeof(m));
		for (k = 0; k < RX_BATCH; k++) {
			m[k].buf = bufs[k];
			m[k].cap = sizeof(bufs[k]);
		}
		n = nd->port->ops->recv(nd->port, m, RX_BATCH, h->now);
		if (n <= 0)
			return;
		for (k = 0; k < n && nd->fep; k++)
			uet_harness_inject(h, nd->idx, &m[k].info, m[k].buf,
					   m[k].len);
	}
}

static uet_time next_event(const struct uet_harness *h)
{
	uet_time t = uet_mem_net_next_delivery(h->net);
	unsigned i;

	for (i = 0; i < h->n; i++) {
		uet_time f;

		if (!h->node[i].fep)
			continue;
		f = uet_fep_next_timeout(h->node[i].fep);
		if (f < t)
			t = f;
	}
	return t;
}

bool uet_harness_step(struct uet_harness *h, uet_time limit)
{
	uet_time t;
	unsigned i;

	uet_harness_flush(h);
	t = next_event(h);
	if (t == UET_TIME_NONE || t > limit)
		return false;
	if (t > h->now) {
		h->now = t;
		h->same_time = 0;
	} else if (++h->same_time > SAME_TIME_MAX) {
		h->stuck = true;
		return false;
	}
	h->steps++;
	for (i = 0; i < h->n; i++)
		node_rx(h, &h->node[i]);
	for (i = 0; i < h->n; i++) {
		struct uet_fep *f = h->node[i].fep;

		if (f && uet_fep_next_timeout(f) <= h->now)
			uet_fep_handle_timeout(f, h->now);
	}
	uet_harness_flush(h);
	return true;
}

bool uet_harness_run(struct uet_harness *h,
		     bool (*done)(struct uet_harness *h, void *arg), void *arg,
		     uet_time limit)
{
	for (;;) {
		if (done && done(h, arg))
			return true;
		if (!uet_harness_step(h, limit))
			return done ? done(h, arg) : !h->stuck &&
				next_event(h) == UET_TIME_NONE;
	}
}
